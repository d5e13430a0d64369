"""A stand-in for a Discord webhook on this machine: a real HTTP server that keeps every body
POSTed to it and answers with the status the test sets."""

from __future__ import annotations

import http.server
import json
import threading
from typing import Any


class Webhook:
    """A local stand-in for a Discord webhook: every body POSTed, and the status it answers."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.status = 204
        webhook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length", "0"))
                webhook.bodies.append(json.loads(self.rfile.read(length)))
                self.send_response(webhook.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api/webhooks/1/secret-token"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
