"""A real HTTP server on loopback that speaks the two model protocols dreamd uses.

``POST /v1/chat/completions`` answers as an OpenAI-compatible server does, and
``POST /v1/messages`` as the Anthropic Messages API does; ``GET /v1/models``
lists ``models`` and ``GET /props`` tells ``context`` as llama.cpp's server
does. It runs in a thread (``ThreadingHTTPServer`` on ``127.0.0.1:0``) so a
test, or a ``dreamd collect`` subprocess, reaches it over a real socket.

What it answers: the next action of ``script`` while there is one, else
``respond(request)``. Actions: ``Answer`` (a completion, possibly cut at the
length limit), ``Status`` (an HTTP error such as 429), ``Stall`` (no answer for
a while: the client's timeout), ``Hangup`` (headers promising a body that never
comes). Every request is recorded in ``received``.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass(frozen=True)
class Answer:
    """A completion whose text is ``content``; ``cut`` marks it stopped at the length limit."""

    content: str
    usage: tuple[int, int] = (100, 20)
    cut: bool = False


@dataclass(frozen=True)
class Status:
    """An HTTP error answer."""

    code: int
    message: str = "refused by the fake server"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Stall:
    """No answer for ``seconds`` (longer than the client waits)."""

    seconds: float


@dataclass(frozen=True)
class Hangup:
    """Status and headers announcing a body, then the connection closes without it."""


Action = Answer | Status | Stall | Hangup


@dataclass(frozen=True)
class Received:
    """One request as the server got it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def protocol(self) -> str:
        return "anthropic" if self.path.endswith("/messages") else "openai"

    @property
    def schema(self) -> dict[str, Any]:
        """The JSON schema the client asked the answer to follow."""
        if self.protocol == "anthropic":
            found: dict[str, Any] = self.body["output_config"]["format"]["schema"]
            return found
        found = self.body["response_format"]["json_schema"]["schema"]
        return found  # noqa: RET504 - one name for both protocols keeps the type

    @property
    def stage(self) -> str:
        """The pipeline stage, told by the answer's top-level key."""
        key = str(next(iter(self.schema["properties"])))
        return {
            "topics": "topics_scan",
            "matches": "topics_match",
            "records": "topics_update",
        }.get(key, key)

    @property
    def system(self) -> str:
        if self.protocol == "anthropic":
            return str(self.body["system"])
        return str(self.body["messages"][0]["content"])

    @property
    def user(self) -> str:
        return str(self.body["messages"][-1]["content"])

    @property
    def text(self) -> str:
        """Everything the client sent as prompt text."""
        return f"{self.system}\n{self.user}"


_MESSAGE = re.compile(r"^\[(?P<id>[^\]\s]+)\] (?P<role>user|assistant)[^\n]*:\n", re.M)


def messages_in(prompt: str) -> list[tuple[str, str, str]]:
    """(qualified id, role, text) of each message block of a prompt, in order."""
    found = list(_MESSAGE.finditer(prompt))
    blocks = []
    for index, match in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(prompt)
        text = prompt[match.end() : end].split("\n\n## ", 1)[0].strip()
        blocks.append((match["id"], match["role"], text))
    return blocks


def empty_answer(request: Received) -> Answer:
    """The most common right answer: nothing found."""
    key = next(iter(request.schema["properties"]))
    return Answer(json.dumps({key: []}))


class FakeLLM:
    """The server: ``with FakeLLM() as server: ...``; ``server.url`` is its base URL."""

    def __init__(self, respond: Callable[[Received], Action] = empty_answer) -> None:
        self.respond = respond
        self.script: list[Action] = []
        self.received: list[Received] = []
        self.models: list[str] = ["fake-model"]  # what GET /v1/models lists
        self.context = 0  # what GET /props says (llama.cpp); 0: no /props
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def stages(self) -> list[str]:
        """The stage of every request received, in order."""
        return [request.stage for request in self.received]

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()

    def _next(self, request: Received) -> Action:
        with self._lock:
            self.received.append(request)
            return self.script.pop(0) if self.script else self.respond(request)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the tests read ``received``, not a log."""

            def do_GET(self) -> None:
                """``/v1/models`` lists ``server.models``; ``/props`` says llama.cpp's context."""
                if self.path.rstrip("/") == "/v1/models":
                    data = [{"id": model, "object": "model"} for model in server.models]
                    self._send(200, {"object": "list", "data": data}, {})
                elif self.path == "/props" and server.context:
                    self._send(200, {"default_generation_settings": {"n_ctx": server.context}}, {})
                else:
                    self._send(404, {"error": {"message": "not found"}}, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                request = Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                action = server._next(request)
                # The client may have given up first (a timeout test).
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._act(request, action)

            def _act(self, request: Received, action: Action) -> None:
                if isinstance(action, Stall):
                    server._release.wait(action.seconds)
                    action = empty_answer(request)
                if isinstance(action, Hangup):
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", "5000")
                    self.end_headers()
                    self.wfile.write(b'{"id": "cut')
                    self.wfile.flush()
                    self.close_connection = True
                    return
                if isinstance(action, Status):
                    self._send(action.code, _error(request, action), action.headers)
                    return
                self._send(200, _completion(request, action), {})

            def _send(self, code: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _completion(request: Received, answer: Answer) -> dict[str, Any]:
    prompt, completion = answer.usage
    if request.protocol == "anthropic":
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": request.body.get("model", "fake"),
            "content": [{"type": "text", "text": answer.content}],
            "stop_reason": "max_tokens" if answer.cut else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": prompt, "output_tokens": completion},
        }
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": request.body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": answer.content},
                "finish_reason": "length" if answer.cut else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def _error(request: Received, status: Status) -> dict[str, Any]:
    if request.protocol == "anthropic":
        return {"type": "error", "error": {"type": "api_error", "message": status.message}}
    return {"error": {"message": status.message, "type": "fake_error", "code": status.code}}
