"""The values of the protocol as dataclasses: moves, scores, search info, positions, limits,
options and the replies to `board`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._errors import ProtocolError

START_8X8 = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_"
"""The rows of the standard 8x8 start (the bot's men on top)."""


def _square(name: str) -> Tuple[int, int]:
    if len(name) < 2 or not name[0].isupper() or not name[1:].isdigit():
        raise ProtocolError(f"not a square: {name!r}")
    return ord(name[0]) - ord("A"), int(name[1:])


def rotate_square(name: str, size: int) -> str:
    """The square seen from the other side of a `size` x `size` board (rotated 180 degrees)."""
    row, col = _square(name)
    return f"{chr(ord('A') + size - 1 - row)}{size - 1 - col}"


def other_side(side: str) -> str:
    """`p` for `b` and `b` for `p`."""
    if side not in ("b", "p"):
        raise ValueError(f"a side is b or p, not {side!r}")
    return "p" if side == "b" else "b"


@dataclass
class Move:
    """A move for the arm: every square the piece stands on (`path`: the start and each landing
    square), the pieces to remove in jump order (`captures`), and whether it is crowned."""

    path: List[str]
    captures: List[str] = field(default_factory=list)
    crown: bool = False

    @staticmethod
    def parse(words: List[str]) -> "Move":
        """Reads `PATH [captures SQUARES] [crown]` (the words after `move`, `hint` or `info
        opponent`)."""
        path: List[str] = []
        captures: List[str] = []
        crown = False
        target = path
        for w in words:
            if w == "captures":
                target = captures
            elif w == "crown":
                crown = True
            else:
                target.append(w)
        if len(path) < 2:
            raise ProtocolError(f"a move needs at least two squares: {' '.join(words)!r}")
        return Move(path, captures, crown)

    def rotated(self, size: int) -> "Move":
        """The same move seen from the other side of the board."""
        return Move([rotate_square(s, size) for s in self.path],
                    [rotate_square(s, size) for s in self.captures], self.crown)

    def __str__(self) -> str:
        text = " ".join(self.path)
        if self.captures:
            text += " captures " + " ".join(self.captures)
        if self.crown:
            text += " crown"
        return text

    def text(self) -> str:
        """The move as `position ... moves` takes it: its path joined by `-` (`E5-C3-A1`)."""
        return "-".join(self.path)


MoveText = Union[Move, str]
"""A move of a game's history: a `Move`, or its text as `position ... moves` takes it (a path
joined by `-` or `x`, `"F2-E3"`, `"E5xC3xA1"`; on 8x8 also PDN numbers, `"22-18"`)."""


def move_text(move: MoveText) -> str:
    """The text of a history move (`Move.text()` for a `Move`)."""
    if isinstance(move, Move):
        return move.text()
    if not move or any(c.isspace() for c in move):
        raise ValueError(f"a move is one word: {move!r}")
    return move


def rotate_move_text(move: MoveText, size: int) -> str:
    """A history move seen from the other side of the board: each square rotated by 180
    degrees (a PDN number `n` becomes `size * size / 2 + 1 - n`)."""
    out: List[str] = []
    for part in re.split(r"([-x])", move_text(move)):
        if part in ("-", "x"):
            out.append(part)
        elif part.isdigit():
            out.append(str(size * size // 2 + 1 - int(part)))
        else:
            out.append(rotate_square(part, size))
    return "".join(out)


_NEGATED = {"cp": "cp", "win": "loss", "loss": "win", "dbwin": "dbloss", "dbloss": "dbwin"}


@dataclass(frozen=True)
class Score:
    """A search score from one side's point of view (which side: see `PovScore`). `kind` is `cp`
    (hundredths of a man), `win`/`loss` (plies to the end, by search) or `dbwin`/`dbloss` (from
    the endgame database: plies to the next conversion, 300 or more when the database knows the
    result but not the distance); `value` the number. `-score` is the other side's view."""

    kind: str
    value: int

    @property
    def cp(self) -> Optional[int]:
        """The centipawn-like value (hundredths of a man), or None for a win or loss."""
        return self.value if self.kind == "cp" else None

    @property
    def is_win(self) -> bool:
        return self.kind in ("win", "dbwin")

    @property
    def is_loss(self) -> bool:
        return self.kind in ("loss", "dbloss")

    @property
    def plies(self) -> Optional[int]:
        """Plies to the win or loss (to the next conversion for the database), None for `cp`."""
        return None if self.kind == "cp" else self.value

    @property
    def from_database(self) -> bool:
        return self.kind in ("dbwin", "dbloss")

    def __neg__(self) -> "Score":
        """The same score from the other side: `cp 30` is `cp -30`, `win 7` is `loss 7`."""
        return Score(_NEGATED[self.kind], -self.value if self.kind == "cp" else self.value)

    def __str__(self) -> str:
        return f"{self.kind} {self.value}"


@dataclass(frozen=True)
class PovScore:
    """A score with its point of view, as python-chess's `PovScore`. The daemon scores every
    search from the side to move in the position searched (`turn`): the bot's own searches
    (`board`, `play` for the top side) from the bot's, a `hint` from the person's, an
    `analyse` from the side to move in its position. `relative` is that view; `pov(side)`,
    `bot()` and `person()` give a fixed one (as python-chess's `white()` and `black()`)."""

    relative: Score
    turn: str

    def pov(self, side: str) -> Score:
        """The score from `side`'s point of view (`b`, the bot, or `p`, the person)."""
        return self.relative if side == self.turn else -self.relative

    def bot(self) -> Score:
        """The score from the bot's point of view (the top side, `b`)."""
        return self.pov("b")

    def person(self) -> Score:
        """The score from the person's point of view (the bottom side, `p`)."""
        return self.pov("p")

    def __neg__(self) -> "PovScore":
        """The same score seen from the other side to move."""
        return PovScore(-self.relative, other_side(self.turn))

    def __str__(self) -> str:
        return f"{self.relative} ({self.turn} to move)"


def _path(text: str) -> List[str]:
    return text.replace("x", "-").split("-")


def _parse_score(words: List[str], i: int, line: str) -> Score:
    if i + 1 >= len(words) or words[i] not in ("cp", "win", "loss", "dbwin", "dbloss"):
        raise ProtocolError(f"bad score in {line!r}")
    try:
        return Score(words[i], int(words[i + 1]))
    except ValueError:
        raise ProtocolError(f"bad score in {line!r}") from None


@dataclass
class Info:
    """One search report (`info depth ...` before a move or a hint, a `line` of `analyse`, or an
    `info line ...` of a running `analysis`). `score` is a `PovScore` (its `turn` the side to
    move in the position searched); `time` is in seconds; `nodes`, `time`, `nps` and `egdb` are
    None when the daemon left them out (replay mode, or no database hit); `pv` is the principal
    variation, each move as its path of squares; `book` marks a move from the opening book.
    `multipv` is the line's rank (1 is best) for `analyse`, else 1."""

    depth: int
    score: Optional[PovScore]
    pv: List[List[str]]
    nodes: Optional[int] = None
    time: Optional[float] = None
    nps: Optional[int] = None
    egdb: Optional[int] = None
    multipv: int = 1
    line: str = ""
    book: bool = False

    @staticmethod
    def parse(line: str, turn: str = "b") -> "Info":
        """Reads `info depth D score S [nodes N] [time MS] [nps NPS] [egdb N] [book] pv ...`,
        `info line K depth ...` or `line K depth D score S pv ...`; `turn` is the side to move
        in the position searched (the scores' point of view)."""
        words = line.split()
        info = Info(depth=0, score=None, pv=[], line=line)
        i = 1
        try:
            if words[0] == "line":
                info.multipv = int(words[1])
                i = 2
            elif words[:2] == ["info", "line"]:
                info.multipv = int(words[2])
                i = 3
            while i < len(words):
                key = words[i]
                if key == "pv":
                    info.pv = [_path(m) for m in words[i + 1:]]
                    break
                if key == "score":
                    info.score = PovScore(_parse_score(words, i + 1, line), turn)
                    i += 3
                    continue
                if key == "book":
                    info.book = True
                    i += 1
                    continue
                value = words[i + 1]
                if key == "depth":
                    info.depth = int(value)
                elif key == "nodes":
                    info.nodes = int(value)
                elif key == "time":
                    info.time = int(value) / 1000
                elif key == "nps":
                    info.nps = int(value)
                elif key == "egdb":
                    info.egdb = int(value)
                i += 2
        except (IndexError, ValueError):
            raise ProtocolError(f"cannot read {line!r}") from None
        return info

    def rotated(self, size: int) -> "Info":
        """The report seen from the other side of the board with the colours swapped (as
        `Position.rotated`): the squares turned, the score's side to move the other one."""
        score = None if self.score is None else PovScore(self.score.relative,
                                                          other_side(self.score.turn))
        return Info(self.depth, score,
                    [[rotate_square(s, size) for s in m] for m in self.pv],
                    self.nodes, self.time, self.nps, self.egdb, self.multipv, self.line,
                    self.book)


@dataclass(frozen=True)
class Position:
    """A position as the protocol writes it: `rows` from top to bottom joined by `/` (`_` empty,
    `b`/`B` the bot's man/king, moving down, `p`/`P` the person's), and the side to move (`b` or
    `p`)."""

    rows: str
    side: str

    @staticmethod
    def start(side: str = "b") -> "Position":
        """The standard 8x8 start with `side` to move."""
        return Position(START_8X8, side)

    @staticmethod
    def parse(words: Sequence[str]) -> "Position":
        if len(words) != 2 or words[1] not in ("b", "p"):
            raise ProtocolError(f"not ROWS SIDE: {' '.join(words)!r}")
        return Position(words[0], words[1])

    @property
    def size(self) -> int:
        return len(self.rows.split("/"))

    def rotated(self) -> "Position":
        """The same position seen from the other side with the colours swapped: the person's
        pieces become the bot's. A position with `p` to move becomes one with `b` to move."""
        swap = {"b": "p", "B": "P", "p": "b", "P": "B"}
        rows = "/".join("".join(swap.get(c, c) for c in reversed(r))
                        for r in reversed(self.rows.split("/")))
        return Position(rows, "b" if self.side == "p" else "p")

    def after(self, move: Move) -> "Position":
        """The position after `move` as the arm (or the person) makes it: the piece goes from the
        path's first square to its last, the captured pieces are removed, a crowned man becomes a
        king, and the other side is to move. The move is not checked."""
        grid = [list(r) for r in self.rows.split("/")]
        (r0, c0), (r1, c1) = _square(move.path[0]), _square(move.path[-1])
        piece = grid[r0][c0]
        grid[r0][c0] = "_"
        for sq in move.captures:
            r, c = _square(sq)
            grid[r][c] = "_"
        grid[r1][c1] = piece.upper() if move.crown else piece
        return Position("/".join("".join(r) for r in grid), "b" if self.side == "p" else "p")

    def __str__(self) -> str:
        return f"{self.rows} {self.side}"


Setup = Union[Position, str]
"""A position for `position`, `analyse` and `legal_moves`: a `Position`, or the protocol's text
for one: `"ROWS SIDE"`, `"fen FEN"`, `"start SIDE"` (and, for `position` and `legal_moves`,
`"pdn TEXT"`)."""


def setup_side(setup: Setup) -> Optional[str]:
    """The side to move in a setup, where its text says it (`ROWS SIDE`, `start SIDE`, `fen
    W:...` is the person, FEN's White; `fen B:...` the bot), else None."""
    if isinstance(setup, Position):
        return setup.side
    words = setup.split()
    if len(words) >= 2 and words[0] == "fen":
        first = words[1][:1].upper()
        return {"W": "p", "B": "b"}.get(first)
    if len(words) == 2 and words[1] in ("b", "p"):
        return words[1]
    return None


def _seconds(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


LIMIT_OPTIONS = ("movetime", "depth", "nodes", "clock")
"""The options a `Limit` sets for its call, and their values meaning no limit."""
NO_LIMIT = {"movetime": "0", "depth": "0", "nodes": "0", "clock": "off"}


@dataclass(frozen=True)
class Limit:
    """How long a search may run, as python-chess's `Limit`: `time` (seconds for the move),
    `depth` (plies), `nodes` (the search's node budget), `clock` (the mover's time left on its
    game clock, seconds) and `inc` (the clock's increment per move, seconds; with `clock` only);
    any of them, and the first reached ends the search. `clock` and `time` exclude each other
    (the daemon's own clock then gives each move its budget). A limit applies to its call only:
    the client sets `movetime`, `depth`, `nodes` and `clock` for it and puts the configured
    values back before the next call that needs them (a configured clock restarts then)."""

    time: Optional[float] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None
    clock: Optional[float] = None
    inc: Optional[float] = None

    def settings(self) -> Dict[str, str]:
        """The values of `movetime` (ms), `depth`, `nodes` and `clock` (`BASE+INC`) as `set`
        takes them, `0` and `off` meaning no limit."""
        if all(v is None for v in (self.time, self.depth, self.nodes, self.clock)):
            raise ValueError("a Limit needs a time, a depth, nodes or a clock")
        if self.time is not None and self.time <= 0:
            raise ValueError(f"Limit time must be above 0, not {self.time}")
        if self.depth is not None and self.depth < 1:
            raise ValueError(f"Limit depth must be at least 1, not {self.depth}")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"Limit nodes must be at least 1, not {self.nodes}")
        if self.clock is not None and self.time is not None:
            raise ValueError("a Limit has a time or a clock, not both")
        if self.clock is not None and self.clock < 0.001:
            raise ValueError(f"Limit clock must be at least 0.001 s, not {self.clock}")
        if self.inc is not None and (self.clock is None or self.inc < 0):
            raise ValueError("Limit inc needs a clock, and is 0 or more")
        ms = 0 if self.time is None else max(1, round(self.time * 1000))
        clock = "off" if self.clock is None else \
            f"{_seconds(self.clock)}+{_seconds(self.inc or 0)}"
        return {"movetime": str(ms), "depth": str(self.depth or 0),
                "nodes": str(self.nodes or 0), "clock": clock}


# --- replies -------------------------------------------------------------------------------


@dataclass
class _Reported:
    """What every reply to a search carries: the final line and the `info` lines before it."""

    line: str
    infos: List[str]

    @property
    def info(self) -> List[Info]:
        """The search reports (`info depth ...`), in order; the last is the deepest. Their scores
        are the bot's (it is the side to move in its search)."""
        return [Info.parse(i, "b") for i in self.infos if i.startswith("info depth ")]

    @property
    def opponent(self) -> Optional[Move]:
        """The person's move the daemon inferred from the board (`info opponent`), if any."""
        for i in self.infos:
            words = i.split()
            if words[:2] == ["info", "opponent"]:
                return Move.parse(words[2:])
        return None

    @property
    def accepted(self) -> Optional[Position]:
        """The board lenient mode took as a new position (`info accepted`), if any."""
        for i in self.infos:
            words = i.split()
            if words[:2] == ["info", "accepted"]:
                return Position.parse(words[2:])
        return None


@dataclass
class BotMove(_Reported):
    """`move ...`: the bot's move for the arm to make. The daemon records it as played."""

    move: Move


@dataclass
class Unchanged(_Reported):
    """`unchanged`: the board is what the daemon expects and the person is to move."""


@dataclass
class Wait(_Reported):
    """`wait CLASS SQUARES: MESSAGE`: the person is part way through a legal move; nothing
    changed. `kind`: `lifted`, `jumping`, `remove-captured` or `crown`."""

    kind: str
    squares: List[str]
    message: str


@dataclass
class GameOver(_Reported):
    """`gameover win b nomoves`, `gameover draw repetition`, ...: `result` is `win` or `draw`,
    `winner` `b`, `p` or None, `reason` `nomoves`, `repetition` or `noprogress`."""

    result: str
    winner: Optional[str]
    reason: str


BoardReply = Union[BotMove, Unchanged, Wait, GameOver]
"""The reply to `board`; errors are raised as exceptions."""


def parse_board_reply(line: str, infos: List[str]) -> BoardReply:
    """The typed reply to a `board` (not an error: those are raised before)."""
    kind, _, rest = line.partition(" ")
    words = rest.split()
    if kind == "move":
        return BotMove(line, infos, Move.parse(words))
    if kind == "unchanged":
        return Unchanged(line, infos)
    if kind == "wait":
        head, _, message = rest.partition(": ")
        parts = head.split()
        squares = parts[1].split(",") if len(parts) > 1 else []
        return Wait(line, infos, parts[0] if parts else "", squares, message)
    if kind == "gameover" and len(words) >= 2:
        if words[0] == "win" and len(words) >= 3:
            return GameOver(line, infos, "win", words[1], words[2])
        return GameOver(line, infos, words[0], None, words[1])
    raise ProtocolError(f"not a reply to board: {line!r}")


@dataclass
class PlayResult:
    """What `play` found, as python-chess's `PlayResult`: the move (None when the side to move
    has none: `gameover` says why), the search reports, and `ponder`: the reply the search
    expects (the second move of the last report's principal variation, as a legal move of
    the position after `move`, from the daemon), or None."""

    move: Optional[Move]
    info: List[Info]
    gameover: Optional[GameOver] = None
    ponder: Optional[Move] = None

    @property
    def score(self) -> Optional[PovScore]:
        """The deepest report's score (`relative`: the mover's point of view), if any."""
        return self.info[-1].score if self.info else None


@dataclass
class Hint:
    """The person's best move (`hint ...`) and the search reports (`score.relative` is the
    person's point of view)."""

    move: Move
    info: List[Info]

    @property
    def score(self) -> Optional[PovScore]:
        return self.info[-1].score if self.info else None


# --- options -------------------------------------------------------------------------------


@dataclass(frozen=True)
class IntOption:
    """`option NAME type int min X max Y default D value V`."""

    name: str
    default: int
    value: int
    min: int
    max: int


@dataclass(frozen=True)
class BoolOption:
    """`option NAME type bool default on|off value on|off`."""

    name: str
    default: bool
    value: bool


@dataclass(frozen=True)
class ChoiceOption:
    """`option NAME type choice choices A,B,... default D value V`."""

    name: str
    default: str
    value: str
    choices: Tuple[str, ...]


@dataclass(frozen=True)
class StringOption:
    """`option NAME type string default D value V` (a path, `off`, a clock ...)."""

    name: str
    default: str
    value: str


Option = Union[IntOption, BoolOption, ChoiceOption, StringOption]


def parse_option(line: str) -> Option:
    """Reads one `option` line (the value runs to the end of the line)."""
    head, sep, value = line.partition(" value ")
    words = head.split()
    if not sep or len(words) < 4 or words[0] != "option" or words[2] != "type":
        raise ProtocolError(f"not an option line: {line!r}")
    name, kind = words[1], words[3]
    fields: Dict[str, str] = dict(zip(words[4::2], words[5::2]))
    default = fields.get("default", "")
    try:
        if kind == "int":
            return IntOption(name, int(default), int(value), int(fields["min"]),
                             int(fields["max"]))
        if kind == "bool":
            return BoolOption(name, default == "on", value == "on")
        if kind == "choice":
            return ChoiceOption(name, default, value, tuple(fields["choices"].split(",")))
    except (KeyError, ValueError):
        raise ProtocolError(f"cannot read {line!r}") from None
    return StringOption(name, default, value)


def _unescape(value: str) -> str:
    """Undoes the status line's escapes: `\\xHH` is the byte HH (a blank is `\\x20`)."""
    out: List[str] = []
    i = 0
    while i < len(value):
        if value.startswith("\\x", i) and i + 4 <= len(value):
            try:
                out.append(chr(int(value[i + 2:i + 4], 16)))
                i += 4
                continue
            except ValueError:
                pass
        out.append(value[i])
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Status:
    """The `status` reply: every `KEY VALUE` pair (`none` read as None), `diagnosis` last and to the
    end of the line. Keys this client does not name are kept in `fields` (newer daemons may add
    some)."""

    fields: Mapping[str, Optional[str]]

    @property
    def state(self) -> str:
        """nogame, start, search, bot, arm, person or over."""
        return self.fields.get("state") or "nogame"

    @property
    def position(self) -> Optional[str]:
        """The position's rows (the board after the person's last move, before the bot's)."""
        return self.fields.get("position")

    @property
    def side(self) -> Optional[str]:
        """The side to move in `position`."""
        return self.fields.get("side")

    @property
    def expect(self) -> Optional[str]:
        """The board the daemon expects next (after the bot's move, while the arm makes it)."""
        return self.fields.get("expect")

    @property
    def seen(self) -> Optional[str]:
        """The last board the camera sent."""
        return self.fields.get("seen")

    @property
    def diagnosis(self) -> Optional[str]:
        """The last board's `error` or `wait` reply, word for word."""
        return self.fields.get("diagnosis")

    @classmethod
    def parse(cls, line: str) -> "Status":
        words = line.split(" ")
        if not words or words[0] != "status":
            raise ProtocolError(f"not a status line: {line!r}")
        fields: Dict[str, Optional[str]] = {}
        i = 1
        while i + 1 < len(words):
            key = words[i]
            if key == "diagnosis":
                rest = " ".join(words[i + 1:])
                fields[key] = None if rest == "none" else rest
                break
            value = words[i + 1]
            fields[key] = None if value == "none" else _unescape(value)
            i += 2
        if "state" not in fields:
            raise ProtocolError(f"a status line without state: {line!r}")
        return cls(fields)

