"""play, analyse with several lines, and a hint for the person."""

from checkersbot_client import Engine, Limit, Position

with Engine.popen(["checkersbot", "serve"]) as engine:
    # The bot's move for either side of any position (this replaces the daemon's game).
    result = engine.play(Position.start("b"), Limit(depth=6))
    print(f"top plays {result.move} (score {result.score})")
    result = engine.play(Position.start("p"), Limit(time=0.2))
    print(f"bottom plays {result.move}")

    # The best three moves, best first; the game is not touched.
    for line in engine.analyse(Position.start("b"), Limit(depth=6), multipv=3):
        pv = " ".join("-".join(m) for m in line.pv)
        print(f"{line.multipv}. depth {line.depth} score {line.score.cp if line.score else None}"
              f" pv {pv}")
    # A FEN position (White, the person, to move with a king and two men against two men).
    best = engine.analyse("fen W:W21,22,K23:B1,2", Limit(depth=8))[0]
    print(f"fen: {best.pv[0]} {best.score}")

    # A hint for the person, in the game.
    engine.newgame()
    engine.board(Position.start().rows, "p")
    hint = engine.hint(Limit(depth=4))
    print(f"hint: {hint.move} (score {hint.score})")
