"""A mixed load on the daemon over TCP (a measurement, run by hand; the figures are in
docs/experiments/daemon-reliability.md).

Usage: mixed_load.py CHECKERSBOT [--seconds 600] [--movetime 100] [--seed 1]

Starts `serve --listen 127.0.0.1:0 --http 127.0.0.1:0 --movetime MS --book off --egdb off` and,
for the given time, at once:
- a vision client over TCP plays games from the 8x8 start as lateness.py does (the bot moving
  first; the person's move a depth-4 search's, one time in four a random legal one); lateness is
  the time from writing a board to reading the `move`, minus the move time;
- a page poller gets /status.json every 200 ms;
- connection churn every 300 ms: a port probe (connect, close), a health check (connect, a
  comment line, close), or a connection whose only line does not parse.
Prints the lateness (median, p99, max), the daemon's memory before and after, the poller's
answers by status, the churn count, and whether the vision client was ever cut off (it must
not be: a connection takes over only with its first valid request)."""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import subprocess
import threading
import time
import urllib.error
import urllib.request

from lateness import START, apply, percentile, person


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Serve:
    """`serve --listen` and `--http` on ephemeral loopback ports; both addresses from its log."""

    def __init__(self, binary: str, args: list[str]) -> None:
        env = dict(os.environ, XDG_CACHE_HOME="/dev/null/checkersbot-tests-cache")
        env.pop("RUST_LOG", None)
        self.proc = subprocess.Popen(
            [binary, "serve", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
             "--log-level", "info", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, env=env)
        self.tcp = ""
        self.url = ""
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            if "listening on " in line:
                self.tcp = line.split("listening on ")[1].split()[0].rstrip(":")
            if "operator page at " in line:
                self.url = line.split("operator page at ")[1].strip()
            if self.tcp and self.url:
                break
        threading.Thread(target=lambda: [None for _ in self.proc.stderr or []], daemon=True).start()

    def address(self) -> tuple[str, int]:
        host, port = self.tcp.rsplit(":", 1)
        return host, int(port)


class Client:
    def __init__(self, address: tuple[str, int]) -> None:
        self.sock = socket.create_connection(address)
        self.file = self.sock.makefile("r", encoding="ascii", newline="\n")
        self.cut_off: list[str] = []

    def ask(self, line: str) -> str:
        self.sock.sendall((line + "\n").encode())
        while True:
            reply = self.file.readline().rstrip("\n")
            if reply.startswith("error taken-over"):
                self.cut_off.append(reply)
            if not reply.startswith("info "):
                return reply


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--movetime", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    serve = Serve(a.binary, ["--movetime", str(a.movetime), "--book", "off", "--egdb", "off",
                             "--info", "off"])
    pid = serve.proc.pid
    time.sleep(0.5)
    before = rss_kib(pid)
    end = time.monotonic() + a.seconds
    polls: dict[str, int] = {}
    churn = [0]

    def poller() -> None:
        while time.monotonic() < end:
            try:
                with urllib.request.urlopen(serve.url + "status.json", timeout=10) as r:
                    r.read()
                    key = str(r.status)
            except urllib.error.HTTPError as e:
                key = str(e.code)
            except Exception as e:  # a refused or reset connection
                key = type(e).__name__
            polls[key] = polls.get(key, 0) + 1
            time.sleep(0.2)

    def churner() -> None:
        kinds = [b"", b"# health check\n", b"hullo there\n"]
        while time.monotonic() < end:
            try:
                s = socket.create_connection(serve.address(), timeout=5)
                what = kinds[churn[0] % len(kinds)]
                if what:
                    s.sendall(what)
                    if what.startswith(b"hullo"):
                        s.recv(200)
                s.close()
                churn[0] += 1
            except OSError:
                pass
            time.sleep(0.3)

    threads = [threading.Thread(target=poller, daemon=True), threading.Thread(target=churner, daemon=True)]
    for t in threads:
        t.start()
    client = Client(serve.address())
    late: list[float] = []
    early = 0
    games = 0

    def timed(line: str) -> str:
        nonlocal early
        t0 = time.perf_counter()
        reply = client.ask(line)
        ms = (time.perf_counter() - t0) * 1000
        if reply.startswith("move "):
            if ms < a.movetime / 2:
                early += 1
            else:
                late.append(ms - a.movetime)
        return reply

    while time.monotonic() < end:
        games += 1
        assert client.ask("newgame") == "ok"
        reply = timed(f"board {START} b")
        while reply.startswith("move ") and time.monotonic() < end:
            expect = client.ask("status").split(" expect ")[1].split()[0]
            if not client.ask(f"board {expect} p").startswith("unchanged"):
                break
            reply = timed(f"board {apply(expect, person(a.binary, expect, rng))} b")
    for t in threads:
        t.join()
    after = rss_kib(pid)
    client.ask("quit")
    serve.proc.wait(timeout=10)
    print(
        f"{a.seconds:.0f} s, movetime {a.movetime} ms: {len(late)} moves in {games} games "
        f"(+{early} answered early): lateness median {statistics.median(late):+.1f} ms, "
        f"p99 {percentile(late, 99):+.1f} ms, max {max(late):+.1f} ms; memory {before} KiB "
        f"before, {after} KiB after; /status.json {dict(sorted(polls.items()))}; "
        f"{churn[0]} churn connections; vision client cut off {len(client.cut_off)} times"
    )


if __name__ == "__main__":
    main()
