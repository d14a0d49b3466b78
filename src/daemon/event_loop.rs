//! The daemon: the one owner of the game state. It receives [`Event`]s on a channel (input lines
//! from a reader thread, search progress from the engine thread, signals), decides, and queues
//! replies on its single writer ([`Outbox`]), which writes them in order and keeps those the link
//! cannot take now. The rules it follows are those of
//! `protocol/PROTOCOL.md`: game tracking with inference of the opponent's move, arm-failure and
//! misread diagnosis, unchanged boards, colour-only and rotated cameras, strict and lenient modes.
//!
//! The engine runs on its own thread ([`Daemon::new`] starts it) and is stopped through a shared
//! flag, so the daemon keeps answering `ping` and `stop` while it searches, analyses or looks
//! for a hint (the same flag, the same signal handling: a job of the engine thread whose reply
//! comes back as an event). Its table is allocated
//! (after a check that the machine can hold it) and cleared on that thread before `ok` is
//! answered to `set hash`, `newgame` and `position`, never on a move's clock.
//!
//! With a game clock ([`crate::engine::clock`]) the daemon keeps the bot's time left and gives each
//! search a soft and a hard limit from it. With pondering, after each move the engine thread
//! searches the position the person faces until their board arrives (a job of its own, stopped
//! through a flag of its own, with no reports), so that the next search finds the table warm.

use crate::camera::orientation::{self, Hint};
use crate::camera::tracking::{
    camera_grid, squares_list, AutoNewGame, Diagnosis, Next, Observation, Reading, Rejection,
    Tracker,
};
use crate::daemon::files::{check_record_dir, read_regular, write_atomically};
use crate::daemon::options;
use crate::daemon::outbox::{FlowControl, Outbox};
use crate::daemon::protocol::{
    Command, ErrorCode, InfoLine, InfoMode, Layout, ProtocolError, Reply, SearchInfo, SetOption,
    Setup,
};
use crate::daemon::snapshot::{Feed, SearchView, Snapshot};
use crate::daemon::status::{self, Observed};
use crate::daemon::transport::{FrameError, Input, LineSink};
use crate::engine::book::{Book, BookSpec};
use crate::engine::clock::TimeControl;
use crate::engine::egdb::probe::DEFAULT_CACHE_MB;
use crate::engine::egdb::Egdb;
use crate::engine::eval::{load_eval, LearnedSet, Weights};
use crate::engine::tt::TableError;
use crate::engine::{Engine, EngineConfig, Info, Limits, SearchResult};
use crate::play::level::{choose_move, Level, Misstep, Style};
use crate::rng::Rng;
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
    /// The running analysis's lines (of `analyse` or `hint`), best first.
    AnalysisDone(Vec<SearchResult>),
    /// A file loaded on a thread of its own (`set eval PATH`, `set egdb DIR`).
    Loaded(Loaded),
    /// The output closed for good (a pipe whose reader has gone).
    OutputClosed,
}

/// What a loader thread read, for `set eval PATH` and `set egdb DIR`.
#[derive(Debug)]
pub enum Loaded {
    /// Weights for `set eval`.
    Eval {
        /// The path as given.
        spec: String,
        /// The weights, or why not.
        result: Result<LearnedSet, String>,
    },
    /// A database for `set egdb`.
    Egdb {
        /// The directory as given.
        spec: String,
        /// The database, or why not.
        result: Result<Arc<Egdb>, String>,
    },
}

/// How long the daemon waits at its end for replies the link cannot take yet: it gives up when
/// none could be written for this long.
pub const FLUSH_PATIENCE: Duration = Duration::from_secs(10);

/// Time kept back from each move time for the daemon's own work and the write.
pub const MOVE_OVERHEAD: Duration = Duration::from_millis(5);

/// The largest weights file `set eval` reads.
pub const MAX_EVAL_FILE: u64 = 16 << 20;

/// Why an option naming a path is refused over a link that may not name paths.
const PATHS_REFUSED: &str =
    "paths are not accepted over this link (start serve with --allow-paths to allow them)";

/// The time an `analyse` or `hint` may take when no move time is set (`movetime 0`): an
/// analysis without any limit runs only when asked for (`analyse N infinite`).
pub const ANALYSIS_CAP: Duration = Duration::from_secs(10);

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
            paths_allowed: true,
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

/// An analysis for the engine thread; the lines come back as [`Event::AnalysisDone`].
struct AnalyseJob {
    pos: AnyPosition,
    history: Vec<u64>,
    limits: Limits,
    lines: usize,
    /// No limit: rounds of all the lines at growing depth until stopped.
    infinite: bool,
    threads: usize,
    learned: LearnedSet,
    egdb: Option<Arc<Egdb>>,
    weights: Weights,
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

/// What a job of the engine thread answers when it is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Work {
    /// The bot's move (`board`).
    Move,
    /// `analyse`: `line` lines, then `ok`.
    Analyse,
    /// `hint`.
    Hint,
    /// `set eval PATH` or `set egdb DIR`: `ok` or `error bad-option`.
    Load,
}

/// A search, analysis or hint in progress.
#[derive(Debug)]
struct Pending {
    work: Work,
    /// When the request that started it was read (the clock counts from here).
    received: Instant,
    /// The connection that asked (its replies go there only).
    session: Option<u64>,
    /// Ends only when stopped (`analyse N infinite`).
    unbounded: bool,
    /// Replies that follow the job's, in order, with their connections: `ok` for each `stop`,
    /// `pong TOKEN` for each `ping TOKEN` (a barrier).
    after: Vec<(Option<u64>, Reply)>,
    /// A `quit` to answer with `bye` after the reply, with its connection.
    quit: Option<Option<u64>>,
}

/// Replies that may wait for a job (`stop`, `ping TOKEN`); more requests of these kinds get
/// `error busy`, so that a flood of them cannot grow the daemon.
pub const MAX_WAITING_FOR_JOB: usize = 64;

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
    /// The connection the requests come from now (`None`: a link without connections).
    session: Option<u64>,
    /// The connection the replies being queued answer.
    to: Option<u64>,
    /// The daemon's own event channel (loader threads answer on it).
    events: Sender<Event>,
    /// The last board and what it got, for `status`.
    observed: Observed,
    /// Where snapshots for the operator page go (`serve --http`), if anywhere.
    feed: Option<Feed>,
    /// Something the operator page shows may have changed while handling the current event.
    dirty: bool,
    /// Lines queued while an event is handled, released to the outbox after the operator page's
    /// snapshot is published: a client that has read a reply finds the page already showing it.
    held: Vec<(String, bool, Option<u64>)>,
    /// The bot's last search in this game, for the operator page.
    search_view: Option<SearchView>,
    /// The last final reply to a `board`, for the operator page.
    board_reply: Option<String>,
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
        let own_events = events.clone();
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
            session: None,
            to: None,
            events: own_events,
            observed: Observed::default(),
            feed: None,
            dirty: false,
            held: Vec::new(),
            search_view: None,
            board_reply: None,
        })
    }

    /// The writer's flow control, for the reader (see [`crate::daemon::outbox`]).
    pub fn flow_control(&self) -> FlowControl {
        self.out.flow_control()
    }

    /// Publishes a [`Snapshot`] to `feed` now and after every event that may change what the
    /// operator page shows (`serve --http`). Building one is the daemon's only work for the page.
    pub fn with_feed(mut self, feed: Feed) -> Daemon {
        self.feed = Some(feed);
        self.publish();
        self
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
        self.release();
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

    /// Handles an event and tells the outbox how many requests are answered (flow control: see
    /// [`crate::daemon::outbox`]). A request that starts a job counts as unanswered until the
    /// job's reply is queued; the replies that wait for a job (`stop`, `ping TOKEN`, `quit`) are
    /// few ([`MAX_WAITING_FOR_JOB`]) and queued with it, so they do not hold the reader.
    fn handle(&mut self, event: Event) {
        let input = usize::from(matches!(event, Event::Input(_)));
        let before = usize::from(self.pending.is_some());
        self.to = self.session;
        self.dispatch(event);
        let after = usize::from(self.pending.is_some());
        if std::mem::take(&mut self.dirty) {
            self.publish();
        }
        self.release();
        self.out.answered((before + input).saturating_sub(after));
    }

    /// Hands the lines held during an event to the outbox, in order.
    fn release(&mut self) {
        for (line, is_final, to) in self.held.drain(..) {
            self.out.push(line, is_final, to);
        }
    }

    /// Publishes what the operator page shows, if a page is served.
    fn publish(&self) {
        let Some(feed) = &self.feed else {
            return;
        };
        let game = self.tracker.game();
        feed.publish(Snapshot {
            status: status::report(
                &self.tracker,
                &self.settings,
                self.pending.is_some(),
                self.clock_left,
                &self.observed,
            ),
            last_reply: self.board_reply.clone(),
            search: self.search_view.clone(),
            start: game.map(|g| *g.start()),
            moves: game.map(|g| g.moves().to_vec()).unwrap_or_default(),
            movetime_ms: self.settings.movetime.map(|t| t.as_millis() as u64),
            depth_limit: self.settings.depth,
        });
    }

    fn dispatch(&mut self, event: Event) {
        match event {
            Event::Input(Input::Connected(session)) => {
                tracing::debug!("connection {session}");
                self.session = Some(session);
                self.ack_if_idle();
            }
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
                // A search under way finishes with its full budget and is answered first; an
                // analysis without limits has none, and stops.
                tracing::info!("end of input");
                self.exiting = true;
                self.stop_pondering();
                if self.pending.as_ref().is_some_and(|p| p.unbounded) {
                    self.stop.store(true, Ordering::Relaxed);
                }
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
                if let Some(p) = &self.pending {
                    if p.work == Work::Move {
                        if let Some(view) = &mut self.search_view {
                            view.update(&info);
                            self.dirty = true;
                        }
                    }
                    if self.settings.info == InfoMode::Iterations && p.work == Work::Move {
                        self.to = p.session;
                        let line = SearchInfo::of(&info, self.settings.timing);
                        self.send(&Reply::Info(InfoLine::Search(line)));
                    }
                }
            }
            Event::SearchDone(result) => {
                self.dirty = true;
                self.search_done(result)
            }
            Event::AnalysisDone(lines) => self.analysis_done(lines),
            Event::Loaded(loaded) => {
                self.dirty = true;
                self.loaded(loaded)
            }
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

    /// Holds a line for the connection the replies now answer, until the event is handled (see
    /// [`Daemon::release`]); transcript echoes and final replies are never dropped, `info` lines
    /// may be.
    fn raw(&mut self, line: String, is_final: bool) {
        self.held.push((line, is_final, self.to));
    }

    fn send(&mut self, reply: &Reply) {
        let text = reply.to_string();
        // A `pong TOKEN` (a client resynchronising) is not recorded, so that `repeat` after it
        // still gives the reply before.
        if reply.is_final() && !matches!(reply, Reply::Pong(Some(_))) {
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
        // Requests that only read leave the operator page as it is.
        self.dirty |= !matches!(
            cmd,
            Command::Hello
                | Command::Ping(_)
                | Command::Repeat
                | Command::Options
                | Command::Status
        );
        match cmd {
            Command::Hello => self.send(&Reply::hello()),
            Command::Ping(Some(_)) | Command::Stop
                if self.waiting_for_job() >= MAX_WAITING_FOR_JOB =>
            {
                self.error(
                    ErrorCode::Busy,
                    format!(
                        "{MAX_WAITING_FOR_JOB} replies already wait for the search; wait for it"
                    ),
                );
            }
            // With a token, `ping` is a barrier: its `pong` follows every reply to an earlier
            // request (also a move being searched); without, it is answered at once.
            Command::Ping(Some(token)) if busy => {
                if let Some(p) = &mut self.pending {
                    p.after.push((self.session, Reply::Pong(Some(token))));
                }
            }
            Command::Ping(token) => self.send(&Reply::Pong(token)),
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
                    p.after.push((self.session, Reply::Ok));
                    self.stop.store(true, Ordering::Relaxed);
                }
                None => {
                    self.stop_pondering();
                    self.send(&Reply::Ok);
                }
            },
            Command::Quit => match &mut self.pending {
                Some(p) => {
                    p.quit = Some(self.session);
                    self.exiting = true;
                    self.stop.store(true, Ordering::Relaxed);
                }
                None => {
                    self.send(&Reply::Bye);
                    self.exiting = true;
                }
            },
            Command::Set(SetOption::Eval(spec)) if matches!(spec.as_str(), "hand" | "learned") => {
                match load_eval(&spec) {
                    Ok(learned) => self.loaded(Loaded::Eval {
                        spec,
                        result: Ok(learned),
                    }),
                    Err(e) => self.error(ErrorCode::BadOption, format!("eval: {e}")),
                }
            }
            Command::Set(SetOption::Egdb(spec)) if matches!(spec.as_str(), "off" | "none") => {
                self.settings.egdb_dir = None;
                self.settings.egdb = None;
                self.send(&Reply::Ok);
            }
            Command::Set(SetOption::Eval(_) | SetOption::Egdb(_)) if busy => self.busy(),
            Command::Set(SetOption::Eval(spec)) => self.start_load(spec, true),
            Command::Set(SetOption::Egdb(spec)) => self.start_load(spec, false),
            Command::Set(SetOption::Hash(mb)) => self.set_hash(mb),
            Command::Set(SetOption::Book(spec))
                if !self.settings.paths_allowed
                    && !matches!(spec.as_str(), "builtin" | "off" | "none") =>
            {
                self.error(
                    ErrorCode::BadOption,
                    "book: files may not be named over this link (serve --allow-paths); use builtin or off",
                )
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
            Command::Analyse { .. }
            | Command::Hint
            | Command::TakeBack
            | Command::NewGame(_)
            | Command::Position(_)
            | Command::Board { .. }
                if busy =>
            {
                self.busy();
            }
            Command::Analyse {
                lines,
                infinite,
                setup,
            } => self.analyse(lines, infinite, setup),
            Command::Hint => self.hint(),
            Command::TakeBack => self.take_back(),
            Command::NewGame(layout) => self.newgame(layout),
            Command::Position(setup) => self.position(setup),
            Command::Board { rows, side } => {
                self.board(&rows, side);
                // A search started: the board fit the game.
                let reply = self.pending.is_none().then_some(self.last_final.as_deref());
                self.observed.note(&rows, &self.settings, reply.flatten());
                if self.pending.is_none() && self.feed.is_some() {
                    self.board_reply = self.last_final.clone();
                }
            }
            // Changes nothing, so it is answered at once, also while the engine thinks.
            Command::Status => {
                let report = status::report(
                    &self.tracker,
                    &self.settings,
                    busy,
                    self.clock_left,
                    &self.observed,
                );
                self.send(&Reply::Status(Box::new(report)));
            }
        }
    }

    /// Replies waiting for the job in progress.
    fn waiting_for_job(&self) -> usize {
        self.pending.as_ref().map_or(0, |p| p.after.len())
    }

    /// `error busy` for a request that needs the engine while it works.
    fn busy(&mut self) {
        let what = match self.pending.as_ref().map(|p| p.work) {
            Some(Work::Analyse) => "an analysis is running; wait for its ok or send stop",
            Some(Work::Hint) => "a hint is being searched; wait for it or send stop",
            Some(Work::Load) => "a file is being loaded; wait for its reply",
            _ => "a search is running; wait for its move or send stop",
        };
        let mut message = what.to_string();
        if self.settings.piped_stdin {
            message.push_str(
                " (stdin is a file or pipe: to answer a recorded file line by line, \
                 run `checkersbot replay FILE`)",
            );
        }
        self.error(ErrorCode::Busy, message);
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
            SetOption::AutoNewGame(p) => s.auto_newgame = p,
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

    /// A new game: the operator page forgets the last search and reply.
    fn forget_page_state(&mut self) {
        self.search_view = None;
        self.board_reply = None;
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

    /// `set eval PATH` (`eval`) or `set egdb DIR`: loaded on a thread of its own, so that the
    /// daemon answers `ping`, `stop` and signals meanwhile; the reply comes with
    /// [`Event::Loaded`]. A weights file is read only if it is a regular file of at most
    /// [`MAX_EVAL_FILE`] bytes (checked before reading: see [`crate::daemon::files`]).
    fn start_load(&mut self, spec: String, eval: bool) {
        if !self.settings.paths_allowed {
            return self.paths_refused(if eval { "eval" } else { "egdb" });
        }
        let events = self.events.clone();
        let cache_mb = self.settings.egdb_cache_mb;
        let work = move || {
            let loaded = if eval {
                let result = read_regular(std::path::Path::new(&spec), MAX_EVAL_FILE)
                    .map_err(|e| e.to_string())
                    .and_then(|bytes| {
                        crate::engine::eval::LearnedWeights::from_bytes(&bytes)
                            .map(LearnedSet::single)
                            .map_err(|e| format!("'{spec}': {e}"))
                    });
                Loaded::Eval { spec, result }
            } else {
                let result = Egdb::open(std::path::Path::new(&spec), cache_mb)
                    .map(Arc::new)
                    .map_err(|e| e.to_string());
                Loaded::Egdb { spec, result }
            };
            events.send(Event::Loaded(loaded)).ok();
        };
        if let Err(e) = std::thread::Builder::new()
            .name("loader".into())
            .spawn(work)
        {
            return self.error(ErrorCode::Internal, format!("cannot start a loader: {e}"));
        }
        self.pending = Some(Pending {
            work: Work::Load,
            received: self.received,
            session: self.session,
            unbounded: false,
            after: Vec::new(),
            quit: None,
        });
    }

    /// A loader's result: the setting changes (`ok`) or stays (`error bad-option`).
    fn loaded(&mut self, loaded: Loaded) {
        let pending = self.pending.take_if(|p| p.work == Work::Load);
        if let Some(p) = &pending {
            self.to = p.session;
        }
        match loaded {
            Loaded::Eval {
                spec,
                result: Ok(learned),
            } => {
                self.settings.learned = learned;
                self.settings.eval_name = spec;
                self.send(&Reply::Ok);
            }
            Loaded::Egdb {
                spec,
                result: Ok(db),
            } => {
                self.settings.egdb_dir = Some(PathBuf::from(&spec));
                self.settings.egdb = Some(db);
                self.send(&Reply::Ok);
            }
            Loaded::Eval { result: Err(e), .. } => {
                self.error(ErrorCode::BadOption, format!("eval: {e}"))
            }
            Loaded::Egdb { result: Err(e), .. } => {
                self.error(ErrorCode::BadOption, format!("egdb: {e}"))
            }
        }
        if let Some(p) = pending {
            self.answer_deferred(&p);
            self.ack_if_idle();
        }
    }

    /// `error bad-option` for an option naming a path over a link that may not.
    fn paths_refused(&mut self, option: &str) {
        self.error(ErrorCode::BadOption, format!("{option}: {PATHS_REFUSED}"));
    }

    /// `set record DIR|off`: the directory must be writable (it is created if its parent
    /// exists); checked now, so that a record that cannot be written fails here, not later.
    fn set_record(&mut self, dir: &str) {
        if matches!(dir, "off" | "none") {
            self.settings.record = None;
            return self.send(&Reply::Ok);
        }
        if !self.settings.paths_allowed {
            return self.paths_refused("record");
        }
        match check_record_dir(std::path::Path::new(dir)) {
            Ok(path) => {
                self.settings.record = Some(path);
                self.send(&Reply::Ok);
            }
            Err(e) => self.error(ErrorCode::BadOption, format!("record: {e}")),
        }
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
        match write_atomically(&path, &text) {
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

    /// Starts an analysis (of `analyse` or `hint`) on the (idle) engine thread; its lines come
    /// back as [`Event::AnalysisDone`]. Bounded by the move time (shared among the lines) or,
    /// without one, [`ANALYSIS_CAP`], and the depth; `infinite`: by nothing but `stop`.
    fn start_analysis(
        &mut self,
        work: Work,
        pos: AnyPosition,
        history: Vec<u64>,
        lines: usize,
        infinite: bool,
    ) {
        // The engine thread takes one job at a time: a ponder search would hold the analysis.
        self.stop_pondering();
        let (mut limits, _) = self.settings.limits(self.clock_left, self.bot_moves);
        if infinite {
            limits = Limits::default();
        } else {
            // The time is shared among the lines.
            let total = limits.movetime.unwrap_or(ANALYSIS_CAP);
            limits.movetime = Some(total / lines.max(1) as u32);
        }
        let job = Job::Analyse(AnalyseJob {
            pos,
            history,
            limits,
            lines,
            infinite,
            threads: self.settings.threads,
            learned: self.settings.learned.clone(),
            egdb: self.settings.egdb.clone(),
            weights: self.settings.style.weights(),
        });
        self.stop.store(false, Ordering::Relaxed);
        if self.jobs.send(job).is_err() {
            tracing::error!("the engine thread is gone");
            return self.error(ErrorCode::Internal, "the engine is not running");
        }
        self.pending = Some(Pending {
            work,
            received: self.received,
            session: self.session,
            unbounded: infinite,
            after: Vec::new(),
            quit: None,
        });
        if self.exiting {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// `analyse N [infinite] [POSITION]`: the best N moves, without touching the game.
    fn analyse(&mut self, lines: usize, infinite: bool, setup: Option<Setup>) {
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
        self.start_analysis(Work::Analyse, pos, history, lines, infinite);
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
        self.start_analysis(Work::Hint, pos, history, 1, false);
    }

    /// The lines of an analysis: `line`s and `ok` for `analyse`, the move for `hint`.
    fn analysis_done(&mut self, results: Vec<SearchResult>) {
        let Some(pending) = self
            .pending
            .take_if(|p| matches!(p.work, Work::Analyse | Work::Hint))
        else {
            tracing::error!("analysis lines with no analysis pending");
            return;
        };
        self.to = pending.session;
        if pending.work == Work::Analyse {
            for (i, r) in results.iter().enumerate() {
                let info = SearchInfo::of(&r.info, self.settings.timing);
                self.send(&Reply::Line { rank: i + 1, info });
            }
            self.send(&Reply::Ok);
        } else {
            match results.into_iter().next().filter(|r| r.best.is_some()) {
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
        self.answer_deferred(&pending);
        self.ack_if_idle();
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

    // Requests are not queued behind a search (see `busy`): a vision system re-sends what it
    // sees, and a queued board would be answered long after it was true.

    /// The start position of `newgame` without arguments: the configured layout or the standard
    /// start of the board size.
    fn start_grid(&self) -> Grid {
        self.settings
            .layout
            .clone()
            .unwrap_or_else(|| initial_grid(self.settings.size))
    }

    fn newgame(&mut self, layout: Option<Layout>) {
        let start = match layout {
            None => self.start_grid(),
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
        self.observed = Observed::default();
        self.forget_page_state();
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
        self.observed = Observed::default();
        self.forget_page_state();
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
            Err(e) => {
                let message = match self.orientation_hint(rows, side, reading, false) {
                    Some(hint) => format!("{e}; {hint}"),
                    None => e.to_string(),
                };
                return self.error(ErrorCode::BadBoard, message);
            }
        };
        let start = self.start_grid();
        if self.tracker.starts_new_game(
            &board,
            &start,
            self.settings.auto_newgame,
            reading.colour_only,
        ) {
            tracing::info!(
                "the start position is on the board: a new game ({})",
                self.settings.auto_newgame
            );
            self.record_abandoned("abandoned: the start position was set up on the board");
            self.recorded = false;
            self.tracker.new_game(start);
            self.forget_page_state();
            self.reset_clock();
            self.clear_table();
            self.send(&Reply::Info(InfoLine::NewGame));
        }
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
            Err(rejection) => {
                let rejection = self.with_orientation_hint(rejection, rows, side, reading);
                self.rejected(rejection)
            }
        }
    }

    /// Whether a board that failed as it stands reads right turned, mirrored or flipped.
    fn orientation_hint(
        &self,
        rows: &str,
        side: Side,
        reading: Reading,
        could_read: bool,
    ) -> Option<Hint> {
        orientation::hint(
            &self.tracker,
            rows,
            side,
            self.settings.rotated,
            reading,
            could_read,
        )
    }

    /// A rejected board with the camera orientation help, where a turn makes it fit.
    fn with_orientation_hint(
        &self,
        rejection: Rejection,
        rows: &str,
        side: Side,
        reading: Reading,
    ) -> Rejection {
        match rejection {
            Rejection::BadBoard(message) => match self.orientation_hint(rows, side, reading, false)
            {
                Some(hint) => Rejection::BadBoard(format!("{message}; {hint}")),
                None => Rejection::BadBoard(message),
            },
            Rejection::IllegalTransition {
                diffs,
                why,
                diagnosis,
            } => {
                let diagnosis = match self.orientation_hint(rows, side, reading, true) {
                    Some(hint) if hint.fits() => Some(Box::new(Diagnosis::Orientation(hint))),
                    _ => diagnosis,
                };
                Rejection::IllegalTransition {
                    diffs,
                    why,
                    diagnosis,
                }
            }
            other => other,
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
            Rejection::AfterGameOver { diffs, status } => {
                let next = match self.settings.auto_newgame {
                    AutoNewGame::Off => "send newgame or position",
                    _ => "set up the start position on the board, or send newgame or position",
                };
                self.error(
                    ErrorCode::GameOver,
                    format!(
                        "{}: the game is over ({status}); {next}",
                        squares_list(&diffs)
                    ),
                )
            }
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
        if self.feed.is_some() {
            self.search_view = Some(SearchView::started(&pos));
        }
        self.pending = Some(Pending {
            work: Work::Move,
            received,
            session: self.session,
            unbounded: false,
            after: Vec::new(),
            quit: None,
        });
        if self.exiting {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    fn search_done(&mut self, result: SearchResult) {
        let Some(pending) = self.pending.take_if(|p| p.work == Work::Move) else {
            tracing::error!("a search result with no search pending");
            return;
        };
        self.to = pending.session;
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
        if let Some(view) = &mut self.search_view {
            view.update(&result.info);
            view.best.clone_from(&result.best);
            view.done = true;
        }
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
        if self.feed.is_some() {
            self.board_reply = self.last_final.clone();
        }
        self.answer_deferred(&pending);
        self.start_pondering();
        self.ack_if_idle();
    }

    /// After a job's reply: `ok` for each `stop`, `pong TOKEN` for each `ping TOKEN` and `bye`
    /// for a `quit` sent meanwhile, each to its connection.
    fn answer_deferred(&mut self, pending: &Pending) {
        for (session, reply) in &pending.after {
            self.to = *session;
            self.send(reply);
        }
        if let Some(session) = pending.quit {
            self.to = session;
            self.send(&Reply::Bye);
        }
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
                let (learned, egdb) = (job.learned.clone(), job.egdb.clone());
                configure(&mut engine, job.threads, learned, egdb, job.weights.clone());
                let lines = if job.infinite {
                    analyse_until_stopped(&mut engine, &job, &stops.search)
                } else {
                    engine.analyse(
                        &job.pos,
                        &job.history,
                        &job.limits,
                        job.lines,
                        &stops.search,
                    )
                };
                if events.send(Event::AnalysisDone(lines)).is_err() {
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
            // A level's missteps choose among the best moves.
            choose_move(
                &mut engine,
                &job.pos,
                &job.history,
                &limits,
                soft,
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

/// An analysis without limits: every line at depth 1, 2, 3, ... until `stop` is raised (or the
/// deepest depth is done). The lines of the last complete round are answered (those of the round
/// under way when none is complete).
fn analyse_until_stopped(
    engine: &mut Engine,
    job: &AnalyseJob,
    stop: &AtomicBool,
) -> Vec<SearchResult> {
    let mut done: Vec<SearchResult> = Vec::new();
    for depth in 1..=*crate::engine::bounds::DEPTH.end() {
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let round = engine.analyse(&job.pos, &job.history, &limits, job.lines, stop);
        if stop.load(Ordering::Relaxed) {
            if done.is_empty() {
                done = round;
            }
            break;
        }
        done = round;
    }
    done
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
        let mut reader = crate::daemon::transport::LineReader::new(input);
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
