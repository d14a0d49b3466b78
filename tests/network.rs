//! `serve --listen`: the protocol over TCP, one client at a time; a new client takes over from
//! the current one with its first valid request, and the old one is told so and closed, while a
//! port probe takes nothing (issue 52); with `--token-file` only a client that sends the token
//! gets in, and an address other than loopback needs one; a client that disconnects leaves the
//! game to the next, which never gets the replies meant for the first (`repeat` gives the last
//! one); a client that half-closes gets every reply first; a client that stops taking data is
//! dropped after the TCP timeout; a client that never reads cannot grow the daemon (issue 39),
//! nor one that floods and then resets.

mod common;

use common::{line_channel, peak_rss_under_flood, rss_kib, BIN, NO_CACHE, WAIT};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;
use std::time::Instant;

/// A daemon listening on an ephemeral loopback port; its address from its log, and its later
/// log lines.
struct Listening {
    child: Child,
    addr: SocketAddr,
    log: Receiver<String>,
}

impl Listening {
    fn start(args: &[&str]) -> Listening {
        let mut child = Command::new(BIN)
            .env("XDG_CACHE_HOME", NO_CACHE)
            .args(["serve", "--listen", "127.0.0.1:0", "--log-level", "info"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start checkersbot serve --listen");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        let addr = loop {
            line.clear();
            let n = stderr.read_line(&mut line).expect("read the log");
            assert!(n > 0, "the daemon ended before listening");
            if let Some(at) = line.find("listening on ") {
                let addr = line[at + "listening on ".len()..].trim();
                break addr.parse().expect("an address in the log");
            }
        };
        // Keep draining the log so that the daemon never blocks on it.
        let (tx, log) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            while stderr.read_line(&mut line).is_ok_and(|n| n > 0) {
                tx.send(std::mem::take(&mut line)).ok();
            }
        });
        Listening { child, addr, log }
    }

    /// Waits for a log line holding `text`.
    fn logged(&self, text: &str, within: Duration) -> Option<String> {
        let end = std::time::Instant::now() + within;
        while let Some(left) = end.checked_duration_since(std::time::Instant::now()) {
            match self.log.recv_timeout(left) {
                Ok(l) if l.contains(text) => return Some(l),
                Ok(l) => eprint!("daemon: {l}"),
                Err(_) => return None,
            }
        }
        None
    }

    fn connect(&self) -> Client {
        let stream = TcpStream::connect(self.addr).expect("connect");
        let lines = line_channel(stream.try_clone().expect("clone"));
        Client { stream, lines }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

struct Client {
    stream: TcpStream,
    lines: Receiver<String>,
}

impl Drop for Client {
    fn drop(&mut self) {
        // The reading thread holds a clone: close the connection itself.
        self.stream.shutdown(std::net::Shutdown::Both).ok();
    }
}

impl Client {
    fn send(&mut self, line: &str) {
        self.stream
            .write_all(format!("{line}\n").as_bytes())
            .expect("send");
    }

    fn reply(&mut self) -> String {
        common::next_final(&self.lines)
    }

    fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.reply()
    }
}

#[test]
fn one_client_at_a_time_a_new_one_takes_over_and_the_game_survives() {
    let daemon = Listening::start(&["--depth", "4", "--movetime", "0"]);
    assert!(daemon.addr.ip().is_loopback());
    let mut first = daemon.connect();
    assert!(first.ask("hello").starts_with("hello checkersbot "));
    assert_eq!(first.ask("newgame 4"), "ok");
    assert_eq!(first.ask("board _b_b/____/____/p_p_ b"), "move A1 B2");

    // A second client takes over with its first request: the first gets one line and is closed.
    let mut second = daemon.connect();
    second.send("ping s2");
    let told = first
        .lines
        .recv_timeout(WAIT)
        .expect("a line to the old client");
    assert!(
        told.starts_with("error taken-over another client (127.0.0.1:"),
        "{told}"
    );
    assert!(
        first.lines.recv_timeout(WAIT).is_err(),
        "closed after one line"
    );
    assert_eq!(second.reply(), "pong s2");

    // The second goes; the next one plays on in the same game, with no `busy` in between.
    drop(second);
    drop(first);
    let mut third = daemon.connect();
    assert_eq!(third.ask("board ___b/__b_/____/p_p_ p"), "unchanged");
    assert_eq!(
        third.ask("board ___b/__b_/_p__/__p_ b"),
        "move B2 D0 captures C1 crown"
    );
    assert_eq!(third.ask("quit"), "bye");
}

#[test]
fn a_reply_for_a_client_that_went_is_not_handed_to_the_next_but_repeated() {
    let daemon = Listening::start(&["--movetime", "400", "--info", "off"]);
    let mut first = daemon.connect();
    assert_eq!(first.ask("newgame"), "ok");
    // The board starts a search; the client goes before its move is written.
    first.send("board _b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_ b");
    first.stream.flush().ok();
    // And a line cut by the disconnection is dropped, not taken as a request.
    first.stream.write_all(b"newga").ok();
    drop(first);
    std::thread::sleep(Duration::from_millis(50));
    let mut next = daemon.connect();
    // The first reply the next client sees is the one to its own request.
    assert_eq!(next.ask("ping n1"), "pong n1");
    // Once the search is over, its move is what `repeat` answers, and nothing came unasked.
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(next.ask("ping n2"), "pong n2");
    let kept = next.ask("repeat");
    assert!(kept.starts_with("move "), "{kept}");
    assert_eq!(next.ask("quit"), "bye");
}

#[test]
fn a_half_closed_client_gets_every_reply_and_no_client_is_refused() {
    let daemon = Listening::start(&["--depth", "3", "--movetime", "0", "--info", "off"]);
    let start = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_";
    let t = Instant::now();
    let runs = 40;
    for i in 0..runs {
        // As `printf 'newgame\nping\n' | socat - TCP:...` does: write, half-close, read to the end.
        let mut s = TcpStream::connect(daemon.addr).expect("connect");
        let request = if i % 4 == 0 {
            format!("newgame\nboard {start} b\nping {i}\n")
        } else {
            format!("newgame\nping {i}\n")
        };
        s.write_all(request.as_bytes()).expect("send");
        s.shutdown(std::net::Shutdown::Write).expect("half-close");
        s.set_read_timeout(Some(WAIT)).ok();
        let mut got = String::new();
        s.read_to_string(&mut got).expect("read to the end");
        let lines: Vec<&str> = got.lines().collect();
        if i % 4 == 0 {
            assert_eq!(lines.len(), 3, "run {i}: {got:?}");
            assert!(lines[1].starts_with("move "), "run {i}: {got:?}");
        } else {
            assert_eq!(lines.len(), 2, "run {i}: {got:?}");
        }
        assert_eq!(lines[0], "ok", "run {i}: {got:?}");
        assert_eq!(*lines.last().unwrap_or(&""), format!("pong {i}"), "run {i}");
    }
    eprintln!("{runs} half-closed clients answered in {:?}", t.elapsed());
    // A move that takes longer than the daemon waits for a link that fails: still written.
    let mut s = TcpStream::connect(daemon.addr).expect("connect");
    let request = format!("set depth 0\nset movetime 2500\nnewgame\nboard {start} b\nping last\n");
    s.write_all(request.as_bytes()).expect("send");
    s.shutdown(std::net::Shutdown::Write).expect("half-close");
    s.set_read_timeout(Some(WAIT)).ok();
    let mut got = String::new();
    s.read_to_string(&mut got).expect("read to the end");
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines.len(), 5, "{got:?}");
    assert!(lines[3].starts_with("move "), "{got:?}");
    assert_eq!(lines[4], "pong last");
    // Clients that close at once, one after another: never `busy`.
    for i in 0..100 {
        let mut c = daemon.connect();
        assert_eq!(c.ask(&format!("ping c{i}")), format!("pong c{i}"));
    }
}

#[test]
fn a_client_that_stops_taking_data_mid_search_is_dropped_and_the_next_is_served() {
    // A client that never reads: once the kernel's buffers are full its window stays shut, no
    // reply is acknowledged, and the connection is dropped after the TCP timeout (2 s here).
    let daemon = Listening::start(&["--movetime", "1500", "--tcp-timeout", "2"]);
    let mut stuck = TcpStream::connect(daemon.addr).expect("connect");
    stuck
        .write_all(b"newgame\nboard _b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_ b\n")
        .expect("send");
    stuck
        .set_write_timeout(Some(Duration::from_millis(200)))
        .ok();
    let t = Instant::now();
    let flood = b"options\n".repeat(1000);
    // Until its own writes block (the daemon stopped reading) or it is dropped.
    while t.elapsed() < Duration::from_secs(10) && stuck.write_all(&flood).is_ok() {}
    let dropped = daemon.logged("lost", Duration::from_secs(30));
    let took = t.elapsed();
    eprintln!("a client that takes no data dropped after {took:?}: {dropped:?}");
    assert!(dropped.is_some(), "the client was never dropped");
    assert!(took < Duration::from_secs(30), "{took:?}");
    let mut next = daemon.connect();
    assert_eq!(next.ask("ping after"), "pong after");
    let kept = next.ask("repeat");
    assert!(kept.starts_with("move ") || kept == "ok", "{kept}");
}

#[test]
fn a_tcp_client_that_never_reads_cannot_grow_the_daemon() {
    let daemon = Listening::start(&["--info", "off"]);
    let mut c = daemon.connect();
    assert_eq!(c.ask("ping"), "pong");
    drop(c);
    let pid = daemon.child.id();
    std::thread::sleep(Duration::from_millis(200));
    let idle = rss_kib(pid);
    // 400,000 requests whose replies are large, from a client that reads nothing.
    let quiet = TcpStream::connect(daemon.addr).expect("connect");
    let mut stream = quiet.try_clone().expect("clone");
    let (peak, sent, all) = peak_rss_under_flood(pid, 400_000, b"options\n", move |b| {
        stream.write_all(b).is_ok()
    });
    eprintln!(
        "tcp: idle {idle} KiB, peak {peak} KiB (+{} KiB) with {sent} requests written{}",
        peak.saturating_sub(idle),
        if all { " (all)" } else { " (then blocked)" }
    );
    assert!(peak > 0);
    assert!(peak < idle + 16 * 1024, "RSS {peak} KiB, idle {idle} KiB");
    quiet.shutdown(std::net::Shutdown::Both).ok();
}

#[test]
fn paths_are_refused_over_tcp_unless_allowed() {
    let daemon = Listening::start(&[]);
    let mut c = daemon.connect();
    for option in ["eval /tmp", "egdb /tmp", "record /tmp"] {
        let reply = c.ask(&format!("set {option}"));
        assert!(
            reply.starts_with("error bad-option ") && reply.contains("--allow-paths"),
            "{reply}"
        );
    }
    assert_eq!(c.ask("set eval hand"), "ok");
    assert_eq!(c.ask("set record off"), "ok");
    drop(c);
    drop(daemon);
    let daemon = Listening::start(&["--allow-paths"]);
    let mut c = daemon.connect();
    let reply = c.ask("set eval /dev/zero");
    assert!(reply.contains("not a readable regular file"), "{reply}");
}

/// Port probes and health checks (connect, then close; or connect, send nothing or only a
/// comment, and close) during a game take nothing from the client playing it (before: each took
/// the robot over and cut the client off).
#[test]
fn port_probes_during_a_game_take_nothing_from_the_client() {
    let daemon = Listening::start(&["--depth", "2", "--movetime", "0", "--info", "off"]);
    let mut player = daemon.connect();
    assert_eq!(player.ask("newgame"), "ok");
    let start = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_";
    let reply = player.ask(&format!("board {start} b"));
    assert!(reply.starts_with("move "), "{reply}");
    for i in 0..100 {
        let mut probe = TcpStream::connect(daemon.addr).expect("probe connects");
        match i % 3 {
            0 => {}
            1 => probe.write_all(b"\n# health check\n").expect("write"),
            _ => probe.write_all(b"pin").expect("a cut line"),
        }
        drop(probe);
        // The player keeps the robot: each request answered, nothing else arrives.
        assert_eq!(player.ask(&format!("ping p{i}")), format!("pong p{i}"));
    }
    assert!(player.lines.try_recv().is_err(), "no line came unasked");
    assert!(player.ask("repeat").starts_with("move "));
    // A connection whose first line does not parse is answered on that connection and takes
    // nothing either; its first valid request then takes over.
    // The probes' own threads may still be ending on a loaded machine: while 8 of them wait, a
    // new connection is told `error busy ... try again`, and does.
    let mut tries = 0;
    let mut next = loop {
        let mut c = daemon.connect();
        let reply = c.ask("hullo");
        if reply.starts_with("error busy ") && tries < 100 {
            tries += 1;
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        assert!(reply.starts_with("error unknown-command "), "{reply}");
        break c;
    };
    assert_eq!(player.ask("ping still"), "pong still");
    assert_eq!(next.ask("ping mine"), "pong mine");
    let told = player.lines.recv_timeout(WAIT).expect("told");
    assert!(told.starts_with("error taken-over "), "{told}");
}

/// With `--token-file`, a connection must send `hello TOKEN` first: anything else is answered
/// `error unauthorized` and closed, and takes nothing; the token lets a client in. An address
/// other than loopback is refused without a token.
#[test]
fn a_token_is_needed_to_drive_the_robot_and_off_loopback_it_is_required() {
    let dir = std::env::temp_dir().join(format!("cb-token-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let token_file = dir.join("token");
    let token = "s3cret-Token-0123456789";
    std::fs::write(&token_file, format!("{token}\n")).expect("write");
    let token_path = token_file.to_str().expect("utf-8");
    let daemon = Listening::start(&["--token-file", token_path, "--info", "off"]);
    let mut owner = daemon.connect();
    assert!(owner
        .ask(&format!("hello {token}"))
        .starts_with("hello checkersbot "));
    assert_eq!(owner.ask("newgame"), "ok");
    for first in ["ping", "hello", "hello wrong-token-0123456789", "newgame"] {
        let mut intruder = daemon.connect();
        let said = intruder.ask(first);
        assert!(said.starts_with("error unauthorized "), "{first}: {said}");
        assert!(
            intruder.lines.recv_timeout(WAIT).is_err(),
            "{first}: closed after the error"
        );
        assert_eq!(owner.ask("ping"), "pong", "the owner keeps the robot");
    }
    // Another client with the token takes over.
    let mut friend = daemon.connect();
    assert!(friend
        .ask(&format!("hello {token}"))
        .starts_with("hello checkersbot "));
    assert!(owner
        .lines
        .recv_timeout(WAIT)
        .is_ok_and(|l| l.starts_with("error taken-over ")));
    assert!(
        daemon.logged(token, Duration::from_millis(500)).is_none(),
        "the token is never logged"
    );
    drop(daemon);
    // Off loopback: no token, no daemon; a token that is too short is refused as well.
    let run = |args: &[&str]| {
        Command::new(BIN)
            .env("XDG_CACHE_HOME", NO_CACHE)
            .args(["serve", "--listen", "0.0.0.0:0"])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("serve runs")
    };
    let out = run(&[]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("--token-file"), "{said}");
    std::fs::write(&token_file, "short\n").expect("write");
    let out = run(&["--token-file", token_path]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("16 to 64 letters, digits"), "{said}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A client that floods requests without reading and then resets its connection: the replies
/// kept for it are dropped (it can never come back), the memory goes back to what it was, and
/// SIGTERM ends the daemon at once (before: 54-57 MiB for good, and 10 s to exit).
#[test]
fn a_flood_then_a_reset_leaves_no_memory_behind_and_sigterm_is_prompt() {
    let daemon = Listening::start(&["--info", "off"]);
    let pid = daemon.child.id();
    let mut c = daemon.connect();
    assert_eq!(c.ask("ping"), "pong");
    drop(c);
    std::thread::sleep(Duration::from_millis(300));
    let idle = rss_kib(pid);
    let flooder = TcpStream::connect(daemon.addr).expect("connect");
    let mut stream = flooder.try_clone().expect("clone");
    let (peak, sent, _) = peak_rss_under_flood(pid, 400_000, b"options\n", move |b| {
        stream.write_all(b).is_ok()
    });
    // A reset, not a close: SO_LINGER with a zero time-out.
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    use std::os::unix::io::AsRawFd;
    // SAFETY: a valid socket and a valid linger struct whose size is passed.
    unsafe {
        libc::setsockopt(
            flooder.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
    drop(flooder);
    // The daemon drops what it kept for that connection; memory settles.
    let mut after = u64::MAX;
    let end = Instant::now() + Duration::from_secs(10);
    while Instant::now() < end {
        std::thread::sleep(Duration::from_millis(250));
        after = rss_kib(pid);
        if after < idle + 4 * 1024 {
            break;
        }
    }
    eprintln!(
        "reset flood: idle {idle} KiB, peak {peak} KiB with {sent} requests, {after} KiB after the reset"
    );
    assert!(
        after < idle + 4 * 1024,
        "RSS {after} KiB after the reset, idle {idle} KiB"
    );
    // Another client is served, and SIGTERM ends the daemon at once.
    let mut next = daemon.connect();
    assert_eq!(next.ask("ping n"), "pong n");
    drop(next);
    let mut daemon = daemon;
    let t = Instant::now();
    common::signal(&daemon.child, libc::SIGTERM);
    let status = daemon.child.wait().expect("exits");
    eprintln!("SIGTERM after the flood: exit in {:?}", t.elapsed());
    assert!(status.success(), "{status:?}");
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
}
