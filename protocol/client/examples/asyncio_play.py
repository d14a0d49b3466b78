"""The same calls from asyncio (each runs in a worker thread), and an analysis as it comes."""

import asyncio

from checkersbot_client import AsyncEngine, Limit, Position


async def main() -> None:
    async with await AsyncEngine.popen(["checkersbot", "serve"]) as engine:
        result = await engine.play(Position.start("b"), Limit(depth=4))
        print(f"asyncio: {result.move}")
        print(f"status: {(await engine.status()).state}")
        async with await engine.analysis(Position.start("p")) as analysis:
            async for info in analysis:
                if info.depth == 6:
                    analysis.stop()
        print(f"asyncio analysis: {'-'.join((await analysis.wait())[0].pv[0])}")


asyncio.run(main())
