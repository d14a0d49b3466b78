#!/usr/bin/env python3
"""Tests of checkersbot-client against the real daemon (subprocess and TCP on 127.0.0.1).

    CHECKERSBOT_BIN=./target/release/checkersbot python3 protocol/client/test_client.py

Run by `cargo test --release` (tests/client.rs), which sets CHECKERSBOT_BIN. Every call to the
daemon has a timeout, so a fault fails a test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import queue
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, Type

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BIN = os.environ.get("CHECKERSBOT_BIN", str(ROOT / "target" / "release" / "checkersbot"))
# Every daemon these tests start (and the examples they run) sees no endgame database: `serve`
# loads one from $XDG_CACHE_HOME/checkersbot/egdb when it is there, and a developer's own
# database would change the golden game's replies; and none builds one (`--egdb-build off`: the
# golden `status` lines say `egdbbuild off`; under /dev/null no directory could be made anyway).
os.environ["XDG_CACHE_HOME"] = "/dev/null/checkersbot-client-tests-cache"

# The package as it is in the source tree (next to this file: sys.path[0]); the examples are
# run against the copy that pip installs, offline.
from checkersbot_client import (  # noqa: E402
    START_8X8, Analysis, ArmIncompleteError, AsyncAnalysis, AsyncEngine, BadBoardError,
    BadFenError, BadOptionError, BoolOption, BotMove, BusyError, ChoiceOption, EngineBusyError,
    EngineError, EngineTerminatedError, EngineTimeoutError, Engine, GameOver,
    IllegalTransitionError, Info, IntOption, Limit, MisreadError, Move, NoGameError,
    NothingToRepeatError,
    NothingToTakeBackError, NotPersonsTurnError, Position, PovScore, ProtocolError, Score,
    Status, StringOption, SyntaxReplyError, TakenOverError, UnauthorizedError, Unchanged,
    UnknownCommandError, Wait,
    parse_board_reply, parse_option)
from checkersbot_client._engine import _Link  # noqa: E402
from checkersbot_client._types import rotate_move_text, setup_side  # noqa: E402

CALL = 60.0  # the timeout of calls that should answer within seconds
# The daemons these tests start search every move: the built-in book, on by default at the
# default level (hard), would answer the start position at once.
PERSON_PLAYED = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/_p______/p___p_p_/_p_p_p_p/p_p_p_p_"


def daemon(*args: str) -> Engine:
    return Engine.popen([BIN, "serve", "--book", "off", "--egdb-build", "off", "--log-level", "error", *args], timeout=CALL)


def fixed() -> Engine:
    """A daemon whose moves are the same every run."""
    return daemon("--depth", "4", "--movetime", "0")


class Parsing(unittest.TestCase):
    def test_board_replies(self) -> None:
        r = parse_board_reply("move F4 H6 captures G5 crown", ["info opponent E3 F4"])
        assert isinstance(r, BotMove)
        self.assertEqual(r.move, Move(["F4", "H6"], ["G5"], True))
        self.assertEqual(str(r.move), "F4 H6 captures G5 crown")
        self.assertEqual(r.opponent, Move(["E3", "F4"]))
        w = parse_board_reply("wait remove-captured D4,F6: the move E3 C5 G7 is made; remove", [])
        self.assertEqual(w, Wait(w.line, [], "remove-captured", ["D4", "F6"],
                                 "the move E3 C5 G7 is made; remove"))
        g = parse_board_reply("gameover win p nomoves", [])
        self.assertEqual((g.result, g.winner, g.reason), ("win", "p", "nomoves"))  # type: ignore
        d = parse_board_reply("gameover draw repetition", [])
        self.assertEqual((d.result, d.winner, d.reason), ("draw", None, "repetition"))  # type: ignore
        with self.assertRaises(ProtocolError):
            parse_board_reply("ok", [])
        with self.assertRaises(ProtocolError):
            Move.parse(["C1"])

    def test_info_and_scores(self) -> None:
        i = Info.parse("info depth 9 score dbwin 12 nodes 100 time 250 nps 400 egdb 3 "
                       "pv E5-C3-A1 B2-C3")
        self.assertEqual((i.depth, i.nodes, i.time, i.nps, i.egdb), (9, 100, 0.25, 400, 3))
        self.assertEqual(i.pv, [["E5", "C3", "A1"], ["B2", "C3"]])
        assert i.score is not None
        self.assertTrue(i.score.relative.is_win and i.score.relative.from_database)
        self.assertEqual((i.score.relative.cp, i.score.relative.plies), (None, 12))
        self.assertEqual(i.score, PovScore(Score("dbwin", 12), "b"))  # the bot's own search
        line = Info.parse("line 2 depth 4 score cp -15 pv C5-D6 F2-E3", "p")
        self.assertEqual((line.multipv, line.depth, line.score),
                         (2, 4, PovScore(Score("cp", -15), "p")))
        growing = Info.parse("info line 3 depth 7 score win 9 nodes 5 pv C5-D6", "p")
        self.assertEqual((growing.multipv, growing.depth, growing.nodes), (3, 7, 5))
        book = Info.parse("info depth 0 score cp 20 book pv C5-D4")
        self.assertEqual((book.book, book.pv), (True, [["C5", "D4"]]))
        self.assertEqual(Score("loss", 7).is_loss, True)
        with self.assertRaises(ProtocolError):
            Info.parse("info depth 3 score mate 2 pv A1-B2")

    def test_scores_have_a_point_of_view(self) -> None:
        self.assertEqual(-Score("cp", 30), Score("cp", -30))
        self.assertEqual((-Score("win", 7), -Score("dbloss", 300)),
                         (Score("loss", 7), Score("dbwin", 300)))
        hint = PovScore(Score("cp", 40), "p")  # a hint: the person to move
        self.assertEqual((hint.relative, hint.person(), hint.bot()),
                         (Score("cp", 40), Score("cp", 40), Score("cp", -40)))
        self.assertEqual(PovScore(Score("win", 5), "b").pov("p"), Score("loss", 5))
        self.assertEqual(-hint, PovScore(Score("cp", -40), "b"))
        self.assertEqual(hint.bot(), (-hint).bot())
        self.assertEqual(str(hint), "cp 40 (p to move)")
        rotated = Info.parse("info depth 2 score cp 12 pv C5-D4", "b").rotated(8)
        assert rotated.score is not None
        self.assertEqual((rotated.score.person(), rotated.pv), (Score("cp", 12), [["F2", "E3"]]))

    def test_options(self) -> None:
        self.assertEqual(parse_option("option movetime type int min 0 max 3600000 default 1000 "
                                      "value 0"), IntOption("movetime", 1000, 0, 0, 3600000))
        self.assertEqual(parse_option("option strict type bool default on value off"),
                         BoolOption("strict", True, False))
        self.assertEqual(parse_option("option level type choice choices easy,hard default hard "
                                      "value easy").choices, ("easy", "hard"))  # type: ignore
        self.assertEqual(parse_option("option record type string default off value /a b/c"),
                         StringOption("record", "off", "/a b/c"))

    def test_errors_carry_code_message_and_squares(self) -> None:
        e = EngineError.from_line("error arm-incomplete C1,D2: the arm has not completed move")
        self.assertIsInstance(e, ArmIncompleteError)
        self.assertEqual((e.code, e.squares), ("arm-incomplete", ["C1", "D2"]))
        self.assertEqual(e.message, "C1,D2: the arm has not completed move")
        t = EngineError.from_line("error illegal-transition E3,F2: backwards: the man moved")
        assert isinstance(t, IllegalTransitionError)
        self.assertEqual((t.squares, t.reason), (["E3", "F2"], "backwards"))
        self.assertNotIsInstance(t, MisreadError)
        m = EngineError.from_line(
            "error illegal-transition A3: misread: the move F4 E5 explains every other square; "
            "check the camera at A3 (a piece where the square should be empty)")
        assert isinstance(m, MisreadError)
        self.assertEqual((m.squares, m.reason, m.explained_by, m.ambiguous),
                         (["A3"], "misread", "F4 E5", False))
        m = EngineError.from_line(
            "error illegal-transition D6: misread: a piece appeared on D6 with no move to explain "
            "it; check the camera and the board")
        assert isinstance(m, MisreadError)
        self.assertEqual((m.squares, m.explained_by), (["D6"], None))
        m = EngineError.from_line(
            "error illegal-transition D4,E3: ambiguous: 2 explanations are equally near: no move "
            "but for D4 (...), or the move E3 D4 but for E3 (...); check the camera at D4 E3")
        assert isinstance(m, MisreadError)
        self.assertEqual((m.squares, m.ambiguous, m.explained_by), (["D4", "E3"], True, None))
        self.assertEqual(EngineError.from_line("error something-new text").code, "something-new")
        self.assertIsInstance(EngineError.from_line("error taken-over x"), EngineTerminatedError)

    def test_positions(self) -> None:
        start = Position.start("p")
        self.assertEqual(start.rotated(), Position(START_8X8, "b"))
        self.assertEqual(start.rotated().rotated(), start)
        self.assertEqual(Move(["F2", "E1"]).rotated(8), Move(["C5", "D6"]))
        after = start.after(Move(["F2", "E1"]))
        self.assertEqual(after, Position(PERSON_PLAYED, "b"))
        self.assertEqual(setup_side(Position.start("p")), "p")
        self.assertEqual([setup_side(t) for t in ("start b", "fen W:W21:B1", "fen B:W21:B1",
                                                  f"{START_8X8} p", "pdn 1. 11-15 *")],
                         ["b", "p", "b", "p", None])
        self.assertEqual(rotate_move_text("F2-E3", 8), "C5-D4")
        self.assertEqual(rotate_move_text(Move(["E5", "C3", "A1"], ["D4", "B2"]), 8), "D2-F4-H6")
        self.assertEqual(rotate_move_text("22x15", 8), "11x18")  # PDN: n -> 33 - n on 8x8
        self.assertEqual(rotate_move_text("1-5", 4), "8-4")

    def test_limits(self) -> None:
        with self.assertRaises(ValueError):
            Limit().settings()
        no = {"movetime": "0", "depth": "0", "nodes": "0", "clock": "off"}
        self.assertEqual(Limit(time=0.25).settings(), {**no, "movetime": "250"})
        self.assertEqual(Limit(depth=6, nodes=20000).settings(),
                         {**no, "depth": "6", "nodes": "20000"})
        self.assertEqual(Limit(clock=30, inc=0.5).settings(), {**no, "clock": "30+0.5"})
        self.assertEqual(Limit(clock=2.05, depth=3).settings(),
                         {**no, "depth": "3", "clock": "2.05+0"})
        for bad in (Limit(time=1, clock=2), Limit(inc=1, depth=2), Limit(nodes=0),
                    Limit(clock=0), Limit(time=-1)):
            with self.assertRaises(ValueError, msg=str(bad)):
                bad.settings()


class FakeLink(_Link):
    """A daemon played by the test: each request written comes out of `requests`; `say` writes
    a line to the client. Interleavings that a real daemon shows only by chance are shown here
    on purpose."""

    def __init__(self) -> None:
        self.requests: "queue.Queue[str]" = queue.Queue()
        self.lines: "queue.Queue[bytes]" = queue.Queue()

    def write(self, data: bytes) -> None:
        text = data.decode().rstrip("\n")
        if text.startswith("ping sync-"):  # connecting: answered at once
            self.say(f"pong {text[5:]}")
        else:
            self.requests.put(text)

    def readline(self) -> bytes:
        return self.lines.get()

    def close(self, timeout: float) -> None:
        self.lines.put(b"")

    def say(self, *lines: str) -> None:
        for line in lines:
            self.lines.put(line.encode() + b"\n")

    def next(self) -> str:
        return self.requests.get(timeout=CALL)


def in_thread(call: Callable[[], Any]) -> "queue.Queue[Any]":
    """Runs `call` in a thread; its result (or exception) comes out of the queue."""
    out: "queue.Queue[Any]" = queue.Queue()

    def run() -> None:
        try:
            out.put(call())
        except BaseException as e:  # handed to the test
            out.put(e)

    threading.Thread(target=run, daemon=True).start()
    return out


class ReplyMatching(unittest.TestCase):
    """Which request a reply answers, when replies overtake a search (see _engine.py)."""

    def test_replies_that_overtake_a_search_reach_their_callers(self) -> None:
        link = FakeLink()
        bot = Engine(link, timeout=CALL)
        infos: List[Info] = []
        move = in_thread(lambda: bot.board(START_8X8, "b", timeout=CALL, on_info=infos.append))
        self.assertEqual(link.next(), f"board {START_8X8} b")
        link.say("info depth 1 score cp 16 pv C5-D4")  # the search has started
        status = in_thread(lambda: bot.status(timeout=CALL))
        self.assertEqual(link.next(), "status")
        pong = in_thread(lambda: bot.ping(timeout=CALL))
        self.assertEqual(link.next(), "ping")
        barrier = in_thread(lambda: bot.ping("after-move", timeout=CALL))
        self.assertEqual(link.next(), "ping after-move")
        hello = in_thread(lambda: bot.id)
        self.assertEqual(link.next(), "hello")
        bot.stop()
        self.assertEqual(link.next(), "stop")
        # Engine calls are busy at once, and nothing is sent for them.
        for call in (lambda: bot.analyse(Position.start("b")), lambda: bot.newgame(),
                     lambda: bot.legal_moves(), lambda: bot.repeat(), bot.takeback):
            with self.assertRaises(EngineBusyError) as busy:
                call()
            self.assertIn("board is under way", busy.exception.message)
            self.assertIsInstance(busy.exception, BusyError)
        self.assertTrue(link.requests.empty())
        # The daemon answers at once what it can, in order, then the move, then what waited.
        link.say("pong", "hello checkersbot 0.1.0 protocol 1",
                 "status state search size 8 side b diagnosis none",
                 "info depth 2 score cp 20 pv C5-D4 F2-E3", "move C5 D4", "pong after-move",
                 "ok")
        reply = move.get(timeout=CALL)
        assert isinstance(reply, BotMove), reply
        self.assertEqual((str(reply.move), [i.depth for i in reply.info]), ("C5 D4", [1, 2]))
        self.assertEqual([i.depth for i in infos], [1, 2])
        self.assertEqual(status.get(timeout=CALL).state, "search")
        self.assertIsInstance(pong.get(timeout=CALL), float)
        self.assertIsInstance(barrier.get(timeout=CALL), float)
        self.assertEqual(hello.get(timeout=CALL).version, "0.1.0")
        # In step: the next engine call gets its own reply.
        rep = in_thread(lambda: bot.request("hello there", timeout=CALL))
        self.assertEqual(link.next(), "hello there")
        link.say("error syntax usage: hello")
        self.assertIsInstance(rep.get(timeout=CALL), SyntaxReplyError)
        bot._shut(1.0)

    def test_repeat_is_never_overtaken(self) -> None:
        """`repeat` may answer `status ...` or `pong`: a status asked after it gets the next."""
        link = FakeLink()
        bot = Engine(link, timeout=CALL)
        again = in_thread(lambda: bot.repeat(timeout=CALL))
        self.assertEqual(link.next(), "repeat")
        status = in_thread(lambda: bot.status(timeout=CALL))
        self.assertEqual(link.next(), "status")
        link.say("status state arm side b diagnosis none", "status state person diagnosis none")
        self.assertIn("state arm", again.get(timeout=CALL).line)
        self.assertEqual(status.get(timeout=CALL).state, "person")
        bot._shut(1.0)

    def test_a_late_reply_is_dropped_and_waited_for(self) -> None:
        link = FakeLink()
        bot = Engine(link, timeout=CALL)
        with self.assertRaises(EngineTimeoutError):
            bot.board(START_8X8, "b", timeout=0.05)
        self.assertEqual(link.next(), f"board {START_8X8} b")
        # status goes at once; the next engine call waits for the late move first.
        status = in_thread(lambda: bot.status(timeout=CALL))
        self.assertEqual(link.next(), "status")
        again = in_thread(lambda: bot.repeat(timeout=CALL))
        time.sleep(0.05)
        self.assertTrue(link.requests.empty(), "repeat waits for the late reply")
        link.say("status state search diagnosis none", "move C5 D4")
        self.assertEqual(status.get(timeout=CALL).state, "search")
        self.assertEqual(link.next(), "repeat")
        link.say("move C5 D4")
        self.assertEqual(str(again.get(timeout=CALL).move), "C5 D4")
        bot._shut(1.0)


    def test_resync_drops_a_reply_that_never_comes(self) -> None:
        link = FakeLink()
        bot = Engine(link, timeout=CALL)
        with self.assertRaises(EngineTimeoutError):
            bot.board(START_8X8, "b", timeout=0.05)
        self.assertEqual(link.next(), f"board {START_8X8} b")  # its reply is lost on the way
        with self.assertRaises(EngineTimeoutError):
            bot.repeat(timeout=0.05)  # an engine call waits for the late reply
        bot.resync(timeout=CALL)  # which resync gives up
        again = in_thread(lambda: bot.repeat(timeout=CALL))
        self.assertEqual(link.next(), "repeat")
        link.say("unchanged")
        self.assertEqual(again.get(timeout=CALL).kind, "unchanged")
        bot._shut(1.0)


class Threads(unittest.TestCase):
    """The real daemon, several threads at once."""

    def test_status_and_ping_answer_while_play_searches_and_engine_calls_are_busy(self) -> None:
        """5 rounds: a search of 60 s; meanwhile another thread's status, ping and id are answered
        promptly (before the search ends: it ends only at the stop), ping TOKEN after it, and
        analyse, legal_moves and newgame are busy at once; then stop."""
        with daemon("--info", "iterations") as bot:
            for run in range(5):
                started = threading.Event()
                said: Dict[str, Any] = {}

                def meanwhile() -> None:
                    started.wait(CALL)
                    t = time.monotonic()
                    said["status"] = bot.status(timeout=CALL)
                    said["status took"] = time.monotonic() - t
                    said["ping took"] = bot.ping(timeout=CALL)
                    said["id"] = bot.id
                    barrier = in_thread(lambda: bot.ping(f"after-{run}", timeout=CALL))
                    for name, call in (("analyse", lambda: bot.analyse(Position.start("b"))),
                                       ("legal", lambda: bot.legal_moves()),
                                       ("newgame", lambda: bot.newgame())):
                        t = time.monotonic()
                        try:
                            call()
                        except EngineBusyError as e:
                            said[name] = e
                        said[f"{name} took"] = time.monotonic() - t
                    said["searching"] = not done.is_set()
                    bot.stop()
                    said["barrier"] = barrier.get(timeout=CALL)

                done = threading.Event()
                other = threading.Thread(target=meanwhile)
                other.start()
                result = bot.play(Position.start("b" if run % 2 else "p"), Limit(time=60),
                                  timeout=CALL, on_info=lambda _: started.set())
                done.set()
                other.join(CALL)
                self.assertIsNotNone(result.move, f"run {run}")
                self.assertEqual(said["status"].state, "search", said)
                self.assertTrue(said["searching"], "answered while the search ran")
                self.assertEqual(said["id"].name, "checkersbot")
                self.assertIsInstance(said["barrier"], float, said)
                for name in ("analyse", "legal", "newgame"):
                    self.assertIsInstance(said[name], EngineBusyError, name)
                    self.assertLess(said[f"{name} took"], 1.0, said)  # at once: nothing sent
                # Prompt on a loaded machine: the search holds a core, not the daemon's loop.
                self.assertLess(said["status took"], 5.0, said)
                self.assertLess(said["ping took"], 5.0, said)
                sys.stderr.write(f"  run {run}: status {said['status took'] * 1000:.1f} ms, "
                                 f"ping {said['ping took'] * 1000:.1f} ms, analyse busy in "
                                 f"{said['analyse took'] * 1000:.2f} ms\n")
                bot.ping("in-step", timeout=CALL)

    def test_many_threads_get_their_own_replies(self) -> None:
        """Three threads ask status, ping, ping TOKEN and id without pause while the main thread
        plays, analyses, hints and lists moves: every reply is of the kind asked for."""
        with daemon("--depth", "4", "--movetime", "0") as bot:
            stop = threading.Event()
            errors: List[BaseException] = []
            counts = [0, 0, 0]

            def asker(k: int) -> None:
                try:
                    n = 0
                    while not stop.is_set():
                        n += 1
                        what = n % 4
                        if what == 0:
                            self.assertIn(bot.status(timeout=CALL).state,
                                          ("nogame", "start", "search", "bot", "arm", "person",
                                           "over"))
                        elif what == 1:
                            bot.ping(timeout=CALL)
                        elif what == 2:
                            bot.ping(f"t{k}-{n}", timeout=CALL)
                        else:
                            self.assertEqual(bot.id.protocol, 1)
                        counts[k] += 1
                except BaseException as e:
                    errors.append(e)

            askers = [threading.Thread(target=asker, args=(k,)) for k in range(3)]
            for t in askers:
                t.start()
            try:
                for run in range(6):
                    result = bot.play(Position.start("b"), Limit(depth=4), timeout=CALL)
                    self.assertEqual(result.move, Move(["C5", "D4"]))
                    lines = bot.analyse(Position.start("p"), Limit(depth=3), multipv=2,
                                        timeout=CALL)
                    self.assertEqual([line.multipv for line in lines], [1, 2])
                    self.assertEqual(len(bot.legal_moves(Position.start("b"), timeout=CALL)), 7)
                    bot.newgame(timeout=CALL)
                    self.assertIsInstance(bot.board(START_8X8, "p", timeout=CALL), Unchanged)
                    self.assertEqual(len(bot.hint(timeout=CALL).move.path), 2)
                    # The last final reply: the hint's, or a status or pong asked since.
                    self.assertIn(bot.repeat(timeout=CALL).kind, ("hint", "status", "pong"))
            finally:
                stop.set()
                for t in askers:
                    t.join(CALL)
            self.assertEqual(errors, [])
            self.assertTrue(all(counts), counts)
            sys.stderr.write(f"  replies to the askers meanwhile: {counts}\n")


KINGS = "_B______/________/________/________/________/________/________/______P_"
"""A bot king on A1 and a person's king on H6, far apart: they can shuffle to a repetition."""
SHUFFLE = ["A1-B2", "H6-G5", "B2-A1", "G5-H6"] * 2
"""Twice there and back: the position after these eight moves stands for the third time."""


class PythonChessParity(unittest.TestCase):
    """What python-chess's `chess.engine` offers, here: play with the game's moves and a ponder
    move, analysis as it comes, Limit(time, depth, nodes, clock, inc), scores with a point of
    view, legal moves, and an AsyncEngine with every call of Engine."""

    def test_async_engine_has_every_call_of_engine(self) -> None:
        def public(cls: type) -> Dict[str, List[str]]:
            calls: Dict[str, List[str]] = {}
            for name, member in inspect.getmembers(cls):
                if name.startswith("_"):
                    continue
                if isinstance(member, property):
                    calls[name] = ["property"]
                else:
                    calls[name] = [p for p in inspect.signature(member).parameters
                                   if p not in ("self", "cls")]
            return calls

        sync, aio = public(Engine), public(AsyncEngine)
        self.assertEqual(sorted(set(sync) - set(aio)), [])
        self.assertEqual(sorted(set(aio) - set(sync)), [])  # (and `engine`, the one it wraps)
        for name, params in sync.items():
            self.assertEqual(aio[name], params, name)
        for name in sync:
            if name not in ("stop", "id", "options"):
                self.assertTrue(inspect.iscoroutinefunction(getattr(AsyncEngine, name)), name)
        self.assertEqual(sorted(n for n in dir(Analysis) if not n.startswith("_")),
                         ["done", "info", "multipv", "next_or_none", "stop", "wait"])
        # (`async for` in place of next_or_none)
        self.assertEqual(sorted(n for n in dir(AsyncAnalysis) if not n.startswith("_")),
                         ["done", "info", "multipv", "stop", "wait"])

    def test_play_with_the_games_moves_and_a_ponder_move(self) -> None:
        with fixed() as bot:
            # The daemon sees the history: the eighth move makes the third repetition.
            over = bot.play(Position(KINGS, "b"), moves=SHUFFLE, timeout=CALL)
            self.assertIsNone(over.move)
            assert over.gameover is not None
            self.assertEqual((over.gameover.result, over.gameover.reason), ("draw", "repetition"))
            self.assertEqual(bot.status(timeout=CALL).fields.get("plies"), "8")
            # Seven moves: the person is to move (the board is turned round for the daemon).
            person = bot.play(Position(KINGS, "b"), moves=SHUFFLE[:7], timeout=CALL)
            assert person.move is not None and person.score is not None
            self.assertEqual(person.move.path[0], "G5")
            self.assertEqual(person.score.turn, "p")
            after7 = Position(KINGS, "b")
            for m in SHUFFLE[:7]:
                after7 = after7.after(Move(m.split("-")))
            self.assertIn(person.move, bot.legal_moves(after7, timeout=CALL))
            self.assertIn(person.move, bot.legal_moves(Position(KINGS, "b"), SHUFFLE[:7],
                                                       timeout=CALL))
            # The ponder move: the second move of the principal variation, as a legal move.
            for side in ("b", "p"):
                result = bot.play(Position.start(side), Limit(depth=6), timeout=CALL)
                assert result.move is not None and result.ponder is not None
                self.assertEqual(result.ponder.path, result.info[-1].pv[1])
                after = Position.start(side).after(result.move)
                self.assertIn(result.ponder, bot.legal_moves(after, timeout=CALL))
                assert result.score is not None
                self.assertEqual(result.score.turn, side)

    def test_limits_nodes_and_clock(self) -> None:
        with daemon("--info", "iterations") as bot:
            moves = set()
            for _ in range(2):  # a node budget with one thread: the same search every time
                r = bot.play(Position.start("b"), Limit(nodes=20000), timeout=CALL)
                moves.add((str(r.move), r.info[-1].depth))
                self.assertLess(r.info[-1].nodes or 0, 20000 + 2048)
            self.assertEqual(len(moves), 1, moves)
            began = time.monotonic()
            r = bot.play(Position.start("b"), Limit(clock=1.0, inc=0.05), timeout=CALL)
            self.assertIsNotNone(r.move)
            self.assertLess(time.monotonic() - began, 5)  # at most 4/5 of the second, plus links
            r = bot.play(Position.start("b"), Limit(depth=3, nodes=10 ** 9), timeout=CALL)
            self.assertEqual(r.info[-1].depth, 3)
            # The configured values are back for the calls without a limit.
            opts = bot.read_options(timeout=CALL)
            self.assertEqual([opts[n].value for n in ("movetime", "depth", "nodes", "clock")],
                             [1000, 0, 0, "off"])
            bot.configure({"nodes": 5000}, timeout=CALL)
            self.assertEqual(bot.options["nodes"].value, 5000)
            with self.assertRaises(BadOptionError):
                bot.configure({"nodes": -1}, timeout=CALL)

    def test_analysis_as_it_comes_and_stopped(self) -> None:
        with daemon() as bot:
            with bot.analysis(Position.start("p"), multipv=2) as analysis:
                seen = []
                for info in analysis:
                    seen.append((info.depth, info.multipv))
                    assert info.score is not None
                    self.assertEqual(info.score.turn, "p")
                    if info.depth == 4 and info.multipv == 2:
                        # Engine calls are busy while it runs; status is not.
                        with self.assertRaises(EngineBusyError):
                            bot.hint(timeout=CALL)
                        self.assertEqual(bot.status(timeout=CALL).state, "nogame")
                        analysis.stop()
                self.assertEqual(seen[:8], [(d, k) for d in (1, 2, 3, 4) for k in (1, 2)])
                lines = analysis.wait(timeout=CALL)
                self.assertEqual([line.multipv for line in lines], [1, 2])
                self.assertGreaterEqual(lines[0].depth, 4)
                self.assertEqual(analysis.info, analysis.multipv[0])
            self.assertTrue(analysis.done)
            # The engine is free again; an analysis of the game without a game is an error.
            self.assertEqual(len(bot.legal_moves("start b", timeout=CALL)), 7)
            with bot.analysis() as failed:
                with self.assertRaises(NoGameError):
                    list(failed)

    def test_async_analysis_and_calls(self) -> None:
        async def main() -> Tuple[List[int], int, str, Status]:
            async with await AsyncEngine.popen([BIN, "serve", "--book", "off", "--egdb-build", "off", "--log-level", "error"]) as bot:
                depths: List[int] = []
                async with await bot.analysis(Position.start("b")) as analysis:
                    async for info in analysis:
                        depths.append(info.depth)
                        if info.depth == 3:
                            analysis.stop()
                    lines = await analysis.wait()
                moves = await bot.legal_moves(Position.start("p"))
                result = await bot.play(Position.start("b"), Limit(depth=3),
                                        moves=["C5-D4", "F2-E3"])
                status = await bot.status()
                self.assertEqual(bot.id.protocol, 1)
                self.assertIn("nodes", bot.options)
                await bot.resync()
                return depths, len(moves) + len(lines), str(result.move), status

        depths, count, move, status = asyncio.run(asyncio.wait_for(main(), CALL))
        self.assertEqual(depths[:3], [1, 2, 3])
        self.assertEqual(count, 7 + 1)
        self.assertRegex(move, r"^[A-H]\d [A-H]\d")
        self.assertEqual((status.state, status.fields.get("plies")), ("arm", "3"))


class AgainstTheDaemon(unittest.TestCase):
    def test_calls_and_replies(self) -> None:
        with fixed() as bot:
            # Connecting sends only `ping TOKEN`, which `repeat` does not record.
            with self.assertRaises(NothingToRepeatError):
                bot.repeat(timeout=CALL)
            self.assertEqual((bot.id.name, bot.id.protocol), ("checkersbot", 1))
            self.assertLess(bot.ping(timeout=CALL), CALL)
            bot.ping("a-token", timeout=CALL)
            with self.assertRaises(NoGameError):
                bot.board("_b_b/____/____/p_p_", "b", timeout=CALL)
            bot.newgame("4", timeout=CALL)
            reply = bot.board("_b_b/____/____/p_p_", "b", timeout=CALL)
            assert isinstance(reply, BotMove)
            self.assertEqual(str(reply.move), "A1 B2")
            self.assertEqual([i.depth for i in reply.info], [1, 2, 3, 4])
            self.assertEqual(bot.repeat(timeout=CALL).move, reply.move)
            self.assertIsInstance(bot.board("___b/__b_/____/p_p_", "p", timeout=CALL), Unchanged)
            reply = bot.board("___b/__b_/_p__/__p_", "b", timeout=CALL)
            assert isinstance(reply, BotMove)
            self.assertEqual(reply.opponent, Move(["D0", "C1"]))
            self.assertEqual(reply.move, Move(["B2", "D0"], ["C1"], True))
            self.assertEqual(bot.request("hello", timeout=CALL).kind, "hello")
            bot.quit()
            with self.assertRaises(EngineTerminatedError):
                bot.ping(timeout=CALL)

    def test_status_reports_the_tracked_game_without_changing_it(self) -> None:
        with fixed() as bot:
            self.assertEqual(bot.status(timeout=CALL).state, "nogame")
            bot.newgame("4", timeout=CALL)
            bot.board("_b_b/____/____/p_p_", "b", timeout=CALL)
            st = bot.status(timeout=CALL)
            self.assertEqual(st.state, "arm")
            self.assertEqual((st.position, st.side), ("_b_b/____/____/p_p_", "b"))
            self.assertEqual(st.expect, "___b/__b_/____/p_p_")
            self.assertIsNone(st.diagnosis)
            with self.assertRaises(ArmIncompleteError):
                bot.board("_b_b/____/____/p_p_", "b", timeout=CALL)
            st = bot.status(timeout=CALL)
            self.assertTrue((st.diagnosis or "").startswith("error arm-incomplete"), st)
            self.assertEqual(st.fields.get("level"), "hard")
            self.assertIsInstance(bot.board("___b/__b_/____/p_p_", "p", timeout=CALL), Unchanged)
            self.assertEqual(bot.status(timeout=CALL).state, "person")
        line = "status state person size 8 eval my\\x20weights.cbev future-key 7 diagnosis none"
        parsed = Status.parse(line)
        self.assertEqual(parsed.fields["eval"], "my weights.cbev")
        self.assertEqual(parsed.fields["future-key"], "7")
        self.assertIsNone(parsed.diagnosis)
        with self.assertRaises(ProtocolError):
            Status.parse("ok")

    def test_error_replies_are_typed_exceptions(self) -> None:
        with fixed() as bot:
            bot.newgame(timeout=CALL)
            cases: List[Tuple[Callable[[], object], Type[EngineError]]] = [
                (lambda: bot.request("fly away", timeout=CALL), UnknownCommandError),
                (lambda: bot.request("board x", timeout=CALL), SyntaxReplyError),
                (lambda: bot.board("_b_b/____", "b", timeout=CALL), BadBoardError),
                (lambda: bot.position("fen X:W1", timeout=CALL), BadFenError),
                (lambda: bot.configure({"threads": 65}, timeout=CALL), BadOptionError),
                (lambda: bot.hint(timeout=CALL), EngineError),
                (lambda: bot.takeback(timeout=CALL), NoGameError),
            ]
            for call, kind in cases:
                with self.assertRaises(kind) as caught:
                    call()
                error = caught.exception
                assert isinstance(error, EngineError)
                self.assertTrue(error.code and error.message, error)
                self.assertTrue(error.line.startswith(f"error {error.code} "))
            bot.board(START_8X8, "p", timeout=CALL)
            reply = bot.board(PERSON_PLAYED, "p", timeout=CALL)
            assert isinstance(reply, BotMove)
            with self.assertRaises(ArmIncompleteError) as arm:
                bot.board(PERSON_PLAYED, "p", timeout=CALL)
            self.assertEqual(arm.exception.squares, reply.move.path)
            done = Position(PERSON_PLAYED, "b").after(reply.move)
            self.assertIsInstance(bot.board(done.rows, "p", timeout=CALL), Unchanged)
            with self.assertRaises(IllegalTransitionError) as illegal:
                bot.board(done.after(Move(["E1", "F2"])).rows, "p", timeout=CALL)
            self.assertEqual((illegal.exception.squares, illegal.exception.reason),
                             (["E1", "F2"], "backwards"))
            with self.assertRaises(NothingToTakeBackError):
                bot.position(Position.start("p"), timeout=CALL)
                bot.takeback(timeout=CALL)
            with self.assertRaises(NotPersonsTurnError):
                bot.position(Position.start("b"), timeout=CALL)
                bot.hint(timeout=CALL)
            # The engine goes on after every error.
            bot.ping("still", timeout=CALL)

    def test_options_are_typed_and_configure_sets_them(self) -> None:
        with daemon("--depth", "4") as bot:
            opts = bot.options
            self.assertEqual(opts["movetime"], IntOption("movetime", 1000, 1000, 0, 3600000))
            self.assertEqual(opts["depth"].value, 4)
            self.assertEqual(opts["strict"], BoolOption("strict", True, True))
            level = opts["level"]
            assert isinstance(level, ChoiceOption)
            self.assertEqual(level.choices, ("easy", "medium", "hard", "max"))
            self.assertIsInstance(opts["eval"], StringOption)
            bot.configure({"level": "easy", "strict": False}, timeout=CALL)
            self.assertEqual((bot.options["depth"].value, bot.options["strict"].value), (2, False))
            with self.assertRaises(BadOptionError) as refused:
                bot.configure({"style": "reckless"}, timeout=CALL)
            self.assertIn("reckless", refused.exception.message)
            with self.assertRaises(ValueError):
                bot.configure({"record": "a\nquit"})
            # A limit applies to its call only: the configured values come back.
            bot.play(Position.start("b"), Limit(depth=3), timeout=CALL)
            self.assertEqual(bot.read_options(timeout=CALL)["depth"].value, 2)

    def test_play_analyse_hint_takeback(self) -> None:
        with fixed() as bot:
            top = bot.play(Position.start("b"), Limit(depth=5), timeout=CALL)
            assert top.move is not None
            self.assertEqual(top.info[-1].depth, 5)
            self.assertEqual(top.move.path[0][0], "C")  # a man of the top side's front row
            # The person's side: the move starts on one of their pieces.
            bottom = bot.play(Position.start("p"), Limit(depth=5), timeout=CALL)
            assert bottom.move is not None
            self.assertEqual(bottom.move.path[0][0], "F")
            self.assertTrue(all(i.pv[0][0][0] == "F" for i in bottom.info))
            lines = bot.analyse(Position.start("b"), Limit(depth=4), multipv=3, timeout=CALL)
            self.assertEqual([line.multipv for line in lines], [1, 2, 3])
            self.assertTrue(all(line.depth == 4 and line.score and line.pv for line in lines))
            self.assertEqual(len({line.pv[0][0] + line.pv[0][1] for line in lines}), 3)
            fen = bot.analyse("fen W:W21,22,K23:B1,2", Limit(depth=4), multipv=2, timeout=CALL)
            self.assertEqual(len(fen), 2)
            # The bot has no move: play says why (the position's size becomes the game's).
            over = bot.play(Position("____/____/_b__/p___", "b"), Limit(depth=2), timeout=CALL)
            self.assertIsNotNone(over.move or over.gameover)
            bot.configure({"size": 8}, timeout=CALL)
            bot.newgame(timeout=CALL)
            bot.board(START_8X8, "p", timeout=CALL)
            hint = bot.hint(timeout=CALL)
            self.assertEqual(len(hint.move.path), 2)
            self.assertEqual(hint.info[-1].depth, 4)
            bot.board(PERSON_PLAYED, "p", timeout=CALL)
            self.assertEqual(bot.takeback(timeout=CALL), Position(START_8X8, "p"))

    def test_full_game_gives_the_golden_replies(self) -> None:
        """The recorded whole game through `request`: every final reply is the golden one."""
        expected, sent = [], []
        for line in (ROOT / "tests" / "sessions" / "full_game.out").read_text().splitlines():
            if line.startswith("> ") and line[2:].strip() and not line[2:].lstrip().startswith("#"):
                sent.append(line[2:])
            elif line.startswith("< ") and not line.startswith("< info"):
                expected.append(line[2:])
        got = []
        bot = daemon()
        for line in sent:
            try:
                got.append(bot.request(line, timeout=CALL).line)
            except EngineError as e:
                got.append(e.line)
        bot.close()
        self.assertEqual(got, expected)

    def test_vision_loop_example(self) -> None:
        out = subprocess.run(
            [sys.executable, str(HERE / "vision_loop.py"), str(ROOT / "tests/sessions/full_game.in"),
             "--daemon", BIN],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("vision: the person played F2 E1", out.stdout)
        self.assertRegex(out.stdout, r"arm: move the piece [A-H]\d+( -> [A-H]\d+)+, remove [A-H]\d+")
        self.assertRegex(out.stdout, r"session done: \d+ bot moves")


class Stopping(unittest.TestCase):
    def test_stop_from_another_thread_while_play_waits(self) -> None:
        """15 times: a search of 60 s stopped from a second thread once it reports."""
        with daemon("--info", "iterations") as bot:
            for run in range(15):
                started = threading.Event()

                def stopper() -> None:
                    started.wait(CALL)
                    time.sleep(random.uniform(0, 0.05))
                    bot.stop()

                thread = threading.Thread(target=stopper)
                thread.start()
                began = time.monotonic()
                result = bot.play(Position.start("b" if run % 2 else "p"), Limit(time=60),
                                  timeout=CALL, on_info=lambda _: started.set())
                thread.join(CALL)
                self.assertLess(time.monotonic() - began, 10, f"run {run}")
                self.assertIsNotNone(result.move, f"run {run}")
                bot.ping("between", timeout=CALL)  # in step: the stop's ok was not misread

    def test_stop_at_any_moment_never_hangs(self) -> None:
        """stop() at random moments, also before the search starts or after it ended: every
        call returns within its limit and the engine stays in step."""
        with daemon("--info", "off") as bot:
            for run in range(15):
                timer = threading.Timer(random.uniform(0, 0.3), bot.stop)
                timer.start()
                began = time.monotonic()
                result = bot.play(Position.start("b"), Limit(time=1.5), timeout=CALL)
                timer.join(CALL)
                self.assertLess(time.monotonic() - began, 10, f"run {run}")
                self.assertIsNotNone(result.move)
                self.assertEqual(len(bot.analyse(Position.start("p"), Limit(depth=2),
                                                 multipv=2, timeout=CALL)), 2)

    def test_infinite_analysis_until_stop(self) -> None:
        with daemon() as bot:
            bot.stop()  # with nothing to stop: ok, and the engine stays in step
            threading.Timer(0.5, bot.stop).start()
            began = time.monotonic()
            lines = bot.analyse(Position.start("b"), multipv=2, infinite=True, timeout=CALL)
            self.assertLess(time.monotonic() - began, 10)
            self.assertEqual([line.multipv for line in lines], [1, 2])
            self.assertGreater(lines[0].depth, 2)


class Timeouts(unittest.TestCase):
    def test_a_board_that_times_out_leaves_the_engine_usable(self) -> None:
        with daemon("--movetime", "800", "--info", "off") as bot:
            bot.newgame(timeout=CALL)
            with self.assertRaises(EngineTimeoutError):
                bot.board(START_8X8, "b", timeout=0.1)
            # The next call resynchronises (its pong TOKEN comes after the late move, and is
            # not recorded), so repeat gives the move the daemon wrote meanwhile.
            self.assertGreater(bot.ping("after", timeout=CALL), 0)
            move = bot.repeat(timeout=CALL).move
            assert move is not None
            with self.assertRaises(ArmIncompleteError):  # the daemon counts the move as played
                bot.board(START_8X8, "b", timeout=CALL)
            done = Position(START_8X8, "b").after(move)
            self.assertIsInstance(bot.board(done.rows, "p", timeout=CALL), Unchanged)

    def test_a_search_that_times_out_is_stopped(self) -> None:
        with daemon("--info", "off") as bot:
            began = time.monotonic()
            with self.assertRaises(EngineTimeoutError):
                bot.analyse(Position.start("b"), multipv=3, infinite=True, timeout=0.3)
            with self.assertRaises(EngineTimeoutError):
                bot.play(Position.start("b"), Limit(time=60), timeout=0.3)
            result = bot.play(Position.start("b"), Limit(depth=3), timeout=CALL)
            self.assertIsNotNone(result.move)
            self.assertLess(time.monotonic() - began, 15)

    def test_asyncio_cancel_stops_the_search(self) -> None:
        async def main() -> Optional[Move]:
            async with await AsyncEngine.popen([BIN, "serve", "--book", "off", "--egdb-build", "off", "--log-level", "error"]) as bot:
                task = asyncio.ensure_future(bot.play(Position.start("b"), Limit(time=60)))
                await asyncio.sleep(0.3)
                task.cancel()
                with self.assertRaises(asyncio.CancelledError):
                    await task
                return (await bot.play(Position.start("b"), Limit(depth=3))).move

        began = time.monotonic()
        self.assertIsNotNone(asyncio.run(asyncio.wait_for(main(), CALL)))
        self.assertLess(time.monotonic() - began, 15)


def listening(*args: str) -> Tuple["subprocess.Popen[str]", int]:
    """A daemon on an ephemeral loopback port, and the port."""
    child = subprocess.Popen(
        [BIN, "serve", "--listen", "127.0.0.1:0", "--book", "off", "--egdb-build", "off", "--log-level", "info", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    port = 0
    for line in child.stderr:
        if "listening on " in line:
            port = int(line.rsplit(":", 1)[1])
            break
    threading.Thread(target=child.stderr.read, daemon=True).start()
    return child, port


def end(child: "subprocess.Popen[str]") -> None:
    child.kill()
    child.wait()
    if child.stderr is not None:
        child.stderr.close()


class OverTcp(unittest.TestCase):
    def test_play_take_over_and_reconnect(self) -> None:
        child, port = listening("--depth", "4", "--movetime", "0")
        try:
            self.assertTrue(port, "the daemon said where it listens")
            bot = Engine.tcp("127.0.0.1", port, timeout=CALL)
            bot.newgame("4", timeout=CALL)
            reply = bot.board("_b_b/____/____/p_p_", "b", timeout=CALL)
            self.assertEqual(reply.move.path, ["A1", "B2"])  # type: ignore[union-attr]
            other = Engine.tcp("127.0.0.1", port, timeout=CALL)
            with self.assertRaises(TakenOverError):
                for _ in range(100):  # the old connection hears at once, or at its next call
                    bot.ping(timeout=CALL)
                    time.sleep(0.05)
            other.close()
            bot.close()
            with Engine.tcp("127.0.0.1", port, timeout=CALL) as again:
                self.assertIsInstance(again.board("___b/__b_/____/p_p_", "p", timeout=CALL),
                                      Unchanged)
                reply = again.board("___b/__b_/_p__/__p_", "b", timeout=CALL)
                assert isinstance(reply, BotMove)
                self.assertEqual(str(reply.move), "B2 D0 captures C1 crown")
                again.quit(timeout=CALL)
            child.wait(timeout=30)
        finally:
            end(child)

    def test_a_connection_mid_search_is_in_step(self) -> None:
        child, port = listening("--movetime", "600", "--info", "off")
        try:
            bot = Engine.tcp("127.0.0.1", port, timeout=CALL)
            bot.newgame(timeout=CALL)
            with self.assertRaises(EngineTimeoutError):
                bot.board(START_8X8, "b", timeout=0.05)
            bot.close()  # gone before its move
            # The next connection resynchronises on connecting, so its first call gets its own
            # reply; the move is what `repeat` gives.
            with Engine.tcp("127.0.0.1", port, timeout=CALL) as again:
                self.assertEqual(again.repeat(timeout=CALL).kind, "move")
                again.quit(timeout=CALL)
        finally:
            end(child)


class WithToken(unittest.TestCase):
    def test_the_token_lets_a_client_in_and_its_absence_keeps_it_out(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "token")
            with open(path, "w") as f:
                f.write("client-test-token-0123456789\n")
            child, port = listening("--token-file", path, "--depth", "2", "--movetime", "0")
            try:
                with Engine.tcp("127.0.0.1", port, timeout=CALL,
                                token="client-test-token-0123456789") as bot:
                    self.assertEqual(bot.id.name, "checkersbot")
                    with self.assertRaises(UnauthorizedError):
                        Engine.tcp("127.0.0.1", port, timeout=CALL, token="a-wrong-token-000000")
                    with self.assertRaises((UnauthorizedError, EngineTerminatedError)):
                        Engine.tcp("127.0.0.1", port, timeout=CALL)
                    # The client with the token kept the robot.
                    self.assertGreaterEqual(bot.ping(timeout=CALL), 0.0)
            finally:
                end(child)


def readme_blocks() -> Dict[str, str]:
    """The README's ```python blocks that start with `# examples/NAME.py`, by file name."""
    text = (HERE / "README.md").read_text()
    blocks = {}
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        first, _, body = block.partition("\n")
        if first.startswith("# examples/"):
            blocks[first[len("# examples/"):]] = body
    return blocks


class Examples(unittest.TestCase):
    """The README's examples, run against the package as pip installs it, offline."""

    target = ""
    tmp: Optional[tempfile.TemporaryDirectory[str]] = None

    @classmethod
    def setUpClass(cls) -> None:
        cls.tmp = tempfile.TemporaryDirectory()
        cls.target = cls.tmp.name
        out = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--no-index", "--quiet",
             "--disable-pip-version-check", "--target", cls.target, str(HERE)],
            capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr

    @classmethod
    def tearDownClass(cls) -> None:
        if cls.tmp is not None:
            cls.tmp.cleanup()

    def run_example(self, name: str, *args: str) -> str:
        env = dict(os.environ, PYTHONPATH=self.target,
                   PATH=str(Path(BIN).parent) + os.pathsep + os.environ.get("PATH", ""))
        out = subprocess.run([sys.executable, str(HERE / "examples" / name), *args],
                             capture_output=True, text=True, timeout=120, env=env,
                             cwd=tempfile.gettempdir())
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        return out.stdout

    def test_installed_package(self) -> None:
        pkg = Path(self.target) / "checkersbot_client"
        self.assertTrue((pkg / "py.typed").exists())
        self.assertTrue((Path(self.target) / "checkersbot_client-0.1.0.dist-info").is_dir())

    def test_installs_offline_without_build_isolation_too(self) -> None:
        with tempfile.TemporaryDirectory() as target:
            out = subprocess.run(
                [sys.executable, "-m", "pip", "install", "--no-index", "--no-build-isolation",
                 "--quiet", "--disable-pip-version-check", "--target", target, str(HERE)],
                capture_output=True, text=True, timeout=300)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            version = subprocess.run(
                [sys.executable, "-c", "import checkersbot_client as c; print(c.__version__)"],
                capture_output=True, text=True, timeout=60, cwd=target)
            self.assertEqual(version.stdout.strip(), "0.1.0", version.stderr)

    def test_the_readme_shows_every_example_verbatim(self) -> None:
        blocks = readme_blocks()
        files = sorted(p.name for p in (HERE / "examples").glob("*.py"))
        self.assertEqual(sorted(blocks), files)
        for name in files:
            self.assertEqual(blocks[name], (HERE / "examples" / name).read_text(), name)

    def test_first_game(self) -> None:
        out = self.run_example("first_game.py")
        self.assertRegex(out, r"connected to checkersbot \S+ \(protocol 1\)")
        self.assertIn("the person is to move\nthe person played F2 E1\narm: move", out)
        self.assertRegex(out, r"depth 6, score (cp|win|loss) -?\d+")

    def test_robot_errors(self) -> None:
        out = self.run_example("robot_errors.py")
        self.assertIn("arm-incomplete: squares ['C5', 'D4']", out)
        self.assertIn("Unchanged\nillegal-transition (backwards): squares ['E1', 'F2']", out)
        self.assertIn("BadOptionError bad-option: level must be", out)

    def test_analysis(self) -> None:
        out = self.run_example("analysis.py")
        self.assertRegex(out, r"top plays C\d D\d, expects F\d E\d \(score cp -?\d+ \(b to move\)\)")
        self.assertRegex(out, r"bottom plays F\d E\d")
        self.assertIn("after C5-D4 F2-E3, top plays D4 F2 captures E3", out)
        self.assertRegex(out, r"1\. depth 6 score cp (-?\d+) \(bot cp -?\d+\) .*\n2\. depth 6 .*"
                              r"\n3\. depth 6 ")
        for relative, bot in re.findall(r"score cp (-?\d+) \(bot cp (-?\d+)\)", out):
            self.assertEqual(int(relative), -int(bot))  # the person is to move
        self.assertIn("legal: F2 E1, F4 E3, F6 E5, F0 E1, F2 E3, F4 E5, F6 E7", out)
        self.assertRegex(out, r"hint: F\d E\d \(score cp -?\d+ \(p to move\)\)")

    def test_threads(self) -> None:
        out = self.run_example("threads.py")
        self.assertIn("status: search\nping: True\nanalyse: busy (play is under way", out)
        self.assertRegex(out, r"stopped: C\d D\d")

    def test_streaming(self) -> None:
        out = self.run_example("streaming.py")
        self.assertRegex(out, r"^depth 1: C\d-D\d cp -?\d+ \(b to move\)\ndepth 2: ")
        self.assertRegex(out, r"depth 8: .*\n(depth \d+: .*\n)*best of 2 at depth \d+: C\d-D\d")

    def test_options(self) -> None:
        out = self.run_example("options.py")
        self.assertIn("movetime: int 0..3600000 = 1000", out)
        self.assertIn("strict: bool = True", out)
        self.assertIn("level: one of easy, medium, hard, max = hard", out)
        self.assertIn("after level easy: depth 2", out)
        self.assertIn("refused: threads must be", out)

    def test_stop(self) -> None:
        out = self.run_example("stop.py")
        self.assertRegex(out, r"stopped at depth \d+")
        self.assertRegex(out, r"stopped search: [A-H]\d [A-H]\d at depth \d+")

    def test_asyncio(self) -> None:
        out = self.run_example("asyncio_play.py")
        self.assertRegex(out, r"asyncio: C\d D\d\nstatus: arm\nasyncio analysis: F\d-E\d")

    def test_tcp(self) -> None:
        child, port = listening()
        try:
            out = self.run_example("tcp.py", f"127.0.0.1:{port}")
            self.assertIn("no move within 50 ms", out)
            self.assertRegex(out, r"the move: C\d D\d")
        finally:
            end(child)


if __name__ == "__main__":
    unittest.main(verbosity=2)
