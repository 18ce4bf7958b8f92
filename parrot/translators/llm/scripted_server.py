"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests and the client benchmark.

It answers ``POST /v1/chat/completions`` with replies from a script: queued :class:`Reply`
objects first (to inject 429s, 500s, delays and malformed answers), then a responder function
(default: one fixed JSON answer). It counts requests and the peak number in flight.

``python -m parrot.translators.llm.scripted_server --latency 0.1`` serves until killed and prints
``port N`` once listening.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_ANSWER = json.dumps({"Answer": "SELECT 1", "Reasoning": "scripted", "Confidence": 0.5})


@dataclass(frozen=True)
class Reply:
    """One scripted reply: an HTTP status, the assistant's text, an extra delay."""

    content: str = DEFAULT_ANSWER
    status: int = 200
    delay: float = 0.0
    usage: bool = True  # report token usage (False: the client must count tokens itself)
    body: bytes | None = None  # a raw body instead of a chat completion (malformed responses)


Responder = Callable[[dict[str, Any]], Reply]


class ScriptedServer:
    """A threaded HTTP server; use as a context manager or call :meth:`close`."""

    def __init__(
        self,
        responder: Responder | None = None,
        latency: float = 0.0,
        replies: list[Reply] | None = None,
    ):
        self.responder: Responder = responder or (lambda request: Reply())
        self.latency = latency
        self.queue: deque[Reply] = deque(replies or [])
        self.requests: list[dict[str, Any]] = []  # bodies, in arrival order
        self.headers: list[dict[str, str]] = []  # lower-case names
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._httpd = _HTTPServer(("127.0.0.1", 0), _handler(self))
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def count(self) -> int:
        return len(self.requests)

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self.queue.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self.headers.clear()
            self.max_in_flight = 0

    def _begin(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if self.queue:
                return self.queue.popleft()
        return self.responder(body)

    def _end(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default 5 drops bursts of connections (1 s SYN retries)


def completion_body(reply: Reply, request: dict[str, Any]) -> bytes:
    """The JSON body of a chat completion carrying ``reply.content``."""
    prompt = sum(len(str(m.get("content", ""))) for m in request.get("messages", []))
    body: dict[str, Any] = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": reply.content},
            }
        ],
    }
    if reply.usage:
        body["usage"] = {
            "prompt_tokens": max(1, prompt // 4),
            "completion_tokens": max(1, len(reply.content) // 4),
            "total_tokens": max(1, prompt // 4) + max(1, len(reply.content) // 4),
        }
    return json.dumps(body).encode()


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real providers
        disable_nagle_algorithm = True  # no 40 ms delayed-ACK stalls between header and body

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                request = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                request = {}
            reply = server._begin(request, {k.lower(): v for k, v in self.headers.items()})
            try:
                time.sleep(server.latency + reply.delay)
                if reply.body is not None:
                    payload = reply.body
                elif reply.status != 200:
                    payload = json.dumps(
                        {
                            "error": {
                                "message": reply.content,
                                "type": "scripted",
                                "code": reply.status,
                            }
                        }
                    ).encode()
                else:
                    payload = completion_body(reply, request)
                self._send(reply.status, payload)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                pass
            finally:
                server._end()

        def do_GET(self) -> None:
            self._send(
                200,
                json.dumps(
                    {"object": "list", "data": [{"id": "scripted", "object": "model"}]}
                ).encode(),
            )

        def _send(self, status: int, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per reply")
    args = parser.parse_args(argv)
    server = ScriptedServer(latency=args.latency)
    print(f"port {server.port}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
