//! Game clocks: a time control (base time, increment, optionally a number of moves per period) and
//! the budget of one move from the time left on the clock.
//!
//! A time control is written as chess clocks are: `BASE+INC` in seconds (`300+3`, `2+0.05`), or
//! `MOVES/BASE+INC` for periods: `40/600+0` gives 600 s for every 40 moves.
//!
//! The budget has a **soft** limit (no new iteration starts unless its expected time, scaled by
//! the search knob `iter_fit`, fits by then) and a **hard** limit (the search stops). With `left`
//! on the clock, `inc` the increment and `m` moves assumed to go (those left in the period, else
//! an estimate that falls from 30 to 15 as the game goes on), and `usable = left - margin` (a
//! margin of 50 ms, at most a quarter of what is left, for the latencies the daemon cannot see:
//! the link, the arm's start):
//!
//! - soft = usable / m + 3/4 inc;
//! - hard = the least of 4 soft, 2/5 usable + 1/2 inc, and 4/5 usable; soft is at most hard.
//!
//! So a move never takes more than 4/5 of what is left (less the margin), and with an increment
//! the clock settles where each move uses about the increment: it cannot run out.
//!
//! ```
//! use checkersbot::engine::clock::TimeControl;
//! use std::time::Duration;
//!
//! let tc: TimeControl = "2+0.05".parse().unwrap();
//! assert_eq!(tc.to_string(), "2+0.05");
//! let b = tc.budget(Duration::from_secs(2), 0);
//! assert!(b.soft <= b.hard && b.hard < Duration::from_secs(1));
//! ```

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// Time kept back from the clock for latencies outside the daemon (at most a quarter of the time
/// left).
pub const MARGIN: Duration = Duration::from_millis(50);

/// The longest base time or increment accepted: 24 hours.
pub const MAX_TIME: Duration = Duration::from_secs(24 * 3600);

/// A time control.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Time at the start (and added at each new period).
    pub base: Duration,
    /// Time added after each move.
    pub inc: Duration,
    /// Moves per period (`None`: the whole game is one period).
    pub moves: Option<u32>,
}

/// How long one move may take.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// No new iteration starts unless it is expected to end by then.
    pub soft: Duration,
    /// The search stops.
    pub hard: Duration,
}

/// A time control that cannot be read (the base time must not be zero).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("clock must be off, BASE+INC or MOVES/BASE+INC in seconds, BASE above 0 (e.g. 300+3, 2+0.05, 40/600+0), not '{0}'")]
pub struct BadTimeControl(pub String);

fn seconds(text: &str) -> Option<Duration> {
    // Digits with at most one point; no sign, no exponent.
    if text.is_empty()
        || !text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        || text.bytes().filter(|&b| b == b'.').count() > 1
        || text == "."
    {
        return None;
    }
    let secs: f64 = text.parse().ok()?;
    let d = Duration::try_from_secs_f64(secs).ok()?;
    (d <= MAX_TIME).then_some(d)
}

fn write_seconds(f: &mut fmt::Formatter<'_>, d: Duration) -> fmt::Result {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        write!(f, "{}", ms / 1000)
    } else {
        let text = format!("{}.{:03}", ms / 1000, ms % 1000);
        f.write_str(text.trim_end_matches('0'))
    }
}

impl FromStr for TimeControl {
    type Err = BadTimeControl;

    fn from_str(text: &str) -> Result<TimeControl, BadTimeControl> {
        let bad = || BadTimeControl(text.chars().take(40).collect());
        let (moves, rest) = match text.split_once('/') {
            Some((m, rest)) => {
                if m.is_empty() || m.len() > 4 || !m.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                let m: u32 = m.parse().map_err(|_| bad())?;
                if m == 0 {
                    return Err(bad());
                }
                (Some(m), rest)
            }
            None => (None, text),
        };
        let (base, inc) = rest.split_once('+').ok_or_else(bad)?;
        let base = seconds(base).ok_or_else(bad)?;
        let inc = seconds(inc).ok_or_else(bad)?;
        // Whole milliseconds: what is written is what is used.
        let ms = |d: Duration| Duration::from_millis(d.as_millis() as u64);
        let tc = TimeControl {
            base: ms(base),
            inc: ms(inc),
            moves,
        };
        if tc.base.is_zero() {
            return Err(bad());
        }
        Ok(tc)
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = self.moves {
            write!(f, "{m}/")?;
        }
        write_seconds(f, self.base)?;
        f.write_str("+")?;
        write_seconds(f, self.inc)
    }
}

impl TimeControl {
    /// Moves assumed to go after `played` moves of this side.
    pub fn moves_to_go(&self, played: u32) -> u32 {
        match self.moves {
            Some(m) => m - played % m,
            None => 30u32.saturating_sub(played / 3).max(15),
        }
    }

    /// The budget of the next move with `left` on the clock after `played` moves of this side.
    pub fn budget(&self, left: Duration, played: u32) -> Budget {
        self.budget_times(left, played, 1.0)
    }

    /// The budget of the next move with its soft limit `factor` times the usual one (1 or more),
    /// and the hard limit from it, within the same caps ([`AfterBook`]).
    pub fn budget_times(&self, left: Duration, played: u32, factor: f64) -> Budget {
        let margin = MARGIN.min(left / 4);
        let usable = left.saturating_sub(margin);
        let soft = usable / self.moves_to_go(played) + self.inc.mul_f64(0.75);
        let soft = if factor > 1.0 {
            soft.mul_f64(factor)
        } else {
            soft
        };
        let hard = (soft * 4)
            .min(usable.mul_f64(0.4) + self.inc / 2)
            .min(usable.mul_f64(0.8));
        let floor = Duration::from_millis(1).min(left / 2);
        let hard = hard.max(floor);
        Budget {
            soft: soft.min(hard),
            hard,
        }
    }

    /// The clock after a move that took `spent` with `left` before it, as the `played`-th move
    /// (counting from 1): the time spent taken off, the increment added, and the base again at the
    /// end of a period. `None` when the time ran out.
    pub fn after_move(&self, left: Duration, spent: Duration, played: u32) -> Option<Duration> {
        let rest = left.checked_sub(spent)?;
        let mut next = rest + self.inc;
        if self.moves.is_some_and(|m| played.is_multiple_of(m)) {
            next += self.base;
        }
        Some(next)
    }
}

/// More time for the first moves out of the book, where most lost games are decided: the first
/// `moves` moves of a game that the book does not answer get `factor` times their usual time.
///
/// Under a game clock both limits of the budget are scaled, within the clock's own caps (a
/// move never takes more than 4/5 of what is left), so the time comes from the later moves. With
/// a time per move, the extra comes only from a bank of what the game's book moves left unspent
/// (a book move costs nothing): a game never takes more than its moves' times added up.
///
/// Written `FACTOR:MOVES`, e.g. `2.5:4`.
///
/// ```
/// use checkersbot::engine::clock::AfterBook;
/// use std::time::Duration;
///
/// let ab: AfterBook = "3:4".parse().unwrap();
/// let ms = Duration::from_millis;
/// // 150 ms in the bank: the move gets its 100 ms and the 150 (at most 2 x 100 more).
/// assert_eq!(ab.movetime(ms(100), ms(150), 0), ms(250));
/// // After four moves out of the book, the usual time.
/// assert_eq!(ab.movetime(ms(100), ms(900), 4), ms(100));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AfterBook {
    /// How many times the usual time, in hundredths (above 100, at most 1000).
    pub percent: u32,
    /// How many moves out of the book (1 to 100).
    pub moves: u32,
}

/// An [`AfterBook`] that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("time after the book must be FACTOR:MOVES, FACTOR above 1 and at most 10, MOVES from 1 to 100 (e.g. 2.5:4), not '{0}'")]
pub struct BadAfterBook(pub String);

impl FromStr for AfterBook {
    type Err = BadAfterBook;

    fn from_str(text: &str) -> Result<AfterBook, BadAfterBook> {
        let bad = || BadAfterBook(text.chars().take(40).collect());
        let (factor, moves) = text.split_once(':').ok_or_else(bad)?;
        let factor: f64 = factor.trim().parse().map_err(|_| bad())?;
        let moves: u32 = moves.trim().parse().map_err(|_| bad())?;
        let fits = factor > 1.0 && factor <= 10.0 && (1..=100).contains(&moves);
        if !fits {
            return Err(bad());
        }
        let percent = (factor * 100.0).round() as u32;
        if percent <= 100 {
            return Err(bad());
        }
        Ok(AfterBook { percent, moves })
    }
}

impl fmt::Display for AfterBook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.factor(), self.moves)
    }
}

impl AfterBook {
    /// How many times the usual time.
    pub fn factor(&self) -> f64 {
        f64::from(self.percent) / 100.0
    }

    /// Whether the move after `out_of_book` moves out of the book gets more time.
    pub fn applies(&self, out_of_book: u32) -> bool {
        out_of_book < self.moves
    }

    /// The time of a move with a time per move `movetime`, `bank` left unspent by the game's book
    /// moves, after `out_of_book` moves out of the book: the move time and as much of the bank as
    /// `factor` allows.
    pub fn movetime(&self, movetime: Duration, bank: Duration, out_of_book: u32) -> Duration {
        if !self.applies(out_of_book) {
            return movetime;
        }
        movetime + bank.min(movetime.mul_f64(self.factor() - 1.0))
    }

    /// The budget of a move under `tc` with `left` on the clock after `played` moves, after
    /// `out_of_book` moves out of the book: the clock's budget scaled by `factor`, within its caps.
    pub fn budget(
        &self,
        tc: &TimeControl,
        left: Duration,
        played: u32,
        out_of_book: u32,
    ) -> Budget {
        if !self.applies(out_of_book) {
            return tc.budget(left, played);
        }
        tc.budget_times(left, played, self.factor())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_read_and_print_the_same() {
        for text in ["300+3", "2+0.05", "40/600+0", "0.5+0.125", "1/10+0"] {
            let tc: TimeControl = text.parse().unwrap();
            assert_eq!(tc.to_string(), text);
        }
        let tc: TimeControl = "40/600+0".parse().unwrap();
        assert_eq!(tc.moves, Some(40));
        assert_eq!(tc.base, Duration::from_secs(600));
        for bad in [
            "", "300", "+3", "3+", "0+0", "0+1", "-1+0", "+40/60+0", "1e3+0", "0/60+0", "x/60+0",
            "1..2+0", "90000+0", "1+2+3", ".+1",
        ] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    /// A simulated game of 300 moves: whatever the search takes up to its hard limit, the clock
    /// never runs out, and a move never takes more than 4/5 of what is left.
    #[test]
    fn the_clock_never_runs_out() {
        for text in ["2+0.05", "1+0", "60+0", "40/60+0", "0.2+0.01", "0.01+0"] {
            let tc: TimeControl = text.parse().unwrap();
            let mut left = tc.base;
            for played in 1..=300 {
                let b = tc.budget(left, played - 1);
                assert!(b.soft <= b.hard, "{text}: {b:?}");
                assert!(
                    b.hard <= left.mul_f64(0.8).max(left / 2),
                    "{text} move {played}: {b:?} with {left:?}"
                );
                // The worst case: every move takes its hard limit.
                left = tc
                    .after_move(left, b.hard, played)
                    .unwrap_or_else(|| panic!("{text}: out of time at move {played}"));
            }
        }
    }

    #[test]
    fn budgets_use_the_time_sensibly() {
        let tc: TimeControl = "2+0.05".parse().unwrap();
        let b = tc.budget(Duration::from_secs(2), 0);
        // 1950 ms / 30 + 37.5 ms
        assert_eq!(b.soft, Duration::from_micros(102_500));
        assert_eq!(b.hard, Duration::from_millis(410));
        let tc: TimeControl = "40/600+0".parse().unwrap();
        // The last move of a period may not take everything.
        let b = tc.budget(Duration::from_secs(10), 39);
        assert!(b.hard <= Duration::from_secs(8));
    }

    #[test]
    fn time_after_the_book_reads_and_stays_within_the_clock() {
        let ab: AfterBook = "2.5:4".parse().unwrap();
        assert_eq!(ab.to_string(), "2.5:4");
        for bad in [
            "", "2", "1:4", "0.5:4", "11:4", "2:0", "2:101", "x:4", "2:x", "nan:3",
        ] {
            assert!(bad.parse::<AfterBook>().is_err(), "{bad}");
        }
        let ms = Duration::from_millis;
        // The bank limits the extra time; so does the factor.
        assert_eq!(ab.movetime(ms(100), ms(0), 0), ms(100));
        assert_eq!(ab.movetime(ms(100), ms(60), 3), ms(160));
        assert_eq!(ab.movetime(ms(100), ms(1000), 3), ms(250));
        assert_eq!(ab.movetime(ms(100), ms(1000), 4), ms(100));
        // Under a clock: more than the usual budget, never past the clock's caps.
        let tc: TimeControl = "10+0.1".parse().unwrap();
        for left in [ms(10_000), ms(2_000), ms(300), ms(60)] {
            let usual = tc.budget(left, 5);
            let more = ab.budget(&tc, left, 5, 0);
            assert!(
                more.soft >= usual.soft && more.hard >= usual.hard,
                "{left:?}"
            );
            assert!(more.soft <= more.hard);
            assert!(
                more.hard <= left.mul_f64(0.8).max(usual.hard),
                "{left:?}: {more:?}"
            );
            assert_eq!(ab.budget(&tc, left, 5, 4), usual);
        }
        let more = ab.budget(&tc, ms(10_000), 5, 0);
        assert_eq!(more.soft, tc.budget(ms(10_000), 5).soft.mul_f64(2.5));
    }
}
