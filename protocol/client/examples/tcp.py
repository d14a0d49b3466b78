"""Over TCP, to a daemon started with `checkersbot serve --listen 7878`:

    python3 tcp.py 127.0.0.1:7878
"""

import sys

from checkersbot_client import Engine, EngineTimeoutError, Position

host, port = sys.argv[1].rsplit(":", 1)
with Engine.tcp(host, int(port)) as engine:  # close() leaves the daemon running
    print(f"round trip {engine.ping() * 1000:.1f} ms")
    engine.configure({"movetime": 1000, "depth": 0, "book": "off"})  # a search, not a book move
    engine.position(Position.start("b"))
    try:  # a reply that does not come in time...
        engine.board(Position.start().rows, "b", timeout=0.05)
    except EngineTimeoutError:
        print("no move within 50 ms")
    # ...leaves the engine usable: the late move is dropped when it comes, the next call
    # waits for it first, and repeat() gives it.
    print(f"the move: {engine.repeat().move}")
