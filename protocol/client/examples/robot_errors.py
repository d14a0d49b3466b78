"""Error replies are exceptions that carry the code, the message and the squares it names."""

from checkersbot_client import (ArmIncompleteError, BotMove, Engine, EngineError,
                                IllegalTransitionError, Move, Position)

START = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_"
PERSON_PLAYED = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/_p______/p___p_p_/_p_p_p_p/p_p_p_p_"

with Engine.popen(["checkersbot", "serve", "--depth", "4", "--movetime", "0", "--book", "off"]) as engine:
    engine.newgame()
    engine.board(START, "p")
    reply = engine.board(PERSON_PLAYED, "p")
    assert isinstance(reply, BotMove)
    print(f"bot: {reply.move}")
    try:  # the camera fires before the arm has moved
        engine.board(PERSON_PLAYED, "p")
    except ArmIncompleteError as e:
        print(f"{e.code}: squares {e.squares}")
    done = Position(PERSON_PLAYED, "b").after(reply.move)  # the arm made the move
    print(type(engine.board(done.rows, "p")).__name__)
    backwards = done.after(Move(["E1", "F2"]))  # the person moves a man backwards
    try:
        engine.board(backwards.rows, "p")
    except IllegalTransitionError as e:
        print(f"{e.code} ({e.reason}): squares {e.squares}")
    try:
        engine.configure({"level": "champion"})
    except EngineError as e:  # every error reply is an EngineError
        print(f"{type(e).__name__} {e.code}: {e.message}")
