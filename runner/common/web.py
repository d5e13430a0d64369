"""One HTTP request to a service koth reports to (a Discord webhook, GitHub's API): its answer
read up to a cap, and any failure as one line that names neither the address nor a token (a
webhook's address is a secret)."""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request


class RequestError(Exception):
    """The service refused or could not be reached: "answered 404 Not Found", "could not be
    reached (timed out)"; the caller says which service."""


def send(request: urllib.request.Request, timeout: float, cap: int) -> bytes:
    """``request``'s answer, at most ``cap`` + 1 bytes of it (more than ``cap``: too long, for
    the caller to judge); RequestError for any status but 2xx and any failure to reach it."""
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return bytes(response.read(cap + 1))
    except urllib.error.HTTPError as exc:
        raise RequestError(f"answered {exc.code} {exc.reason}") from None
    except (OSError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", None) or type(exc).__name__
        raise RequestError(f"could not be reached ({reason})") from None
