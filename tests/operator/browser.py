"""Headless Chromium through chromedriver's W3C WebDriver HTTP API, and `checkersbot serve --http`
over pipes: the helpers of the operator page's browser test (page_check.py) and of the lateness
measurement (lateness.py). Standard library only (urllib, json, subprocess)."""

from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from typing import Any, NoReturn, Optional

# Exit status of a script when the browser is missing (the Rust test skips outside CI on it).
MISSING = 3

# Flags without which Chromium misbehaves on a closed network (it tries to reach Google's
# services and stalls), plus a fixed window for the screenshot.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1240",
]


def find_browser() -> Optional[tuple[str, str]]:
    """The Chromium binary and chromedriver, or None when either is missing."""
    chromium = next(
        (p for p in (shutil.which(n) for n in ("chromium", "chromium-browser")) if p), None
    )
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        return None
    return chromium, driver


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Browser:
    """A chromedriver process and one headless Chromium session."""

    def __init__(self, chromium: str, driver: str) -> None:
        self.profile = tempfile.mkdtemp(prefix="checkersbot-chromium-")
        self.port = free_port()
        self.driver = subprocess.Popen(
            [driver, f"--port={self.port}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if self._call("GET", "/status").get("ready"):
                    break
            except (OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                self.close()
                raise RuntimeError("chromedriver did not start within 30 s")
            time.sleep(0.1)
        caps = {
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": {
                        "binary": chromium,
                        "args": CHROMIUM_FLAGS + [f"--user-data-dir={self.profile}"],
                    },
                }
            }
        }
        self.session = ""
        try:
            self.session = self._call("POST", "/session", caps)["sessionId"]
        except Exception:
            self.close()
            raise

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.base + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read().decode())["value"]
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"webdriver {method} {path}: {e.read().decode()[:500]}") from e

    def _session(self, method: str, path: str, body: Any = None) -> Any:
        return self._call(method, f"/session/{self.session}{path}", body)

    def open(self, url: str) -> None:
        self._session("POST", "/url", {"url": url})

    def run(self, script: str, *args: Any) -> Any:
        """Runs a function body in the page and returns what it returns."""
        return self._session("POST", "/execute/sync", {"script": script, "args": list(args)})

    def screenshot(self) -> bytes:
        return base64.b64decode(self._session("GET", "/screenshot"))

    def screenshot_of(self, css: str) -> bytes:
        """A screenshot of the first element `css` selects (the page's body: no empty window
        below it)."""
        found = self._session("POST", "/element", {"using": "css selector", "value": css})
        element = next(iter(found.values()))
        return base64.b64decode(self._session("GET", f"/element/{element}/screenshot"))

    def close(self) -> None:
        if self.session:
            try:
                self._session("DELETE", "")
            except Exception:
                pass
            self.session = ""
        self.driver.terminate()
        try:
            self.driver.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.driver.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


class Daemon:
    """`checkersbot serve --http 127.0.0.1:0` over pipes; its page's URL from its log."""

    def __init__(self, binary: str, args: list[str], cache: Optional[str] = None) -> None:
        # No cache by default: nothing is loaded from one, and the background database build
        # is off (into no cache it could only fail, and the page would say so); `cache` for a
        # measurement of the background database build.
        env = dict(os.environ, XDG_CACHE_HOME=cache or "/dev/null/checkersbot-tests-cache")
        env.pop("RUST_LOG", None)
        build = [] if cache else ["--egdb-build", "off"]
        self.proc = subprocess.Popen(
            [binary, "serve", "--http", "127.0.0.1:0", "--log-level", "info", *build, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            env=env,
        )
        self.lines: "queue.Queue[str]" = queue.Queue()
        self.log: "queue.Queue[str]" = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.log), daemon=True).start()
        self.url = ""
        self.last_info: Optional[str] = None
        deadline = time.monotonic() + 30
        while not self.url:
            line = self.log.get(timeout=max(0.1, deadline - time.monotonic()))
            at = line.find("operator page at ")
            if at >= 0:
                self.url = line[at + len("operator page at "):].strip()

    @staticmethod
    def _pump(stream: Any, into: "queue.Queue[str]") -> None:
        for line in stream:
            into.put(line.rstrip("\n"))

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def reply(self, timeout: float = 30) -> str:
        """The next final reply (info lines skipped; the last `info depth` line is kept in
        `last_info`)."""
        while True:
            line = self.lines.get(timeout=timeout)
            if line.startswith("info depth "):
                self.last_info = line
            if not line.startswith("info "):
                return line

    def ask(self, line: str) -> str:
        self.send(line)
        return self.reply()

    def close(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def get(url: str) -> tuple[int, str]:
    """Status and body of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def missing(what: str) -> NoReturn:
    print(f"skipped: {what}", file=sys.stderr)
    sys.exit(MISSING)
