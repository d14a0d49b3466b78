//! The engine thread: the one place the engine runs. The daemon sends it jobs (the bot's move,
//! a ponder search, an analysis, a table to resize or clear); results come back as events
//! ([`super::event::Event`]), table jobs on a channel of their own.

use super::event::Event;
use crate::engine::book::Book;
use crate::engine::egdb::Egdb;
use crate::engine::eval::{LearnedSet, Weights};
use crate::engine::tt::TableError;
use crate::engine::{Engine, Info, Limits, SearchResult};
use crate::play::level::{choose_move, Misstep};
use crate::rng::Rng;
use crate::rules::any_size::AnyPosition;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A search for the engine thread.
pub(super) struct SearchJob {
    pub(super) pos: AnyPosition,
    pub(super) history: Vec<u64>,
    pub(super) limits: Limits,
    /// The soft time limit (a clock's budget).
    pub(super) soft: Option<Duration>,
    /// When the `board` was read: the move time counts from here.
    pub(super) received: Instant,
    pub(super) threads: usize,
    pub(super) learned: LearnedSet,
    pub(super) egdb: Option<Arc<Egdb>>,
    pub(super) new_game: bool,
    pub(super) weights: Weights,
    pub(super) misstep: Option<Misstep>,
    /// The opening book and the level's margin in it.
    pub(super) book: Option<Arc<Book>>,
    pub(super) book_margin: i32,
}

/// An analysis for the engine thread; the lines come back as [`Event::AnalysisDone`].
pub(super) struct AnalyseJob {
    pub(super) pos: AnyPosition,
    pub(super) history: Vec<u64>,
    pub(super) limits: Limits,
    pub(super) lines: usize,
    /// No limit: rounds of all the lines at growing depth until stopped.
    pub(super) infinite: bool,
    pub(super) threads: usize,
    pub(super) learned: LearnedSet,
    pub(super) egdb: Option<Arc<Egdb>>,
    pub(super) weights: Weights,
}

/// Work for the engine thread.
pub(super) enum Job {
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
pub(super) type Ready = Result<Duration, TableError>;

/// The engine thread's stop flags: the real search's and the ponder search's.
pub(super) struct Stops {
    pub(super) search: Arc<AtomicBool>,
    pub(super) ponder: Arc<AtomicBool>,
}

/// Gives the engine a job's settings: threads, evaluation, database and weights.
pub(super) fn configure(
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

pub(super) fn engine_thread(
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
                    let mut report = |round: &[SearchResult]| {
                        let infos = round.iter().map(|r| r.info.clone()).collect();
                        events.send(Event::AnalysisProgress(infos)).ok();
                    };
                    analyse_until_stopped(&mut engine, &job, &stops.search, &mut report)
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
        let book = engine.book_move(&job.pos, &limits, soft, Some(&mut rng));
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
/// deepest depth is done). Each complete round is given to `report`; the lines of the last
/// complete round are answered (those of the round under way when none is complete).
pub(super) fn analyse_until_stopped(
    engine: &mut Engine,
    job: &AnalyseJob,
    stop: &AtomicBool,
    report: &mut dyn FnMut(&[SearchResult]),
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
        report(&round);
        done = round;
    }
    done
}
