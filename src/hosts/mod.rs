//! Ways other checkers programs (engine hosts: GUIs, match runners, draughts libraries) drive the
//! engine, as opposed to the robot's own protocol (the daemon's). Each file is one host protocol
//! as plain data and text, with no I/O: what the host sends, read and checked; what the engine
//! answers, written in the host's terms.
//!
//! - [`hub`]: the Hub protocol (Scan's), spoken by `checkersbot hub` (the loop is
//!   `src/cli/hub.rs`) for tools such as pydraughts;
//! - [`checkerboard`]: the CheckerBoard engine API (`getmove`/`enginecommand`): its board, move
//!   and commands. The shared library that exports the two functions is the crate in
//!   `checkerboard/` (a cdylib must be a crate of its own): the FFI shell over this module.
//!
//! May import: [`crate::rules`], [`crate::engine`] and [`crate::play`]; never the daemon.

pub mod checkerboard;
pub mod hub;
