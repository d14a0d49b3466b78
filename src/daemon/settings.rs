//! The daemon's settings: the `serve` flags, changed by `set`, shared by the event loop, the
//! option list and the status report.

use super::protocol::InfoMode;
use crate::camera::tracking::AutoNewGame;
use crate::engine::book::Book;
use crate::engine::clock::TimeControl;
use crate::engine::egdb::probe::DEFAULT_CACHE_MB;
use crate::engine::egdb::Egdb;
use crate::engine::eval::LearnedSet;
use crate::engine::Limits;
use crate::play::level::{Level, Style};
use crate::rules::board::Grid;
use crate::rules::geometry::BoardSize;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Time kept back from each move time for the daemon's own work and the write.
pub const MOVE_OVERHEAD: Duration = Duration::from_millis(5);

/// The daemon's settings (the `serve` flags, changed by `set`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Time per move (`None`: no time limit).
    pub movetime: Option<Duration>,
    /// Depth limit (`None`: none).
    pub depth: Option<u32>,
    /// Node budget of a search (`None`: none); not changed by the level.
    pub nodes: Option<u64>,
    /// Search threads.
    pub threads: usize,
    /// Transposition table MiB.
    pub hash_mb: usize,
    /// Start layout of `newgame` without arguments (`None`: the standard start of `size`).
    pub layout: Option<Grid>,
    /// Board size of `newgame` and `position fen`.
    pub size: BoardSize,
    /// Reject unexplained boards (else accept them as new positions).
    pub strict: bool,
    /// Compare boards by colour only; kings come from the game.
    pub colour_only: bool,
    /// Read `board` rows rotated 180 degrees.
    pub rotated: bool,
    /// When a start position on the board begins a new game without `newgame`.
    pub auto_newgame: AutoNewGame,
    /// Which search lines to write.
    pub info: InfoMode,
    /// Learned evaluation weights by board size (empty: the hand evaluation).
    pub learned: LearnedSet,
    /// Endgame database (`None`: none).
    pub egdb: Option<Arc<Egdb>>,
    /// Opening book (`None`: none): a position it holds is answered from it, choosing among
    /// its moves within the level's margin ([`Level::book_margin`]) with the level's seed.
    /// By default the built-in 8x8 book, in play at `hard` and `max` only
    /// ([`Settings::book_in_play`]); none in [`Settings::deterministic`].
    pub book: Option<Arc<Book>>,
    /// The book was chosen (`set book`, `serve --book`): it is used at every level, not only at
    /// `hard` and `max`.
    pub book_chosen: bool,
    /// The book's name (`builtin`, `off` or its file), for `options`.
    pub book_name: String,
    /// Put nodes, time and nps in info lines (off in replay mode, for reproducible output).
    pub timing: bool,
    /// Echo each input line as `> LINE` and prefix replies with `< ` (transcripts).
    pub transcript: bool,
    /// The bot's game clock (`None`: the move time applies).
    pub clock: Option<TimeControl>,
    /// Search the position after the bot's move while the person thinks.
    pub ponder: bool,
    /// The playing level: its missteps (`set level` also sets `movetime` and `depth`).
    pub level: Level,
    /// The playing style (the evaluation weights).
    pub style: Style,
    /// Seed of the level's missteps.
    pub seed: u64,
    /// The evaluation's name (`hand` or the weights file), for `options`.
    pub eval_name: String,
    /// The endgame database's directory, for `options`.
    pub egdb_dir: Option<PathBuf>,
    /// The memory cap of a database opened by `set egdb`, MiB (see [`Egdb::open`]).
    pub egdb_cache_mb: usize,
    /// The database was chosen (`serve --egdb`, `set egdb`): the levels the background build
    /// completes are not taken into play.
    pub egdb_chosen: bool,
    /// What the background build of the database does (`serve --egdb-build`), for `status`.
    pub egdb_build: super::egdb_build::BuildState,
    /// Where finished and abandoned games are written (`None`: nowhere).
    pub record: Option<PathBuf>,
    /// Requests come from a file or a pipe on stdin rather than from a vision system: `busy`
    /// errors then point to `checkersbot replay`, which answers a file line by line.
    pub piped_stdin: bool,
    /// Whether `set eval`, `set egdb` and `set record` may name paths (off over TCP unless
    /// `serve --allow-paths`).
    pub paths_allowed: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            movetime: Some(Duration::from_millis(1000)),
            depth: None,
            nodes: None,
            threads: 1,
            hash_mb: 16,
            layout: None,
            size: BoardSize::S8,
            strict: true,
            colour_only: false,
            rotated: false,
            piped_stdin: false,
            auto_newgame: AutoNewGame::GameOver,
            info: InfoMode::Iterations,
            learned: crate::engine::eval::default_learned(),
            egdb: None,
            book: builtin_book(),
            book_name: "builtin".into(),
            book_chosen: false,
            timing: true,
            transcript: false,
            clock: None,
            ponder: false,
            level: Level::default(),
            style: Style::default(),
            seed: 1,
            eval_name: crate::engine::eval::DEFAULT_EVAL.into(),
            egdb_dir: None,
            egdb_cache_mb: DEFAULT_CACHE_MB,
            egdb_chosen: false,
            egdb_build: super::egdb_build::BuildState::Off,
            record: None,
            paths_allowed: true,
        }
    }
}

/// The built-in 8x8 book, read once (the daemon's default book; `None` if it did not read,
/// which `tests/book.rs` rules out).
fn builtin_book() -> Option<Arc<Book>> {
    static BUILTIN: std::sync::OnceLock<Option<Arc<Book>>> = std::sync::OnceLock::new();
    BUILTIN
        .get_or_init(|| match Book::builtin() {
            Ok(book) => Some(Arc::new(book)),
            Err(e) => {
                tracing::warn!("the built-in book does not read: {e}");
                None
            }
        })
        .clone()
}

impl Settings {
    /// Replay defaults: depth 6, no time limit, one thread, no timings, no book (reproducible
    /// output: the search's own moves).
    pub fn deterministic() -> Settings {
        Settings {
            movetime: None,
            depth: Some(6),
            threads: 1,
            timing: false,
            book: None,
            book_name: "off".into(),
            ..Settings::default()
        }
    }

    /// The book the bot's moves come from: the one chosen, or by default the built-in book at
    /// `hard` and `max` (the easier levels play from their own search, missteps and all).
    pub fn book_in_play(&self) -> Option<&Arc<Book>> {
        let strong = matches!(self.level, Level::Hard | Level::Max);
        self.book.as_ref().filter(|_| self.book_chosen || strong)
    }

    /// Plays at `level`: its missteps, and its move time and depth.
    pub fn set_level(&mut self, level: Level) {
        let limits = level.limits();
        self.level = level;
        self.movetime = limits.movetime;
        self.depth = limits.depth;
    }

    /// The engine's limits, and the soft limit when a clock is set (`left` on it after `played`
    /// moves). The engine gets the move time (with a clock: the budget's hard limit) less an
    /// allowance for the daemon's own work and the write ([`MOVE_OVERHEAD`], at most a tenth of
    /// the time), so that the `move` line leaves within it.
    pub(super) fn limits(&self, left: Duration, played: u32) -> (Limits, Option<Duration>) {
        let less_overhead = |t: Duration| t.saturating_sub(MOVE_OVERHEAD.min(t / 10));
        let (movetime, soft) = match &self.clock {
            Some(tc) => {
                let budget = tc.budget(left, played);
                (Some(budget.hard), Some(budget.soft))
            }
            None => (self.movetime, None),
        };
        let limits = Limits {
            movetime: movetime.map(less_overhead),
            depth: self.depth,
            nodes: self.nodes,
        };
        (limits, soft.map(less_overhead))
    }
}
