//! checkersbot: the decision maker of a checkers-playing robot.
//!
//! The library holds the rules and the engine; the `checkersbot` binary is a thin command line over
//! it. Modules, from the ground up:
//!
//! - [`geometry`]: board sizes, squares, coordinates and the padded bit layout;
//! - [`bitboard`]: sets of squares;
//! - [`position`]: pieces, moves and making them;
//! - [`movegen`]: legal moves and perft;
//! - [`board`]: board text (layout files, the one-line form) and its validation;
//! - [`notation`]: moves in coordinate notation (`E5 C3 A1`);
//! - [`any`]: size-independent positions for the I/O layers;
//! - [`eval`]: the static evaluation and its weights;
//! - [`tt`]: the transposition table;
//! - [`search`]: alpha-beta search, generic over the board size;
//! - [`engine`]: the size-independent engine component (limits, progress, results);
//! - [`student`]: a re-creation of the student engines the project replaces, a match opponent;
//! - [`game`]: a game's moves, undo and draw rules;
//! - [`fen`]: draughts FEN positions;
//! - [`protocol`]: the daemon protocol's typed commands and replies;
//! - [`transport`]: line framing, stdin/stdout and serial devices;
//! - [`daemon`]: the game-tracking daemon behind `checkersbot serve` and `replay`.

pub mod any;
pub mod arena;
pub mod bitboard;
pub mod board;
pub mod daemon;
pub mod engine;
pub mod eval;
pub mod fen;
pub mod game;
pub mod geometry;
pub mod movegen;
pub mod notation;
pub mod pdn;
pub mod play;
pub mod position;
pub mod protocol;
pub mod rng;
pub mod search;
pub mod student;
pub mod transport;
pub mod tt;
pub mod zobrist;
