#!/usr/bin/env python3
"""An example vision loop: feeds the boards of a recorded session to a checkersbot daemon, as a
camera would, and says what the arm and the person should do after each reply.

    python3 protocol/client/vision_loop.py tests/sessions/full_game.in \
        --daemon ./target/release/checkersbot [--tcp HOST:PORT | --serial DEV]

A recorded session is daemon input: one request per line, `#` comments and blank lines skipped
(`tests/sessions/*.in`, `protocol/examples/*.txt` lines after `> `). By default the daemon is started
as a child process (`serve --depth 4 --movetime 0 --book off`, so the moves are those of the recorded session).

It imports `checkersbot_client`, installed (`pip install ./protocol/client`) or, run from a
checkout, the package directory beside this file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterator

from checkersbot_client import (BoardReply, BotMove, Engine, EngineError, GameOver, Unchanged,
                                Wait)

# What to tell the person or the arm for each error code of a board.
ADVICE = {
    "arm-incomplete": "arm: finish the move above (the board is still on the way)",
    "illegal-transition": "person: that move is not allowed; the message says why",
    "bad-board": "vision: the board could not be read; take the picture again",
    "game-over": "person: the game is over; start a new one",
    "no-game": "vision: send newgame first",
    "busy": "vision: wait for the bot's move",
}


def requests(path: Path) -> Iterator[str]:
    for raw in path.read_text().splitlines():
        line = raw[2:] if raw.startswith("> ") else raw
        if raw.startswith("< "):
            continue
        if line.strip() and not line.lstrip().startswith("#"):
            yield line


def describe(reply: BoardReply) -> str:
    if isinstance(reply, BotMove):
        m = reply.move
        text = f"arm: move the piece {' -> '.join(m.path)}"
        if m.captures:
            text += f", remove {', '.join(m.captures)}"
        if m.crown:
            text += ", crown it"
        return text
    if isinstance(reply, Unchanged):
        return "person: your move"
    if isinstance(reply, Wait):
        return f"vision: wait, the person is still moving ({reply.kind} {','.join(reply.squares)})"
    if isinstance(reply, GameOver):
        return f"everyone: game over ({reply.line.split(' ', 1)[1]})"
    return str(reply)


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("session", type=Path)
    ap.add_argument("--daemon", default="checkersbot", help="the checkersbot binary to start")
    ap.add_argument("--tcp", help="HOST:PORT of a daemon started with serve --listen")
    ap.add_argument("--serial", help="serial device of a daemon started with serve --serial")
    args = ap.parse_args()
    if args.tcp:
        host, port = args.tcp.rsplit(":", 1)
        bot = Engine.tcp(host, int(port))
    elif args.serial:
        bot = Engine.serial(args.serial)
    else:
        bot = Engine.popen([args.daemon, "serve", "--depth", "4", "--movetime", "0",
                            "--book", "off", "--log-level", "error"])
    moves = 0
    with bot:
        for line in requests(args.session):
            words = line.split()
            if words[0] == "quit":
                break
            try:
                if words[0] == "board" and len(words) == 3:
                    reply = bot.board(words[1], words[2], timeout=60)
                    if reply.opponent:
                        print(f"vision: the person played {reply.opponent}")
                    print(describe(reply))
                    moves += isinstance(reply, BotMove)
                else:
                    bot.request(line, timeout=60)
            except EngineError as e:
                print(ADVICE.get(e.code, f"error {e.code}") + f"  [{e.message}]")
    print(f"session done: {moves} bot moves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
