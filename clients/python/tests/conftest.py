"""A real Gateway on real PostgreSQL for the tests, started once per session
by test/clients/python-gateway.ts (the same fixtures as the TypeScript tests),
and small local HTTP servers that misbehave the ways a network can."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

REPO = Path(__file__).resolve().parents[3]


class Gateway:
    def __init__(self, info: dict[str, str]) -> None:
        self.info = info
        self.url = info["gateway_url"]
        self.busy_url = info["busy_gateway_url"]
        self.key = info["key"]
        self.tool = info["tool"]
        # For the MCP helper: the world's MCP tool behind the Gateway, an organization with 53 tools,
        # an SDK-built MCP server spoken to directly, and one whose tools/list never ends.
        self.mcp_tool = info["mcp_tool"]
        self.paged_key = info["paged_key"]
        self.direct_url = info["direct_url"]
        self.endless_url = info["endless_url"]

    def control(self, name: str, **body: Any) -> Any:
        """What a person or the passing of time does (approve, reject, expire, cancel), or what was recorded."""
        req = urllib.request.Request(f"{self.info['control_url']}/{name}", data=json.dumps(body).encode(), method="POST")
        with urllib.request.urlopen(req, timeout=30) as res:
            return json.loads(res.read())


@pytest.fixture(scope="session")
def gateway() -> Iterator[Gateway]:
    proc = subprocess.Popen(
        ["node", "--conditions=countersign-source", "--import", "tsx", "test/clients/python-gateway.ts"],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "NODE_NO_WARNINGS": "1"},
    )
    assert proc.stdout is not None and proc.stdin is not None
    line = proc.stdout.readline()
    if not line:
        proc.wait(timeout=30)
        raise RuntimeError(f"the test Gateway did not start (exit {proc.returncode})")
    try:
        yield Gateway(json.loads(line))
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


class FakeServer:
    """Counts requests; behaves as told: redirect, cut, silent, or answer."""

    def __init__(self, behaviour: str, status: int = 200, body: str = "{}", location: str = "", headers: dict[str, str] | None = None) -> None:
        self.requests = 0
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                outer.requests += 1
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if behaviour == "cut":
                    self.connection.shutdown(2)
                    self.close_connection = True
                    return
                if behaviour == "silent":
                    outer.release.wait(10)
                    self.close_connection = True
                    return
                self.send_response(status)
                if behaviour == "redirect":
                    self.send_header("Location", location)
                self.send_header("Content-Type", "application/json")
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                data = body.encode()
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_server() -> Iterator[Any]:
    servers: list[FakeServer] = []

    def start(behaviour: str, **kwargs: Any) -> FakeServer:
        s = FakeServer(behaviour, **kwargs)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()
