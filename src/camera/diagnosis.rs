//! What the person did when a camera board follows from no legal move: a move still in progress,
//! a capture ignored, a man moved backwards or too far, two moves at once, a captured piece put
//! back, or a piece that appeared or vanished away from any move (a misread), also in the same
//! frame as a legal move (the nearest explanation, [`crate::camera::nearest`]).
//!
//! [`diagnose`] is a pure function of the expected position (the person to move), the game's last
//! capture, the bot's last move while the arm may not have made it, and the board;
//! [`crate::camera::tracking`] calls it and the daemon words the result.

use crate::camera::nearest::{self, Explanation, Near};
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::board::Grid;
use crate::rules::geometry::Coord;
use crate::rules::position::{Piece, Side};
use std::fmt;

/// How far a legal move of the person has got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The piece is lifted from its square and not yet put down.
    Lifted(Coord),
    /// A multi-jump stands on this landing square, on its way.
    Jumping(Coord),
    /// The move is made but these captured pieces are still on the board.
    RemoveCaptured(Vec<Coord>),
    /// The man reached its crowning row on this square and is not crowned yet.
    Crown(Coord),
}

impl Stage {
    /// The class word of the `wait` reply.
    pub fn word(&self) -> &'static str {
        match self {
            Stage::Lifted(_) => "lifted",
            Stage::Jumping(_) => "jumping",
            Stage::RemoveCaptured(_) => "remove-captured",
            Stage::Crown(_) => "crown",
        }
    }

    /// The squares the `wait` reply names.
    pub fn squares(&self) -> Vec<Coord> {
        match self {
            Stage::Lifted(c) | Stage::Jumping(c) | Stage::Crown(c) => vec![*c],
            Stage::RemoveCaptured(cs) => cs.clone(),
        }
    }
}

/// Why a single piece's step is not legal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StepFault {
    /// The piece belongs to the bot.
    BotsPiece,
    /// A man moved away from its crowning row.
    Backwards,
    /// The step is not along a diagonal.
    NotDiagonal,
    /// More than one square along a diagonal without a capture.
    TooFar,
}

/// What an unexplained board shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Diagnosis {
    /// A legal move under way: not an error, the vision system waits for the next board.
    InProgress {
        /// The move (the first that fits when several do, e.g. a lifted piece).
        mv: MoveInfo,
        /// How far it has got.
        stage: Stage,
    },
    /// A step was played while a capture is mandatory.
    CaptureIgnored {
        /// The step that was played.
        from: Coord,
        /// Where it went.
        to: Coord,
        /// The captures available.
        captures: Vec<MoveInfo>,
    },
    /// One piece moved in a way no rule allows.
    IllegalStep {
        /// Where it stood.
        from: Coord,
        /// Where it stands.
        to: Coord,
        /// What is wrong.
        fault: StepFault,
    },
    /// Two legal moves at once: the person's, then a second one of theirs or one of the bot's.
    TwoMoves {
        /// The person's move.
        first: MoveInfo,
        /// The move after it.
        second: MoveInfo,
        /// Whose piece made the second move.
        second_side: Side,
    },
    /// Pieces captured in the game's last capture are back on their squares.
    CapturedPutBack(Vec<Coord>),
    /// Pieces appeared, vanished or changed with no move that explains them: a misread or a
    /// knocked piece.
    Misread {
        /// Squares where a piece appeared.
        appeared: Vec<Coord>,
        /// Squares where a piece vanished.
        vanished: Vec<Coord>,
        /// Squares whose piece changed (colour or crown).
        changed: Vec<Coord>,
    },
    /// One explanation other than "no move" fits every square but one or two: a legal move of the
    /// person (or the board before the bot's move, the arm not started) and a camera misread in
    /// the same frame. The misread squares are the ones to check.
    MisreadAfter(Near),
    /// Several explanations are equally near the board (each leaving one or two squares
    /// unexplained): the camera misread some of their squares, and the board cannot say which.
    Ambiguous(Vec<Near>),
    /// The board fits the game once turned (the camera's picture is rotated, mirrored or upside
    /// down): see [`crate::camera::orientation`].
    Orientation(crate::camera::turn::Hint),
    /// Nothing simpler fits.
    Unknown,
}

impl Diagnosis {
    /// The class word in replies (`in-progress`, `capture-ignored`, ...).
    pub fn word(&self) -> &'static str {
        match self {
            Diagnosis::InProgress { .. } => "in-progress",
            Diagnosis::CaptureIgnored { .. } => "capture-ignored",
            Diagnosis::IllegalStep { fault, .. } => match fault {
                StepFault::BotsPiece => "bots-piece",
                StepFault::Backwards => "backwards",
                StepFault::NotDiagonal => "not-diagonal",
                StepFault::TooFar => "too-far",
            },
            Diagnosis::TwoMoves { .. } => "two-moves",
            Diagnosis::CapturedPutBack(_) => "captured-put-back",
            Diagnosis::Misread { .. } | Diagnosis::MisreadAfter(_) => "misread",
            Diagnosis::Ambiguous(_) => "ambiguous",
            Diagnosis::Orientation(_) => "orientation",
            Diagnosis::Unknown => "unexplained",
        }
    }

    /// The squares to check, when they are not simply those that differ from the expected
    /// position: a misread in the same frame as a move, or several near explanations.
    pub fn squares_to_check(&self) -> Option<Vec<Coord>> {
        match self {
            Diagnosis::MisreadAfter(near) => Some(near.squares()),
            Diagnosis::Ambiguous(near) => Some(nearest::all_squares(near)),
            _ => None,
        }
    }
}

fn squares(cs: &[Coord]) -> String {
    cs.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

impl fmt::Display for Diagnosis {
    /// What happened and what to do, in words for the person (after the class word).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Diagnosis::InProgress { mv, stage } => match stage {
                Stage::Lifted(c) => write!(f, "the piece from {c} is in the air; put it down"),
                Stage::Jumping(c) => write!(
                    f,
                    "the capture {} is under way, the piece is on {c}; go on jumping",
                    mv.notation()
                ),
                Stage::RemoveCaptured(cs) => write!(
                    f,
                    "the move {} is made; remove the captured {} {}",
                    mv.notation(),
                    if cs.len() == 1 { "piece on" } else { "pieces on" },
                    squares(cs)
                ),
                Stage::Crown(c) => write!(f, "the man on {c} reached the last row; crown it"),
            },
            Diagnosis::CaptureIgnored {
                from,
                to,
                captures,
            } => {
                let list = captures
                    .iter()
                    .map(|m| m.notation())
                    .collect::<Vec<_>>()
                    .join(" or ");
                write!(
                    f,
                    "{from} {to} was played, but a capture is mandatory: {list}; take the move back and capture"
                )
            }
            Diagnosis::IllegalStep { from, to, fault } => match fault {
                StepFault::BotsPiece => {
                    write!(f, "the bot's piece moved from {from} to {to}; put it back")
                }
                StepFault::Backwards => write!(
                    f,
                    "the man on {from} moved backwards to {to}; only kings move backwards; put it back"
                ),
                StepFault::NotDiagonal => write!(
                    f,
                    "the piece on {from} moved to {to}, which is not along a diagonal; put it back"
                ),
                StepFault::TooFar => write!(
                    f,
                    "the piece on {from} moved to {to}, more than one square without a capture; put it back"
                ),
            },
            Diagnosis::TwoMoves {
                first,
                second,
                second_side,
            } => {
                let whose = match second_side {
                    Side::Player => "your",
                    Side::Bot => "the bot's",
                };
                write!(
                    f,
                    "two moves at once: {} then {} ({whose} piece); take back {}",
                    first.notation(),
                    second.notation(),
                    second.notation()
                )
            }
            Diagnosis::CapturedPutBack(cs) => {
                let (what, them) = if cs.len() == 1 {
                    ("piece on", "it")
                } else {
                    ("pieces on", "them")
                };
                write!(
                    f,
                    "the captured {what} {} {} back on the board; remove {them}",
                    squares(cs),
                    if cs.len() == 1 { "is" } else { "are" }
                )
            }
            Diagnosis::Misread {
                appeared,
                vanished,
                changed,
            } => {
                let mut parts = Vec::new();
                if !appeared.is_empty() {
                    parts.push(format!("a piece appeared on {}", squares(appeared)));
                }
                if !vanished.is_empty() {
                    parts.push(format!("a piece vanished from {}", squares(vanished)));
                }
                if !changed.is_empty() {
                    parts.push(format!("the piece changed on {}", squares(changed)));
                }
                write!(
                    f,
                    "{} with no move to explain it; check the camera and the board",
                    parts.join(", ")
                )
            }
            Diagnosis::MisreadAfter(near) => {
                let then = match &near.explanation {
                    Explanation::ArmNotStarted(mv) => format!(
                        ", so the arm has not made it yet; check the camera at {}, then make the move {}",
                        near.misseen_words(),
                        mv.notation()
                    ),
                    _ => format!("; check the camera at {}", near.misseen_words()),
                };
                write!(f, "{} explains every other square{then}", near.explanation)
            }
            Diagnosis::Ambiguous(near) => {
                let list = near
                    .iter()
                    .map(|n| format!("{} but for {}", n.explanation, n.misseen_words()))
                    .collect::<Vec<_>>()
                    .join(", or ");
                write!(
                    f,
                    "{} explanations are equally near: {list}; check the camera at {}",
                    near.len(),
                    squares(&nearest::all_squares(near))
                )
            }
            Diagnosis::Orientation(hint) => write!(f, "{hint}"),
            Diagnosis::Unknown => write!(
                f,
                "no legal move by p leads from the expected position to this board"
            ),
        }
    }
}

/// Whether two cells hold the same thing (by colour only if asked).
pub(crate) fn same_cell(a: Option<Piece>, b: Option<Piece>, colour_only: bool) -> bool {
    if colour_only {
        a.map(|p| p.side) == b.map(|p| p.side)
    } else {
        a == b
    }
}

/// Squares where two grids of the same size differ (by colour only if asked).
pub(crate) fn differing(a: &Grid, b: &Grid, colour_only: bool) -> Vec<Coord> {
    a.playable()
        .filter(|&c| !same_cell(a.get(c), b.get(c), colour_only))
        .collect()
}

/// Whether `board` is on the way from `p0` to `p1` by the move `mv`: every square that differs from
/// `p1` is one the move touches and holds what it held before the move, or the moving piece stands
/// on a landing square of the path (a piece lifted, a multi-jump half done, captured pieces not yet
/// removed, a man not yet crowned). Also the test for the arm making the bot's move.
pub(crate) fn on_the_way(
    board: &Grid,
    p0: &Grid,
    p1: &Grid,
    mv: &MoveInfo,
    colour_only: bool,
) -> bool {
    let diffs = differing(board, p1, colour_only);
    if diffs.is_empty() {
        return false;
    }
    let Some(&from) = mv.path.first() else {
        return false;
    };
    let mover = p0.get(from);
    let landing = |c: &Coord| mv.path[1..].contains(c);
    // The piece is in one place: once it stands on a landing square it has left its start.
    let placed = mv.path[1..].iter().any(|c| {
        *c != from && board.get(*c).is_some() && same_cell(board.get(*c), mover, colour_only)
    });
    if placed && !landing(&from) && board.get(from).is_some() {
        return false;
    }
    diffs.iter().all(|c| {
        let touched = mv.path.contains(c) || mv.captured.contains(c);
        touched
            && (same_cell(board.get(*c), p0.get(*c), colour_only)
                || (landing(c) && same_cell(board.get(*c), mover, colour_only)))
    })
}

/// How far `mv` has got on `board` (which is [`on_the_way`] from `p0`).
fn stage(board: &Grid, p0: &Grid, mv: &MoveInfo, colour_only: bool) -> Stage {
    let from = mv.path[0];
    let mover = p0.get(from);
    let last = *mv.path.last().unwrap_or(&from);
    let at = mv.path[1..]
        .iter()
        .rev()
        .find(|c| board.get(**c).is_some() && same_cell(board.get(**c), mover, colour_only))
        .copied();
    match at {
        None => Stage::Lifted(from),
        Some(c) if c != last => Stage::Jumping(c),
        Some(c) => {
            let left: Vec<Coord> = mv
                .captured
                .iter()
                .copied()
                .filter(|s| board.get(*s).is_some())
                .collect();
            if !left.is_empty() {
                Stage::RemoveCaptured(left)
            } else if mv.crowns {
                Stage::Crown(c)
            } else {
                // Not reached for a board on the way (it would be the position after the move).
                Stage::Lifted(from)
            }
        }
    }
}

/// The person's legal move under way on `board`, if any.
pub fn in_progress(expected: &AnyPosition, board: &Grid, colour_only: bool) -> Option<Diagnosis> {
    let p0 = expected.grid();
    expected
        .successors()
        .into_iter()
        .find(|(m, p)| on_the_way(board, &p0, &p.grid(), m, colour_only))
        .map(|(mv, _)| {
            let stage = stage(board, &p0, &mv, colour_only);
            Diagnosis::InProgress { mv, stage }
        })
}

/// Diagnoses `board`, which no legal move of the person leads to from `expected` (the person to
/// move). `last_capture` is the game's last capture among its last two plies, with the position
/// before it, if any (to recognise captured pieces put back); `arm` the position before the bot's
/// last move and that move, while the arm may not have made it (a board near the position before
/// it is the arm not started and a misread).
pub fn diagnose(
    expected: &AnyPosition,
    last_capture: Option<(&AnyPosition, &MoveInfo)>,
    arm: Option<(&AnyPosition, &MoveInfo)>,
    board: &Grid,
    colour_only: bool,
) -> Diagnosis {
    if let Some(d) = in_progress(expected, board, colour_only) {
        return d;
    }
    let p0 = expected.grid();
    let diffs = differing(board, &p0, colour_only);
    if let Some((before, mv)) = last_capture {
        let was = before.grid();
        let put_back = !diffs.is_empty()
            && diffs.iter().all(|c| {
                mv.captured.contains(c)
                    && p0.get(*c).is_none()
                    && same_cell(board.get(*c), was.get(*c), colour_only)
            });
        if put_back {
            return Diagnosis::CapturedPutBack(diffs);
        }
    }
    if let Some((from, to)) = one_piece_moved(&p0, board, &diffs, colour_only) {
        let piece = p0.get(from);
        let captures = expected.legal_moves();
        let fault = step_fault(piece, from, to);
        if fault.is_none() && expected.has_capture() {
            return Diagnosis::CaptureIgnored { from, to, captures };
        }
        if let Some(fault) = fault {
            return Diagnosis::IllegalStep { from, to, fault };
        }
    }
    if let Some(d) = two_moves(expected, board, colour_only) {
        return d;
    }
    // A misread, alone or in the same frame as a move: the nearest explanation.
    nearest_diagnosis(expected, arm, board, colour_only)
}

/// The diagnosis by the nearest explanation alone ([`nearest::nearest`]): a misread with no
/// move, a misread in the same frame as a move (or the arm not started), several equally near
/// explanations, or [`Diagnosis::Unknown`] when nothing is that near.
pub fn nearest_diagnosis(
    expected: &AnyPosition,
    arm: Option<(&AnyPosition, &MoveInfo)>,
    board: &Grid,
    colour_only: bool,
) -> Diagnosis {
    let mut near = nearest::nearest(expected, arm, board, colour_only);
    match near.len() {
        0 => Diagnosis::Unknown,
        1 => {
            let one = near.remove(0);
            if one.explanation != Explanation::NoMove {
                return Diagnosis::MisreadAfter(one);
            }
            let mut appeared = Vec::new();
            let mut vanished = Vec::new();
            let mut changed = Vec::new();
            for m in &one.misseen {
                match (m.expected, m.seen) {
                    (None, Some(_)) => appeared.push(m.at),
                    (Some(_), None) => vanished.push(m.at),
                    _ => changed.push(m.at),
                }
            }
            Diagnosis::Misread {
                appeared,
                vanished,
                changed,
            }
        }
        _ => Diagnosis::Ambiguous(near),
    }
}

/// The two squares of a single piece that left `from` and now stands on `to` (crowned or not),
/// everything else unchanged.
fn one_piece_moved(
    p0: &Grid,
    board: &Grid,
    diffs: &[Coord],
    colour_only: bool,
) -> Option<(Coord, Coord)> {
    let [a, b] = diffs else {
        return None;
    };
    let moved = |from: Coord, to: Coord| {
        let piece = p0.get(from)?;
        let now = board.get(to)?;
        let same = now.side == piece.side && (colour_only || now.king == piece.king || !piece.king);
        (board.get(from).is_none() && p0.get(to).is_none() && same).then_some((from, to))
    };
    moved(*a, *b).or_else(|| moved(*b, *a))
}

/// What is wrong with a step of `piece` from `from` to `to`, or `None` if it is one a piece of
/// its kind may make (one square along a diagonal, forward for a man).
fn step_fault(piece: Option<Piece>, from: Coord, to: Coord) -> Option<StepFault> {
    let piece = piece?;
    if piece.side == Side::Bot {
        return Some(StepFault::BotsPiece);
    }
    let dr = i32::from(to.row) - i32::from(from.row);
    let dc = i32::from(to.col) - i32::from(from.col);
    if dr.abs() != dc.abs() {
        return Some(StepFault::NotDiagonal);
    }
    // The person's men move up the board (towards row A).
    if !piece.king && dr > 0 {
        return Some(StepFault::Backwards);
    }
    if dr.abs() > 1 {
        return Some(StepFault::TooFar);
    }
    None
}

/// Two legal moves at once: the person's, then another of theirs or one of the bot's.
fn two_moves(expected: &AnyPosition, board: &Grid, colour_only: bool) -> Option<Diagnosis> {
    for (first, after) in expected.successors() {
        for second_side in [Side::Player, Side::Bot] {
            for (second, p) in after.with_side(second_side).successors() {
                if differing(board, &p.grid(), colour_only).is_empty() {
                    return Some(Diagnosis::TwoMoves {
                        first,
                        second,
                        second_side,
                    });
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(rows: &str) -> AnyPosition {
        AnyPosition::from_grid(&Grid::parse_line(rows).unwrap(), Side::Player)
    }

    fn board(rows: &str) -> Grid {
        Grid::parse_line_allowing_uncrowned(rows).unwrap()
    }

    fn c(s: &str) -> Coord {
        crate::rules::geometry::parse_coord(s, 8).unwrap()
    }

    // The person (p) to move; the man on E3 must take the bot's man on D4 (E3 C5).
    const CAPTURE: &str = "________/________/________/____b___/___p____/______p_/________/________";

    // The person's man on E3, the bot's on A1; no capture.
    const QUIET: &str = "_b______/________/________/________/___p____/________/________/________";

    #[test]
    fn a_lifted_piece_and_a_capture_not_finished_are_in_progress() {
        let e = pos(CAPTURE);
        // E3 lifted.
        let d = diagnose(
            &e,
            None,
            None,
            &board("________/________/________/____b___/________/______p_/________/________"),
            false,
        );
        assert_eq!(d.word(), "in-progress");
        assert!(matches!(d, Diagnosis::InProgress { stage: Stage::Lifted(s), .. } if s == c("E3")));
        // Landed on C5, D4 not removed yet.
        let d = diagnose(
            &e,
            None,
            None,
            &board("________/________/_____p__/____b___/________/______p_/________/________"),
            false,
        );
        assert_eq!(
            d,
            Diagnosis::InProgress {
                mv: e.parse_move("E3 C5").unwrap(),
                stage: Stage::RemoveCaptured(vec![c("D4")]),
            }
        );
        assert!(
            d.to_string().contains("remove the captured piece on D4"),
            "{d}"
        );
    }

    #[test]
    fn a_double_jump_half_done_and_a_crowning_not_done() {
        // The person's man on H0 takes G1 and E3: H0 F2 D4.
        let e = pos("________/________/________/________/___b____/________/_b______/p_______");
        let mv = e.parse_move("H0 F2 D4").unwrap();
        assert_eq!(mv.captured, vec![c("G1"), c("E3")]);
        // Standing on F2, G1 already removed, E3 not yet jumped.
        let d = diagnose(
            &e,
            None,
            None,
            &board("________/________/________/________/___b____/__p_____/________/________"),
            false,
        );
        assert_eq!(
            d,
            Diagnosis::InProgress {
                mv,
                stage: Stage::Jumping(c("F2"))
            }
        );
        // A man on its crowning row, not crowned yet.
        let e = pos("________/__p_____/________/____b___/________/________/________/________");
        let d = diagnose(
            &e,
            None,
            None,
            &board("_p______/________/________/____b___/________/________/________/________"),
            false,
        );
        assert_eq!(
            d,
            Diagnosis::InProgress {
                mv: e.parse_move("B2 A1").unwrap(),
                stage: Stage::Crown(c("A1"))
            }
        );
        assert_eq!(
            d.to_string(),
            "the man on A1 reached the last row; crown it"
        );
    }

    #[test]
    fn capture_ignored_backwards_too_far_and_bots_piece() {
        let e = pos(CAPTURE);
        // G6 F5 played (a legal-looking step) while E3 C5 is mandatory.
        let d = diagnose(
            &e,
            None,
            None,
            &board("________/________/________/____b___/___p_p__/________/________/________"),
            false,
        );
        assert_eq!(
            d,
            Diagnosis::CaptureIgnored {
                from: c("F6"),
                to: c("E5"),
                captures: vec![e.parse_move("E3 C5").unwrap()],
            }
        );
        let quiet = pos(QUIET);
        let d = diagnose(
            &quiet,
            None,
            None,
            &board("_b______/________/________/________/________/__p_____/________/________"),
            false,
        );
        assert_eq!(
            d,
            Diagnosis::IllegalStep {
                from: c("E3"),
                to: c("F2"),
                fault: StepFault::Backwards
            }
        );
        let d = diagnose(
            &quiet,
            None,
            None,
            &board("_b______/________/_p______/________/________/________/________/________"),
            false,
        );
        assert_eq!(d.word(), "too-far");
        let d = diagnose(
            &quiet,
            None,
            None,
            &board("________/__b_____/________/________/___p____/________/________/________"),
            false,
        );
        assert_eq!(d.word(), "bots-piece");
    }

    #[test]
    fn two_moves_put_back_and_misread() {
        let quiet = pos(QUIET);
        // E3 D2 then D2 C1 by the person is also a too-far step of one piece: the simpler story wins.
        let d = diagnose(
            &quiet,
            None,
            None,
            &board("_b______/________/_p______/________/________/________/________/________"),
            false,
        );
        assert_eq!(d.word(), "too-far");
        // The person's move E3 D4 and the bot's reply A1 B0, made at once.
        let d = diagnose(
            &quiet,
            None,
            None,
            &board("________/b_______/________/____p___/________/________/________/________"),
            false,
        );
        assert_eq!(
            d,
            Diagnosis::TwoMoves {
                first: quiet.parse_move("E3 D4").unwrap(),
                second: quiet
                    .play(&quiet.parse_move("E3 D4").unwrap())
                    .unwrap()
                    .parse_move("A1 B0")
                    .unwrap(),
                second_side: Side::Bot,
            }
        );
        // A piece appeared from nowhere.
        let d = diagnose(
            &quiet,
            None,
            None,
            &board("_b______/________/________/______p_/___p____/________/________/________"),
            false,
        );
        assert_eq!(
            d,
            Diagnosis::Misread {
                appeared: vec![c("D6")],
                vanished: vec![],
                changed: vec![]
            }
        );
        // The bot took the man on D4 (C5 E3); the person put it back.
        let before = AnyPosition::from_grid(
            &Grid::parse_line(
                "________/________/_____b__/____p___/________/________/_p______/________",
            )
            .unwrap(),
            Side::Bot,
        );
        let cap = before.parse_move("C5 E3").unwrap();
        let after = before.play(&cap).unwrap();
        let d = diagnose(
            &after,
            Some((&before, &cap)),
            None,
            &board("________/________/________/____p___/___b____/________/_p______/________"),
            false,
        );
        assert_eq!(d, Diagnosis::CapturedPutBack(vec![c("D4")]));
        assert_eq!(
            d.to_string(),
            "the captured piece on D4 is back on the board; remove it"
        );
    }
}
