//! Hostile and careless input to the daemon (issue 52): files named by requests and flags that
//! are not regular files or are far too large, comment lines holding control characters, record
//! directories that cannot hold records and temporary records left by a killed daemon. Each of
//! these once hung the daemon, made it read without bound, or answered where it should not.
//! (TCP probes, tokens and floods are in `tests/network.rs`.)

mod common;

use common::{Daemon, BIN, NO_CACHE};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const START: &str = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_";

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cb-hostile-{tag}-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// A sparse file of `bytes` (no disk used).
fn sparse(path: &Path, bytes: u64) {
    let f = std::fs::File::create(path).expect("create");
    f.set_len(bytes).expect("set_len");
}

/// `set book`, `set eval` and `set egdb` naming a FIFO, a device, a directory or a huge file:
/// each answered at once with the same words, the daemon playing on (before: `set book FIFO`
/// never answered and ignored SIGTERM; `set book /dev/zero` read until memory ran out).
#[test]
fn files_that_are_not_regular_or_too_large_are_refused_at_once_in_the_same_words() {
    let dir = scratch("files");
    let fifo = dir.join("book.fifo");
    mkfifo(&fifo);
    let huge = dir.join("huge.cbbk");
    sparse(&huge, 1 << 30);
    let db = dir.join("db");
    std::fs::create_dir_all(db.join("8x8")).expect("db dir");
    mkfifo(&db.join("8x8").join("k2.cbdb"));
    let mut d = Daemon::start(&["--movetime", "100", "--info", "off"]);
    assert_eq!(d.ask("newgame"), "ok");
    let t = Instant::now();
    let fifo_s = fifo.display().to_string();
    for (option, path) in [
        ("book", fifo_s.as_str()),
        ("book", "/dev/zero"),
        ("book", dir.to_str().expect("utf-8")),
        ("eval", fifo_s.as_str()),
        ("eval", "/dev/zero"),
    ] {
        let reply = d.ask(&format!("set {option} {path}"));
        assert_eq!(
            reply,
            format!("error bad-option {option}: cannot use {path}: not a readable regular file"),
            "set {option} {path}"
        );
    }
    let reply = d.ask(&format!("set book {}", huge.display()));
    assert_eq!(
        reply,
        format!(
            "error bad-option book: cannot use {}: larger than 256 MiB",
            huge.display()
        )
    );
    let reply = d.ask(&format!("set egdb {}", db.display()));
    assert!(
        reply.starts_with("error bad-option egdb: cannot use ")
            && reply.ends_with("k2.cbdb: not a readable regular file"),
        "{reply}"
    );
    // A file that is a regular file but no book: the program's own words, not the system's.
    let text = dir.join("notes.txt");
    std::fs::write(&text, "not a book").expect("write");
    assert_eq!(
        d.ask(&format!("set book {}", text.display())),
        format!(
            "error bad-option book: '{}': not a checkersbot opening book (no CBBOOK header)",
            text.display()
        )
    );
    assert_eq!(d.ask("ping"), "pong");
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "took {:?}",
        t.elapsed()
    );
    // The game goes on, with the settings as they were (the default book at `hard`).
    let reply = d.ask(&format!("board {START} b"));
    assert!(reply.starts_with("move "), "{reply}");
    let status = d.ask("status");
    assert!(status.contains(" book builtin "), "{status}");
    assert_eq!(d.ask("quit"), "bye");
    std::fs::remove_dir_all(&dir).ok();
}

/// `serve --egdb DIR` with a FIFO among the slice files ends at once with the reason (before: it
/// hung at start).
#[test]
fn serve_with_a_fifo_among_the_database_files_ends_at_once_saying_why() {
    let dir = scratch("egdb");
    std::fs::create_dir_all(dir.join("8x8")).expect("db dir");
    mkfifo(&dir.join("8x8").join("k2.cbdb"));
    let mut d = Daemon::start(&["--egdb", dir.to_str().expect("utf-8")]);
    let status = d
        .wait_exit(Duration::from_secs(10))
        .expect("serve ends instead of hanging");
    assert!(!status.success());
    std::fs::remove_dir_all(&dir).ok();
}

/// A signal while `set egdb` or `set book` loads ends the daemon at once; the request is answered
/// (here the load is quick, so it is answered `ok` or the exit's error, never left unanswered).
#[test]
fn sigterm_during_a_load_ends_the_daemon_with_the_request_answered() {
    let mut d = Daemon::start(&["--info", "off"]);
    assert_eq!(d.ask("ping"), "pong");
    d.send("set book builtin");
    common::signal(&d.child, libc::SIGTERM);
    let status = d.wait_exit(Duration::from_secs(5)).expect("exits at once");
    assert!(status.success(), "{status:?}");
}

/// Comment lines get no reply whatever characters they hold (before: `# a\vb` was answered
/// `error syntax`).
#[test]
fn comment_lines_with_control_characters_get_no_reply() {
    let mut d = Daemon::start(&["--info", "off"]);
    d.send("# a\u{b}b");
    d.send("# tab\tand\u{1b}[31m escape");
    d.send("#\u{a0}nbsp");
    d.send("ping after");
    assert_eq!(d.reply(), "pong after");
}

/// `serve --record DIR` checks the directory as `set record` does: `/proc/self` and a chain of
/// missing directories are refused at start (before: accepted, or created).
#[test]
fn serve_refuses_a_record_directory_that_cannot_hold_records() {
    let dir = scratch("record-flag");
    let chain = dir.join("a/b/c");
    for bad in ["/proc/self", chain.to_str().expect("utf-8")] {
        let out = Command::new(BIN)
            .env("XDG_CACHE_HOME", NO_CACHE)
            .args(["serve", "--record", bad])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("serve runs");
        assert!(!out.status.success(), "--record {bad} accepted");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("not a writable directory"), "{said}");
    }
    assert!(!dir.join("a").exists(), "no chain of directories made");
    std::fs::remove_dir_all(&dir).ok();
}

/// A daemon killed while it writes a record leaves its hidden temporary file; the next daemon
/// given that directory removes it (and never one of a daemon still running).
#[test]
fn temporary_records_of_a_killed_daemon_are_removed_by_the_next() {
    let dir = scratch("record-tmp");
    // A process that has ended: its pid names a leftover temporary file.
    let mut gone = Command::new("true").spawn().expect("spawn");
    gone.wait().expect("wait");
    let leftover = dir.join(format!(".game-1-001.pdn.{}.tmp", gone.id()));
    std::fs::write(&leftover, "[Event \"cut short\"]").expect("write");
    let mine = dir.join(format!(".game-2-001.pdn.{}.tmp", std::process::id()));
    std::fs::write(&mine, "[Event \"being written\"]").expect("write");
    let mut d = Daemon::start(&["--record", dir.to_str().expect("utf-8")]);
    assert_eq!(d.ask("ping"), "pong");
    assert!(!leftover.exists(), "the killed writer's file is removed");
    assert!(mine.exists(), "a running writer's file is kept");
    assert_eq!(d.ask("quit"), "bye");
    std::fs::remove_dir_all(&dir).ok();
}
