//! The daemon protocol's messages as typed values: [`Command`] (what the vision system sends) and
//! [`Reply`] (what the daemon answers). Both parse from and print to the same text, as specified in
//! `protocol/PROTOCOL.md`; printing then parsing gives the value back.
//!
//! Parsing checks the grammar only (command words, argument counts, numbers, sides, square names);
//! whether a board's rows describe a valid board is checked by the daemon, which knows the camera
//! settings (rotation, colour-only) that affect how rows are read.
//!
//! ```
//! use checkersbot::daemon::protocol::{Command, Reply};
//! use checkersbot::rules::position::Side;
//!
//! let cmd = Command::parse("board _b_b/____/____/p_p_ b").unwrap().unwrap();
//! assert_eq!(cmd, Command::Board { rows: "_b_b/____/____/p_p_".into(), side: Side::Bot });
//! assert_eq!(cmd.to_string(), "board _b_b/____/____/p_p_ b");
//! let reply = Reply::parse("move E5 C3 A1 captures D4 B2 crown").unwrap();
//! assert_eq!(reply.to_string(), "move E5 C3 A1 captures D4 B2 crown");
//! ```
//!
//! - `command`: the requests; `reply`: the replies; `status`: the `status` line's data;
//! - `errors`: error codes and parse errors; `text`: limits and the words messages are made of.

mod command;
mod errors;
mod reply;
mod status;
mod text;

pub use command::{Command, InfoMode, Layout, SetOption, Setup};
pub use errors::{ErrorCode, ProtocolError};
pub use reply::{InfoLine, OptionLine, OptionType, Reply, ScoreText, SearchInfo};
pub use status::{result_word, GameState, StatusReport};
pub use text::{parse_size, printable, MAX_LINE, MAX_MESSAGE, MAX_TOKEN, PROTOCOL_VERSION};

#[cfg(test)]
mod tests;
