//! A game: the starting position, the moves played, and the game's result.
//!
//! The game layer owns the draw rules. A game is drawn when the same position (same pieces, same
//! side to move) occurs for the third time, or after 40 moves by each side (80 plies) without a
//! capture or a man's move. A side with no legal move loses. [`Game::history_keys`] gives the
//! search what it needs to see repetitions coming.

use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::position::Side;
use std::fmt;

/// Plies without a capture or a man's move after which the game is drawn (40 moves by each side).
pub const NO_PROGRESS_PLIES: u32 = 80;

/// How a game ended, or that it has not.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// The game goes on.
    Ongoing,
    /// `winner` won: the other side has no legal move.
    Win {
        /// The side that won.
        winner: Side,
    },
    /// Drawn by threefold repetition.
    DrawRepetition,
    /// Drawn by the no-progress rule.
    DrawNoProgress,
}

impl Status {
    /// Whether the game is over.
    pub fn is_over(self) -> bool {
        self != Status::Ongoing
    }
}

impl fmt::Display for Status {
    /// Protocol words: `ongoing`, `win b nomoves`, `draw repetition`, `draw noprogress`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Status::Ongoing => write!(f, "ongoing"),
            Status::Win { winner } => write!(f, "win {} nomoves", winner.letter()),
            Status::DrawRepetition => write!(f, "draw repetition"),
            Status::DrawNoProgress => write!(f, "draw noprogress"),
        }
    }
}

/// A game in progress.
#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<AnyPosition>,
    moves: Vec<MoveInfo>,
    /// Plies since the last capture or man move, for each position.
    quiet: Vec<u32>,
}

impl Game {
    /// A game starting from `start`.
    pub fn new(start: AnyPosition) -> Game {
        Game::with_quiet(start, 0)
    }

    /// A game starting from `start` that has already gone `quiet` plies without progress.
    pub fn with_quiet(start: AnyPosition, quiet: u32) -> Game {
        Game {
            positions: vec![start],
            moves: Vec::new(),
            quiet: vec![quiet],
        }
    }

    /// The current position.
    pub fn current(&self) -> &AnyPosition {
        self.positions
            .last()
            .unwrap_or_else(|| unreachable!("a game always has a position"))
    }

    /// The starting position.
    pub fn start(&self) -> &AnyPosition {
        &self.positions[0]
    }

    /// Every position of the game, the start first and the current one last.
    pub fn positions(&self) -> &[AnyPosition] {
        &self.positions
    }

    /// Moves played so far.
    pub fn moves(&self) -> &[MoveInfo] {
        &self.moves
    }

    /// Number of plies played.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// Plies since the last capture or man move.
    pub fn quiet_plies(&self) -> u32 {
        *self.quiet.last().unwrap_or(&0)
    }

    /// Plays a legal move; `None` (and no change) if it is not legal.
    pub fn play(&mut self, mv: &MoveInfo) -> Option<&AnyPosition> {
        let cur = *self.current();
        let next = cur.play(mv)?;
        let q = if cur.is_irreversible(mv) {
            0
        } else {
            self.quiet_plies() + 1
        };
        self.positions.push(next);
        self.moves.push(mv.clone());
        self.quiet.push(q);
        Some(self.current())
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<MoveInfo> {
        let mv = self.moves.pop()?;
        self.positions.pop();
        self.quiet.pop();
        Some(mv)
    }

    /// Keys of the earlier positions since the last irreversible move, oldest first, excluding
    /// the current one: the `history` argument of the engine's search.
    pub fn history_keys(&self) -> Vec<u64> {
        let q = self.quiet_plies() as usize;
        let n = self.positions.len();
        let from = n.saturating_sub(q + 1);
        self.positions[from..n - 1]
            .iter()
            .map(|p| p.hash_key())
            .collect()
    }

    /// How many times the current position has occurred (including now).
    pub fn occurrences(&self) -> usize {
        let key = self.current().hash_key();
        let q = self.quiet_plies() as usize;
        let n = self.positions.len();
        self.positions[n.saturating_sub(q + 1)..]
            .iter()
            .filter(|p| p.hash_key() == key)
            .count()
    }

    /// The game's status now.
    pub fn status(&self) -> Status {
        let cur = self.current();
        if cur.legal_moves().is_empty() {
            return Status::Win {
                winner: cur.side().opponent(),
            };
        }
        if self.occurrences() >= 3 {
            return Status::DrawRepetition;
        }
        if self.quiet_plies() >= NO_PROGRESS_PLIES {
            return Status::DrawNoProgress;
        }
        Status::Ongoing
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Grid;

    fn pos(line: &str, side: Side) -> AnyPosition {
        AnyPosition::from_grid(&Grid::parse_line(line).unwrap(), side)
    }

    #[test]
    fn kings_shuffling_is_a_draw_by_repetition() {
        // Two kings far apart on 8x8.
        let mut g = Game::new(pos(
            "_B______/________/________/________/________/________/________/P_______",
            Side::Player,
        ));
        let seq = ["H0 G1", "A1 B0", "G1 H0", "B0 A1"];
        for _ in 0..2 {
            for m in seq {
                let mv = g.current().parse_move(m).unwrap();
                assert_eq!(g.status(), Status::Ongoing);
                g.play(&mv).unwrap();
            }
        }
        assert_eq!(g.occurrences(), 3);
        assert_eq!(g.status(), Status::DrawRepetition);
        assert_eq!(g.history_keys().len(), 8);
        g.undo();
        assert_eq!(g.status(), Status::Ongoing);
    }

    #[test]
    fn man_moves_reset_the_count_and_no_moves_loses() {
        let mut g = Game::new(pos("_b__/____/____/p___", Side::Player));
        let mv = g.current().parse_move("D0 C1").unwrap();
        g.play(&mv).unwrap();
        assert_eq!(g.quiet_plies(), 0);
        assert!(g.history_keys().is_empty());
        // The bot's man on A1 can step to B0 or B2.
        assert_eq!(g.current().legal_moves().len(), 2);
        // A blocked side loses: the man on D0 can neither step to C1 nor jump it (B2 is taken).
        let lost = Game::new(pos("____/__b_/_b__/p___", Side::Player));
        assert_eq!(lost.status(), Status::Win { winner: Side::Bot });
    }
}
