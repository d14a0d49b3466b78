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
//!
//! This file is the loop and its output; the requests are handled by family, as the protocol
//! names them, one file each: `game` (newgame, position, board, takeback, moves), `search` (the bot's
//! move, analyse, hint, pondering, the clock), `set` (set, options) and `control` (hello, ping,
//! stop, quit, repeat, status). The engine runs in `engine_thread`; what the loop reacts to is
//! [`super::event`].

use super::engine_thread::{engine_thread, Job, Ready, Stops};
use super::event::Event;
use super::outbox::{FlowControl, Outbox};
use super::protocol::{Command, ErrorCode, InfoLine, InfoMode, ProtocolError, Reply, SearchInfo};
use super::settings::Settings;
use super::snapshot::{Feed, LinkKind, LinkView, SearchView, Snapshot};
use super::status::{self, Observed};
use super::transport::{FrameError, Input, LineSink};
use crate::camera::tracking::{AutoNewGame, Tracker};
use crate::engine::tt::TableError;
use crate::engine::{Engine, EngineConfig};
use crate::rng::Rng;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the daemon waits at its end for replies the link cannot take yet: it gives up when
/// none could be written for this long.
pub const FLUSH_PATIENCE: Duration = Duration::from_secs(10);

/// What a job of the engine thread answers when it is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Work {
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
pub(super) struct Pending {
    pub(super) work: Work,
    /// When the request that started it was read (the clock counts from here).
    pub(super) received: Instant,
    /// The connection that asked (its replies go there only).
    pub(super) session: Option<u64>,
    /// Ends only when stopped (`analyse N infinite`).
    pub(super) unbounded: bool,
    /// Replies that follow the job's, in order, with their connections: `ok` for each `stop`,
    /// `pong TOKEN` for each `ping TOKEN` (a barrier).
    pub(super) after: Vec<(Option<u64>, Reply)>,
    /// A `quit` to answer with `bye` after the reply, with its connection.
    pub(super) quit: Option<Option<u64>>,
}

/// How often a line that changes nothing else publishes a snapshot (so that the page can say
/// when the last line came).
const LINE_NEWS: Duration = Duration::from_secs(1);

/// Replies that may wait for a job (`stop`, `ping TOKEN`); more requests of these kinds get
/// `error busy`, so that a flood of them cannot grow the daemon.
pub const MAX_WAITING_FOR_JOB: usize = 64;

/// The daemon.
pub struct Daemon {
    pub(super) settings: Settings,
    pub(super) tracker: Tracker,
    pub(super) out: Outbox,
    pub(super) jobs: Sender<Job>,
    pub(super) ready: Receiver<Ready>,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) pending: Option<Pending>,
    pub(super) new_game: bool,
    pub(super) exiting: bool,
    pub(super) ack: Option<Sender<()>>,
    /// The last final reply, for `repeat`.
    pub(super) last_final: Option<String>,
    /// Why the daemon must end with a failure status.
    pub(super) fatal: Option<String>,
    /// When the line being handled was received.
    pub(super) received: Instant,
    /// Stops a ponder search (a flag of its own, so that stopping it never stops a real search).
    pub(super) ponder_stop: Arc<AtomicBool>,
    /// A ponder search was started and not stopped yet.
    pub(super) pondering: bool,
    /// Time left on the bot's clock (with `settings.clock`).
    pub(super) clock_left: Duration,
    /// The bot's moves since the clock was set (or the game started).
    pub(super) bot_moves: u32,
    /// Game records written.
    pub(super) records: usize,
    /// The current game has been written (at its end).
    pub(super) recorded: bool,
    /// The connection the requests come from now (`None`: a link without connections).
    pub(super) session: Option<u64>,
    /// The connection the replies being queued answer.
    pub(super) to: Option<u64>,
    /// The daemon's own event channel (loader threads answer on it).
    pub(super) events: Sender<Event>,
    /// The last board and what it got, for `status`.
    pub(super) observed: Observed,
    /// Where snapshots for the operator page go (`serve --http`), if anywhere.
    pub(super) feed: Option<Feed>,
    /// Something the operator page shows may have changed while handling the current event.
    pub(super) dirty: bool,
    /// Lines queued while an event is handled, released to the outbox after the operator page's
    /// snapshot is published: a client that has read a reply finds the page already showing it.
    pub(super) held: Vec<(String, bool, Option<u64>)>,
    /// The bot's last search in this game, for the operator page.
    pub(super) search_view: Option<SearchView>,
    /// The last final reply to a `board`, for the operator page.
    pub(super) board_reply: Option<String>,
    /// The link as the daemon sees it, for the operator page.
    pub(super) link: LinkView,
    /// Stops the background database build while the bot searches (`serve --egdb-build`).
    pub(super) build_pauser: Option<super::egdb_build::Pauser>,
    /// When the operator page's snapshot was last published.
    pub(super) published: Instant,
}

impl std::fmt::Debug for Daemon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Daemon")
            .field("settings", &self.settings)
            .field("tracker", &self.tracker)
            .finish_non_exhaustive()
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
            link: LinkView::default(),
            build_pauser: None,
            published: Instant::now(),
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

    /// Names the link for the operator page (the default is standard input).
    pub fn with_link(mut self, kind: LinkKind) -> Daemon {
        self.link.kind = kind;
        self.publish();
        self
    }

    /// Stops the background database build's processes while a search, analysis or hint runs
    /// (the same pauser as the build's: [`super::egdb_build::start`]).
    pub fn with_build_pauser(mut self, pauser: super::egdb_build::Pauser) -> Daemon {
        self.build_pauser = Some(pauser);
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
        if let Some(pauser) = &self.build_pauser {
            pauser.set_paused(false);
        }
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
    pub(super) fn handle(&mut self, event: Event) {
        let input = usize::from(matches!(event, Event::Input(_)));
        let before = usize::from(self.pending.is_some());
        self.to = self.session;
        self.dispatch(event);
        let after = usize::from(self.pending.is_some());
        if let Some(pauser) = &self.build_pauser {
            // Ponder searches and file loads leave it running: they have no deadline.
            pauser.set_paused(self.pending.as_ref().is_some_and(|p| p.work != Work::Load));
        }
        // A line that changes nothing else still tells the page the link is alive; once a second
        // is enough for that (a flood of `ping`s does not publish a snapshot each).
        if input == 1 && self.published.elapsed() >= LINE_NEWS {
            self.dirty = true;
        }
        if std::mem::take(&mut self.dirty) {
            self.publish();
        }
        self.release();
        self.out.answered((before + input).saturating_sub(after));
    }

    /// Hands the lines held during an event to the outbox, in order.
    pub(super) fn release(&mut self) {
        for (line, is_final, to) in self.held.drain(..) {
            self.out.push(line, is_final, to);
        }
    }

    /// Publishes what the operator page shows, if a page is served.
    pub(super) fn publish(&mut self) {
        let Some(feed) = &self.feed else {
            return;
        };
        self.published = Instant::now();
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
            seen_at: self.observed.at,
            link: self.link.clone(),
            new_game_from_board: self.settings.auto_newgame != AutoNewGame::Off,
        });
    }

    pub(super) fn dispatch(&mut self, event: Event) {
        match event {
            Event::Input(Input::Connected(session)) => {
                tracing::debug!("connection {session}");
                self.session = Some(session);
                self.link.connection = Some(session);
                self.link.connected_at = Some(Instant::now());
                self.dirty = true;
                self.ack_if_idle();
            }
            Event::Input(Input::Disconnected(session)) => {
                tracing::debug!("connection {session} ended");
                if self.link.connection == Some(session) {
                    self.link.connection = None;
                    self.link.connected_at = None;
                    self.dirty = true;
                }
                self.ack_if_idle();
            }
            Event::Input(Input::Line(line)) => {
                self.received = Instant::now();
                self.link.last_line_at = Some(self.received);
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
                self.link.last_line_at = Some(Instant::now());
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
                if let Some(p) = self.pending.as_ref().filter(|p| p.work == Work::Move) {
                    // The page shows the figures of this very line (see `SearchView`).
                    let line = SearchInfo::of(&info, self.settings.timing);
                    let written = self.settings.info == InfoMode::Iterations;
                    if let Some(view) = &mut self.search_view {
                        view.show(&line, written);
                        self.dirty = true;
                    }
                    if written {
                        self.to = p.session;
                        self.send(&Reply::Info(InfoLine::Search(line)));
                    }
                }
            }
            Event::SearchDone(result) => {
                self.dirty = true;
                self.search_done(result)
            }
            Event::AnalysisProgress(infos) => self.analysis_progress(infos),
            Event::AnalysisDone(lines) => self.analysis_done(lines),
            Event::Loaded(loaded) => {
                self.dirty = true;
                self.loaded(loaded)
            }
            Event::EgdbBuild(news) => {
                self.dirty = true;
                self.egdb_news(news)
            }
        }
    }

    /// Ends the daemon after the job in progress: a search or analysis is stopped and answered;
    /// a file being loaded is not waited for (it is answered with an error, the setting kept),
    /// so that a signal or a lost link ends the daemon at once whatever the file does.
    pub(super) fn begin_exit(&mut self) {
        self.exiting = true;
        self.stop_pondering();
        if let Some(p) = self.pending.take_if(|p| p.work == Work::Load) {
            self.to = p.session;
            self.error(
                ErrorCode::BadOption,
                "the daemon is exiting: the file was not loaded and the setting is unchanged",
            );
            self.answer_deferred(&p);
        }
        if self.pending.is_some() {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    pub(super) fn ack_if_idle(&self) {
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
    pub(super) fn raw(&mut self, line: String, is_final: bool) {
        self.held.push((line, is_final, self.to));
    }

    pub(super) fn send(&mut self, reply: &Reply) {
        let text = reply.to_string();
        // A `pong TOKEN` (a client resynchronising) is not recorded, so that `repeat` after it
        // still gives the reply before.
        if reply.is_final() && !matches!(reply, Reply::Pong(Some(_))) {
            self.last_final = Some(text.clone());
        }
        self.send_text(text, !reply.is_droppable());
    }

    /// Queues a reply line; `keep`: never dropped (every line but `info`).
    pub(super) fn send_text(&mut self, text: String, keep: bool) {
        tracing::debug!("> {text}");
        if self.settings.transcript {
            self.raw(format!("< {text}"), true);
        } else {
            self.raw(text, keep);
        }
    }

    pub(super) fn error(&mut self, code: ErrorCode, message: impl Into<String>) {
        self.send(&ProtocolError::new(code, message).reply());
    }

    /// Routes a request to its family: control, options, search and analysis, or game.
    pub(super) fn command(&mut self, cmd: Command) {
        // Requests that only read leave the operator page as it is.
        self.dirty |= !matches!(
            cmd,
            Command::Hello(_)
                | Command::Ping(_)
                | Command::Repeat
                | Command::Options
                | Command::Status
                | Command::Moves(_)
        );
        match cmd {
            Command::Hello(_)
            | Command::Ping(_)
            | Command::Repeat
            | Command::Stop
            | Command::Quit
            | Command::Status => self.control(cmd),
            Command::Set(opt) => self.set_option(opt),
            Command::Options => self.options(),
            // Reads a position only: answered at once, also while the engine works.
            Command::Moves(setup) => self.legal_moves(setup),
            // Requests are not queued behind a search: a vision system re-sends what it sees,
            // and a queued board would be answered long after it was true.
            Command::Analyse { .. }
            | Command::Hint
            | Command::TakeBack
            | Command::NewGame(_)
            | Command::Position(_)
            | Command::Board { .. }
                if self.pending.is_some() =>
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
            Command::Board { rows, side } => self.board_request(&rows, side),
        }
    }

    /// Replies waiting for the job in progress.
    pub(super) fn waiting_for_job(&self) -> usize {
        self.pending.as_ref().map_or(0, |p| p.after.len())
    }

    /// `error busy` for a request that needs the engine while it works.
    pub(super) fn busy(&mut self) {
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

    /// After a job's reply: `ok` for each `stop`, `pong TOKEN` for each `ping TOKEN` and `bye`
    /// for a `quit` sent meanwhile, each to its connection.
    pub(super) fn answer_deferred(&mut self, pending: &Pending) {
        for (session, reply) in &pending.after {
            self.to = *session;
            self.send(reply);
        }
        if let Some(session) = pending.quit {
            self.to = session;
            self.send(&Reply::Bye);
        }
    }
}
