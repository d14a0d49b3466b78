"""A first game: the person moves, the bot answers with a move for the arm."""

from checkersbot_client import BotMove, Engine, GameOver, Unchanged, Wait

START = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_"
PERSON_PLAYED = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/_p______/p___p_p_/_p_p_p_p/p_p_p_p_"

with Engine.popen(["checkersbot", "serve", "--depth", "6", "--movetime", "0", "--book", "off"]) as engine:
    print(f"connected to {engine.id.name} {engine.id.version} (protocol {engine.id.protocol})")
    engine.newgame()
    for rows in (START, PERSON_PLAYED):  # what the camera sees, one board after the other
        match engine.board(rows, "p"):
            case BotMove(move=move) as reply:
                print(f"the person played {reply.opponent}")
                print(f"arm: move {' -> '.join(move.path)}, remove {move.captures}, "
                      f"crown: {move.crown}")
                deepest = reply.info[-1]
                assert deepest.score is not None
                print(f"depth {deepest.depth}, score {deepest.score.bot()} (the bot's point of view)")
            case Unchanged():
                print("the person is to move")
            case Wait(kind=kind, squares=squares):
                print(f"the person is still moving ({kind} {squares})")
            case GameOver(result=result, winner=winner, reason=reason):
                print(f"game over: {result} {winner or ''} {reason}")
