//! The search and analysis family: the bot's move searched for a board, `analyse`, `hint`,
//! pondering while the person thinks, the bot's clock, and the table jobs run before `ok`.

use super::engine_thread::{AnalyseJob, Job, Ready, SearchJob};
use super::event_loop::{Daemon, Pending, Work};
use super::protocol::{ErrorCode, InfoLine, InfoMode, Reply, SearchInfo, Setup};
use super::snapshot::SearchView;
use crate::engine::tt::TableError;
use crate::engine::{Limits, SearchResult};
use crate::rules::any_size::AnyPosition;
use crate::rules::position::Side;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The time an `analyse` or `hint` may take when no move time is set (`movetime 0`): an
/// analysis without any limit runs only when asked for (`analyse N infinite`).
pub const ANALYSIS_CAP: Duration = Duration::from_secs(10);

impl Daemon {
    pub(super) fn start_search(&mut self, pos: AnyPosition, history: Vec<u64>, received: Instant) {
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
            book: self.settings.book_in_play().cloned(),
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

    pub(super) fn search_done(&mut self, result: SearchResult) {
        let Some(pending) = self.pending.take_if(|p| p.work == Work::Move) else {
            tracing::error!("a search result with no search pending");
            return;
        };
        self.to = pending.session;
        // The page shows the figures of the client's last `info` line (see `SearchView`): with
        // `iterations` that is the last iteration's, so the result's own figures (which count
        // the unfinished iteration's nodes and time) are shown only where they are written, or
        // with `info off`, where nothing is.
        let line = SearchInfo::of(&result.info, self.settings.timing);
        let final_line = result.info.depth > 0 || result.info.book;
        match self.settings.info {
            InfoMode::Final if final_line => {
                if let Some(view) = &mut self.search_view {
                    view.show(&line, true);
                }
                self.send(&Reply::Info(InfoLine::Search(line)));
            }
            InfoMode::Off if final_line => {
                if let Some(view) = &mut self.search_view {
                    view.show(&line, false);
                }
            }
            _ => {}
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
            view.book |= result.info.book;
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

    /// Counts a bot move that took `spent` (from reading the board to queueing the move) on the
    /// clock.
    pub(super) fn clock_moved(&mut self, spent: Duration) {
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

    /// The clock back to its base time, no moves played.
    pub(super) fn reset_clock(&mut self) {
        self.clock_left = self.settings.clock.map_or(Duration::ZERO, |tc| tc.base);
        self.bot_moves = 0;
    }

    /// After the bot's move: search the position the person now faces (all their replies), with
    /// no time limit, until their board arrives; the real search then finds the table warm.
    pub(super) fn start_pondering(&mut self) {
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

    /// Stops a ponder search, if one runs (the engine thread takes the next job once it has
    /// stopped, within a few hundred nodes).
    pub(super) fn stop_pondering(&mut self) {
        if self.pondering {
            self.ponder_stop.store(true, Ordering::Relaxed);
            self.pondering = false;
            tracing::debug!("ponder stopped");
        }
    }

    /// `analyse N [infinite] [POSITION]`: the best N moves, without touching the game.
    pub(super) fn analyse(&mut self, lines: usize, infinite: bool, setup: Option<Setup>) {
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
    pub(super) fn hint(&mut self) {
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

    /// Starts an analysis (of `analyse` or `hint`) on the (idle) engine thread; its lines come
    /// back as [`Event::AnalysisDone`]. Bounded by the move time (shared among the lines) or,
    /// without one, [`ANALYSIS_CAP`], and the depth; `infinite`: by nothing but `stop`.
    pub(super) fn start_analysis(
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
            // The time and the nodes are shared among the lines.
            let total = limits.movetime.unwrap_or(ANALYSIS_CAP);
            limits.movetime = Some(total / lines.max(1) as u32);
            limits.nodes = limits.nodes.map(|n| (n / lines.max(1) as u64).max(1));
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

    /// A depth an analysis without limits has completed: its lines as `info line K ...` lines
    /// (with `set info iterations`), so that a client sees the analysis grow.
    pub(super) fn analysis_progress(&mut self, infos: Vec<crate::engine::Info>) {
        let Some(pending) = self.pending.as_ref().filter(|p| p.work == Work::Analyse) else {
            return;
        };
        if self.settings.info != InfoMode::Iterations {
            return;
        }
        self.to = pending.session;
        for (i, info) in infos.iter().enumerate() {
            let info = SearchInfo::of(info, self.settings.timing);
            self.send(&Reply::Info(InfoLine::Line { rank: i + 1, info }));
        }
    }

    /// The lines of an analysis: `line`s and `ok` for `analyse`, the move for `hint`.
    pub(super) fn analysis_done(&mut self, results: Vec<SearchResult>) {
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

    /// Runs a table job on the (idle) engine thread and waits for it: `ok` follows only once the
    /// table is ready. Input keeps queueing meanwhile.
    pub(super) fn prepare(&mut self, job: Job) -> Ready {
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
    pub(super) fn clear_table(&mut self) {
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
}
