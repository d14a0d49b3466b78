"""Move lateness with and without a browser on the operator page (a measurement, run by hand; the
figures are in docs/experiments/daemon-reliability.md).

Usage: lateness.py CHECKERSBOT [--moves 150] [--movetime 100] [--browser] [--seed 1] [--cache DIR
[--egdb-build off]]

Starts `serve --movetime MS --book off --http 127.0.0.1:0` and plays games from the 8x8 start,
the bot moving first: after each bot move, `status` gives the board after it (`expect`), which is
sent as the arm's move done; the person's move is a depth-4 search's (`checkersbot search`), one
time in four a random legal one (`checkersbot moves`), and the board after it is sent. Lateness is the time from writing that board to reading `move`, minus
the move time. With --browser, headless Chromium holds the page open (its event stream updates at
every search iteration) for the whole run. With --cache DIR the daemon's cache is DIR and it runs
without `--egdb off`: it uses the endgame database there and builds the rest in the background
(`--egdb-build auto`; `--egdb-build off` uses it without building), so that the lateness is
measured while it builds (the figures are in
docs/experiments/endgame-databases.md). Prints median, p99 and max; moves answered in less than
half the move time (a single legal move, a proven result, a database position) are counted
apart."""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time

from browser import Browser, Daemon, find_browser, missing

START = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_"


def square(name: str) -> tuple[int, int]:
    return ord(name[0]) - ord("A"), int(name[1:])


def apply(rows: str, described: str) -> str:
    """The board after a move written as `moves` writes it (`E5 C3 A1 captures D4 B2 crown`)."""
    grid = [list(r) for r in rows.split("/")]
    words = described.split()
    path, captured, part = [], [], "path"
    for w in words:
        if w in ("captures", "crown"):
            part = w
        elif part == "path":
            path.append(square(w))
        elif part == "captures":
            captured.append(square(w))
    (r0, c0), (r1, c1) = path[0], path[-1]
    piece = grid[r0][c0]
    grid[r0][c0] = "_"
    for r, c in captured:
        grid[r][c] = "_"
    grid[r1][c1] = piece.upper() if "crown" in words else piece
    return "/".join("".join(r) for r in grid)


def person(binary: str, rows: str, rng: random.Random) -> str:
    """The person's move: a depth-4 search's, or one time in four a random legal move (so that
    games differ)."""
    run = lambda *args: subprocess.run(
        [binary, *args, "--board", rows, "--side", "p"], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    if rng.random() < 0.25:
        return rng.choice([m for m in run("moves") if m.strip()])
    best = [l for l in run("search", "--depth", "4", "--egdb", "off") if l.startswith("move ")]
    return best[0][len("move "):]


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, int(-(-p * len(ordered) // 100)))
    return ordered[rank - 1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--moves", type=int, default=150)
    ap.add_argument("--movetime", type=int, default=100)
    ap.add_argument("--browser", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache", help="the daemon's XDG_CACHE_HOME: use and build the database there")
    ap.add_argument("--egdb-build", default="auto", help="with --cache: serve --egdb-build (auto, off, PIECES)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    found = find_browser() if a.browser else None
    if a.browser and found is None:
        missing("chromium or chromedriver not found")
    egdb = ["--egdb-build", a.egdb_build] if a.cache else ["--egdb", "off"]
    daemon = Daemon(a.binary, ["--movetime", str(a.movetime), "--book", "off", *egdb], cache=a.cache)
    browser = None
    late: list[float] = []
    early = 0
    games = 0
    try:
        if found is not None:
            browser = Browser(*found)
            browser.open(daemon.url)
            deadline = time.monotonic() + 20
            while browser.run("return document.getElementById('conn').textContent;") != "live":
                if time.monotonic() > deadline:
                    raise RuntimeError("the page did not connect")
                time.sleep(0.1)

        def timed(line: str) -> str:
            nonlocal early
            t0 = time.perf_counter()
            daemon.send(line)
            reply = daemon.reply()
            ms = (time.perf_counter() - t0) * 1000
            if reply.startswith("move "):
                if ms < a.movetime / 2:
                    early += 1
                else:
                    late.append(ms - a.movetime)
            return reply

        while len(late) < a.moves:
            games += 1
            assert daemon.ask("newgame") == "ok"
            reply = timed(f"board {START} b")
            while reply.startswith("move ") and len(late) < a.moves:
                status = daemon.ask("status")
                expect = status.split(" expect ")[1].split()[0]
                if not daemon.ask(f"board {expect} p").startswith("unchanged"):
                    break
                reply = timed(f"board {apply(expect, person(a.binary, expect, rng))} b")
        if a.cache:
            print(f"status at the end: {daemon.ask('status')}")
        if browser is not None:
            shown = browser.run("return document.getElementById('live').getAttribute('data-version');")
            print(f"page: last version shown {shown}")
    finally:
        if browser is not None:
            browser.close()
        daemon.close()
    print(
        f"{'with' if a.browser else 'without'} a browser: {len(late)} moves in {games} games "
        f"(+{early} answered early), movetime {a.movetime} ms: lateness median "
        f"{statistics.median(late):+.1f} ms, p99 {percentile(late, 99):+.1f} ms, "
        f"max {max(late):+.1f} ms"
    )


if __name__ == "__main__":
    main()
