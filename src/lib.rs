//! checkersbot: the decision maker of a checkers-playing robot.
//!
//! The library is nine layers, each a folder; a layer uses the ones listed before it and never
//! those after it. The `checkersbot` binary (`main.rs` and `cli/`) is a thin command line on top.
//!
//! - [`rules`]: the game itself on every size: geometry and bit sets, positions and move
//!   generation, board text, notation, FEN, PDN, the size-independent position, draw rules;
//! - [`engine`]: evaluation, transposition table, search, endgame databases (built, stored and
//!   probed), the opening book (built, stored and consulted at the root) and the engine
//!   component with its limits, time management and progress reports;
//! - [`play`]: the terminal game and matches between players (engines, the student-style
//!   opponent, the random player), and the playing levels;
//! - [`learn`]: self-play training data and the trainer of the learned evaluation;
//! - [`camera`]: the camera game, pure logic: a board seen by the vision system in, what it means
//!   for the game out (tracking, diagnosis of misreads and arm faults, camera orientation);
//! - [`daemon`]: the daemon as a service: the event loop the vision system and the arm talk to,
//!   its protocol, settings, options, status, writer, transports and files;
//! - [`operator`]: the operator page, a read-only web view of the daemon's published snapshots;
//! - [`hosts`]: the protocols other checkers programs speak to drive the engine (Hub);
//! - [`sim`]: a software robot (camera, person, arm and link, with faults) that plays whole games
//!   against a real daemon process and judges every reply against the true board.
//!
//! [`files`] opens the files a person or a request names (weights, books, database slices,
//! records) without blocking on what is not a regular file and within a size limit, for every
//! layer that reads or writes one; [`rng`] is a small seeded generator shared by the layers that need repeatable randomness;
//! [`render`] draws boards as SVG pictures (for the `render` command and web pages), from the
//! rules layer's boards only.

pub mod camera;
pub mod daemon;
pub mod engine;
pub mod files;
pub mod hosts;
pub mod learn;
pub mod operator;
pub mod play;
pub mod render;
pub mod rng;
pub mod rules;
pub mod sim;
