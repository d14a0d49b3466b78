//! The harness the daemon tests share: a real `checkersbot serve` child driven over pipes.

#![allow(dead_code)]

use checkersbot::daemon::transport::LineReader;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_checkersbot");
/// A cache directory that does not exist and cannot be made, given to every `serve` the tests
/// start: `serve` loads an endgame database from `$XDG_CACHE_HOME/checkersbot/egdb` when there is
/// one, and a developer's own database must not change what these tests see; and it builds one
/// there in the background (`--egdb-build auto`), which a test must never start (a 30-minute
/// build on the CI machine, or in the home directory). Under `/dev/null` no directory can be
/// made, by root either: the build fails at once with a warning, without a child process.
pub const NO_CACHE: &str = "/dev/null/checkersbot-tests-cache";

/// `cmd` with its colours off, whatever the developer's terminal settings ask (`CLICOLOR_FORCE`
/// would put escape codes into help texts that tests read as plain text).
pub fn without_colours(cmd: &mut Process) -> &mut Process {
    cmd.env_remove("CLICOLOR_FORCE").env("NO_COLOR", "1")
}

/// How long a reply may take before a test fails (generous: the machine may be loaded).
pub const WAIT: Duration = Duration::from_secs(30);

/// How many times a timing check is tried before it fails (see [`within_on_some_try`]).
pub const TIMING_TRIES: usize = 3;

/// A deadline checked on a machine that may be loaded: `measure` does the timed work and says
/// how long it took; the check passes when one of [`TIMING_TRIES`] runs is within `limit`. Code
/// that misses a deadline misses it on every run; a loaded 2-core machine's scheduler (another
/// process busy on both cores) may delay one run, but rarely three in a row. Late runs are
/// printed, so that the test's output shows how close it came.
pub fn within_on_some_try(what: &str, limit: Duration, mut measure: impl FnMut() -> Duration) {
    let mut late = Vec::new();
    for _ in 0..TIMING_TRIES {
        let took = measure();
        if took <= limit {
            if !late.is_empty() {
                eprintln!("{what}: {took:?} within {limit:?}, after late tries {late:?}");
            }
            return;
        }
        late.push(took);
    }
    panic!("{what}: over {limit:?} on all {TIMING_TRIES} tries: {late:?}");
}

/// The next final reply on `lines`, skipping `info` lines; fails the test after [`WAIT`].
pub fn next_final(lines: &Receiver<String>) -> String {
    loop {
        let l = lines.recv_timeout(WAIT).expect("a reply in time");
        if !l.starts_with("info ") {
            return l;
        }
    }
}

pub fn line_channel<R: Read + Send + 'static>(r: R) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut reader = LineReader::new(r);
        while let Ok(Some(Ok(line))) = reader.next_line() {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// The daemon over pipes; stdout is read only once `lines` is asked for.
pub struct Daemon {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    stdout: Option<std::process::ChildStdout>,
    lines: Option<Receiver<String>>,
}

impl Daemon {
    pub fn start(args: &[&str]) -> Daemon {
        Self::start_limited(args, None)
    }

    /// With an address-space limit (bytes), as `ulimit -v` would set it.
    pub fn start_limited(args: &[&str], address_space: Option<u64>) -> Daemon {
        let mut cmd = Process::new(BIN);
        cmd.env("XDG_CACHE_HOME", NO_CACHE)
            .arg("serve")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if std::env::var_os("WIRE_LOG").is_some() {
                Stdio::inherit()
            } else {
                Stdio::null()
            });
        if let Some(limit) = address_space {
            limit_address_space(&mut cmd, limit);
        }
        let mut child = cmd.spawn().expect("start checkersbot serve");
        let stdout = child.stdout.take();
        let stdin = child.stdin.take();
        Daemon {
            child,
            stdin,
            stdout,
            lines: None,
        }
    }

    pub fn lines(&mut self) -> &Receiver<String> {
        if self.lines.is_none() {
            let out = self.stdout.take().expect("stdout");
            self.lines = Some(line_channel(out));
        }
        self.lines.as_ref().expect("set above")
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// Writes `text` as the whole input and closes it (end of input).
    pub fn send_all_and_close(&mut self, text: &str) {
        let mut stdin = self.stdin.take().expect("stdin open");
        stdin.write_all(text.as_bytes()).expect("write the input");
    }

    /// The next line, info or final.
    pub fn next(&mut self) -> String {
        self.lines().recv_timeout(WAIT).expect("a reply in time")
    }

    /// The next final reply, skipping info lines.
    pub fn reply(&mut self) -> String {
        next_final(self.lines())
    }

    pub fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.reply()
    }

    pub fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let end = Instant::now() + within;
        while Instant::now() < end {
            if let Ok(Some(s)) = self.child.try_wait() {
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.child.kill().ok();
            self.child.wait().ok();
        }
    }
}

/// Sets `RLIMIT_AS` in the child before it runs.
pub fn limit_address_space(cmd: &mut Process, bytes: u64) {
    // SAFETY: the closure only calls setrlimit, which is async-signal-safe, on a local struct.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A pseudo-terminal pair (master, slave, the slave's path), both opened close-on-exec so that no
/// daemon inherits either end: the terminal must really go away when a test drops it. The flag is
/// given at `open`, not set afterwards: the tests of one binary run on several threads, and a
/// daemon another test spawns between an `open` and a later `fcntl` would keep this terminal's
/// master open, so that dropping it would not hang up the device (a move sent while "the cable
/// is pulled" then went to the old terminal and never arrived).
pub fn pty_pair() -> (serialport::TTYPort, std::os::fd::OwnedFd, String) {
    checkersbot::sim::link::pty_pair().expect("a pseudo-terminal")
}

/// A symbolic link named `tty` in a fresh directory of this test run (`tag` names it) pointing at
/// `target`: a stable device name that can be pointed at a new terminal later. Returns its path.
pub fn device_link(tag: &str, target: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("checkersbot-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let link = dir.join("tty");
    std::fs::remove_file(&link).ok();
    std::os::unix::fs::symlink(target, &link).expect("symlink");
    link
}

/// Takes the complete lines (without `\r\n` or `\n`) out of bytes read from a terminal, leaving
/// an unfinished last line in `pending`.
pub fn take_lines(pending: &mut Vec<u8>) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(i) = pending.iter().position(|&b| b == b'\n') {
        let line: Vec<u8> = pending.drain(..=i).collect();
        let text = String::from_utf8_lossy(&line[..i]);
        out.push(text.trim_end_matches('\r').to_string());
    }
    out
}

/// The daemon's resident memory, KiB.
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Writes `count` copies of `request` with `write` on a thread until done or blocked; returns
/// the peak RSS of `pid` (KiB) seen while the writes progress and for 1.5 s after they end or
/// stall, the requests written, and whether all were.
pub fn peak_rss_under_flood(
    pid: u32,
    count: usize,
    request: &'static [u8],
    mut write: impl FnMut(&[u8]) -> bool + Send + 'static,
) -> (u64, u64, bool) {
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (s, f) = (std::sync::Arc::clone(&sent), std::sync::Arc::clone(&done));
    std::thread::spawn(move || {
        let chunk: Vec<u8> = request.repeat(1000);
        for _ in 0..count / 1000 {
            if !write(&chunk) {
                break;
            }
            s.fetch_add(1000, std::sync::atomic::Ordering::Relaxed);
        }
        f.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let mut peak = 0;
    let mut last = (0, Instant::now());
    let end = Instant::now() + Duration::from_secs(20);
    while Instant::now() < end {
        peak = peak.max(rss_kib(pid));
        let n = sent.load(std::sync::atomic::Ordering::Relaxed);
        if n != last.0 {
            last = (n, Instant::now());
        } else if last.1.elapsed() > Duration::from_millis(1500) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    (
        peak,
        sent.load(std::sync::atomic::Ordering::Relaxed),
        done.load(std::sync::atomic::Ordering::Relaxed),
    )
}

/// Replays `input` through the daemon in deterministic mode (`replay`'s settings: depth 6, one
/// thread, no timings) as a transcript: each input line as `> LINE`, each reply as `< REPLY`.
pub fn replay_transcript(input: Vec<u8>) -> Vec<String> {
    use checkersbot::daemon::transport::MemorySink;
    use checkersbot::daemon::{replay, Settings};
    let sink = MemorySink::default();
    let settings = Settings {
        transcript: true,
        ..Settings::deterministic()
    };
    replay(
        settings,
        std::io::Cursor::new(input),
        Box::new(sink.clone()),
    )
    .expect("a 16 MiB table");
    let lines = sink.0.lock().map(|l| l.clone()).unwrap_or_default();
    lines
}

/// Sends `sig` (e.g. `libc::SIGTERM`) to a child this test started and has not waited for, and
/// checks that it was sent.
pub fn signal(child: &Child, sig: libc::c_int) {
    let pid = libc::pid_t::try_from(child.id()).expect("a pid fits pid_t");
    // SAFETY: kill(2) only sends a signal and reports errors; the pid is that of a child not
    // yet reaped, so it names the process this test started.
    let r = unsafe { libc::kill(pid, sig) };
    assert_eq!(r, 0, "kill: {}", std::io::Error::last_os_error());
}

/// Runs the binary with `args` to its end: its stdout, its stderr, and whether it succeeded.
pub fn run_binary(args: &[&str]) -> (String, String, bool) {
    let out = Process::new(env!("CARGO_BIN_EXE_checkersbot"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}
