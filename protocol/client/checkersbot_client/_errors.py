"""The exceptions of the client: one class per `error CODE` reply, and the link's own failures."""

from __future__ import annotations

import re
from typing import ClassVar, Dict, List, Optional, Type

_SQUARES = re.compile(r"^([A-Z][0-9]{1,2}(?:,[A-Z][0-9]{1,2})*):\s*")


class CheckersbotError(Exception):
    """Anything this package raises about the daemon or the link to it."""


class EngineError(CheckersbotError):
    """An `error CODE MESSAGE` reply. The daemon's state is unchanged (see PROTOCOL.md).

    `code` is the protocol's error code (`arm-incomplete`, `bad-option`, ...), `message` the rest
    of the line, `squares` the squares the message starts with (`C1,D2: ...` gives `["C1", "D2"]`;
    empty when it names none), `line` the whole reply and `request` the request it answered.
    """

    CODE: ClassVar[str] = ""

    def __init__(self, code: str, message: str, line: str, request: str = "") -> None:
        super().__init__(line or message)
        self.code = code
        self.message = message
        self.line = line
        self.request = request
        found = _SQUARES.match(message)
        self.squares: List[str] = found.group(1).split(",") if found else []

    @staticmethod
    def from_line(line: str, request: str = "") -> "EngineError":
        """The exception for an `error ...` line: the subclass of its code, else `EngineError`."""
        _, _, rest = line.partition(" ")
        code, _, message = rest.partition(" ")
        cls = ERROR_CLASSES.get(code, EngineError)
        error = cls(code, message, line, request)
        if isinstance(error, IllegalTransitionError) and error.reason in ("misread", "ambiguous"):
            return MisreadError(code, message, line, request)
        return error


class SyntaxReplyError(EngineError):
    """`error syntax`: a known command with missing, extra or malformed arguments."""

    CODE = "syntax"


class UnknownCommandError(EngineError):
    """`error unknown-command`."""

    CODE = "unknown-command"


class BadBoardError(EngineError):
    """`error bad-board`: the rows are not a valid board (the message names the square or row)."""

    CODE = "bad-board"


class BadFenError(EngineError):
    """`error bad-fen`."""

    CODE = "bad-fen"


class BadPdnError(EngineError):
    """`error bad-pdn`."""

    CODE = "bad-pdn"


class BadOptionError(EngineError):
    """`error bad-option`: an unknown option or a value out of range (the message says which)."""

    CODE = "bad-option"


class IllegalTransitionError(EngineError):
    """`error illegal-transition`: no legal move of the person explains the board. `squares` are
    those that differ from the expected position; `reason` the class word (`backwards`,
    `capture-ignored`, `misread`, ...)."""

    CODE = "illegal-transition"

    @property
    def reason(self) -> str:
        after = self.message.split(":", 2)
        return after[1].strip() if self.squares and len(after) > 2 else ""


class MisreadError(IllegalTransitionError):
    """`error illegal-transition SQUARES: misread: ...` or `... ambiguous: ...`: the camera
    misread the squares to check, which are `squares` (exactly those: not every square that differs
    from the expected position), alone or in the same frame as a move. `explained_by` is the move
    that explains every other square (`"F4 E5"`; the bot's move when the arm has not made it yet),
    `None` for a misread with no move; `ambiguous` is true when several explanations are equally
    near (the message lists them). Wait for a clean frame: the daemon did not take the board."""

    _EXPLAINED = re.compile(r"^(?:the move|the board before the bot's move) ([A-Z0-9 ]+?) explains")

    @property
    def ambiguous(self) -> bool:
        return self.reason == "ambiguous"

    @property
    def explained_by(self) -> Optional[str]:
        words = self.message.split(": ", 2)
        if len(words) < 3:
            return None
        found = self._EXPLAINED.match(words[2])
        return found.group(1) if found else None


class ArmIncompleteError(EngineError):
    """`error arm-incomplete`: the arm has not finished the bot's last move; `squares` are those
    still to put right. Send the board again when the arm is done."""

    CODE = "arm-incomplete"


class IllegalMoveError(EngineError):
    """`error illegal-move`: a move of a `position ... moves` list or of a PDN game."""

    CODE = "illegal-move"


class LineTooLongError(EngineError):
    """`error line-too-long`."""

    CODE = "line-too-long"


class NotUtf8Error(EngineError):
    """`error not-utf8`."""

    CODE = "not-utf8"


class NoGameError(EngineError):
    """`error no-game`: `board` before any `newgame` or `position`."""

    CODE = "no-game"


class BusyError(EngineError):
    """`error busy`: the engine is searching, analysing or loading, and the request needs it.
    This client raises its subclass `EngineBusyError` itself, without asking the daemon, when
    another of its calls holds the engine."""

    CODE = "busy"


class EngineBusyError(BusyError):
    """A call that needs the engine while another call of this client (from another thread or
    task) holds it: raised at once by the client, which sends nothing (the daemon would answer
    `error busy`). `status()`, `ping()`, `id` and `stop()` are never busy. `line` is empty."""

    def __init__(self, message: str, request: str = "") -> None:
        super().__init__("busy", message, "", request)


class NothingToRepeatError(EngineError):
    """`error nothing-to-repeat`: `repeat` before any final reply."""

    CODE = "nothing-to-repeat"


class GameOverError(EngineError):
    """`error game-over`: a board that differs from the final position of a finished game."""

    CODE = "game-over"


class InternalEngineError(EngineError):
    """`error internal`: a fault inside the daemon (logged there)."""

    CODE = "internal"


class NothingToTakeBackError(EngineError):
    """`error nothing-to-take-back`: the person has not moved in this game."""

    CODE = "nothing-to-take-back"


class NotPersonsTurnError(EngineError):
    """`error not-persons-turn`: `hint` while the bot is to move."""

    CODE = "not-persons-turn"


class EngineTerminatedError(CheckersbotError):
    """The link is gone: the daemon exited, closed the connection, or another client took over.
    The engine object cannot be used any more."""


class TakenOverError(EngineError, EngineTerminatedError):
    """`error taken-over`: over TCP, another client connected and took over this connection."""

    CODE = "taken-over"


class UnauthorizedError(EngineError, EngineTerminatedError):
    """`error unauthorized`: over TCP, the daemon needs its token (`serve --token-file`) and this
    connection did not send it first (`Engine.tcp(..., token=...)`); the connection is closed."""

    CODE = "unauthorized"


class EngineTimeoutError(CheckersbotError, TimeoutError):
    """A call's reply did not come within its `timeout`. The engine stays usable: the late
    reply is recognised and dropped when it comes (the next engine call waits for it first)."""


class ProtocolError(CheckersbotError):
    """The daemon said something this client does not understand."""


ERROR_CLASSES: Dict[str, Type[EngineError]] = {
    cls.CODE: cls
    for cls in (
        SyntaxReplyError, UnknownCommandError, BadBoardError, BadFenError, BadPdnError,
        BadOptionError, IllegalTransitionError, ArmIncompleteError, IllegalMoveError,
        LineTooLongError, NotUtf8Error, NoGameError, BusyError, NothingToRepeatError,
        GameOverError, InternalEngineError, NothingToTakeBackError, NotPersonsTurnError,
        TakenOverError, UnauthorizedError,
    )
}
"""The exception class of each error code; other codes give a plain `EngineError`."""


def error_for(line: str, request: str = "") -> Optional[EngineError]:
    """The exception for `line` when it is an `error` reply, else None."""
    return EngineError.from_line(line, request) if line.startswith("error ") or line == "error" else None
