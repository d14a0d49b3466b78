#!/usr/bin/env python3
"""Calls checkersbot's CheckerBoard engine library through ctypes the ways a careless or hurried host
might (issue 52, finding 13), and checks that each is answered at once and in words.

Usage: cb_hostile.py LIBRARY CHECK

CHECK is one of:
- `maxtime`: `getmove` with a `maxtime` of 0, negative, NaN or infinite answers `UNKNOWN` at once
  with a message naming `maxtime` in `str`, and makes no move (board and move untouched);
- `command`: `enginecommand` (`name`, `get level`, `set level`, `get hashsize`, `set hashsize`)
  is answered within 100 ms while another thread's `getmove` searches;
- `concurrent`: a second thread's `getmove` while one searches is refused within 100 ms:
  `UNKNOWN`, `busy` in `str`, no move made; the first one still plays a legal move.
A timed check is tried up to 3 times (a loaded machine may delay one try; code that waits for the
search misses every one). A try counts only when the first search really held the engine while it
was measured (a second `getmove` then is refused `busy`), so a try in which the first search
started late can fail but never pass. Prints what it measured and `passed`; exits 1 on any fault.
"""
import ctypes
import math
import sys
import threading
import time

LIB, CHECK = sys.argv[1], sys.argv[2]
WHITE, BLACK, MAN, KING = 1, 2, 4, 8
UNKNOWN = 3
LIMIT = 0.1
TRIES = 3


class Coor(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int)]


class CBmove(ctypes.Structure):
    _fields_ = [("jumps", ctypes.c_int), ("newpiece", ctypes.c_int), ("oldpiece", ctypes.c_int),
                ("frm", Coor), ("to", Coor), ("path", Coor * 12), ("del_", Coor * 12),
                ("delpiece", ctypes.c_int * 12)]


Board = (ctypes.c_int * 8) * 8
START = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_"
CODE = {"b": BLACK + MAN, "B": BLACK + KING, "p": WHITE + MAN, "P": WHITE + KING}


def start_board():
    board = Board()
    for r, row in enumerate(START.split("/")):
        for c, ch in enumerate(row):
            board[7 - c][r] = CODE.get(ch, 0)
    return board


def cells(board):
    return [board[x][y] for x in range(8) for y in range(8)]


class Search:
    """A `getmove` on a thread of its own, from the start with Black to move, until `stop`."""

    def __init__(self, lib, maxtime=30.0):
        self.lib, self.board, self.text = lib, start_board(), ctypes.create_string_buffer(1024)
        self.playnow, self.mv, self.result = ctypes.c_int(0), CBmove(), None
        self.thread = threading.Thread(target=self.run, args=(maxtime,))
        self.thread.start()
        # Give the search time to take the engine (a try that starts it late fails on its own).
        time.sleep(0.5)

    def run(self, maxtime):
        self.result = self.lib.getmove(self.board, BLACK, ctypes.c_double(maxtime), self.text,
                                       ctypes.byref(self.playnow), 0, 0, ctypes.byref(self.mv))

    def stop(self):
        """Stops the search; whether it searched and made a move (not if it started too late and
        was refused `busy` by a probe)."""
        self.playnow.value = 1
        self.thread.join(60)
        if self.thread.is_alive():
            raise RuntimeError("getmove did not stop on playnow")
        if "busy" in self.text.value.decode():
            return False
        if self.mv.jumps != 0 or cells(self.board) == cells(start_board()):
            raise RuntimeError(f"the searching getmove made no move: {self.text.value!r}")
        return True


def second_getmove(lib):
    """A `getmove` from the start (50 ms): its result, its `str`, how long it took, and whether it
    left the board untouched."""
    board, text, mv = start_board(), ctypes.create_string_buffer(1024), CBmove()
    playnow = ctypes.c_int(0)
    t = time.monotonic()
    r = lib.getmove(board, BLACK, ctypes.c_double(0.05), text, ctypes.byref(playnow), 0, 0,
                    ctypes.byref(mv))
    return r, text.value.decode(), time.monotonic() - t, cells(board) == cells(start_board())


def command(lib, text):
    reply = ctypes.create_string_buffer(1024)
    ok = lib.enginecommand(ctypes.create_string_buffer(text.encode(), 256), reply)
    return ok, reply.value.decode()


def timed(what, attempt):
    """Runs `attempt` up to TRIES times until one is within LIMIT. An attempt returns its duration,
    or None and why the try does not count."""
    late = []
    for _ in range(TRIES):
        took, why = attempt()
        if took is not None and took <= LIMIT:
            print(f"{what}: {took * 1000:.1f} ms" + (f" (failed tries: {late})" if late else ""))
            return
        late.append(f"{took * 1000:.1f} ms" if took is not None else why)
    raise RuntimeError(f"{what}: not within {LIMIT * 1000:.0f} ms on any of {TRIES} tries: {late}")


def check_maxtime(lib):
    for maxtime in [0.0, -1.0, -0.0, math.nan, math.inf, -math.inf]:
        board, text, mv = start_board(), ctypes.create_string_buffer(1024), CBmove()
        mv.jumps = 77
        playnow = ctypes.c_int(0)
        t = time.monotonic()
        r = lib.getmove(board, BLACK, ctypes.c_double(maxtime), text, ctypes.byref(playnow), 0, 0,
                        ctypes.byref(mv))
        took = time.monotonic() - t
        said = text.value.decode()
        if r != UNKNOWN or "maxtime" not in said:
            raise RuntimeError(f"maxtime {maxtime}: returned {r}, str {said!r}")
        if cells(board) != cells(start_board()) or mv.jumps != 77:
            raise RuntimeError(f"maxtime {maxtime}: a move was made: {said!r}")
        print(f"maxtime {maxtime}: UNKNOWN in {took * 1000:.1f} ms: {said}")


def check_command(lib):
    expect = [("name", "checkersbot"), ("get level", "off"), ("set level medium", "medium"),
              ("get level", "medium"), ("set level off", "off"), ("get hashsize", "16"),
              ("get protocolversion", "2")]

    def attempt():
        search = Search(lib)
        worst = 0.0
        try:
            for text, want in expect:
                t = time.monotonic()
                ok, reply = command(lib, text)
                worst = max(worst, time.monotonic() - t)
                if ok != 1 or not reply.startswith(want):
                    raise RuntimeError(f"enginecommand {text!r} during getmove: {ok} {reply!r}")
            # The search held the engine all along: it holds it still.
            _, said, _, _ = second_getmove(lib)
        finally:
            searched = search.stop()
        if "busy" not in said or not searched:
            return None, f"{worst * 1000:.1f} ms, but the first search was not under way at the end ({said!r})"
        return worst, ""

    timed("slowest enginecommand during a getmove", attempt)
    # A hash size set during a search is the size of the next search's table.
    search = Search(lib)
    try:
        ok, reply = command(lib, "set hashsize 32")
        if ok != 1 or reply != "32":
            raise RuntimeError(f"set hashsize 32 during getmove: {ok} {reply!r}")
    finally:
        search.stop()
    ok, reply = command(lib, "get hashsize")
    if ok != 1 or reply != "32":
        raise RuntimeError(f"get hashsize after a set during getmove: {ok} {reply!r}")


def check_concurrent(lib):
    def attempt():
        search = Search(lib)
        try:
            r, said, took, untouched = second_getmove(lib)
        finally:
            searched = search.stop()
        if not searched:
            return None, f"the first search started late and was refused ({said!r})"
        if r != UNKNOWN or "busy" not in said:
            return None, f"a second getmove returned {r} after {took:.2f} s: {said!r}"
        if not untouched:
            raise RuntimeError(f"the refused getmove made a move: {said!r}")
        return took, ""

    timed("a second getmove refused", attempt)


def main():
    lib = ctypes.CDLL(LIB)
    lib.getmove.restype = ctypes.c_int
    lib.enginecommand.restype = ctypes.c_int
    checks = {"maxtime": check_maxtime, "command": check_command, "concurrent": check_concurrent}
    try:
        checks[CHECK](lib)
    except Exception as e:  # every fault is a test failure with its reason
        print(f"FAILED: {e}")
        return 1
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
