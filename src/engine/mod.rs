//! The engine as a component: configure it, give it a position, the game's history and limits, and
//! it returns the best move it found, reporting progress through a callback with plain data.
//!
//! The engine knows nothing of protocols or terminals. A search can be stopped from another thread
//! through the `stop` flag; it then answers with the best move found so far. Time management: the
//! move time is a per-move budget, and time left over is lost, so the search uses all of it: it
//! starts iteration after iteration until the hard limit (the move time less a millisecond,
//! polled every 1024 nodes) stops one, and that unfinished iteration still counts (the root moves
//! it finished can replace the best move). With a game clock ([`clock`]) time saved is kept for
//! later moves, so the iterations stop at a soft limit below the move time, which stays the hard
//! one ([`Engine::search_soft`]): between iterations the search estimates the next one's time from
//! the growth of the last two and starts it only if 40% of it is expected to fit. Both shares
//! are search knobs (`move_fit`, default 0, and `iter_fit`, default 40). The soft limit itself
//! stretches while the root is unsettled (its best move changing from iteration to iteration,
//! its score falling) and shrinks once it has settled, within the hard limit (knob `time_scale`).
//!
//! With several threads (Lazy SMP) every thread searches the whole tree, sharing the table; helper
//! threads start one ply apart, after each iteration move on to at least one ply beyond the main
//! thread's (so they keep ahead of it rather than repeat its work), and stop slightly before the
//! hard limit, so that joining them never delays the answer. The main thread takes over a helper's deeper completed iteration, and a
//! depth-limited search ends when any thread completes the last iteration. One thread and a depth
//! or node limit give the same result every time.
//!
//! ```
//! use checkersbot::rules::any_size::AnyPosition;
//! use checkersbot::engine::{Engine, EngineConfig, Limits};
//! use checkersbot::rules::geometry::BoardSize;
//! use checkersbot::rules::position::Side;
//! use std::sync::atomic::AtomicBool;
//!
//! let mut engine = Engine::new(EngineConfig::default());
//! let start = AnyPosition::initial(BoardSize::S8, Side::Player);
//! let limits = Limits { depth: Some(6), ..Limits::default() };
//! let result = engine.search(&start, &[], &limits, &AtomicBool::new(false), &mut |_| {});
//! assert!(result.best.is_some());
//! ```
//!
//! Inside: [`eval`] (the static evaluation and its weights), [`tt`] (the transposition table) and
//! [`search`] (alpha-beta, generic over the board size); this module is their size-independent
//! facade, with the limits and time management. [`book`] is the opening book: a root it holds
//! (on its board size) is answered from it before any search ([`Engine::book_move`],
//! [`StopReason::Book`]).

pub mod book;
pub mod bounds;
pub mod clock;
pub mod egdb;
pub mod eval;
pub mod memory;
pub mod search;
pub mod tt;

use crate::engine::book::Book;
use crate::engine::egdb::{Egdb, Value};
use crate::engine::eval::{Evaluator, LearnedSet, Weights};
pub use crate::engine::search::SearchParams;
use crate::engine::search::{
    egdb_score, xorshift, Counters, Iteration, Searcher, StopControl, EGDB_BOUND, EGDB_WIN,
    FULL_WINDOW, MAX_PLY, WIN, WIN_BOUND,
};
use crate::engine::tt::{TableError, Tt};
use crate::rng::Rng;
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::geometry::Geometry;
use crate::rules::position::{Move, Position};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Nodes a second one search thread visits on 8x8 on this project's reference machine (about 2.2
/// to 3 million in the opening, `checkersbot search --movetime 1000`): how
/// [`Engine::expected_nodes`] turns a move time into nodes, to compare with a book record's budget.
pub const NOMINAL_NPS: u64 = 2_500_000;

/// How long and how deep to search. Unset limits do not apply; with none at all the search runs
/// to the maximum depth or until stopped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Time for this move: the answer comes within it.
    pub movetime: Option<Duration>,
    /// Deepest iteration.
    pub depth: Option<u32>,
    /// Node budget.
    pub nodes: Option<u64>,
}

impl Limits {
    /// The hard deadline of a search started at `start`: the move time less a millisecond (a tenth
    /// of it under 10 ms), so that the answer is out before the move time ends.
    pub fn deadline(&self, start: Instant) -> Option<Instant> {
        self.movetime.map(|t| {
            let margin = if t >= Duration::from_millis(10) {
                Duration::from_millis(1)
            } else {
                t / 10
            };
            start + t.saturating_sub(margin)
        })
    }
}

impl Limits {
    /// About how many nodes a search with these limits visits on `threads` threads, if they bound
    /// it: 8 million a second a thread with a move time; 3.5 million at depth 17 on 8x8, 1.6
    /// times more a ply, with a depth; the node limit; the least of those given.
    pub fn expected_nodes(&self, threads: usize) -> Option<u64> {
        let by_time = self
            .movetime
            .map(|t| (t.as_secs_f64() * 8e6 * threads.max(1) as f64) as u64);
        let by_depth = self
            .depth
            .map(|d| (3.5e6 * 1.6f64.powi(d.min(60) as i32 - 17)) as u64);
        [by_time, by_depth, self.nodes].into_iter().flatten().min()
    }
}

/// The table, MiB, for searches with `limits` on `threads` threads when no size is given: sized
/// for the nodes they are expected to visit ([`Limits::expected_nodes`],
/// [`memory::table_mb_for`]): 16 MiB up to about a second a move or depth 17, 32 MiB at 1 s,
/// 96 MiB to depth 21, 160 MiB at 5 s, the most the machine spares (at most 256 MiB, an eighth
/// of its memory) without limits.
///
/// ```
/// use checkersbot::engine::{default_hash_mb, Limits};
/// use std::time::Duration;
/// let at = |ms| Limits { movetime: Some(Duration::from_millis(ms)), ..Limits::default() };
/// assert!(default_hash_mb(&at(100), 1) <= 16);
/// assert!(default_hash_mb(&at(5000), 1) >= default_hash_mb(&at(1000), 1));
/// ```
pub fn default_hash_mb(limits: &Limits, threads: usize) -> usize {
    memory::table_mb_for(limits.expected_nodes(threads))
}

/// Engine settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Search threads (1 = deterministic).
    pub threads: usize,
    /// Hand evaluation weights (also the fallback on sizes the learned weights are not for).
    pub weights: Weights,
    /// Learned evaluation weights by board size; the board's size's weights, if the set has them,
    /// evaluate its positions. The default is the built-in weights ([`eval::default_learned`]);
    /// the empty set is the hand evaluation.
    pub learned: LearnedSet,
    /// Seed for choosing among equally good moves; `None` always takes the first.
    pub seed: Option<u64>,
    /// Endgame database: probed in the tree, and a root it holds is answered from it.
    pub egdb: Option<Arc<Egdb>>,
    /// Search settings (pruning and reduction margins); the defaults are the engine's own.
    pub search: SearchParams,
    /// Opening book: a root it holds (on its board size) is answered from it without a search.
    pub book: Option<Arc<Book>>,
    /// How far below the best book move, hundredths of a man, a book move may be and still be
    /// chosen at random (with a seed; see [`Book::choose`]); 0 plays the best.
    pub book_margin: i32,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            hash_mb: 16,
            threads: 1,
            weights: Weights::default(),
            learned: eval::default_learned(),
            seed: None,
            egdb: None,
            search: SearchParams::default(),
            book: None,
            book_margin: 0,
        }
    }
}

/// A score from the searching side's point of view.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Score(pub i32);

impl Score {
    /// Plies to conversion (from the root) if the score is an endgame-database win (positive) or
    /// loss (negative).
    pub fn egdb_plies(self) -> Option<i32> {
        if self.0 > EGDB_BOUND && self.0 <= WIN_BOUND {
            Some(EGDB_WIN - self.0)
        } else if self.0 < -EGDB_BOUND && self.0 >= -WIN_BOUND {
            Some(-(EGDB_WIN + self.0))
        } else {
            None
        }
    }

    /// Plies to the end of the game if the score is a forced win (positive) or loss (negative).
    pub fn plies_to_end(self) -> Option<i32> {
        if self.0 > WIN_BOUND {
            Some(WIN - self.0)
        } else if self.0 < -WIN_BOUND {
            Some(-(WIN + self.0))
        } else {
            None
        }
    }
}

impl fmt::Display for Score {
    /// `cp 35` for an evaluation (hundredths of a man), `win 7` / `loss 4` (plies) when proven,
    /// `dbwin 9` / `dbloss 6` (plies to conversion) when the endgame database says so.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.plies_to_end(), self.egdb_plies()) {
            (Some(p), _) if p >= 0 => write!(f, "win {p}"),
            (Some(p), _) => write!(f, "loss {}", -p),
            (None, Some(p)) if p >= 0 => write!(f, "dbwin {p}"),
            (None, Some(p)) => write!(f, "dbloss {}", -p),
            (None, None) => write!(f, "cp {}", self.0),
        }
    }
}

/// Progress of a search, reported after each iteration and with the result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Score of the best move.
    pub score: Score,
    /// Nodes of all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Time since the search began.
    pub time: Duration,
    /// Transposition-table hits.
    pub tt_hits: u64,
    /// Transposition-table cut-offs.
    pub tt_cutoffs: u64,
    /// Beta cut-offs.
    pub beta_cutoffs: u64,
    /// Principal variation.
    pub pv: Vec<MoveInfo>,
    /// Permille of the table written during this search.
    pub hashfull: u32,
    /// Positions valued by the endgame database (the root counts one when its move came from
    /// the database).
    pub egdb_hits: u64,
    /// The move came from the opening book (no search).
    pub book: bool,
}

/// Why a search ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The side to move had no legal move (it has lost).
    NoMoves,
    /// Only one legal move: answered at once.
    OnlyMove,
    /// A forced win or loss was proven.
    Proven,
    /// The depth limit was reached.
    Depth,
    /// The node limit was reached.
    Nodes,
    /// The time ran out.
    Time,
    /// Stopped from outside.
    Stopped,
    /// The endgame database holds the position: its best move was played without a search.
    Egdb,
    /// The opening book holds the position: one of its moves was played without a search.
    Book,
}

impl StopReason {
    /// A short word for logs and info lines.
    pub fn word(self) -> &'static str {
        match self {
            StopReason::NoMoves => "nomoves",
            StopReason::OnlyMove => "onlymove",
            StopReason::Proven => "proven",
            StopReason::Depth => "depth",
            StopReason::Nodes => "nodes",
            StopReason::Time => "time",
            StopReason::Stopped => "stopped",
            StopReason::Egdb => "egdb",
            StopReason::Book => "book",
        }
    }
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play (`None` only when there is no legal move).
    pub best: Option<MoveInfo>,
    /// Final statistics.
    pub info: Info,
    /// Why the search ended.
    pub reason: StopReason,
}

/// The engine: a transposition table and settings, kept across the moves of a game.
#[derive(Debug)]
pub struct Engine {
    tt: Tt,
    config: EngineConfig,
    rng: u64,
}

impl Engine {
    /// An engine with the given settings.
    pub fn new(config: EngineConfig) -> Engine {
        Engine {
            tt: {
                let mut tt = Tt::new_with(
                    config.hash_mb,
                    config.search.large_pages,
                    config.search.tt_ways,
                );
                tt.set_age_weight(config.search.tt_age);
                tt
            },
            rng: config.seed.unwrap_or(0) ^ 0x5DEE_CE66_D1CE_B00C,
            config,
        }
    }

    /// An engine with the given settings whose table is checked against the memory the machine
    /// has ([`memory::table_room`]) and allocated with every page written, or the reason it
    /// cannot be.
    pub fn try_new(config: EngineConfig) -> Result<Engine, TableError> {
        let tt = checked_table(config.hash_mb, config.threads, 0, &config.search)?;
        Ok(Engine {
            tt,
            rng: config.seed.unwrap_or(0) ^ 0x5DEE_CE66_D1CE_B00C,
            config,
        })
    }

    /// The settings.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The search settings (see [`SearchParams`]).
    pub fn search_params(&self) -> &SearchParams {
        &self.config.search
    }

    /// Changes the search settings, for experiments and benches; the defaults are the engine's own.
    pub fn set_search_params(&mut self, params: SearchParams) {
        self.config.search = params;
        self.tt.set_age_weight(params.tt_age);
    }

    /// Resizes the transposition table (its contents are lost).
    pub fn set_hash_mb(&mut self, mb: usize) {
        self.config.hash_mb = mb;
        let p = &self.config.search;
        self.tt = Tt::new_with(mb, p.large_pages, p.tt_ways);
        self.tt.set_age_weight(p.tt_age);
    }

    /// Resizes the transposition table after checking that the machine can hold it; returns the
    /// time the allocation took. When refused, the old table is kept.
    pub fn try_set_hash_mb(&mut self, mb: usize) -> Result<Duration, TableError> {
        let start = Instant::now();
        let old_bytes = self.tt.bytes() as u64;
        check_room(mb, self.config.threads, old_bytes)?;
        let old_mb = self.config.hash_mb;
        // Release the old table first: both at once may not fit.
        self.tt = Tt::new(0);
        match table(mb, self.config.threads, &self.config.search) {
            Ok(tt) => {
                self.tt = tt;
                self.config.hash_mb = mb;
                Ok(start.elapsed())
            }
            Err(e) => {
                match table(old_mb, self.config.threads, &self.config.search) {
                    Ok(tt) => self.tt = tt,
                    Err(e2) => tracing::error!("cannot restore the old table: {e2}; 1 KiB kept"),
                }
                Err(e)
            }
        }
    }

    /// Sets the number of search threads (at least 1).
    pub fn set_threads(&mut self, threads: usize) {
        self.config.threads = threads.max(1);
    }

    /// Sets the evaluation weights.
    pub fn set_weights(&mut self, weights: Weights) {
        self.config.weights = weights;
    }

    /// Evaluates with these learned weights (each on its board size), or with the hand weights.
    pub fn set_learned(&mut self, learned: LearnedSet) {
        self.config.learned = learned;
    }

    /// Uses this endgame database (or none).
    pub fn set_egdb(&mut self, egdb: Option<Arc<Egdb>>) {
        self.config.egdb = egdb;
    }

    /// Uses this opening book (or none).
    pub fn set_book(&mut self, book: Option<Arc<Book>>) {
        self.config.book = book;
    }

    /// Sets how far below the best a book move may be chosen ([`EngineConfig::book_margin`]).
    pub fn set_book_margin(&mut self, margin: i32) {
        self.config.book_margin = margin;
    }

    /// The book's answer for `pos`, if the engine has a book for its size that holds it: a move
    /// within the book margin of the best, at random (with `rng`, else with the engine's seed if
    /// it has one: the same seed gives the same choices), else the best. The result has
    /// [`StopReason::Book`], the move's book value as its score and the move as its line.
    ///
    /// A leaf of the book whose own search had a smaller node budget than this search is expected
    /// to have ([`Engine::expected_nodes`] of `limits` and `soft`) is not used: the engine's own
    /// search is the better move then.
    pub fn book_move(
        &mut self,
        pos: &AnyPosition,
        limits: &Limits,
        soft: Option<Duration>,
        rng: Option<&mut Rng>,
    ) -> Option<SearchResult> {
        let start = Instant::now();
        let min_nodes = self.expected_nodes(limits, soft);
        let book = self.config.book.as_ref()?;
        if book.size() != pos.size() {
            return None;
        }
        // Look first, so that a position out of the book leaves the generators as they were.
        book.moves_within(pos, min_nodes)?;
        let mut own = if rng.is_none() && self.config.seed.is_some() {
            self.rng = xorshift(self.rng);
            Some(Rng::new(self.rng))
        } else {
            None
        };
        let rng = rng.or(own.as_mut());
        let m = book.choose_within(pos, self.config.book_margin, rng, min_nodes)?;
        let info = Info {
            depth: 0,
            score: Score(i32::from(m.value)),
            pv: vec![m.mv.clone()],
            time: start.elapsed(),
            book: true,
            ..Info::default()
        };
        Some(SearchResult {
            best: Some(m.mv),
            info,
            reason: StopReason::Book,
        })
    }

    /// About how many nodes a search with these limits will visit: the node budget if there is
    /// one, else the time (the soft limit if there is one) at [`NOMINAL_NPS`] a thread; 0 with
    /// a depth limit only (any book record is used then), and `u64::MAX` with no limit at all.
    pub fn expected_nodes(&self, limits: &Limits, soft: Option<Duration>) -> u64 {
        if let Some(n) = limits.nodes {
            return n;
        }
        match soft.or(limits.movetime) {
            Some(t) => {
                (t.as_secs_f64() * NOMINAL_NPS as f64 * self.config.threads.max(1) as f64) as u64
            }
            None if limits.depth.is_some() => 0,
            None => u64::MAX,
        }
    }

    /// Sets or clears the seed for choosing among equal moves.
    pub fn set_seed(&mut self, seed: Option<u64>) {
        self.config.seed = seed;
        self.rng = seed.unwrap_or(0) ^ 0x5DEE_CE66_D1CE_B00C;
    }

    /// Forgets what earlier searches learned (call at a new game for reproducible results).
    pub fn new_game(&mut self) {
        self.clear_table();
    }

    /// Clears the table with the engine's threads; returns the time it took.
    pub fn clear_table(&mut self) -> Duration {
        let start = Instant::now();
        self.tt.clear_with(self.config.threads);
        start.elapsed()
    }

    /// Bytes of the transposition table.
    pub fn table_bytes(&self) -> usize {
        self.tt.bytes()
    }

    /// Searches `pos`. `history` holds the keys ([`AnyPosition::hash_key`]) of the game's earlier
    /// positions since the last capture or man move, oldest first, not including `pos`; the search
    /// scores a repetition of any of them, or 80 plies without progress, as a draw.
    pub fn search(
        &mut self,
        pos: &AnyPosition,
        history: &[u64],
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        self.search_soft(pos, history, limits, None, stop, on_info)
    }

    /// [`Engine::search`] with a soft time limit below the move time (a clock's budget, see
    /// [`clock`]): no new iteration starts unless `iter_fit` percent of its expected time fits by
    /// `soft` ([`SearchParams::iter_fit`]); the move time
    /// stays the hard limit. `None`: the move time is both, and iterations start while
    /// `move_fit` percent of their expected time fits ([`SearchParams::move_fit`]; by default
    /// until the move time is up).
    pub fn search_soft(
        &mut self,
        pos: &AnyPosition,
        history: &[u64],
        limits: &Limits,
        soft: Option<Duration>,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        if let Some(r) = self.book_move(pos, limits, soft, None) {
            on_info(&r.info);
            return r;
        }
        let rng = if self.config.seed.is_some() {
            self.rng = xorshift(self.rng);
            Some(self.rng)
        } else {
            None
        };
        let tt = &self.tt;
        let cfg = &self.config;
        let params = self.config.search;
        crate::with_position!(pos, p => search_position(tt, cfg, params, p, history, limits, soft, stop, on_info, rng, None))
    }

    /// Searches `pos` as [`Engine::search`] does, but among the root moves not in `exclude` only,
    /// and always with a search (no answer at once for an only move, no root answer from the
    /// endgame database once a move is excluded): the building block of [`Engine::analyse`].
    /// With every move excluded the result has no move ([`StopReason::NoMoves`]).
    pub fn search_excluding(
        &mut self,
        pos: &AnyPosition,
        history: &[u64],
        limits: &Limits,
        exclude: &[MoveInfo],
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&Info),
    ) -> SearchResult {
        let tt = &self.tt;
        let cfg = &self.config;
        let params = self.config.search;
        crate::with_position!(pos, p => search_position(tt, cfg, params, p, history, limits, None, stop, on_info, None, Some(exclude)))
    }

    /// The best `lines` root moves of `pos`, best first, each with its score and principal
    /// variation (multi-PV by exclusion: the k-th line is a search of the root moves the earlier
    /// lines did not play, each with `limits`). Fewer lines when the position has fewer moves, or
    /// when `stop` is raised (the line under way is kept if it has a move). Deterministic with one
    /// thread and a depth limit.
    ///
    /// ```
    /// use checkersbot::rules::any_size::AnyPosition;
    /// use checkersbot::engine::{Engine, EngineConfig, Limits};
    /// use checkersbot::rules::geometry::BoardSize;
    /// use checkersbot::rules::position::Side;
    /// use std::sync::atomic::AtomicBool;
    ///
    /// let mut engine = Engine::new(EngineConfig::default());
    /// let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
    /// let limits = Limits { depth: Some(4), ..Limits::default() };
    /// let lines = engine.analyse(&start, &[], &limits, 3, &AtomicBool::new(false));
    /// assert_eq!(lines.len(), 3);
    /// assert!(lines[0].info.score >= lines[1].info.score);
    /// assert_ne!(lines[0].best, lines[1].best);
    /// ```
    pub fn analyse(
        &mut self,
        pos: &AnyPosition,
        history: &[u64],
        limits: &Limits,
        lines: usize,
        stop: &AtomicBool,
    ) -> Vec<SearchResult> {
        let mut found: Vec<MoveInfo> = Vec::new();
        let mut out = Vec::new();
        while out.len() < lines {
            let r = self.search_excluding(pos, history, limits, &found, stop, &mut |_| {});
            let Some(best) = r.best.clone() else { break };
            found.push(best);
            out.push(r);
            if stop.load(Ordering::Relaxed) {
                break;
            }
        }
        // A later line searched with less knowledge may score above an earlier one: keep the
        // order by score (stable, so equal scores keep the search's order).
        out.sort_by_key(|r| std::cmp::Reverse(r.info.score));
        out
    }
}

/// Refuses a table of `mb` MiB that the machine cannot hold now (`current` bytes being freed
/// first).
pub fn check_room(mb: usize, threads: usize, current: u64) -> Result<(), TableError> {
    let bytes = Tt::bytes_for(mb) as u64;
    match memory::table_room(current, threads) {
        Some((room, limit)) if bytes > room => Err(TableError::TooBig {
            mib: mb,
            room,
            limit,
        }),
        _ => Ok(()),
    }
}

fn checked_table(
    mb: usize,
    threads: usize,
    current: u64,
    params: &SearchParams,
) -> Result<Tt, TableError> {
    check_room(mb, threads, current)?;
    table(mb, threads, params)
}

/// A table of the shape the search settings ask for (`large_pages`, `tt_ways`).
fn table(mb: usize, threads: usize, params: &SearchParams) -> Result<Tt, TableError> {
    let mut tt = Tt::try_new_with(mb, threads, params.large_pages, params.tt_ways)?;
    tt.set_age_weight(params.tt_age);
    Ok(tt)
}

/// Expected time of the next iteration from the last two: the last one times their growth factor
/// (clamped to 1.5..4; 2.5 when there is only one).
fn next_iteration_estimate(before: Option<Duration>, last: Option<Duration>) -> Duration {
    let Some(last) = last else {
        return Duration::ZERO;
    };
    let growth = match before {
        Some(b) if b > Duration::from_micros(200) => {
            (last.as_secs_f64() / b.as_secs_f64()).clamp(1.5, 4.0)
        }
        _ => 2.5,
    };
    last.mul_f64(growth)
}

/// How long to think under a soft limit, from how settled the root is: the soft limit is scaled
/// by [`Stability::factor`] (search knob `time_scale`). Fed the best move and score of each
/// completed iteration; from depth [`Stability::FROM_DEPTH`] on, a change of best move adds to
/// a decaying count of changes and a score below the last two iterations' average counts as a
/// drop.
///
/// - settled (the same best move for several iterations, the score not falling): 0.8;
/// - the best move changed in the last iteration: about 1.4, twice running: about 1.7;
/// - the score fell by half a man or more: the above times 1.5; in all at most 2.2.
///
/// (A first version settled at 0.6 and changed by 0.6 a change: level with no scaling over 200
/// games at a 0.5+0.1 clock, 43-46-111, using 12% less time; see docs/experiments/time-use.md.)
#[derive(Clone, Debug)]
struct Stability<M> {
    best: Option<M>,
    /// Changes of best move, halved at each iteration.
    changes: f64,
    /// The last two iterations' scores.
    scores: (Option<i32>, Option<i32>),
    /// How far the score fell below the last two iterations' average, hundredths of a man.
    drop: i32,
}

impl<M: PartialEq + Clone> Stability<M> {
    /// Iterations shallower than this are too quick to say anything.
    const FROM_DEPTH: u32 = 5;

    fn new() -> Stability<M> {
        Stability {
            best: None,
            changes: 0.0,
            scores: (None, None),
            drop: 0,
        }
    }

    fn update(&mut self, depth: u32, best: Option<&M>, score: i32) {
        let changed = self.best.is_some() && best.is_some() && self.best.as_ref() != best;
        self.best = best.cloned();
        if depth >= Self::FROM_DEPTH {
            self.changes = self.changes * 0.5 + if changed { 1.0 } else { 0.0 };
            self.drop = match self.scores {
                (Some(a), Some(b)) if a.abs() < EGDB_BOUND && b.abs() < EGDB_BOUND => {
                    ((a + b) / 2 - score).max(0)
                }
                _ => 0,
            };
        }
        self.scores = (self.scores.1, Some(score));
    }

    /// The factor for the soft limit.
    fn factor(&self) -> f64 {
        let instability = 0.8 + 0.6 * self.changes.min(2.0);
        let drop = f64::from(self.drop.min(50)) / 50.0;
        (instability * (1.0 + 0.5 * drop)).clamp(0.8, 2.2)
    }
}

fn moves_info<G: Geometry>(moves: &[Move<G::B>]) -> Vec<MoveInfo> {
    moves.iter().map(MoveInfo::of::<G>).collect()
}

#[allow(clippy::too_many_arguments)]
fn search_position<G: Geometry>(
    tt: &Tt,
    cfg: &EngineConfig,
    params: SearchParams,
    root: &Position<G>,
    history: &[u64],
    limits: &Limits,
    soft: Option<Duration>,
    stop: &AtomicBool,
    on_info: &mut dyn FnMut(&Info),
    rng: Option<u64>,
    exclude: Option<&[MoveInfo]>,
) -> SearchResult {
    let start = Instant::now();
    tt.new_search();
    let mut moves = root.legal_moves();
    if let Some(exclude) = exclude {
        moves.retain(|m| !exclude.contains(&MoveInfo::of::<G>(m)));
    }
    let analysing = exclude.is_some();
    let excluding = exclude.is_some_and(|e| !e.is_empty());
    let mut info = Info::default();
    if moves.is_empty() {
        info.score = Score(-WIN);
        return SearchResult {
            best: None,
            info,
            reason: StopReason::NoMoves,
        };
    }
    // A root the database holds is answered from it, unless its distance is not stored (a
    // win/loss/draw-only slice): then the search, reading the database below the root, finds
    // the way to a conversion. Never while analysing with moves excluded.
    let mut from_db = cfg
        .egdb
        .as_ref()
        .filter(|_| !excluding)
        .and_then(|db| db.best_move(root))
        .filter(|(_, v)| !matches!(v, Value::Win(None) | Value::Loss(None)));
    // A drawn root with `egdb_draw`: the search chooses among the moves that keep the draw (by
    // who presses, see `SearchParams::egdb_draw`), where it has more than one.
    let mut drawn_root = false;
    if let (Some((_, Value::Draw)), Some(db)) = (from_db, cfg.egdb.as_ref()) {
        if params.egdb_draw > 0 {
            let drawing: Vec<_> = moves
                .iter()
                .copied()
                .filter(|m| db.probe(&root.play(m)) == Some(Value::Draw))
                .collect();
            if drawing.len() > 1 {
                moves = drawing;
                from_db = None;
                drawn_root = true;
            }
        }
    }
    if let Some((mv, v)) = from_db {
        info.depth = 1;
        info.score = Score(egdb_score(v, 0));
        info.pv = vec![MoveInfo::of::<G>(&mv)];
        info.nodes = 1;
        info.egdb_hits = 1;
        info.time = start.elapsed();
        on_info(&info);
        return SearchResult {
            best: info.pv.first().cloned(),
            info,
            reason: StopReason::Egdb,
        };
    }
    if moves.len() == 1 && !analysing {
        info.pv = moves_info::<G>(&moves);
        info.time = start.elapsed();
        let best = info.pv.first().cloned();
        return SearchResult {
            best,
            info,
            reason: StopReason::OnlyMove,
        };
    }
    let deadline = limits.deadline(start);
    // Helpers stop a little earlier, so that joining them never delays the answer.
    let helper_deadline = limits.movetime.and_then(|t| {
        let early = (t / 50).min(Duration::from_millis(2));
        deadline.map(|d| d.checked_sub(early).unwrap_or(d))
    });
    // The soft limit scaled by the root's stability (with `time_scale`), never past the move time.
    let budget_end = |scale: f64| {
        limits
            .movetime
            .map(|t| start + soft.map_or(t, |s| s.mul_f64(scale).min(t)))
    };
    let mut stability = Stability::new();
    let mut stability_depth = 0;
    // The share of the next iteration's expected time that must fit by `budget_end`: a clock's
    // soft limit keeps saved time for later moves, a bare move time loses it.
    let fit = f64::from(if soft.is_some() {
        params.iter_fit
    } else {
        params.move_fit
    }) / 100.0;
    let max_depth = limits
        .depth
        .unwrap_or(MAX_PLY as u32 - 8)
        .clamp(1, MAX_PLY as u32 - 8);
    let evaluator = Evaluator::<G>::with_learned(cfg.weights.clone(), &cfg.learned);
    let helpers_stop = AtomicBool::new(false);
    // Set by a helper that completed the last iteration: the main thread then stops and takes it.
    let helper_done = AtomicBool::new(false);
    // The deepest iteration a helper has completed.
    let helper_best: Mutex<Option<Iteration<G::B>>> = Mutex::new(None);
    let shared_nodes = AtomicU64::new(0);
    let threads = cfg.threads.max(1);

    // The depth the main thread is searching: a helper that finishes an iteration moves on to one
    // ply beyond it, so that the helpers keep ahead instead of repeating the main thread's work.
    let main_depth = AtomicU32::new(1);
    let mut result = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for t in 1..threads {
            let ev = &evaluator;
            let hs = &helpers_stop;
            let sn = &shared_nodes;
            let hd = &helper_done;
            let hb = &helper_best;
            let md = &main_depth;
            let order0 = moves.clone();
            handles.push(scope.spawn(move || {
                let ctl = StopControl {
                    stop,
                    helpers_stop: hs,
                    deadline: helper_deadline,
                    node_limit: limits.nodes,
                    shared_nodes: sn,
                };
                let mut s = Searcher::new(tt, ev, ctl, history, t as u64, params);
                s.set_egdb(cfg.egdb.as_deref());
                s.set_drawn_root(drawn_root);
                s.set_root(root);
                let mut order = order0;
                // Helpers start at different depths so that threads fill the table ahead of
                // each other.
                let mut d = 1 + (t as u32 % 2);
                let mut prev = None;
                while d <= max_depth {
                    let (it, done) = aspiration(&mut s, root, &mut order, d, prev, &mut None);
                    let Some(it) = it else { break };
                    if !done || s.aborted() {
                        break;
                    }
                    prev = Some(it.score);
                    if let Ok(mut best) = hb.lock() {
                        if best.as_ref().is_none_or(|b| b.depth < d) {
                            *best = Some(it);
                        }
                    }
                    if d == max_depth {
                        hd.store(true, Ordering::Relaxed);
                        break;
                    }
                    d = (d + 1).max(md.load(Ordering::Relaxed) + 1).min(max_depth);
                }
                s.flush_nodes();
                s.counters
            }));
        }
        let ctl = StopControl {
            stop,
            helpers_stop: &helper_done,
            deadline,
            node_limit: limits.nodes,
            shared_nodes: &shared_nodes,
        };
        let mut s = Searcher::new(tt, &evaluator, ctl, history, 0, params);
        s.set_egdb(cfg.egdb.as_deref());
        s.set_drawn_root(drawn_root);
        s.set_root(root);
        let mut order = moves.clone();
        let mut last: Option<Iteration<G::B>> = None;
        let mut completed = 0;
        let mut reason = StopReason::Depth;
        let mut tie = rng.map(|x| x | 1);
        let mut depth = 1;
        let mut iter_times: (Option<Duration>, Option<Duration>) = (None, None);
        while depth <= max_depth {
            main_depth.store(depth, Ordering::Relaxed);
            let iter_start = Instant::now();
            let prev = last.as_ref().map(|it| it.score);
            let (it, done) = aspiration(&mut s, root, &mut order, depth, prev, &mut tie);
            if done {
                completed = depth;
            }
            if let Some(it) = it {
                last = Some(it);
            }
            // A helper ahead of this thread: take its deeper iteration and go on from there.
            if let Some(h) = helper_best.lock().ok().and_then(|b| b.clone()) {
                if h.depth > completed {
                    completed = h.depth;
                    depth = h.depth;
                    if let Some(pos) = order.iter().position(|m| h.pv.first() == Some(m)) {
                        order[..=pos].rotate_right(1);
                    }
                    last = Some(h);
                }
            }
            if s.aborted() {
                reason = if stop.load(Ordering::Relaxed) {
                    StopReason::Stopped
                } else if limits
                    .nodes
                    .is_some_and(|n| shared_nodes.load(Ordering::Relaxed) >= n)
                {
                    StopReason::Nodes
                } else if helper_done.load(Ordering::Relaxed) {
                    StopReason::Depth
                } else {
                    StopReason::Time
                };
                break;
            }
            s.flush_nodes();
            if let Some(it) = &last {
                let i = make_info::<G>(&s.counters, &shared_nodes, start, completed, it, tt);
                on_info(&i);
                let proven = Score(it.score)
                    .plies_to_end()
                    .is_some_and(|p| p.unsigned_abs() <= depth);
                if proven {
                    reason = StopReason::Proven;
                    break;
                }
            }
            iter_times = (iter_times.1, Some(iter_start.elapsed()));
            if let Some(it) = last.as_ref().filter(|_| completed > stability_depth) {
                stability.update(completed, it.pv.first(), it.score);
                stability_depth = completed;
            }
            let scale = if params.time_scale && soft.is_some() {
                stability.factor()
            } else {
                1.0
            };
            if let Some(end) = budget_end(scale) {
                let next = next_iteration_estimate(iter_times.0, iter_times.1);
                if Instant::now() + next.mul_f64(fit) >= end {
                    reason = StopReason::Time;
                    break;
                }
            }
            depth += 1;
        }
        helpers_stop.store(true, Ordering::Relaxed);
        s.flush_nodes();
        let mut counters = s.counters;
        for h in handles {
            if let Ok(c) = h.join() {
                counters.add(&c);
            }
        }
        (last, completed, reason, counters)
    });
    let (last, completed, reason, counters) = &mut result;
    let info = match last {
        Some(it) => make_info::<G>(counters, &shared_nodes, start, *completed, it, tt),
        None => Info {
            time: start.elapsed(),
            ..Info::default()
        },
    };
    let best = match last {
        Some(it) if !it.pv.is_empty() => Some(MoveInfo::of::<G>(&it.pv[0])),
        _ => moves.first().map(MoveInfo::of::<G>),
    };
    SearchResult {
        best,
        info,
        reason: *reason,
    }
}

/// Searches one iteration with an aspiration window around the previous score, widening it
/// after a fail low or high. Returns the iteration to keep, if any (a completed one, or a partial
/// one whose best move is proven at least as good as the previous best), and whether the
/// iteration was completed.
fn aspiration<G: Geometry>(
    s: &mut Searcher<'_, G>,
    root: &Position<G>,
    order: &mut Vec<Move<G::B>>,
    depth: u32,
    prev: Option<i32>,
    tie: &mut Option<u64>,
) -> (Option<Iteration<G::B>>, bool) {
    let mut delta = s.params().aspiration;
    let mut window = match prev {
        Some(p) if depth >= 4 && delta > 0 && p.abs() < EGDB_BOUND => (p - delta, p + delta),
        _ => FULL_WINDOW,
    };
    let mut kept = None;
    loop {
        let it = s.search_root(root, order, depth, window, tie.as_mut());
        let Some(it) = it else {
            return (kept, false);
        };
        if it.partial {
            // Stopped: keep the best move only if it did not fail low.
            if it.score > window.0 {
                kept = Some(it);
            }
            return (kept, false);
        }
        delta = delta.saturating_mul(2);
        if it.score <= window.0 && window.0 > FULL_WINDOW.0 {
            window.0 = if delta > 400 {
                FULL_WINDOW.0
            } else {
                (it.score - delta).max(FULL_WINDOW.0)
            };
        } else if it.score >= window.1 && window.1 < FULL_WINDOW.1 {
            window.1 = if delta > 400 {
                FULL_WINDOW.1
            } else {
                (it.score + delta).min(FULL_WINDOW.1)
            };
            kept = Some(it);
        } else {
            return (Some(it), true);
        }
    }
}

fn make_info<G: Geometry>(
    counters: &Counters,
    shared_nodes: &AtomicU64,
    start: Instant,
    completed: u32,
    it: &Iteration<G::B>,
    tt: &Tt,
) -> Info {
    let time = start.elapsed();
    let nodes = shared_nodes.load(Ordering::Relaxed).max(counters.nodes);
    let secs = time.as_secs_f64();
    Info {
        depth: completed,
        seldepth: counters.seldepth,
        score: Score(it.score),
        nodes,
        nps: if secs > 0.0 {
            (nodes as f64 / secs) as u64
        } else {
            0
        },
        time,
        tt_hits: counters.tt_hits,
        tt_cutoffs: counters.tt_cutoffs,
        beta_cutoffs: counters.beta_cutoffs,
        pv: moves_info::<G>(&it.pv),
        hashfull: tt.hashfull(),
        egdb_hits: counters.egdb_hits,
        book: false,
    }
}

#[cfg(test)]
mod tests {
    use super::Stability;
    use super::{Engine, EngineConfig, Limits, StopReason, NOMINAL_NPS};
    use crate::engine::book::{canonical, Book, BookMove, BuildInfo, Entry};
    use crate::rules::any_size::AnyPosition;
    use crate::rules::geometry::BoardSize;
    use crate::rules::position::Side;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn a_book_leaf_smaller_than_the_search_is_left_to_the_search() {
        let start = AnyPosition::initial(BoardSize::S6, Side::Player);
        // A leaf of 50,000 nodes that holds the last legal move (a search would not give it:
        // the point is only which answered).
        let last = start.legal_moves().pop().expect("moves");
        let mut book = Book::new(BoardSize::S6, BuildInfo::default());
        book.insert(Entry {
            position: canonical(&start).0,
            value: 3,
            depth: 9,
            nodes: 50_000,
            expanded: false,
            pending: false,
            pv: false,
            moves: vec![BookMove {
                mv: last.clone(),
                value: 3,
            }],
        })
        .expect("new");
        let mut engine = Engine::new(EngineConfig::default());
        engine.set_book(Some(Arc::new(book)));
        let nodes = |n| Limits {
            nodes: Some(n),
            ..Limits::default()
        };
        let ms = |t| Limits {
            movetime: Some(Duration::from_millis(t)),
            ..Limits::default()
        };
        assert_eq!(engine.expected_nodes(&nodes(7), None), 7);
        assert_eq!(engine.expected_nodes(&ms(100), None), NOMINAL_NPS / 10);
        assert_eq!(
            engine.expected_nodes(&ms(1000), Some(Duration::from_millis(10))),
            NOMINAL_NPS / 100
        );
        let depth = Limits {
            depth: Some(5),
            ..Limits::default()
        };
        assert_eq!(engine.expected_nodes(&depth, None), 0);
        assert_eq!(engine.expected_nodes(&Limits::default(), None), u64::MAX);
        let stop = AtomicBool::new(false);
        // Searches of up to 50,000 nodes take the book's move; a larger one searches.
        let small = engine.search(&start, &[], &nodes(50_000), &stop, &mut |_| {});
        assert_eq!(small.reason, StopReason::Book);
        assert_eq!(small.best, Some(last.clone()));
        let large = engine.search(&start, &[], &nodes(50_001), &stop, &mut |_| {});
        assert_ne!(large.reason, StopReason::Book);
        assert!(engine.book_move(&start, &ms(1000), None, None).is_none());
        assert!(engine.book_move(&start, &ms(10), None, None).is_some());
    }

    fn fed(iterations: &[(u32, u8, i32)]) -> f64 {
        let mut s = Stability::new();
        for &(d, m, score) in iterations {
            s.update(d, Some(&m), score);
        }
        s.factor()
    }

    #[test]
    fn a_settled_root_shortens_the_soft_limit() {
        let settled: Vec<_> = (1..=12).map(|d| (d, 7u8, 30)).collect();
        assert!((fed(&settled) - 0.8).abs() < 1e-9);
    }

    #[test]
    fn a_changing_best_move_lengthens_it_and_the_effect_decays() {
        let mut its: Vec<_> = (1..=10).map(|d| (d, 1u8, 20)).collect();
        its.push((11, 2, 20));
        let once = fed(&its);
        its.push((12, 3, 20));
        let twice = fed(&its);
        assert!(once > 1.3 && twice > once, "{once} {twice}");
        its.extend((13..=16).map(|d| (d, 3, 20)));
        assert!(fed(&its) < 0.9, "settles again: {}", fed(&its));
        // Changes among the first, quick iterations do not count.
        let early: Vec<_> = (1..=4)
            .map(|d| (d, d as u8, 0))
            .chain((5..=8).map(|d| (d, 9, 0)))
            .collect();
        assert!(fed(&early) < 0.9);
    }

    #[test]
    fn a_falling_score_lengthens_it_within_the_cap() {
        let mut its: Vec<_> = (1..=10).map(|d| (d, 1u8, 40)).collect();
        its.push((11, 1, -40));
        let fallen = fed(&its);
        assert!((fallen - 1.2).abs() < 1e-9, "{fallen}");
        let mut wild: Vec<_> = (1..=10)
            .map(|d| (d, d as u8, 300 - 30 * d as i32))
            .collect();
        wild.push((11, 0, -500));
        assert!(fed(&wild) <= 2.2 && fed(&wild) > 1.8, "{}", fed(&wild));
        // A rising score is no alarm.
        its.push((12, 1, 100));
        assert!(fed(&its) <= 0.8 + 1e-9);
    }
}
