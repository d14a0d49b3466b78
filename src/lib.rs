//! checkersbot: the decision maker of a checkers-playing robot.
//!
//! The library is four layers, each a folder; a layer uses the ones listed before it and never
//! those after it. The `checkersbot` binary (`main.rs` and `cli/`) is a thin command line on top.
//!
//! - [`rules`]: the game itself on every size: geometry and bit sets, positions and move
//!   generation, board text, notation, FEN, PDN, the size-independent position, draw rules;
//! - [`engine`]: evaluation, transposition table, search, endgame databases (built, stored and
//!   probed), the opening book (built, stored and consulted at the root) and the engine
//!   component with its limits, time management and progress reports;
//! - [`robot`]: the daemon the vision system and the arm talk to: protocol, game tracking,
//!   transports, the event loop and the operator page;
//! - [`play`]: the terminal game and matches between players (engines, the student-style
//!   opponent, the random player);
//! - [`learn`]: self-play training data and the trainer of the learned evaluation.
//!
//! [`rng`] is a small seeded generator shared by the layers that need repeatable randomness;
//! [`render`] draws boards as SVG pictures (for the `render` command and web pages), from the
//! rules layer's boards only.

pub mod engine;
pub mod learn;
pub mod play;
pub mod render;
pub mod rng;
pub mod robot;
pub mod rules;
