"""The asyncio variant: the synchronous engine's calls run in worker threads
(`asyncio.to_thread`); the reader thread and every rule stay the same."""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import (IO, Awaitable, Callable, List, Mapping, Optional, Sequence, Type, TypeVar)

from ._engine import Analysis, Engine, EngineId, InfoCallback, OptionValue, Reply
from ._types import (BoardReply, Hint, Info, Limit, Move, MoveText, Option, PlayResult, Position,
                     Setup, Status)

T = TypeVar("T")


class AsyncAnalysis:
    """`Analysis` for asyncio: `async for info in analysis` gives each line as the daemon
    completes a depth; `stop()` ends it and `await wait()` gives the last complete depth. In an
    `async with` block it is stopped at the end."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis

    def __aiter__(self) -> "AsyncAnalysis":
        return self

    async def __anext__(self) -> Info:
        item = await asyncio.to_thread(self.analysis.next_or_none)
        if item is None:
            raise StopAsyncIteration
        return item

    @property
    def done(self) -> bool:
        return self.analysis.done

    @property
    def info(self) -> Optional[Info]:
        return self.analysis.info

    @property
    def multipv(self) -> List[Info]:
        return self.analysis.multipv

    def stop(self) -> None:
        """As `Analysis.stop` (returns at once)."""
        self.analysis.stop()

    async def wait(self, timeout: Optional[float] = None) -> List[Info]:
        return await asyncio.to_thread(self.analysis.wait, timeout)

    async def __aenter__(self) -> "AsyncAnalysis":
        return self

    async def __aexit__(self, kind: Optional[Type[BaseException]],
                        value: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        self.stop()
        await asyncio.to_thread(self.analysis.wait)


class AsyncEngine:
    """`Engine` for asyncio code: every call of `Engine`, awaited (`stop()` returns at once, as
    there; `id` and `options` are read when the engine is opened and after each `configure`, so
    that the properties never block). Cancelling a task that awaits `play`, `board`, `analyse`
    or `hint` sends `stop` (the daemon answers at once and the engine stays in step). As with
    `Engine`, `status`, `ping`, `id` and `stop` may be used while another task's call searches;
    another engine call meanwhile raises `EngineBusyError`."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @classmethod
    async def _opened(cls, open_engine: Callable[[], Engine]) -> "AsyncEngine":
        def opened() -> Engine:
            engine = open_engine()
            try:
                _ = engine.id, engine.options
            except BaseException:
                engine.close()
                raise
            return engine

        return cls(await asyncio.to_thread(opened))

    @classmethod
    async def popen(cls, argv: Sequence[str], *, timeout: Optional[float] = 30.0,
                    stderr: Optional[IO[bytes]] = None, cwd: Optional[str] = None,
                    env: Optional[Mapping[str, str]] = None) -> "AsyncEngine":
        return await cls._opened(lambda: Engine.popen(argv, timeout=timeout, stderr=stderr,
                                                      cwd=cwd, env=env))

    @classmethod
    async def tcp(cls, host: str, port: int, *,
                  timeout: Optional[float] = 30.0, token: Optional[str] = None) -> "AsyncEngine":
        return await cls._opened(lambda: Engine.tcp(host, port, timeout=timeout, token=token))

    @classmethod
    async def serial(cls, path: str, baud: int = 115200, *,
                     timeout: Optional[float] = 30.0) -> "AsyncEngine":
        return await cls._opened(lambda: Engine.serial(path, baud, timeout=timeout))

    async def __aenter__(self) -> "AsyncEngine":
        return self

    async def __aexit__(self, kind: Optional[Type[BaseException]],
                        value: Optional[BaseException], tb: Optional[TracebackType]) -> None:
        await self.close()

    async def _search(self, call: Callable[[], T]) -> T:
        task = asyncio.ensure_future(asyncio.to_thread(call))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            self.engine.stop()
            await asyncio.wait([task])
            raise

    def _run(self, call: Callable[[], T]) -> Awaitable[T]:
        return asyncio.to_thread(call)

    @property
    def id(self) -> EngineId:
        """As `Engine.id` (read when the engine was opened)."""
        return self.engine.id

    @property
    def options(self) -> Mapping[str, Option]:
        """As `Engine.options` (read when the engine was opened and after each `configure`)."""
        return self.engine.options

    def stop(self) -> None:
        """As `Engine.stop` (returns at once)."""
        self.engine.stop()

    async def close(self, timeout: float = 10.0) -> None:
        await self._run(lambda: self.engine.close(timeout))

    async def quit(self, timeout: Optional[float] = 10.0) -> None:
        await self._run(lambda: self.engine.quit(timeout))

    async def resync(self, timeout: Optional[float] = 30.0) -> None:
        await self._run(lambda: self.engine.resync(timeout))

    async def ping(self, token: Optional[str] = None, *, timeout: Optional[float] = None) -> float:
        return await self._run(lambda: self.engine.ping(token, timeout=timeout))

    async def status(self, *, timeout: Optional[float] = None) -> Status:
        return await self._run(lambda: self.engine.status(timeout=timeout))

    async def configure(self, options: Mapping[str, OptionValue], *,
                        timeout: Optional[float] = None) -> None:
        await self._run(lambda: self.engine.configure(options, timeout=timeout))

    async def read_options(self, *, timeout: Optional[float] = None) -> Mapping[str, Option]:
        return await self._run(lambda: self.engine.read_options(timeout=timeout))

    async def newgame(self, layout: Optional[str] = None, *,
                      timeout: Optional[float] = None) -> None:
        await self._run(lambda: self.engine.newgame(layout, timeout=timeout))

    async def position(self, setup: Setup, moves: Sequence[MoveText] = (), *,
                       timeout: Optional[float] = None) -> None:
        await self._run(lambda: self.engine.position(setup, moves, timeout=timeout))

    async def board(self, rows: str, side: str, *, timeout: Optional[float] = None,
                    on_info: Optional[InfoCallback] = None) -> BoardReply:
        return await self._search(
            lambda: self.engine.board(rows, side, timeout=timeout, on_info=on_info))

    async def play(self, position: Position, limit: Optional[Limit] = None, *,
                   moves: Sequence[MoveText] = (), timeout: Optional[float] = None,
                   on_info: Optional[InfoCallback] = None) -> PlayResult:
        return await self._search(
            lambda: self.engine.play(position, limit, moves=moves, timeout=timeout,
                                     on_info=on_info))

    async def analyse(self, setup: Optional[Setup] = None, limit: Optional[Limit] = None, *,
                      multipv: int = 1, infinite: bool = False,
                      timeout: Optional[float] = None) -> List[Info]:
        return await self._search(
            lambda: self.engine.analyse(setup, limit, multipv=multipv, infinite=infinite,
                                        timeout=timeout))

    async def analysis(self, setup: Optional[Setup] = None, *, multipv: int = 1,
                       timeout: Optional[float] = None) -> AsyncAnalysis:
        """As `Engine.analysis`: `async with await engine.analysis(...) as analysis: async for
        info in analysis: ...`."""
        return AsyncAnalysis(await self._run(
            lambda: self.engine.analysis(setup, multipv=multipv, timeout=timeout)))

    async def hint(self, limit: Optional[Limit] = None, *, timeout: Optional[float] = None,
                   on_info: Optional[InfoCallback] = None) -> Hint:
        return await self._search(
            lambda: self.engine.hint(limit, timeout=timeout, on_info=on_info))

    async def legal_moves(self, setup: Optional[Setup] = None, moves: Sequence[MoveText] = (), *,
                          timeout: Optional[float] = None) -> List[Move]:
        return await self._run(lambda: self.engine.legal_moves(setup, moves, timeout=timeout))

    async def takeback(self, *, timeout: Optional[float] = None) -> Position:
        return await self._run(lambda: self.engine.takeback(timeout=timeout))

    async def repeat(self, *, timeout: Optional[float] = None) -> Reply:
        return await self._run(lambda: self.engine.repeat(timeout=timeout))

    async def request(self, line: str, *, timeout: Optional[float] = None) -> Reply:
        return await self._run(lambda: self.engine.request(line, timeout=timeout))
