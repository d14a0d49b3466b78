"""Calls from several threads: status and ping are answered at once while another thread's
search runs; a call that needs the engine meanwhile is busy at once (EngineBusyError)."""

import threading

from checkersbot_client import Engine, EngineBusyError, Limit, Position

with Engine.popen(["checkersbot", "serve", "--book", "off"]) as engine:
    searching = threading.Event()

    def supervise() -> None:
        searching.wait()
        print(f"status: {engine.status().state}")  # answered while the bot searches
        print(f"ping: {engine.ping() < 1.0}")
        try:
            engine.analyse(Position.start("p"))
        except EngineBusyError as e:
            print(f"analyse: busy ({e.message})")
        engine.stop()  # the search returns its best move so far

    supervisor = threading.Thread(target=supervise)
    supervisor.start()
    result = engine.play(Position.start("b"), Limit(time=30), on_info=lambda _: searching.set())
    supervisor.join()
    print(f"stopped: {result.move}")
