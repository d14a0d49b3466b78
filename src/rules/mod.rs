//! The rules of American checkers on every board size from 4x4 to 12x12: the lowest layer, which
//! imports nothing above it.
//!
//! - [`geometry`]: board sizes, squares, coordinates and the padded bit layout;
//! - [`bitboard`]: sets of squares;
//! - [`zobrist`]: the hashing keys, built at compile time;
//! - [`position`]: pieces, moves and making them;
//! - [`movegen`]: legal moves and perft;
//! - [`board`]: board text (layout files, the one-line form) and its validation;
//! - [`notation`]: moves in coordinate notation (`E5 C3 A1`);
//! - [`fen`]: draughts FEN positions;
//! - [`pdn`]: game records;
//! - [`openings`]: opening decks (the ACF 3-move ballots) as data;
//! - [`any_size`]: a position of any board size behind one type, for the layers above;
//! - [`game`]: a game's moves, undo and draw rules.

pub mod any_size;
pub mod bitboard;
pub mod board;
pub mod fen;
pub mod game;
pub mod geometry;
pub mod movegen;
pub mod notation;
pub mod openings;
pub mod pdn;
pub mod position;
pub mod zobrist;
