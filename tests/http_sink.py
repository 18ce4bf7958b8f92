"""An HTTP server on 127.0.0.1 that counts the requests it gets: the network canary of the
hostile-SQL and isolation tests."""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def serve_sink() -> Iterator[list[str]]:
    """An HTTP server on 127.0.0.1 for as long as the block runs: [its URL, then one entry per
    request it got]."""
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"a,b\n1,2\n")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    seen.append(f"http://127.0.0.1:{server.server_address[1]}")
    yield seen
    server.shutdown()
    server.server_close()
