#!/usr/bin/env python3
"""Tests of the Python client against the real daemon.

    CHECKERSBOT_BIN=./target/release/checkersbot python3 protocol/client/test_client.py

Run by `cargo test --release` (tests/client.rs), which sets CHECKERSBOT_BIN.
"""

import os
import subprocess
import sys
import threading
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
from checkersbot_client import Client, Move, ProtocolError, Reply, Timeout  # noqa: E402

BIN = os.environ.get("CHECKERSBOT_BIN", str(ROOT / "target" / "release" / "checkersbot"))


def daemon() -> Client:
    return Client.spawn([BIN, "serve", "--depth", "4", "--movetime", "0", "--log-level", "error"])


class Parsing(unittest.TestCase):
    def test_move_with_captures_and_crown(self):
        r = Reply.parse("move F4 H6 captures G5 crown", ["info opponent E3 F4"])
        self.assertEqual(r.kind, "move")
        self.assertEqual(r.move, Move(["F4", "H6"], ["G5"], True))
        self.assertEqual(str(r.move), "F4 H6 captures G5 crown")
        self.assertEqual(r.opponent, Move(["E3", "F4"]))

    def test_error(self):
        r = Reply.parse("error arm-incomplete C1,D2: the arm has not completed move C1 D2", [])
        self.assertEqual((r.code, r.message.split(":")[0]), ("arm-incomplete", "C1,D2"))

    def test_not_a_final_reply(self):
        with self.assertRaises(ProtocolError):
            Reply.parse("info depth 3", [])
        with self.assertRaises(ProtocolError):
            Move.parse(["C1"])


class AgainstTheDaemon(unittest.TestCase):
    def test_requests_get_their_final_replies(self):
        bot = daemon()
        self.assertEqual(bot.repeat().code, "nothing-to-repeat")
        self.assertTrue(bot.hello().line.startswith("hello checkersbot "))
        self.assertEqual(bot.ping().kind, "pong")
        self.assertEqual(bot.set("movetime", "nonsense").code, "bad-option")
        self.assertEqual(bot.newgame("4").kind, "ok")
        reply = bot.board("_b_b/____/____/p_p_", "b")
        self.assertEqual(reply.kind, "move")
        self.assertTrue(all(i.startswith("info depth") for i in reply.infos), reply.infos)
        again = bot.repeat()
        self.assertEqual(again.line, reply.line)
        self.assertEqual(again.move.path, reply.move.path)
        self.assertEqual(bot.quit().kind, "bye")

    def test_options_analysis_hint_takeback(self):
        bot = daemon()
        opts = bot.options()
        self.assertEqual(opts["movetime"]["min"], "0")
        self.assertEqual(opts["level"]["choices"], "easy,medium,hard,max")
        self.assertEqual(opts["depth"]["value"], "4")
        self.assertEqual(bot.set("level", "easy").kind, "ok")
        self.assertEqual(bot.options()["depth"]["value"], "2")
        self.assertEqual(len(bot.analyse(2, "start b")), 2)
        self.assertEqual(bot.newgame().kind, "ok")
        start = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_"
        self.assertEqual(bot.board(start, "p").kind, "unchanged")
        hint = bot.hint()
        self.assertEqual(hint.kind, "hint")
        self.assertEqual(len(hint.move.path), 2)
        self.assertEqual(bot.takeback().code, "nothing-to-take-back")
        bot.close()

    def test_full_game_gives_the_golden_replies(self):
        """The recorded whole game through the client: every final reply equals the golden one."""
        session = ROOT / "tests" / "sessions" / "full_game.out"
        expected, sent = [], []
        for line in session.read_text().splitlines():
            if line.startswith("> ") and not line[2:].lstrip().startswith("#") and line[2:].strip():
                sent.append(line[2:])
            elif line.startswith("< ") and not line.startswith("< info"):
                expected.append(line[2:])
        bot = daemon()
        got = [bot.request(line).line for line in sent]
        bot.close()
        self.assertEqual(got, expected)
        self.assertIn("gameover", got[-1] if got[-1] != "bye" else got[-2])

    def test_vision_loop_example(self):
        out = subprocess.run(
            [sys.executable, str(HERE / "vision_loop.py"), str(ROOT / "tests/sessions/full_game.in"),
             "--daemon", BIN],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("vision: the person played F2 E1", out.stdout)
        self.assertRegex(out.stdout, r"arm: move the piece [A-H]\d+( -> [A-H]\d+)+, remove [A-H]\d+")
        self.assertRegex(out.stdout, r"session done: \d+ bot moves")


class Resynchronising(unittest.TestCase):
    def test_a_request_that_times_out_leaves_the_client_usable(self):
        bot = Client.spawn([BIN, "serve", "--movetime", "800", "--info", "off",
                            "--log-level", "error"])
        self.assertEqual(bot.newgame().kind, "ok")
        start = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_"
        with self.assertRaises(Timeout):
            bot.request(f"board {start} b", timeout=0.1)
        # The late move is dropped: the next reply is the next request's.
        self.assertEqual(bot.ping("after").line, "pong after")
        self.assertEqual(bot.repeat().kind, "move")
        self.assertEqual(bot.quit().kind, "bye")


def listening(*args):
    """A daemon on an ephemeral loopback port, and the port."""
    child = subprocess.Popen(
        [BIN, "serve", "--listen", "127.0.0.1:0", "--log-level", "info", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    port = None
    for line in child.stderr:
        if "listening on " in line:
            port = int(line.rsplit(":", 1)[1])
            break
    threading.Thread(target=child.stderr.read, daemon=True).start()
    return child, port


class OverTcp(unittest.TestCase):
    def test_play_a_new_client_takes_over_and_reconnect(self):
        child, port = listening("--depth", "4", "--movetime", "0")
        try:
            self.assertIsNotNone(port, "the daemon said where it listens")
            bot = Client.tcp("127.0.0.1", port)
            self.assertEqual(bot.newgame("4").kind, "ok")
            self.assertEqual(bot.board("_b_b/____/____/p_p_", "b").move.path, ["A1", "B2"])
            other = Client.tcp("127.0.0.1", port)
            told = bot._lines.receive(30)
            self.assertTrue(told.startswith("error taken-over "), told)
            other.close()
            bot.close()
            again = Client.tcp("127.0.0.1", port)
            self.assertEqual(again.board("___b/__b_/____/p_p_", "p").kind, "unchanged")
            reply = again.board("___b/__b_/_p__/__p_", "b")
            self.assertEqual(reply.opponent.path, ["D0", "C1"])
            self.assertEqual(str(reply.move), "B2 D0 captures C1 crown")
            self.assertEqual(again.quit().kind, "bye")
            child.wait(timeout=30)
        finally:
            child.kill()
            child.wait()

    def test_a_reconnecting_client_is_never_out_of_step(self):
        child, port = listening("--movetime", "600", "--info", "off")
        try:
            bot = Client.tcp("127.0.0.1", port)
            self.assertEqual(bot.newgame().kind, "ok")
            with self.assertRaises(Timeout):
                bot.request("analyse 1 start b", timeout=0.05)
            # Usable after the time-out, on the same connection: the late lines are dropped.
            self.assertEqual(bot.hello().kind, "hello")
            # A board, and the client goes before its move.
            start = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_"
            bot._lines.send(f"board {start} b")
            time.sleep(0.2)
            bot.close()
            # The next connection is in step at once: the move is not handed to it, but it is
            # what `repeat` gives (the resynchronising `pong TOKEN`s are not recorded).
            again = Client.tcp("127.0.0.1", port)
            self.assertEqual(again.ping("x").line, "pong x")
            self.assertEqual(again.repeat().kind, "move")
            self.assertEqual(again.quit().kind, "bye")
        finally:
            child.kill()
            child.wait()


if __name__ == "__main__":
    unittest.main(verbosity=2)
