//! The daemon: the one owner of the game state. It receives [`Event`]s on a channel (input lines
//! from a reader thread, search progress from the engine thread, signals), decides, and queues
//! replies on its single writer ([`Outbox`]), which writes them in order and keeps those the link
//! cannot take now. The rules it follows are those of
//! `protocol/PROTOCOL.md`: game tracking with inference of the opponent's move, arm-failure and
//! misread diagnosis, unchanged boards, colour-only and rotated cameras, strict and lenient modes.
//!
//! The engine runs on its own thread ([`Daemon::new`] starts it) and is stopped through a shared
//! flag, so the daemon keeps answering `ping` and `stop` while it searches. Its table is allocated
//! (after a check that the machine can hold it) and cleared on that thread before `ok` is
//! answered to `set hash`, `newgame` and `position`, never on a move's clock.
//!
//! With a game clock ([`crate::engine::clock`]) the daemon keeps the bot's time left and gives each
//! search a soft and a hard limit from it. With pondering, after each move the engine thread
//! searches the position the person faces until their board arrives (a job of its own, stopped
//! through a flag of its own, with no reports), so that the next search finds the table warm.

use crate::engine::book::{Book, BookSpec};
use crate::engine::clock::TimeControl;
use crate::engine::egdb::probe::DEFAULT_CACHE_MB;
use crate::engine::egdb::Egdb;
use crate::engine::eval::{load_eval, LearnedSet, Weights};
use crate::engine::tt::TableError;
use crate::engine::{Engine, EngineConfig, Info, Limits, SearchResult};
use crate::play::level::{choose_move, Level, Misstep, Style};
use crate::rng::Rng;
use crate::robot::options;
use crate::robot::outbox::{FlowControl, Outbox};
use crate::robot::protocol::{
    Command, ErrorCode, InfoLine, InfoMode, Layout, ProtocolError, Reply, SearchInfo, SetOption,
    Setup,
};
use crate::robot::tracking::{
    camera_grid, squares_list, Diagnosis, Next, Observation, Reading, Rejection, Tracker,
};
use crate::robot::transport::{FrameError, Input, LineSink};
use crate::rules::any_size::AnyPosition;
use crate::rules::board::{initial_grid, Grid};
use crate::rules::fen::parse_fen;
use crate::rules::game::{Game, Status};
use crate::rules::geometry::BoardSize;
use crate::rules::pdn::{play_moves, read_game, write_game, GameResult, PdnError, RecordInfo};
use crate::rules::position::Side;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Everything the daemon reacts to, in the order it arrives.
#[derive(Debug)]
pub enum Event {
    /// From the reader thread.
    Input(Input),
    /// A termination signal (its number).
    Signal(i32),
    /// Progress of the running search (one completed iteration).
    Progress(Info),
    /// The running search's result.
    SearchDone(SearchResult),
    /// The output closed for good (a pipe whose reader has gone).
    OutputClosed,
}

/// How long the daemon waits at its end for replies the link cannot take yet: it gives up when
/// none could be written for this long.
pub const FLUSH_PATIENCE: Duration = Duration::from_secs(10);

/// Time kept back from each move time for the daemon's own work and the write.
pub const MOVE_OVERHEAD: Duration = Duration::from_millis(5);

/// The daemon's settings (the `serve` flags, changed by `set`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Time per move (`None`: no time limit).
    pub movetime: Option<Duration>,
    /// Depth limit (`None`: none).
    pub depth: Option<u32>,
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
    /// Which search lines to write.
    pub info: InfoMode,
    /// Learned evaluation weights by board size (empty: the hand evaluation).
    pub learned: LearnedSet,
    /// Endgame database (`None`: none).
    pub egdb: Option<Arc<Egdb>>,
    /// Opening book (`None`: none): a position it holds is answered from it, choosing among
    /// its moves within the level's margin ([`Level::book_margin`]) with the level's seed.
    pub book: Option<Arc<Book>>,
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
    /// Where finished and abandoned games are written (`None`: nowhere).
    pub record: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            movetime: Some(Duration::from_millis(1000)),
            depth: None,
            threads: 1,
            hash_mb: 16,
            layout: None,
            size: BoardSize::S8,
            strict: true,
            colour_only: false,
            rotated: false,
            info: InfoMode::Iterations,
            learned: crate::engine::eval::default_learned(),
            egdb: None,
            book: None,
            book_name: "off".into(),
            timing: true,
            transcript: false,
            clock: None,
            ponder: false,
            level: Level::Hard,
            style: Style::Default,
            seed: 1,
            eval_name: crate::engine::eval::DEFAULT_EVAL.into(),
            egdb_dir: None,
            egdb_cache_mb: DEFAULT_CACHE_MB,
            record: None,
        }
    }
}

impl Settings {
    /// Replay defaults: depth 6, no time limit, one thread, no timings (reproducible output).
    pub fn deterministic() -> Settings {
        Settings {
            movetime: None,
            depth: Some(6),
            threads: 1,
            timing: false,
            ..Settings::default()
        }
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
    fn limits(&self, left: Duration, played: u32) -> (Limits, Option<Duration>) {
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
            nodes: None,
        };
        (limits, soft.map(less_overhead))
    }
}

/// A search for the engine thread.
struct SearchJob {
    pos: AnyPosition,
    history: Vec<u64>,
    limits: Limits,
    /// The soft time limit (a clock's budget).
    soft: Option<Duration>,
    /// When the `board` was read: the move time counts from here.
    received: Instant,
    threads: usize,
    learned: LearnedSet,
    egdb: Option<Arc<Egdb>>,
    new_game: bool,
    weights: Weights,
    misstep: Option<Misstep>,
    /// The opening book and the level's margin in it.
    book: Option<Arc<Book>>,
    book_margin: i32,
}

/// An analysis for the engine thread; the lines come back on `reply`.
struct AnalyseJob {
    pos: AnyPosition,
    history: Vec<u64>,
    limits: Limits,
    lines: usize,
    threads: usize,
    learned: LearnedSet,
    egdb: Option<Arc<Egdb>>,
    weights: Weights,
    reply: Sender<Vec<SearchResult>>,
}

/// Work for the engine thread.
enum Job {
    Search(SearchJob),
    /// Search while the person thinks, without a time limit, until the ponder flag is set; no
    /// reports (the table it fills is what counts).
    Ponder(SearchJob),
    Analyse(AnalyseJob),
    /// Make the table this size (answered on the ready channel).
    Resize {
        mb: usize,
        threads: usize,
    },
    /// Clear the table (answered on the ready channel).
    Clear {
        threads: usize,
    },
}

/// The engine thread's answer to a [`Job::Resize`] or [`Job::Clear`]: the time it took.
type Ready = Result<Duration, TableError>;

/// A search in progress.
#[derive(Debug)]
struct Pending {
    /// When the `board` that started it was read (the clock counts from here).
    received: Instant,
    /// `stop` requests to answer with `ok` after the move.
    stops: usize,
    /// A `quit` to answer with `bye` after the move.
    quit: bool,
}

/// The daemon.
pub struct Daemon {
    settings: Settings,
    tracker: Tracker,
    out: Outbox,
    jobs: Sender<Job>,
    ready: Receiver<Ready>,
    stop: Arc<AtomicBool>,
    pending: Option<Pending>,
    new_game: bool,
    exiting: bool,
    ack: Option<Sender<()>>,
    /// The last final reply, for `repeat`.
    last_final: Option<String>,
    /// Why the daemon must end with a failure status.
    fatal: Option<String>,
    /// When the line being handled was received.
    received: Instant,
    /// Stops a ponder search (a flag of its own, so that stopping it never stops a real search).
    ponder_stop: Arc<AtomicBool>,
    /// A ponder search was started and not stopped yet.
    pondering: bool,
    /// Time left on the bot's clock (with `settings.clock`).
    clock_left: Duration,
    /// The bot's moves since the clock was set (or the game started).
    bot_moves: u32,
    /// Game records written.
    records: usize,
    /// The current game has been written (at its end).
    recorded: bool,
}

impl std::fmt::Debug for Daemon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Daemon")
            .field("settings", &self.settings)
            .field("tracker", &self.tracker)
            .finish_non_exhaustive()
    }
}

impl Daemon {
    /// A daemon writing to `out`; `events` is the sender of the channel that [`Daemon::run`] will
    /// read (the engine thread reports on it). Allocates the table (refused when the machine
    /// cannot hold it), then starts the engine and writer threads.
    pub fn new(
        settings: Settings,
        out: Box<dyn LineSink>,
        events: Sender<Event>,
    ) -> Result<Daemon, TableError> {
        let (jobs, job_rx) = channel::<Job>();
        let (ready_tx, ready) = channel::<Ready>();
        let stop = Arc::new(AtomicBool::new(false));
        let engine_stop = Arc::clone(&stop);
        let ponder_stop = Arc::new(AtomicBool::new(false));
        let engine_ponder_stop = Arc::clone(&ponder_stop);
        let config = EngineConfig {
            hash_mb: settings.hash_mb,
            threads: settings.threads,
            ..EngineConfig::default()
        };
        let start = Instant::now();
        let engine = Engine::try_new(config)?;
        let rng = Rng::new(settings.seed);
        tracing::info!(
            "transposition table: {} MiB allocated in {} ms",
            settings.hash_mb,
            start.elapsed().as_millis()
        );
        let closed = events.clone();
        let engine_events = events;
        std::thread::Builder::new()
            .name("engine".into())
            .spawn(move || {
                let stops = Stops {
                    search: engine_stop,
                    ponder: engine_ponder_stop,
                };
                engine_thread(engine, rng, job_rx, ready_tx, engine_events, stops)
            })
            .map_err(|e| tracing::error!("cannot start the engine thread: {e}"))
            .ok();
        let out = Outbox::start(
            out,
            Box::new(move || {
                closed.send(Event::OutputClosed).ok();
            }),
        );
        let clock_left = settings.clock.map_or(Duration::ZERO, |tc| tc.base);
        Ok(Daemon {
            settings,
            tracker: Tracker::default(),
            out,
            jobs,
            ready,
            stop,
            pending: None,
            new_game: false,
            exiting: false,
            ack: None,
            last_final: None,
            fatal: None,
            received: Instant::now(),
            ponder_stop,
            pondering: false,
            clock_left,
            bot_moves: 0,
            records: 0,
            recorded: false,
        })
    }

    /// The writer's flow control, for the reader (see [`crate::robot::outbox`]).
    pub fn flow_control(&self) -> FlowControl {
        self.out.flow_control()
    }

    /// Lockstep mode (replay): after each input line is fully answered, a `()` is sent on `ack`.
    pub fn with_ack(mut self, ack: Sender<()>) -> Daemon {
        self.ack = Some(ack);
        self
    }

    /// Handles events until `quit`, the end of input or a signal (after the reply to a request in
    /// progress), or until every sender is gone; then writes the replies still waiting (giving up
    /// after [`FLUSH_PATIENCE`] without progress). `Err` with a message when the daemon could not
    /// work (a serial device that cannot be used): the process should end with a failure status.
    pub fn run(mut self, events: Receiver<Event>) -> Result<(), String> {
        while let Ok(event) = events.recv() {
            self.handle(event);
            if self.exiting && self.pending.is_none() {
                break;
            }
        }
        self.stop_pondering();
        self.record_abandoned("abandoned at the end of the session");
        let left = self.out.finish(FLUSH_PATIENCE);
        if left > 0 {
            tracing::error!("{left} replies were never written");
        }
        tracing::info!("daemon exits");
        match self.fatal {
            Some(message) => Err(message),
            None => Ok(()),
        }
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::Input(Input::Line(line)) => {
                self.received = Instant::now();
                if self.settings.transcript {
                    // A transcript shows the input as it came (it is no protocol reply).
                    self.raw(format!("> {line}"), true);
                }
                tracing::debug!("< {line}");
                match Command::parse(&line) {
                    Ok(None) => {}
                    Ok(Some(cmd)) => self.command(cmd),
                    Err(e) => self.send(&e.reply()),
                }
                self.ack_if_idle();
            }
            Event::Input(Input::Bad(e)) => {
                let code = match e {
                    FrameError::TooLong { .. } => ErrorCode::LineTooLong,
                    FrameError::NotUtf8 { .. } => ErrorCode::NotUtf8,
                };
                if self.settings.transcript {
                    self.raw(format!("> [{code}]"), true);
                }
                self.send(&ProtocolError::new(code, e.to_string()).reply());
                self.ack_if_idle();
            }
            Event::Input(Input::End) => {
                // A search under way finishes with its full budget and is answered first.
                tracing::info!("end of input");
                self.exiting = true;
                self.stop_pondering();
                self.ack_if_idle();
            }
            Event::Input(Input::Fatal(message)) => {
                // Reported by the caller of `run`, which ends the process with a failure status.
                self.fatal = Some(message);
                self.begin_exit();
                self.ack_if_idle();
            }
            Event::Signal(sig) => {
                tracing::info!("signal {sig}: exiting");
                self.begin_exit();
            }
            Event::OutputClosed => {
                if !self.exiting {
                    tracing::warn!("output closed; exiting");
                }
                self.begin_exit();
            }
            Event::Progress(info) => {
                if self.settings.info == InfoMode::Iterations && self.pending.is_some() {
                    let line = SearchInfo::of(&info, self.settings.timing);
                    self.send(&Reply::Info(InfoLine::Search(line)));
                }
            }
            Event::SearchDone(result) => self.search_done(result),
        }
    }

    fn begin_exit(&mut self) {
        self.exiting = true;
        self.stop_pondering();
        if self.pending.is_some() {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    fn ack_if_idle(&self) {
        if self.pending.is_none() {
            if let Some(ack) = &self.ack {
                // The reader may be gone already; nothing to do then.
                ack.send(()).ok();
            }
        }
    }

    /// Queues a line; transcript echoes and final replies are never dropped, `info` lines may be.
    fn raw(&mut self, line: String, is_final: bool) {
        self.out.push(line, is_final);
    }

    fn send(&mut self, reply: &Reply) {
        let text = reply.to_string();
        if reply.is_final() {
            self.last_final = Some(text.clone());
        }
        self.send_text(text, !reply.is_droppable());
    }

    /// Queues a reply line; `keep`: never dropped (every line but `info`).
    fn send_text(&mut self, text: String, keep: bool) {
        tracing::debug!("> {text}");
        if self.settings.transcript {
            self.raw(format!("< {text}"), true);
        } else {
            self.raw(text, keep);
        }
    }

    fn error(&mut self, code: ErrorCode, message: impl Into<String>) {
        self.send(&ProtocolError::new(code, message).reply());
    }

    fn command(&mut self, cmd: Command) {
        let busy = self.pending.is_some();
        match cmd {
            Command::Hello => self.send(&Reply::hello()),
            Command::Ping => self.send(&Reply::Pong),
            Command::Repeat => match self.last_final.clone() {
                // Not recorded: `repeat` twice gives the same line twice.
                Some(text) => self.send_text(text, true),
                None => {
                    let e = ProtocolError::new(
                        ErrorCode::NothingToRepeat,
                        "no final reply has been written yet",
                    );
                    self.send_text(e.reply().to_string(), true);
                }
            },
            Command::Stop => match &mut self.pending {
                Some(p) => {
                    p.stops += 1;
                    self.stop.store(true, Ordering::Relaxed);
                }
                None => {
                    self.stop_pondering();
                    self.send(&Reply::Ok);
                }
            },
            Command::Quit => match &mut self.pending {
                Some(p) => {
                    p.quit = true;
                    self.exiting = true;
                    self.stop.store(true, Ordering::Relaxed);
                }
                None => {
                    self.send(&Reply::Bye);
                    self.exiting = true;
                }
            },
            Command::Set(SetOption::Eval(spec)) => match load_eval(&spec) {
                Ok(learned) => {
                    self.settings.learned = learned;
                    self.settings.eval_name = spec;
                    self.send(&Reply::Ok);
                }
                Err(e) => self.error(ErrorCode::BadOption, format!("eval: {e}")),
            },
            Command::Set(SetOption::Hash(mb)) => self.set_hash(mb),
            Command::Set(SetOption::Egdb(spec)) => {
                let db = match spec.as_str() {
                    "off" | "none" => Ok(None),
                    dir => Egdb::open(std::path::Path::new(dir), self.settings.egdb_cache_mb)
                        .map(|db| Some(Arc::new(db))),
                };
                match db {
                    Ok(db) => {
                        self.settings.egdb_dir = db.is_some().then(|| PathBuf::from(&spec));
                        self.settings.egdb = db;
                        self.send(&Reply::Ok);
                    }
                    Err(e) => self.error(ErrorCode::BadOption, format!("egdb: {e}")),
                }
            }
            Command::Set(SetOption::Book(spec)) => match BookSpec::parse(&spec).load() {
                Ok(book) => {
                    self.settings.book_name = BookSpec::parse(&spec).name();
                    self.settings.book = book.map(Arc::new);
                    self.send(&Reply::Ok);
                }
                Err(e) => self.error(ErrorCode::BadOption, format!("book {spec}: {e}")),
            },
            Command::Set(SetOption::Record(dir)) => self.set_record(&dir),
            Command::Set(opt) => {
                self.set(opt);
                self.send(&Reply::Ok);
            }
            Command::Options => {
                for spec in options::specs(&self.settings, self.clock_left) {
                    self.send(&Reply::Option(spec.line));
                }
                self.send(&Reply::Ok);
            }
            Command::Analyse { .. } | Command::Hint | Command::TakeBack if busy => {
                self.error(
                    ErrorCode::Busy,
                    "a search is running; wait for its move or send stop",
                );
            }
            Command::Analyse { lines, setup } => self.analyse(lines, setup),
            Command::Hint => self.hint(),
            Command::TakeBack => self.take_back(),
            Command::NewGame(_) | Command::Position(_) | Command::Board { .. } if busy => {
                self.error(
                    ErrorCode::Busy,
                    "a search is running; wait for its move or send stop",
                );
            }
            Command::NewGame(layout) => self.newgame(layout),
            Command::Position(setup) => self.position(setup),
            Command::Board { rows, side } => self.board(&rows, side),
        }
    }

    fn set(&mut self, opt: SetOption) {
        match opt {
            SetOption::Clock(tc) => {
                self.settings.clock = tc;
                return self.reset_clock();
            }
            SetOption::TimeLeft(ms) => {
                self.clock_left = Duration::from_millis(ms);
                return;
            }
            SetOption::Ponder(on) => {
                self.settings.ponder = on;
                if !on {
                    self.stop_pondering();
                }
                return;
            }
            _ => {}
        }
        let s = &mut self.settings;
        match opt {
            SetOption::Movetime(ms) => {
                s.movetime = (ms > 0).then(|| Duration::from_millis(ms));
            }
            SetOption::Depth(d) => s.depth = (d > 0).then_some(d),
            SetOption::Threads(t) => s.threads = t,
            // Resized in `set_hash`.
            SetOption::Hash(_) => {}
            SetOption::Size(size) => {
                s.size = size;
                s.layout = None;
            }
            SetOption::Strict(b) => s.strict = b,
            SetOption::ColourOnly(b) => s.colour_only = b,
            SetOption::Rotated(b) => s.rotated = b,
            SetOption::Info(m) => s.info = m,
            SetOption::Level(level) => s.set_level(level),
            SetOption::Style(style) => s.style = style,
            // Loaded (and checked) in `command`.
            SetOption::Eval(_) | SetOption::Egdb(_) | SetOption::Book(_) | SetOption::Record(_) => {
            }
            // Handled above.
            SetOption::Clock(_) | SetOption::TimeLeft(_) | SetOption::Ponder(_) => {}
        }
    }

    /// The clock back to its base time, no moves played.
    fn reset_clock(&mut self) {
        self.clock_left = self.settings.clock.map_or(Duration::ZERO, |tc| tc.base);
        self.bot_moves = 0;
    }

    /// Stops a ponder search, if one runs (the engine thread takes the next job once it has
    /// stopped, within a few hundred nodes).
    fn stop_pondering(&mut self) {
        if self.pondering {
            self.ponder_stop.store(true, Ordering::Relaxed);
            self.pondering = false;
            tracing::debug!("ponder stopped");
        }
    }

    /// After the bot's move: search the position the person now faces (all their replies), with
    /// no time limit, until their board arrives; the real search then finds the table warm.
    fn start_pondering(&mut self) {
        if !self.settings.ponder || self.exiting || self.pondering {
            return;
        }
        let Some(game) = self.tracker.game() else {
            return;
        };
        if game.status() != crate::rules::game::Status::Ongoing {
            return;
        }
        let (pos, history) = (*game.current(), game.history_keys());
        self.ponder_stop.store(false, Ordering::Relaxed);
        let job = Job::Ponder(SearchJob {
            pos,
            history,
            weights: self.settings.style.weights(),
            misstep: None,
            limits: Limits {
                movetime: None,
                depth: self.settings.depth,
                nodes: None,
            },
            soft: None,
            received: Instant::now(),
            threads: self.settings.threads,
            learned: self.settings.learned.clone(),
            egdb: self.settings.egdb.clone(),
            new_game: false,
            book: None,
            book_margin: 0,
        });
        if self.jobs.send(job).is_ok() {
            self.pondering = true;
            tracing::debug!("pondering");
        }
    }

    /// `set record DIR|off`: the directory must exist (it is created if its parent does).
    fn set_record(&mut self, dir: &str) {
        if matches!(dir, "off" | "none") {
            self.settings.record = None;
            return self.send(&Reply::Ok);
        }
        let path = PathBuf::from(dir);
        if let Err(e) = std::fs::create_dir_all(&path) {
            return self.error(
                ErrorCode::BadOption,
                format!("record: cannot use {}: {e}", path.display()),
            );
        }
        self.settings.record = Some(path);
        self.send(&Reply::Ok);
    }

    /// Writes the current game to the record directory, if one is set and the game was not
    /// written yet: `why` says how it ended.
    fn write_record(&mut self, result: GameResult, why: &str) {
        let (Some(dir), Some(game)) = (self.settings.record.clone(), self.tracker.game()) else {
            return;
        };
        if self.recorded || (game.plies() == 0 && result == GameResult::Unfinished) {
            return;
        }
        self.recorded = true;
        self.records += 1;
        let mut info = RecordInfo::new("checkersbot serve", self.records, "checkersbot", "person");
        info.comment = format!("{why}; level {}", self.settings.level);
        let text = write_game(&info, game.start(), game.moves(), result);
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let ext = if game.start().size() == BoardSize::S8 {
            "pdn"
        } else {
            "txt"
        };
        let path = dir.join(format!("game-{secs}-{:03}.{ext}", self.records));
        match std::fs::write(&path, text) {
            Ok(()) => tracing::info!("game record written to {}", path.display()),
            Err(e) => tracing::warn!("cannot write the game record {}: {e}", path.display()),
        }
    }

    /// Writes the current game before it is replaced or the daemon ends: unfinished, or with its
    /// result if the bot's last move ended it (its board not seen yet).
    fn record_abandoned(&mut self, why: &str) {
        match self.tracker.game().map(Game::status) {
            Some(status) if status.is_over() => self.record_result(status),
            _ => self.write_record(GameResult::Unfinished, why),
        }
    }

    fn record_result(&mut self, status: Status) {
        let result = match status {
            Status::Win { winner } => GameResult::Win(winner),
            _ => GameResult::Draw,
        };
        self.write_record(result, &format!("gameover {status}"));
    }

    /// Answers `gameover` and writes the record of the game.
    fn game_over(&mut self, status: Status) {
        self.record_result(status);
        self.send(&Reply::GameOver(status));
    }

    /// Runs an analysis on the (idle) engine thread and waits for its lines.
    fn run_analysis(
        &mut self,
        pos: AnyPosition,
        history: Vec<u64>,
        lines: usize,
    ) -> Option<Vec<SearchResult>> {
        // The engine thread takes one job at a time: a ponder search would hold the analysis.
        self.stop_pondering();
        let (tx, rx) = channel();
        let (mut limits, _) = self.settings.limits(self.clock_left, self.bot_moves);
        // The move time is shared among the lines.
        limits.movetime = limits.movetime.map(|t| t / lines.max(1) as u32);
        let job = Job::Analyse(AnalyseJob {
            pos,
            history,
            limits,
            lines,
            threads: self.settings.threads,
            learned: self.settings.learned.clone(),
            egdb: self.settings.egdb.clone(),
            weights: self.settings.style.weights(),
            reply: tx,
        });
        self.stop.store(false, Ordering::Relaxed);
        if self.jobs.send(job).is_err() {
            tracing::error!("the engine thread is gone");
            return None;
        }
        rx.recv().ok()
    }

    /// `analyse N [POSITION]`: the best N moves, without touching the game.
    fn analyse(&mut self, lines: usize, setup: Option<Setup>) {
        let (pos, history) = match setup {
            None => match self.tracker.game() {
                Some(game) => (*game.current(), game.history_keys()),
                None => {
                    return self.error(
                        ErrorCode::NoGame,
                        "no game: give a position (analyse N ROWS SIDE) or start a game",
                    )
                }
            },
            Some(setup) => match self.setup_game(setup) {
                Ok(game) => (*game.current(), game.history_keys()),
                Err(e) => return self.send(&e.reply()),
            },
        };
        let Some(results) = self.run_analysis(pos, history, lines) else {
            return self.error(ErrorCode::Internal, "the engine is not running");
        };
        for (i, r) in results.iter().enumerate() {
            let info = SearchInfo::of(&r.info, self.settings.timing);
            self.send(&Reply::Line { rank: i + 1, info });
        }
        self.send(&Reply::Ok);
    }

    /// `hint`: the person's best move in the game.
    fn hint(&mut self) {
        let Some(game) = self.tracker.game() else {
            return self.error(
                ErrorCode::NoGame,
                "no game in progress: send newgame and the first board, or position",
            );
        };
        let status = game.status();
        if status.is_over() {
            return self.error(
                ErrorCode::GameOver,
                format!("the game is over ({status}); send newgame or position"),
            );
        }
        if game.current().side() != Side::Player {
            return self.error(
                ErrorCode::NotPersonsTurn,
                "the bot is to move: send the board",
            );
        }
        let (pos, history) = (*game.current(), game.history_keys());
        let best = self
            .run_analysis(pos, history, 1)
            .and_then(|mut r| r.pop())
            .filter(|r| r.best.is_some());
        match best {
            Some(r) => {
                if self.settings.info != InfoMode::Off {
                    let line = SearchInfo::of(&r.info, self.settings.timing);
                    self.send(&Reply::Info(InfoLine::Search(line)));
                }
                if let Some(mv) = r.best {
                    self.send(&Reply::Hint(mv));
                }
            }
            None => self.error(ErrorCode::Internal, "the engine found no move"),
        }
    }

    /// `takeback`: the person's last move and the bot's reply are taken back.
    fn take_back(&mut self) {
        if self.tracker.game().is_none() {
            return self.error(
                ErrorCode::NoGame,
                "no game in progress: send newgame and the first board, or position",
            );
        }
        // The position being pondered is no longer the person's.
        self.stop_pondering();
        match self.tracker.take_back() {
            Some(pos) => {
                self.recorded = false;
                self.send(&Reply::Expect {
                    rows: pos.to_line(),
                    side: pos.side(),
                });
            }
            None => self.error(
                ErrorCode::NothingToTakeBack,
                "the person has not moved in this game",
            ),
        }
    }

    /// The game a `position` (or `analyse`) setup describes, with its history.
    fn setup_game(&self, setup: Setup) -> Result<Game, ProtocolError> {
        let base = |setup: &Setup| -> Result<AnyPosition, ProtocolError> {
            let (grid, side) = match setup {
                Setup::Rows { rows, side } => (
                    Grid::parse_line(rows)
                        .map_err(|e| ProtocolError::new(ErrorCode::BadBoard, e.to_string()))?,
                    *side,
                ),
                Setup::Fen(fen) => parse_fen(fen, self.settings.size)
                    .map_err(|e| ProtocolError::new(ErrorCode::BadFen, e.to_string()))?,
                Setup::Start(side) => (initial_grid(self.settings.size), *side),
                Setup::Pdn(_) | Setup::Moves { .. } => {
                    return Err(ProtocolError::new(
                        ErrorCode::Syntax,
                        "a move list follows a position",
                    ))
                }
            };
            Ok(AnyPosition::from_grid(&grid, side))
        };
        let pdn_error = |e: PdnError| match e {
            PdnError::Illegal { .. } => ProtocolError::new(ErrorCode::IllegalMove, e.to_string()),
            PdnError::Fen(_) => ProtocolError::new(ErrorCode::BadFen, e.to_string()),
            _ => ProtocolError::new(ErrorCode::BadPdn, e.to_string()),
        };
        let (start, moves) = match &setup {
            Setup::Pdn(text) => read_game(text).map_err(pdn_error)?,
            Setup::Moves { start, moves } => {
                let start = base(start)?;
                let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
                let moves = play_moves(&start, &texts).map_err(pdn_error)?;
                (start, moves)
            }
            other => (base(other)?, Vec::new()),
        };
        let mut game = Game::new(start);
        for m in &moves {
            if game.play(m).is_none() {
                return Err(ProtocolError::new(
                    ErrorCode::Internal,
                    "a move list did not replay",
                ));
            }
        }
        Ok(game)
    }

    /// `set hash`: the table is allocated before `ok`, or refused (the old one kept) with what the
    /// machine has.
    fn set_hash(&mut self, mb: usize) {
        if self.pending.is_some() {
            return self.error(
                ErrorCode::Busy,
                "the table is in use by a search; set hash after its move",
            );
        }
        if mb == self.settings.hash_mb {
            return self.send(&Reply::Ok);
        }
        let threads = self.settings.threads;
        match self.prepare(Job::Resize { mb, threads }) {
            Ok(took) => {
                tracing::info!(
                    "transposition table: {mb} MiB allocated in {} ms",
                    took.as_millis()
                );
                self.settings.hash_mb = mb;
                self.send(&Reply::Ok);
            }
            Err(e) => {
                tracing::warn!("set hash {mb} refused: {e}");
                self.error(
                    ErrorCode::BadOption,
                    format!("{e}; the table stays {} MiB", self.settings.hash_mb),
                );
            }
        }
    }

    /// Runs a table job on the (idle) engine thread and waits for it: `ok` follows only once the
    /// table is ready. Input keeps queueing meanwhile.
    fn prepare(&mut self, job: Job) -> Ready {
        self.stop_pondering();
        let gone = || TableError::Alloc { mib: 0, bytes: 0 };
        if self.jobs.send(job).is_err() {
            tracing::error!("the engine thread is gone");
            return Err(gone());
        }
        self.ready.recv().map_err(|_| {
            tracing::error!("the engine thread is gone");
            gone()
        })?
    }

    /// Clears the table for a new game before its `ok`.
    fn clear_table(&mut self) {
        let threads = self.settings.threads;
        match self.prepare(Job::Clear { threads }) {
            Ok(took) => {
                self.new_game = false;
                tracing::info!(
                    "transposition table: {} MiB cleared in {} ms",
                    self.settings.hash_mb,
                    took.as_millis()
                );
            }
            // The next search clears it then.
            Err(_) => self.new_game = true,
        }
    }

    fn newgame(&mut self, layout: Option<Layout>) {
        let start = match layout {
            None => self
                .settings
                .layout
                .clone()
                .unwrap_or_else(|| initial_grid(self.settings.size)),
            Some(Layout::Size(size)) => initial_grid(size),
            Some(Layout::Rows(rows)) => match Grid::parse_line(&rows) {
                Ok(g) => g,
                Err(e) => return self.error(ErrorCode::BadBoard, e.to_string()),
            },
        };
        self.record_abandoned("abandoned at newgame");
        self.recorded = false;
        self.settings.size = start.size();
        self.tracker.new_game(start);
        self.reset_clock();
        self.clear_table();
        self.send(&Reply::Ok);
    }

    fn position(&mut self, setup: Setup) {
        let game = match self.setup_game(setup) {
            Ok(g) => g,
            Err(e) => return self.send(&e.reply()),
        };
        self.record_abandoned("abandoned at position");
        self.recorded = false;
        self.settings.size = game.current().size();
        self.tracker.set_game(game);
        self.reset_clock();
        self.clear_table();
        self.send(&Reply::Ok);
    }

    fn board(&mut self, rows: &str, side: Side) {
        let reading = Reading {
            colour_only: self.settings.colour_only,
            strict: self.settings.strict,
        };
        let board = match camera_grid(rows, self.settings.rotated, reading.colour_only) {
            Ok(g) => g,
            Err(e) => return self.error(ErrorCode::BadBoard, e.to_string()),
        };
        match self.tracker.observe(&board, side, reading) {
            Ok(Observation::Same(next)) => self.next(next),
            Ok(Observation::OpponentMoved(mv, next)) => {
                tracing::info!("opponent played {}", mv.notation());
                self.send(&Reply::Info(InfoLine::Opponent(mv)));
                self.next(next);
            }
            Ok(Observation::MoveInProgress { mv, stage }) => {
                let message = Diagnosis::InProgress {
                    mv,
                    stage: stage.clone(),
                }
                .to_string();
                self.send(&Reply::Wait { stage, message });
            }
            Ok(Observation::Accepted { board, side, next }) => {
                tracing::warn!("lenient mode: accepting an unexplained board as a new position");
                self.send(&Reply::Info(InfoLine::Accepted {
                    rows: board.to_line(),
                    side,
                }));
                self.new_game = true;
                self.next(next);
            }
            Err(rejection) => self.rejected(rejection),
        }
    }

    /// The error reply for a board the tracker rejects.
    fn rejected(&mut self, rejection: Rejection) {
        match rejection {
            Rejection::NoGame => {
                self.error(ErrorCode::NoGame, "no game: send newgame or position first")
            }
            Rejection::BadBoard(message) => self.error(ErrorCode::BadBoard, message),
            Rejection::ArmIncomplete { diffs, mv } => self.error(
                ErrorCode::ArmIncomplete,
                format!(
                    "{}: the arm has not completed move {} (the board differs from the position after it)",
                    squares_list(&diffs),
                    Reply::Move(mv).to_string().trim_start_matches("move ")
                ),
            ),
            Rejection::WrongPieceCrowned {
                diffs,
                mv,
                should,
                crowned,
            } => self.error(
                ErrorCode::ArmIncomplete,
                format!(
                    "{}: the arm has not completed move {}: the man on {should} is not crowned \
                     and the man on {crowned} was crowned instead; make {crowned} a man again \
                     and crown {should}",
                    squares_list(&diffs),
                    Reply::Move(mv).to_string().trim_start_matches("move ")
                ),
            ),
            Rejection::IllegalTransition {
                diffs,
                why,
                diagnosis,
            } => {
                let said = match diagnosis {
                    Some(d) if *d != Diagnosis::Unknown => format!("{}: {d}", d.word()),
                    _ => format!("unexplained: {why}"),
                };
                self.error(
                    ErrorCode::IllegalTransition,
                    format!("{}: {said}", squares_list(&diffs)),
                )
            }
            Rejection::AfterGameOver { diffs, status } => self.error(
                ErrorCode::GameOver,
                format!(
                    "{}: the game is over ({status}); send newgame or position",
                    squares_list(&diffs)
                ),
            ),
        }
    }

    /// The board shows the game's current position: game over, the person's turn (unchanged) or
    /// the bot's (search).
    fn next(&mut self, next: Next) {
        match next {
            Next::GameOver(status) => self.game_over(status),
            Next::PlayerToMove => self.send(&Reply::Unchanged),
            Next::BotToMove => match self.tracker.game() {
                Some(game) => {
                    let (pos, history) = (*game.current(), game.history_keys());
                    self.start_search(pos, history, self.received);
                }
                None => self.error(ErrorCode::Internal, "no game to search"),
            },
        }
    }

    fn start_search(&mut self, pos: AnyPosition, history: Vec<u64>, received: Instant) {
        self.stop_pondering();
        self.stop.store(false, Ordering::Relaxed);
        let (limits, soft) = self.settings.limits(self.clock_left, self.bot_moves);
        if let (Some(tc), Some(hard)) = (&self.settings.clock, limits.movetime) {
            tracing::info!(
                "clock {tc}: {} ms left, move {}: budget {} ms (hard {} ms)",
                self.clock_left.as_millis(),
                self.bot_moves + 1,
                soft.unwrap_or(hard).as_millis(),
                hard.as_millis()
            );
        }
        let job = Job::Search(SearchJob {
            pos,
            history,
            limits,
            soft,
            received,
            threads: self.settings.threads,
            learned: self.settings.learned.clone(),
            egdb: self.settings.egdb.clone(),
            new_game: std::mem::take(&mut self.new_game),
            weights: self.settings.style.weights(),
            misstep: self.settings.level.misstep(),
            book: self.settings.book.clone(),
            book_margin: self.settings.level.book_margin(),
        });
        if self.jobs.send(job).is_err() {
            tracing::error!("the engine thread is gone");
            return self.error(ErrorCode::Internal, "the engine is not running");
        }
        self.pending = Some(Pending {
            received,
            stops: 0,
            quit: false,
        });
        if self.exiting {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    fn search_done(&mut self, result: SearchResult) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        if self.settings.info == InfoMode::Final && (result.info.depth > 0 || result.info.book) {
            let line = SearchInfo::of(&result.info, self.settings.timing);
            self.send(&Reply::Info(InfoLine::Search(line)));
        }
        tracing::info!(
            "search: depth {} score {} nodes {} time {} ms, stop {}",
            result.info.depth,
            result.info.score,
            result.info.nodes,
            result.info.time.as_millis(),
            result.reason.word()
        );
        match (self.tracker.game().map(|g| g.status()), result.best) {
            (Some(_), Some(mv)) => {
                if self.tracker.bot_moved(&mv) {
                    self.send(&Reply::Move(mv));
                    self.clock_moved(pending.received.elapsed());
                } else {
                    tracing::error!("the engine answered an illegal move {}", mv.notation());
                    self.error(ErrorCode::Internal, "the engine answered an illegal move");
                }
            }
            (Some(status), None) => self.game_over(status),
            (None, _) => self.error(ErrorCode::Internal, "no game to play the move in"),
        }
        for _ in 0..pending.stops {
            self.send(&Reply::Ok);
        }
        if pending.quit {
            self.send(&Reply::Bye);
        }
        self.start_pondering();
        self.ack_if_idle();
    }

    /// Counts a bot move that took `spent` (from reading the board to queueing the move) on the
    /// clock.
    fn clock_moved(&mut self, spent: Duration) {
        let Some(tc) = self.settings.clock else {
            return;
        };
        self.bot_moves += 1;
        let before = self.clock_left;
        self.clock_left = match tc.after_move(before, spent, self.bot_moves) {
            Some(left) => left,
            None => {
                tracing::error!(
                    "the bot's clock ran out: move {} took {} ms with {} ms left",
                    self.bot_moves,
                    spent.as_millis(),
                    before.as_millis()
                );
                tc.inc
            }
        };
        tracing::info!(
            "clock: move {} took {} ms; {} ms left",
            self.bot_moves,
            spent.as_millis(),
            self.clock_left.as_millis()
        );
    }
}

/// The engine thread's stop flags: the real search's and the ponder search's.
struct Stops {
    search: Arc<AtomicBool>,
    ponder: Arc<AtomicBool>,
}

/// Gives the engine a job's settings: threads, evaluation, database and weights.
fn configure(
    engine: &mut Engine,
    threads: usize,
    learned: LearnedSet,
    egdb: Option<Arc<Egdb>>,
    weights: Weights,
) {
    engine.set_threads(threads);
    engine.set_learned(learned);
    engine.set_egdb(egdb);
    engine.set_weights(weights);
}

fn engine_thread(
    mut engine: Engine,
    mut rng: Rng,
    jobs: Receiver<Job>,
    ready: Sender<Ready>,
    events: Sender<Event>,
    stops: Stops,
) {
    let stop = stops.search.clone();
    while let Ok(job) = jobs.recv() {
        let job = match job {
            Job::Search(job) => job,
            Job::Ponder(job) => {
                configure(&mut engine, job.threads, job.learned, job.egdb, job.weights);
                let r = engine.search(
                    &job.pos,
                    &job.history,
                    &job.limits,
                    &stops.ponder,
                    &mut |_| {},
                );
                tracing::debug!(
                    "ponder: depth {} nodes {} in {} ms ({})",
                    r.info.depth,
                    r.info.nodes,
                    r.info.time.as_millis(),
                    r.reason.word()
                );
                continue;
            }
            Job::Analyse(job) => {
                configure(&mut engine, job.threads, job.learned, job.egdb, job.weights);
                let lines = engine.analyse(
                    &job.pos,
                    &job.history,
                    &job.limits,
                    job.lines,
                    &stops.search,
                );
                if job.reply.send(lines).is_err() {
                    break;
                }
                continue;
            }
            Job::Resize { mb, threads } => {
                engine.set_threads(threads);
                if ready.send(engine.try_set_hash_mb(mb)).is_err() {
                    break;
                }
                continue;
            }
            Job::Clear { threads } => {
                engine.set_threads(threads);
                if ready.send(Ok(engine.clear_table())).is_err() {
                    break;
                }
                continue;
            }
        };
        configure(&mut engine, job.threads, job.learned, job.egdb, job.weights);
        engine.set_book(job.book);
        engine.set_book_margin(job.book_margin);
        if job.new_game {
            // A board taken as a new position (lenient mode): cleared on this move's clock.
            engine.new_game();
        }
        // The move time counts from reading the board.
        let mut limits = job.limits;
        limits.movetime = limits
            .movetime
            .map(|t| t.saturating_sub(job.received.elapsed()));
        let tx = events.clone();
        let soft = job.soft.map(|t| t.saturating_sub(job.received.elapsed()));
        let mut report = |info: &Info| {
            tx.send(Event::Progress(info.clone())).ok();
        };
        // The book first, its moves chosen with the level's seed.
        let book = engine.book_move(&job.pos, Some(&mut rng));
        let result = if let Some(r) = book {
            report(&r.info);
            r
        } else if job.misstep.is_some() {
            // A level's missteps choose among the best moves (no clock budget: the levels that
            // misstep play at a fixed depth).
            choose_move(
                &mut engine,
                &job.pos,
                &job.history,
                &limits,
                job.misstep,
                &mut rng,
                &stop,
                &mut report,
            )
        } else {
            engine.search_soft(&job.pos, &job.history, &limits, soft, &stop, &mut report)
        };
        if events.send(Event::SearchDone(result)).is_err() {
            break;
        }
    }
}

/// Runs a daemon over `input` in lockstep: each line is handed over only after the previous one
/// is fully answered, so the output does not depend on timing. Used by `replay` and the tests.
///
/// Fails only when the table cannot be had (see [`Daemon::new`]); a fatal input error ends the
/// replay early and is logged.
pub fn replay<R: std::io::Read + Send + 'static>(
    settings: Settings,
    input: R,
    out: Box<dyn LineSink>,
) -> Result<(), TableError> {
    let (tx, rx) = channel();
    let (ack_tx, ack_rx) = channel();
    let daemon = Daemon::new(settings, out, tx.clone())?.with_ack(ack_tx);
    std::thread::spawn(move || {
        let mut reader = crate::robot::transport::LineReader::new(input);
        let mut deliver =
            |input: Input| tx.send(Event::Input(input)).is_ok() && ack_rx.recv().is_ok();
        if let Err(e) = reader.pump(&mut deliver) {
            tracing::warn!("read error: {e}");
        }
        deliver(Input::End);
    });
    if let Err(e) = daemon.run(rx) {
        tracing::error!("{e}");
    }
    Ok(())
}
