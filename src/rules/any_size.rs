//! Size-independent positions for the parts of the program that do not care about board size (the
//! daemon, the terminal game, matches). [`AnyPosition`] holds a position of one of the five sizes
//! and forwards to the size-specific code; moves cross this boundary as [`MoveInfo`], a plain path of
//! coordinates.

use crate::rules::board::Grid;
use crate::rules::geometry::{BoardSize, Coord, Geometry, G10, G12, G4, G6, G8};
use crate::rules::movegen::perft;
use crate::rules::notation::{parse_move, MoveError};
use crate::rules::position::{Move, Position, Side};
use std::fmt;

/// A position of any supported size.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AnyPosition {
    /// 4x4
    S4(Position<G4>),
    /// 6x6
    S6(Position<G6>),
    /// 8x8
    S8(Position<G8>),
    /// 10x10
    S10(Position<G10>),
    /// 12x12
    S12(Position<G12>),
}

/// Runs `$body` with `$p` bound to the size-specific position (and, in the body, its geometry
/// inferred from it).
#[macro_export]
macro_rules! with_position {
    ($any:expr, $p:ident => $body:expr) => {
        match $any {
            $crate::rules::any_size::AnyPosition::S4($p) => $body,
            $crate::rules::any_size::AnyPosition::S6($p) => $body,
            $crate::rules::any_size::AnyPosition::S8($p) => $body,
            $crate::rules::any_size::AnyPosition::S10($p) => $body,
            $crate::rules::any_size::AnyPosition::S12($p) => $body,
        }
    };
}

/// A move as the world outside the engine sees it: the full path, the captured squares in the order
/// they are jumped, and whether the piece is crowned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MoveInfo {
    /// Start square, then every landing square.
    pub path: Vec<Coord>,
    /// Squares of the captured pieces, in jump order.
    pub captured: Vec<Coord>,
    /// Whether the moving man is crowned.
    pub crowns: bool,
}

impl MoveInfo {
    /// Describes a size-specific move.
    pub fn of<G: Geometry>(mv: &Move<G::B>) -> MoveInfo {
        MoveInfo {
            path: mv.path_coords::<G>(),
            captured: mv.captured_coords::<G>(),
            crowns: mv.crowns,
        }
    }

    /// The path in coordinate notation, e.g. `E5 C3 A1`.
    pub fn notation(&self) -> String {
        join(&self.path)
    }

    /// The move as every part of checkersbot shows it to a person or a tool: the path, then
    /// `captures` and the captured squares, then `crown` when the man is crowned, e.g.
    /// `E5 C3 A1 captures D4 B2 crown`. The daemon's `move` reply, `search`, `moves` and the
    /// terminal game all print this one form.
    ///
    /// ```
    /// use checkersbot::rules::any_size::MoveInfo;
    /// use checkersbot::rules::geometry::Coord;
    /// let m = MoveInfo {
    ///     path: vec![Coord::new(2, 1), Coord::new(0, 3)],
    ///     captured: vec![Coord::new(1, 2)],
    ///     crowns: true,
    /// };
    /// assert_eq!(m.described(), "C1 A3 captures B2 crown");
    /// ```
    pub fn described(&self) -> String {
        let mut s = self.notation();
        if !self.captured.is_empty() {
            s.push_str(" captures ");
            s.push_str(&join(&self.captured));
        }
        if self.crowns {
            s.push_str(" crown");
        }
        s
    }
}

impl fmt::Display for MoveInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.notation())
    }
}

/// Coordinates separated by spaces.
pub fn join(coords: &[Coord]) -> String {
    coords
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

fn find<G: Geometry>(p: &Position<G>, mv: &MoveInfo) -> Option<Move<G::B>> {
    p.legal_moves()
        .into_iter()
        .find(|m| m.path_coords::<G>() == mv.path)
}

impl AnyPosition {
    /// The position of a grid with `side` to move.
    pub fn from_grid(grid: &Grid, side: Side) -> AnyPosition {
        match grid.size() {
            BoardSize::S4 => AnyPosition::S4(grid.to_position(side)),
            BoardSize::S6 => AnyPosition::S6(grid.to_position(side)),
            BoardSize::S8 => AnyPosition::S8(grid.to_position(side)),
            BoardSize::S10 => AnyPosition::S10(grid.to_position(side)),
            BoardSize::S12 => AnyPosition::S12(grid.to_position(side)),
        }
    }

    /// The standard starting position of a size.
    pub fn initial(size: BoardSize, side: Side) -> AnyPosition {
        Self::from_grid(&crate::rules::board::initial_grid(size), side)
    }

    /// The grid of pieces.
    pub fn grid(&self) -> Grid {
        with_position!(self, p => Grid::from_position(p))
    }

    /// Board size.
    pub fn size(&self) -> BoardSize {
        match self {
            AnyPosition::S4(_) => BoardSize::S4,
            AnyPosition::S6(_) => BoardSize::S6,
            AnyPosition::S8(_) => BoardSize::S8,
            AnyPosition::S10(_) => BoardSize::S10,
            AnyPosition::S12(_) => BoardSize::S12,
        }
    }

    /// Side to move.
    pub fn side(&self) -> Side {
        with_position!(self, p => p.side)
    }

    /// The same pieces with another side to move.
    pub fn with_side(&self, side: Side) -> AnyPosition {
        match *self {
            AnyPosition::S4(p) => AnyPosition::S4(p.with_side(side)),
            AnyPosition::S6(p) => AnyPosition::S6(p.with_side(side)),
            AnyPosition::S8(p) => AnyPosition::S8(p.with_side(side)),
            AnyPosition::S10(p) => AnyPosition::S10(p.with_side(side)),
            AnyPosition::S12(p) => AnyPosition::S12(p.with_side(side)),
        }
    }

    /// Zobrist hash.
    pub fn hash_key(&self) -> u64 {
        with_position!(self, p => p.hash)
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> Vec<MoveInfo> {
        fn go<G: Geometry>(p: &Position<G>) -> Vec<MoveInfo> {
            p.legal_moves().iter().map(MoveInfo::of::<G>).collect()
        }
        with_position!(self, p => go(p))
    }

    /// Whether the side to move must capture.
    pub fn has_capture(&self) -> bool {
        with_position!(self, p => p.has_capture())
    }

    /// Reads a move in coordinate notation and checks it is legal here.
    pub fn parse_move(&self, text: &str) -> Result<MoveInfo, MoveError> {
        fn go<G: Geometry>(p: &Position<G>, text: &str) -> Result<MoveInfo, MoveError> {
            parse_move(p, text).map(|m| MoveInfo::of::<G>(&m))
        }
        with_position!(self, p => go(p, text))
    }

    /// The position after a legal move; `None` if no legal move has that path.
    pub fn play(&self, mv: &MoveInfo) -> Option<AnyPosition> {
        Some(match self {
            AnyPosition::S4(p) => AnyPosition::S4(p.play(&find(p, mv)?)),
            AnyPosition::S6(p) => AnyPosition::S6(p.play(&find(p, mv)?)),
            AnyPosition::S8(p) => AnyPosition::S8(p.play(&find(p, mv)?)),
            AnyPosition::S10(p) => AnyPosition::S10(p.play(&find(p, mv)?)),
            AnyPosition::S12(p) => AnyPosition::S12(p.play(&find(p, mv)?)),
        })
    }

    /// Every legal move with the position it leads to.
    pub fn successors(&self) -> Vec<(MoveInfo, AnyPosition)> {
        self.legal_moves()
            .into_iter()
            .filter_map(|m| self.play(&m).map(|p| (m, p)))
            .collect()
    }

    /// Whether a move is irreversible: a capture or a man's move (it resets the no-progress count).
    pub fn is_irreversible(&self, mv: &MoveInfo) -> bool {
        if !mv.captured.is_empty() {
            return true;
        }
        let grid = self.grid();
        mv.path
            .first()
            .and_then(|&c| grid.get(c))
            .is_some_and(|p| !p.king)
    }

    /// Perft leaf count.
    pub fn perft(&self, depth: u32) -> u64 {
        with_position!(self, p => perft(p, depth))
    }

    /// The one-line board form, without the side.
    pub fn to_line(&self) -> String {
        self.grid().to_line()
    }
}

impl fmt::Display for AnyPosition {
    /// The one-line form followed by the side to move, e.g. `_b_b/____/____/p_p_ p`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.to_line(), self.side())
    }
}
