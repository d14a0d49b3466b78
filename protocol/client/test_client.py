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
from checkersbot_client import Client, Move, ProtocolError, Reply, parse_status  # noqa: E402

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

    def test_status_line(self):
        line = ("status state arm size 4 side b position _b_b/____/____/p_p_ expect ___b/__b_/____/p_p_ "
                "seen none plies 1 result ongoing clock off left none level hard style default "
                "eval /tmp/my\\x20weights\\x5cx.cbev egdb none future 7 book none "
                "diagnosis error arm-incomplete A1,B2: the arm has not completed move A1 B2")
        st = parse_status(line)
        self.assertEqual(st["state"], "arm")
        self.assertEqual(st["expect"], "___b/__b_/____/p_p_")
        self.assertIsNone(st["seen"])
        self.assertEqual(st["eval"], "/tmp/my weights\\x.cbev")
        self.assertEqual(st["future"], "7")
        self.assertEqual(st["diagnosis"],
                         "error arm-incomplete A1,B2: the arm has not completed move A1 B2")
        self.assertEqual(Reply.parse(line, []).kind, "status")
        with self.assertRaises(ProtocolError):
            parse_status("status plies 3")

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
        st = bot.status()
        self.assertEqual((st["state"], st["side"], st["plies"]), ("person", "p", "0"))
        self.assertEqual((st["position"], st["seen"], st["diagnosis"]), (start, start, None))
        misread = start.replace("/________/________/", "/__p_____/________/")
        self.assertEqual(bot.board(misread, "b").code, "illegal-transition")
        st = bot.status()
        self.assertEqual((st["position"], st["seen"]), (start, misread))
        self.assertTrue(st["diagnosis"].startswith("error illegal-transition D2: misread"), st)
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
        plays = [g for g in got if g != "bye" and not g.startswith("status ")]
        self.assertIn("gameover", plays[-1])
        self.assertEqual(parse_status(got[-2])["state"], "over")

    def test_vision_loop_example(self):
        out = subprocess.run(
            [sys.executable, str(HERE / "vision_loop.py"), str(ROOT / "tests/sessions/full_game.in"),
             "--daemon", BIN],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("vision: the person played F2 E1", out.stdout)
        self.assertRegex(out.stdout, r"arm: move the piece [A-H]\d+( -> [A-H]\d+)+, remove [A-H]\d+")
        self.assertRegex(out.stdout, r"session done: \d+ bot moves")


class OverTcp(unittest.TestCase):
    def test_play_refuse_a_second_client_and_reconnect(self):
        child = subprocess.Popen(
            [BIN, "serve", "--listen", "127.0.0.1:0", "--depth", "4", "--movetime", "0",
             "--log-level", "info"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            port = None
            for line in child.stderr:
                if "listening on " in line:
                    port = int(line.rsplit(":", 1)[1])
                    break
            self.assertIsNotNone(port, "the daemon said where it listens")
            threading.Thread(target=child.stderr.read, daemon=True).start()
            bot = Client.tcp("127.0.0.1", port)
            self.assertEqual(bot.newgame("4").kind, "ok")
            self.assertEqual(bot.board("_b_b/____/____/p_p_", "b").move.path, ["A1", "B2"])
            other = Client.tcp("127.0.0.1", port)
            refused = other._lines.receive()
            self.assertTrue(refused.startswith("error busy "), refused)
            self.assertIn("another client is connected", refused)
            other.close()
            bot.close()
            time.sleep(0.1)
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
