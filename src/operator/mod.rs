//! The operator page (`serve --http`): a read-only web page a person at the robot watches, with
//! the board as the camera sent it and as the daemon expects it, the bot's search, the clock and
//! the moves.
//!
//! - [`state`]: what the page says (its state, headline, explanation and who acts), decided from
//!   a snapshot in one place;
//! - [`page`]: the page, its live part, `/status.json` and the game record, made from a snapshot;
//! - [`http`]: the small web server on the standard library that serves them.
//!
//! May import: [`crate::rules`], [`crate::render`] and, from the daemon, the plain data it
//! publishes ([`crate::daemon::snapshot`]) and the protocol's words ([`crate::daemon::protocol`]).
//! The daemon never imports this folder: it publishes snapshots and knows nothing of the page.

pub mod http;
pub mod page;
pub mod state;
