"""The synchronous engine: one link to a `checkersbot serve` daemon, one reader thread that owns
its input and hands each line to the call waiting for it."""

from __future__ import annotations

import collections
import importlib
import itertools
import logging
import os
import socket
import subprocess
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import (IO, Any, Callable, Deque, Dict, Iterator, List, Mapping, Optional, Sequence,
                    Tuple, Type, Union)

from ._errors import (EngineError, EngineTerminatedError, EngineTimeoutError, ProtocolError,
                      TakenOverError, error_for)
from ._types import (BoardReply, BotMove, GameOver, Hint, Info, Limit, Move, Option, PlayResult,
                     Position, Setup, IntOption, Status, parse_board_reply, parse_option)

logger = logging.getLogger("checkersbot_client")

FINAL_WORDS = frozenset(("ok", "pong", "hello", "move", "unchanged", "wait", "gameover", "bye",
                         "error", "hint", "expect", "status"))
"""The first words of final replies: every request gets exactly one."""
INFO_WORDS = frozenset(("info", "option", "line"))
"""The first words of the lines that may come before a final reply."""

InfoCallback = Callable[[Info], None]
OptionValue = Union[bool, int, float, str]

_tokens = itertools.count(1)


# --- links ---------------------------------------------------------------------------------


class _Link:
    """A byte stream to the daemon: whole lines out, lines in (b"" at the end)."""

    def write(self, data: bytes) -> None:
        raise NotImplementedError

    def readline(self) -> bytes:
        raise NotImplementedError

    def close(self, timeout: float) -> None:
        raise NotImplementedError


class _PipeLink(_Link):
    def __init__(self, argv: Sequence[str], stderr: Optional[IO[bytes]], cwd: Optional[str],
                 env: Optional[Mapping[str, str]]) -> None:
        self.child = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=stderr, cwd=cwd,
                                      env=None if env is None else dict(env))
        assert self.child.stdin is not None and self.child.stdout is not None
        self._in = self.child.stdin
        self._out = self.child.stdout

    def write(self, data: bytes) -> None:
        self._in.write(data)
        self._in.flush()

    def readline(self) -> bytes:
        return self._out.readline()

    def close(self, timeout: float) -> None:
        try:
            self._in.close()
        except OSError:
            pass
        try:
            self.child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            logger.warning("the daemon did not exit in %s s; killing it", timeout)
            self.child.kill()
            self.child.wait()
        self._out.close()


class _SocketLink(_Link):
    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._file = sock.makefile("rb")

    def write(self, data: bytes) -> None:
        self._sock.sendall(data)

    def readline(self) -> bytes:
        return self._file.readline()

    def close(self, timeout: float) -> None:
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()


class _SerialLink(_Link):
    """A serial port through pyserial, read in short slices so that `close` is seen."""

    def __init__(self, port: Any) -> None:
        self._port = port
        self._buf = bytearray()
        self._closed = False

    def write(self, data: bytes) -> None:
        self._port.write(data)
        self._port.flush()

    def readline(self) -> bytes:
        while not self._closed:
            chunk: bytes = self._port.read_until(b"\n")
            self._buf += chunk
            if self._buf.endswith(b"\n"):
                line = bytes(self._buf)
                self._buf.clear()
                return line
        return b""

    def close(self, timeout: float) -> None:
        self._closed = True
        self._port.close()


# --- replies -------------------------------------------------------------------------------


@dataclass
class Reply:
    """A final reply as it came (for `request` and `repeat`): `kind` is its first word, `words`
    the rest, `infos` the lines before it."""

    line: str
    infos: List[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        return self.line.split(" ", 1)[0]

    @property
    def words(self) -> List[str]:
        return self.line.split()[1:]

    @property
    def move(self) -> Optional[Move]:
        """The move of a `move` or `hint` reply, else None."""
        return Move.parse(self.words) if self.kind in ("move", "hint") else None

    def board_reply(self) -> BoardReply:
        """This reply read as the reply to a `board` (`move`, `unchanged`, `wait`, `gameover`)."""
        return parse_board_reply(self.line, self.infos)


class _Waiter:
    """A request on the wire and what came back for it so far."""

    def __init__(self, request: str, on_info: Optional[InfoCallback] = None) -> None:
        self.request = request
        self.on_info = on_info
        self.infos: List[str] = []
        self.final: Optional[str] = None
        self.done = threading.Event()


def _remaining(deadline: Optional[float]) -> Optional[float]:
    return None if deadline is None else max(0.0, deadline - time.monotonic())


def _deadline(timeout: Optional[float]) -> Optional[float]:
    return None if timeout is None else time.monotonic() + timeout


def _word(value: OptionValue) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _check_text(text: str) -> str:
    if "\n" in text or "\r" in text:
        raise ValueError(f"a request is one line: {text!r}")
    return text


@dataclass(frozen=True)
class EngineId:
    """The daemon's `hello`: `checkersbot`, its version, the protocol version (1)."""

    name: str
    version: str
    protocol: int


class Engine:
    """One connection to a checkersbot daemon (`checkersbot serve`).

    Open it with `Engine.popen([...])`, `Engine.tcp(host, port)` or `Engine.serial(path)`, best
    in a `with` block. Each call sends one request (or a few) and returns the typed reply; every
    `error CODE ...` reply is raised as an `EngineError` subclass. Calls are serialised (one at a
    time, from any thread); `stop()` may be called from any thread at any time.

    Each call takes a `timeout` in seconds (None: wait as long as it takes). When it passes,
    `EngineTimeoutError` is raised and the engine stays usable: its next call first sends `ping
    TOKEN` and drops every line before `pong TOKEN`. A timed-out `play`, `analyse` or `hint` is
    stopped at once (its answer would be of no use); a timed-out `board` is not: the daemon goes
    on to write its move and records it as played, and `repeat()` gives it afterwards.
    """

    def __init__(self, link: _Link, *, timeout: Optional[float] = 30.0,
                 owns_daemon: bool = False) -> None:
        self._link = link
        self._owns_daemon = owns_daemon
        self._lock = threading.Lock()          # the state below, shared with the reader
        self._send_lock = threading.Lock()     # the wire order of requests = the waiters' order
        self._call_lock = threading.RLock()    # one call at a time
        self._waiters: Deque[_Waiter] = collections.deque()
        self._barrier: Optional[_Waiter] = None
        self._barrier_line = ""
        self._dead: Optional[str] = None
        self._behind = True                    # resynchronise before the first request
        self._options: Optional[Dict[str, Option]] = None   # read when first needed
        self._configured: Optional[Tuple[int, int]] = None  # movetime and depth as configured
        self._in_daemon: Optional[Tuple[int, int]] = None   # ... and as the daemon has them now
        self._id: Optional[EngineId] = None
        self._reader = threading.Thread(target=self._read_loop, name="checkersbot-reader",
                                        daemon=True)
        self._reader.start()
        try:
            # Only `ping TOKEN`, which `repeat` does not record: after connecting, `repeat()`
            # still gives the last reply before (the move an arm controller that restarted
            # missed).
            self.resync(timeout)
        except BaseException:
            self._shut(1.0)
            raise

    # --- opening and closing -------------------------------------------------------------

    @classmethod
    def popen(cls, argv: Sequence[str], *, timeout: Optional[float] = 30.0,
              stderr: Optional[IO[bytes]] = None, cwd: Optional[str] = None,
              env: Optional[Mapping[str, str]] = None) -> "Engine":
        """Starts `argv` (a `checkersbot serve ...` command line) and talks to it over its pipes.
        Its stderr (the logs) goes to `stderr` (default: this process's). `close()` ends it."""
        return cls(_PipeLink(argv, stderr, cwd, env), timeout=timeout, owns_daemon=True)

    @classmethod
    def tcp(cls, host: str, port: int, *, timeout: Optional[float] = 30.0) -> "Engine":
        """Connects to `serve --listen PORT`. The connection takes over from any other client of
        that daemon (which is told `error taken-over`); `close()` leaves the daemon running."""
        sock = socket.create_connection((host, port), timeout=timeout)
        sock.settimeout(None)
        return cls(_SocketLink(sock), timeout=timeout)

    @classmethod
    def serial(cls, path: str, baud: int = 115200, *,
               timeout: Optional[float] = 30.0) -> "Engine":
        """Opens a serial port, 8N1, no flow control, as `serve --serial` expects. Needs pyserial
        (`pip install checkersbot-client[serial]`). `close()` leaves the daemon running."""
        serial = importlib.import_module("serial")
        port = serial.Serial(path, baudrate=baud, timeout=0.2)
        return cls(_SerialLink(port), timeout=timeout)

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()

    def close(self, timeout: float = 10.0) -> None:
        """Ends the link. A daemon started by `popen` is told `stop` and `quit` and waited for (a
        call under way in another thread returns first); over TCP or serial the daemon goes on
        running."""
        if self._owns_daemon and self._dead is None:
            self.stop()  # a call under way in another thread returns, so that quit can go
            try:
                self.quit(timeout=timeout)
                return
            except EngineTerminatedError:
                pass  # it had exited already (a `quit` sent with `request`, a signal)
            except (EngineError, EngineTimeoutError, ProtocolError) as e:
                logger.warning("quit failed: %s", e)
        self._shut(timeout)

    def quit(self, timeout: Optional[float] = 10.0) -> None:
        """Sends `quit` (the daemon stops any search and exits) and closes the link."""
        try:
            with self._calling(timeout) as deadline:
                self._exchange("quit", deadline)
        finally:
            self._shut(10.0 if timeout is None else timeout)

    def _shut(self, timeout: float) -> None:
        with self._lock:
            if self._dead is None:
                self._dead = "closed by the client"
        try:
            self._link.close(timeout)
        except OSError as e:
            logger.debug("closing: %s", e)
        self._reader.join(timeout)

    # --- the reader thread ---------------------------------------------------------------

    def _read_loop(self) -> None:
        reason = "the daemon closed the link"
        try:
            while True:
                raw = self._link.readline()
                if not raw.endswith(b"\n"):
                    break
                self._dispatch(raw.decode("ascii", "backslashreplace").rstrip("\r\n"))
        except (OSError, ValueError) as e:
            reason = f"the link failed: {e}"
        with self._lock:
            if self._dead is None:
                self._dead = reason
            waiting = list(self._waiters) + ([self._barrier] if self._barrier else [])
            self._waiters.clear()
            self._barrier = None
        for w in waiting:
            w.done.set()

    def _dispatch(self, line: str) -> None:
        word = line.split(" ", 1)[0]
        callback: Optional[InfoCallback] = None
        with self._lock:
            if self._barrier is not None:
                if line == self._barrier_line:
                    self._barrier.final = line
                    self._barrier.done.set()
                    self._barrier = None
                else:
                    logger.debug("resynchronising: dropped %r", line)
                return
            if line.startswith("error taken-over"):
                self._dead = line  # the daemon closes the connection next
            if word in INFO_WORDS and self._waiters:
                head = self._waiters[0]
                head.infos.append(line)
                callback = head.on_info
            elif word in FINAL_WORDS and self._waiters:
                head = self._waiters.popleft()
                head.final = line
                head.done.set()
            elif self._dead is None:
                logger.warning("a line that answers no request: %r", line)
        if callback is not None and line.startswith("info depth "):
            try:
                callback(Info.parse(line))
            except Exception:  # the caller's callback must not end the reader
                logger.exception("on_info callback failed")

    # --- requests --------------------------------------------------------------------------

    @contextmanager
    def _calling(self, timeout: Optional[float]) -> Iterator[Optional[float]]:
        """One call: waits for the calls before it, resynchronises if needed; yields the
        deadline."""
        deadline = _deadline(timeout)
        wait = _remaining(deadline)
        if not self._call_lock.acquire(timeout=-1 if wait is None else wait):
            raise EngineTimeoutError(f"another call still runs after {timeout} s")
        try:
            self._check_alive()
            if self._behind:
                self._resync(deadline)
            yield deadline
        finally:
            self._call_lock.release()

    def _check_alive(self) -> None:
        dead = self._dead
        if dead is None:
            return
        if dead.startswith("error taken-over"):
            raise EngineError.from_line(dead)
        raise EngineTerminatedError(dead)

    def _write(self, line: str) -> None:
        try:
            self._link.write(line.encode("ascii", "backslashreplace") + b"\n")
        except (OSError, ValueError) as e:
            with self._lock:
                if self._dead is None:
                    self._dead = f"the link failed: {e}"
            self._check_alive()

    def _send(self, line: str, on_info: Optional[InfoCallback] = None) -> _Waiter:
        waiter = _Waiter(_check_text(line), on_info)
        with self._send_lock:
            with self._lock:
                self._waiters.append(waiter)
            self._write(line)
        return waiter

    def _exchange(self, line: str, deadline: Optional[float], *, stop_on_timeout: bool = False,
                  on_info: Optional[InfoCallback] = None) -> Reply:
        """Sends `line` and returns its final reply with the lines before it; raises the reply's
        `EngineError`."""
        waiter = self._send(line, on_info)
        if not waiter.done.wait(_remaining(deadline)):
            self._behind = True
            if stop_on_timeout:
                self.stop()
            raise EngineTimeoutError(f"no reply to {line.split(' ', 1)[0]!r} in time")
        if waiter.final is None:
            self._check_alive()
            raise EngineTerminatedError("the link closed")
        error = error_for(waiter.final, line)
        if error is not None:
            raise error
        return Reply(waiter.final, waiter.infos)

    def _resync(self, deadline: Optional[float]) -> None:
        token = f"sync-{os.getpid()}-{next(_tokens)}"
        waiter = _Waiter(f"ping {token}")
        with self._send_lock:
            with self._lock:
                self._waiters.clear()
                self._barrier = waiter
                self._barrier_line = f"pong {token}"
            self._write(waiter.request)
        if not waiter.done.wait(_remaining(deadline)):
            raise EngineTimeoutError("the daemon did not answer ping while resynchronising")
        if waiter.final is None:
            self._check_alive()
        self._behind = False

    def resync(self, timeout: Optional[float] = 30.0) -> None:
        """Sends `ping TOKEN` with a fresh token and drops every line before its `pong TOKEN`:
        afterwards the next line answers the next request. Calls do this by themselves after a
        timeout and on connecting."""
        self._behind = True
        with self._calling(timeout):
            pass

    @property
    def id(self) -> EngineId:
        """The daemon's name, version and protocol version (`hello`, sent when first used)."""
        if self._id is None:
            with self._calling(None) as deadline:
                hello = self._exchange("hello", deadline).line.split()
            if len(hello) < 5 or hello[3] != "protocol" or not hello[4].isdigit():
                raise ProtocolError(f"not a checkersbot hello: {' '.join(hello)!r}")
            self._id = EngineId(hello[1], hello[2], int(hello[4]))
        return self._id

    def stop(self) -> None:
        """Stops the search, analysis or hint under way now (its call returns at once with what
        it found); without one, stops pondering. A search that starts after the daemon read the
        `stop` is not affected. Safe from any thread; returns at once without waiting for the
        daemon's `ok`, and does nothing once the link is closed."""
        with self._send_lock:
            with self._lock:
                if self._dead is not None:
                    return
                self._waiters.append(_Waiter("stop"))
            try:
                self._write("stop")
            except EngineTerminatedError:
                pass  # the daemon went (e.g. it read `quit`) before the reader saw it: nothing to stop

    def request(self, line: str, *, timeout: Optional[float] = None) -> Reply:
        """Sends one request line as it is and returns its final reply with the lines before it
        (an `error` reply is raised). For what the typed calls do not cover."""
        with self._calling(timeout) as deadline:
            changes = line.split(" ", 1)[0] in ("set", "newgame", "position")
            if changes:
                self._apply_limit(None, deadline)
            try:
                return self._exchange(line, deadline)
            finally:
                if changes:
                    self._options_changed()

    # --- limits and options ---------------------------------------------------------------

    def _apply_limit(self, limit: Optional[Limit], deadline: Optional[float]) -> None:
        """Gives the daemon the `movetime` and `depth` of `limit`, or the configured ones."""
        if limit is None:
            if self._in_daemon == self._configured:
                return
            want = self._configured
        else:
            want = limit.settings()
            if self._configured is None:
                self._read_options(deadline)
        assert want is not None
        if want != self._in_daemon:
            self._exchange(f"set movetime {want[0]}", deadline)
            self._exchange(f"set depth {want[1]}", deadline)
            self._in_daemon = want

    def _read_options(self, deadline: Optional[float]) -> None:
        """Reads the options; the daemon must have the configured limits (`_apply_limit(None)`)."""
        options: Dict[str, Option] = {}
        for line in self._exchange("options", deadline).infos:
            if line.startswith("option "):
                opt = parse_option(line)
                options[opt.name] = opt
        self._options = options
        movetime, depth = options.get("movetime"), options.get("depth")
        if isinstance(movetime, IntOption) and isinstance(depth, IntOption):
            self._configured = self._in_daemon = (movetime.value, depth.value)

    def _options_changed(self) -> None:
        """After a `set` (the daemon has the configured limits): read the options when next
        needed."""
        self._options = self._configured = self._in_daemon = None

    @property
    def options(self) -> Mapping[str, Option]:
        """Every option of the daemon (`IntOption`, `BoolOption`, `ChoiceOption`,
        `StringOption`) with its range or choices, default and value, as read at connection
        and after each `configure` (`read_options()` reads them again). Read when first used:
        then it is a call (`options`) like the others."""
        if self._options is None:
            return self.read_options()
        return dict(self._options)

    def read_options(self, *, timeout: Optional[float] = None) -> Mapping[str, Option]:
        """Reads the options again (`options`) and returns them."""
        with self._calling(timeout) as deadline:
            self._apply_limit(None, deadline)
            self._read_options(deadline)
            assert self._options is not None
            return dict(self._options)

    def configure(self, options: Mapping[str, OptionValue], *,
                  timeout: Optional[float] = None) -> None:
        """Sets options (`set NAME VALUE` each, in order): `True`/`False` are sent as `on`/`off`.
        A refused value raises `BadOptionError` (the options before it are set). `options` is
        read again afterwards (a `level` changes `movetime` and `depth`)."""
        with self._calling(timeout) as deadline:
            self._apply_limit(None, deadline)
            try:
                for name, value in options.items():
                    text = _word(value)
                    if not name or not text or any(c.isspace() for c in name + text):
                        raise ValueError(f"an option name and value are one word: {name}={text!r}")
                    self._exchange(f"set {name} {text}", deadline)
            finally:
                self._options_changed()

    # --- the game --------------------------------------------------------------------------

    def ping(self, token: Optional[str] = None, *, timeout: Optional[float] = None) -> float:
        """`ping` (answered at once) or `ping TOKEN` (answered after every earlier reply); returns
        the round trip in seconds."""
        began = time.monotonic()
        with self._calling(timeout) as deadline:
            expect = "pong" if token is None else f"pong {token}"
            got = self._exchange("ping" if token is None else f"ping {token}", deadline).line
            if got != expect:
                raise ProtocolError(f"{got!r} in reply to ping")
        return time.monotonic() - began

    def newgame(self, layout: Optional[str] = None, *, timeout: Optional[float] = None) -> None:
        """Starts a game: the standard start of `size`, or `layout` (a size such as `"8"`, or one
        line of rows). The first `board` then says who moves first."""
        with self._calling(timeout) as deadline:
            self._exchange("newgame" if layout is None else f"newgame {layout}", deadline)

    def position(self, setup: Setup, moves: Sequence[str] = (), *,
                 timeout: Optional[float] = None) -> None:
        """Makes `setup` the game's starting point (a `Position`, or `"fen FEN"`, `"start
        SIDE"`, `"pdn TEXT"`), with `moves` played from it as its history (`"F2-E3"`,
        `"E5xC3xA1"`, or PDN numbers on 8x8)."""
        line = f"position {setup}"
        if moves:
            line += " moves " + " ".join(moves)
        with self._calling(timeout) as deadline:
            self._exchange(line, deadline)

    def board(self, rows: str, side: str, *, timeout: Optional[float] = None,
              on_info: Optional[InfoCallback] = None) -> BoardReply:
        """The board the camera sees (`side`: the side to move, used when the daemon cannot know
        it). Returns `BotMove` (make `reply.move` with the arm), `Unchanged`, `Wait` or
        `GameOver`; an `error` reply is raised (`ArmIncompleteError`, `IllegalTransitionError`,
        `BadBoardError`, ...). `on_info` is called (on the reader thread) with each search
        report as it arrives."""
        with self._calling(timeout) as deadline:
            self._apply_limit(None, deadline)
            got = self._exchange(f"board {rows} {side}", deadline, on_info=on_info)
            return parse_board_reply(got.line, got.infos)

    def play(self, position: Position, limit: Optional[Limit] = None, *,
             timeout: Optional[float] = None,
             on_info: Optional[InfoCallback] = None) -> PlayResult:
        """The bot's move in `position` for the side to move (either colour), searched within
        `limit` (default: the configured `movetime` and `depth`). This replaces the daemon's game
        with `position` (`position` then `board`), as python-chess's `play` sends the position.
        `stop()` from another thread makes it return at once with the best move so far."""
        turned = position.side == "p"
        asked = position.rotated() if turned else position
        size = position.size

        def report(info: Info) -> None:
            if on_info is not None:
                on_info(info.rotated(size) if turned else info)

        with self._calling(timeout) as deadline:
            self._apply_limit(limit, deadline)
            self._exchange(f"position {asked}", deadline)
            got = self._exchange(f"board {asked}", deadline, stop_on_timeout=True,
                                 on_info=report)
            reply = parse_board_reply(got.line, got.infos)
        info = [i.rotated(size) for i in reply.info] if turned else reply.info
        if isinstance(reply, BotMove):
            return PlayResult(reply.move.rotated(size) if turned else reply.move, info)
        if isinstance(reply, GameOver):
            return PlayResult(None, info, reply)
        raise ProtocolError(f"{got.line!r} in reply to a position to play")

    def analyse(self, setup: Optional[Setup] = None, limit: Optional[Limit] = None, *,
                multipv: int = 1, infinite: bool = False,
                timeout: Optional[float] = None) -> List[Info]:
        """The best `multipv` moves (1 to 20) of `setup`, or of the game's position when None;
        the game is not touched. Each `Info` has `multipv` (its rank), `depth`, `score` (the
        side to move's point of view) and `pv`. `limit` is shared among the lines (default: the
        configured ones; 10 s when the time is unlimited). `infinite=True` searches deeper until
        `stop()` from another thread and returns the last complete depth."""
        if infinite and limit is not None:
            raise ValueError("an infinite analysis takes no limit")
        line = f"analyse {multipv}" + (" infinite" if infinite else "")
        if setup is not None:
            line += f" {setup}"
        with self._calling(timeout) as deadline:
            self._apply_limit(limit, deadline)
            got = self._exchange(line, deadline, stop_on_timeout=True)
            return [Info.parse(i) for i in got.infos if i.startswith("line ")]

    def hint(self, limit: Optional[Limit] = None, *, timeout: Optional[float] = None,
             on_info: Optional[InfoCallback] = None) -> Hint:
        """The person's best move in the game (`NotPersonsTurnError` when the bot is to move)."""
        with self._calling(timeout) as deadline:
            self._apply_limit(limit, deadline)
            reply = self._exchange("hint", deadline, stop_on_timeout=True, on_info=on_info)
        if reply.kind != "hint":
            raise ProtocolError(f"{reply.line!r} in reply to hint")
        return Hint(Move.parse(reply.words), [Info.parse(i) for i in reply.infos
                                              if i.startswith("info depth ")])

    def takeback(self, *, timeout: Optional[float] = None) -> Position:
        """Takes back the person's last move and the bot's reply; returns the position to put
        the board back to (`expect ROWS SIDE`)."""
        with self._calling(timeout) as deadline:
            reply = self._exchange("takeback", deadline)
        words = reply.line.split()
        if words[0] != "expect":
            raise ProtocolError(f"{reply.line!r} in reply to takeback")
        return Position.parse(words[1:])

    def status(self, *, timeout: Optional[float] = None) -> Status:
        """What the daemon believes, changing nothing (answered at once, also while it searches):
        the state, the position and side to move, the board it expects next, the last board seen,
        the clock, level, evaluation and the last board's diagnosis. See PROTOCOL.md, "Status"."""
        reply = self.request("status", timeout=timeout)
        return Status.parse(reply.line)

    def repeat(self, *, timeout: Optional[float] = None) -> Reply:
        """The last final reply again (e.g. the last `move` after the arm controller restarted:
        `reply.move`); a repeated `error` is raised, and `NothingToRepeatError` before any."""
        return self.request("repeat", timeout=timeout)

