//! Arguments and helpers shared by several subcommands.

use anyhow::{anyhow, Context, Result};
use checkersbot::engine::book::{Book, BookSpec};
use checkersbot::engine::bounds;
use checkersbot::engine::egdb::{default_dir, Egdb, EgdbError};
use checkersbot::engine::eval::LearnedSet;
use checkersbot::learn::data::{read_all, Record};
use checkersbot::play::level::{Level, Style};
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::board::Grid;
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::openings::DeckSpec;
use checkersbot::rules::position::Side;
use clap::builder::TypedValueParser as _;
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;

/// Worker threads: `given`, or every core when not given.
pub fn threads_or_cores(given: Option<usize>) -> usize {
    given.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Every record of the data files, read in turn; they must all be of one board size.
pub fn read_data(paths: &[PathBuf]) -> Result<(BoardSize, Vec<Record>)> {
    let mut records = Vec::new();
    let mut size: Option<BoardSize> = None;
    for path in paths {
        let (s, mut r) = read_all(path)?;
        if size.is_some_and(|x| x != s) {
            return Err(anyhow!(
                "{} holds {s} positions; the other files are {}",
                path.display(),
                size.map_or_else(String::new, |x| x.to_string())
            ));
        }
        size = Some(s);
        records.append(&mut r);
    }
    let size = size.ok_or_else(|| anyhow!("no data"))?;
    Ok((size, records))
}

/// Where a position comes from: a layout file or a one-line board, plus the side to move.
#[derive(Args, Debug, Clone)]
pub struct PositionArgs {
    /// Layout file (e.g. layouts/8x8.board).
    #[arg(long, conflicts_with = "board")]
    pub layout: Option<PathBuf>,
    /// One-line board: rows top to bottom joined by '/', e.g. _b_b/____/____/p_p_
    #[arg(long)]
    pub board: Option<String>,
    /// Side to move: p (player) or b (bot). Default p.
    #[arg(long, default_value = "p")]
    pub side: String,
}

impl PositionArgs {
    /// The position these arguments name (the 8x8 start position if neither file nor board).
    pub fn position(&self) -> Result<AnyPosition> {
        let side = parse_side(&self.side)?;
        let grid = match (&self.layout, &self.board) {
            (Some(path), _) => load_layout(path)?,
            (None, Some(line)) => Grid::parse_line(line).context("bad --board")?,
            (None, None) => {
                checkersbot::rules::board::initial_grid(checkersbot::rules::geometry::BoardSize::S8)
            }
        };
        Ok(AnyPosition::from_grid(&grid, side))
    }
}

/// Reads `p` or `b`.
pub fn parse_side(text: &str) -> Result<Side> {
    Side::from_letter(text).ok_or_else(|| anyhow!("side must be 'p' or 'b', not '{text}'"))
}

/// Reads and validates a layout file.
pub fn load_layout(path: &std::path::Path) -> Result<Grid> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read layout {}", path.display()))?;
    Grid::parse_layout(&text).with_context(|| format!("bad layout {}", path.display()))
}

/// `--threads`: the range the protocol's `set threads` accepts too.
pub fn threads_arg(text: &str) -> Result<usize, String> {
    bounds::parse_in("threads", text, &bounds::THREADS)
}

/// `--hash`: the range the protocol's `set hash` accepts too.
pub fn hash_arg(text: &str) -> Result<usize, String> {
    bounds::parse_in("hash", text, &bounds::HASH_MB)
}

/// `--movetime` of the daemon: the range of `set movetime`.
pub fn movetime_arg(text: &str) -> Result<u64, String> {
    bounds::parse_in("movetime", text, &bounds::MOVETIME_MS)
}

/// `--depth` of the daemon: the range of `set depth`.
pub fn depth_arg(text: &str) -> Result<u32, String> {
    bounds::parse_in("depth", text, &bounds::DEPTH)
}

/// `--nodes` of the daemon: the range of `set nodes`.
pub fn nodes_arg(text: &str) -> Result<u64, String> {
    bounds::parse_in("nodes", text, &bounds::NODES)
}

/// `--depth` of `perft`.
pub fn perft_depth_arg(text: &str) -> Result<u32, String> {
    bounds::parse_in("depth", text, &bounds::PERFT_DEPTH)
}

/// A move time and depth as every subcommand reads them (as `serve` and `set` do): 0 means no
/// limit. `None` when neither limits the search (it would not end by itself).
pub fn move_limits(
    movetime_ms: Option<u64>,
    depth: Option<u32>,
) -> (Option<std::time::Duration>, Option<u32>) {
    (
        movetime_ms
            .filter(|&ms| ms > 0)
            .map(std::time::Duration::from_millis),
        depth.filter(|&d| d > 0),
    )
}

/// Refuses a table the machine cannot hold now, before anything is allocated.
pub fn check_table(hash_mb: usize, threads: usize) -> Result<()> {
    checkersbot::engine::check_room(hash_mb, threads, 0).map_err(|e| anyhow!("--{e}"))
}

/// Engine settings shared by the commands that search.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Search threads (1 to 64).
    #[arg(long, default_value_t = 1, value_parser = threads_arg)]
    pub threads: usize,
    /// Transposition table size in MiB (1 to 4096, and what the machine can hold) [default:
    /// sized for the search: 16 up to about a second a move or depth 17, 32 at 1 s, 96 to depth
    /// 21, 160 at 5 s, 256 without limits, never above an eighth of the machine's memory; hub:
    /// 16].
    #[arg(long, value_parser = hash_arg)]
    pub hash: Option<usize>,
    /// Seed for choosing among equally good moves (omit for always the same choice).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Evaluation terms to switch off, comma-separated (backrank, mobility, runaway, trade,
    /// endgame; advance and centre are accepted but already 0 by default).
    #[arg(long, value_delimiter = ',')]
    pub without: Vec<String>,
    /// Play in the aggressive style (rewards closing in on the enemy's pieces).
    #[arg(long)]
    pub aggressive: bool,
    /// Evaluation: `hand` (the hand-written one), `learned` (the built-in weights of the board's
    /// size) or a weights file written by `checkersbot train` (used on its board size; sizes
    /// without learned weights use the hand evaluation).
    #[arg(long, default_value = checkersbot::engine::eval::DEFAULT_EVAL)]
    pub eval: String,
    /// Endgame database directory (`off`: none) [default: $XDG_CACHE_HOME/checkersbot/egdb or
    /// ~/.cache/checkersbot/egdb, if a database is there].
    #[arg(long)]
    pub egdb: Option<String>,
    /// Memory for the endgame database, MiB: a database whose values fit is held decompressed
    /// in memory (fastest: up to 6 pieces on 8x8 takes 784 MiB); a larger one is read block
    /// by block through a cache of this size (64 suits a small computer).
    #[arg(long, default_value_t = checkersbot::engine::egdb::probe::DEFAULT_CACHE_MB)]
    pub egdb_cache: usize,
    /// Opening book: `builtin` (the 8x8 book built into the program), `off`, or a book file
    /// written by `checkersbot book build`; used only on its board size.
    #[arg(long, default_value = "off")]
    pub book: String,
}

/// What `--openings` names: random plies or a deck of ballots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Openings {
    /// This many random plies from the start.
    Random(usize),
    /// A deck's ballots (`acf3`, `acf3:1-50`).
    Deck(DeckSpec),
}

impl std::fmt::Display for Openings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Openings::Random(n) => write!(f, "{n}"),
            Openings::Deck(spec) => write!(f, "{spec}"),
        }
    }
}

/// `--openings`: a number of random plies, or a deck spec (`acf3`, `acf3:1-50`).
pub fn openings_arg(text: &str) -> Result<Openings, String> {
    if let Ok(n) = text.trim().parse::<usize>() {
        return Ok(Openings::Random(n));
    }
    text.trim()
        .parse::<DeckSpec>()
        .map(Openings::Deck)
        .map_err(|e| format!("{e} (--openings takes a number of random plies, acf3 or acf3:A-B)"))
}

/// The opening book a `--book` value names: `builtin`, `off` (none) or a file.
pub fn load_book(spec: &str) -> Result<Option<Arc<Book>>> {
    BookSpec::parse(spec)
        .load()
        .map(|b| b.map(Arc::new))
        .map_err(|e| anyhow!("--book {spec}: {e}"))
}

/// The endgame database an `--egdb` value names: `off`/`none` none, `default` or no value the
/// user's cache directory if a database is there (silently none if not; its complete levels
/// only; a damaged one is a warning and none), else the directory given, which must hold one.
pub fn load_egdb(spec: Option<&str>, cache_mb: usize) -> Result<Option<Arc<Egdb>>> {
    match spec {
        Some("off") | Some("none") => Ok(None),
        None | Some("default") => {
            let Some(dir) = default_dir() else {
                return Ok(None);
            };
            if !dir.is_dir() {
                tracing::debug!("no endgame database at {}", dir.display());
                return Ok(None);
            }
            // The cache is the program's own: its complete levels only (a level may be being
            // built, by `serve` in the background), and a damaged one is no reason not to play.
            match Egdb::open_complete(&dir, cache_mb) {
                Ok(db) => Ok(Some(Arc::new(db))),
                Err(EgdbError::Empty(_)) => Ok(None),
                Err(e) => {
                    tracing::warn!(
                        "endgame database: {e}; playing without one (`checkersbot egdb build` \
                         on that directory rebuilds what is damaged)"
                    );
                    Ok(None)
                }
            }
        }
        Some(dir) => Egdb::open(std::path::Path::new(dir), cache_mb)
            .map(|db| Some(Arc::new(db)))
            .map_err(|e| anyhow!("--egdb {e}")),
    }
}

/// The learned weights an `--eval` value names: none for `hand`, the built-in ones for
/// `learned`, else the file's weights.
pub fn load_eval(spec: &str) -> Result<LearnedSet> {
    checkersbot::engine::eval::load_eval(spec).map_err(|e| anyhow!("--eval {e}"))
}

/// [`load_book`] and [`load_eval`] for a process that searches one position, `root`, if given:
/// what the other sizes would need is not read (the built-in 8x8 book and weights on 10x10, the
/// 10x10 weights on 8x8), and of the built-in book only `root`'s record is read
/// ([`BookSpec::load_for_root`]), which a one-position `search` would otherwise pay for at every
/// start.
fn load_for(
    book: &str,
    eval: &str,
    root: Option<&AnyPosition>,
) -> Result<(Option<Arc<Book>>, LearnedSet)> {
    let Some(root) = root else {
        return Ok((load_book(book)?, load_eval(eval)?));
    };
    let book = BookSpec::parse(book)
        .load_for_root(root)
        .map(|b| b.map(Arc::new))
        .map_err(|e| anyhow!("--book {book}: {e}"))?;
    let learned = checkersbot::engine::eval::load_eval_for(eval, root.size())
        .map_err(|e| anyhow!("--eval {e}"))?;
    Ok((book, learned))
}

impl EngineArgs {
    /// The engine configuration these arguments describe, for searches with `limits` (which
    /// size the table when `--hash` is not given; `None`: the smallest such table).
    pub fn config(
        &self,
        limits: Option<&checkersbot::engine::Limits>,
    ) -> Result<checkersbot::engine::EngineConfig> {
        self.config_for(limits, None)
    }

    /// [`EngineArgs::config`] for an engine that searches `root` only (when given): the book
    /// and the learned weights of other sizes are not read, nor the built-in book's records of
    /// other positions ([`load_for`]); the search of `root` goes exactly as with
    /// [`EngineArgs::config`].
    pub fn config_for(
        &self,
        limits: Option<&checkersbot::engine::Limits>,
        root: Option<&AnyPosition>,
    ) -> Result<checkersbot::engine::EngineConfig> {
        use checkersbot::engine::eval::{Term, Weights};
        let mut weights = if self.aggressive {
            Weights::aggressive()
        } else {
            Weights::default()
        };
        for name in &self.without {
            let term = Term::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = Term::ALL.iter().map(|t| t.name()).collect();
                anyhow!(
                    "unknown evaluation term '{name}'; terms: {}",
                    names.join(", ")
                )
            })?;
            weights = weights.without(term);
        }
        let hash = self.hash.unwrap_or_else(|| match limits {
            Some(l) => checkersbot::engine::default_hash_mb(l, self.threads),
            None => checkersbot::engine::memory::AUTO_TABLE_MIN_MB,
        });
        check_table(hash, self.threads)?;
        let (book, learned) = load_for(&self.book, &self.eval, root)?;
        Ok(checkersbot::engine::EngineConfig {
            hash_mb: hash,
            threads: self.threads.max(1),
            weights,
            learned,
            seed: self.seed,
            egdb: load_egdb(self.egdb.as_deref(), self.egdb_cache)?,
            search: checkersbot::engine::SearchParams::default(),
            book,
            book_margin: 0,
        })
    }
}

/// `--level`: one of the library's levels ([`Level::ALL`]), by name.
pub fn level_parser() -> impl clap::builder::TypedValueParser<Value = Level> {
    clap::builder::PossibleValuesParser::new(Level::ALL.map(Level::name))
        .map(|name| Level::from_name(&name).unwrap_or(Level::Medium))
}

/// `--style`: one of the library's styles ([`Style::ALL`]), by name.
pub fn style_parser() -> impl clap::builder::TypedValueParser<Value = Style> {
    clap::builder::PossibleValuesParser::new(Style::ALL.map(Style::name))
        .map(|name| Style::from_name(&name).unwrap_or_default())
}

/// A flag raised by the first SIGINT or SIGTERM from now on (a second one ends the program at
/// once), for long jobs that stop cleanly: they check it, finish what they must and return;
/// `stopping` says what they do (e.g. "stopping after saving"). The signals are blocked in the
/// calling thread and the threads it starts later, and waited for on a thread of their own; call
/// it before starting other threads.
pub fn stop_on_signals(stopping: &'static str) -> &'static std::sync::atomic::AtomicBool {
    static STOP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if let Some(signals) = block_termination_signals() {
        signals.forward(move |sig| {
            if STOP.swap(true, std::sync::atomic::Ordering::SeqCst) {
                eprintln!("signal {sig} again: exiting at once");
                std::process::exit(130);
            }
            eprintln!("signal {sig}: {stopping} (again to exit at once)");
            true
        });
    }
    &STOP
}

/// SIGINT and SIGTERM, blocked by [`block_termination_signals`] and waited for by
/// [`TerminationSignals::forward`].
pub struct TerminationSignals {
    #[cfg(unix)]
    set: libc::sigset_t,
}

// SAFETY: a sigset_t is plain data.
#[cfg(unix)]
unsafe impl Send for TerminationSignals {}

/// Blocks SIGINT and SIGTERM in the calling thread and the threads it starts from now on, so that
/// they end nothing by themselves; `None` where they cannot be blocked (they then end the
/// program abruptly, as by default). Call it before starting other threads.
pub fn block_termination_signals() -> Option<TerminationSignals> {
    #[cfg(unix)]
    {
        // SAFETY: the set is initialised by sigemptyset before use; the calls only read it.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGINT);
            libc::sigaddset(&mut set, libc::SIGTERM);
            if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
                tracing::warn!("cannot block SIGINT/SIGTERM: they will end the program abruptly");
                return None;
            }
            Some(TerminationSignals { set })
        }
    }
    #[cfg(not(unix))]
    None
}

impl TerminationSignals {
    /// Waits for the signals on a thread of its own and hands each one's number to `deliver`,
    /// until `deliver` returns false.
    pub fn forward(self, mut deliver: impl FnMut(i32) -> bool + Send + 'static) {
        #[cfg(unix)]
        {
            let spawned = std::thread::Builder::new()
                .name("signals".into())
                .spawn(move || {
                    let signals = self;
                    loop {
                        let mut sig: libc::c_int = 0;
                        // SAFETY: `set` is a valid, initialised signal set; `sig` a valid
                        // out-pointer.
                        if unsafe { libc::sigwait(&signals.set, &mut sig) } != 0 || !deliver(sig) {
                            return;
                        }
                    }
                });
            if let Err(e) = spawned {
                tracing::warn!("cannot start the signal thread: {e}");
            }
        }
        #[cfg(not(unix))]
        let _ = (self, &mut deliver);
    }
}
