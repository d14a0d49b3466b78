//! The bitboard move generator against the simple reference generator in `tests/refgen`: perft
//! counts from the initial position of every size and from tricky positions, and the exact sets of
//! moves (path, captured squares, crowning) on those positions, on positions reached by random
//! playouts and on random placements of pieces, on every board size.

mod refgen;

use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::bitboard::squares;
use checkersbot::rules::board::Grid;
use checkersbot::rules::geometry::{BoardSize, Coord, Geometry};
use checkersbot::rules::movegen::perft_by_moves;
use checkersbot::rules::position::{Position, Side};
use checkersbot::with_position;
use refgen::{square_name, RefBoard};

/// Positions where the rules are easy to get wrong: (board, side to move, perft depth to compare).
const TRICKY: &[(&str, char, u32)] = &[
    // 4x4: a crowning capture; a man that may not capture backwards; a side without moves.
    ("____/__b_/_p__/____", 'p', 6),
    ("____/__p_/_b__/____", 'p', 6),
    ("____/__p_/_b__/____", 'b', 6),
    ("_b_b/p_p_/____/____", 'p', 3),
    ("_b_b/p_p_/____/____", 'b', 6),
    ("_B__/____/____/P___", 'p', 8),
    // 6x6: a king that can loop round four pieces back to its start; a crowning capture that a king
    // could continue; kings capturing backwards while men may not.
    ("______/__b_b_/______/__b_b_/___P__/______", 'p', 5),
    ("______/__b_b_/______/__b_b_/___P__/______", 'b', 5),
    ("______/__b_b_/_p____/__p_p_/_B_b__/p_____", 'p', 6),
    ("______/__b_b_/_p____/__p_p_/_B_b__/p_____", 'b', 6),
    ("______/______/______/______/______/p_p_p_", 'b', 3),
    ("_b____/p_____/______/______/______/______", 'p', 3),
    // 8x8: the loop (six pieces round a king), a crowning capture that a king could continue, men
    // that may not capture backwards, and a tree of branching multi-jumps.
    (
        "________/__b_b___/________/__b_b___/___P____/__b_b___/________/________",
        'p',
        5,
    ),
    (
        "________/__b_b___/________/__b_b___/___P____/__b_b___/________/________",
        'b',
        5,
    ),
    (
        "________/__b_b_b_/___p____/________/_p______/__b___B_/_____b__/P_______",
        'p',
        6,
    ),
    (
        "________/__b_b_b_/___p____/________/_p______/__b___B_/_____b__/P_______",
        'b',
        6,
    ),
    (
        "___B____/________/_b_b_b__/______P_/___b_b__/______b_/_b_b____/__p_____",
        'p',
        5,
    ),
    (
        "___B____/________/_b_b_b__/______P_/___b_b__/______b_/_b_b____/__p_____",
        'b',
        5,
    ),
    // 10x10 and 12x12: loops and multi-jumps near the edges, kings of both sides.
    (
        "__________/__b_b_____/__________/__b_b_b___/___P______/__b_b_b___/__________/______p___/_____b_b__/B_________",
        'p',
        4,
    ),
    (
        "__________/__b_b_____/__________/__b_b_b___/___P______/__b_b_b___/__________/______p___/_____b_b__/B_________",
        'b',
        4,
    ),
    (
        "____________/__b_b_______/_________p__/__b_b_b_____/___P________/__b_b_b_____/____________/______p_____/_____b_b____/____________/_B_______b__/________P___",
        'p',
        4,
    ),
    (
        "____________/__b_b_______/_________p__/__b_b_b_____/___P________/__b_b_b_____/____________/______p_____/_____b_b____/____________/_B_______b__/________P___",
        'b',
        4,
    ),
];

/// The bitboard generator's moves, described like [`refgen::RefMove::describe`], sorted. Also
/// checks that each move's captured set agrees with the squares jumped along its path.
fn bit_moves<G: Geometry>(pos: &Position<G>) -> Vec<String> {
    let mut out: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| {
            let from_set: Vec<Coord> = squares(m.captured)
                .map(|s| Coord::from_square(s, G::N).unwrap())
                .collect();
            let mut from_path = m.captured_coords::<G>();
            from_path.sort();
            let mut sorted_set = from_set.clone();
            sorted_set.sort();
            assert_eq!(sorted_set, from_path, "captured set vs path of {m:?}");
            assert_eq!(m.jumps as usize, from_path.len());
            let mut caps: Vec<String> = from_set
                .iter()
                .map(|c| square_name((c.row as usize, c.col as usize)))
                .collect();
            caps.sort();
            format!(
                "{} x[{}]{}",
                m.notation::<G>(),
                caps.join(" "),
                if m.crowns { " crowns" } else { "" }
            )
        })
        .collect();
    out.sort();
    out
}

fn ref_moves(board: &RefBoard, side: char) -> Vec<String> {
    let mut out: Vec<String> = board.moves(side).iter().map(|m| m.describe()).collect();
    out.sort();
    out
}

fn side_of(c: char) -> Side {
    Side::from_letter(&c.to_string()).unwrap()
}

fn any_of(line: &str, side: char) -> AnyPosition {
    AnyPosition::from_grid(&Grid::parse_line(line).unwrap(), side_of(side))
}

/// Compares the move sets of one position; returns the bitboard position for further use.
fn compare_moves(line: &str, side: char) -> AnyPosition {
    let pos = any_of(line, side);
    let got = with_position!(&pos, p => bit_moves(p));
    let want = ref_moves(&RefBoard::parse(line), side);
    assert_eq!(got, want, "moves of {line} {side}");
    pos
}

#[test]
fn initial_positions_perft_matches_reference() {
    // Depths at which the reference takes about a second or less in a release build.
    let depths: &[(usize, u32)] = if cfg!(debug_assertions) {
        &[(4, 10), (6, 6), (8, 5), (10, 4), (12, 4)]
    } else {
        &[(4, 20), (6, 9), (8, 8), (10, 7), (12, 6)]
    };
    for &(n, max_depth) in depths {
        let board = RefBoard::initial(n);
        let pos = AnyPosition::initial(BoardSize::from_n(n).unwrap(), Side::Player);
        assert_eq!(pos.to_line(), board.line());
        for depth in 0..=max_depth {
            let want = board.perft('p', depth);
            assert_eq!(pos.perft(depth), want, "{n}x{n} initial, depth {depth}");
        }
    }
}

#[test]
fn tricky_positions_match_reference() {
    for &(line, side, depth) in TRICKY {
        let pos = compare_moves(line, side);
        let board = RefBoard::parse(line);
        let depth = if cfg!(debug_assertions) {
            depth.min(4)
        } else {
            depth
        };
        for d in 0..=depth {
            let want = board.perft(side, d);
            assert_eq!(pos.perft(d), want, "{line} {side} depth {d}");
            if want < 100_000 {
                let slow = with_position!(&pos, p => perft_by_moves(p, d));
                assert_eq!(slow, want, "perft_by_moves {line} {side} depth {d}");
            }
        }
    }
}

#[test]
fn tricky_positions_have_the_expected_rule_features() {
    // Guards that the positions above still test what they claim to.
    let has = |line: &str, side: char, text: &str| {
        let pos = any_of(line, side);
        pos.legal_moves()
            .iter()
            .any(|m| format!("{}{}", m.notation(), if m.crowns { " crowns" } else { "" }) == text)
    };
    // 4x4: C1 jumps B2 and is crowned on A3.
    assert!(has("____/__b_/_p__/____", 'p', "C1 A3 crowns"));
    // 6x6: the king on E3 goes round the four pieces and back to E3, either way.
    assert!(has(
        "______/__b_b_/______/__b_b_/___P__/______",
        'p',
        "E3 C1 A3 C5 E3"
    ));
    assert!(has(
        "______/__b_b_/______/__b_b_/___P__/______",
        'p',
        "E3 C5 A3 C1 E3"
    ));
    // 8x8: the man on C3 is crowned on A5 and stops, though a king there could take B6.
    assert!(has(
        "________/__b_b_b_/___p____/________/_p______/__b___B_/_____b__/P_______",
        'p',
        "C3 A5 crowns"
    ));
    // No moves at all.
    assert!(any_of("_b_b/p_p_/____/____", 'p').legal_moves().is_empty());
}

/// A small deterministic random generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn random_playouts_match_reference() {
    let games = if cfg!(debug_assertions) { 20 } else { 150 };
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut checked = 0u64;
    for size in BoardSize::ALL {
        let n = size.n();
        for game in 0..games {
            let mut board = RefBoard::initial(n);
            let mut side = if game % 2 == 0 { 'p' } else { 'b' };
            let mut pos = any_of(&board.line(), side);
            for ply in 0..300 {
                let line = board.line();
                assert_eq!(pos.to_line(), line, "{n}x{n} game {game} ply {ply}");
                assert_eq!(pos.side(), side_of(side));
                compare_moves(&line, side);
                checked += 1;
                if ply % 16 == 5 {
                    let depth = if n <= 6 { 4 } else { 3 };
                    assert_eq!(
                        pos.perft(depth),
                        board.perft(side, depth),
                        "perft {depth} of {line} {side}"
                    );
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    assert!(board.moves(side).is_empty());
                    break;
                }
                let mv = &moves[rng.below(moves.len())];
                let rmv = board
                    .moves(side)
                    .into_iter()
                    .find(|r| r.path_text() == mv.notation())
                    .expect("reference has the move");
                pos = pos.play(mv).expect("legal move plays");
                board = board.play(&rmv);
                side = if side == 'p' { 'b' } else { 'p' };
            }
        }
    }
    assert!(checked > 1000);
}

#[test]
fn random_placements_match_reference() {
    let boards = if cfg!(debug_assertions) { 100 } else { 1500 };
    let mut rng = Rng(0xB0A4_D5EE_D000_0002);
    for size in BoardSize::ALL {
        let n = size.n();
        for i in 0..boards {
            // Denser or sparser boards, with more or fewer kings.
            let fill = 2 + rng.below(6);
            let king_odds = 1 + rng.below(4);
            let mut cells = vec![vec!['_'; n]; n];
            for (r, row) in cells.iter_mut().enumerate() {
                for (c, cell) in row.iter_mut().enumerate() {
                    if (r + c) % 2 == 0 || rng.below(10) >= fill {
                        continue;
                    }
                    let bot = rng.below(2) == 0;
                    let king =
                        rng.below(king_odds + 1) == 0 || (bot && r == n - 1) || (!bot && r == 0);
                    *cell = match (bot, king) {
                        (true, false) => 'b',
                        (true, true) => 'B',
                        (false, false) => 'p',
                        (false, true) => 'P',
                    };
                }
            }
            let board = RefBoard { n, cells };
            let line = board.line();
            for side in ['p', 'b'] {
                let pos = compare_moves(&line, side);
                if i % 25 == 0 {
                    assert_eq!(
                        pos.perft(3),
                        board.perft(side, 3),
                        "perft 3 of {line} {side}"
                    );
                }
            }
        }
    }
}

/// Prints reference perft figures in the data-file format, for `tests/data`: every depth until
/// the count reaches `REF_LEAVES` (default ten million); `REF_ONLY=N` keeps only the N x N boards.
/// Slow; run with
/// `cargo test --release --test reference -- --ignored --nocapture print_reference_perft`.
#[test]
#[ignore]
fn print_reference_perft() {
    let limit: u64 = std::env::var("REF_LEAVES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);
    let mut cases: Vec<(String, char)> = BoardSize::ALL
        .iter()
        .map(|s| (RefBoard::initial(s.n()).line(), 'p'))
        .collect();
    cases.extend(TRICKY.iter().map(|&(l, s, _)| (l.to_string(), s)));
    let only: Option<usize> = std::env::var("REF_ONLY").ok().and_then(|s| s.parse().ok());
    cases.retain(|(line, _)| only.is_none_or(|n| line.split('/').count() == n));
    for (line, side) in cases {
        let board = RefBoard::parse(&line);
        println!("board {line} {side}");
        for depth in 1.. {
            let n = board.perft(side, depth);
            println!("{depth} {n}");
            if n == 0 || n >= limit {
                break;
            }
        }
    }
}
