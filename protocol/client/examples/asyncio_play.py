"""The same calls from asyncio (each runs in a worker thread)."""

import asyncio

from checkersbot_client import AsyncEngine, Limit, Position


async def main() -> None:
    async with await AsyncEngine.popen(["checkersbot", "serve"]) as engine:
        result = await engine.play(Position.start("b"), Limit(depth=4))
        print(f"asyncio: {result.move}")


asyncio.run(main())
