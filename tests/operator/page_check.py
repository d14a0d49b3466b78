"""The operator page in a real browser (run by tests/operator_page.rs).

Usage: page_check.py CHECKERSBOT SESSION.in SCREENSHOT.png

Starts `serve --http 127.0.0.1:0`, feeds it the recorded session up to its first `status` request
(a misread board: a man missing on G3), opens the page in headless Chromium and checks from the
DOM that both boards show the pieces of their rows on the right squares and that G3 is marked on
both; then sends the session's next board and checks that the page shows it without a reload
(polling the DOM), and a board after the bot's move with a man missing, marked on both boards.
Writes a screenshot of that last page. Exits 0 when every check passed, 3 when Chromium or
chromedriver is missing, 1 otherwise."""

from __future__ import annotations

import sys
import time
from typing import Any

from browser import Browser, Daemon, find_browser, get, missing

# Pieces, highlights, state and texts of the page, as the DOM has them.
READ_PAGE = """
function board(id) {
  var fig = document.getElementById(id);
  if (!fig) { return null; }
  var pieces = {};
  fig.querySelectorAll('g.piece').forEach(function (g) {
    pieces[g.getAttribute('data-square')] = g.getAttribute('data-piece');
  });
  var marked = [];
  fig.querySelectorAll('rect.highlight').forEach(function (r) {
    marked.push(r.getAttribute('data-square'));
  });
  return {rows: fig.getAttribute('data-rows'), pieces: pieces, marked: marked.sort()};
}
var state = document.getElementById('state');
var reply = document.getElementById('last-reply');
var diag = document.getElementById('diagnosis');
return {
  marker: window.__checkersbotMarker || null,
  conn: document.getElementById('conn').textContent,
  version: document.getElementById('live').getAttribute('data-version'),
  state: state ? state.getAttribute('data-state') : null,
  reply: reply ? reply.textContent : null,
  diagnosis: diag ? diag.textContent : null,
  expected: board('board-expected'),
  seen: board('board-seen'),
  search: board('board-search'),
  record: document.getElementById('record') ? document.getElementById('record').getAttribute('href') : null
};
"""


def pieces_of(rows: str) -> dict[str, str]:
    """The pieces of a board line by square name (row letter from the top, column from 0)."""
    out = {}
    for r, row in enumerate(rows.split("/")):
        for c, ch in enumerate(row):
            if ch != "_":
                out[f"{chr(ord('A') + r)}{c}"] = ch
    return out


def check(what: str, ok: bool, detail: Any = "") -> None:
    if not ok:
        print(f"FAILED: {what}: {detail}")
        sys.exit(1)
    print(f"ok: {what}")


def main() -> None:
    if len(sys.argv) != 4:
        print(__doc__)
        sys.exit(2)
    binary, session, shot = sys.argv[1:]
    found = find_browser()
    if found is None:
        missing("chromium or chromedriver not found (apt-get install chromium chromium-driver)")
    requests = [
        l.strip()
        for l in open(session, encoding="utf-8")
        if l.strip() and not l.lstrip().startswith("#")
    ]
    cut = requests.index("status")
    daemon = Daemon(binary, ["--movetime", "200"])
    browser = None
    try:
        for line in requests[:cut]:
            print(f"> {line}\n< {daemon.ask(line)}")
        status = daemon.ask("status")
        misread = requests[cut - 1].split()[1]
        check("the daemon saw the misread board", f" seen {misread} " in status, status)
        code, _ = get(daemon.url + "status.json")
        check("/status.json answers", code == 200, code)

        browser = Browser(*found)
        browser.open(daemon.url)
        page: dict[str, Any] = {}
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            page = browser.run(READ_PAGE)
            if page["conn"] == "live":
                break
            time.sleep(0.1)
        check("the page is connected to /events", page["conn"] == "live", page["conn"])
        start = requests[cut - 3].split()[1]
        check("the expected board is the start", page["expected"]["rows"] == start, page["expected"])
        check(
            "the expected board's pieces stand on their squares",
            page["expected"]["pieces"] == pieces_of(start),
            page["expected"]["pieces"],
        )
        check(
            "the seen board's pieces are the camera's",
            page["seen"]["pieces"] == pieces_of(misread),
            page["seen"]["pieces"],
        )
        check("G3 holds the person's man on the expected board", page["expected"]["pieces"].get("G3") == "p")
        check("G3 is empty on the seen board", "G3" not in page["seen"]["pieces"])
        check("G3 is marked on both boards", page["expected"]["marked"] == ["G3"] and page["seen"]["marked"] == ["G3"], page)
        check("the diagnosis is shown", "misread" in (page["diagnosis"] or ""), page["diagnosis"])
        check("the record is linked", page["record"] == "/game.pdn", page["record"])

        # A marker the page keeps only as long as it is not reloaded.
        browser.run("window.__checkersbotMarker = 'kept'; return null;")
        board = requests[cut + 1]
        rows = board.split()[1]
        daemon.send(board)
        answer = daemon.reply()
        check("the board is answered with a move", answer.startswith("move "), answer)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            page = browser.run(READ_PAGE)
            if (
                page["seen"]
                and page["seen"]["pieces"] == pieces_of(rows)
                and page["state"] == "arm"
                and answer in (page["reply"] or "")
            ):
                break
            time.sleep(0.1)
        check("the new board is shown", page["seen"]["pieces"] == pieces_of(rows), page["seen"])
        check("the bot's move is shown", page["state"] == "arm" and answer in (page["reply"] or ""), page)
        check("the search's board is drawn", page["search"] is not None and page["search"]["rows"] == rows, page["search"])
        check("without a reload", page["marker"] == "kept", page["marker"])
        # The arm makes the move, but the camera misses a man: the picture for the guide.
        status = daemon.ask("status")
        expect = status.split(" expect ")[1].split()[0]
        lost = expect.split("/")
        lost[7] = "_" + lost[7][1:]
        lost_rows = "/".join(lost)
        answer = daemon.ask(f"board {lost_rows} p")
        check("a man missing on H0 is a misread", "misread" in answer and "H0" in answer, answer)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            page = browser.run(READ_PAGE)
            if page["seen"] and page["seen"]["pieces"] == pieces_of(lost_rows):
                break
            time.sleep(0.1)
        check("H0 is marked on both boards", page["expected"]["marked"] == ["H0"] and page["seen"]["marked"] == ["H0"], page)
        check("the new diagnosis is shown", "H0" in (page["diagnosis"] or ""), page["diagnosis"])
        check("still without a reload", page["marker"] == "kept", page["marker"])
        png = browser.screenshot()
        check("the screenshot is a PNG", png.startswith(b"\x89PNG\r\n\x1a\n"), png[:8])
        with open(shot, "wb") as f:
            f.write(png)
        print(f"screenshot: {shot} ({len(png)} bytes)")
        print("operator page checked")
    finally:
        if browser is not None:
            browser.close()
        daemon.close()


if __name__ == "__main__":
    main()
