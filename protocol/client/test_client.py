#!/usr/bin/env python3
"""Tests of checkersbot-client against the real daemon (subprocess and TCP on 127.0.0.1).

    CHECKERSBOT_BIN=./target/release/checkersbot python3 protocol/client/test_client.py

Run by `cargo test --release` (tests/client.rs), which sets CHECKERSBOT_BIN. Every call to the
daemon has a timeout, so a fault fails a test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple, Type

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BIN = os.environ.get("CHECKERSBOT_BIN", str(ROOT / "target" / "release" / "checkersbot"))

# The package as it is in the source tree (next to this file: sys.path[0]); the examples are
# run against the copy that pip installs, offline.
from checkersbot_client import (  # noqa: E402
    START_8X8, ArmIncompleteError, AsyncEngine, BadBoardError, BadFenError, BadOptionError,
    BoolOption, BotMove, ChoiceOption, EngineError, EngineTerminatedError, EngineTimeoutError,
    Engine, GameOver, IllegalTransitionError, Info, IntOption, Limit, Move,
    NoGameError, NothingToRepeatError, NothingToTakeBackError, NotPersonsTurnError, Position,
    ProtocolError, Score, Status, StringOption, SyntaxReplyError, TakenOverError, Unchanged,
    UnknownCommandError, Wait, parse_board_reply, parse_option)

CALL = 60.0  # the timeout of calls that should answer within seconds
PERSON_PLAYED = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/_p______/p___p_p_/_p_p_p_p/p_p_p_p_"


def daemon(*args: str) -> Engine:
    return Engine.popen([BIN, "serve", "--log-level", "error", *args], timeout=CALL)


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
        self.assertTrue(i.score.is_win and i.score.from_database)
        self.assertEqual((i.score.cp, i.score.plies), (None, 12))
        line = Info.parse("line 2 depth 4 score cp -15 pv C5-D6 F2-E3")
        self.assertEqual((line.multipv, line.depth, line.score), (2, 4, Score("cp", -15)))
        self.assertEqual(Score("loss", 7).is_loss, True)
        with self.assertRaises(ProtocolError):
            Info.parse("info depth 3 score mate 2 pv A1-B2")

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
        self.assertEqual(EngineError.from_line("error something-new text").code, "something-new")
        self.assertIsInstance(EngineError.from_line("error taken-over x"), EngineTerminatedError)

    def test_positions(self) -> None:
        start = Position.start("p")
        self.assertEqual(start.rotated(), Position(START_8X8, "b"))
        self.assertEqual(start.rotated().rotated(), start)
        self.assertEqual(Move(["F2", "E1"]).rotated(8), Move(["C5", "D6"]))
        after = start.after(Move(["F2", "E1"]))
        self.assertEqual(after, Position(PERSON_PLAYED, "b"))
        with self.assertRaises(ValueError):
            Limit().settings()
        self.assertEqual(Limit(time=0.25).settings(), (250, 0))


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
            async with await AsyncEngine.popen([BIN, "serve", "--log-level", "error"]) as bot:
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
        [BIN, "serve", "--listen", "127.0.0.1:0", "--log-level", "info", *args],
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
        self.assertRegex(out, r"top plays C\d D\d")
        self.assertRegex(out, r"bottom plays F\d E\d")
        self.assertRegex(out, r"1\. depth 6 .*\n2\. depth 6 .*\n3\. depth 6 ")
        self.assertRegex(out, r"hint: F\d E\d")

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
        self.assertRegex(self.run_example("asyncio_play.py"), r"asyncio: C\d D\d")

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
