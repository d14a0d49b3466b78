"""play (with the game's moves, and the reply it expects), analyse with several lines, the legal
moves of a position, and a hint for the person."""

from checkersbot_client import Engine, Limit, Position

with Engine.popen(["checkersbot", "serve", "--book", "off"]) as engine:
    # The move for either side of any position (this replaces the daemon's game).
    result = engine.play(Position.start("b"), Limit(depth=6))
    print(f"top plays {result.move}, expects {result.ponder} (score {result.score})")
    result = engine.play(Position.start("p"), Limit(time=0.2))
    print(f"bottom plays {result.move}")
    # With the game's moves (the daemon sees repetitions), within a node budget.
    result = engine.play(Position.start("b"), Limit(nodes=50000), moves=["C5-D4", "F2-E3"])
    print(f"after C5-D4 F2-E3, top plays {result.move}")

    # The best three moves, best first; the game is not touched. A score has a point of view:
    # `relative` is the side to move's, `bot()` and `person()` a fixed side's.
    for line in engine.analyse(Position.start("p"), Limit(depth=6), multipv=3):
        pv = " ".join("-".join(m) for m in line.pv)
        assert line.score is not None
        print(f"{line.multipv}. depth {line.depth} score {line.score.relative} "
              f"(bot {line.score.bot()}) pv {pv}")
    # A FEN position (White, the person, to move with a king and two men against two men).
    best = engine.analyse("fen W:W21,22,K23:B1,2", Limit(depth=8))[0]
    print(f"fen: {best.pv[0]} {best.score}")

    # Every legal move of a position, from the daemon (the rules stay in one place).
    print("legal:", ", ".join(str(m) for m in engine.legal_moves(Position.start("p"))))

    # A hint for the person, in the game.
    engine.newgame()
    engine.board(Position.start().rows, "p")
    hint = engine.hint(Limit(depth=4))
    print(f"hint: {hint.move} (score {hint.score})")
