"""The operator page in a real browser, in every state of its state machine (run by
tests/operator_page.rs).

Usage: page_check.py CHECKERSBOT IMAGES_DIR OUT_DIR [--bless]

Starts `serve --http 127.0.0.1:0` and walks a game through every page state (src/operator/state.rs):
no game, a new game, the person to move, a move against the rules, a misread in the person's turn,
a move under way, the bot thinking, the arm to make the bot's move, the arm not finished, a misread
once the arm has made the move (the camera missed the man on H0), the bot to move, the game over;
and, with a second daemon on `--listen`, no client yet. In each, headless Chromium reads the page
and checks it from the DOM: the page's state, its headline, explanation and action are those of
/status.json (one decision makes both); the boards' pieces stand on the squares of their rows and
the differing squares are marked on both; the reply shown is the reply to the board shown (none
while the bot thinks); the search's figures are the client's last `info` line; the legend; the
camera board's age, counting up in the browser with no new event; the link. All without a
reload of the page.

Each state's screenshot is in IMAGES_DIR (docs/images/), named in STATES, with the state's summary
(what the page says and shows, without times) in an iTXt chunk of the PNG (key
`checkersbot-page`): the test compares the served page's summary with the committed picture's, so
the pictures in the guide are what the page serves. --bless writes the pictures instead (after the
same checks). New screenshots always go to OUT_DIR. Exits 0 when every check passed, 3 when
Chromium or chromedriver is missing, 1 otherwise."""

from __future__ import annotations

import json
import os
import re
import struct
import sys
import time
import zlib
from typing import Any, Optional

from browser import Browser, Daemon, find_browser, get, missing

START = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_"
# The person's man moved two squares (F2 to D2): no rule allows it.
TWO_SQUARES = "_b_b_b_b/b_b_b_b_/_b_b_b_b/__p_____/________/p___p_p_/_p_p_p_p/p_p_p_p_"
# The man on G3 missing: a misread.
NO_G3 = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p___p_p/p_p_p_p_"
# The man on F2 lifted: a move under way.
F2_LIFTED = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p___p_p_/_p_p_p_p/p_p_p_p_"
# The person's F2 E3.
F2_E3 = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/___p____/p___p_p_/_p_p_p_p/p_p_p_p_"
# The person takes the bot's last piece (D2 B4 captures C3).
LAST_PIECE = "________/________/___b____/__p_____/________/________/________/p_______"
LAST_PIECE_TAKEN = "________/____p___/________/________/________/________/________/p_______"

# Each screenshot: its file in IMAGES_DIR and the page state it shows.
STATES = {
    "no-game": "operator-no-game.png",
    "set-up": "operator-set-up.png",
    "person-to-move": "operator-person-to-move.png",
    "not-allowed": "operator-not-allowed.png",
    "check-camera": "operator-check-camera.png",
    "move-under-way": "operator-move-under-way.png",
    "thinking": "operator-thinking.png",
    "arm-to-move": "operator-arm-to-move.png",
    "arm-incomplete": "operator-arm-incomplete.png",
    # The guide's main picture: the misread after the arm's move (issue 53).
    "check-camera-after-arm": "operator-page.png",
    "bot-to-move": "operator-bot-to-move.png",
    "game-over": "operator-game-over.png",
    "no-client": "operator-no-client.png",
}

PNG_KEY = "checkersbot-page"

# What the page shows, read from the DOM.
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
  var arrows = [];
  fig.querySelectorAll('polyline.arrow').forEach(function (a) {
    arrows.push(a.getAttribute('data-path'));
  });
  return {rows: fig.getAttribute('data-rows'), pieces: pieces, marked: marked.sort(), arrows: arrows};
}
function text(id) { var e = document.getElementById(id); return e ? e.textContent : null; }
function attr(id, name) { var e = document.getElementById(id); return e ? e.getAttribute(name) : null; }
var age = document.querySelector('#board-age .age');
return {
  marker: window.__checkersbotMarker || null,
  conn: text('conn'),
  version: attr('live', 'data-version'),
  state: attr('state', 'data-state'),
  page_state: attr('state', 'data-page-state'),
  headline: text('state'),
  explanation: text('explanation'),
  actor: attr('action', 'data-actor'),
  action: text('action'),
  reply: attr('last-reply', 'data-reply'),
  board_age: age ? {text: age.textContent, ms: Number(age.getAttribute('data-age-ms'))} : null,
  link: attr('link', 'data-link'),
  link_text: text('link'),
  info_line: attr('info-line', 'data-line'),
  search_text: text('search'),
  legend: Array.prototype.map.call(document.querySelectorAll('#legend li[data-piece]'),
    function (l) { return l.getAttribute('data-piece'); }),
  expected: board('board-expected'),
  seen: board('board-seen'),
  search: board('board-search'),
  record: attr('record', 'href')
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


def png_text(png: bytes, key: str) -> Optional[str]:
    """The text of an iTXt chunk of a PNG, if it has one with this key."""
    at = 8
    while at + 8 <= len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind = png[at + 4 : at + 8]
        data = png[at + 8 : at + 8 + length]
        if kind == b"iTXt" and data.startswith(key.encode("latin-1") + b"\0"):
            # keyword \0 compression-flag method language \0 translated \0 text
            rest = data[len(key) + 3 :]
            _, _, rest = rest.partition(b"\0")
            _, _, rest = rest.partition(b"\0")
            return rest.decode("utf-8")
        at += 12 + length
    return None


def with_png_text(png: bytes, key: str, text: str) -> bytes:
    """The PNG with an iTXt chunk (uncompressed) put before its end."""
    data = key.encode("latin-1") + b"\0\0\0\0\0" + text.encode("utf-8")
    chunk = struct.pack(">I", len(data)) + b"iTXt" + data
    chunk += struct.pack(">I", zlib.crc32(b"iTXt" + data) & 0xFFFFFFFF)
    end = png.rindex(b"IEND") - 4
    return png[:end] + chunk + png[end:]


def summary(page: dict[str, Any]) -> str:
    """What the page says and shows in a state, without times, ports or search figures: the
    source the committed screenshot was taken of."""

    def board(b: Optional[dict[str, Any]]) -> Any:
        return None if b is None else {"rows": b["rows"], "marked": b["marked"], "arrows": b["arrows"]}

    out = {
        "page_state": page["page_state"],
        "state": page["state"],
        "headline": page["headline"],
        "explanation": page["explanation"],
        "actor": page["actor"],
        "action": page["action"],
        "reply": page["reply"],
        "link": page["link"],
        "expected": board(page["expected"]),
        "seen": board(page["seen"]),
    }
    text = json.dumps(out, indent=1, sort_keys=True)
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)


class Walk:
    """A daemon, the browser on its page, and the checks of each state."""

    def __init__(self, browser: Browser, images: str, out: str, bless: bool) -> None:
        self.browser = browser
        self.images = images
        self.out = out
        self.bless = bless
        self.shot: set[str] = set()

    def wait_for(self, daemon: Daemon, page_state: str, seen: Optional[str], what: str) -> dict[str, Any]:
        """The page once it shows `page_state` (and the camera's board `seen`, when given), and
        /status.json then."""
        deadline = time.monotonic() + 20
        page: dict[str, Any] = {}
        while time.monotonic() < deadline:
            page = self.browser.run(READ_PAGE)
            if (
                page["conn"] == "live"
                and page["page_state"] == page_state
                and (seen is None or (page["seen"] or {}).get("rows") == seen)
            ):
                break
            time.sleep(0.1)
        check(f"{what}: the page shows {page_state}", page["page_state"] == page_state, page)
        # /status.json from the same snapshot: retried until the versions agree (an event may be
        # on its way).
        for _ in range(100):
            code, text = get(daemon.url + "status.json")
            data = json.loads(text)
            page = self.browser.run(READ_PAGE)
            if str(data["version"]) == page["version"]:
                break
            time.sleep(0.1)
        check(f"{what}: /status.json answers", code == 200, code)
        check(f"{what}: the page and /status.json show one version", str(data["version"]) == page["version"], (data["version"], page["version"]))
        page["json"] = data
        return page

    def common(self, page: dict[str, Any], what: str) -> None:
        data = page["json"]
        check(f"{what}: one state for both", data["page_state"] == page["page_state"], data)
        check(f"{what}: the headline is the state machine's", page["headline"] == data["state_words"], (page["headline"], data["state_words"]))
        check(f"{what}: the explanation is the state machine's", page["explanation"] == data["explanation"], (page["explanation"], data["explanation"]))
        check(f"{what}: so is the action", page["actor"] == data["actor"] and page["action"].endswith(data["action"]), (page["action"], data["action"]))
        check(f"{what}: the legend shows the four pieces", page["legend"] == ["p", "P", "b", "B"], page["legend"])
        check(f"{what}: the link is named", page["link"] in ("stdin", "tcp"), page["link"])
        if page["page_state"] == "thinking":
            check(f"{what}: no earlier board's reply while the bot thinks", page["reply"] is None, page["reply"])
        elif data["last_reply"] is not None:
            check(f"{what}: the reply shown is the last board's", page["reply"] == data["last_reply"], page["reply"])
        for name in ("expected", "seen"):
            b = page[name]
            if b is not None and b["rows"]:
                check(f"{what}: the {name} board's pieces stand on their squares", b["pieces"] == pieces_of(b["rows"]), b)
        if page["seen"] is not None and page["seen"]["rows"]:
            check(f"{what}: the camera's board has an age", page["board_age"] is not None, page["link_text"])
            check(
                f"{what}: the differing squares are marked on both boards",
                page["expected"]["marked"] == page["seen"]["marked"] == sorted(data["differ"]),
                (page["expected"]["marked"], page["seen"]["marked"], data["differ"]),
            )

    def picture(self, page: dict[str, Any], name: str) -> None:
        """The state's screenshot: compared with (or, blessing, written as) the committed one."""
        file = STATES[name]
        source = summary(page)
        png = with_png_text(self.browser.screenshot_of("body"), PNG_KEY, source)
        check(f"{name}: the screenshot is a PNG", png.startswith(b"\x89PNG\r\n\x1a\n"), png[:8])
        with open(os.path.join(self.out, file), "wb") as f:
            f.write(png)
        committed = os.path.join(self.images, file)
        if self.bless:
            with open(committed, "wb") as f:
                f.write(png)
            print(f"blessed: {committed}")
        else:
            old = None
            if os.path.exists(committed):
                with open(committed, "rb") as f:
                    old = png_text(f.read(), PNG_KEY)
            check(
                f"{name}: the committed screenshot {file} is of the page served now "
                "(if the page changed on purpose: CHECKERSBOT_BLESS=1 cargo test --release --test operator_page headless)",
                old == source,
                f"\ncommitted:\n{old}\nserved:\n{source}",
            )
        self.shot.add(name)


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--bless"]
    bless = "--bless" in sys.argv[1:]
    if len(args) != 3:
        print(__doc__)
        sys.exit(2)
    binary, images, out = args
    found = find_browser()
    if found is None:
        missing("chromium or chromedriver not found (apt-get install chromium chromium-driver)")
    os.makedirs(out, exist_ok=True)
    # One thread, no move time and a depth limit: the same move every run (the pictures' text
    # names it).
    # --book off: every bot move is searched (the thinking state), none answered from the book.
    daemon = Daemon(binary, ["--movetime", "0", "--depth", "4", "--threads", "1", "--book", "off"])
    listening: Optional[Daemon] = None
    browser = None
    try:
        browser = Browser(*found)
        walk = Walk(browser, images, out, bless)
        browser.open(daemon.url)

        page = walk.wait_for(daemon, "no-game", None, "at the start")
        walk.common(page, "no game")
        walk.picture(page, "no-game")
        # A marker the page keeps only as long as it is not reloaded.
        browser.run("window.__checkersbotMarker = 'kept'; return null;")

        check("newgame", daemon.ask("newgame") == "ok")
        page = walk.wait_for(daemon, "set-up", None, "after newgame")
        walk.common(page, "set up")
        walk.picture(page, "set-up")

        check("the start is unchanged", daemon.ask(f"board {START} p") == "unchanged")
        page = walk.wait_for(daemon, "person-to-move", START, "the start on the board")
        walk.common(page, "person to move")
        check("the person acts", page["actor"] == "person", page)
        walk.picture(page, "person-to-move")
        # The camera board's age counts up in the browser while no event comes.
        first = browser.run(READ_PAGE)
        time.sleep(2.2)
        later = browser.run(READ_PAGE)
        check(
            "the camera board's age counts up without an event",
            later["version"] == first["version"]
            and later["board_age"]["ms"] == first["board_age"]["ms"]
            and later["board_age"]["text"] != first["board_age"]["text"]
            and later["board_age"]["text"].endswith("s ago"),
            (first["board_age"], later["board_age"]),
        )

        answer = daemon.ask(f"board {TWO_SQUARES} b")
        check("two squares at once is refused", "not-diagonal" in answer, answer)
        page = walk.wait_for(daemon, "not-allowed", TWO_SQUARES, "a man moved two squares")
        walk.common(page, "not allowed")
        check("the person is to put it back", page["actor"] == "person" and "Put it back." in page["action"], page)
        walk.picture(page, "not-allowed")

        answer = daemon.ask(f"board {NO_G3} b")
        check("a man missing on G3 is a misread", "misread" in answer, answer)
        page = walk.wait_for(daemon, "check-camera", NO_G3, "the man on G3 missing")
        walk.common(page, "check the camera")
        check("G3 is marked on both boards", page["expected"]["marked"] == ["G3"] == page["seen"]["marked"], page)
        check("G3 holds the person's man on the expected board only", page["expected"]["pieces"].get("G3") == "p" and "G3" not in page["seen"]["pieces"], page)
        check("the record is linked", page["record"] == "/game.pdn", page["record"])
        walk.picture(page, "check-camera")

        answer = daemon.ask(f"board {F2_LIFTED} p")
        check("a lifted man is a move under way", answer.startswith("wait lifted F2"), answer)
        page = walk.wait_for(daemon, "move-under-way", F2_LIFTED, "the man on F2 lifted")
        walk.common(page, "move under way")
        check("the person is to put it down", page["action"].endswith("Put it down."), page)
        walk.picture(page, "move-under-way")

        # The bot thinks until stopped: the page says so, with no earlier reply under it.
        check("no depth limit: the search runs until stopped", daemon.ask("set depth 0") == "ok")
        daemon.send(f"board {F2_E3} b")
        page = walk.wait_for(daemon, "thinking", F2_E3, "the person's F2 E3")
        walk.common(page, "thinking")
        check("the move read is named", "F2 E3" in page["explanation"], page["explanation"])
        check("the search runs", "searching" in (page["search_text"] or ""), page["search_text"])
        walk.picture(page, "thinking")
        daemon.send("stop")
        answer = daemon.reply()
        check("stopped, the bot answers its move", answer.startswith("move "), answer)
        check("and the stop its ok", daemon.reply() == "ok")

        # The same again to a depth: the bot's move is the same every run.
        check("set depth 4", daemon.ask("set depth 4") == "ok")
        check("newgame", daemon.ask("newgame") == "ok")
        check("the start", daemon.ask(f"board {START} p") == "unchanged")
        answer = daemon.ask(f"board {F2_E3} b")
        check("the bot answers F2 E3", answer.startswith("move "), answer)
        move = answer[len("move "):]
        page = walk.wait_for(daemon, "arm-to-move", F2_E3, "the bot's move answered")
        walk.common(page, "arm to move")
        check("the arm is to make the move", page["actor"] == "arm" and move in page["headline"] and move in page["action"], page)
        path = " ".join(w for w in move.split(" captures ")[0].split() if w != "crown")
        check("the move is drawn on the expected board", page["expected"]["arrows"] == [path], page["expected"])
        check("the search's figures are the client's last info line", page["info_line"] == daemon.last_info, (page["info_line"], daemon.last_info))
        check("the search's board is drawn", page["search"] is not None and page["search"]["rows"] == F2_E3, page["search"])
        walk.picture(page, "arm-to-move")

        answer = daemon.ask(f"board {F2_E3} p")
        check("the arm did nothing: arm-incomplete", answer.startswith("error arm-incomplete"), answer)
        page = walk.wait_for(daemon, "arm-incomplete", F2_E3, "the arm did nothing")
        walk.common(page, "arm incomplete")
        check("the arm is to finish the move", page["actor"] == "arm" and move in page["headline"], page)
        walk.picture(page, "arm-incomplete")

        # The arm makes the move, but the camera misses the man on H0.
        expect = page["json"]["expect"]
        lost = expect.split("/")
        lost[7] = "_" + lost[7][1:]
        lost_rows = "/".join(lost)
        answer = daemon.ask(f"board {lost_rows} p")
        check("a man missing on H0 is a misread", "misread" in answer and "H0" in answer, answer)
        page = walk.wait_for(daemon, "check-camera", lost_rows, "the man on H0 missing after the arm's move")
        walk.common(page, "misread after the arm's move")
        check("H0 is marked on both boards", page["expected"]["marked"] == ["H0"] == page["seen"]["marked"], page)
        check("the daemon still waits for the arm", page["state"] == "arm", page["state"])
        check(
            "but the page says the move looks made and to check the camera",
            "looks made" in page["explanation"] and page["actor"] == "operator" and "must make" not in page["headline"],
            page,
        )
        walk.picture(page, "check-camera-after-arm")

        answer = daemon.ask(f"board {expect} p")
        check("the move made is unchanged", answer == "unchanged", answer)
        page = walk.wait_for(daemon, "person-to-move", expect, "the bot's move made")
        walk.common(page, "after the bot's move")
        check("the page names the bot's move", f"The bot played {move}" in page["explanation"], page["explanation"])

        check("position", daemon.ask(f"position {START} b") == "ok")
        page = walk.wait_for(daemon, "bot-to-move", None, "a position with the bot to move")
        walk.common(page, "bot to move")
        check("the vision client is to send the board", page["actor"] == "vision-client", page)
        walk.picture(page, "bot-to-move")

        check("position", daemon.ask(f"position {LAST_PIECE} p") == "ok")
        answer = daemon.ask(f"board {LAST_PIECE_TAKEN} b")
        check("the bot's last piece taken", answer == "gameover win p nomoves", answer)
        page = walk.wait_for(daemon, "game-over", LAST_PIECE_TAKEN, "the bot's last piece taken")
        walk.common(page, "game over")
        check("the person has won", page["headline"] == "Game over: the person wins", page["headline"])
        walk.picture(page, "game-over")
        check("the page was never reloaded", browser.run(READ_PAGE)["marker"] == "kept")

        # A daemon on --listen with no client yet.
        listening = Daemon(binary, ["--listen", "127.0.0.1:0"])
        browser.open(listening.url)
        page = walk.wait_for(listening, "no-client", None, "--listen, no client")
        walk.common(page, "no client")
        check("the vision client is to connect", page["actor"] == "vision-client" and page["link"] == "tcp", page)
        walk.picture(page, "no-client")

        check("every state has its screenshot", walk.shot == set(STATES), set(STATES) - walk.shot)
        print("operator page checked")
    finally:
        if browser is not None:
            browser.close()
        daemon.close()
        if listening is not None:
            listening.close()


if __name__ == "__main__":
    main()
