//! The endgame database `serve` builds in the background into its cache (`--egdb-build`): a
//! fresh cache gets one without a manual step, each level is taken into play without a restart,
//! a build stopped with the daemon (killed at any point) leaves only whole slice files and goes on
//! at the next start, `serve` opens only complete levels, and a cache that cannot be written is a
//! warning while the daemon plays on.
//!
//! The builds here are of 3 and 4 pieces (a fraction of a second and a few seconds of CPU). The
//! tests that wait for a build to progress run it at `--egdb-priority normal`: at the
//! default lowest priority it gets no CPU at all while other programs keep both cores busy, and
//! these tests must pass on a loaded machine. The one that keeps the default checks that it is
//! the lowest priority, and waits for nothing but the build's stops and starts.

mod common;

use checkersbot::engine::egdb::store::{size_dir, SliceFile};
use common::{line_channel, next_final, BIN};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// How long a background build of up to 4 pieces may take on a loaded machine.
const BUILD_WAIT: Duration = Duration::from_secs(300);

/// The build at the daemon's own priority, so that it progresses on a loaded machine.
const NORMAL: [&str; 2] = ["--egdb-priority", "normal"];

/// A 3-piece position, black (the bot) to move and winning: two kings against a king.
const THREE: &str = "_P______/________/________/________/___B_B__/________/________/________";

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cbdb-bg-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// `serve` with its cache at `cache`, its log in `log`.
struct Serve {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Serve {
    fn start(cache: &Path, args: &[&str], log: &Path) -> Serve {
        let mut child = Command::new(BIN)
            .env("XDG_CACHE_HOME", cache)
            .arg("serve")
            .args(["--info", "final", "--log-level", "info"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(log).expect("log file"))
            .spawn()
            .expect("start serve");
        let stdin = child.stdin.take().expect("stdin");
        let lines = line_channel(child.stdout.take().expect("stdout"));
        Serve {
            child,
            stdin,
            lines,
        }
    }

    fn ask(&mut self, line: &str) -> String {
        use std::io::Write;
        writeln!(self.stdin, "{line}").expect("write");
        self.stdin.flush().expect("flush");
        next_final(&self.lines)
    }

    /// The value of `key` in the `status` reply.
    fn status(&mut self, key: &str) -> String {
        let line = self.ask("status");
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words
            .iter()
            .position(|w| *w == key)
            .unwrap_or_else(|| panic!("no {key} in {line}"));
        words[at + 1].to_string()
    }

    /// Asks `status` until `egdbbuild` is `want` (or fails after [`BUILD_WAIT`]).
    fn wait_build(&mut self, want: &str) {
        let start = Instant::now();
        loop {
            let now = self.status("egdbbuild");
            if now == want {
                return;
            }
            assert!(
                !now.starts_with("failed") && start.elapsed() < BUILD_WAIT,
                "egdbbuild {now} after {:?}, waiting for {want}",
                start.elapsed()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn quit(mut self) {
        assert_eq!(self.ask("quit"), "bye");
        let _ = self.child.wait();
    }
}

/// The `egdb build` processes building into `dir` (found by their command line).
fn builds_into(dir: &Path) -> Vec<u32> {
    let needle = dir.to_string_lossy().into_owned();
    let mut pids = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains(" egdb build ") && text.contains(&needle) {
            pids.push(pid);
        }
    }
    pids
}

fn slice_files(db: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(db.join("8x8"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cbdb"))
        .collect();
    files.sort();
    files
}

#[test]
fn a_fresh_cache_gets_a_database_in_the_background_used_without_a_restart() {
    let cache = temp_dir("fresh");
    let db = cache.join("checkersbot").join("egdb");
    let log = cache.join("serve.log");
    let mut serve = Serve::start(&cache, &["--egdb-build", "3", NORMAL[0], NORMAL[1]], &log);
    // Nothing there yet: the daemon answers at once and says what it builds.
    assert_eq!(serve.status("egdbbuild"), "building-3");
    assert_eq!(serve.status("egdbpieces"), "0");
    serve.wait_build("ready");
    assert_eq!(serve.status("egdbpieces"), "3");
    assert_eq!(serve.status("egdb"), db.display().to_string());
    // The same daemon plays from it: a database root is answered from the database.
    assert_eq!(serve.ask(&format!("position {THREE} b")), "ok");
    let mut out = Vec::new();
    {
        use std::io::Write;
        writeln!(serve.stdin, "board {THREE} b").expect("write");
        loop {
            let l = serve.lines.recv_timeout(common::WAIT).expect("a reply");
            let done = l.starts_with("move ");
            out.push(l);
            if done {
                break;
            }
        }
    }
    assert!(
        out.iter().any(|l| l.contains("score dbwin ")),
        "no database answer: {out:?}"
    );
    serve.quit();
    assert!(builds_into(&db).is_empty(), "a build outlived its daemon");
    // The next start opens it at once, and builds nothing.
    let mut again = Serve::start(&cache, &["--egdb-build", "3"], &log);
    assert_eq!(again.status("egdbpieces"), "3");
    assert_eq!(again.status("egdbbuild"), "ready");
    again.quit();
    // `--egdb off` has no database and builds none; `--egdb-build off` keeps what is there.
    let mut off = Serve::start(&cache, &["--egdb", "off"], &log);
    assert_eq!(off.status("egdbpieces"), "0");
    assert_eq!(off.status("egdbbuild"), "off");
    off.quit();
    let mut kept = Serve::start(&cache, &["--egdb-build", "off"], &log);
    assert_eq!(kept.status("egdbpieces"), "3");
    assert_eq!(kept.status("egdbbuild"), "off");
    kept.quit();
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_build_killed_with_its_daemon_leaves_whole_files_and_goes_on_at_the_next_start() {
    let cache = temp_dir("killed");
    let db = cache.join("checkersbot").join("egdb");
    let log = cache.join("serve.log");
    let mut serve = Serve::start(&cache, &["--egdb-build", "4", NORMAL[0], NORMAL[1]], &log);
    // Up to 3 pieces is 394 slice files, up to 4 is 1,029: stop the daemon inside the 4-piece
    // slices.
    let start = Instant::now();
    while slice_files(&db).len() < 420 {
        assert!(start.elapsed() < BUILD_WAIT, "the build does not progress");
        std::thread::sleep(Duration::from_millis(10));
    }
    // At the priority asked for: the daemon's own scheduling policy, not the lowest.
    for pid in builds_into(&db) {
        assert_eq!(
            policy_of(pid),
            Some(0),
            "build {pid} not at normal priority"
        );
    }
    serve.child.kill().expect("kill the daemon");
    let _ = serve.child.wait();
    // The build ends with the daemon.
    let start = Instant::now();
    while !builds_into(&db).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the build outlived its daemon: {:?}",
            builds_into(&db)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = slice_files(&db);
    assert!(
        left.len() < 1029,
        "the build finished before the daemon was killed"
    );
    // Every file left is whole: its header and every block check.
    for f in &left {
        let slice = SliceFile::open(f).unwrap_or_else(|e| panic!("{e}"));
        slice.read_all().unwrap_or_else(|e| panic!("{e}"));
    }
    // Without a build, the daemon opens the complete levels only, quietly.
    let quiet = cache.join("quiet.log");
    let mut partial = Serve::start(&cache, &["--egdb-build", "off"], &quiet);
    assert_eq!(partial.status("egdbpieces"), "3");
    partial.quit();
    let said = std::fs::read_to_string(&quiet).unwrap_or_default();
    assert!(!said.contains("WARN"), "{said}");
    // With it, the build goes on from the files left and completes the level.
    let mut resumed = Serve::start(&cache, &["--egdb-build", "4", NORMAL[0], NORMAL[1]], &log);
    resumed.wait_build("ready");
    assert_eq!(resumed.status("egdbpieces"), "4");
    resumed.quit();
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        said.contains(" found built") && !said.contains("(0 found built"),
        "the build did not resume from the files left: {said}"
    );
    // The same values as a build in one go.
    let fresh = cache.join("fresh");
    let status = Command::new(BIN)
        .args(["egdb", "build", "--size", "8", "--pieces", "4", "--dir"])
        .arg(&fresh)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("egdb build");
    assert!(status.success());
    let (a, b) = (slice_files(&db), slice_files(&fresh));
    assert_eq!(a.len(), 1029);
    assert_eq!(
        a.iter().map(|p| p.file_name()).collect::<Vec<_>>(),
        b.iter().map(|p| p.file_name()).collect::<Vec<_>>()
    );
    for (x, y) in a.iter().zip(&b) {
        let read = |p: &Path| {
            SliceFile::open(p)
                .and_then(|f| f.read_all())
                .expect("reads")
        };
        assert!(read(x) == read(y), "{} differs", x.display());
    }
    assert!(size_dir(&db, checkersbot::rules::geometry::BoardSize::S8).is_dir());
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn a_cache_that_cannot_be_written_is_a_warning_and_the_daemon_plays() {
    let cache = temp_dir("unwritable");
    let log = cache.join("serve.log");
    // No directory can be made under a file.
    let file = cache.join("a-file");
    std::fs::write(&file, "").expect("file");
    let mut serve = Serve::start(&file, &["--egdb-build", "3"], &log);
    let start = Instant::now();
    while serve.status("egdbbuild") != "failed-3" {
        assert!(start.elapsed() < common::WAIT, "the build did not fail");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(serve.status("egdbpieces"), "0");
    assert_eq!(serve.ask("newgame"), "ok");
    assert_eq!(serve.ask("ping"), "pong");
    serve.quit();
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        said.contains("WARN") && said.contains("cannot create"),
        "{said}"
    );
    let _ = std::fs::remove_dir_all(&cache);
}

/// The fields of `/proc/PID/stat` from field 3 on (those after the command's closing
/// parenthesis, which may itself hold spaces).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(
        stat.rsplit(')')
            .next()?
            .split_whitespace()
            .map(str::to_string)
            .collect(),
    )
}

/// The state letter of a process (`T` stopped, `R` running, `S` sleeping): field 3.
fn state_of(pid: u32) -> Option<char> {
    stat_fields(pid)?.first()?.chars().next()
}

/// The scheduling policy of a process (field 41: 0 normal, 5 `SCHED_IDLE`).
fn policy_of(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(41 - 3)?.parse().ok()
}

#[test]
fn the_build_is_stopped_while_the_bot_searches_and_goes_on_after() {
    let cache = temp_dir("paused");
    let db = cache.join("checkersbot").join("egdb");
    let log = cache.join("serve.log");
    let mut serve = Serve::start(
        &cache,
        &["--egdb-build", "4", "--movetime", "4000", "--book", "off"],
        &log,
    );
    let start = Instant::now();
    let pid = loop {
        if let Some(&pid) = builds_into(&db).first() {
            break pid;
        }
        assert!(start.elapsed() < common::WAIT, "no build started");
        std::thread::sleep(Duration::from_millis(10));
    };
    // By default the build runs at the lowest priority (set between fork and exec, so the
    // process found by its command line already has it).
    assert_eq!(policy_of(pid), Some(5), "the build is not at SCHED_IDLE");
    let wait_for = |what: &str, want: bool| {
        let start = Instant::now();
        while state_of(pid).is_some_and(|s| s == 'T') != want {
            assert!(
                start.elapsed() < Duration::from_secs(3),
                "the build is not {what}: {:?}",
                state_of(pid)
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    assert_eq!(serve.ask("newgame"), "ok");
    let start_rows = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_";
    {
        use std::io::Write;
        writeln!(serve.stdin, "board {start_rows} b").expect("write");
        serve.stdin.flush().expect("flush");
    }
    wait_for("stopped while the bot searches", true);
    let reply = next_final(&serve.lines);
    assert!(reply.starts_with("move "), "{reply}");
    wait_for("going on after the move", false);
    serve.quit();
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn two_builds_of_one_directory_take_turns_and_both_finish() {
    // Two daemons starting at once on one cache, or a daemon's build and one by hand: the second
    // waits on the directory's lock, then finds every slice built.
    let dir = temp_dir("two-builds");
    let build = || {
        Command::new(BIN)
            .args(["egdb", "build", "--size", "8", "--pieces", "3", "--dir"])
            .arg(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("egdb build")
    };
    let (a, b) = (build(), build());
    let outs = [a, b].map(|c| c.wait_with_output().expect("egdb build ends"));
    for out in &outs {
        assert!(out.status.success(), "{out:?}");
    }
    let said: Vec<String> = outs
        .iter()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .collect();
    // One of them built everything, the other found it built.
    assert!(
        said.iter().any(|s| s.contains("(394 found built")),
        "{said:?}"
    );
    let files = slice_files(&dir);
    assert_eq!(files.len(), 394);
    for f in &files {
        let slice = SliceFile::open(f).unwrap_or_else(|e| panic!("{e}"));
        slice.read_all().unwrap_or_else(|e| panic!("{e}"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
