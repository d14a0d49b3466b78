#!/usr/bin/env python3
"""An example vision loop: feeds the boards of a recorded session to a checkersbot daemon, as a
camera would, and says what the arm and the person should do after each reply.

    python3 protocol/client/vision_loop.py tests/sessions/full_game.in \
        --daemon ./target/release/checkersbot [--tcp HOST:PORT | --serial DEV]

A recorded session is daemon input: one request per line, `#` comments and blank lines skipped
(`tests/sessions/*.in`, `protocol/examples/*.txt` lines after `> `). By default the daemon is started
as a child process (`serve --depth 4 --movetime 0`, so the moves are the same every run).
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from checkersbot_client import Client, Reply  # noqa: E402

# What to tell the person or the arm for each error code of a board.
ADVICE = {
    "arm-incomplete": "arm: finish the move above (the board is still on the way)",
    "illegal-transition": "person: that move is not allowed; the message says why",
    "bad-board": "vision: the board could not be read; take the picture again",
    "game-over": "person: the game is over; start a new one",
    "no-game": "vision: send newgame first",
    "busy": "vision: wait for the bot's move",
}


def requests(path: Path):
    for raw in path.read_text().splitlines():
        line = raw[2:] if raw.startswith("> ") else raw
        if raw.startswith("< "):
            continue
        if line.strip() and not line.lstrip().startswith("#"):
            yield line


def describe(reply: Reply) -> str:
    if reply.kind == "move":
        m = reply.move
        steps = " -> ".join(m.path)
        text = f"arm: move the piece {steps}"
        if m.captures:
            text += f", remove {', '.join(m.captures)}"
        if m.crown:
            text += ", crown it"
        return text
    if reply.kind == "unchanged":
        return "person: your move"
    if reply.kind == "wait":
        return "vision: wait, the person is still moving (" + " ".join(reply.words) + ")"
    if reply.kind == "gameover":
        return "everyone: game over (" + " ".join(reply.words) + ")"
    if reply.kind == "error":
        return ADVICE.get(reply.code, f"error {reply.code}") + f"  [{reply.message}]"
    return reply.kind


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("session", type=Path)
    ap.add_argument("--daemon", default="checkersbot", help="the checkersbot binary to start")
    ap.add_argument("--tcp", help="HOST:PORT of a daemon started with serve --listen")
    ap.add_argument("--serial", help="serial device of a daemon started with serve --serial")
    args = ap.parse_args()
    if args.tcp:
        host, port = args.tcp.rsplit(":", 1)
        bot = Client.tcp(host, int(port))
    elif args.serial:
        bot = Client.serial(args.serial)
    else:
        bot = Client.spawn([args.daemon, "serve", "--depth", "4", "--movetime", "0",
                            "--log-level", "error"])
    moves = 0
    for line in requests(args.session):
        if line.split()[0] == "quit":
            break
        reply = bot.request(line)
        if reply.opponent:
            print(f"vision: the person played {reply.opponent}")
        if line.startswith("board"):
            print(describe(reply))
        moves += reply.kind == "move"
    bot.quit()
    print(f"session done: {moves} bot moves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
