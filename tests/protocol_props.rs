//! Properties of the protocol layer: printing then parsing gives the value back, and no input
//! makes a parser panic.

use checkersbot::camera::tracking::camera_grid;
use checkersbot::daemon::protocol::{Command, InfoMode, Layout, Reply, SetOption, Setup};
use checkersbot::engine::clock::TimeControl;
use checkersbot::rules::board::Grid;
use checkersbot::rules::fen::{parse_fen, to_fen};
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::position::Side;
use proptest::prelude::*;
use std::time::Duration;

fn size() -> impl Strategy<Value = BoardSize> {
    prop::sample::select(BoardSize::ALL.to_vec())
}

fn side() -> impl Strategy<Value = Side> {
    prop::bool::ANY.prop_map(|b| if b { Side::Bot } else { Side::Player })
}

/// Random grids of any size (pieces only on playable squares, men off their crowning rows).
fn grid() -> impl Strategy<Value = Grid> {
    (size(), prop::collection::vec(0u8..8, 72)).prop_map(|(size, cells)| {
        let n = size.n();
        let mut text = String::new();
        let mut i = 0;
        for r in 0..n {
            if r > 0 {
                text.push('/');
            }
            for c in 0..n {
                let ch = if (r + c) % 2 == 1 {
                    i += 1;
                    match cells[i - 1] {
                        0 => 'b',
                        1 => 'p',
                        2 => 'B',
                        3 => 'P',
                        _ => '_',
                    }
                } else {
                    '_'
                };
                let ch = match ch {
                    'p' if r == 0 => 'P',
                    'b' if r == n - 1 => 'B',
                    x => x,
                };
                text.push(ch);
            }
        }
        Grid::parse_line(&text).expect("generated grids are valid")
    })
}

fn command() -> impl Strategy<Value = Command> {
    let set = prop_oneof![
        (0u64..3_600_000).prop_map(SetOption::Movetime),
        (0u32..100).prop_map(SetOption::Depth),
        (1usize..64).prop_map(SetOption::Threads),
        (1usize..4096).prop_map(SetOption::Hash),
        size().prop_map(SetOption::Size),
        prop::bool::ANY.prop_map(SetOption::Strict),
        prop::bool::ANY.prop_map(SetOption::ColourOnly),
        prop::bool::ANY.prop_map(SetOption::Rotated),
        prop::sample::select(vec![InfoMode::Iterations, InfoMode::Final, InfoMode::Off])
            .prop_map(SetOption::Info),
        (
            prop::option::of(1u32..200),
            1u64..86_400_000,
            0u64..86_400_000
        )
            .prop_map(|(moves, base, inc)| SetOption::Clock(Some(TimeControl {
                base: Duration::from_millis(base),
                inc: Duration::from_millis(inc),
                moves
            }))),
        Just(SetOption::Clock(None)),
        (0u64..86_400_000).prop_map(SetOption::TimeLeft),
        prop::bool::ANY.prop_map(SetOption::Ponder),
        prop::sample::select(vec!["builtin", "off", "books/8x8.cbbk"])
            .prop_map(|b| SetOption::Book(b.to_string())),
    ];
    prop_oneof![
        Just(Command::Hello(None)),
        "[A-Za-z0-9._:-]{16,64}".prop_map(|t| Command::Hello(Some(t))),
        Just(Command::Ping(None)),
        Just(Command::Stop),
        Just(Command::Quit),
        set.prop_map(Command::Set),
        Just(Command::NewGame(None)),
        size().prop_map(|s| Command::NewGame(Some(Layout::Size(s)))),
        grid().prop_map(|g| Command::NewGame(Some(Layout::Rows(g.to_line())))),
        (grid(), side()).prop_map(|(g, side)| Command::Position(Setup::Rows {
            rows: g.to_line(),
            side
        })),
        (grid(), side()).prop_map(|(g, side)| Command::Position(Setup::Fen(to_fen(&g, side)))),
        (grid(), side()).prop_map(|(g, side)| Command::Board {
            rows: g.to_line(),
            side
        }),
    ]
}

proptest! {
    #[test]
    fn commands_print_and_parse_back(cmd in command()) {
        let text = cmd.to_string();
        prop_assert_eq!(Command::parse(&text), Ok(Some(cmd)));
    }

    #[test]
    fn fen_round_trips_on_every_size(g in grid(), side in side()) {
        let fen = to_fen(&g, side);
        prop_assert_eq!(parse_fen(&fen, g.size()), Ok((g.clone(), side)));
    }

    #[test]
    fn a_rotated_camera_reads_the_board_turned_round(g in grid()) {
        // What a camera on the other side of the table sends for the board `g`.
        let seen = g.rotated().to_line();
        prop_assert_eq!(seen.chars().rev().collect::<String>(), g.to_line());
        prop_assert_eq!(camera_grid(&seen, true, false), Ok(g));
    }

    #[test]
    fn parsers_never_panic(text in "\\PC{0,200}", n in 0usize..5) {
        let _ = Command::parse(&text);
        let _ = Reply::parse(&text);
        let _ = parse_fen(&text, BoardSize::ALL[n]);
        let _ = camera_grid(&text, n % 2 == 0, n % 3 == 0);
    }

    #[test]
    fn protocol_like_text_never_panics(
        words in prop::collection::vec(
            prop::sample::select(vec![
                "board", "set", "newgame", "position", "fen", "move", "info", "error", "captures",
                "crown", "depth", "score", "cp", "win", "pv", "p", "b", "A1", "Z9", "_b_b/____",
                "B:W1:B2", "K", "-", "1-", "opponent", "accepted", "hello", "protocol",
                "status", "state", "person", "plies", "seen", "diagnosis", "none", "\\x20",
            ]),
            0..8,
        )
    ) {
        let text = words.join(" ");
        let _ = Command::parse(&text);
        if let Ok(r) = Reply::parse(&text) {
            prop_assert_eq!(Reply::parse(&r.to_string()), Ok(r));
        }
    }
}
