//! The robot's side of the program: what the vision system and the arm controller talk to.
//!
//! - [`protocol`]: the daemon protocol's typed commands and replies, parsed from and printed to text;
//! - [`diagnosis`]: what the person did when no legal move explains a board;
//! - [`files`]: files named from the wire, checked before they are read or written;
//! - [`tracking`]: game tracking as a pure state machine (a camera board in, an observation out);
//! - [`orientation`]: whether a failing board reads right turned, mirrored or flipped;
//! - [`transport`]: line framing over stdin/stdout and serial devices;
//! - [`network`]: the daemon over TCP, one client at a time;
//! - [`options`]: the option list of the `options` request (and of `serve --help`);
//! - [`outbox`]: the one writer, which keeps replies the link cannot take now and writes them later;
//! - [`status`]: the `status` line: the tracked game and the settings, as plain data;
//! - [`snapshot`]: what the operator page shows, published by the daemon, read by web threads;
//! - [`operator`]: the operator page, its live part, `/status.json` and the game record;
//! - [`http`]: the operator page's read-only web server (`serve --http`);
//! - [`daemon`]: the event loop that wires tracking, the engine and a transport together;
//! - [`hub`]: the Hub protocol's positions, moves and lines, for `checkersbot hub`.

pub mod daemon;
pub mod diagnosis;
pub mod files;
pub mod http;
pub mod hub;
pub mod network;
pub mod operator;
pub mod options;
pub mod orientation;
pub mod outbox;
pub mod protocol;
pub mod snapshot;
pub mod status;
pub mod tracking;
pub mod transport;
