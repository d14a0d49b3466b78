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
could not take while it was down are kept by the daemon and arrive when it is back; over TCP a new
connection never gets the replies meant for an earlier one, and `repeat()` gives the last).

A request may be given a `timeout` (seconds); when it passes, `Timeout` is raised and the client
stays usable: before the next request it resynchronises with `ping TOKEN` (a barrier: every reply
to an earlier request comes before its `pong TOKEN`), dropping the late reply. A TCP client does
the same when it connects.
"""

from __future__ import annotations

import itertools
import os
import select
import socket
import subprocess
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

FINAL_WORDS = ("ok", "pong", "hello", "move", "unchanged", "wait", "gameover", "bye", "error",
               "hint", "expect")
# Lines that come before a final reply: search progress, the `options` list, `analyse` lines.
INFO_WORDS = ("info", "option", "line")


class ProtocolError(Exception):
    """The daemon said something this client does not understand, or the link closed."""


class Timeout(ProtocolError):
    """No final reply came in time. The client resynchronises before its next request."""


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


class _Lines:
    """Line I/O over a byte stream pair; `receive` can wait for at most a given time."""

    def __init__(self, reader, writer, closer):
        self._reader = reader
        self._writer = writer
        self._closer = closer

    def send(self, line: str) -> None:
        self._writer.write(line.encode("ascii", "backslashreplace") + b"\n")
        self._writer.flush()

    def receive(self, timeout: Optional[float] = None) -> str:
        # A serial port applies its own time-out (the one it was opened with).
        raw = self._reader.readline()
        if not raw:
            raise ProtocolError("the daemon closed the link")
        if not raw.endswith(b"\n"):
            raise Timeout("no complete line in time")
        return raw.decode("ascii", "backslashreplace").rstrip("\r\n")

    def close(self) -> None:
        self._closer()


class _FdLines(_Lines):
    """Line I/O over a descriptor (a pipe or a socket) with its own buffer, so that a read that
    times out loses nothing and the next one goes on where it stopped."""

    def __init__(self, fd: int, write, closer, recv=None):
        super().__init__(None, None, closer)
        self._fd = fd
        self._write = write
        self._recv = recv or (lambda: os.read(fd, 65536))
        self._buf = bytearray()

    def send(self, line: str) -> None:
        self._write(line.encode("ascii", "backslashreplace") + b"\n")

    def receive(self, timeout: Optional[float] = None) -> str:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            i = self._buf.find(b"\n")
            if i >= 0:
                raw = bytes(self._buf[:i])
                del self._buf[:i + 1]
                return raw.decode("ascii", "backslashreplace").rstrip("\r")
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self._fd], [], [], left)
            if not ready:
                raise Timeout(f"no reply within {timeout} s")
            chunk = self._recv()
            if not chunk:
                raise ProtocolError("the daemon closed the link")
            self._buf += chunk


_tokens = itertools.count(1)


class Client:
    """One connection to a checkersbot daemon."""

    def __init__(self, lines: _Lines):
        self._lines = lines
        # A request timed out: its late reply must be dropped before the next request.
        self._behind = False

    @staticmethod
    def spawn(argv: List[str]) -> "Client":
        """Starts `argv` (a `checkersbot serve` command line) and talks to it over its pipes.
        Its stderr (the logs) is left to the caller's stderr."""
        child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

        def close():
            if child.stdin:
                child.stdin.close()
            child.wait(timeout=30)

        def write(data: bytes) -> None:
            child.stdin.write(data)
            child.stdin.flush()

        return Client(_FdLines(child.stdout.fileno(), write, close))

    @staticmethod
    def serial(path: str, baud: int = 115200, timeout: float = 60.0) -> "Client":
        """Opens a serial port, 8N1, no flow control (as `serve --serial` expects)."""
        import serial  # pyserial, imported here so the other links need no extra package

        port = serial.Serial(path, baudrate=baud, timeout=timeout)
        return Client(_Lines(port, port, port.close))

    @staticmethod
    def tcp(host: str, port: int, timeout: float = 60.0) -> "Client":
        """Connects to a daemon listening on TCP and synchronises with it (`ping TOKEN`): a
        connection that another client takes over later is told so with `error taken-over`."""
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.settimeout(None)

        def close():
            sock.close()

        client = Client(_FdLines(sock.fileno(), sock.sendall, close, lambda: sock.recv(65536)))
        client.resync(timeout)
        return client

    def resync(self, timeout: Optional[float] = 60.0) -> None:
        """Sends `ping TOKEN` with a fresh token and drops every line before its `pong TOKEN`:
        afterwards the next line read answers the next request."""
        token = f"sync-{os.getpid()}-{next(_tokens)}"
        self._lines.send(f"ping {token}")
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if self._lines.receive(left) == f"pong {token}":
                self._behind = False
                return

    def request(self, line: str, timeout: Optional[float] = None) -> Reply:
        """Sends one request line and returns its final reply (with the info lines before it).
        With `timeout` (seconds), raises `Timeout` when the reply has not come by then; the
        next request resynchronises first."""
        if self._behind:
            self.resync()
        self._lines.send(line)
        deadline = None if timeout is None else time.monotonic() + timeout
        infos: List[str] = []
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                got = self._lines.receive(left)
            except Timeout:
                self._behind = True
                raise
            if got.split(" ", 1)[0] in INFO_WORDS:
                infos.append(got)
                continue
            return Reply.parse(got, infos)

    def hello(self) -> Reply:
        return self.request("hello")

    def ping(self, token: Optional[str] = None) -> Reply:
        """`pong`, or `pong TOKEN` for `ping TOKEN` (letters, digits, `-_.:`, up to 64)."""
        return self.request("ping" if token is None else f"ping {token}")

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

    def quit(self) -> Reply:
        reply = self.request("quit")
        self._lines.close()
        return reply

    def close(self) -> None:
        self._lines.close()
