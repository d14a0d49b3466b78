//! The daemon as a service: what the vision system and the arm controller talk to (`serve`,
//! `replay`). One event loop owns the game; everything else here is what it owns or speaks.
//!
//! - [`event_loop`]: the daemon itself, which wires the camera game, the engine and a transport;
//! - [`protocol`]: the protocol's typed commands and replies, parsed from and printed to text;
//! - [`options`]: the option list of the `options` request (and of `serve --help`);
//! - [`status`]: the `status` line: the tracked game and the settings, as plain data;
//! - [`snapshot`]: what the daemon publishes for watchers (the operator page) after each event;
//! - [`outbox`]: the one writer, which keeps replies the link cannot take now and writes them later;
//! - [`transport`]: line framing over stdin/stdout and serial devices;
//! - [`network`]: the daemon over TCP, one client at a time;
//! - [`files`]: files named from the wire, checked before they are read or written.
//!
//! May import: [`crate::rules`], [`crate::engine`], [`crate::play`] (levels) and
//! [`crate::camera`]. Nothing below it imports this folder except the operator page
//! ([`crate::operator`]), which reads the snapshots and the protocol's words.

pub mod event_loop;
pub mod files;
pub mod network;
pub mod options;
pub mod outbox;
pub mod protocol;
pub mod snapshot;
pub mod status;
pub mod transport;

pub use event_loop::{
    replay, Daemon, Event, Loaded, Settings, ANALYSIS_CAP, FLUSH_PATIENCE, MAX_EVAL_FILE,
    MAX_WAITING_FOR_JOB, MOVE_OVERHEAD,
};
