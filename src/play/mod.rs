//! Games played through the engine rather than the robot: against a person at a terminal, and
//! between engines.
//!
//! - [`terminal`]: the terminal game against the bot;
//! - [`level`]: the playing levels and styles, shared by `play`, `serve` and `match`;
//! - [`arena`]: matches between players (engine configurations, the random player, the student),
//!   their statistics and the Elo estimate;
//! - [`student`]: a re-creation of the student engines the project replaces, a match opponent.

pub mod arena;
pub mod level;
pub mod student;
pub mod terminal;
