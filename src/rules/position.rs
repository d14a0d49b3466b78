//! Positions: who stands where, who is to move, and making moves.
//!
//! A [`Position`] is a few bit sets and is copied to make a move ("copy-make"): [`Position::play`]
//! returns the position after a move and leaves the original untouched. Its Zobrist hash is kept up
//! to date incrementally; [`Position::compute_hash`] recomputes it from scratch (tests compare both).

use crate::rules::bitboard::{squares, Bits};
use crate::rules::geometry::{Coord, Geometry, Square};
use crate::rules::zobrist;
use std::fmt;

/// A side: the player (`p`, starts at the bottom, moves up) or the bot (`b`, starts at the top,
/// moves down).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The person (or the other engine): pieces `p`/`P`, men move up the board.
    Player,
    /// The robot: pieces `b`/`B`, men move down the board.
    Bot,
}

impl Side {
    /// The other side.
    #[inline(always)]
    pub fn opponent(self) -> Side {
        match self {
            Side::Player => Side::Bot,
            Side::Bot => Side::Player,
        }
    }

    /// Index 0 for the player, 1 for the bot.
    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The protocol letter: `p` or `b`.
    pub fn letter(self) -> char {
        match self {
            Side::Player => 'p',
            Side::Bot => 'b',
        }
    }

    /// Reads `p` or `b` (also `P`/`B`).
    pub fn from_letter(text: &str) -> Option<Side> {
        match text {
            "p" | "P" => Some(Side::Player),
            "b" | "B" => Some(Side::Bot),
            _ => None,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A piece: its side and whether it is a king.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Whose piece.
    pub side: Side,
    /// Whether it is crowned.
    pub king: bool,
}

impl Piece {
    /// The board character: `p`, `P`, `b` or `B`.
    pub fn to_char(self) -> char {
        match (self.side, self.king) {
            (Side::Player, false) => 'p',
            (Side::Player, true) => 'P',
            (Side::Bot, false) => 'b',
            (Side::Bot, true) => 'B',
        }
    }

    /// Reads a board character; `None` for anything but `p P b B`.
    pub fn from_char(c: char) -> Option<Piece> {
        match c {
            'p' => Some(Piece {
                side: Side::Player,
                king: false,
            }),
            'P' => Some(Piece {
                side: Side::Player,
                king: true,
            }),
            'b' => Some(Piece {
                side: Side::Bot,
                king: false,
            }),
            'B' => Some(Piece {
                side: Side::Bot,
                king: true,
            }),
            _ => None,
        }
    }

    fn zobrist_kind(self) -> usize {
        self.side.index() * 2 + self.king as usize
    }
}

/// A legal move: its path (start square, then every landing square), what it captures and whether
/// it crowns.
///
/// The path is kept as a start square plus two bits of direction per jump, so a move stays small
/// whatever its length. Directions: 0 up-left, 1 up-right, 2 down-left, 3 down-right.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move<B: Bits> {
    /// Start square.
    pub from: Square,
    /// Final square.
    pub to: Square,
    /// Captured squares (empty for a step).
    pub captured: B,
    /// Jump directions, two bits each, first jump in the lowest bits.
    pub dirs: u64,
    /// Number of jumps (0 for a step).
    pub jumps: u8,
    /// Whether the moving man is crowned by this move.
    pub crowns: bool,
}

impl<B: Bits> Move<B> {
    /// Whether this move captures.
    #[inline(always)]
    pub fn is_capture(&self) -> bool {
        self.jumps > 0
    }

    /// Every square the piece stands on, start and landings, in order.
    pub fn path<G: Geometry<B = B>>(&self) -> Vec<Square> {
        let mut path = vec![self.from];
        if self.jumps == 0 {
            path.push(self.to);
            return path;
        }
        let mut sq = self.from.0 as u32;
        for i in 0..self.jumps as u32 {
            let d = ((self.dirs >> (2 * i)) & 3) as usize;
            sq = step_index::<G>(step_index::<G>(sq, d), d);
            path.push(Square(sq as u8));
        }
        path
    }

    /// The path as coordinates.
    pub fn path_coords<G: Geometry<B = B>>(&self) -> Vec<Coord> {
        self.path::<G>()
            .into_iter()
            .filter_map(|s| Coord::from_square(s, G::N))
            .collect()
    }

    /// The captured squares as coordinates, in the order they are jumped.
    pub fn captured_coords<G: Geometry<B = B>>(&self) -> Vec<Coord> {
        let path = self.path::<G>();
        if self.jumps == 0 {
            return Vec::new();
        }
        path.windows(2)
            .filter_map(|w| {
                let (a, b) = (
                    Coord::from_square(w[0], G::N)?,
                    Coord::from_square(w[1], G::N)?,
                );
                Some(Coord::new((a.row + b.row) / 2, (a.col + b.col) / 2))
            })
            .collect()
    }

    /// The path in coordinate notation, e.g. `E5 C3 A1`.
    pub fn notation<G: Geometry<B = B>>(&self) -> String {
        let coords: Vec<String> = self
            .path_coords::<G>()
            .iter()
            .map(|c| c.to_string())
            .collect();
        coords.join(" ")
    }
}

/// The padded bit index one step from `bit` in direction `d` (not checked against the board).
#[inline(always)]
pub fn step_index<G: Geometry>(bit: u32, d: usize) -> u32 {
    match d {
        0 => bit.wrapping_sub(G::H + 1),
        1 => bit.wrapping_sub(G::H),
        2 => bit + G::H,
        _ => bit + G::H + 1,
    }
}

/// Shifts a whole set one step in direction `d`, keeping only valid squares.
#[inline(always)]
pub fn shift<G: Geometry>(set: G::B, d: usize) -> G::B {
    let moved = match d {
        0 => set >> (G::H + 1),
        1 => set >> G::H,
        2 => set << G::H,
        _ => set << (G::H + 1),
    };
    moved & G::VALID
}

/// A position on a board of size `G`: the pieces and the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position<G: Geometry> {
    /// Pieces of each side, indexed by [`Side::index`].
    pub pieces: [G::B; 2],
    /// Kings of both sides.
    pub kings: G::B,
    /// Side to move.
    pub side: Side,
    /// Zobrist hash, kept up to date by [`Position::play`].
    pub hash: u64,
}

impl<G: Geometry> Position<G> {
    /// An empty board with `side` to move.
    pub fn empty(side: Side) -> Self {
        let mut p = Position {
            pieces: [G::B::ZERO; 2],
            kings: G::B::ZERO,
            side,
            hash: 0,
        };
        p.hash = p.compute_hash();
        p
    }

    /// The standard starting position (`N/2 - 1` rows of men each) with `side` to move.
    pub fn initial(side: Side) -> Self {
        let mut p = Self::empty(side);
        let rows = G::N / 2 - 1;
        for row in 0..G::N {
            for col in 0..G::N {
                let c = Coord::new(row as u8, col as u8);
                if let Some(sq) = c.to_square(G::N) {
                    if row < rows {
                        p.put(
                            sq,
                            Some(Piece {
                                side: Side::Bot,
                                king: false,
                            }),
                        );
                    } else if row >= G::N - rows {
                        p.put(
                            sq,
                            Some(Piece {
                                side: Side::Player,
                                king: false,
                            }),
                        );
                    }
                }
            }
        }
        p
    }

    /// The piece on a square, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let bit = sq.0 as u32;
        let king = self.kings.has(bit);
        if self.pieces[0].has(bit) {
            Some(Piece {
                side: Side::Player,
                king,
            })
        } else if self.pieces[1].has(bit) {
            Some(Piece {
                side: Side::Bot,
                king,
            })
        } else {
            None
        }
    }

    /// Puts a piece on (or, with `None`, clears) a square, updating the hash.
    pub fn put(&mut self, sq: Square, piece: Option<Piece>) {
        let bit = sq.0 as u32;
        if let Some(old) = self.piece_at(sq) {
            self.hash ^= zobrist::piece_key(old.zobrist_kind(), bit);
        }
        let mask = !G::B::bit(bit);
        self.pieces[0] &= mask;
        self.pieces[1] &= mask;
        self.kings &= mask;
        if let Some(p) = piece {
            self.pieces[p.side.index()] |= G::B::bit(bit);
            if p.king {
                self.kings |= G::B::bit(bit);
            }
            self.hash ^= zobrist::piece_key(p.zobrist_kind(), bit);
        }
    }

    /// The same pieces with another side to move.
    pub fn with_side(mut self, side: Side) -> Self {
        if side != self.side {
            self.side = side;
            self.hash ^= zobrist::SIDE_KEY;
        }
        self
    }

    /// All occupied squares.
    #[inline(always)]
    pub fn occupied(&self) -> G::B {
        self.pieces[0] | self.pieces[1]
    }

    /// All empty playable squares.
    #[inline(always)]
    pub fn empty_squares(&self) -> G::B {
        G::VALID & !self.occupied()
    }

    /// Men (uncrowned pieces) of a side.
    #[inline(always)]
    pub fn men(&self, side: Side) -> G::B {
        self.pieces[side.index()] & !self.kings
    }

    /// Kings of a side.
    #[inline(always)]
    pub fn kings_of(&self, side: Side) -> G::B {
        self.pieces[side.index()] & self.kings
    }

    /// The hash computed from scratch.
    pub fn compute_hash(&self) -> u64 {
        let mut h = if self.side == Side::Bot {
            zobrist::SIDE_KEY
        } else {
            0
        };
        for side in [Side::Player, Side::Bot] {
            for sq in squares(self.pieces[side.index()]) {
                let king = self.kings.has(sq.0 as u32);
                h ^= zobrist::piece_key(Piece { side, king }.zobrist_kind(), sq.0 as u32);
            }
        }
        h
    }

    /// The position after `mv` (which must be legal here). The side to move passes to the opponent.
    #[inline]
    pub fn play(&self, mv: &Move<G::B>) -> Self {
        let me = self.side.index();
        let opp = 1 - me;
        let from = mv.from.0 as u32;
        let to = mv.to.0 as u32;
        let from_b = G::B::bit(from);
        let to_b = G::B::bit(to);
        let was_king = self.kings.has(from);
        let mut next = *self;
        next.pieces[me] = (next.pieces[me] & !from_b) | to_b;
        let kind_before = me * 2 + was_king as usize;
        let kind_after = me * 2 + (was_king || mv.crowns) as usize;
        let mut hash = self.hash ^ zobrist::SIDE_KEY;
        hash ^= zobrist::piece_key(kind_before, from) ^ zobrist::piece_key(kind_after, to);
        if was_king {
            next.kings = (next.kings & !from_b) | to_b;
        } else if mv.crowns {
            next.kings |= to_b;
        }
        if !mv.captured.is_empty() {
            for sq in squares(mv.captured) {
                let bit = sq.0 as u32;
                let kind = opp * 2 + self.kings.has(bit) as usize;
                hash ^= zobrist::piece_key(kind, bit);
            }
            next.pieces[opp] &= !mv.captured;
            next.kings &= !mv.captured;
        }
        next.side = self.side.opponent();
        next.hash = hash;
        next
    }

    /// Checks the internal invariants: sides disjoint, kings are pieces, all on valid squares, no man
    /// on its crowning row, and the hash matches. Used by tests and by input validation.
    pub fn is_consistent(&self) -> bool {
        let all = self.occupied();
        (self.pieces[0] & self.pieces[1]).is_empty()
            && (self.kings & !all).is_empty()
            && (all & !G::VALID).is_empty()
            && (self.men(Side::Player) & G::TOP).is_empty()
            && (self.men(Side::Bot) & G::BOTTOM).is_empty()
            && self.hash == self.compute_hash()
    }

    /// Counts of (men, kings) for a side.
    pub fn material(&self, side: Side) -> (u32, u32) {
        (self.men(side).popcount(), self.kings_of(side).popcount())
    }
}
