"""An analysis as it comes, as python-chess's `analysis`: each depth's lines while it runs."""

from checkersbot_client import Engine, Position

with Engine.popen(["checkersbot", "serve"]) as engine:
    with engine.analysis(Position.start("b"), multipv=2) as analysis:
        for info in analysis:  # each line of each depth, as the daemon completes it
            if info.multipv == 1:
                print(f"depth {info.depth}: {'-'.join(info.pv[0])} {info.score}")
            if info.depth >= 8:
                analysis.stop()  # or from another thread; the with block stops it too
    best = analysis.wait()  # the lines of the last complete depth
    print(f"best of {len(best)} at depth {best[0].depth}: {'-'.join(best[0].pv[0])}")
