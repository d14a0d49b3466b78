#!/usr/bin/env python3
"""pydraughts drives `checkersbot hub` through its own HubEngine, and referees.

Usage: hub_games.py CHECKERSBOT_BINARY

1. A whole game, pydraughts' HubEngine (`checkersbot hub`, White) against checkersbot's daemon
   (`checkersbot serve`, which plays Black, the top side) from the start.
2. A small match of a few games the same way, from 2 random opening plies, both engines at 30 ms.
3. A whole game of `checkersbot hub` against `checkersbot hub`, so that the Hub engine plays Black
   too.
Every move is checked against pydraughts' legal moves (its own rules) before it is played; a game
ends when pydraughts or the daemon says so, or is called a draw at 200 plies. Prints one line a
game and exits 0 when every game was played through; exits 1 on any fault, 3 when pydraughts is
missing (`pip install pydraughts==0.6.7`).
"""
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "common"))
from daemon_pipe import Daemon  # noqa: E402

try:
    import draughts
    from draughts import Board, Move
    from draughts.engine import Limit
    from draughts.engines.hub import HubEngine
except ImportError:
    print("pydraughts is not installed", file=sys.stderr)
    sys.exit(3)

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/checkersbot"
MAX_PLIES = 200


def pdn_to_coord(n):
    """PDN square number (8x8) to checkersbot's (row, col)."""
    r, k = divmod(n - 1, 4)
    return r, 2 * k + 1 if r % 2 == 0 else 2 * k


def coord_to_pdn(name):
    """`C5` to its PDN square number."""
    r = ord(name[0]) - ord("A")
    c = int(name[1:])
    return r * 4 + c // 2 + 1


def rows_of(board):
    """The board as checkersbot's rows: pydraughts' english Hub position is seen from the other
    side with the colours' names swapped (Hub square h is PDN square 33 - h)."""
    fen = board._game.get_fen()
    grid = [["_"] * 8 for _ in range(8)]
    for h, ch in enumerate(fen[1:], 1):
        if ch == "e":
            continue
        r, c = pdn_to_coord(33 - h)
        grid[r][c] = {"w": "b", "W": "B", "b": "p", "B": "P"}[ch]
    return "/".join("".join(row) for row in grid)


def legal_move(board, steps):
    """The legal move whose path is `steps` (PDN numbers), else None."""
    for m in board.legal_moves():
        if m.steps_move == steps or (m.steps_move[0] == steps[0] and m.steps_move[-1] == steps[-1]
                                      and len(steps) == 2 and not m.captures):
            return m
    for m in board.legal_moves():
        if m.steps_move == steps:
            return m
    return None


def hub_move(engine, board, movetime):
    result = engine.play(board, Limit(movetime=movetime), ponder=False)
    move = result.move
    legal = [m.board_move for m in board.legal_moves()]
    if move.board_move not in legal:
        raise RuntimeError(f"hub move {move.hub_move} is not legal; legal: {[m.hub_move for m in board.legal_moves()]}")
    return move


def hub_against_serve(label, movetime, openings, seed):
    rng = random.Random(seed)
    board = Board("english")
    engine = HubEngine([BIN, "hub", "--egdb", "off"])
    engine.init()
    engine.configure({"variant": "english"})
    daemon = Daemon(BIN, int(movetime * 1000))
    try:
        for _ in range(openings):
            board.push(rng.choice(board.legal_moves()))
        if openings:
            history = " ".join(m.pdn_move for m in board.move_stack)
            reply = daemon.ask(f"position start b moves {history}")
            if reply != "ok":
                raise RuntimeError(f"position: {reply}")
        else:
            daemon.ask("newgame")
        plies = len(board.move_stack)
        result = "draw (200 plies)"
        while plies < MAX_PLIES:
            if board.is_over():
                result = {draughts.WHITE: "hub (White) won", draughts.BLACK: "serve (Black) won"}.get(
                    board.winner(), "draw")
                break
            if board.turn == draughts.BLACK:  # the daemon's side, b
                reply = daemon.ask(f"board {rows_of(board)} b")
                words = reply.split()
                if words[0] == "gameover":
                    result = f"daemon: {reply}"
                    break
                if words[0] != "move":
                    raise RuntimeError(f"daemon answered {reply!r} at ply {plies}")
                path = []
                for w in words[1:]:
                    if w in ("captures", "crown"):
                        break
                    path.append(coord_to_pdn(w))
                move = legal_move(board, path)
                if move is None:
                    raise RuntimeError(f"daemon's move {reply} is not legal for pydraughts")
                board.push(move)
                plies += 1
                # The board after the daemon's move: `unchanged`, or `gameover` if it ended the game.
                seen = daemon.ask(f"board {rows_of(board)} b")
                if seen.startswith("gameover"):
                    result = f"daemon: {seen}"
                    break
                if seen != "unchanged":
                    raise RuntimeError(f"daemon answered {seen!r} to the board after its move")
                continue
            else:
                move = hub_move(engine, board, movetime)
            board.push(move)
            plies += 1
        print(f"{label}: {plies} plies, {result}")
    finally:
        engine.quit()
        engine.kill_process()
        daemon.close()


def hub_against_hub(movetime):
    board = Board("english")
    engines = {}
    for colour in (draughts.WHITE, draughts.BLACK):
        e = HubEngine([BIN, "hub", "--egdb", "off"])
        e.init()
        e.configure({"variant": "english"})
        engines[colour] = e
    try:
        plies = 0
        while not board.is_over() and plies < MAX_PLIES:
            board.push(hub_move(engines[board.turn], board, movetime))
            plies += 1
        print(f"hub against hub: {plies} plies, winner {board.winner()}")
    finally:
        for e in engines.values():
            e.quit()
            e.kill_process()


def main():
    try:
        hub_against_serve("hub (White) against serve (Black), from the start", 0.05, 0, 1)
        for game in range(3):
            hub_against_serve(f"match game {game + 1}, 2 random plies", 0.03, 2, 100 + game)
        hub_against_hub(0.03)
    except Exception as e:  # report every fault as a test failure with its reason
        print(f"FAILED: {e}")
        return 1
    print("all games played through")
    return 0


if __name__ == "__main__":
    sys.exit(main())
