"""`checkersbot serve` on pipes, for the Python game drivers under tests/ (hub, checkerboard):
one request, its final reply (the `info` and other lines before it are skipped)."""
import subprocess

FINAL = ("ok", "pong", "bye", "move", "unchanged", "wait", "gameover", "error")


class Daemon:
    def __init__(self, binary, movetime_ms):
        self.p = subprocess.Popen(
            [binary, "serve", "--movetime", str(movetime_ms), "--info", "off", "--egdb", "off"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        while True:
            reply = self.p.stdout.readline().strip()
            if not reply:
                raise RuntimeError(f"daemon closed after {line!r}")
            if reply.split()[0] in FINAL:
                return reply

    def close(self):
        try:
            self.ask("quit")
        finally:
            self.p.wait(timeout=10)
            self.p.stdin.close()
            self.p.stdout.close()
