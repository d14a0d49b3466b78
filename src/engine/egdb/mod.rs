//! Endgame databases: the exact value of every position with few pieces, built by retrograde
//! analysis and probed by the search.
//!
//! A database holds, for every position with at most K pieces on a board size, whether the side
//! to move wins, loses or draws with best play under the rules of the game without a move-count
//! rule (the convention of endgame databases), and for won and lost positions the distance to
//! conversion: the plies until the winner leaves the position's slice (a capture, a crowning or
//! a man advancing past the most advanced one) on the way to the win, with the winner hurrying
//! and the loser holding out. Following falling distances the winner always makes progress.
//! Big slices (by default those of 6 pieces and more) store win/loss/draw only; the search then
//! finds the conversions, led by the distances of the smaller slices (see
//! [`crate::engine::search::egdb_score_eval`]). Positions where the side to move has a capture
//! are not stored (see [`store`]); [`Egdb::probe`] values them through their captures.
//!
//! - [`index`]: slices (material plus each side's most advanced man) and the index of a
//!   position in its slice;
//! - [`build`]: the retrograde analysis, slice by slice, on all cores, with resumption and a
//!   check of every value against its successors;
//! - [`store`]: the slice files (format version 3): don't-care values for positions with a
//!   capture pending, a byte or two bits per value, compressed blocks, each with a checksum;
//! - [`probe`]: an opened database: positions in, values out, through a block cache under a
//!   memory cap.

pub mod audit;
pub mod build;
pub mod index;
pub mod probe;
pub mod store;

pub use probe::Egdb;
use std::path::PathBuf;

/// Why a database could not be built, opened or read.
#[derive(Debug, thiserror::Error)]
pub enum EgdbError {
    /// A slice file cannot be opened: missing, unreadable or not a regular file (a FIFO, a
    /// device), checked without blocking.
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    /// A file or directory could not be read or written.
    #[error("{0}: {1}")]
    Io(PathBuf, #[source] std::io::Error),
    /// A slice file is damaged, truncated or not a slice file.
    #[error("{0}: damaged endgame database file: {1}")]
    Corrupt(PathBuf, String),
    /// A slice file of an older format.
    #[error("{0}: endgame database format version {1}, the search reads versions {min} to {v}; convert it by running `checkersbot egdb build` again with the same --size and --pieces on this directory (old files are read and rewritten)", min = store::PROBE_MIN_VERSION, v = store::VERSION)]
    OldFormat(PathBuf, u32),
    /// The directory holds no slice of any size.
    #[error("{0}: no endgame database here (build one with `checkersbot egdb build`)")]
    Empty(PathBuf),
    /// A slice needed to build another is neither built nor being built.
    #[error("slice {0} is needed but missing")]
    MissingSlice(String),
    /// A built slice failed its check against its successors.
    #[error("slice {0} failed verification: {1} positions disagree with their successors")]
    Verify(String, u64),
    /// More pieces than the index supports.
    #[error("{0} pieces: databases go up to {max} pieces", max = index::MAX_PIECES)]
    TooManyPieces(u32),
    /// The thread pool could not be started.
    #[error("cannot start the build threads: {0}")]
    Threads(String),
}

/// The value of a position for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// Won; plies to conversion when known.
    Win(Option<u32>),
    /// Lost; plies to conversion when known.
    Loss(Option<u32>),
    /// Drawn.
    Draw,
}

/// Stored codes: 0 draw, `1..=127` won in that many plies, `128 + d` lost in `d` plies; 127 and
/// 255 mean "127 or more" (unknown).
pub(crate) mod code {
    /// Drawn.
    pub const DRAW: u8 = 0;
    /// The longest distance stored exactly, plus one.
    pub const CAP: u32 = 127;
    /// The code of a win in `d >= 1` plies.
    pub fn win(d: u32) -> u8 {
        d.clamp(1, CAP) as u8
    }
    /// The code of a loss in `d` plies.
    pub fn loss(d: u32) -> u8 {
        128 + d.min(CAP) as u8
    }
    /// Whether the code is a win.
    pub fn is_win(c: u8) -> bool {
        (1..128).contains(&c)
    }
    /// Whether the code is a loss.
    pub fn is_loss(c: u8) -> bool {
        c >= 128
    }
    /// The distance of a win or loss code (saturated at [`CAP`]).
    pub fn dist(c: u8) -> u32 {
        (c & 127) as u32
    }
}

impl Value {
    /// The side that wins a position of this value where `to_move` is to move (`None`: drawn).
    pub fn winner(
        self,
        to_move: crate::rules::position::Side,
    ) -> Option<crate::rules::position::Side> {
        match self {
            Value::Win(_) => Some(to_move),
            Value::Loss(_) => Some(to_move.opponent()),
            Value::Draw => None,
        }
    }

    /// The value a stored code stands for.
    pub fn from_code(c: u8) -> Value {
        let d = code::dist(c);
        let known = (d < code::CAP).then_some(d);
        if code::is_win(c) {
            Value::Win(known)
        } else if code::is_loss(c) {
            Value::Loss(known)
        } else {
            Value::Draw
        }
    }

    /// The word `probe` prints: `win 17`, `loss 4`, `draw` (`win`/`loss` alone when the distance
    /// is unknown).
    pub fn text(&self) -> String {
        match self {
            Value::Win(Some(d)) => format!("win {d}"),
            Value::Win(None) => "win".into(),
            Value::Loss(Some(d)) => format!("loss {d}"),
            Value::Loss(None) => "loss".into(),
            Value::Draw => "draw".into(),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

/// The default database directory: `$XDG_CACHE_HOME/checkersbot/egdb`, else
/// `~/.cache/checkersbot/egdb`; `None` if neither variable is set.
pub fn default_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        Some(x) => PathBuf::from(x),
        None => PathBuf::from(std::env::var_os("HOME").filter(|v| !v.is_empty())?).join(".cache"),
    };
    Some(base.join("checkersbot").join("egdb"))
}
