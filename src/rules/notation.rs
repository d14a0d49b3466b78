//! Coordinate notation for moves: a move is its path of squares, e.g. `G3 F4` or `E5 C3 A1`.
//!
//! [`parse_move`] reads a path against a position and returns the legal move it names, or says why
//! there is none. Squares are separated by spaces, `-` or `x` (`G3-F4`, `E5xC3xA1` also read). A
//! multi-jump may be given by its start and end square only when exactly one legal move fits.

use crate::rules::geometry::{parse_coord, Coord, CoordError, Geometry};
use crate::rules::position::{Move, Position};

/// Why a move could not be read or is not legal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// A square in the path is not a square.
    #[error(transparent)]
    Square(#[from] CoordError),
    /// Fewer than two squares.
    #[error("a move needs at least two squares, like G3 F4")]
    TooShort,
    /// Nothing stands on the first square.
    #[error("there is no piece on {0}")]
    NoPiece(Coord),
    /// The piece on the first square belongs to the other side.
    #[error("the piece on {at} is not yours ({side} is to move)")]
    NotYourPiece {
        /// Square of the piece.
        at: Coord,
        /// Side to move.
        side: char,
    },
    /// A capture is available, so a step is not allowed.
    #[error("a capture is mandatory here; legal moves: {legal}")]
    CaptureMandatory {
        /// The legal moves, comma-separated.
        legal: String,
    },
    /// The path stops while the piece could keep jumping.
    #[error("the jump must continue: {legal}")]
    MustContinue {
        /// Legal continuations, comma-separated.
        legal: String,
    },
    /// Start and end fit more than one legal path.
    #[error("{given} fits several moves; give the full path: {legal}")]
    Ambiguous {
        /// The text given.
        given: String,
        /// The candidates, comma-separated.
        legal: String,
    },
    /// No legal move has this path.
    #[error("{given} is not a legal move; legal moves: {legal}")]
    Illegal {
        /// The text given.
        given: String,
        /// The legal moves, comma-separated.
        legal: String,
    },
    /// The side to move has no legal moves.
    #[error("{0} has no legal moves: the game is over")]
    NoMoves(char),
}

/// Splits a move's text into square names.
pub fn split_path(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || c == '-' || c == 'x' || c == ',')
        .filter(|s| !s.is_empty())
        .collect()
}

fn list<G: Geometry>(moves: &[&Move<G::B>]) -> String {
    moves
        .iter()
        .map(|m| m.notation::<G>())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads a move's path against a position and returns the legal move it names.
pub fn parse_move<G: Geometry>(pos: &Position<G>, text: &str) -> Result<Move<G::B>, MoveError> {
    let names = split_path(text);
    let coords = names
        .iter()
        .map(|s| parse_coord(s, G::N))
        .collect::<Result<Vec<Coord>, _>>()?;
    if coords.len() < 2 {
        return Err(MoveError::TooShort);
    }
    let legal = pos.legal_moves();
    if legal.is_empty() {
        return Err(MoveError::NoMoves(pos.side.letter()));
    }
    let all: Vec<&Move<G::B>> = legal.iter().collect();
    let given = coords
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(m) = legal.iter().find(|m| m.path_coords::<G>() == coords) {
        return Ok(*m);
    }
    let start = coords[0];
    let sq = start
        .to_square(G::N)
        .ok_or(MoveError::Square(CoordError::Light(start.to_string())))?;
    match pos.piece_at(sq) {
        None => return Err(MoveError::NoPiece(start)),
        Some(p) if p.side != pos.side => {
            return Err(MoveError::NotYourPiece {
                at: start,
                side: pos.side.letter(),
            })
        }
        _ => {}
    }
    // Start and end only, for a multi-jump.
    if coords.len() == 2 {
        let fits: Vec<&Move<G::B>> = legal
            .iter()
            .filter(|m| {
                let p = m.path_coords::<G>();
                p.first() == Some(&coords[0]) && p.last() == Some(&coords[1])
            })
            .collect();
        match fits.len() {
            1 => return Ok(*fits[0]),
            0 => {}
            _ => {
                return Err(MoveError::Ambiguous {
                    given,
                    legal: list::<G>(&fits),
                });
            }
        }
    }
    let is_capture = legal[0].is_capture();
    // A path that is the beginning of a legal capture stopped too early.
    let continuing: Vec<&Move<G::B>> = legal
        .iter()
        .filter(|m| {
            let p = m.path_coords::<G>();
            p.len() > coords.len() && p[..coords.len()] == coords[..]
        })
        .collect();
    if is_capture && !continuing.is_empty() {
        return Err(MoveError::MustContinue {
            legal: list::<G>(&continuing),
        });
    }
    if is_capture && coords.len() == 2 && is_step(coords[0], coords[1]) {
        return Err(MoveError::CaptureMandatory {
            legal: list::<G>(&all),
        });
    }
    Err(MoveError::Illegal {
        given,
        legal: list::<G>(&all),
    })
}

fn is_step(a: Coord, b: Coord) -> bool {
    a.row.abs_diff(b.row) == 1 && a.col.abs_diff(b.col) == 1
}
