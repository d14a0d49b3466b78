//! `set record DIR` (and `serve --record DIR`): each finished game, and each game abandoned at
//! `newgame`, `position` or the end of the session, is written to the directory: PDN on 8x8 (read
//! back by `rules::pdn::read_game` and by pydraughts), a path list on other sizes.

use checkersbot::daemon::transport::MemorySink;
use checkersbot::daemon::{replay, Settings};
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::pdn::read_game;
use checkersbot::rules::position::Side;
use std::process::Command;

/// Plays a session that writes three records into a fresh directory named by `tag`: a game
/// abandoned at `position` (p moved first), a finished one, and a 6x6 game abandoned at the end.
/// Returns the directory and the files, sorted.
fn record_a_session(tag: &str) -> (std::path::PathBuf, Vec<std::path::PathBuf>) {
    let dir = std::env::temp_dir().join(format!("checkersbot-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Ten plies from the 8x8 start with p moving first, as a move list.
    let mut pos = AnyPosition::initial(BoardSize::S8, Side::Player);
    let mut moves = Vec::new();
    for i in 0..10 {
        let legal = pos.legal_moves();
        let m = legal[i % legal.len()].clone();
        moves.push(
            m.path
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join("-"),
        );
        pos = pos.play(&m).expect("legal");
    }
    let input = format!(
        "set depth 2\nset info off\nset record {dir}\nposition start p moves {moves}\n\
         position ________/________/___b____/__p_____/________/________/________/p_______ p\n\
         board ________/____p___/________/________/________/________/________/p_______ b\n\
         newgame 6\nboard _b_b_b/b_b_b_/______/______/_p_p_p/p_p_p_ b\nquit\n",
        dir = dir.display(),
        moves = moves.join(" ")
    );
    let sink = MemorySink::default();
    replay(
        Settings::deterministic(),
        std::io::Cursor::new(input.into_bytes()),
        Box::new(sink.clone()),
    )
    .expect("a 16 MiB table");
    let replies = sink.0.lock().map(|l| l.clone()).unwrap_or_default();
    assert!(
        replies.contains(&"gameover win p nomoves".to_string()),
        "{replies:?}"
    );
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the record directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    (dir, files)
}

#[test]
fn games_are_recorded_when_they_end_or_are_abandoned() {
    let (dir, files) = record_a_session("records");
    let text = |i: usize| std::fs::read_to_string(&files[i]).unwrap_or_default();
    // 1: abandoned at position, p moved first: set-up FEN, unfinished, numbered from White.
    let first = text(0);
    assert!(first.contains("[FEN \"W:W21,"), "{first}");
    assert!(first.contains("[Result \"*\"]"), "{first}");
    assert!(first.contains("abandoned at position"), "{first}");
    let (start, played) = read_game(&first).expect("the record reads back");
    assert_eq!(start.side(), Side::Player);
    assert_eq!(played.len(), 10);
    // 2: finished: the person's capture won.
    let second = text(1);
    assert!(second.contains("[Result \"1-0\"]"), "{second}");
    assert!(second.contains("gameover win p nomoves"), "{second}");
    assert_eq!(read_game(&second).map(|g| g.1.len()), Ok(1));
    // 3: 6x6, abandoned at the end: a path list.
    assert!(files[2].extension().is_some_and(|e| e == "txt"));
    let third = text(2);
    assert!(
        third.contains("# Result: unfinished (abandoned at the end of the session"),
        "{third}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Other programs read the PDN records too (p moving first included).
#[test]
#[cfg_attr(
    not(has_pydraughts),
    ignore = "needs pydraughts: pip install pydraughts==0.6.7, then touch build.rs"
)]
fn pdn_records_are_read_by_pydraughts() {
    let (dir, files) = record_a_session("records-pydraughts");
    let text = |i: usize| std::fs::read_to_string(&files[i]).unwrap_or_default();
    let both = dir.join("both.pdn");
    std::fs::write(&both, text(0) + &text(1)).expect("write");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/pdn/replay_pydraughts.py"
    );
    let run = Command::new("python3")
        .arg(script)
        .arg(&both)
        .output()
        .expect("python3 runs");
    let said = String::from_utf8_lossy(&run.stdout);
    assert_ne!(run.status.code(), Some(3), "pydraughts is missing");
    assert!(said.starts_with("replayed 2 games, "), "{said}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A game the bot's last move ended is written with its result even when the session ends before
/// the board after that move arrives.
#[test]
fn a_game_won_by_the_bots_last_move_is_recorded_with_its_result() {
    let dir = std::env::temp_dir().join(format!("checkersbot-records-won-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let rows = "_b______/________/___b____/____p___/________/________/________/________";
    let input = format!(
        "set depth 2\nset info off\nset record {}\nposition {rows} b\nboard {rows} b\nquit\n",
        dir.display()
    );
    let sink = MemorySink::default();
    replay(
        Settings::deterministic(),
        std::io::Cursor::new(input.into_bytes()),
        Box::new(sink.clone()),
    )
    .expect("a 16 MiB table");
    let replies = sink.0.lock().map(|l| l.clone()).unwrap_or_default();
    assert!(
        replies.contains(&"move C3 E5 captures D4".to_string()),
        "{replies:?}"
    );
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the record directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap_or_default();
    assert!(text.contains("[Result \"0-1\"]"), "{text}");
    assert!(text.contains("gameover win b nomoves"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
