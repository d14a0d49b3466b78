//! The camera game: what a board seen by the vision system means for the game being played.
//! Pure logic, no I/O and no engine: a board's rows in, a decision about the game out.
//!
//! - [`tracking`]: the game as a state machine fed with camera boards (the person's move read off
//!   the board, the arm's move checked, a new game recognised), with the camera settings;
//! - [`diagnosis`]: what the person (or the arm) did when no legal move explains a board;
//! - [`orientation`]: whether a failing board reads right turned, mirrored or flipped;
//! - [`turn`]: those turns as data, a board's rows turned, and the orientation hint's words.
//!
//! May import: [`crate::rules`] only. The daemon ([`crate::daemon`]) uses it.

pub mod diagnosis;
pub mod nearest;
pub mod orientation;
pub mod tracking;
pub mod turn;
