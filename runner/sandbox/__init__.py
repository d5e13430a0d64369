"""Where bot code is compiled and run: the local sandbox (default) and Docker."""
