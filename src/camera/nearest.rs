//! The nearest explanation of a board that no legal move explains exactly: a person's move and a
//! camera misread in the same frame.
//!
//! The candidates are the expected position itself (nothing happened), the position after each
//! legal move of the person, and, while the arm may not have started the bot's last move, the
//! position before it. Each is compared with the camera's board square by square; the ones that
//! leave the fewest squares unexplained, at most [`MAX_MISSEEN`], are the nearest (an explanation
//! that leaves exactly one piece gone from its square and one of its side on another is not
//! counted: that is a piece moved, not a misread). One nearest
//! explanation names exactly the squares to check; several equally near ones are listed, and the
//! squares of all of them are the ones to check.
//!
//! ```
//! use checkersbot::camera::nearest::{nearest, Explanation};
//! use checkersbot::rules::any_size::AnyPosition;
//! use checkersbot::rules::board::Grid;
//! use checkersbot::rules::position::Side;
//!
//! // The person's man on E3, the bot's on A1. The person played E3 D4, and the camera saw a
//! // phantom piece on F6 in the same frame.
//! let expected = AnyPosition::from_grid(
//!     &Grid::parse_line("_b______/________/________/________/___p____/________/________/________").unwrap(),
//!     Side::Player,
//! );
//! let board = Grid::parse_line("_b______/________/________/____p___/________/______p_/________/________").unwrap();
//! let near = nearest(&expected, None, &board, false);
//! assert_eq!(near.len(), 1);
//! assert!(matches!(&near[0].explanation, Explanation::Move(m) if m.notation() == "E3 D4"));
//! assert_eq!(near[0].squares()[0].to_string(), "F6");
//! ```

use crate::camera::diagnosis::differing;
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::board::Grid;
use crate::rules::geometry::Coord;
use crate::rules::position::Piece;
use std::fmt;

/// The most squares an explanation may leave unexplained and still be called a misread.
pub const MAX_MISSEEN: usize = 2;

/// What may have happened on the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Explanation {
    /// Nothing: the board should still be the expected position.
    NoMove,
    /// The person played this legal move.
    Move(MoveInfo),
    /// The arm has not started the bot's last move (this one): the board should still be the
    /// position before it.
    ArmNotStarted(MoveInfo),
}

impl fmt::Display for Explanation {
    /// The explanation in words: `no move`, `the move F2 E3`, `the board before the bot's move
    /// C5 D4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Explanation::NoMove => f.write_str("no move"),
            Explanation::Move(mv) => write!(f, "the move {}", mv.notation()),
            Explanation::ArmNotStarted(mv) => {
                write!(f, "the board before the bot's move {}", mv.notation())
            }
        }
    }
}

/// A square the camera read otherwise than an explanation leaves it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Misseen {
    /// The square.
    pub at: Coord,
    /// What the camera saw there.
    pub seen: Option<Piece>,
    /// What the explanation leaves there.
    pub expected: Option<Piece>,
}

impl fmt::Display for Misseen {
    /// The square and what is wrong on it: `A3 (a piece where the square should be empty)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match (self.seen, self.expected) {
            (Some(_), None) => "a piece where the square should be empty",
            (None, Some(_)) => "no piece where one should be",
            (Some(s), Some(e)) if s.side != e.side => "a piece of the wrong colour",
            (Some(s), Some(_)) if s.king => "a king where a man should be",
            (Some(_), Some(_)) => "a man where a king should be",
            (None, None) => "nothing wrong",
        };
        write!(f, "{} ({what})", self.at)
    }
}

/// An explanation and the squares it leaves unexplained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Near {
    /// What may have happened.
    pub explanation: Explanation,
    /// The squares the camera read otherwise, in board order.
    pub misseen: Vec<Misseen>,
}

impl Near {
    /// The squares to check.
    pub fn squares(&self) -> Vec<Coord> {
        self.misseen.iter().map(|m| m.at).collect()
    }

    /// The squares to check and what is wrong on each, in words.
    pub fn misseen_words(&self) -> String {
        self.misseen
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The explanations of `board` nearest to it, every one that leaves the fewest squares
/// unexplained, if that is at least one and at most [`MAX_MISSEEN`]; empty when nothing is that
/// near (or when one explains the board exactly, which the caller has ruled out). `expected` is
/// the position the person is to move in; `arm` the position before the bot's last move and that
/// move, while the arm may not have made it. Moves that lead to the same position (a king's
/// capture by different routes) count once, the first in generation order.
pub fn nearest(
    expected: &AnyPosition,
    arm: Option<(&AnyPosition, &MoveInfo)>,
    board: &Grid,
    colour_only: bool,
) -> Vec<Near> {
    let mut candidates: Vec<(Explanation, Grid)> = vec![(Explanation::NoMove, expected.grid())];
    for (mv, after) in expected.successors() {
        let grid = after.grid();
        if candidates.iter().all(|(_, g)| *g != grid) {
            candidates.push((Explanation::Move(mv), grid));
        }
    }
    if let Some((before, mv)) = arm {
        let grid = before.grid();
        if candidates.iter().all(|(_, g)| *g != grid) {
            candidates.push((Explanation::ArmNotStarted(mv.clone()), grid));
        }
    }
    let scored: Vec<(Explanation, Grid, Vec<Coord>)> = candidates
        .into_iter()
        .filter(|(_, g)| g.size() == board.size())
        .map(|(e, g)| {
            let d = differing(board, &g, colour_only);
            (e, g, d)
        })
        .filter(|(_, g, d)| !one_piece_displaced(board, g, d))
        .collect();
    let Some(best) = scored.iter().map(|(_, _, d)| d.len()).min() else {
        return Vec::new();
    };
    if best == 0 || best > MAX_MISSEEN {
        return Vec::new();
    }
    scored
        .into_iter()
        .filter(|(_, _, d)| d.len() == best)
        .map(|(explanation, grid, diffs)| Near {
            explanation,
            misseen: diffs
                .into_iter()
                .map(|at| Misseen {
                    at,
                    seen: board.get(at),
                    expected: grid.get(at),
                })
                .collect(),
        })
        .collect()
}

/// Whether the squares `diffs` where `board` differs from `grid` are one piece gone from its
/// square and a piece of the same side on another: a piece moved (by the person, or the arm),
/// which is no camera misread.
fn one_piece_displaced(board: &Grid, grid: &Grid, diffs: &[Coord]) -> bool {
    let [a, b] = diffs else {
        return false;
    };
    let moved = |from: Coord, to: Coord| match (
        grid.get(from),
        board.get(from),
        grid.get(to),
        board.get(to),
    ) {
        (Some(p), None, None, Some(q)) => p.side == q.side,
        _ => false,
    };
    moved(*a, *b) || moved(*b, *a)
}

/// The squares of all of `near`, each once, in board order.
pub fn all_squares(near: &[Near]) -> Vec<Coord> {
    let mut squares: Vec<Coord> = near.iter().flat_map(Near::squares).collect();
    squares.sort();
    squares.dedup();
    squares
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::position::Side;

    fn pos(rows: &str, side: Side) -> AnyPosition {
        AnyPosition::from_grid(&Grid::parse_line(rows).unwrap(), side)
    }

    fn board(rows: &str) -> Grid {
        Grid::parse_line_allowing_uncrowned(rows).unwrap()
    }

    fn names(cs: &[Coord]) -> Vec<String> {
        cs.iter().map(|c| c.to_string()).collect()
    }

    // The person's man on E3 and king on G5, the bot's man on A1.
    const QUIET: &str = "_b______/________/________/________/___p____/________/_____P__/________";

    #[test]
    fn a_move_and_one_misread_square_name_that_square() {
        let e = pos(QUIET, Side::Player);
        // E3 D4 played; a phantom piece on C7.
        let b = board("_b______/________/_______p/____p___/________/________/_____P__/________");
        let near = nearest(&e, None, &b, false);
        assert_eq!(near.len(), 1, "{near:?}");
        assert_eq!(
            near[0].explanation,
            Explanation::Move(e.parse_move("E3 D4").unwrap())
        );
        assert_eq!(names(&near[0].squares()), ["C7"]);
        assert_eq!(
            near[0].misseen_words(),
            "C7 (a piece where the square should be empty)"
        );
    }

    #[test]
    fn kings_read_as_men_and_men_as_kings() {
        let e = pos(QUIET, Side::Player);
        // E3 D2 played, and the king on G5 read as a man.
        let b = board("_b______/________/________/__p_____/________/________/_____p__/________");
        let near = nearest(&e, None, &b, false);
        assert_eq!(near.len(), 1, "{near:?}");
        assert_eq!(names(&near[0].squares()), ["G5"]);
        assert!(near[0]
            .misseen_words()
            .contains("a man where a king should be"));
        // The same by colour only: the king's crown is not read, so the move explains everything
        // (the caller would have found it); nothing is near and unexplained.
        assert!(nearest(&e, None, &b, true).is_empty());
        // The king G5 F4 played, and the man on E3 read as a king.
        let b = board("_b______/________/________/________/___P____/____P___/________/________");
        let near = nearest(&e, None, &b, false);
        assert_eq!(near.len(), 1, "{near:?}");
        assert_eq!(
            near[0].explanation,
            Explanation::Move(e.parse_move("G5 F4").unwrap())
        );
        assert!(near[0]
            .misseen_words()
            .contains("E3 (a king where a man should be)"));
    }

    #[test]
    fn two_misread_squares_and_too_many() {
        let e = pos(QUIET, Side::Player);
        // E3 D4 played; phantoms on C7 and H0.
        let b = board("_b______/________/_______p/____p___/________/________/_____P__/p_______");
        let near = nearest(&e, None, &b, false);
        assert_eq!(near.len(), 1);
        assert_eq!(names(&near[0].squares()), ["C7", "H0"]);
        // Three phantoms: nothing is near enough.
        let b = board("_b______/________/_______p/____p___/________/__p_____/_____P__/p_______");
        assert!(nearest(&e, None, &b, false).is_empty());
    }

    #[test]
    fn equally_near_explanations_are_all_given() {
        let e = pos(QUIET, Side::Player);
        // A piece on D4 and the man still on E3: either E3 D4 with E3 misread, or no move with a
        // phantom on D4.
        let b = board("_b______/________/________/____p___/___p____/________/_____P__/________");
        let near = nearest(&e, None, &b, false);
        assert_eq!(near.len(), 2, "{near:?}");
        assert_eq!(near[0].explanation, Explanation::NoMove);
        assert_eq!(names(&near[0].squares()), ["D4"]);
        assert_eq!(names(&near[1].squares()), ["E3"]);
        assert_eq!(names(&all_squares(&near)), ["D4", "E3"]);
    }

    #[test]
    fn a_piece_moved_is_no_misread() {
        let e = pos(QUIET, Side::Player);
        // The person's man moved from E3 to C1 (two rows): not a misread of E3 and C1.
        let b = board("_b______/________/_p______/________/________/________/_____P__/________");
        let near = nearest(&e, None, &b, false);
        assert!(
            near.iter().all(|n| n.explanation != Explanation::NoMove),
            "{near:?}"
        );
    }

    #[test]
    fn the_board_before_the_bots_move_with_a_misread() {
        // The bot played B0 C1 (so the person is to move); the camera still shows B0 (the arm has
        // not started) and a phantom on H6.
        let before = pos(
            "________/b_______/________/________/___p____/________/________/________",
            Side::Bot,
        );
        let mv = before.parse_move("B0 C1").unwrap();
        let after = before.play(&mv).unwrap();
        let b = board("________/b_______/________/________/___p____/________/________/______p_");
        let near = nearest(&after, Some((&before, &mv)), &b, false);
        assert_eq!(near.len(), 1, "{near:?}");
        assert_eq!(near[0].explanation, Explanation::ArmNotStarted(mv.clone()));
        assert_eq!(names(&near[0].squares()), ["H6"]);
        assert_eq!(
            near[0].explanation.to_string(),
            "the board before the bot's move B0 C1"
        );
    }

    #[test]
    fn every_board_size() {
        // 4x4: the person's men on D0 and D2, the bot's on A1 and A3. D0 C1 played, A3 misread
        // as empty.
        let e = pos("_b_b/____/____/p_p_", Side::Player);
        let b = board("_b__/____/_p__/__p_");
        let near = nearest(&e, None, &b, false);
        assert_eq!(near.len(), 1, "{near:?}");
        assert_eq!(names(&near[0].squares()), ["A3"]);
        // 12x12 start, the person's first move and a phantom in the middle.
        let start = AnyPosition::initial(crate::rules::geometry::BoardSize::S12, Side::Player);
        let (mv, after) = start.successors().into_iter().next().unwrap();
        let mut g = after.grid();
        let spot = g
            .playable()
            .find(|&c| g.get(c).is_none() && !mv.path.contains(&c))
            .unwrap();
        g.set(
            spot,
            Some(Piece {
                side: Side::Bot,
                king: false,
            }),
        );
        let near = nearest(&start, None, &g, false);
        assert_eq!(near.len(), 1, "{near:?}");
        assert_eq!(near[0].explanation, Explanation::Move(mv));
        assert_eq!(near[0].squares(), vec![spot]);
    }
}
