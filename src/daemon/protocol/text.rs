//! The words every message is made of: the limits of a line, a token and a message, and
//! how sides, sizes, numbers and free text are read and written.

use super::errors::{bad_option, clip, syntax, ProtocolError};
use crate::rules::geometry::BoardSize;
use crate::rules::position::Side;
use std::fmt;

/// The protocol version reported by `hello`.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest line accepted, in bytes, without its terminator.
pub const MAX_LINE: usize = 4096;

/// The largest board side: square names in replies are read against it.
pub(super) const MAX_N: usize = 12;

/// The characters that separate words: space and tab only.
pub(super) fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// The longest `ping` token.
pub const MAX_TOKEN: usize = 64;

/// Reads a `ping` token: 1 to [`MAX_TOKEN`] letters, digits, `-`, `_`, `.` or `:`.
pub(super) fn parse_token(word: &str) -> Result<String, ProtocolError> {
    let ok = (1..=MAX_TOKEN).contains(&word.len())
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b));
    if ok {
        Ok(word.to_string())
    } else {
        Err(syntax(format!(
            "a token is 1 to {MAX_TOKEN} letters, digits, '-', '_', '.' or ':', not '{}'",
            clip(word)
        )))
    }
}

pub(super) fn parse_side(word: &str) -> Result<Side, ProtocolError> {
    Side::from_letter(word)
        .ok_or_else(|| syntax(format!("side must be 'p' or 'b', not '{}'", clip(word))))
}

/// `text` with every character that is not printable ASCII escaped (`\x00`, `\x1b`, `\u{e9}`), so
/// that text quoted from the input cannot put control bytes or non-ASCII into a reply; at most
/// [`MAX_MESSAGE`] bytes (longer text is cut and ends with `...`).
///
/// ```
/// use checkersbot::daemon::protocol::printable;
/// assert_eq!(printable("a\0b\u{1b}[2J \u{e9}"), "a\\x00b\\x1b[2J \\u{e9}");
/// assert_eq!(printable("plain text"), "plain text");
/// ```
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if out.len() > MAX_MESSAGE {
            break;
        }
        match c {
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    if out.len() > MAX_MESSAGE {
        // All ASCII: any byte index is a character boundary.
        out.truncate(MAX_MESSAGE - 3);
        out.push_str("...");
    }
    out
}

/// The longest message an `error` or `wait` reply carries, in bytes, so that every reply line
/// stays within [`MAX_LINE`].
pub const MAX_MESSAGE: usize = 2048;

/// Reads a board size: `8` or `8x8`.
pub fn parse_size(word: &str) -> Option<BoardSize> {
    let n = match word.split_once(['x', 'X']) {
        Some((a, b)) if a == b => a,
        Some(_) => return None,
        None => word,
    };
    n.parse().ok().and_then(BoardSize::from_n)
}

pub(super) fn parse_on_off(word: &str) -> Option<bool> {
    match word.to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "yes" => Some(true),
        "off" | "false" | "0" | "no" => Some(false),
        _ => None,
    }
}

pub(super) fn parse_number<T: std::str::FromStr + PartialOrd + fmt::Display>(
    name: &str,
    word: &str,
    range: &std::ops::RangeInclusive<T>,
) -> Result<T, ProtocolError> {
    crate::engine::bounds::parse_in(name, word, range).map_err(bad_option)
}
