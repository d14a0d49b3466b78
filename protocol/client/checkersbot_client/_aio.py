"""The asyncio variant: the synchronous engine's calls run in worker threads
(`asyncio.to_thread`); the reader thread and every rule stay the same."""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import IO, Awaitable, Callable, List, Mapping, Optional, Sequence, Type, TypeVar

from ._engine import Engine, InfoCallback, OptionValue, Reply
from ._types import BoardReply, Hint, Info, Limit, Option, PlayResult, Position, Setup

T = TypeVar("T")


class AsyncEngine:
    """`Engine` for asyncio code: the same calls, awaited. Cancelling a task that awaits `play`,
    `board`, `analyse` or `hint` sends `stop` (the daemon answers at once and the engine stays
    in step)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @classmethod
    async def popen(cls, argv: Sequence[str], *, timeout: Optional[float] = 30.0,
                    stderr: Optional[IO[bytes]] = None) -> "AsyncEngine":
        return cls(await asyncio.to_thread(Engine.popen, argv, timeout=timeout, stderr=stderr))

    @classmethod
    async def tcp(cls, host: str, port: int, *,
                  timeout: Optional[float] = 30.0) -> "AsyncEngine":
        return cls(await asyncio.to_thread(Engine.tcp, host, port, timeout=timeout))

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
    def options(self) -> Mapping[str, Option]:
        return self.engine.options

    def stop(self) -> None:
        """As `Engine.stop` (returns at once)."""
        self.engine.stop()

    async def close(self) -> None:
        await self._run(self.engine.close)

    async def quit(self) -> None:
        await self._run(self.engine.quit)

    async def ping(self, token: Optional[str] = None, *, timeout: Optional[float] = None) -> float:
        return await self._run(lambda: self.engine.ping(token, timeout=timeout))

    async def configure(self, options: Mapping[str, OptionValue], *,
                        timeout: Optional[float] = None) -> None:
        await self._run(lambda: self.engine.configure(options, timeout=timeout))

    async def read_options(self, *, timeout: Optional[float] = None) -> Mapping[str, Option]:
        return await self._run(lambda: self.engine.read_options(timeout=timeout))

    async def newgame(self, layout: Optional[str] = None, *,
                      timeout: Optional[float] = None) -> None:
        await self._run(lambda: self.engine.newgame(layout, timeout=timeout))

    async def position(self, setup: Setup, moves: Sequence[str] = (), *,
                       timeout: Optional[float] = None) -> None:
        await self._run(lambda: self.engine.position(setup, moves, timeout=timeout))

    async def board(self, rows: str, side: str, *, timeout: Optional[float] = None,
                    on_info: Optional[InfoCallback] = None) -> BoardReply:
        return await self._search(
            lambda: self.engine.board(rows, side, timeout=timeout, on_info=on_info))

    async def play(self, position: Position, limit: Optional[Limit] = None, *,
                   timeout: Optional[float] = None,
                   on_info: Optional[InfoCallback] = None) -> PlayResult:
        return await self._search(
            lambda: self.engine.play(position, limit, timeout=timeout, on_info=on_info))

    async def analyse(self, setup: Optional[Setup] = None, limit: Optional[Limit] = None, *,
                      multipv: int = 1, infinite: bool = False,
                      timeout: Optional[float] = None) -> List[Info]:
        return await self._search(
            lambda: self.engine.analyse(setup, limit, multipv=multipv, infinite=infinite,
                                        timeout=timeout))

    async def hint(self, limit: Optional[Limit] = None, *, timeout: Optional[float] = None,
                   on_info: Optional[InfoCallback] = None) -> Hint:
        return await self._search(
            lambda: self.engine.hint(limit, timeout=timeout, on_info=on_info))

    async def takeback(self, *, timeout: Optional[float] = None) -> Position:
        return await self._run(lambda: self.engine.takeback(timeout=timeout))

    async def repeat(self, *, timeout: Optional[float] = None) -> Reply:
        return await self._run(lambda: self.engine.repeat(timeout=timeout))

    async def request(self, line: str, *, timeout: Optional[float] = None) -> Reply:
        return await self._run(lambda: self.engine.request(line, timeout=timeout))
