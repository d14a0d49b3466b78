//! `serve --listen`: the protocol over TCP, one client at a time; a second client is refused with
//! one line; a client that disconnects leaves the game to the next, which also gets the final
//! replies the first could no longer take.

mod common;

use common::{line_channel, BIN, NO_CACHE, WAIT};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

/// A daemon listening on an ephemeral loopback port; its address from its log.
struct Listening {
    child: Child,
    addr: SocketAddr,
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
        std::thread::spawn(move || {
            let mut sink = Vec::new();
            stderr.read_to_end(&mut sink).ok();
        });
        Listening { child, addr }
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
        loop {
            let l = self.lines.recv_timeout(WAIT).expect("a reply in time");
            if !l.starts_with("info ") {
                return l;
            }
        }
    }

    fn ask(&mut self, line: &str) -> String {
        self.send(line);
        self.reply()
    }
}

#[test]
fn one_client_at_a_time_and_the_game_survives_a_reconnection() {
    let daemon = Listening::start(&["--depth", "4", "--movetime", "0"]);
    assert!(daemon.addr.ip().is_loopback());
    let mut first = daemon.connect();
    assert!(first.ask("hello").starts_with("hello checkersbot "));
    assert_eq!(first.ask("newgame 4"), "ok");
    assert_eq!(first.ask("board _b_b/____/____/p_p_ b"), "move A1 B2");

    // A second client gets one line and is closed; the first goes on.
    let second = daemon.connect();
    let refusal = second.lines.recv_timeout(WAIT).expect("a refusal");
    assert!(
        refusal.starts_with("error busy ") && refusal.contains("another client is connected"),
        "{refusal}"
    );
    assert!(
        second.lines.recv_timeout(WAIT).is_err(),
        "closed after one line"
    );
    assert_eq!(first.ask("ping"), "pong");

    // The first client goes; the next one plays on in the same game.
    drop(first);
    std::thread::sleep(Duration::from_millis(100));
    let mut third = daemon.connect();
    assert_eq!(third.ask("board ___b/__b_/____/p_p_ p"), "unchanged");
    assert_eq!(
        third.ask("board ___b/__b_/_p__/__p_ b"),
        "move B2 D0 captures C1 crown"
    );
    assert_eq!(third.ask("quit"), "bye");
}

#[test]
fn a_reply_the_client_could_not_take_reaches_the_next_client() {
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
    let kept = next.reply();
    assert!(kept.starts_with("move "), "{kept}");
    assert_eq!(next.ask("repeat"), kept);
    assert_eq!(next.ask("quit"), "bye");
}
