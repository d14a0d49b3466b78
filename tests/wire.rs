//! The daemon on the wire: the real `checkersbot serve` binary over pipes and over a pseudo-terminal
//! pair, with deadlines, answers while searching, clean exits, a serial device that disappears
//! and comes back, and thousands of malformed lines.

use checkersbot::daemon::protocol::{Command, Reply, MAX_LINE};
use checkersbot::daemon::transport::MemorySink;
use checkersbot::daemon::{replay, Settings};
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::board::{initial_grid, Grid};
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::position::Side;
use std::io::Write;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

mod common;
use common::{device_link, pty_pair, take_lines, Daemon};

/// The position after a `move` reply.
fn after(pos: &AnyPosition, reply: &str) -> AnyPosition {
    match Reply::parse(reply) {
        Ok(Reply::Move(m)) => pos.play(&m).expect("the bot's move is legal"),
        other => panic!("expected a move, got {reply} ({other:?})"),
    }
}

fn board_line(pos: &AnyPosition, side: Side) -> String {
    format!("board {} {side}", pos.to_line())
}

/// Plays `rounds` of person move + bot move, the person taking its first legal move; returns the
/// times from sending each board to receiving the bot's move.
fn play_rounds(d: &mut Daemon, mut pos: AnyPosition, rounds: usize) -> Vec<Duration> {
    let mut times = Vec::new();
    for _ in 0..rounds {
        let Some(mv) = pos.legal_moves().into_iter().next() else {
            break;
        };
        pos = pos.play(&mv).unwrap();
        if pos.legal_moves().is_empty() {
            break;
        }
        let t = Instant::now();
        let reply = d.ask(&board_line(&pos, Side::Bot));
        times.push(t.elapsed());
        pos = after(&pos, &reply);
    }
    times
}

#[test]
fn each_move_arrives_within_movetime_plus_a_margin() {
    // Each try is a new daemon playing six moves; the slowest move counts (see
    // `common::within_on_some_try` for why a deadline gets three tries).
    let margin = Duration::from_millis(50);
    let mut worst = Duration::ZERO;
    for movetime in [50u64, 150] {
        let limit = Duration::from_millis(movetime) + margin;
        common::within_on_some_try(&format!("movetime {movetime} ms"), limit, || {
            let mut d = Daemon::start(&["--movetime", &movetime.to_string(), "--info", "off"]);
            assert_eq!(d.ask("newgame"), "ok");
            let start = AnyPosition::initial(BoardSize::S8, Side::Player);
            assert_eq!(d.ask(&board_line(&start, Side::Player)), "unchanged");
            let times = play_rounds(&mut d, start, 6);
            assert!(times.len() >= 4);
            assert_eq!(d.ask("quit"), "bye");
            let slowest = times.into_iter().max().unwrap_or_default();
            worst = worst.max(slowest.saturating_sub(Duration::from_millis(movetime)));
            slowest
        });
    }
    eprintln!("worst overshoot past movetime on the wire: {worst:?}");
}

#[test]
fn ping_status_and_stop_are_answered_while_the_engine_thinks() {
    // The book off: the start position is searched, not answered from it.
    let mut d = Daemon::start(&["--movetime", "5000", "--info", "off", "--book", "off"]);
    assert_eq!(d.ask("newgame"), "ok");
    let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
    let t = Instant::now();
    d.send(&board_line(&start, Side::Bot));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(d.ask("ping"), "pong");
    assert!(t.elapsed() < Duration::from_secs(2), "pong came late");
    // status too, saying the bot is searching the position it was sent.
    let status = d.ask("status");
    assert!(
        status.starts_with(&format!(
            "status state search size 8 side b position {} expect none",
            start.to_line()
        )),
        "{status}"
    );
    assert!(t.elapsed() < Duration::from_secs(2), "status came late");
    assert!(d
        .ask(&board_line(&start, Side::Bot))
        .starts_with("error busy"));
    d.send("stop");
    let mv = d.reply();
    assert!(mv.starts_with("move "), "{mv}");
    assert_eq!(d.reply(), "ok");
    assert!(t.elapsed() < Duration::from_secs(3), "stop was not prompt");
    assert_eq!(d.ask("stop"), "ok");
}

#[test]
fn end_of_input_and_sigterm_end_the_daemon_cleanly() {
    let mut d = Daemon::start(&[]);
    assert_eq!(d.ask("ping"), "pong");
    d.stdin = None;
    let status = d.wait_exit(Duration::from_secs(5)).expect("exits at EOF");
    assert!(status.success(), "{status:?}");

    // A signal during a search: the pending move is written, then the daemon exits with 0.
    let mut d = Daemon::start(&["--movetime", "10000", "--info", "off"]);
    assert_eq!(d.ask("newgame"), "ok");
    d.send(&board_line(
        &AnyPosition::initial(BoardSize::S8, Side::Bot),
        Side::Bot,
    ));
    std::thread::sleep(Duration::from_millis(200));
    common::signal(&d.child, libc::SIGTERM);
    let status = d
        .wait_exit(Duration::from_secs(5))
        .expect("exits on SIGTERM");
    assert!(status.success(), "{status:?}");
    assert!(d.reply().starts_with("move "));

    let mut d = Daemon::start(&[]);
    assert_eq!(d.ask("ping"), "pong");
    common::signal(&d.child, libc::SIGINT);
    let status = d
        .wait_exit(Duration::from_secs(5))
        .expect("exits on SIGINT");
    assert!(status.success(), "{status:?}");
}

/// A pseudo-terminal pair whose slave the daemon opens by path.
struct Pty {
    master: serialport::TTYPort,
    _slave: std::os::fd::OwnedFd,
    path: String,
    lines: Receiver<String>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Pty {
    fn drop(&mut self) {
        // The reader holds a clone of the master: end it so the terminal really goes away.
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(h) = self.reader.take() {
            h.join().ok();
        }
    }
}

/// Reads lines from the master side until `stop` is set (reads time out every 100 ms).
fn pty_reader(
    mut master: serialport::TTYPort,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> (Receiver<String>, std::thread::JoinHandle<()>) {
    use std::io::Read;
    let (tx, rx) = channel();
    let h = std::thread::spawn(move || {
        let mut pending = Vec::new();
        let mut buf = [0u8; 1024];
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            match master.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    pending.extend_from_slice(&buf[..n]);
                    for text in take_lines(&mut pending) {
                        if tx.send(text).is_err() {
                            return;
                        }
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(_) => return,
            }
        }
    });
    (rx, h)
}

impl Pty {
    fn new() -> Pty {
        let (master, slave, path) = pty_pair();
        let reader = master.try_clone_native().expect("clone master");
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (lines, h) = pty_reader(reader, stop.clone());
        Pty {
            master,
            _slave: slave,
            path,
            lines,
            stop,
            reader: Some(h),
        }
    }

    fn send(&mut self, line: &str) {
        self.master
            .write_all(format!("{line}\r\n").as_bytes())
            .unwrap();
    }

    fn reply(&self) -> String {
        common::next_final(&self.lines)
    }

    fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.reply()
    }

    /// Asks until the daemon answers (it may still be opening the device). Earlier copies of the
    /// question that reached the daemon are answered too: their replies, which must equal the
    /// first, are drained so that they are not taken for the reply to the next request.
    fn ask_until_open(&mut self, line: &str) -> String {
        for _ in 0..100 {
            self.send(line);
            match self.lines.recv_timeout(Duration::from_millis(200)) {
                Ok(l) => {
                    while let Ok(extra) = self.lines.recv_timeout(Duration::from_millis(300)) {
                        assert_eq!(extra, l, "a late reply to an earlier '{line}'");
                    }
                    return l;
                }
                Err(RecvTimeoutError::Timeout) => continue,
                Err(e) => panic!("{e}"),
            }
        }
        panic!("the daemon never answered on {}", self.path);
    }
}

#[test]
fn serve_over_a_pseudo_terminal_plays_several_moves() {
    let mut pty = Pty::new();
    let d = Daemon::start(&[
        "--serial",
        &pty.path,
        "--baud",
        "115200",
        "--depth",
        "3",
        "--movetime",
        "0",
    ]);
    assert_eq!(pty.ask_until_open("ping"), "pong");
    assert!(pty.ask("hello").starts_with("hello checkersbot "));
    assert_eq!(pty.ask("newgame"), "ok");
    let mut pos = AnyPosition::initial(BoardSize::S8, Side::Bot);
    let reply = pty.ask(&board_line(&pos, Side::Bot));
    pos = after(&pos, &reply);
    for _ in 0..4 {
        let mv = pos.legal_moves().into_iter().next().unwrap();
        pos = pos.play(&mv).unwrap();
        let reply = pty.ask(&board_line(&pos, Side::Bot));
        pos = after(&pos, &reply);
    }
    assert_eq!(pty.ask(&board_line(&pos, Side::Player)), "unchanged");
    assert_eq!(pty.ask("quit"), "bye");
    drop(d);
}

#[test]
fn a_serial_device_that_disappears_is_reopened_and_the_game_goes_on() {
    let mut pty = Pty::new();
    let link = device_link("wire", &pty.path);
    let link_text = link.to_string_lossy().to_string();
    let _d = Daemon::start(&[
        "--serial",
        &link_text,
        "--depth",
        "3",
        "--movetime",
        "0",
        "--log-level",
        "debug",
    ]);
    assert_eq!(pty.ask_until_open("ping"), "pong");
    assert_eq!(pty.ask("newgame"), "ok");
    let mut pos = AnyPosition::initial(BoardSize::S8, Side::Bot);
    let reply = pty.ask(&board_line(&pos, Side::Bot));
    pos = after(&pos, &reply);

    // Cable pulled: the pseudo-terminal goes away; a new one appears under the same name.
    drop(pty);
    std::thread::sleep(Duration::from_millis(300));
    let mut pty = Pty::new();
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(&pty.path, &link).unwrap();
    assert_eq!(pty.ask_until_open("ping"), "pong");

    // The game was kept: the person's move is inferred from the position after the bot's move.
    let mv = pos.legal_moves().into_iter().next().unwrap();
    pos = pos.play(&mv).unwrap();
    let reply = pty.ask(&board_line(&pos, Side::Bot));
    after(&pos, &reply);
    if let Some(dir) = link.parent() {
        std::fs::remove_dir_all(dir).ok();
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One random or malformed line (never containing LF).
fn garbage_line(rng: &mut Rng) -> Vec<u8> {
    const WORDS: [&str; 24] = [
        "board", "set", "newgame", "position", "fen", "ping", "hello", "stop", "p", "b", "x",
        "depth", "movetime", "strict", "on", "off", "8", "99", "-1", "G3", "E5", "captures", "#",
        "",
    ];
    const BOARDS: [&str; 4] = [
        "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_",
        "_b_b/____/____/p_p_",
        "_b_b_b/b_b_b_/______/______/_p_p_p/p_p_p_",
        "B:W21-32:B1-12",
    ];
    let mut line: Vec<u8> = match rng.below(8) {
        // Random bytes, often not UTF-8.
        0 => (0..rng.below(200))
            .map(|_| (rng.next() & 0xff) as u8)
            .filter(|&b| b != b'\n')
            .collect(),
        // Too long.
        1 => vec![b'a' + rng.below(26) as u8; MAX_LINE + 1 + rng.below(10_000)],
        // Boards with a few characters changed.
        2 | 3 => {
            let mut b = BOARDS[rng.below(BOARDS.len())].as_bytes().to_vec();
            for _ in 0..rng.below(4) {
                let i = rng.below(b.len());
                b[i] = b"_pPbBx/:,K0 "[rng.below(12)];
            }
            let mut l = b"board ".to_vec();
            if rng.below(4) == 0 {
                l = b"position fen ".to_vec();
            }
            l.extend(b);
            l.extend(if rng.below(2) == 0 { &b" p"[..] } else { b" b" });
            l
        }
        // A comment holding control characters (and NBSP): never answered.
        4 => {
            let mut l = b"#".to_vec();
            for _ in 0..rng.below(20) {
                match rng.below(3) {
                    0 => l.push(1 + rng.below(31) as u8),
                    1 => l.extend_from_slice("\u{a0}".as_bytes()),
                    _ => l.push(b'a' + rng.below(26) as u8),
                }
            }
            l.retain(|&b| b != b'\n');
            l
        }
        // Word salad.
        _ => {
            let n = 1 + rng.below(6);
            let words: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect();
            words.join(" ").into_bytes()
        }
    };
    if rng.below(5) == 0 {
        line.push(b'\r');
    }
    line
}

/// How many final replies the daemon owes for a line, or `None` for lines the fuzz test leaves out
/// (settings that could make a search unbounded, and `quit`).
fn replies_owed(line: &[u8]) -> Option<usize> {
    let body = line.strip_suffix(b"\r").unwrap_or(line);
    if body.len() > MAX_LINE {
        return Some(1);
    }
    let Ok(text) = std::str::from_utf8(body) else {
        return Some(1);
    };
    match Command::parse(text) {
        Ok(None) => Some(0),
        Ok(Some(Command::Quit | Command::Set(_))) => None,
        Ok(Some(_)) | Err(_) => Some(1),
    }
}

/// 5,000 lines in the suite; a longer campaign by hand with `CHECKERSBOT_FUZZ_LINES=1000000
/// CHECKERSBOT_FUZZ_SEED=N cargo test --release --test wire thousands_of_malformed_lines_leave
/// -- --nocapture` (figures in docs/experiments/daemon-reliability.md).
#[test]
fn thousands_of_malformed_lines_leave_the_daemon_answering() {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let count = var("CHECKERSBOT_FUZZ_LINES").unwrap_or(5000);
    let mut rng = Rng(var("CHECKERSBOT_FUZZ_SEED").unwrap_or(0x9E37_79B9_7F4A_7C15));
    let mut input = Vec::new();
    let mut owed = 0;
    let mut lines = 0;
    while lines < count {
        let line = garbage_line(&mut rng);
        let Some(n) = replies_owed(&line) else {
            continue;
        };
        owed += n;
        lines += 1;
        input.extend_from_slice(&line);
        input.push(b'\n');
    }
    let start = initial_grid(BoardSize::S8);
    let tail = format!("ping\nnewgame\nboard {} b\nping\n", Grid::to_line(&start));
    input.extend_from_slice(tail.as_bytes());
    let sink = MemorySink::default();
    let settings = Settings {
        depth: Some(2),
        ..Settings::deterministic()
    };
    let t = Instant::now();
    replay(
        settings,
        std::io::Cursor::new(input),
        Box::new(sink.clone()),
    )
    .expect("a 16 MiB table");
    let out = sink.0.lock().unwrap().clone();
    let finals: Vec<&String> = out.iter().filter(|l| !l.starts_with("info ")).collect();
    eprintln!(
        "{lines} malformed lines, {} replies, in {:?}",
        finals.len(),
        t.elapsed()
    );
    assert_eq!(finals.len(), owed + 4, "one final reply per request");
    for l in &out {
        assert!(Reply::parse(l).is_ok(), "not a valid reply: {l}");
        assert!(
            l.bytes().all(|b| (0x20..=0x7e).contains(&b)),
            "not printable ASCII: {l:?}"
        );
    }
    let n = finals.len();
    assert_eq!(finals[n - 4], "pong");
    assert_eq!(finals[n - 3], "ok");
    assert!(finals[n - 2].starts_with("move "), "{}", finals[n - 2]);
    assert_eq!(finals[n - 1], "pong");
}

#[test]
fn thousands_of_malformed_lines_over_a_pipe_leave_the_daemon_answering() {
    // The same kind of garbage, all at once into the real binary (no lockstep: boards may arrive
    // while a search runs and get `busy`); every request still gets exactly one final reply.
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut d = Daemon::start(&["--depth", "2", "--movetime", "100", "--info", "off"]);
    let mut owed = 0;
    let mut lines = 0;
    let stdin = d.stdin.as_mut().expect("stdin");
    while lines < 3000 {
        let line = garbage_line(&mut rng);
        let Some(n) = replies_owed(&line) else {
            continue;
        };
        owed += n;
        lines += 1;
        stdin.write_all(&line).unwrap();
        stdin.write_all(b"\n").unwrap();
    }
    let mut finals = 0;
    while finals < owed {
        let l = d.next();
        assert!(Reply::parse(&l).is_ok(), "not a valid reply: {l}");
        if !l.starts_with("info ") {
            finals += 1;
        }
    }
    // Nothing more: exactly one final reply per request.
    if let Ok(l) = d.lines().recv_timeout(Duration::from_millis(300)) {
        panic!("a reply too many: {l}");
    }
    let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
    assert_eq!(d.ask("ping"), "pong");
    assert_eq!(d.ask("newgame"), "ok");
    assert!(d.ask(&board_line(&start, Side::Bot)).starts_with("move "));
    assert_eq!(d.ask("ping"), "pong");
    assert_eq!(d.ask("quit"), "bye");
}
