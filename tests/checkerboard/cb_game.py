#!/usr/bin/env python3
"""Loads checkersbot's CheckerBoard engine library with ctypes, as CheckerBoard or pydraughts would,
and plays a whole game with it against `checkersbot serve`.

Usage: cb_game.py LIBRARY CHECKERSBOT_BINARY

The library plays White (CheckerBoard's `color` 1) through `getmove`, the daemon plays Black (its
`b`, the top side, which moves first). Before each library move the legal moves come from the
project's own rules (`checkersbot moves`); the library's move must be one of them, its `CBmove`
must describe it (path, captured squares and pieces, crowning) and the board it hands back must be
the position after it. `enginecommand` is checked for name, protocol version, game type, hash size
and levels. Prints one line a game and `all games played through`; exits 1 on any fault.
"""
import ctypes
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "common"))
from daemon_pipe import Daemon  # noqa: E402

LIB, BIN = sys.argv[1], sys.argv[2]
WHITE, BLACK, MAN, KING = 1, 2, 4, 8
MAX_PLIES = 200


class Coor(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int)]


class CBmove(ctypes.Structure):
    _fields_ = [("jumps", ctypes.c_int), ("newpiece", ctypes.c_int), ("oldpiece", ctypes.c_int),
                ("frm", Coor), ("to", Coor), ("path", Coor * 12), ("del_", Coor * 12),
                ("delpiece", ctypes.c_int * 12)]


Board = (ctypes.c_int * 8) * 8
CODE = {"b": BLACK + MAN, "B": BLACK + KING, "p": WHITE + MAN, "P": WHITE + KING}
LETTER = {v: k for k, v in CODE.items()}


def to_cb(rows):
    board = Board()
    for r, row in enumerate(rows.split("/")):
        for c, ch in enumerate(row):
            board[7 - c][r] = CODE.get(ch, 0)
    return board


def from_cb(board):
    return "/".join("".join(LETTER.get(board[7 - c][r], "_") for c in range(8)) for r in range(8))


def name(coor):
    """CheckerBoard's (x, y) as checkersbot's square name."""
    return f"{chr(ord('A') + coor.y)}{7 - coor.x}"


def apply(rows, path, captured, crown):
    """The rows after a move given in checkersbot's square names."""
    grid = [list(r) for r in rows.split("/")]
    at = lambda s: (ord(s[0]) - ord("A"), int(s[1:]))  # noqa: E731
    r0, c0 = at(path[0])
    piece = grid[r0][c0]
    grid[r0][c0] = "_"
    for s in captured:
        r, c = at(s)
        grid[r][c] = "_"
    r1, c1 = at(path[-1])
    grid[r1][c1] = piece.upper() if crown else piece
    return "/".join("".join(r) for r in grid)


def legal_moves(rows, side):
    out = subprocess.run([BIN, "moves", "--board", rows, "--side", side], capture_output=True,
                         text=True, check=True).stdout
    return [line.strip() for line in out.splitlines() if line.strip() and not line.startswith("none")]


def command(lib, text):
    reply = ctypes.create_string_buffer(1024)
    ok = lib.enginecommand(ctypes.create_string_buffer(text.encode(), 256), reply)
    return ok, reply.value.decode()


def check_commands(lib):
    expect = [("name", 1, "checkersbot"), ("get protocolversion", 1, "2"), ("get gametype", 1, "21"),
              ("set hashsize 32", 1, "32"), ("get hashsize", 1, "32"), ("set level medium", 1, "medium"),
              ("set level off", 1, "off"), ("set gametype 25", 0, "?"), ("bogus", 0, "?")]
    for text, ok, start in expect:
        got_ok, got = command(lib, text)
        if got_ok != ok or not got.startswith(start):
            raise RuntimeError(f"enginecommand {text!r}: {got_ok} {got!r}, expected {ok} {start!r}...")


def library_move(lib, rows, first):
    legal = legal_moves(rows, "p")
    board = to_cb(rows)
    out = ctypes.create_string_buffer(1024)
    playnow = ctypes.c_int(0)
    mv = CBmove()
    result = lib.getmove(board, WHITE, ctypes.c_double(0.03), out, ctypes.byref(playnow),
                         1 if first else 0, 0, ctypes.byref(mv))
    if not legal:
        return None, result
    jumps = mv.jumps
    path = [name(mv.path[i]) for i in range(max(jumps, 1) + 1)]
    if name(mv.frm) != path[0] or name(mv.to) != path[-1]:
        raise RuntimeError(f"CBmove from/to {name(mv.frm)} {name(mv.to)} do not match its path {path}")
    captured = [name(mv.del_[i]) for i in range(jumps)]
    crown = mv.newpiece != mv.oldpiece
    text = " ".join(path) + (" captures " + " ".join(captured) if captured else "") + (" crown" if crown else "")
    if text not in legal:
        raise RuntimeError(f"library move {text!r} is not legal; legal: {legal}")
    for i in range(jumps):
        want = CODE[rows.split("/")[mv.del_[i].y][7 - mv.del_[i].x]]
        if mv.delpiece[i] != want:
            raise RuntimeError(f"delpiece {mv.delpiece[i]} on {captured[i]}, board has {want}")
    after = apply(rows, path, captured, crown)
    if from_cb(board) != after:
        raise RuntimeError(f"board after {text}: {from_cb(board)}, expected {after}")
    return after, result


def play(lib, daemon, label):
    start = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_"
    if daemon.ask("newgame") != "ok":
        raise RuntimeError("newgame")
    rows, plies, first = start, 0, True
    reply = daemon.ask(f"board {rows} b")
    while plies < MAX_PLIES:
        words = reply.split()
        if words[0] == "gameover":
            print(f"{label}: {plies} plies, daemon says {reply}")
            return
        if words[0] != "move":
            raise RuntimeError(f"daemon answered {reply!r}")
        path, captured, crown, part = [], [], False, "path"
        for w in words[1:]:
            if w == "captures":
                part = "captures"
            elif w == "crown":
                crown = True
            elif part == "path":
                path.append(w)
            else:
                captured.append(w)
        rows = apply(rows, path, captured, crown)
        plies += 1
        # The board after the daemon's move: `unchanged`, or `gameover` when that move ended it.
        seen = daemon.ask(f"board {rows} b")
        if seen.startswith("gameover"):
            print(f"{label}: {plies} plies, daemon says {seen}")
            return
        if seen != "unchanged":
            raise RuntimeError(f"daemon answered {seen!r} to the board after its move")
        after, result = library_move(lib, rows, first)
        first = False
        if after is None:
            print(f"{label}: {plies} plies, the library has no move (result {result})")
            return
        rows = after
        plies += 1
        reply = daemon.ask(f"board {rows} b")
    print(f"{label}: {plies} plies, called a draw")


def main():
    lib = ctypes.CDLL(LIB)
    lib.getmove.restype = ctypes.c_int
    lib.enginecommand.restype = ctypes.c_int
    daemon = Daemon(BIN, 30)
    try:
        check_commands(lib)
        play(lib, daemon, "library (White) against serve (Black)")
        command(lib, "set level easy")
        play(lib, daemon, "library at level easy against serve")
    except Exception as e:  # every fault is a test failure with its reason
        print(f"FAILED: {e}")
        return 1
    finally:
        daemon.close()
    print("all games played through")
    return 0


if __name__ == "__main__":
    sys.exit(main())
