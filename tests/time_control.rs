//! The game clock and pondering through the real daemon.
//!
//! - A short clock (2 s + 0.05 s a move) over 60+ bot moves on 10x10: the test keeps the bot's
//!   clock itself, from sending each board to reading its `move`, and the bot never oversteps.
//! - Pondering: while the person thinks the daemon writes nothing; `ping`, `stop`, `newgame`
//!   and `set ponder off` are answered at once; the move after a ponder comes within its time.

mod common;

use checkersbot::daemon::protocol::Reply;
use checkersbot::engine::{Engine, EngineConfig, Limits};
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::game::{Game, Status};
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::position::Side;
use common::Daemon;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The bot's move in `game` that the `move ...` reply names.
fn bot_move(game: &Game, reply: &str) -> checkersbot::rules::any_size::MoveInfo {
    game.current()
        .legal_moves()
        .into_iter()
        .find(|m| Reply::Move(m.clone()).to_string() == reply)
        .unwrap_or_else(|| panic!("'{reply}' is not a legal move"))
}

/// Sends `board` and waits for its final reply (with `--info off` only `info opponent` may come
/// before it); the time it took.
fn timed(daemon: &mut Daemon, board: &str) -> (String, Duration) {
    let sent = Instant::now();
    daemon.send(board);
    loop {
        let reply = daemon.next();
        if !reply.starts_with("info opponent ") {
            return (reply, sent.elapsed());
        }
    }
}

/// Sends `line`; the very next line written.
fn exact(daemon: &mut Daemon, line: &str) -> String {
    daemon.send(line);
    daemon.next()
}

#[test]
fn a_short_clock_is_never_overstepped_in_many_moves() {
    let base = Duration::from_secs(2);
    let inc = Duration::from_millis(50);
    let mut daemon = Daemon::start(&["--clock", "2+0.05", "--info", "off"]);
    // The person: a depth-2 engine, so that games last.
    let mut person = Engine::new(EngineConfig {
        hash_mb: 1,
        seed: Some(7),
        ..EngineConfig::default()
    });
    let limits = Limits {
        depth: Some(2),
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    let mut left = base;
    let mut bot_moves = 0;
    let mut longest = Duration::ZERO;
    let mut games = 0;
    while bot_moves < 64 {
        games += 1;
        assert!(
            games <= 6,
            "games too short: {bot_moves} bot moves in 5 games"
        );
        assert_eq!(daemon.ask("newgame 10"), "ok");
        // The clock goes on from the last game: tell the daemon what is left.
        assert_eq!(
            daemon.ask(&format!("set timeleft {}", left.as_millis())),
            "ok"
        );
        let mut game = Game::new(AnyPosition::initial(BoardSize::S10, Side::Bot));
        loop {
            let board = format!("board {} b", game.current().to_line());
            let (reply, took) = timed(&mut daemon, &board);
            if reply.starts_with("gameover") {
                break;
            }
            assert!(reply.starts_with("move "), "{reply}");
            assert!(
                took < left,
                "bot move {} took {took:?} with {left:?} left",
                bot_moves + 1
            );
            left = left - took + inc;
            longest = longest.max(took);
            bot_moves += 1;
            let mv = bot_move(&game, &reply);
            game.play(&mv);
            if game.status() != Status::Ongoing {
                break;
            }
            let r = person.search(
                game.current(),
                &game.history_keys(),
                &limits,
                &stop,
                &mut |_| {},
            );
            let Some(answer) = r.best else { break };
            game.play(&answer);
            if game.status() != Status::Ongoing {
                break;
            }
        }
    }
    eprintln!(
        "{bot_moves} bot moves in {games} games at 2+0.05: longest {longest:?}, {left:?} left"
    );
    assert_eq!(daemon.ask("quit"), "bye");
}

#[test]
fn serve_refuses_a_bad_clock() {
    let out = std::process::Command::new(common::BIN)
        .args(["serve", "--clock", "2"])
        .output()
        .expect("run serve");
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("clock must be off, BASE+INC"), "{said}");
}

const START8: &str = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_";

#[test]
fn pondering_is_silent_stops_on_request_and_never_delays_the_move() {
    let mut daemon = Daemon::start(&["--ponder", "--movetime", "300", "--info", "off"]);
    assert_eq!(daemon.ask("newgame"), "ok");
    let mut game = Game::new(AnyPosition::initial(BoardSize::S8, Side::Bot));
    let (reply, _) = timed(&mut daemon, &format!("board {START8} b"));
    game.play(&bot_move(&game, &reply));
    for round in 0..3 {
        // The person thinks; the daemon ponders and says nothing.
        std::thread::sleep(Duration::from_millis(400));
        assert_eq!(
            exact(&mut daemon, "ping"),
            "pong",
            "nothing before the pong"
        );
        let answer = game.current().legal_moves()[0].clone();
        game.play(&answer);
        let (reply, took) = timed(
            &mut daemon,
            &format!("board {} b", game.current().to_line()),
        );
        assert!(reply.starts_with("move "), "{reply}");
        // 300 ms, with room for a loaded machine (the test suite's other tests on 2 cores): a
        // daemon that waited for its ponder, which has no end of its own, would take far longer.
        assert!(
            took < Duration::from_millis(300 + 1700),
            "round {round}: {took:?}"
        );
        game.play(&bot_move(&game, &reply));
    }
    // `stop` ends the ponder: just `ok`.
    let sent = Instant::now();
    assert_eq!(exact(&mut daemon, "stop"), "ok");
    assert!(sent.elapsed() < Duration::from_secs(2));
    // The person's board after a stopped ponder is still answered.
    let answer = game.current().legal_moves()[0].clone();
    game.play(&answer);
    let (reply, _) = timed(
        &mut daemon,
        &format!("board {} b", game.current().to_line()),
    );
    assert!(reply.starts_with("move "), "{reply}");
    // `analyse` and `hint` while pondering: the ponder search gives way to them.
    daemon.send("analyse 2");
    let mut got = Vec::new();
    let sent = Instant::now();
    while got.last().map(String::as_str) != Some("ok") {
        let line = daemon
            .lines()
            .recv_timeout(Duration::from_secs(10))
            .expect("analyse answers while pondering");
        got.push(line);
    }
    assert!(
        sent.elapsed() < Duration::from_secs(5),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(
        got[0].starts_with("line 1 ") && got[1].starts_with("line 2 "),
        "{got:?}"
    );
    // `newgame` while pondering: at once.
    let sent = Instant::now();
    assert_eq!(exact(&mut daemon, "newgame"), "ok");
    assert!(sent.elapsed() < Duration::from_secs(2));
    let (reply, _) = timed(&mut daemon, &format!("board {START8} b"));
    assert!(reply.starts_with("move "), "{reply}");
    assert_eq!(exact(&mut daemon, "set ponder off"), "ok");
    assert_eq!(exact(&mut daemon, "quit"), "bye");
    assert!(daemon.wait_exit(Duration::from_secs(10)).is_some());
    assert!(
        daemon.lines().recv_timeout(Duration::from_secs(1)).is_err(),
        "nothing after bye"
    );
}
