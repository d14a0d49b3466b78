//! The daemon as a service: what the vision system and the arm controller talk to (`serve`,
//! `replay`). One event loop owns the game; everything else here is what it owns or speaks.
//!
//! - [`event_loop`]: the daemon itself, which wires the camera game, the engine and a transport;
//!   it hands requests to their family (`game`, `search`, `set`, `control`: one file each) and
//!   runs the engine on a thread of its own (`engine_thread`);
//! - [`event`]: what the loop reacts to (input, engine progress, loaded files, signals);
//! - [`settings`]: the daemon's settings (the `serve` flags, changed by `set`);
//! - [`protocol`]: the protocol's typed commands and replies, parsed from and printed to text;
//! - [`options`]: the option list of the `options` request (and of `serve --help`);
//! - [`status`]: the `status` line: the tracked game and the settings, as plain data;
//! - [`egdb_build`]: the endgame database built in the background of `serve` (child processes at
//!   the lowest priority), each level taken into play between moves;
//! - [`snapshot`]: what the daemon publishes for watchers (the operator page) after each event;
//! - [`outbox`]: the one writer, which keeps replies the link cannot take now and writes them later;
//! - [`transport`]: line framing over stdin/stdout and serial devices;
//! - [`network`]: the daemon over TCP, one client at a time.
//!
//! Files a request names are opened through [`crate::files`].
//!
//! May import: [`crate::rules`], [`crate::engine`], [`crate::play`] (levels) and
//! [`crate::camera`]. Nothing below it imports this folder except the operator page
//! ([`crate::operator`]), which reads the snapshots and the protocol's words.

mod control;
pub mod egdb_build;
mod engine_thread;
pub mod event;
pub mod event_loop;
mod game;
pub mod network;
pub mod options;
pub mod outbox;
pub mod protocol;
mod search;
mod set;
pub mod settings;
pub mod snapshot;
pub mod status;
pub mod transport;

pub use event::{Event, Loaded};
pub use event_loop::{replay, Daemon, FLUSH_PATIENCE, MAX_WAITING_FOR_JOB};
pub use search::ANALYSIS_CAP;
pub use set::MAX_EVAL_FILE;
pub use settings::{Settings, MOVE_OVERHEAD};
