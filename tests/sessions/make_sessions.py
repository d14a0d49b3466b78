#!/usr/bin/env python3
"""Records the sessions in tests/sessions/*.in by playing the part of the vision system against a
running `checkersbot serve` (deterministic settings: each session sets its depth and one thread).

The vision side applies each `move` reply to its board (path, captures, crown) as a working arm
would, and picks the person's moves from `checkersbot moves` with a fixed rule, so the recordings
are reproducible. The expected replies (*.out) are made by the golden test with
CHECKERSBOT_BLESS=1 and are then checked by reading them.

Usage: cargo build --release && python3 tests/sessions/make_sessions.py
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.join(HERE, "..", "..", "target", "release", "checkersbot")


def parse(rows):
    return [list(r) for r in rows.split("/")]


def line(grid):
    return "/".join("".join(r) for r in grid)


def sq(name):
    return ord(name[0]) - 65, int(name[1:])


def apply(rows, words):
    """Applies a move given as protocol words (PATH [captures SQ...] [crown])."""
    g = parse(rows)
    path, caps, crown, in_caps = [], [], False, False
    for w in words:
        if w == "captures":
            in_caps = True
        elif w == "crown":
            crown = True
        elif in_caps:
            caps.append(w)
        else:
            path.append(w)
    r0, c0 = sq(path[0])
    piece = g[r0][c0]
    g[r0][c0] = "_"
    for c in caps:
        r, k = sq(c)
        g[r][k] = "_"
    r1, c1 = sq(path[-1])
    g[r1][c1] = piece.upper() if crown else piece
    return line(g)


def legal(rows, side):
    out = subprocess.run([BIN, "moves", "--board", rows, "--side", side],
                         capture_output=True, text=True, check=True).stdout
    moves = []
    for l in out.splitlines():
        if l.startswith("none"):
            return []
        parts = [p for p in l.split("  ") if p]
        words = parts[0].split()
        for p in parts[1:]:
            if p.startswith("captures"):
                words += p.split()
            elif p == "crowns":
                words.append("crown")
        moves.append(words)
    return moves


def rotate(rows):
    return rows[::-1]


def colour(rows):
    return rows.replace("P", "p").replace("B", "b")


class Session:
    def __init__(self, name):
        self.name = name
        self.lines = []
        self.proc = subprocess.Popen([BIN, "serve", "--movetime", "0", "--seed", "1", "--egdb-build", "off",
                                      "--book", "off", "--egdb", "off"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        self.rotated = False
        self.colour_only = False

    def raw(self, data):
        """Bytes that are not a request the daemon answers normally (garbage)."""
        self.lines.append(data)
        self.proc.stdin.write(data.decode("utf-8", "replace") + "\n")

    def note(self, text):
        self.lines.append(("# " + text).encode())

    def send(self, text):
        self.lines.append(text.encode())
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()
        if not text.strip() or text.strip().startswith("#"):
            return []
        replies = []
        while True:
            r = self.proc.stdout.readline().rstrip("\n")
            replies.append(r)
            if not r.startswith(("info ", "option ", "line ")):
                return replies
        if text.startswith("set rotated"):
            pass

    def board(self, rows, side):
        shown = rows
        if self.colour_only:
            shown = colour(shown)
        if self.rotated:
            shown = rotate(shown)
        return self.send(f"board {shown} {side}")

    def close(self):
        self.send("quit")
        self.proc.wait()
        with open(os.path.join(HERE, self.name + ".in"), "wb") as f:
            for l in self.lines:
                f.write(l + b"\n")


def final(replies):
    return replies[-1].split()


def play(s, rows, pick, plies, side_after="b"):
    """Alternates the person's move (chosen by `pick`) and the bot's reply for `plies` rounds.
    `rows` is the board with the person to move. Returns the last board and reply."""
    for i in range(plies):
        moves = legal(rows, "p")
        if not moves:
            return rows, s.board(rows, "p")
        rows = apply(rows, pick(moves, i))
        r = final(s.board(rows, side_after))
        if r[0] != "move":
            return rows, r
        rows = apply(rows, r[1:])
    return rows, None


def first_pick(moves, i):
    # Prefer the longest capture, else a move chosen by a fixed rotation.
    caps = [m for m in moves if "captures" in m]
    if caps:
        return max(caps, key=len)
    return moves[(i * 5) % len(moves)]


START8 = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_"


def full_game():
    s = Session("full_game")
    s.note("A whole 8x8 game: the person moves first, the bot answers until the game ends.")
    s.send("hello")
    s.send("set depth 4")
    s.send("set info final")
    s.send("newgame")
    s.send("status")
    rows = START8
    s.board(rows, "p")
    rows, r = play(s, rows, first_pick, 200)
    s.note("The board after the bot's last move again: the game is over.")
    s.board(rows, "p")
    s.send("status")
    s.close()


def rows_of(pieces, n=8):
    """A board from {"F4": "b", ...}."""
    g = [["_"] * n for _ in range(n)]
    for name, ch in pieces.items():
        r, c = sq(name)
        g[r][c] = ch
    return line(g)


def multi_jumps():
    s = Session("multi_jumps")
    s.note("The bot's only move is a double jump.")
    s.send("set depth 4")
    s.send("set info final")
    rows = rows_of({"B2": "b", "C3": "p", "E5": "p", "G1": "p", "A7": "b"})
    s.send(f"position {rows} b")
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    s.note("A new position: the person answers with a double jump, G1 over F2 and D4.")
    rows = rows_of({"G1": "p", "F2": "b", "D4": "b", "A1": "b", "A3": "b", "H6": "p"})
    s.send(f"position {rows} p")
    mv = [m for m in legal(rows, "p") if "captures" in m]
    rows = apply(rows, max(mv, key=len))
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    s.note("A king's double jump with a choice of routes: the bot picks one and names every landing square.")
    rows = rows_of({"B2": "B", "C3": "p", "E5": "p", "E3": "p", "C1": "p", "H0": "p", "A7": "b"})
    s.send(f"position {rows} b")
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    rows, _ = play(s, rows, first_pick, 3)
    s.close()


def crowning():
    s = Session("crowning")
    s.note("The person crowns on row A; the bot must capture and crowns on row H.")
    s.send("set depth 4")
    s.send("set info final")
    rows = rows_of({"A5": "b", "B2": "p", "E3": "b", "F4": "b", "G5": "p", "H0": "p"})
    s.send(f"position {rows} p")
    s.board(rows, "p")
    rows = apply(rows, ["B2", "A1", "crown"])
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    rows, _ = play(s, rows, first_pick, 4)
    s.close()


def game_over():
    s = Session("game_over")
    s.send("set depth 4")
    s.send("set info off")
    s.note("The person takes the bot's last piece.")
    rows = rows_of({"C3": "b", "D2": "p", "H0": "p"})
    s.send(f"position {rows} p")
    rows = apply(rows, ["D2", "B4", "captures", "C3"])
    s.board(rows, "b")
    s.note("The camera fires again: the same answer. A different board: the game is over.")
    s.board(rows, "b")
    s.board(apply(rows, ["H0", "G1"]), "b")
    s.send("status")
    s.note("The bot takes the person's last piece; the board after it shows the end.")
    rows = rows_of({"C3": "b", "D4": "p", "A1": "b"})
    s.send(f"position {rows} b")
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    s.board(rows, "p")
    s.note("The person is blocked: no legal move.")
    rows = rows_of({"H0": "p", "G1": "b", "F2": "b", "A1": "b"})
    s.send(f"position {rows} p")
    s.board(rows, "p")
    s.note("A board after the game: also game over.")
    s.board(rows, "b")
    s.note("Losing (one king against three), the bot steers into a threefold repetition: the")
    s.note("game's history reaches the search. The board after its move shows the draw.")
    s.send("set depth 6")
    s.send("set info final")
    rows = rows_of({"A1": "B", "H0": "P", "H2": "P", "H4": "P"})
    s.send(f"position {rows} p")
    seq = [["H0", "G1"], ["G1", "H0"]]
    for i in range(8):
        rows = apply(rows, seq[i % 2])
        r = final(s.board(rows, "b"))
        if r[0] != "move":
            break
        rows = apply(rows, r[1:])
        s.board(rows, "p")
        if final(s.send("ping"))[0] != "pong":
            break
    s.close()


def misreads():
    s = Session("misreads")
    s.send("set depth 3")
    s.send("set info off")
    s.send("newgame")
    rows = START8
    s.board(rows, "p")
    s.note("A man moved two squares: no legal move explains it.")
    s.board(apply(rows, ["F2", "D2"]), "b")
    s.note("A piece missing: a misread.")
    g = parse(rows)
    g[6][3] = "_"
    s.board(line(g), "b")
    s.note("status keeps the board seen and the diagnosis; the game is unchanged.")
    s.send("status")
    s.note("Now the real move.")
    rows = apply(rows, ["F2", "E3"])
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    s.note("A man moved backwards.")
    s.board(apply(rows, ["E3", "F2"]), "b")
    s.note("A legal move, but one of the bot's men is read as the person's.")
    nxt = apply(rows, legal(rows, "p")[0])
    g = parse(nxt)
    g[1][0] = "p"
    s.board(line(g), "b")
    s.note("A board of the wrong size.")
    s.board("_b_b/____/____/p_p_", "b")
    s.note("Lenient mode takes an unexplained board as a new position.")
    s.send("set strict off")
    g = parse(rows)
    g[0][1] = "_"
    rows = line(g)
    s.board(rows, "p")
    rows = apply(rows, legal(rows, "p")[0])
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    s.send("set strict on")
    s.note("Recovering with position after a misread.")
    s.send(f"position {rows} p")
    s.board(rows, "p")
    rows, _ = play(s, rows, first_pick, 2)
    s.close()


def arm_failure():
    s = Session("arm_failure")
    s.send("set depth 3")
    s.send("set info off")
    s.send("newgame")
    s.note("The bot moves first.")
    rows = START8
    r = final(s.board(rows, "b"))
    p1 = apply(rows, r[1:])
    s.note("The arm did nothing: the board is still the start.")
    s.board(rows, "p")
    s.note("status: waiting for the arm, the board expected after the move, what was seen.")
    s.send("status")
    s.note("The arm lifted the piece but has not put it down.")
    g = parse(rows)
    fr, fc = sq(r[1])
    g[fr][fc] = "_"
    s.board(line(g), "p")
    s.note("Done now: nothing to do until the person moves.")
    s.board(p1, "p")
    s.note("A capture whose captured man was not removed.")
    rows = rows_of({"C3": "b", "D4": "p", "A1": "b", "H0": "p", "G7": "p"})
    s.send(f"position {rows} b")
    r = final(s.board(rows, "b"))
    p1 = apply(rows, r[1:])
    g = parse(p1)
    for c in r[r.index("captures") + 1:] if "captures" in r else []:
        cr, cc = sq(c)
        g[cr][cc] = "p"
    s.board(line(g), "p")
    s.note("The arm put the piece on a wrong square: not a partial move, a misread or wrong move.")
    g = parse(p1)
    to = r[1:][r[1:].index("captures") - 1] if "captures" in r else r[-1]
    tr, tc = sq(to)
    g[tr][tc] = "_"
    g[tr][tc - 2] = "b"
    s.board(line(g), "p")
    s.note("Put right: nothing to do.")
    s.board(p1, "p")
    s.send("status")
    s.note("A double jump stopped half way: the piece on the middle square, one man not removed.")
    rows = rows_of({"B2": "b", "C3": "p", "E5": "p", "G1": "p", "A7": "b"})
    s.send(f"position {rows} b")
    r = final(s.board(rows, "b"))
    p1 = apply(rows, r[1:])
    half = apply(rows, [r[1], r[2], "captures", r[r.index("captures") + 1]])
    s.board(half, "p")
    s.board(p1, "p")
    s.close()


def unchanged():
    s = Session("unchanged")
    s.note("The camera fires twice, the person has not moved yet.")
    s.send("set depth 3")
    s.send("set info off")
    s.send("newgame 6")
    rows = "_b_b_b/b_b_b_/______/______/_p_p_p/p_p_p_"
    s.board(rows, "p")
    s.board(rows, "p")
    moves = legal(rows, "p")
    rows = apply(rows, moves[0])
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    s.note("The bot's move is on the board; the camera fires twice more (either side letter).")
    s.board(rows, "p")
    s.board(rows, "b")
    rows, _ = play(s, rows, first_pick, 2)
    s.close()


def garbage():
    s = Session("garbage")
    s.note("Garbage lines: each gets one error and the daemon goes on.")
    s.raw(b"\xff\xfe\x00 board")
    s.raw(b"x" * 5000)
    s.raw(b"ping\r")
    s.raw(b"")
    s.raw(b"   ")
    s.raw(b"\tping\t")
    s.send("board _b_b/____/____/p_p_ p")
    s.send("jump G3 F4")
    s.send("PING")
    s.send("ping pong now")
    s.raw(b"\x0b")
    s.raw(b"ping\x0cnow")
    s.send("set")
    s.send("set movetime soon")
    s.send("set threads 0")
    s.send("set size 7")
    s.send("set colour blue")
    s.send("newgame 7")
    s.send("newgame _b_x/____/____/p_p_")
    s.send("newgame 8")
    s.send("board _b_b/____/____/p_p_")
    s.send("board _b_b/____/____/p_p_ q")
    s.send("board _b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p")
    s.send("board _b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_ x")
    s.send("board _b_b_b_b/b_b_b_b_/_b_b_b_b/____k___/________/p_p_p_p_/_p_p_p_p/p_p_p_p_ p")
    s.send("board bb_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_ p")
    s.send("board _p_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_ p")
    s.send("board ///////// p")
    s.send("position fen")
    s.send("position fen X:W21:B1")
    s.send("stop")
    s.note("Still answering:")
    s.send("ping")
    s.send("set depth 2")
    s.send("set info off")
    s.board(START8, "b")
    s.close()


def colour_only():
    s = Session("colour_only")
    s.note("A camera that cannot tell kings from men: boards come with men only.")
    s.send("set depth 4")
    s.send("set info final")
    s.send("set colouronly on")
    rows = rows_of({"C3": "B", "F2": "P", "B4": "b", "G5": "p", "H2": "p"})
    s.send(f"position {rows} p")
    s.colour_only = True
    s.board(rows, "p")
    s.note("The person's king moves down the board, which only a king can do.")
    rows = apply(rows, ["F2", "G1"])
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    rows, _ = play(s, rows, first_pick, 4)
    s.note("The person crowns: the camera still shows a man, the daemon knows it is a king.")
    rows = rows_of({"B2": "p", "A7": "b", "H0": "p", "D6": "b"})
    s.send(f"position {rows} p")
    rows = apply(rows, ["B2", "A1", "crown"])
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    s.note("The new king moves down, which a man could not.")
    rows = apply(rows, ["A1", "B2"])
    r = final(s.board(rows, "b"))
    s.close()


def rotated():
    s = Session("rotated")
    s.note("The camera sits on the bot's side: boards arrive rotated 180 degrees.")
    s.send("set depth 3")
    s.send("set info off")
    s.send("set rotated on")
    s.rotated = True
    s.send("newgame")
    rows = START8
    s.board(rows, "p")
    rows, _ = play(s, rows, first_pick, 4)
    s.note("A misread, reported in the daemon's orientation.")
    g = parse(rows)
    g[7][0] = "_"
    s.board(line(g), "b")
    s.note("status shows the board seen turned round, as the daemon reads it.")
    s.send("status")
    s.close()


def fen():
    s = Session("fen")
    s.note("Positions from draughts FEN.")
    s.send("set depth 4")
    s.send("set info final")
    s.send("position fen B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12")
    rows = START8
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    rows, _ = play(s, rows, first_pick, 2)
    s.note("Kings and ranges; the person to move.")
    s.send("position fen W:WK10,29-30:B5,K27.")
    rows = rows_of({"C3": "P", "H0": "p", "H2": "p", "B0": "b", "G5": "B"})
    s.board(rows, "p")
    rows, _ = play(s, rows, first_pick, 2)
    s.note("Bad FENs.")
    s.send("position fen X:W21:B1")
    s.send("position fen W:W21")
    s.send("position fen W:W33:B1")
    s.send("position fen W:W21,21:B1")
    s.send("position fen W:W2:B9")
    s.send("position fen W:W2x:B9")
    s.note("Other sizes use the same numbering.")
    s.send("set size 10")
    s.send("position fen W:W31-50:B1-20")
    s.board("_b_b_b_b_b/b_b_b_b_b_/_b_b_b_b_b/b_b_b_b_b_/__________/__________/_p_p_p_p_p/p_p_p_p_p_/_p_p_p_p_p/p_p_p_p_p_", "p")
    s.close()


def diagnosis():
    """Each class of the person's unexplained board: a move under way (wait) and the wrong moves."""
    s = Session("diagnosis")
    s.send("set depth 4")
    s.send("set info off")
    s.note("The person must take D4 with E3 (E3 C5).")
    rows = rows_of({"D4": "b", "E3": "p", "F6": "p"})
    s.send(f"position {rows} p")
    s.board(rows, "p")
    s.note("The man lifted from E3: a move under way.")
    s.board(rows_of({"D4": "b", "F6": "p"}), "p")
    s.note("On C5, the captured man on D4 not removed yet.")
    s.board(rows_of({"C5": "p", "D4": "b", "F6": "p"}), "p")
    s.note("F6 E5 played instead: the capture is mandatory.")
    s.board(rows_of({"D4": "b", "E3": "p", "E5": "p"}), "p")
    s.note("The capture made: the bot has no piece left.")
    s.board(rows_of({"C5": "p", "F6": "p"}), "b")
    s.note("A double jump half done: H0 F2 D4 standing on F2, G1 removed.")
    rows = rows_of({"E3": "b", "G1": "b", "H0": "p", "A1": "b"})
    s.send(f"position {rows} p")
    s.board(rows_of({"E3": "b", "F2": "p", "A1": "b"}), "p")
    s.note("A man on the last row, not crowned yet.")
    rows = rows_of({"B2": "p", "D4": "b"})
    s.send(f"position {rows} p")
    s.board(rows_of({"A1": "p", "D4": "b"}), "p")
    s.note("Wrong moves: backwards, too far, a bot's piece, two moves at once, a piece from nowhere.")
    rows = rows_of({"A1": "b", "A3": "b", "E3": "p"})
    s.send(f"position {rows} p")
    s.board(rows_of({"A1": "b", "A3": "b", "F2": "p"}), "p")
    s.board(rows_of({"A1": "b", "A3": "b", "C1": "p"}), "p")
    s.board(rows_of({"B0": "b", "A3": "b", "E3": "p"}), "p")
    s.board(rows_of({"B0": "b", "A3": "b", "D4": "p"}), "p")
    s.board(rows_of({"A1": "b", "A3": "b", "E3": "p", "D6": "p"}), "p")
    s.note("A move and a misread in one frame: E3 D4 played, a phantom on H6 (only H6 is named); then a")
    s.note("man on D2, where E3 could step: no move and a phantom on D2, or E3 D2 with E3 misread (both named).")
    s.board(rows_of({"A1": "b", "A3": "b", "D4": "p", "H6": "p"}), "p")
    s.board(rows_of({"A1": "b", "A3": "b", "E3": "p", "D2": "p"}), "p")
    s.note("The bot captures; once its move is on the board, the captured man is put back.")
    rows = rows_of({"C5": "b", "D4": "p", "G1": "p", "A1": "b"})
    s.send(f"position {rows} b")
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    s.board(rows, "p")
    g = parse(rows)
    g[3][4] = "p"
    s.board(line(g), "p")
    s.close()


def levels():
    s = Session("levels")
    s.note("Levels and styles. set level sets the move time and depth (options shows them); easy")
    s.note("searches 2 plies and one time in three plays another of its 3 best moves if it is within")
    s.note("0.6 of a man of the best (the missteps are seeded: replays give the same moves).")
    s.send("set level easy")
    s.send("set info final")
    s.send("options")
    s.send("newgame")
    rows = START8
    s.board(rows, "p")
    rows, _ = play(s, rows, first_pick, 8)
    s.note("The aggressive style, at medium (6 plies; the move time is lifted for a reproducible replay).")
    s.send("set style aggressive")
    s.send("set level medium")
    s.send("set movetime 0")
    rows, _ = play(s, rows, first_pick, 3)
    s.send("set level max")
    s.send("set style default")
    s.send("set depth 4")
    s.send("set movetime 0")
    s.send("options")
    s.send("set level expert")
    s.send("set style wild")
    s.close()


def analysis():
    s = Session("analysis")
    s.note("Analysis without touching the game, and hints for the person (teaching mode).")
    s.send("set depth 6")
    s.send("set info final")
    s.note("No game yet: a position must be given.")
    s.send("analyse 3")
    s.send("hint")
    s.send(f"analyse 3 {START8} p")
    s.send("analyse 2 fen W:W21,22,K23:B1,2")
    s.send("analyse 4 start b")
    s.send("newgame")
    rows = START8
    s.board(rows, "p")
    s.note("The person asks for a hint, then plays it.")
    r = final(s.send("hint"))
    rows = apply(rows, r[1:])
    r = final(s.board(rows, "b"))
    rows = apply(rows, r[1:])
    s.note("The game's position, with its history; the game goes on unchanged.")
    s.send("analyse 3")
    s.board(rows, "p")
    s.note("A capture is mandatory: the hint names it.")
    rows2 = rows_of({"C3": "b", "D4": "p", "A1": "b", "H0": "p", "G7": "p"})
    s.send(f"position {rows2} p")
    s.send("hint")
    s.send(f"position {rows2} b")
    s.send("hint")
    s.send("analyse 0")
    s.send("analyse 21")
    s.close()


def takeback():
    s = Session("takeback")
    s.note("Take-back: the person's last move and the bot's reply; the reply is the board the")
    s.note("daemon now expects, which the arm and the person restore.")
    s.send("set depth 4")
    s.send("set info off")
    s.send("newgame")
    s.send("takeback")
    rows = START8
    s.board(rows, "p")
    s.send("takeback")
    rows, _ = play(s, rows, first_pick, 3)
    r = final(s.send("takeback"))
    rows = r[1]
    s.note("status: the position taken back; the board seen is still the one before.")
    s.send("status")
    s.note("The board put back: nothing to do; the person plays another move.")
    s.board(rows, "p")
    rows, _ = play(s, rows, lambda m, i: m[-1], 1)
    s.note("Twice more, back to the start; then there is nothing left to take back.")
    rows = final(s.send("takeback"))[1]
    rows = final(s.send("takeback"))[1]
    s.send("takeback")
    s.note("The bot moves first: its first move stays (the person has not moved).")
    s.send("newgame")
    r = final(s.board(START8, "b"))
    rows = apply(START8, r[1:])
    s.send("takeback")
    rows, _ = play(s, rows, first_pick, 1)
    s.send("takeback")
    s.note("After the person's winning move the game is over; take-back reopens it.")
    rows = rows_of({"C3": "b", "D2": "p", "H0": "p"})
    s.send(f"position {rows} p")
    after = apply(rows, ["D2", "B4", "captures", "C3"])
    s.board(after, "b")
    s.send("takeback")
    s.board(rows, "p")
    s.close()


def history():
    s = Session("history")
    s.note("position with a history: a move list (paths, or PDN numbers on 8x8) or a PDN game.")
    s.send("set depth 4")
    s.send("set info off")
    s.send("position start b moves 11-15 23-19 8-11 22-17")
    s.send("analyse 1")
    rows = apply(apply(apply(apply(START8, ["C5", "D4"]), ["F4", "E5"]), ["B6", "C5"]), ["F2", "E1"])
    s.board(rows, "b")
    s.note("The history reaches the take-back and the draw rules.")
    s.send("takeback")
    s.send("position start p moves F2-E3 C1-D2")
    s.send('position pdn [FEN "W:W21,22:B1,2"] 1. 22-18 1-5 2. 18-14 *')
    s.send("takeback")
    s.send('position pdn [Event "x"] 1. 11-15 22-18 {a comment} 2. 15x22 25x18 *')
    s.send("analyse 2")
    s.note("Errors: an illegal move says which and what was legal; a bad PDN; a bad base.")
    s.send("position start b moves 11-15 11-15")
    s.send("position pdn 1. 11-15 hello *")
    s.send('position pdn [FEN "X:W1"] 1. 11-15')
    s.send("position _b_x/____/____/p_p_ b moves A1-B2")
    s.send("position start b moves")
    s.close()


def mirror(rows):
    return "/".join(r[::-1] for r in rows.split("/"))


def flip(rows):
    return "/".join(rows.split("/")[::-1])


def orientation():
    s = Session("orientation")
    s.note("A camera turned the wrong way: the error says which way and what to do.")
    s.send("set depth 3")
    s.send("set info off")
    s.send("newgame")
    s.note("The start seen from the bot's side (turned by 180 degrees), mirrored, upside down.")
    s.board(rotate(START8), "p")
    s.board(mirror(START8), "p")
    s.board(flip(START8), "p")
    s.send("status")
    s.note("The fix for the first: rotated on; then the game goes on from the bot's side.")
    s.send("set rotated on")
    s.rotated = True
    s.board(START8, "p")
    rows, _ = play(s, START8, first_pick, 1)
    s.note("Someone turned the camera back: boards come as they stand while rotated is on.")
    s.rotated = False
    s.board(apply(rows, legal(rows, "p")[0]), "b")
    s.send("set rotated off")
    s.note("An endgame with free back rows: a move seen turned round is no bad board, only an")
    s.note("unexplained one; the class word says what it is.")
    rows = rows_of({"C3": "b", "D6": "b", "F2": "p", "E5": "p"})
    s.send(f"position {rows} p")
    s.board(rotate(apply(rows, legal(rows, "p")[0])), "b")
    s.note("Mirrored, it is a bad board that nothing fits: the daemon asks.")
    s.board(mirror(rows_of({"C3": "b", "D6": "b", "F2": "p", "E7": "p"})), "b")
    s.close()


if __name__ == "__main__":
    which = sys.argv[1:] or ["full_game", "unchanged", "multi_jumps", "crowning", "game_over",
                             "misreads", "arm_failure", "garbage", "colour_only", "rotated", "fen",
                             "diagnosis", "levels", "analysis", "takeback", "history", "orientation"]
    for w in which:
        globals()[w]()
