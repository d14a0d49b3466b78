"""A small client for the checkersbot daemon protocol (protocol/PROTOCOL.md), for integrators.

It speaks to `checkersbot serve` over one of three links:

    Client.spawn(["checkersbot", "serve", "--movetime", "1000"])   # a child process, over pipes
    Client.serial("/dev/ttyUSB0", baud=115200)                     # a serial port (needs pyserial)
    Client.tcp("127.0.0.1", 7878)                                  # a TCP socket

and turns each request into one call that returns its final reply, with the `info` lines that came
before it:

    bot = Client.spawn(["./target/release/checkersbot", "serve"])
    bot.newgame()
    reply = bot.board("_b_b_b_b/b_b_b_b_/...", "b")
    if reply.kind == "move":
        arm.execute(reply.move.path, reply.move.captures, reply.move.crown)

Only the standard library is needed, except for serial links (`pip install pyserial`). The protocol
promises exactly one final reply per request; `request` reads lines until it has it. After a
restart of the arm controller, `repeat()` asks for the last final reply again (replies the link
could not take while it was down are kept by the daemon and arrive when it is back).
"""

from __future__ import annotations

import re
import socket
import subprocess
from dataclasses import dataclass, field
from typing import Dict, List, Optional

FINAL_WORDS = ("ok", "pong", "hello", "move", "unchanged", "wait", "gameover", "bye", "error",
               "hint", "expect", "status")
# Lines that come before a final reply: search progress, the `options` list, `analyse` lines.
INFO_WORDS = ("info", "option", "line")


class ProtocolError(Exception):
    """The daemon said something this client does not understand, or the link closed."""


@dataclass
class Move:
    """A move for the arm: every square the piece stands on, the pieces to remove, crowning."""

    path: List[str]
    captures: List[str] = field(default_factory=list)
    crown: bool = False

    @staticmethod
    def parse(words: List[str]) -> "Move":
        """Reads `PATH [captures SQUARES] [crown]` (the words after `move` or `info opponent`)."""
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

    def __str__(self) -> str:
        text = " ".join(self.path)
        if self.captures:
            text += " captures " + " ".join(self.captures)
        if self.crown:
            text += " crown"
        return text


@dataclass
class Reply:
    """A final reply and the `info` lines before it.

    `kind` is its first word (`ok`, `pong`, `hello`, `move`, `unchanged`, `wait`, `gameover`,
    `bye`, `error`); `words` the rest. For `move`, `move` holds the parsed move; for `error`, `code` and
    `message`; `opponent` is the person's move the daemon inferred (from `info opponent`), if any.
    """

    kind: str
    words: List[str]
    infos: List[str]
    line: str
    move: Optional[Move] = None
    code: Optional[str] = None
    message: Optional[str] = None
    opponent: Optional[Move] = None

    @staticmethod
    def parse(line: str, infos: List[str]) -> "Reply":
        words = line.split()
        if not words or words[0] not in FINAL_WORDS:
            raise ProtocolError(f"not a final reply: {line!r}")
        reply = Reply(words[0], words[1:], infos, line)
        if reply.kind in ("move", "hint"):
            reply.move = Move.parse(reply.words)
        elif reply.kind == "error":
            reply.code = reply.words[0] if reply.words else "unknown"
            reply.message = " ".join(reply.words[1:])
        for info in infos:
            parts = info.split()
            if parts[:2] == ["info", "opponent"]:
                reply.opponent = Move.parse(parts[2:])
        return reply


_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})|\\u\{([0-9a-fA-F]+)\}")


def unescape(token: str) -> str:
    """A value of a `status` line as it was: `\\x20` is a blank, `\\x5c` a backslash, `\\u{e9}`
    an e with an acute accent (protocol/PROTOCOL.md, "Status")."""
    return _ESCAPE.sub(lambda m: chr(int(m.group(1) or m.group(2), 16)), token)


def parse_status(line: str) -> Dict[str, Optional[str]]:
    """Reads a `status KEY VALUE ... diagnosis TEXT` line into {key: value}; `none` becomes None.
    Values are unescaped; `diagnosis` is the rest of the line. Keys this client does not know are
    kept as they come (newer daemons may add some)."""
    words = line.split(" ")
    if not words or words[0] != "status":
        raise ProtocolError(f"not a status line: {line!r}")
    out: Dict[str, Optional[str]] = {}
    i = 1
    while i + 1 < len(words):
        key = words[i]
        if key == "diagnosis":
            rest = " ".join(words[i + 1:])
            out[key] = None if rest == "none" else rest
            break
        value = words[i + 1]
        out[key] = None if value == "none" else unescape(value)
        i += 2
    if "state" not in out:
        raise ProtocolError(f"a status line without state: {line!r}")
    return out


class _Lines:
    """Line I/O over a byte stream pair."""

    def __init__(self, reader, writer, closer):
        self._reader = reader
        self._writer = writer
        self._closer = closer

    def send(self, line: str) -> None:
        self._writer.write(line.encode("ascii", "backslashreplace") + b"\n")
        self._writer.flush()

    def receive(self) -> str:
        raw = self._reader.readline()
        if not raw:
            raise ProtocolError("the daemon closed the link")
        return raw.decode("ascii", "backslashreplace").rstrip("\r\n")

    def close(self) -> None:
        self._closer()


class Client:
    """One connection to a checkersbot daemon."""

    def __init__(self, lines: _Lines):
        self._lines = lines

    @staticmethod
    def spawn(argv: List[str]) -> "Client":
        """Starts `argv` (a `checkersbot serve` command line) and talks to it over its pipes.
        Its stderr (the logs) is left to the caller's stderr."""
        child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

        def close():
            if child.stdin:
                child.stdin.close()
            child.wait(timeout=30)

        return Client(_Lines(child.stdout, child.stdin, close))

    @staticmethod
    def serial(path: str, baud: int = 115200, timeout: float = 60.0) -> "Client":
        """Opens a serial port, 8N1, no flow control (as `serve --serial` expects)."""
        import serial  # pyserial, imported here so the other links need no extra package

        port = serial.Serial(path, baudrate=baud, timeout=timeout)
        return Client(_Lines(port, port, port.close))

    @staticmethod
    def tcp(host: str, port: int, timeout: float = 60.0) -> "Client":
        """Connects to a daemon listening on TCP."""
        sock = socket.create_connection((host, port), timeout=timeout)
        stream = sock.makefile("rwb")

        def close():
            stream.close()
            sock.close()

        return Client(_Lines(stream, stream, close))

    def request(self, line: str) -> Reply:
        """Sends one request line and returns its final reply (with the info lines before it)."""
        self._lines.send(line)
        infos: List[str] = []
        while True:
            got = self._lines.receive()
            if got.split(" ", 1)[0] in INFO_WORDS:
                infos.append(got)
                continue
            return Reply.parse(got, infos)

    def hello(self) -> Reply:
        return self.request("hello")

    def ping(self) -> Reply:
        return self.request("ping")

    def set(self, option: str, value) -> Reply:
        return self.request(f"set {option} {value}")

    def newgame(self, layout: Optional[str] = None) -> Reply:
        return self.request("newgame" if layout is None else f"newgame {layout}")

    def position(self, rows: str, side: str) -> Reply:
        return self.request(f"position {rows} {side}")

    def board(self, rows: str, side: str) -> Reply:
        """The board the camera sees (`side`: the side to move if the daemon cannot know it)."""
        return self.request(f"board {rows} {side}")

    def repeat(self) -> Reply:
        """The last final reply again (e.g. the last `move` after the arm controller restarted);
        `error nothing-to-repeat` before any. A move still being searched is not repeated: it
        follows on its own."""
        return self.request("repeat")

    def options(self) -> Dict[str, Dict[str, str]]:
        """Every option: {name: {"type": ..., "default": ..., "value": ..., and "min"/"max" or
        "choices"}} from the `option` lines of the `options` request."""
        out: Dict[str, Dict[str, str]] = {}
        for line in self.request("options").infos:
            head, _, value = line.partition(" value ")
            words = head.split()
            fields = dict(zip(words[2::2], words[3::2]))
            fields["value"] = value
            out[words[1]] = fields
        return out

    def analyse(self, lines: int, position: Optional[str] = None) -> List[str]:
        """The best `lines` moves (`line K depth D score S pv ...`) of the game's position, or of
        `position` (`ROWS SIDE`, `fen FEN` or `start SIDE`); the game is not touched."""
        req = f"analyse {lines}" if position is None else f"analyse {lines} {position}"
        reply = self.request(req)
        if reply.kind != "ok":
            raise ProtocolError(reply.line)
        return [i for i in reply.infos if i.startswith("line ")]

    def hint(self) -> Reply:
        """The person's best move (`reply.move`), or an error when it is not their turn."""
        return self.request("hint")

    def takeback(self) -> Reply:
        """Takes back the person's last move and the bot's reply; `expect ROWS SIDE` says the
        board to restore."""
        return self.request("takeback")

    def status(self) -> Dict[str, Optional[str]]:
        """What the daemon believes, changing nothing: {"state": "person", "position": ROWS,
        "side": "p", "expect": ROWS or None, "seen": ROWS or None, "plies": "3", ...,
        "diagnosis": the last board's error or wait reply, or None}. See PROTOCOL.md, "Status"."""
        reply = self.request("status")
        if reply.kind != "status":
            raise ProtocolError(reply.line)
        return parse_status(reply.line)

    def quit(self) -> Reply:
        reply = self.request("quit")
        self._lines.close()
        return reply

    def close(self) -> None:
        self._lines.close()
