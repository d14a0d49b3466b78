//! `checkersbot hub` driven by another program's Hub client: pydraughts' own `HubEngine` plays a
//! whole game against the daemon (`serve`), a few games from random openings, and a game against
//! another `checkersbot hub` (so the Hub engine plays both colours); pydraughts checks every move
//! with its own rules (`tests/hub/hub_games.py`). Skipped with a note where Python or pydraughts is
//! missing, except in CI (`CI` set), which installs it. The Hub lines themselves are unit-tested in
//! `src/hosts/hub.rs`.
//!
//! Hub mode under hostile input (issue 52, findings 9 to 12), each against the real binary: bytes
//! that are not UTF-8, a 64 MiB line with the process's peak memory measured, `go` after a refused
//! `pos`, SIGTERM during a search, an unclosed quote, and stderr by default.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
#[cfg_attr(
    not(has_pydraughts),
    ignore = "needs pydraughts: pip install pydraughts==0.6.7, then touch build.rs"
)]
fn pydraughts_hub_engine_plays_whole_games() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hub/hub_games.py");
    let run = Command::new("python3")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_checkersbot"))
        .output();
    let run = run.expect("python3 runs");
    assert_ne!(run.status.code(), Some(3), "pydraughts is missing");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(said.contains("all games played through"), "{said}");
    assert_eq!(said.matches(" plies, ").count(), 5, "{said}");
}

/// The Hub loop answers `ping` and `stop` while an analysis with no limit runs, writes `done` with a
/// legal move after `stop`, refuses a variant it does not play with an error line, and keeps going.
#[test]
fn hub_answers_while_searching_and_refuses_other_variants() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_checkersbot"))
        .args(["hub", "--egdb", "off"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("hub starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut next = |want: &str| -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            assert!(Instant::now() < deadline, "no line starting {want}");
            let line = lines.next().expect("a line").expect("text");
            if line.starts_with(want) {
                return line;
            }
        }
    };
    writeln!(stdin, "hub").unwrap();
    assert!(next("id ").contains("name=checkersbot"));
    next("wait");
    writeln!(stdin, "set-param name=variant value=frisian").unwrap();
    assert!(next("error").contains("frisian"));
    writeln!(stdin, "init").unwrap();
    next("ready");
    writeln!(
        stdin,
        "pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves=\"12-16 21-17\""
    )
    .unwrap();
    writeln!(stdin, "level infinite").unwrap();
    writeln!(stdin, "go analyze").unwrap();
    next("info depth=");
    let asked = Instant::now();
    writeln!(stdin, "ping").unwrap();
    next("pong");
    writeln!(stdin, "stop").unwrap();
    let done = next("done move=");
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    let mv = done["done move=".len()..]
        .split_whitespace()
        .next()
        .unwrap();
    // Black to move after 12-16 21-17: one of its legal moves (a man from 5 to 12 or 16).
    let from: u32 = mv.split(['-', 'x']).next().unwrap().parse().unwrap();
    assert!((5..=16).contains(&from), "{done}");
    writeln!(stdin, "pos pos=Wbbb").unwrap();
    assert!(next("error").contains("bad position"));
    writeln!(stdin, "quit").unwrap();
    let status = child.wait().expect("exit");
    assert!(status.success());
}

/// A `checkersbot hub` child over pipes: lines read with the daemon's framing (a line too long
/// for it arrives as `<too long: N bytes>`), stderr kept apart.
struct HubChild {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl HubChild {
    fn start(args: &[&str]) -> HubChild {
        let mut child = Command::new(env!("CARGO_BIN_EXE_checkersbot"))
            .env("XDG_CACHE_HOME", common::NO_CACHE)
            .env_remove("RUST_LOG")
            .arg("hub")
            .args(["--egdb", "off"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("hub starts");
        let stdin = child.stdin.take();
        let out = child.stdout.take().expect("stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = checkersbot::daemon::transport::LineReader::new(out);
            while let Ok(Some(line)) = reader.next_line() {
                let line = line.unwrap_or_else(|e| format!("<too long: {e}>"));
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut err = child.stderr.take().expect("stderr");
        let stderr = Some(std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut err, &mut text);
            text
        }));
        HubChild {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("hub reads");
        stdin.flush().expect("hub reads");
    }

    fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    /// The next line, whatever it is.
    fn next(&mut self) -> String {
        self.lines
            .recv_timeout(common::WAIT)
            .expect("a line from hub in time")
    }

    /// The next line that is not an `info` line.
    fn next_final(&mut self) -> String {
        loop {
            let line = self.next();
            if !line.starts_with("info ") {
                return line;
            }
        }
    }

    /// `ping` answered with `pong`, and every line before the `pong` (info lines left out).
    fn lines_to_pong(&mut self) -> Vec<String> {
        self.send("ping");
        let mut before = Vec::new();
        loop {
            let line = self.next_final();
            if line == "pong" {
                return before;
            }
            before.push(line);
        }
    }

    /// Closes stdin, waits for the exit and returns its status and what went to stderr.
    fn finish(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let status = self.wait_exit(common::WAIT).expect("hub exits in time");
        let stderr = self.stderr.take().expect("once").join().expect("stderr");
        (status, stderr)
    }

    fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let end = Instant::now() + within;
        while Instant::now() < end {
            if let Ok(Some(s)) = self.child.try_wait() {
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }

    /// The process's peak resident memory so far (`VmHWM`), in KiB.
    fn peak_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc/PID/status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc/PID/status")
    }
}

impl Drop for HubChild {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.child.kill().ok();
            self.child.wait().ok();
        }
    }
}

const START: &str = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";

/// Issue 52, finding 9: a line that is not UTF-8 is answered with an error line and the loop goes
/// on (it used to end hub mode silently, with exit status 0 and no `pong`).
#[test]
fn hub_answers_a_line_that_is_not_utf8_and_goes_on() {
    let mut hub = HubChild::start(&[]);
    hub.send_bytes(b"\xff\xfe\n");
    hub.send_bytes(b"pos pos=\"W\xc3\x28\"\n");
    let before = hub.lines_to_pong();
    assert_eq!(before.len(), 2, "{before:?}");
    for line in &before {
        assert!(
            line.starts_with("error message=") && line.contains("UTF-8"),
            "{before:?}"
        );
    }
    // The bad bytes are quoted escaped, never passed through.
    assert!(before[0].contains("\\xff"), "{before:?}");
    hub.send("init");
    assert_eq!(hub.next(), "ready");
    let (status, _) = hub.finish();
    assert!(status.success(), "{status}");
}

/// Issue 52, finding 10: a 64 MiB line is refused with an error that quotes only its first few
/// bytes, hub mode goes on, and its memory stays bounded (the line used to be read whole, and
/// echoed back whole in the error).
#[test]
fn hub_refuses_a_long_line_with_bounded_memory_and_a_clipped_quote() {
    const LONG: usize = 64 << 20;
    let mut hub = HubChild::start(&[]);
    assert!(hub.lines_to_pong().is_empty());
    let before = hub.peak_kib();
    let mut line = vec![b'a'; LONG];
    line.push(b'\n');
    let mut stdin = hub.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        stdin.write_all(&line).expect("hub reads the long line");
        stdin
    });
    let error = hub.next();
    hub.stdin = Some(writer.join().expect("writer"));
    assert!(hub.lines_to_pong().is_empty());
    let after = hub.peak_kib();
    eprintln!(
        "hub peak memory: {before} KiB before a {} MiB line, {after} KiB after (+{} KiB)",
        LONG >> 20,
        after - before
    );
    assert!(
        error.starts_with("error message=") && error.contains("longer than"),
        "{}",
        &error[..error.len().min(200)]
    );
    assert!(error.len() < 300, "an error line of {} bytes", error.len());
    assert!(
        error.contains("aaaa"),
        "the line's start is quoted: {error}"
    );
    assert!(
        after - before < 8 << 10,
        "peak memory grew by {} KiB reading a {} MiB line",
        after - before,
        LONG >> 20
    );
    let (status, _) = hub.finish();
    assert!(status.success(), "{status}");
}

/// Issue 52, finding 11: `go` is refused until a valid `pos`, and a rejected `pos` leaves no
/// position (it used to search the previous one, and pydraughts would play that move).
#[test]
fn hub_refuses_go_until_a_valid_position() {
    let mut hub = HubChild::start(&[]);
    hub.send("level depth=2");
    hub.send("go think");
    let before = hub.lines_to_pong();
    assert!(
        matches!(before.as_slice(), [e] if e.starts_with("error") && e.contains("pos")),
        "go before any pos: {before:?}"
    );
    hub.send(&format!("pos pos={START} moves=\"12-16\""));
    hub.send("go think");
    assert!(hub.next_final().starts_with("done move="));
    for rejected in [
        "pos pos=Wbbb".to_string(),
        format!("pos pos={START} moves=\"12-16 12-16\""),
    ] {
        hub.send(&rejected);
        hub.send("go think");
        let before = hub.lines_to_pong();
        assert!(
            matches!(before.as_slice(), [bad, refused]
                if bad.starts_with("error") && refused.starts_with("error") && refused.contains("pos")),
            "{rejected}, then go: {before:?}"
        );
    }
    hub.send(&format!("pos pos={START}"));
    hub.send("go think");
    assert!(hub.next_final().starts_with("done move="));
    let (status, _) = hub.finish();
    assert!(status.success(), "{status}");
}

/// Issue 52, finding 11: SIGTERM during a search writes `done` with the best move found so far
/// before hub mode exits (it used to end the process with no `done`).
#[test]
fn hub_writes_done_on_sigterm_mid_search() {
    let mut hub = HubChild::start(&[]);
    hub.send(&format!("pos pos={START} moves=\"12-16 21-17\""));
    hub.send("level move-time=60");
    hub.send("go think");
    assert!(hub.next().starts_with("info depth="));
    let sent = Instant::now();
    common::signal(&hub.child, libc::SIGTERM);
    let done = hub.next_final();
    assert!(done.starts_with("done move="), "{done}");
    let from: u32 = done["done move=".len()..]
        .split(['-', 'x'])
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((5..=16).contains(&from), "{done}");
    let status = hub
        .wait_exit(common::WAIT)
        .expect("hub exits after SIGTERM");
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "{:?}",
        sent.elapsed()
    );
    assert!(status.success(), "{status}");
}

/// Issue 52, finding 11: a line with an unclosed quote is answered with an error (it used to be
/// dropped without a word).
#[test]
fn hub_refuses_an_unclosed_quote() {
    let mut hub = HubChild::start(&[]);
    hub.send("pos pos=\"Wxx");
    hub.send(&format!("pos pos={START} moves=\"12-16"));
    let before = hub.lines_to_pong();
    assert_eq!(before.len(), 2, "{before:?}");
    for line in &before {
        assert!(
            line.starts_with("error message=") && line.contains("quote"),
            "{before:?}"
        );
    }
    let (status, _) = hub.finish();
    assert!(status.success(), "{status}");
}

/// Issue 52, finding 12: hub mode writes no log lines on stderr unless `--log-level` asks
/// (pydraughts' `HubEngine` reads stderr with stdout, so each error reached the host twice).
#[test]
fn hub_writes_nothing_on_stderr_unless_asked() {
    let bad = ["frobnicate", "pos pos=Wbbb", "level depth=x", "go think"];
    let mut hub = HubChild::start(&[]);
    for line in bad {
        hub.send(line);
    }
    hub.send_bytes(b"\xff\n");
    assert_eq!(hub.lines_to_pong().len(), bad.len() + 1);
    let (status, stderr) = hub.finish();
    assert!(status.success(), "{status}");
    assert_eq!(stderr, "", "stderr by default");
    let mut hub = HubChild::start(&["--log-level", "warn"]);
    hub.send("frobnicate");
    assert_eq!(hub.lines_to_pong().len(), 1);
    let (_, stderr) = hub.finish();
    assert!(stderr.contains("frobnicate"), "stderr at warn: {stderr:?}");
}
