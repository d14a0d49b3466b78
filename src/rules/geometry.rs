//! Board geometry: board sizes, squares, coordinates and the padded bit layout.
//!
//! Every board size uses the same "ghost square" layout. With `h = N / 2` playable squares per row,
//! row `r` starts at bit `r * h + r / 2`; after every odd row one unused (ghost) bit follows. In that
//! layout a diagonal step is always the same shift, whatever the square:
//!
//! | direction  | shift        |
//! |------------|--------------|
//! | down-left  | `<< h`       |
//! | down-right | `<< (h + 1)` |
//! | up-left    | `>> (h + 1)` |
//! | up-right   | `>> h`       |
//!
//! and a step off the board lands on a ghost bit or outside the board, which the mask of valid
//! squares removes. The 8x8 board needs 35 bits, 10x10 54 and 12x12 77, so sizes up to 10x10 use a
//! `u64` and 12x12 a `u128`; the code is the same, monomorphised per size through [`Geometry`].
//!
//! Rows are lettered from the top (`A` is the top row) and columns numbered from the left from 0; the
//! playable squares are those where row + column is odd.

use crate::rules::bitboard::Bits;
use std::fmt;

/// A board size known at compile time. Implemented by [`G4`], [`G6`], [`G8`], [`G10`] and [`G12`].
pub trait Geometry: Copy + Clone + Send + Sync + fmt::Debug + Default + 'static {
    /// The integer type holding one bit per padded square.
    type B: Bits;
    /// Board side length.
    const N: usize;
    /// Playable squares per row (`N / 2`).
    const H: u32;
    /// Every valid (playable) square.
    const VALID: Self::B;
    /// The top row (row A): where player (`p`) men are crowned.
    const TOP: Self::B;
    /// The bottom row: where bot (`b`) men are crowned.
    const BOTTOM: Self::B;
    /// Number of bits in the padded layout (highest valid bit + 1).
    const BITS: u32;
    /// The board size as a value.
    const SIZE: BoardSize;
}

/// A board size as a run-time value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BoardSize {
    /// 4x4
    S4,
    /// 6x6
    S6,
    /// 8x8
    S8,
    /// 10x10
    S10,
    /// 12x12
    S12,
}

impl BoardSize {
    /// Every supported size, smallest first.
    pub const ALL: [BoardSize; 5] = [Self::S4, Self::S6, Self::S8, Self::S10, Self::S12];

    /// The size for a side length, if supported.
    pub fn from_n(n: usize) -> Option<Self> {
        match n {
            4 => Some(Self::S4),
            6 => Some(Self::S6),
            8 => Some(Self::S8),
            10 => Some(Self::S10),
            12 => Some(Self::S12),
            _ => None,
        }
    }

    /// Side length.
    pub fn n(self) -> usize {
        match self {
            Self::S4 => 4,
            Self::S6 => 6,
            Self::S8 => 8,
            Self::S10 => 10,
            Self::S12 => 12,
        }
    }

    /// Number of playable squares.
    pub fn squares(self) -> usize {
        self.n() * self.n() / 2
    }

    /// Rows of men each side starts with (`N / 2 - 1`).
    pub fn start_rows(self) -> usize {
        self.n() / 2 - 1
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.n(), self.n())
    }
}

/// First bit of row `r` on a board with `h` squares per row.
pub const fn row_base(h: u32, r: u32) -> u32 {
    r * h + r / 2
}

const fn row_mask(n: usize, r: u32) -> u128 {
    let h = (n / 2) as u32;
    let base = row_base(h, r);
    ((1u128 << h) - 1) << base
}

const fn valid_mask(n: usize) -> u128 {
    let mut m = 0u128;
    let mut r = 0;
    while r < n as u32 {
        m |= row_mask(n, r);
        r += 1;
    }
    m
}

macro_rules! geometry {
    ($(#[$doc:meta])* $name:ident, $n:expr, $b:ty, $size:expr) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;
        impl Geometry for $name {
            type B = $b;
            const N: usize = $n;
            const H: u32 = ($n / 2) as u32;
            const VALID: $b = valid_mask($n) as $b;
            const TOP: $b = row_mask($n, 0) as $b;
            const BOTTOM: $b = row_mask($n, $n as u32 - 1) as $b;
            const BITS: u32 = row_base(($n / 2) as u32, $n as u32 - 1) + ($n / 2) as u32;
            const SIZE: BoardSize = $size;
        }
    };
}

geometry!(
    /// The 4x4 board (8 squares).
    G4, 4, u64, BoardSize::S4
);
geometry!(
    /// The 6x6 board (18 squares).
    G6, 6, u64, BoardSize::S6
);
geometry!(
    /// The 8x8 board (32 squares): standard American checkers.
    G8, 8, u64, BoardSize::S8
);
geometry!(
    /// The 10x10 board (50 squares).
    G10, 10, u64, BoardSize::S10
);
geometry!(
    /// The 12x12 board (72 squares).
    G12, 12, u128, BoardSize::S12
);

/// A playable square, as its bit index in the padded layout of its board size.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub u8);

/// A row/column coordinate: row 0 is the top row (`A`), column 0 the leftmost.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coord {
    /// Row index from the top, 0-based.
    pub row: u8,
    /// Column index from the left, 0-based.
    pub col: u8,
}

impl Coord {
    /// A coordinate (not checked against any board).
    pub const fn new(row: u8, col: u8) -> Self {
        Coord { row, col }
    }

    /// Whether this coordinate is a playable (dark) square of a board of side `n`.
    pub fn is_playable(self, n: usize) -> bool {
        (self.row as usize) < n && (self.col as usize) < n && (self.row + self.col) % 2 == 1
    }

    /// The padded bit index of this coordinate on a board of side `n`, if it is playable.
    pub fn to_square(self, n: usize) -> Option<Square> {
        if !self.is_playable(n) {
            return None;
        }
        let h = (n / 2) as u32;
        Some(Square(
            (row_base(h, self.row as u32) + self.col as u32 / 2) as u8,
        ))
    }

    /// The coordinate of a padded bit index on a board of side `n`, if the bit is a playable square.
    pub fn from_square(sq: Square, n: usize) -> Option<Coord> {
        let h = (n / 2) as u32;
        let bit = sq.0 as u32;
        // Rows come in pairs of 2h + 1 bits (the last is the ghost).
        let pair = bit / (2 * h + 1);
        let off = bit % (2 * h + 1);
        if off == 2 * h {
            return None;
        }
        let row = 2 * pair + off / h;
        let k = off % h;
        if row as usize >= n {
            return None;
        }
        let col = if row.is_multiple_of(2) {
            2 * k + 1
        } else {
            2 * k
        };
        Some(Coord::new(row as u8, col as u8))
    }

    /// The 1-based standard draughts square number (counted from the top-left, row by row) on a
    /// board of side `n`; used by FEN and PDN.
    pub fn standard_number(self, n: usize) -> usize {
        self.row as usize * (n / 2) + self.col as usize / 2 + 1
    }

    /// The coordinate of a 1-based standard square number on a board of side `n`.
    pub fn from_standard_number(num: usize, n: usize) -> Option<Coord> {
        let h = n / 2;
        if num == 0 || num > n * h {
            return None;
        }
        let i = num - 1;
        let row = i / h;
        let k = i % h;
        let col = if row.is_multiple_of(2) {
            2 * k + 1
        } else {
            2 * k
        };
        Some(Coord::new(row as u8, col as u8))
    }
}

impl fmt::Display for Coord {
    /// Prints the square as row letter plus column number, e.g. `G3` or `C10`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'A' + self.row) as char, self.col)
    }
}

/// Why a square's name could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoordError {
    /// The text is not a letter followed by a number.
    #[error("'{0}' is not a square: expected a row letter and a column number, like G3")]
    Syntax(String),
    /// The square is outside the board.
    #[error("square {0} is off a {1}x{1} board")]
    OffBoard(String, usize),
    /// The square is a light square, which pieces never use.
    #[error("square {0} is a light square (row + column must be odd)")]
    Light(String),
}

/// Parses a square name (`G3`, `c10`; case-insensitive) and checks it against a board of side `n`.
pub fn parse_coord(text: &str, n: usize) -> Result<Coord, CoordError> {
    let mut chars = text.chars();
    let letter = chars
        .next()
        .filter(|c| c.is_ascii_alphabetic())
        .ok_or_else(|| CoordError::Syntax(text.to_string()))?;
    let digits = chars.as_str();
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CoordError::Syntax(text.to_string()));
    }
    let row = letter.to_ascii_uppercase() as u8 - b'A';
    let col: u8 = digits
        .parse()
        .map_err(|_| CoordError::Syntax(text.to_string()))?;
    let c = Coord::new(row, col);
    if row as usize >= n || col as usize >= n {
        return Err(CoordError::OffBoard(c.to_string(), n));
    }
    if !c.is_playable(n) {
        return Err(CoordError::Light(c.to_string()));
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<G: Geometry>() {
        let n = G::N;
        let mut count = 0;
        for row in 0..n as u8 {
            for col in 0..n as u8 {
                let c = Coord::new(row, col);
                match c.to_square(n) {
                    Some(sq) => {
                        count += 1;
                        assert_eq!(Coord::from_square(sq, n), Some(c));
                        assert!(G::VALID.has(sq.0 as u32), "{c} not in VALID");
                        assert!((sq.0 as u32) < G::BITS);
                        assert_eq!(
                            Coord::from_standard_number(c.standard_number(n), n),
                            Some(c)
                        );
                    }
                    None => assert_eq!((row + col) % 2, 0),
                }
            }
        }
        assert_eq!(count, n * n / 2);
        assert_eq!(G::VALID.popcount() as usize, n * n / 2);
        assert_eq!(G::TOP.popcount() as usize, n / 2);
        assert_eq!(G::BOTTOM.popcount() as usize, n / 2);
        // Ghost bits and bits past the board are not squares.
        for bit in 0..128u32.min(<G::B as Bits>::WIDTH) {
            let valid = G::VALID.has(bit);
            assert_eq!(
                Coord::from_square(Square(bit as u8), n).is_some(),
                valid,
                "bit {bit}"
            );
        }
    }

    #[test]
    fn coordinates_round_trip_on_every_size() {
        check::<G4>();
        check::<G6>();
        check::<G8>();
        check::<G10>();
        check::<G12>();
    }

    #[test]
    fn layout_widths() {
        assert_eq!(G8::BITS, 35);
        assert_eq!(G10::BITS, 54);
        assert_eq!(G12::BITS, 77);
    }

    #[test]
    fn parse_and_print_squares() {
        assert_eq!(parse_coord("G3", 8), Ok(Coord::new(6, 3)));
        assert_eq!(parse_coord("a1", 8), Ok(Coord::new(0, 1)));
        assert_eq!(
            parse_coord("D10", 12).map(|c| c.to_string()),
            Ok("D10".into())
        );
        assert!(matches!(parse_coord("A0", 8), Err(CoordError::Light(_))));
        assert!(matches!(
            parse_coord("I1", 8),
            Err(CoordError::OffBoard(..))
        ));
        assert!(matches!(parse_coord("3G", 8), Err(CoordError::Syntax(_))));
        assert!(matches!(parse_coord("G", 8), Err(CoordError::Syntax(_))));
        assert!(matches!(
            parse_coord("G1234", 8),
            Err(CoordError::Syntax(_))
        ));
    }

    #[test]
    fn diagonal_steps_are_fixed_shifts() {
        // From G3 (row 6, col 3) on 8x8: up-left F2, up-right F4, down-left H2, down-right H4.
        let n = 8;
        let h = 4u32;
        let g3 = Coord::new(6, 3).to_square(n).unwrap().0 as u32;
        let at = |bit: u32| {
            Coord::from_square(Square(bit as u8), n)
                .unwrap()
                .to_string()
        };
        assert_eq!(at(g3 - (h + 1)), "F2");
        assert_eq!(at(g3 - h), "F4");
        assert_eq!(at(g3 + h), "H2");
        assert_eq!(at(g3 + h + 1), "H4");
    }
}
