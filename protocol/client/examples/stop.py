"""stop() from another thread: an analysis without limit, and a long search for a move."""

import threading

from checkersbot_client import Engine, Limit, Position

with Engine.popen(["checkersbot", "serve"]) as engine:
    timer = threading.Timer(0.5, engine.stop)
    timer.start()
    lines = engine.analyse(Position.start("b"), multipv=2, infinite=True)  # until stop()
    print(f"stopped at depth {lines[0].depth}: {[line.pv[0] for line in lines]}")

    started = threading.Event()

    def stop_once_started() -> None:
        started.wait()
        engine.stop()

    stopper = threading.Thread(target=stop_once_started)
    stopper.start()
    # on_info is called (on the reader thread) with each search report as it comes.
    result = engine.play(Position.start("b"), Limit(time=60), on_info=lambda _: started.set())
    stopper.join()
    print(f"stopped search: {result.move} at depth {result.info[-1].depth}")
