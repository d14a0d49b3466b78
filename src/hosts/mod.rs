//! Ways other checkers programs (engine hosts: GUIs, match runners, draughts libraries) drive the
//! engine, as opposed to the robot's own protocol ([`crate::daemon::protocol`]).
//!
//! - [`hub`]: the Hub protocol (Scan's), spoken by `checkersbot hub` for tools such as pydraughts;
//! - the CheckerBoard engine library (`getmove`/`enginecommand`) is the crate in `checkerboard/`
//!   (a shared library must be a crate of its own); it uses the same layers as this folder.
//!
//! May import: [`crate::rules`], [`crate::engine`] and [`crate::play`]; never the daemon.

pub mod hub;
