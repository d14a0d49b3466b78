//! Draughts FEN: `SIDE:WSQUARES:BSQUARES`, e.g. the 8x8 start with the bot to move
//! `B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12`.
//!
//! FEN White is the player `p` (at the bottom, moving up), FEN Black the bot `b` (at the top).
//! Squares are the standard numbers of [`Coord::standard_number`]: 1 is the top-left playable
//! square, counted row by row, up to `N * N / 2`; the same numbering serves every board size.
//! Accepted: a `K` before a number marks a king; `a-b` is a range of men; the `W` and `B` parts in
//! either order, either empty; blanks anywhere and a final `.` are ignored; letters in either case.
//!
//! ```
//! use checkersbot::rules::fen::{parse_fen, to_fen};
//! use checkersbot::rules::geometry::BoardSize;
//! use checkersbot::rules::board::initial_grid;
//! use checkersbot::rules::position::Side;
//!
//! let (grid, side) = parse_fen("B:W21-32:B1-12", BoardSize::S8).unwrap();
//! assert_eq!(grid, initial_grid(BoardSize::S8));
//! assert_eq!(side, Side::Bot);
//! assert_eq!(to_fen(&grid, side), "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12");
//! ```

use crate::rules::board::Grid;
use crate::rules::geometry::{BoardSize, Coord};
use crate::rules::position::{Piece, Side};

/// Why a FEN could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// The side to move is not `W` or `B`.
    #[error("the side to move must be W or B, not '{0}'")]
    Side(String),
    /// Not three `:`-separated parts.
    #[error("expected SIDE:WSQUARES:BSQUARES, found {0} part(s)")]
    Parts(usize),
    /// A part does not start with `W` or `B`, or names a colour twice.
    #[error("part '{0}' must start with W or B (each once)")]
    Colour(String),
    /// A square item is not a number, `Knumber` or a range.
    #[error("'{0}' is not a square number")]
    Number(String),
    /// A square number outside `1..=N*N/2`.
    #[error("square {num} is off the {size} board (squares 1 to {max})")]
    OffBoard {
        /// The number.
        num: usize,
        /// The board size.
        size: BoardSize,
        /// The largest square number.
        max: usize,
    },
    /// A square given twice.
    #[error("square {0} is given twice")]
    Twice(usize),
    /// A man on the row where it would be crowned.
    #[error("the man on square {num} ({at}) stands on its crowning row; write K{num}")]
    ManOnCrowningRow {
        /// The number.
        num: usize,
        /// Its coordinate.
        at: Coord,
    },
}

/// Reads a FEN for a board of the given size.
pub fn parse_fen(text: &str, size: BoardSize) -> Result<(Grid, Side), FenError> {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let text = text.strip_suffix('.').unwrap_or(&text);
    let parts: Vec<&str> = text.split(':').collect();
    if parts.len() != 3 {
        return Err(FenError::Parts(parts.len()));
    }
    let side = match parts[0] {
        "W" | "w" => Side::Player,
        "B" | "b" => Side::Bot,
        s => return Err(FenError::Side(s.to_string())),
    };
    let n = size.n();
    let max = size.squares();
    let mut grid = Grid::empty(size);
    let mut seen = std::collections::BTreeSet::new();
    let mut colours_seen = [false; 2];
    for part in &parts[1..] {
        let mut chars = part.chars();
        let owner = match chars.next() {
            Some('W' | 'w') => Side::Player,
            Some('B' | 'b') => Side::Bot,
            _ => return Err(FenError::Colour(part.to_string())),
        };
        if colours_seen[owner.index()] {
            return Err(FenError::Colour(part.to_string()));
        }
        colours_seen[owner.index()] = true;
        let list = chars.as_str();
        if list.is_empty() {
            continue;
        }
        for item in list.split(',') {
            let (king, num_text) = match item.strip_prefix(['K', 'k']) {
                Some(rest) => (true, rest),
                None => (false, item),
            };
            let number = |s: &str| -> Result<usize, FenError> {
                if s.is_empty() || s.len() > 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(FenError::Number(item.to_string()));
                }
                let num: usize = s.parse().map_err(|_| FenError::Number(item.to_string()))?;
                if num == 0 || num > max {
                    return Err(FenError::OffBoard { num, size, max });
                }
                Ok(num)
            };
            let (lo, hi) = match num_text.split_once('-') {
                Some((a, b)) if !king => (number(a)?, number(b)?),
                Some(_) => return Err(FenError::Number(item.to_string())),
                None => {
                    let v = number(num_text)?;
                    (v, v)
                }
            };
            if lo > hi {
                return Err(FenError::Number(item.to_string()));
            }
            for num in lo..=hi {
                if !seen.insert(num) {
                    return Err(FenError::Twice(num));
                }
                let Some(at) = Coord::from_standard_number(num, n) else {
                    return Err(FenError::OffBoard { num, size, max });
                };
                let crowning = match owner {
                    Side::Player => 0,
                    Side::Bot => n - 1,
                };
                if !king && at.row as usize == crowning {
                    return Err(FenError::ManOnCrowningRow { num, at });
                }
                grid.set(at, Some(Piece { side: owner, king }));
            }
        }
    }
    Ok((grid, side))
}

/// The FEN of a grid with `side` to move (kings marked, squares in increasing order).
pub fn to_fen(grid: &Grid, side: Side) -> String {
    let n = grid.size().n();
    let list = |owner: Side| {
        let mut items: Vec<(usize, bool)> = grid
            .playable()
            .filter_map(|c| {
                grid.get(c)
                    .filter(|p| p.side == owner)
                    .map(|p| (c.standard_number(n), p.king))
            })
            .collect();
        items.sort_unstable();
        items
            .iter()
            .map(|&(num, king)| {
                if king {
                    format!("K{num}")
                } else {
                    num.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let s = match side {
        Side::Player => 'W',
        Side::Bot => 'B',
    };
    format!("{s}:W{}:B{}", list(Side::Player), list(Side::Bot))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::initial_grid;

    #[test]
    fn start_positions_of_every_size_round_trip() {
        for size in BoardSize::ALL {
            let g = initial_grid(size);
            for side in [Side::Player, Side::Bot] {
                let fen = to_fen(&g, side);
                assert_eq!(parse_fen(&fen, size), Ok((g.clone(), side)), "{fen}");
            }
        }
    }

    #[test]
    fn kings_ranges_and_order() {
        let (g, side) = parse_fen("W:B K5, 1-2 :WK32,29.", BoardSize::S8).unwrap();
        assert_eq!(side, Side::Player);
        assert_eq!(
            g.to_line(),
            "_b_b____/B_______/________/________/________/________/________/p_____P_"
        );
        assert_eq!(to_fen(&g, side), "W:W29,K32:B1,2,K5");
        // Square 1 is A1, 4 is A7, 5 is B0, 32 is H6.
        assert_eq!(Coord::from_standard_number(32, 8), Some(Coord::new(7, 6)));
    }

    #[test]
    fn errors() {
        let s8 = BoardSize::S8;
        assert_eq!(parse_fen("X:W1:B2", s8), Err(FenError::Side("X".into())));
        assert_eq!(parse_fen("W:W21", s8), Err(FenError::Parts(2)));
        assert!(matches!(
            parse_fen("W:W21:W22", s8),
            Err(FenError::Colour(_))
        ));
        assert!(matches!(
            parse_fen("W:W2x:B1", s8),
            Err(FenError::Number(_))
        ));
        assert!(matches!(
            parse_fen("W:W33:B1", s8),
            Err(FenError::OffBoard { num: 33, .. })
        ));
        assert_eq!(parse_fen("W:W21:B21", s8), Err(FenError::Twice(21)));
        assert!(matches!(
            parse_fen("W:W1:B9", s8),
            Err(FenError::ManOnCrowningRow { num: 1, .. })
        ));
        // On 10x10, square 50 is on the bottom row: a player man may stand there.
        assert!(parse_fen("W:W50:B1", BoardSize::S10).is_ok());
    }
}
