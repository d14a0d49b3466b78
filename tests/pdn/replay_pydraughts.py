#!/usr/bin/env python3
"""Replays every game of a PDN file with pydraughts (English checkers) and checks each move is legal.

Usage: replay_pydraughts.py FILE.pdn
Prints one line, `replayed G games, M moves`, and exits 0 when every game replays; prints what failed
and exits 1 otherwise; exits 3 when pydraughts is not installed (`pip install pydraughts==0.6.7`).
The test `pdn_is_read_by_pydraughts` in tests/cli_play_match.rs runs it on games checkersbot wrote.
"""
import sys

try:
    from draughts import Board, Move
    from draughts.PDN import PDNReader
except ImportError:
    print("pydraughts is not installed", file=sys.stderr)
    sys.exit(3)


def main(path):
    games = PDNReader(filename=path).games
    moves = 0
    for number, game in enumerate(games, 1):
        fen = game.tags.get("FEN", "startpos")
        board = Board("english", fen)
        for ply, text in enumerate(game.moves, 1):
            legal = board.legal_moves()
            # A multi-jump may be written with every landing square (27x18x11) or only its ends.
            try:
                move = Move(board, pdn_move=text)
            except Exception as e:  # pydraughts raises on a move it cannot place
                print(f"game {number} ply {ply}: {text!r} not read: {e}")
                return 1
            if move.board_move not in [m.board_move for m in legal]:
                names = sorted(m.pdn_move for m in legal)
                print(f"game {number} ply {ply}: {text!r} is not legal here; legal: {names}")
                return 1
            board.push(move)
            moves += 1
        if not game.moves:
            print(f"game {number}: no moves read")
            return 1
    print(f"replayed {len(games)} games, {moves} moves")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
