//! The ranges of the engine's settings, in one place for the command line and the daemon protocol,
//! so that `serve --threads N` and `set threads N` accept the same values.

use std::ops::RangeInclusive;

/// Search threads.
pub const THREADS: RangeInclusive<usize> = 1..=64;
/// Transposition table size in MiB (the machine may hold less: see [`crate::engine::memory`]).
pub const HASH_MB: RangeInclusive<usize> = 1..=4096;
/// Time per move in milliseconds; 0 means no time limit.
pub const MOVETIME_MS: RangeInclusive<u64> = 0..=3_600_000;
/// Time left on the bot's clock in milliseconds (`set timeleft`): up to 24 hours.
pub const TIMELEFT_MS: RangeInclusive<u64> = 0..=86_400_000;
/// Depth limit in plies; 0 means no depth limit.
pub const DEPTH: RangeInclusive<u32> = 0..=100;
/// Node budget of a search; 0 means no node limit (up to a million million: days of search).
pub const NODES: RangeInclusive<u64> = 0..=1_000_000_000_000;
/// Depth of `perft`: 8x8 counts beyond 20 plies would take days.
pub const PERFT_DEPTH: RangeInclusive<u32> = 1..=20;
/// Lines (best moves) of an analysis.
pub const MULTIPV: RangeInclusive<usize> = 1..=20;

/// Reads `text` as a number of `range`, with a message naming the setting and the range.
///
/// ```
/// use checkersbot::engine::bounds::{parse_in, THREADS};
/// assert_eq!(parse_in("threads", "8", &THREADS), Ok(8));
/// assert_eq!(
///     parse_in("threads", "65", &THREADS),
///     Err("threads must be from 1 to 64, not 65".to_string())
/// );
/// ```
pub fn parse_in<T>(name: &str, text: &str, range: &RangeInclusive<T>) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    let v: T = text.trim().parse().map_err(|_| {
        let quoted: String = text.chars().take(40).collect();
        format!(
            "{name} must be a number from {} to {}, not '{quoted}'",
            range.start(),
            range.end()
        )
    })?;
    if !range.contains(&v) {
        return Err(format!(
            "{name} must be from {} to {}, not {v}",
            range.start(),
            range.end()
        ));
    }
    Ok(v)
}
