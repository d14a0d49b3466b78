"""A client for the checkersbot daemon protocol (protocol/PROTOCOL.md), in the manner of
python-chess's `chess.engine`::

    from checkersbot_client import Engine, Limit, Position

    with Engine.popen(["checkersbot", "serve"]) as engine:
        result = engine.play(Position.start("b"), Limit(time=0.5))
        print(result.move)                      # C5 D4

`Engine.popen`, `Engine.tcp` and `Engine.serial` open a link; `board` is the robot's call (the
board the camera sees, answered with the bot's move, `Unchanged`, `Wait` or `GameOver`);
`play`, `analyse`, `analysis` and `hint` search; `legal_moves` lists a position's moves;
`options` and `configure` read and set the options; `status`, `ping` and `stop` work from any
thread at any time; every `error CODE ...` reply is raised as an `EngineError` subclass.
`AsyncEngine` is the same for asyncio. Only the standard library is needed (pyserial for serial
links).
"""

from ._aio import AsyncAnalysis, AsyncEngine
from ._engine import Analysis, Engine, EngineId, InfoCallback, OptionValue, Reply
from ._errors import (ERROR_CLASSES, ArmIncompleteError, BadBoardError, BadFenError,
                      BadOptionError, BadPdnError, BusyError, CheckersbotError, EngineBusyError,
                      EngineError,
                      EngineTerminatedError, EngineTimeoutError, GameOverError,
                      IllegalMoveError, IllegalTransitionError, InternalEngineError, MisreadError,
                      LineTooLongError, NoGameError, NothingToRepeatError,
                      NothingToTakeBackError, NotPersonsTurnError, NotUtf8Error, ProtocolError,
                      SyntaxReplyError, TakenOverError, UnauthorizedError,
                      UnknownCommandError)
from ._types import (START_8X8, BoardReply, BoolOption, BotMove, ChoiceOption, GameOver, Hint,
                     Info, IntOption, Limit, Move, MoveText, Option, PlayResult, Position,
                     PovScore, Score, Setup, Status, StringOption, Unchanged, Wait, other_side,
                     parse_board_reply, parse_option, rotate_square)

__version__ = "0.1.0"

__all__ = [
    "Analysis", "AsyncAnalysis", "AsyncEngine", "Engine", "EngineId", "InfoCallback",
    "OptionValue", "Reply",
    "ERROR_CLASSES", "ArmIncompleteError", "BadBoardError", "BadFenError", "BadOptionError",
    "BadPdnError", "BusyError", "CheckersbotError", "EngineBusyError", "EngineError",
    "EngineTerminatedError",
    "EngineTimeoutError", "GameOverError", "IllegalMoveError", "IllegalTransitionError", "MisreadError",
    "InternalEngineError", "LineTooLongError", "NoGameError", "NothingToRepeatError",
    "NothingToTakeBackError", "NotPersonsTurnError", "NotUtf8Error", "ProtocolError",
    "SyntaxReplyError", "TakenOverError", "UnauthorizedError", "UnknownCommandError",
    "START_8X8", "BoardReply", "BoolOption", "BotMove", "ChoiceOption", "GameOver", "Hint",
    "Info", "IntOption", "Limit", "Move", "MoveText", "Option", "PlayResult", "Position",
    "PovScore", "Score", "Setup", "Status", "StringOption", "Unchanged", "Wait", "other_side",
    "parse_board_reply", "parse_option", "rotate_square",
]
