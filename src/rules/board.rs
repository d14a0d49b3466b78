//! Board text: layout files and the one-line board form, parsed into a size-independent [`Grid`].
//!
//! Accepted forms (parse, then validate):
//! - **compact rows**: `N` lines of `N` characters from `_ b p B P` (`.` is also read as empty), top
//!   row first, as in `layouts/8x8.board`;
//! - **spaced rows**: the older CheckersBot form, one row per line with one character per square
//!   separated by spaces (`_ b _ b _ b _ b`);
//! - **one line**: the rows top to bottom joined by `/`, e.g. `_b_b/____/____/p_p_`.
//!
//! Blank lines and lines starting with `#` are skipped in files. Validation checks the size (4, 6,
//! 8, 10 or 12, square), that every character is known, that pieces stand only on playable squares
//! and that no man stands on the row where it would already have been crowned. Errors name the
//! square (`C4`) or row letter at fault.

use crate::rules::geometry::{BoardSize, Coord, Geometry};
use crate::rules::position::{Piece, Position, Side};
use std::fmt;

/// A board read from text: size and what stands on every square, before it is made a position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Grid {
    size: BoardSize,
    cells: Vec<Option<Piece>>,
}

/// What is wrong with a board's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// No rows at all.
    #[error("the board is empty")]
    Empty,
    /// The number of rows is not a supported size.
    #[error("the board has {0} rows; supported sizes are 4, 6, 8, 10 and 12")]
    UnsupportedSize(usize),
    /// A row has the wrong number of squares.
    #[error("row {row} has {found} squares, expected {expected}")]
    RowLength {
        /// Row letter.
        row: char,
        /// Squares found.
        found: usize,
        /// Squares expected (the number of rows).
        expected: usize,
    },
    /// A character that is not `_ . b p B P`.
    #[error("unknown character '{ch}' at {at}: expected one of _ b p B P")]
    UnknownChar {
        /// Square of the character.
        at: Coord,
        /// The character.
        ch: char,
    },
    /// A piece on a light square.
    #[error("piece '{ch}' at {at} stands on a light square (pieces use squares where row + column is odd)")]
    LightSquare {
        /// Square of the piece.
        at: Coord,
        /// The piece character.
        ch: char,
    },
    /// A man on the row where it is crowned.
    #[error(
        "man '{ch}' at {at} stands on its crowning row and would already be a king ('{king}')"
    )]
    ManOnCrowningRow {
        /// Square of the man.
        at: Coord,
        /// The man's character.
        ch: char,
        /// The king character it should be.
        king: char,
    },
}

impl Grid {
    /// An empty grid.
    pub fn empty(size: BoardSize) -> Self {
        Grid {
            size,
            cells: vec![None; size.n() * size.n()],
        }
    }

    /// The board size.
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// What stands at a coordinate (`None` also off the board).
    pub fn get(&self, c: Coord) -> Option<Piece> {
        let n = self.size.n();
        if (c.row as usize) < n && (c.col as usize) < n {
            self.cells[c.row as usize * n + c.col as usize]
        } else {
            None
        }
    }

    /// Sets a coordinate (ignored off the board).
    pub fn set(&mut self, c: Coord, piece: Option<Piece>) {
        let n = self.size.n();
        if (c.row as usize) < n && (c.col as usize) < n {
            self.cells[c.row as usize * n + c.col as usize] = piece;
        }
    }

    /// Every playable coordinate, top row first.
    pub fn playable(&self) -> impl Iterator<Item = Coord> {
        let n = self.size.n();
        (0..n * n)
            .map(move |i| Coord::new((i / n) as u8, (i % n) as u8))
            .filter(move |c| c.is_playable(n))
    }

    /// Parses a layout file's text (compact or spaced rows; `#` comments and blank lines skipped).
    pub fn parse_layout(text: &str) -> Result<Grid, BoardError> {
        let rows: Vec<Vec<char>> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(row_chars)
            .collect();
        Self::from_rows(&rows)
    }

    /// Parses the one-line form: rows joined by `/`.
    pub fn parse_line(text: &str) -> Result<Grid, BoardError> {
        Self::parse_line_allowing_uncrowned(text)?.without_uncrowned_men()
    }

    /// Parses the one-line form like [`Grid::parse_line`] but lets a man stand on its crowning row
    /// (for a caller that explains such a board itself, e.g. an arm that has not crowned a piece
    /// yet); [`Grid::uncrowned_man`] reports such a man.
    pub fn parse_line_allowing_uncrowned(text: &str) -> Result<Grid, BoardError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(BoardError::Empty);
        }
        let rows: Vec<Vec<char>> = text.split('/').map(row_chars).collect();
        Self::from_rows_allowing_uncrowned(&rows)
    }

    /// The first man (top row first) standing on the row where it would have been crowned, as the
    /// error that names it.
    pub fn uncrowned_man(&self) -> Option<BoardError> {
        let n = self.size.n();
        self.playable().find_map(|at| {
            let p = self.get(at).filter(|p| !p.king)?;
            let crowning_row = match p.side {
                Side::Player => 0,
                Side::Bot => n - 1,
            };
            (at.row as usize == crowning_row).then(|| BoardError::ManOnCrowningRow {
                at,
                ch: p.to_char(),
                king: Piece { king: true, ..p }.to_char(),
            })
        })
    }

    /// Parses either form: the one-line form if the text has a `/`, else a layout.
    pub fn parse(text: &str) -> Result<Grid, BoardError> {
        if text.contains('/') {
            Self::parse_line(text)
        } else {
            Self::parse_layout(text)
        }
    }

    fn from_rows(rows: &[Vec<char>]) -> Result<Grid, BoardError> {
        Self::from_rows_allowing_uncrowned(rows)?.without_uncrowned_men()
    }

    /// The grid, or the error naming its first man on a crowning row.
    fn without_uncrowned_men(self) -> Result<Grid, BoardError> {
        match self.uncrowned_man() {
            Some(e) => Err(e),
            None => Ok(self),
        }
    }

    fn from_rows_allowing_uncrowned(rows: &[Vec<char>]) -> Result<Grid, BoardError> {
        if rows.is_empty() {
            return Err(BoardError::Empty);
        }
        let n = rows.len();
        let size = BoardSize::from_n(n).ok_or(BoardError::UnsupportedSize(n))?;
        let mut grid = Grid::empty(size);
        for (r, row) in rows.iter().enumerate() {
            if row.len() != n {
                return Err(BoardError::RowLength {
                    row: (b'A' + r as u8) as char,
                    found: row.len(),
                    expected: n,
                });
            }
            for (c, &ch) in row.iter().enumerate() {
                let at = Coord::new(r as u8, c as u8);
                let piece = match ch {
                    '_' | '.' => None,
                    _ => Some(Piece::from_char(ch).ok_or(BoardError::UnknownChar { at, ch })?),
                };
                if piece.is_some() && !at.is_playable(n) {
                    return Err(BoardError::LightSquare { at, ch });
                }
                grid.set(at, piece);
            }
        }
        Ok(grid)
    }

    /// The one-line form, e.g. `_b_b/____/____/p_p_`.
    pub fn to_line(&self) -> String {
        self.rows().join("/")
    }

    /// The rows as compact strings, top first.
    pub fn rows(&self) -> Vec<String> {
        let n = self.size.n();
        (0..n)
            .map(|r| {
                (0..n)
                    .map(|c| match self.get(Coord::new(r as u8, c as u8)) {
                        Some(p) => p.to_char(),
                        None => '_',
                    })
                    .collect()
            })
            .collect()
    }

    /// The same board seen from the other side of the table (rotated 180 degrees).
    pub fn rotated(&self) -> Grid {
        let n = self.size.n();
        let mut g = Grid::empty(self.size);
        for r in 0..n {
            for c in 0..n {
                let src = Coord::new(r as u8, c as u8);
                let dst = Coord::new((n - 1 - r) as u8, (n - 1 - c) as u8);
                g.set(dst, self.get(src));
            }
        }
        g
    }

    /// Squares whose contents differ between two grids of the same size.
    pub fn diff(&self, other: &Grid) -> Vec<Coord> {
        if self.size != other.size {
            return Vec::new();
        }
        self.playable()
            .filter(|&c| self.get(c) != other.get(c))
            .collect()
    }

    /// The grid as a position with `side` to move. `G` must be this grid's size.
    pub fn to_position<G: Geometry>(&self, side: Side) -> Position<G> {
        debug_assert_eq!(G::N, self.size.n());
        let mut p = Position::<G>::empty(side);
        for c in self.playable() {
            if let (Some(piece), Some(sq)) = (self.get(c), c.to_square(G::N)) {
                p.put(sq, Some(piece));
            }
        }
        p
    }

    /// The grid of a position.
    pub fn from_position<G: Geometry>(pos: &Position<G>) -> Grid {
        let mut g = Grid::empty(G::SIZE);
        for c in g.clone().playable() {
            if let Some(sq) = c.to_square(G::N) {
                g.set(c, pos.piece_at(sq));
            }
        }
        g
    }

    /// Counts (men, kings) of a side.
    pub fn count(&self, side: Side) -> (usize, usize) {
        let mut men = 0;
        let mut kings = 0;
        for c in self.playable() {
            if let Some(p) = self.get(c) {
                if p.side == side {
                    if p.king {
                        kings += 1;
                    } else {
                        men += 1;
                    }
                }
            }
        }
        (men, kings)
    }
}

fn row_chars(row: &str) -> Vec<char> {
    let row = row.trim();
    if row.contains(char::is_whitespace) {
        row.split_whitespace()
            .flat_map(|tok| {
                // A token is one square; a longer token is kept whole so the error names it.
                tok.chars().collect::<Vec<_>>()
            })
            .collect()
    } else {
        row.chars().collect()
    }
}

impl fmt::Display for Grid {
    /// The compact rows, one per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in self.rows() {
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

/// The standard initial grid for a size.
pub fn initial_grid(size: BoardSize) -> Grid {
    let mut g = Grid::empty(size);
    let n = size.n();
    let rows = size.start_rows();
    for c in g.clone().playable() {
        let r = c.row as usize;
        if r < rows {
            g.set(
                c,
                Some(Piece {
                    side: Side::Bot,
                    king: false,
                }),
            );
        } else if r >= n - rows {
            g.set(
                c,
                Some(Piece {
                    side: Side::Player,
                    king: false,
                }),
            );
        }
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::geometry::G8;

    #[test]
    fn parses_compact_spaced_and_line_forms() {
        let compact = "_b_b\n____\n____\np_p_\n";
        let spaced = "_ b _ b\n_ _ _ _\n\n# comment\n_ _ _ _\np _ p _\n";
        let a = Grid::parse_layout(compact).unwrap();
        let b = Grid::parse_layout(spaced).unwrap();
        let c = Grid::parse_line("_b_b/____/____/p_p_").unwrap();
        assert_eq!(a, b);
        assert_eq!(a, c);
        assert_eq!(a.to_line(), "_b_b/____/____/p_p_");
        assert_eq!(a, initial_grid(BoardSize::S4));
    }

    #[test]
    fn errors_name_the_square() {
        let e = Grid::parse_line("_b_b/____/__x_/p_p_").unwrap_err();
        assert_eq!(
            e,
            BoardError::UnknownChar {
                at: Coord::new(2, 2),
                ch: 'x'
            }
        );
        assert!(e.to_string().contains("C2"), "{e}");
        let e = Grid::parse_line("b__b/____/____/p_p_").unwrap_err();
        assert!(matches!(e, BoardError::LightSquare { .. }));
        assert!(e.to_string().contains("A0"), "{e}");
        let e = Grid::parse_line("_p_b/____/____/p_p_").unwrap_err();
        assert!(matches!(e, BoardError::ManOnCrowningRow { .. }));
        let e = Grid::parse_line("_b_b/____/____/b_p_").unwrap_err();
        assert!(
            matches!(e, BoardError::ManOnCrowningRow { king: 'B', .. }),
            "{e}"
        );
        let e = Grid::parse_line("_b_b/___/____/p_p_").unwrap_err();
        assert_eq!(
            e,
            BoardError::RowLength {
                row: 'B',
                found: 3,
                expected: 4
            }
        );
        assert_eq!(
            Grid::parse_line("___/___/___").unwrap_err(),
            BoardError::UnsupportedSize(3)
        );
        assert_eq!(Grid::parse_line("  ").unwrap_err(), BoardError::Empty);
    }

    #[test]
    fn uncrowned_men_are_reported_or_allowed_on_request() {
        let line = "_b_b/____/____/b_p_";
        let strict = Grid::parse_line(line).unwrap_err();
        let g = Grid::parse_line_allowing_uncrowned(line).unwrap();
        assert_eq!(g.uncrowned_man(), Some(strict.clone()));
        assert_eq!(
            strict,
            BoardError::ManOnCrowningRow {
                at: Coord::new(3, 0),
                ch: 'b',
                king: 'B'
            }
        );
        // Other faults are still errors.
        assert!(Grid::parse_line_allowing_uncrowned("b__b/____/____/p_p_").is_err());
        assert_eq!(
            Grid::parse_line("_b_b/____/____/p_p_")
                .unwrap()
                .uncrowned_man(),
            None
        );
    }

    #[test]
    fn grid_position_round_trip() {
        let g = initial_grid(BoardSize::S8);
        let p: Position<G8> = g.to_position(Side::Player);
        assert_eq!(p, Position::<G8>::initial(Side::Player));
        assert_eq!(Grid::from_position(&p), g);
        assert!(p.is_consistent());
    }

    #[test]
    fn rotation_and_diff() {
        let g = Grid::parse_line("_b_b/____/____/p_p_").unwrap();
        let r = g.rotated();
        assert_eq!(r.to_line(), "_p_p/____/____/b_b_");
        assert_eq!(r.rotated(), g);
        let d = g.diff(&Grid::parse_line("_b_b/____/_p__/p___").unwrap());
        assert_eq!(d, vec![Coord::new(2, 1), Coord::new(3, 2)]);
    }
}
