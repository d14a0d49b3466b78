//! Camera orientation help through the daemon: on every size, a start or a move seen turned by 180
//! degrees, mirrored or flipped is answered with an error that names the turn and its fix, and the
//! game is left as it was (the corrected board is then played as usual).

use checkersbot::camera::turn::{reorient, Turn};
use checkersbot::daemon::transport::MemorySink;
use checkersbot::daemon::{replay, Settings};
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::board::initial_grid;
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::position::Side;

/// The final replies (no `info` lines) to `input`, with depth 2 and no info lines.
fn replies(input: &str) -> Vec<String> {
    let sink = MemorySink::default();
    let settings = Settings {
        depth: Some(2),
        info: checkersbot::daemon::protocol::InfoMode::Off,
        ..Settings::deterministic()
    };
    let text = format!("{input}\nquit\n");
    replay(
        settings,
        std::io::Cursor::new(text.into_bytes()),
        Box::new(sink.clone()),
    )
    .expect("a 16 MiB table");
    let lines = sink.0.lock().map(|l| l.clone()).unwrap_or_default();
    lines
        .into_iter()
        .filter(|l| !l.starts_with("info "))
        .collect()
}

#[test]
fn a_turned_start_is_named_with_its_fix_on_every_size() {
    for size in BoardSize::ALL {
        let start = initial_grid(size).to_line();
        for (turn, fix) in [
            (Turn::Rotated, "send set rotated on"),
            (Turn::Mirrored, "mirror the rows in the vision system"),
            (Turn::Flipped, "flip the rows in the vision system"),
        ] {
            let seen = reorient(&start, turn);
            let got = replies(&format!(
                "newgame {n}\nboard {seen} p\nstatus\nboard {start} p",
                n = size.n()
            ));
            let [ok, error, status, unchanged, bye] = got.as_slice() else {
                panic!("{size} {turn:?}: {got:?}");
            };
            assert_eq!((ok.as_str(), bye.as_str()), ("ok", "bye"));
            assert!(error.starts_with("error bad-board "), "{size}: {error}");
            assert!(error.contains("the board is the start position"), "{error}");
            assert!(error.contains(fix), "{size} {turn:?}: {error}");
            // The game is as it was: still at its start, and the right board is taken.
            assert!(status.starts_with("status state start "), "{status}");
            assert_eq!(unchanged, "unchanged", "{size} {turn:?}");
        }
    }
}

#[test]
fn a_move_seen_turned_round_in_an_endgame_is_classed_orientation() {
    // No man near a crowning row: the turned board is a valid one, only unexplained.
    let rows = "________/________/___b____/______b_/_____p__/__p_____/________/________";
    let pos = AnyPosition::from_grid(
        &checkersbot::rules::board::Grid::parse_line(rows).expect("a board"),
        Side::Player,
    );
    let moved = pos
        .successors()
        .into_iter()
        .next()
        .expect("a legal move")
        .1
        .to_line();
    let turned = reorient(&moved, Turn::Rotated);
    let got = replies(&format!(
        "position {rows} p\nboard {turned} b\nset rotated on\nboard {turned} b"
    ));
    assert!(
        got[1].starts_with("error illegal-transition ")
            && got[1].contains(": orientation: turned by 180 degrees the board is a legal move")
            && got[1].ends_with("send set rotated on (or start serve with --rotated)"),
        "{got:?}"
    );
    // With the fix, the same board is the person's move.
    assert_eq!(got[2], "ok");
    assert!(got[3].starts_with("move "), "{got:?}");
    // A board read right but turned in the wrong way: rotated on for a board as it stands.
    let got = replies(&format!(
        "set rotated on\nposition {rows} p\nboard {moved} b"
    ));
    assert!(
        got[2].contains(": orientation: ") && got[2].ends_with("send set rotated off"),
        "{got:?}"
    );
}

#[test]
fn misreads_and_uncrowned_men_get_no_orientation_hint() {
    let start = initial_grid(BoardSize::S8).to_line();
    // One man not crowned, one piece on a light square, one piece lifted.
    let uncrowned = start.replacen("p_p_p_p_", "b_p_p_p_", 1);
    let uncrowned = format!(
        "{}/b_p_p_p_",
        uncrowned.rsplit_once('/').map_or("", |(a, _)| a)
    );
    let light = start.replacen("/________/", "/_p______/", 1);
    let missing = start.replacen("p_p_p_p_", "__p_p_p_", 1);
    let got = replies(&format!(
        "newgame\nboard {uncrowned} p\nboard {light} p\nboard {missing} p"
    ));
    for reply in &got[1..4] {
        assert!(
            reply.starts_with("error ") || reply.starts_with("wait "),
            "{reply}"
        );
        for words in ["turned", "mirrored", "flipped", "orientation"] {
            assert!(!reply.contains(words), "{reply}");
        }
    }
}
