"""The synchronous engine: one link to a `checkersbot serve` daemon and one reader thread that
owns its input and gives each final reply to the request it answers.

How a reply finds its request. The daemon answers every request with exactly one final reply, in
the order it reads them, but for one exception (PROTOCOL.md, "Ordering while the engine thinks"):
a request that starts a job on the engine (a `board` that makes the bot move, `analyse`, `hint`,
`set eval PATH`) is answered when the job ends, and the `stop`, `ping TOKEN` and `quit` read
meanwhile right after it; `status`, plain `ping` and `hello` are answered at once. This client
keeps the requests it has written in a queue, in the order it wrote them, and

- runs the calls that may start a job ("engine calls": every call but `status`, `ping`, `id` and
  `stop`) one at a time: one that comes while another runs raises `EngineBusyError` at once, so at
  most one job runs, started by the one engine call in the queue;
- lets `status`, `ping`, `id` (`hello`) and `stop` go from any thread at any time. Of these, only
  the replies `status ...`, `pong` and `hello ...` may overtake a job, and no engine call gets
  those (but `repeat`, which starts no job, so that nothing overtakes it).

So a final reply answers the oldest request in the queue, unless it is `status ...`, `pong` or
`hello ...` and the oldest request is of another kind (and not `repeat`): then it answers the
oldest request of its kind. `pong TOKEN` answers the ping with that token. The lines before a
final reply (`info`, `option`, `line`, `legal`) belong to the engine call in the queue.
"""

from __future__ import annotations

import collections
import importlib
import itertools
import logging
import os
import queue
import re
import socket
import subprocess
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import (IO, Any, Callable, Deque, Dict, Iterator, List, Mapping, Optional, Sequence,
                    Type, Union)

from ._errors import (CheckersbotError, EngineBusyError, EngineError, EngineTerminatedError,
                      EngineTimeoutError, ProtocolError, error_for)
from ._types import (LIMIT_OPTIONS, NO_LIMIT, BoardReply, BotMove, GameOver, Hint, Info, Limit,
                     Move, MoveText, Option, PlayResult, Position, Setup, Status, move_text,
                     other_side, parse_board_reply, parse_option, rotate_move_text, setup_side)

logger = logging.getLogger("checkersbot_client")

FINAL_WORDS = frozenset(("ok", "pong", "hello", "move", "unchanged", "wait", "gameover", "bye",
                         "error", "hint", "expect", "status"))
"""The first words of final replies: every request gets exactly one."""
INFO_WORDS = frozenset(("info", "option", "line", "legal"))
"""The first words of the lines that may come before a final reply."""
AT_ONCE = {"status": "status", "pong": "ping", "hello": "hello"}
"""The replies that may overtake a job, and the kind of request each answers."""
MAX_STOPS = 32
"""`stop` requests that may wait for their `ok` at a time (more are not sent: they would add
nothing); with `MAX_TOKEN_PINGS`, under the daemon's 64 replies waiting for a job."""
MAX_TOKEN_PINGS = 28
"""`ping TOKEN` requests that may wait at a time (more raise `EngineBusyError`)."""
_TOKEN = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")

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


def _kind(request: str) -> str:
    """What a request is, for matching its reply: `status`, `hello`, `ping`, `ping-token`,
    `stop`, `repeat` (each only in its exact form), else `call`."""
    words = request.split()
    if words in (["status"], ["hello"], ["ping"], ["stop"], ["repeat"]):
        return words[0]
    if len(words) == 2 and words[0] == "ping" and _TOKEN.match(words[1]):
        return "ping-token"
    return "call"


class _Waiter:
    """A request on the wire and what came back for it so far."""

    def __init__(self, request: str, *, engine_call: bool,
                 on_line: Optional[Callable[[str], None]] = None,
                 on_done: Optional[Callable[["_Waiter"], None]] = None,
                 abandoned: bool = False) -> None:
        self.request = request
        self.kind = _kind(request)
        self.token = request.split()[1] if self.kind == "ping-token" else None
        self.engine_call = engine_call
        self.on_line = on_line
        self.on_done = on_done
        self.abandoned = abandoned  # nobody waits for the reply any more: it is dropped
        self.infos: List[str] = []
        self.final: Optional[str] = None
        self.error: Optional[CheckersbotError] = None
        self.done = threading.Event()

    def finish(self) -> None:
        """Wakes the caller and runs the completion callback (on the reader thread)."""
        self.done.set()
        if self.on_done is not None:
            try:
                self.on_done(self)
            except Exception:
                logger.exception("completion callback failed")


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


def _check_token(token: str) -> str:
    if not _TOKEN.match(token):
        raise ValueError(f"a ping token is 1 to 64 letters, digits, -, _, . or :, not {token!r}")
    return token


def _authenticate(sock: socket.socket, token: str) -> None:
    """Sends `hello TOKEN` on a new connection and reads its one reply, byte by byte (nothing
    after it is read, so the engine's reader starts at the next line)."""
    sock.sendall(f"hello {_check_text(token)}\n".encode("ascii"))
    line = b""
    while not line.endswith(b"\n"):
        byte = sock.recv(1)
        if not byte:
            raise EngineTerminatedError("the daemon closed the connection after hello")
        line += byte
    text = line.decode("ascii", "replace").rstrip("\r\n")
    refused = error_for(text, "hello")
    if refused is not None:
        raise refused
    if not text.startswith("hello "):
        raise ProtocolError(f"not a hello reply: {text!r}")


@dataclass(frozen=True)
class EngineId:
    """The daemon's `hello`: `checkersbot`, its version, the protocol version (1)."""

    name: str
    version: str
    protocol: int


class Analysis:
    """An analysis under way (`Engine.analysis`), as python-chess's `AnalysisResult`: iterate
    over it for each line of each depth the daemon completes (`Info`, `multipv` its rank), as it
    comes; `stop()` ends it, after which the iteration ends and `wait()` gives the lines of the
    last complete depth. In a `with` block it is stopped at the end. The engine is held until
    its reply: other engine calls are busy meanwhile (`status`, `ping` and `stop` are not). The
    lines come with `set info iterations` (the default); with `final` or `off`, only `wait()`
    has them."""

    def __init__(self, engine: "Engine", turn: str) -> None:
        self._engine = engine
        self._turn = turn
        self._items: "queue.Queue[Optional[Info]]" = queue.Queue()
        self._latest: Dict[int, Info] = {}
        self._lock = threading.Lock()
        self._waiter: Optional[_Waiter] = None
        self._finished = threading.Event()

    def _line(self, line: str) -> None:
        if line.startswith("info line "):
            info = Info.parse(line, self._turn)
            with self._lock:
                self._latest[info.multipv] = info
            self._items.put(info)

    def _done(self, waiter: _Waiter) -> None:
        self._waiter = waiter
        self._engine._release()
        self._finished.set()
        self._items.put(None)

    def _error(self) -> Optional[CheckersbotError]:
        w = self._waiter
        if w is None:
            return None
        if w.error is not None:
            return w.error
        if w.final is None:
            return EngineTerminatedError(self._engine._dead or "the link closed")
        return error_for(w.final, w.request)

    def next_or_none(self, timeout: Optional[float] = None) -> Optional[Info]:
        """The next line as it comes; None once the analysis has ended. Raises the analysis's
        error (`EngineError`, `EngineTerminatedError`), and `EngineTimeoutError` when no line
        came within `timeout`."""
        try:
            item = self._items.get(timeout=timeout)
        except queue.Empty:
            raise EngineTimeoutError("no analysis line in time") from None
        if item is None:
            self._items.put(None)  # every later call ends too
            error = self._error()
            if error is not None:
                raise error
        return item

    def __iter__(self) -> "Analysis":
        return self

    def __next__(self) -> Info:
        item = self.next_or_none()
        if item is None:
            raise StopIteration
        return item

    @property
    def done(self) -> bool:
        """Whether the daemon has answered (the analysis has ended)."""
        return self._finished.is_set()

    @property
    def info(self) -> Optional[Info]:
        """The best line of the deepest depth completed so far, if any."""
        with self._lock:
            return self._latest.get(1)

    @property
    def multipv(self) -> List[Info]:
        """The latest line of each rank, best first."""
        with self._lock:
            return [self._latest[k] for k in sorted(self._latest)]

    def stop(self) -> None:
        """Ends the analysis (sends `stop`); returns at once."""
        if not self._finished.is_set():
            self._engine.stop()

    def wait(self, timeout: Optional[float] = None) -> List[Info]:
        """Waits for the analysis to end (after `stop()`) and returns its `line`s, best first:
        the last complete depth."""
        if not self._finished.wait(timeout):
            raise EngineTimeoutError("the analysis has not ended")
        error = self._error()
        if error is not None:
            raise error
        assert self._waiter is not None
        return [Info.parse(i, self._turn) for i in self._waiter.infos if i.startswith("line ")]

    def __enter__(self) -> "Analysis":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.stop()
        self._finished.wait()


class Engine:
    """One connection to a checkersbot daemon (`checkersbot serve`).

    Open it with `Engine.popen([...])`, `Engine.tcp(host, port)` or `Engine.serial(path)`, best
    in a `with` block. Each call sends one request (or a few) and returns the typed reply; every
    `error CODE ...` reply is raised as an `EngineError` subclass.

    Threads: `status()`, `ping()`, `id` and `stop()` may be called from any thread at any time,
    also while another thread's call searches: the daemon answers them at once (`stop()` and
    `ping(token)` after the search). The other calls need the engine and go one at a time: one
    made while another runs raises `EngineBusyError` at once (as the daemon answers `error busy`).

    Each call takes a `timeout` in seconds (None: wait as long as it takes). When it passes,
    `EngineTimeoutError` is raised and the engine stays usable: the late reply is recognised
    and dropped when it comes, and the next call that needs the engine waits for it first
    (within its own timeout). A timed-out `play`, `analyse` or `hint` is stopped at once (its
    answer would be of no use); a timed-out `board` is not: the daemon goes on to write its move
    and records it as played, and `repeat()` gives it afterwards.
    """

    def __init__(self, link: _Link, *, timeout: Optional[float] = 30.0,
                 owns_daemon: bool = False) -> None:
        self._link = link
        self._owns_daemon = owns_daemon
        self._lock = threading.Lock()            # the state below, shared with the reader
        self._changed = threading.Condition(self._lock)  # a reply came, the engine was freed
        self._send_lock = threading.Lock()       # the wire order of requests = the queue's
        self._queue: Deque[_Waiter] = collections.deque()
        self._holder: Optional[str] = None       # the engine call under way
        self._barrier: Optional[_Waiter] = None  # a resynchronisation under way
        self._barrier_line = ""
        self._dead: Optional[str] = None
        self._options: Optional[Dict[str, Option]] = None  # read when first needed
        self._configured: Optional[Dict[str, str]] = None  # the limit options as configured
        self._in_daemon: Dict[str, str] = {}                # ... and as the daemon has them now
        self._id: Optional[EngineId] = None
        self._reader = threading.Thread(target=self._read_loop, name="checkersbot-reader",
                                        daemon=True)
        self._reader.start()
        try:
            # Only `ping TOKEN`, which `repeat` does not record: after connecting, `repeat()`
            # still gives the last reply before (the move an arm controller that restarted
            # missed).
            self._resync(_deadline(timeout))
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
    def tcp(cls, host: str, port: int, *, timeout: Optional[float] = 30.0,
            token: Optional[str] = None) -> "Engine":
        """Connects to `serve --listen PORT`. The connection takes over from any other client of
        that daemon (which is told `error taken-over`) with its first request; `close()` leaves
        the daemon running. `token`: the daemon's shared secret (`serve --token-file`), sent
        first with `hello`; a daemon that refuses it raises `UnauthorizedError`."""
        sock = socket.create_connection((host, port), timeout=timeout)
        if token is not None:
            try:
                _authenticate(sock, token)
            except BaseException:
                sock.close()
                raise
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
        """Sends `quit` (the daemon stops any search and exits) and closes the link. Waits for a
        call under way in another thread (which `quit` stops) rather than being busy."""
        try:
            with self._engine_call("quit", timeout, wait=True) as deadline:
                self._exchange("quit", deadline)
        finally:
            self._shut(10.0 if timeout is None else timeout)

    def _shut(self, timeout: float) -> None:
        with self._lock:
            if self._dead is None:
                self._dead = "closed by the client"
            self._changed.notify_all()
        try:
            self._link.close(timeout)
        except OSError as e:
            logger.debug("closing: %s", e)
        if threading.current_thread() is not self._reader:
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
            waiting = list(self._queue) + ([self._barrier] if self._barrier else [])
            self._queue.clear()
            self._barrier = None
            self._changed.notify_all()
        for w in waiting:
            w.finish()

    def _dispatch(self, line: str) -> None:
        word = line.split(" ", 1)[0]
        owner: Optional[_Waiter] = None
        answered: Optional[_Waiter] = None
        with self._lock:
            if self._barrier is not None:
                if line == self._barrier_line:
                    answered, self._barrier = self._barrier, None
                    answered.final = line
                    self._changed.notify_all()
                else:
                    logger.debug("resynchronising: dropped %r", line)
            elif line.startswith("error taken-over"):
                self._dead = line  # the daemon closes the connection next
            elif word in INFO_WORDS:
                owner = next((w for w in self._queue if w.engine_call), None)
                if owner is None:
                    logger.debug("a line for no call under way: %r", line)
                else:
                    owner.infos.append(line)
            elif word in FINAL_WORDS and self._queue:
                answered = self._answered_by(line, word)
                self._queue.remove(answered)
                answered.final = line
                if answered.abandoned:
                    logger.debug("the late reply to %r: %r", answered.request, line)
                self._changed.notify_all()
            elif self._dead is None:
                logger.warning("a line that answers no request: %r", line)
        if owner is not None and owner.on_line is not None and not owner.abandoned:
            try:
                owner.on_line(line)
            except Exception:  # the caller's callback must not end the reader
                logger.exception("on_info callback failed")
        if answered is not None:
            answered.finish()

    def _answered_by(self, line: str, word: str) -> _Waiter:
        """The request a final reply answers (see the module's documentation)."""
        head = self._queue[0]
        if word == "pong" and " " in line:
            token = line.split()[1]
            return next((w for w in self._queue if w.token == token), head)
        kind = AT_ONCE.get(word)
        if kind is None or head.kind in (kind, "repeat"):
            return head
        return next((w for w in self._queue if w.kind == kind), head)

    # --- requests --------------------------------------------------------------------------

    @contextmanager
    def _engine_call(self, what: str, timeout: Optional[float], *, wait: bool = False,
                     late_too: bool = False) -> Iterator[Optional[float]]:
        """One engine call: holds the engine for `what` (see `_acquire`); yields the
        deadline."""
        deadline = _deadline(timeout)
        self._acquire(what, deadline, wait, late_too)
        try:
            yield deadline
        finally:
            self._release()

    def _acquire(self, what: str, deadline: Optional[float], wait: bool,
                 late_too: bool = False) -> None:
        """Holds the engine for an engine call: `EngineBusyError` when another call holds it
        (unless `wait`); first waits for the late reply of a call that timed out (unless
        `late_too`: a resynchronisation drops it), and for a resynchronisation under way."""
        with self._changed:
            while True:
                self._check_alive()
                late = self._barrier is not None or (
                    not late_too and any(w.engine_call for w in self._queue))
                if self._holder is None and not late:
                    self._holder = what
                    return
                if self._holder is not None and not wait:
                    raise EngineBusyError(
                        f"{self._holder} is under way (from another thread or task): wait for "
                        "it, or call stop()", what)
                left = _remaining(deadline)
                if left == 0:
                    why = f"{self._holder} still runs" if self._holder else \
                        "the late reply to a call that timed out has not come"
                    raise EngineTimeoutError(f"{what}: {why}")
                self._changed.wait(left)

    def _release(self) -> None:
        with self._changed:
            self._holder = None
            self._changed.notify_all()

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

    def _send(self, line: str, deadline: Optional[float], *, engine_call: bool,
              on_line: Optional[Callable[[str], None]] = None,
              on_done: Optional[Callable[[_Waiter], None]] = None) -> _Waiter:
        """Writes a request and queues its waiter, in the same order. A request answered at once
        waits for a resynchronisation under way (its reply could come before the `pong`)."""
        waiter = _Waiter(_check_text(line), engine_call=engine_call, on_line=on_line,
                         on_done=on_done)
        with self._send_lock:
            with self._changed:
                while self._barrier is not None and not engine_call:
                    left = _remaining(deadline)
                    if left == 0:
                        raise EngineTimeoutError(f"{line!r}: the engine is resynchronising")
                    self._changed.wait(left)
                self._check_alive()
                self._queue.append(waiter)
            self._write(line)
        return waiter

    def _wait(self, waiter: _Waiter, deadline: Optional[float], *,
              stop_on_timeout: bool = False) -> Reply:
        """The final reply to `waiter` with the lines before it; raises the reply's
        `EngineError`, or `EngineTimeoutError` (the reply is then dropped when it comes)."""
        if not waiter.done.wait(_remaining(deadline)):
            with self._lock:
                waiter.abandoned = True
            if stop_on_timeout:
                self.stop()
            raise EngineTimeoutError(f"no reply to {waiter.request.split(' ', 1)[0]!r} in time")
        if waiter.error is not None:
            raise waiter.error
        if waiter.final is None:
            self._check_alive()
            raise EngineTerminatedError("the link closed")
        error = error_for(waiter.final, waiter.request)
        if error is not None:
            raise error
        return Reply(waiter.final, waiter.infos)

    def _exchange(self, line: str, deadline: Optional[float], *, stop_on_timeout: bool = False,
                  on_line: Optional[Callable[[str], None]] = None) -> Reply:
        """One request of the engine call under way, and its reply."""
        waiter = self._send(line, deadline, engine_call=True, on_line=on_line)
        return self._wait(waiter, deadline, stop_on_timeout=stop_on_timeout)

    def _at_once(self, line: str, timeout: Optional[float]) -> Reply:
        """A request the daemon answers at once (or after the job under way), from any
        thread."""
        deadline = _deadline(timeout)
        return self._wait(self._send(line, deadline, engine_call=False), deadline)

    def _resync(self, deadline: Optional[float]) -> None:
        """`ping TOKEN`, dropping every line before its `pong TOKEN`; the requests waiting
        (their replies among those lines) raise `EngineTimeoutError`."""
        token = f"sync-{os.getpid()}-{next(_tokens)}"
        waiter = _Waiter(f"ping {token}", engine_call=True)
        with self._send_lock:
            with self._changed:
                self._check_alive()
                dropped = list(self._queue)
                self._queue.clear()
                self._barrier = waiter
                self._barrier_line = f"pong {token}"
                for w in dropped:
                    w.error = EngineTimeoutError("the reply was dropped: the engine resynchronised")
                self._changed.notify_all()
            for w in dropped:
                w.finish()
            self._write(waiter.request)
        if not waiter.done.wait(_remaining(deadline)):
            raise EngineTimeoutError("the daemon did not answer ping while resynchronising")
        if waiter.final is None:
            self._check_alive()

    def resync(self, timeout: Optional[float] = 30.0) -> None:
        """Sends `ping TOKEN` with a fresh token and drops every line before its `pong TOKEN`:
        afterwards the next line answers the next request, whatever came before (calls waiting
        in other threads then raise `EngineTimeoutError`). The engine does this on connecting;
        after that its replies cannot get out of step, so this is for links that lose lines."""
        with self._engine_call("resync", timeout, late_too=True) as deadline:
            self._resync(deadline)

    @property
    def id(self) -> EngineId:
        """The daemon's name, version and protocol version (`hello`, sent when first used; from
        any thread, also while another call searches)."""
        if self._id is None:
            hello = self._at_once("hello", None).line.split()
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
                if sum(1 for w in self._queue if w.kind == "stop") >= MAX_STOPS:
                    return  # as many wait behind the job: one more adds nothing
                self._queue.append(_Waiter("stop", engine_call=False, abandoned=True))
            try:
                self._write("stop")
            except EngineTerminatedError:
                pass  # the daemon went (e.g. it read `quit`) before the reader saw it: nothing to stop

    def request(self, line: str, *, timeout: Optional[float] = None) -> Reply:
        """Sends one request line as it is and returns its final reply with the lines before it
        (an `error` reply is raised). For what the typed calls do not cover. `status`, `ping`,
        `hello` and `stop` go at once as their calls do; every other request is an engine
        call."""
        text = _check_text(line).strip(" \t")
        if not text or text.startswith("#"):
            raise ValueError("a blank or comment line gets no reply")
        kind = _kind(text)
        if kind in ("status", "hello", "ping", "ping-token", "stop"):
            if kind == "ping-token":
                self._check_token_pings()
            return self._at_once(text, timeout)
        if text.split() == ["quit"]:
            try:
                with self._engine_call("quit", timeout, wait=True) as deadline:
                    return self._exchange(text, deadline)
            finally:
                self._shut(10.0 if timeout is None else timeout)
        with self._engine_call("request", timeout) as deadline:
            changes = text.split()[0] in ("set", "newgame", "position")
            if changes:
                self._apply_limit(None, deadline)
            try:
                return self._exchange(text, deadline)
            finally:
                if changes:
                    self._options_changed(deadline)

    def _check_token_pings(self) -> None:
        with self._lock:
            if sum(1 for w in self._queue if w.kind == "ping-token") >= MAX_TOKEN_PINGS:
                raise EngineBusyError(f"{MAX_TOKEN_PINGS} ping TOKEN requests already wait",
                                      "ping")

    # --- limits and options ---------------------------------------------------------------

    def _apply_limit(self, limit: Optional[Limit], deadline: Optional[float]) -> None:
        """Gives the daemon the `movetime`, `depth`, `nodes` and `clock` of `limit`, or the
        configured ones."""
        if self._configured is None:
            if limit is None:
                return  # no limit applied since the options were read: the daemon has its own
            self._read_options(deadline)
        assert self._configured is not None
        want = dict(self._configured) if limit is None else limit.settings()
        for name in LIMIT_OPTIONS:
            value = want.get(name)
            if value is None or self._in_daemon.get(name) == value:
                continue
            if name not in self._configured and value == NO_LIMIT[name]:
                continue  # an option this daemon does not have, not asked for
            self._in_daemon.pop(name, None)  # unknown until the daemon says ok
            self._exchange(f"set {name} {value}", deadline)
            self._in_daemon[name] = value

    def _read_options(self, deadline: Optional[float]) -> None:
        """Reads the options; the daemon must have the configured limits (`_apply_limit(None)`)."""
        options: Dict[str, Option] = {}
        for line in self._exchange("options", deadline).infos:
            if line.startswith("option "):
                opt = parse_option(line)
                options[opt.name] = opt
        self._options = options
        self._configured = {name: _word(options[name].value) for name in LIMIT_OPTIONS
                            if name in options}
        self._in_daemon = dict(self._configured)

    def _options_changed(self, deadline: Optional[float]) -> None:
        """After a `set` (the daemon has the configured limits): reads the options again (a
        `level` changes `movetime` and `depth`), or when next needed if that fails."""
        self._options = self._configured = None
        self._in_daemon = {}
        try:
            self._read_options(deadline)
        except CheckersbotError as e:
            logger.debug("options not read again: %s", e)

    @property
    def options(self) -> Mapping[str, Option]:
        """Every option of the daemon (`IntOption`, `BoolOption`, `ChoiceOption`,
        `StringOption`) with its range or choices, default and value, as read when first used
        and again after each `configure` (`read_options()` reads them again). Reading them is
        an engine call (`options`)."""
        if self._options is None:
            return self.read_options()
        return dict(self._options)

    def read_options(self, *, timeout: Optional[float] = None) -> Mapping[str, Option]:
        """Reads the options again (`options`) and returns them."""
        with self._engine_call("read_options", timeout) as deadline:
            self._apply_limit(None, deadline)
            self._read_options(deadline)
            assert self._options is not None
            return dict(self._options)

    def configure(self, options: Mapping[str, OptionValue], *,
                  timeout: Optional[float] = None) -> None:
        """Sets options (`set NAME VALUE` each, in order): `True`/`False` are sent as `on`/`off`.
        A refused value raises `BadOptionError` (the options before it are set). `options` is
        read again afterwards (a `level` changes `movetime` and `depth`)."""
        with self._engine_call("configure", timeout) as deadline:
            self._apply_limit(None, deadline)
            try:
                for name, value in options.items():
                    text = _word(value)
                    if not name or not text or any(c.isspace() for c in name + text):
                        raise ValueError(f"an option name and value are one word: {name}={text!r}")
                    self._exchange(f"set {name} {text}", deadline)
            finally:
                self._options_changed(deadline)

    # --- calls answered at once --------------------------------------------------------------

    def ping(self, token: Optional[str] = None, *, timeout: Optional[float] = None) -> float:
        """`ping` (answered at once) or `ping TOKEN` (answered after every earlier reply, also a
        move being searched); returns the round trip in seconds. From any thread."""
        began = time.monotonic()
        if token is None:
            line, expect = "ping", "pong"
        else:
            line, expect = f"ping {_check_token(token)}", f"pong {token}"
            self._check_token_pings()
        got = self._at_once(line, timeout).line
        if got != expect:
            raise ProtocolError(f"{got!r} in reply to {line}")
        return time.monotonic() - began

    def status(self, *, timeout: Optional[float] = None) -> Status:
        """What the daemon believes, changing nothing (answered at once, from any thread, also
        while another call searches: `state` is then `search`): the state, the position and
        side to move, the board it expects next, the last board seen, the clock, level,
        evaluation and the last board's diagnosis. See PROTOCOL.md, "Status"."""
        return Status.parse(self._at_once("status", timeout).line)

    # --- the game --------------------------------------------------------------------------

    def newgame(self, layout: Optional[str] = None, *, timeout: Optional[float] = None) -> None:
        """Starts a game: the standard start of `size`, or `layout` (a size such as `"8"`, or one
        line of rows). The first `board` then says who moves first."""
        with self._engine_call("newgame", timeout) as deadline:
            self._exchange("newgame" if layout is None else f"newgame {layout}", deadline)

    def position(self, setup: Setup, moves: Sequence[MoveText] = (), *,
                 timeout: Optional[float] = None) -> None:
        """Makes `setup` the game's starting point (a `Position`, or `"fen FEN"`, `"start
        SIDE"`, `"pdn TEXT"`), with `moves` played from it as its history (`Move`s, or their
        text: `"F2-E3"`, `"E5xC3xA1"`, or PDN numbers on 8x8)."""
        line = f"position {setup}"
        if moves:
            line += " moves " + " ".join(move_text(m) for m in moves)
        with self._engine_call("position", timeout) as deadline:
            self._exchange(line, deadline)

    def board(self, rows: str, side: str, *, timeout: Optional[float] = None,
              on_info: Optional[InfoCallback] = None) -> BoardReply:
        """The board the camera sees (`side`: the side to move, used when the daemon cannot know
        it). Returns `BotMove` (make `reply.move` with the arm), `Unchanged`, `Wait` or
        `GameOver`; an `error` reply is raised (`ArmIncompleteError`, `IllegalTransitionError`,
        `BadBoardError`, ...). `on_info` is called (on the reader thread) with each search
        report as it arrives."""
        with self._engine_call("board", timeout) as deadline:
            self._apply_limit(None, deadline)
            got = self._exchange(f"board {rows} {side}", deadline,
                                 on_line=_reports(on_info, "b"))
            return parse_board_reply(got.line, got.infos)

    def play(self, position: Position, limit: Optional[Limit] = None, *,
             moves: Sequence[MoveText] = (), timeout: Optional[float] = None,
             on_info: Optional[InfoCallback] = None) -> PlayResult:
        """The move for the side to move (either colour) after `moves` played from `position`
        (the game's history, so that the daemon sees repetitions and the no-progress rule, as
        python-chess's `play` sends a board's move stack), searched within `limit` (default:
        the configured limits). This replaces the daemon's game with that game (`position ...
        moves ...`, then `board`). The result has the move, the search reports and `ponder`,
        the reply the search expects. `stop()` from another thread makes it return at once with
        the best move so far."""
        if not isinstance(position, Position):
            raise TypeError(f"play takes a Position, not {type(position).__name__}")
        size = position.size
        mover = position.side if len(moves) % 2 == 0 else other_side(position.side)
        turned = mover == "p"  # the daemon always plays the top side: turn the board round
        start = position.rotated() if turned else position
        history = [rotate_move_text(m, size) if turned else move_text(m) for m in moves]

        def report(info: Info) -> None:
            if on_info is not None:
                on_info(info.rotated(size) if turned else info)

        with self._engine_call("play", timeout) as deadline:
            self._apply_limit(limit, deadline)
            line = f"position {start}" + (" moves " + " ".join(history) if history else "")
            self._exchange(line, deadline)
            rows = start.rows
            if history:  # the position after the moves, from the daemon
                rows = Status.parse(self._exchange("status", deadline).line).position or rows
            got = self._exchange(f"board {rows} b", deadline, stop_on_timeout=True,
                                 on_line=_reports(report, "b"))
            reply = parse_board_reply(got.line, got.infos)
            ponder = None
            if isinstance(reply, BotMove):
                ponder = self._ponder(Position(rows, "b"), reply.move, reply.info, deadline)
        info = [i.rotated(size) for i in reply.info] if turned else reply.info
        if isinstance(reply, BotMove):
            move = reply.move.rotated(size) if turned else reply.move
            if ponder is not None and turned:
                ponder = ponder.rotated(size)
            return PlayResult(move, info, ponder=ponder)
        if isinstance(reply, GameOver):
            return PlayResult(None, info, reply)
        raise ProtocolError(f"{got.line!r} in reply to a position to play")

    def _ponder(self, before: Position, move: Move, info: List[Info],
                deadline: Optional[float]) -> Optional[Move]:
        """The reply the search expects after `move` (its principal variation's second move),
        as a legal move of the position after it, from the daemon; None without one."""
        if not info or len(info[-1].pv) < 2 or info[-1].pv[0] != move.path:
            return None
        wanted = info[-1].pv[1]
        try:
            legal = self._legal(f"moves {before.after(move)}", deadline)
        except EngineError as e:  # a daemon without `moves`
            logger.debug("no ponder move: %s", e)
            return None
        return next((m for m in legal if m.path == wanted), None)

    def _legal(self, line: str, deadline: Optional[float]) -> List[Move]:
        got = self._exchange(line, deadline)
        return [Move.parse(i.split()[1:]) for i in got.infos if i.startswith("legal ")]

    def legal_moves(self, setup: Optional[Setup] = None, moves: Sequence[MoveText] = (), *,
                    timeout: Optional[float] = None) -> List[Move]:
        """Every legal move (with its captures and crowning) of `setup` after `moves`, or of the
        game's current position when `setup` is None, from the daemon (`moves`): the rules stay
        in one place. An empty list: the side to move has lost. The game is not touched."""
        if moves and setup is None:
            raise ValueError("moves are played from a setup")
        line = "moves" if setup is None else f"moves {setup}"
        if moves:
            line += " moves " + " ".join(move_text(m) for m in moves)
        with self._engine_call("legal_moves", timeout) as deadline:
            return self._legal(line, deadline)

    def _turn(self, setup: Optional[Setup], deadline: Optional[float]) -> str:
        """The side to move in `setup`, or in the game's current position (from `status`)."""
        if setup is not None:
            return setup_side(setup) or "b"
        st = Status.parse(self._exchange("status", deadline).line)
        side = st.side or "b"
        return other_side(side) if st.expect is not None else side  # after the bot's move

    def analyse(self, setup: Optional[Setup] = None, limit: Optional[Limit] = None, *,
                multipv: int = 1, infinite: bool = False,
                timeout: Optional[float] = None) -> List[Info]:
        """The best `multipv` moves (1 to 20) of `setup`, or of the game's position when None;
        the game is not touched. Each `Info` has `multipv` (its rank), `depth`, `score` (its
        `relative` the side to move's point of view) and `pv`. `limit` is shared among the lines
        (default: the configured ones; 10 s when the time is unlimited). `infinite=True` searches
        deeper until `stop()` from another thread and returns the last complete depth (see
        `analysis()` for the lines as they come)."""
        if infinite and limit is not None:
            raise ValueError("an infinite analysis takes no limit")
        line = f"analyse {multipv}" + (" infinite" if infinite else "")
        if setup is not None:
            line += f" {setup}"
        with self._engine_call("analyse", timeout) as deadline:
            self._apply_limit(limit, deadline)
            turn = self._turn(setup, deadline)
            got = self._exchange(line, deadline, stop_on_timeout=True)
            return [Info.parse(i, turn) for i in got.infos if i.startswith("line ")]

    def analysis(self, setup: Optional[Setup] = None, *, multipv: int = 1,
                 timeout: Optional[float] = None) -> Analysis:
        """Starts an analysis without limit (`analyse N infinite`) of `setup` or of the game's
        position and returns at once an `Analysis`: iterate over it for each line of each depth
        as the daemon completes it; `stop()` ends it (as python-chess's `analysis`). Use it in
        a `with` block (it is stopped at the end): the engine is held until it ends. `timeout`
        bounds the start only."""
        if not 1 <= multipv <= 20:
            raise ValueError(f"multipv is 1 to 20, not {multipv}")
        line = f"analyse {multipv} infinite" + ("" if setup is None else f" {setup}")
        deadline = _deadline(timeout)
        self._acquire("analysis", deadline, wait=False)
        try:
            analysis = Analysis(self, self._turn(setup, deadline))
            self._send(line, deadline, engine_call=True, on_line=analysis._line,
                       on_done=analysis._done)
        except BaseException:
            self._release()
            raise
        return analysis

    def hint(self, limit: Optional[Limit] = None, *, timeout: Optional[float] = None,
             on_info: Optional[InfoCallback] = None) -> Hint:
        """The person's best move in the game (`NotPersonsTurnError` when the bot is to move);
        scores are the person's (`score.relative`)."""
        with self._engine_call("hint", timeout) as deadline:
            self._apply_limit(limit, deadline)
            reply = self._exchange("hint", deadline, stop_on_timeout=True,
                                   on_line=_reports(on_info, "p"))
        if reply.kind != "hint":
            raise ProtocolError(f"{reply.line!r} in reply to hint")
        return Hint(Move.parse(reply.words), [Info.parse(i, "p") for i in reply.infos
                                              if i.startswith("info depth ")])

    def takeback(self, *, timeout: Optional[float] = None) -> Position:
        """Takes back the person's last move and the bot's reply; returns the position to put
        the board back to (`expect ROWS SIDE`)."""
        with self._engine_call("takeback", timeout) as deadline:
            reply = self._exchange("takeback", deadline)
        words = reply.line.split()
        if words[0] != "expect":
            raise ProtocolError(f"{reply.line!r} in reply to takeback")
        return Position.parse(words[1:])

    def repeat(self, *, timeout: Optional[float] = None) -> Reply:
        """The last final reply again (e.g. the last `move` after the arm controller restarted:
        `reply.move`); a repeated `error` is raised, and `NothingToRepeatError` before any. The
        replies to `status`, `ping` and `id` count too (not `ping(token)`'s): with other threads
        asking those, the last reply may be theirs."""
        with self._engine_call("repeat", timeout) as deadline:
            return self._exchange("repeat", deadline)


def _reports(on_info: Optional[InfoCallback], turn: str) -> Optional[Callable[[str], None]]:
    """The reader's callback for the lines before a reply: each `info depth` line as an `Info`
    (its scores from `turn`'s point of view) to `on_info`."""
    if on_info is None:
        return None
    callback = on_info

    def line(text: str) -> None:
        if text.startswith("info depth "):
            callback(Info.parse(text, turn))

    return line
