"""A tiny OpenAI-compatible chat completions server on loopback (stdlib only).

It stands in for a remote paid API. Behaviour is scripted by a function
`respond(body, call_index) -> Reply`; every request body is kept in `bodies`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    status: int = 200
    body: dict = field(default_factory=dict)
    delay: float = 0.0


def completion(texts: list[str], finish_reason: str = "stop", prompt_tokens: int = 7,
               completion_tokens: int = 3, model: str = "fake-model") -> Reply:
    return Reply(200, {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": model,
        "choices": [
            {"index": i, "message": {"role": "assistant", "content": text},
             "finish_reason": finish_reason}
            for i, text in enumerate(texts)
        ],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


def error(status: int, message: str) -> Reply:
    return Reply(status, {"error": {"message": message, "type": "error", "code": None}})


class FakeOpenAI:
    """Serves POST /v1/chat/completions with `respond` and GET /v1/models with
    `models`; use as a context manager."""

    def __init__(self, respond: Callable[[dict, int], Reply], models: tuple[str, ...] = ("fake-model",)):
        self.respond = respond
        self.models = models
        self.bodies: list[dict] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with fake._lock:
                    index = len(fake.bodies)
                    fake.bodies.append(body)
                reply = fake.respond(body, index)
                if reply.delay:
                    time.sleep(reply.delay)
                payload = json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_GET(self):  # noqa: N802 - http.server's naming
                listed = {"object": "list", "data": [
                    {"id": name, "object": "model", "created": 0, "owned_by": "fake"}
                    for name in fake.models]}
                payload = json.dumps(listed).encode()
                self.send_response(200 if self.path.rstrip("/").endswith("/models") else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> "FakeOpenAI":
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._server.shutdown()
        self._server.server_close()
