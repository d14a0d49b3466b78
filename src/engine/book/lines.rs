//! Growing a book along the lines games actually take: *reach* where drop-out expansion
//! ([`super::build`]) gives breadth.
//!
//! Drop-out expansion searches every move of a position it expands, so a book of a few thousand
//! positions covers only a few plies past each ballot, while the research log measured that
//! book-quality moves are worth most up to about ply 24 (`docs/experiments/opening-book.md`). This
//! grower plays games instead: from each opening (e.g. each ballot of the ACF deck), once with each
//! side as the *book side*, to a given game ply. The book side plays the book's best move where the
//! book holds its position, and otherwise searches the position with the book's budget, adds it as
//! a leaf and plays its move; the other side is an engine at a much smaller budget (a stand-in for
//! an opponent at tournament speed: its moves are the likely replies), without the book. The book
//! side's positions of every such game are then in the book, and a later game that follows the
//! same replies stays in the book to that ply.
//!
//! **Deterministic.** Every search is one thread with a node budget and a fresh table (the
//! opponent's table is kept through its game, which is also deterministic), so a position's record
//! is the same whichever game met it first: the book's positions and values do not depend on the
//! number of threads, on the order games finish, or on being stopped and run again (a game already
//! played is replayed from the book with no search on the book side). Only the order of the new
//! records in the file can differ.
//!
//! Records are leaves with their search's budget ([`super::Entry::nodes`]); a drop-out build that
//! later expands their parent searches them again at its own, larger budget ([`super::build`]),
//! and an engine with a larger budget of its own does not play them ([`super::Book::moves_within`]).
//! Each new search also leaves the first [`LinesConfig::pv_plies`] positions of its principal
//! variation as records ([`super::Entry::pv`], [`super::build::pv_entries`]). They fill positions
//! the book lacks and never displace a search; the book side searches one it reaches like any
//! smaller leaf, so the games are those a run without them plays; and of two variations through a
//! position the higher ranked is kept (`Book::offer_pv`), so the book stays independent of
//! the order games finish.

use super::build::{children_of_expanded, pv_entries, search_leaf, weaker, Run};
use super::{canonical, turn_move, Book, BookError};
use crate::engine::{Engine, EngineConfig, Limits, StopReason};
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::position::Side;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How to grow a book along lines.
#[derive(Clone, Debug)]
pub struct LinesConfig {
    /// The engine of every search (its `threads` is set to 1 and its book to none).
    pub engine: EngineConfig,
    /// The budget of each new book position's search (a node budget keeps it deterministic).
    pub limits: Limits,
    /// The opponent's budgets: every opening is played once per budget and book side.
    pub opponents: Vec<Limits>,
    /// Games end at this ply, counted from the start position (an opening's `ply` included).
    pub max_ply: u32,
    /// Plies of each new search's principal variation kept as records
    /// ([`super::Entry::pv`], [`pv_entries`]): reach past the games' replies and past `max_ply`
    /// for no search; 0 keeps none.
    pub pv_plies: u32,
    /// Games played at the same time.
    pub threads: usize,
    /// Stop after this long (checked between moves).
    pub time: Option<Duration>,
    /// Save at least this often.
    pub save_every: Duration,
}

/// An opening the games start from: the position, and its ply from the start position.
#[derive(Copy, Clone, Debug)]
pub struct Opening {
    /// The position, in its own coordinates.
    pub position: AnyPosition,
    /// Plies played to reach it.
    pub ply: u32,
}

/// One game of a run: its opening (a place in the run's openings), the side that plays from the
/// book, and the opponent's budget (a place in [`LinesConfig::opponents`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct LinesGame {
    /// The opening's place in the run's openings.
    pub opening: usize,
    /// The side that plays from the book.
    pub book_side: Side,
    /// The opponent's budget's place in [`LinesConfig::opponents`].
    pub opponent: usize,
}

/// Every game of a run from `openings` under `cfg`, in the order [`grow_lines`] starts them:
/// opening by opening, for each opponent budget the opening's side to move first as the book
/// side, then the other.
pub fn lines_games(openings: &[Opening], cfg: &LinesConfig) -> Vec<LinesGame> {
    let mut games = Vec::with_capacity(openings.len() * 2 * cfg.opponents.len());
    for (i, o) in openings.iter().enumerate() {
        for opponent in 0..cfg.opponents.len() {
            for book_side in [o.position.side(), o.position.side().opponent()] {
                games.push(LinesGame {
                    opening: i,
                    book_side,
                    opponent,
                });
            }
        }
    }
    games
}

/// Progress of a run, reported after every game.
#[derive(Clone, Debug, PartialEq)]
pub struct LinesProgress {
    /// The game just finished.
    pub game: LinesGame,
    /// Games finished in this run.
    pub games: usize,
    /// Games this run plays in all (those of the openings less those it was told were played).
    pub total: usize,
    /// Positions in the book.
    pub positions: usize,
    /// Positions added in this run.
    pub added: usize,
    /// Leaves of a smaller budget searched again at this run's and replaced.
    pub deepened: usize,
    /// Records in the book taken from principal variations ([`super::Entry::pv`]).
    pub pv_records: usize,
    /// Book-side moves of the finished games, and those of them that were already in the book
    /// before this run.
    pub book_moves: u64,
    /// See `book_moves`.
    pub known_moves: u64,
    /// Average depth of this run's searches.
    pub search_depth: f64,
    /// Time of this run.
    pub elapsed: Duration,
}

/// Why a run ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LinesEnd {
    /// Every game was played.
    Done,
    /// The time limit ran out.
    Time,
    /// Stopped from outside.
    Stopped,
}

/// The shared state of a run.
struct Shared<'a> {
    book: Mutex<&'a mut Book>,
    stats: Mutex<Stats>,
}

struct Stats {
    games: usize,
    book_moves: u64,
    known_moves: u64,
    deepened: usize,
    run: Run,
}

/// One game's outcome for the run.
enum GameEnd {
    Played { book_moves: u64, known_moves: u64 },
    Interrupted,
}

/// Grows `book` along the games from every opening in `openings` (each once per book side and
/// opponent budget, [`lines_games`]) but those in `played`, until they are all played, the time
/// limit or `stop`. `save` is called at least every [`LinesConfig::save_every`] and at the end,
/// `on_progress` after every game, once the game's records are in the book.
pub fn grow_lines(
    book: &mut Book,
    openings: &[Opening],
    cfg: &LinesConfig,
    played: &HashSet<LinesGame>,
    stop: &AtomicBool,
    save: &mut (dyn FnMut(&Book) -> Result<(), BookError> + Send),
    on_progress: &mut (dyn FnMut(&LinesProgress) + Send),
) -> Result<LinesEnd, BookError> {
    let run = Run::start(book);
    let start = run.start;
    let known: HashSet<AnyPosition> = book.entries().iter().map(|e| e.position).collect();
    // Their values are backed up into their parents' moves: deepening them is a build's work.
    let kept = children_of_expanded(book);
    let mut engine_cfg = cfg.engine.clone();
    engine_cfg.threads = 1;
    engine_cfg.seed = None;
    engine_cfg.book = None;
    let todo: Vec<LinesGame> = lines_games(openings, cfg)
        .into_iter()
        .filter(|g| !played.contains(g))
        .collect();
    let total = todo.len();
    let threads = cfg.threads.max(1).min(total.max(1));
    let next = AtomicUsize::new(0);
    let shared = Shared {
        book: Mutex::new(book),
        stats: Mutex::new(Stats {
            games: 0,
            book_moves: 0,
            known_moves: 0,
            deepened: 0,
            run,
        }),
    };
    let timed_out = || cfg.time.is_some_and(|t| start.elapsed() >= t);
    let halted = AtomicBool::new(false);
    let failure: Mutex<Option<BookError>> = Mutex::new(None);
    let callbacks = Mutex::new((save, on_progress));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (next, shared, halted, failure, callbacks) =
                (&next, &shared, &halted, &failure, &callbacks);
            let (engine_cfg, known, kept, timed_out, todo) =
                (&engine_cfg, &known, &kept, &timed_out, &todo);
            scope.spawn(move || {
                let mut mine = Engine::new(engine_cfg.clone());
                let mut theirs = Engine::new(engine_cfg.clone());
                loop {
                    if stop.load(Ordering::Relaxed) || halted.load(Ordering::Relaxed) {
                        break;
                    }
                    if timed_out() {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&game) = todo.get(k) else {
                        break;
                    };
                    let end = play_game(
                        &mut mine,
                        &mut theirs,
                        shared,
                        known,
                        kept,
                        openings[game.opening],
                        game.book_side,
                        cfg,
                        &cfg.opponents[game.opponent],
                        stop,
                        timed_out,
                    );
                    let GameEnd::Played {
                        book_moves,
                        known_moves,
                    } = end
                    else {
                        break;
                    };
                    let Ok(mut stats) = shared.stats.lock() else {
                        break;
                    };
                    stats.games += 1;
                    stats.book_moves += book_moves;
                    stats.known_moves += known_moves;
                    let Ok(mut book) = shared.book.lock() else {
                        break;
                    };
                    let progress = LinesProgress {
                        game,
                        games: stats.games,
                        total,
                        positions: book.len(),
                        added: book.len().saturating_sub(stats.run.positions0),
                        deepened: stats.deepened,
                        pv_records: book.entries().iter().filter(|e| e.pv).count(),
                        book_moves: stats.book_moves,
                        known_moves: stats.known_moves,
                        search_depth: stats.run.depth_sum as f64 / stats.run.searches.max(1) as f64,
                        elapsed: start.elapsed(),
                    };
                    let due = stats.run.last_save.elapsed() >= cfg.save_every;
                    let Ok(mut cb) = callbacks.lock() else { break };
                    if due {
                        stats.run.record(&mut book, threads);
                        stats.run.last_save = Instant::now();
                        if let Err(e) = (cb.0)(&book) {
                            if let Ok(mut f) = failure.lock() {
                                *f = Some(e);
                            }
                            halted.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                    (cb.1)(&progress);
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    // A poisoned lock means a worker panicked while holding it.
    let stats = shared
        .stats
        .into_inner()
        .map_err(|_| BookError::WorkerFailed)?;
    let book = shared
        .book
        .into_inner()
        .map_err(|_| BookError::WorkerFailed)?;
    stats.run.record(book, threads);
    let (save, _) = callbacks
        .into_inner()
        .map_err(|_| BookError::WorkerFailed)?;
    save(book)?;
    Ok(if stats.games >= total {
        LinesEnd::Done
    } else if stop.load(Ordering::Relaxed) {
        LinesEnd::Stopped
    } else {
        LinesEnd::Time
    })
}

/// Plays one game from `opening` with `book_side` playing from the book (searching and adding
/// what it lacks, and searching again a leaf of a smaller budget than the run's unless it is in
/// `kept`) and the other side searching at `opponent`'s budget, to the ply limit.
#[allow(clippy::too_many_arguments)]
fn play_game(
    mine: &mut Engine,
    theirs: &mut Engine,
    shared: &Shared<'_>,
    known: &HashSet<AnyPosition>,
    kept: &HashSet<usize>,
    opening: Opening,
    book_side: Side,
    cfg: &LinesConfig,
    opponent: &Limits,
    stop: &AtomicBool,
    timed_out: &dyn Fn() -> bool,
) -> GameEnd {
    theirs.new_game();
    let mut pos = opening.position;
    let mut ply = opening.ply;
    let (mut book_moves, mut known_moves) = (0, 0);
    while ply < cfg.max_ply {
        if stop.load(Ordering::Relaxed) || timed_out() {
            return GameEnd::Interrupted;
        }
        if pos.legal_moves().is_empty() {
            break;
        }
        let mv: MoveInfo = if pos.side() == book_side {
            let (canon, turned) = canonical(&pos);
            // The record's first move, unless it is missing or a leaf to search again.
            let (held, old) = match shared.book.lock() {
                Ok(book) => match book.find_canonical(&canon) {
                    Some(i) if weaker(book.entry(i), &cfg.limits) && !kept.contains(&i) => {
                        (None, Some(i))
                    }
                    Some(i) => (book.entry(i).moves.first().map(|m| m.mv.clone()), None),
                    None => (None, None),
                },
                Err(_) => return GameEnd::Interrupted,
            };
            let canon_mv = match held {
                Some(mv) => {
                    if known.contains(&canon) {
                        known_moves += 1;
                    }
                    mv
                }
                None => {
                    let (entry, pv, complete) = search_leaf(mine, &canon, &cfg.limits, stop);
                    if !complete {
                        return GameEnd::Interrupted;
                    }
                    let Some(mv) = entry.moves.first().map(|m| m.mv.clone()) else {
                        break;
                    };
                    let depth = entry.depth;
                    let from_pv = pv_entries(&entry, &pv, cfg.pv_plies);
                    let mut deepened = false;
                    match shared.book.lock() {
                        // Another game may have added the same record meanwhile, or one from a
                        // principal variation, which this search replaces.
                        Ok(mut book) => {
                            match book.find_canonical(&canon) {
                                None => {
                                    let _ = book.insert(entry);
                                }
                                Some(i)
                                    if weaker(book.entry(i), &cfg.limits) && !kept.contains(&i) =>
                                {
                                    deepened = old == Some(i) && !book.entry(i).pv;
                                    book.replace(i, entry);
                                }
                                Some(_) => {}
                            }
                            for e in from_pv {
                                book.offer_pv(e);
                            }
                        }
                        Err(_) => return GameEnd::Interrupted,
                    }
                    if let Ok(mut stats) = shared.stats.lock() {
                        stats.run.searches += 1;
                        stats.run.depth_sum += u64::from(depth);
                        stats.deepened += usize::from(deepened);
                    }
                    mv
                }
            };
            book_moves += 1;
            if turned {
                turn_move(&canon_mv, pos.size())
            } else {
                canon_mv
            }
        } else {
            let r = theirs.search(&pos, &[], opponent, stop, &mut |_| {});
            if r.reason == StopReason::Stopped {
                return GameEnd::Interrupted;
            }
            match r.best {
                Some(mv) => mv,
                None => break,
            }
        };
        let Some(next) = pos.play(&mv) else { break };
        pos = next;
        ply += 1;
    }
    GameEnd::Played {
        book_moves,
        known_moves,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::book::build::{build, BuildConfig, BuildEnd};
    use crate::engine::book::{BuildInfo, Entry};
    use crate::rules::geometry::BoardSize;

    fn nodes(n: u64) -> Limits {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }

    fn config(threads: usize) -> LinesConfig {
        LinesConfig {
            engine: EngineConfig::default(),
            limits: nodes(3_000),
            opponents: vec![nodes(300), nodes(900)],
            max_ply: 9,
            pv_plies: 3,
            threads,
            time: None,
            save_every: Duration::from_secs(3600),
        }
    }

    /// Two openings on 6x6: the start, and a position two plies in.
    fn openings() -> Vec<Opening> {
        let start = AnyPosition::initial(BoardSize::S6, Side::Bot);
        let (_, a) = start.successors().remove(1);
        let (_, b) = a.successors().remove(0);
        vec![
            Opening {
                position: start,
                ply: 0,
            },
            Opening {
                position: b,
                ply: 2,
            },
        ]
    }

    fn grown(
        book: &mut Book,
        cfg: &LinesConfig,
        stop: &AtomicBool,
    ) -> (LinesEnd, Vec<LinesProgress>) {
        let mut seen = Vec::new();
        let end = grow_lines(
            book,
            &openings(),
            cfg,
            &HashSet::new(),
            stop,
            &mut |_| Ok(()),
            &mut |p| seen.push(p.clone()),
        )
        .expect("grows");
        (end, seen)
    }

    /// The records by position, so that books are compared whatever their records' order.
    fn sorted(book: &Book) -> Vec<Entry> {
        let mut e = book.entries().to_vec();
        e.sort_by_key(|e| e.position.to_line());
        e
    }

    #[test]
    fn the_lines_land_in_the_book_whatever_the_threads() {
        let stop = AtomicBool::new(false);
        let mut one = Book::new(BoardSize::S6, BuildInfo::default());
        let (end, seen) = grown(&mut one, &config(1), &stop);
        assert_eq!(end, LinesEnd::Done);
        // 2 openings x 2 sides x 2 opponents.
        assert_eq!(seen.last().map(|p| (p.games, p.total)), Some((8, 8)));
        assert!(one.len() >= 8, "{}", one.len());
        assert!(one.entries().iter().all(|e| !e.expanded
            && e.moves.len() == 1
            && if e.pv {
                [1_500, 750, 375].contains(&e.nodes)
            } else {
                e.nodes == 3_000
            }));
        let variations = one.entries().iter().filter(|e| e.pv).count();
        assert!(variations > 0);
        assert_eq!(seen.last().map(|p| p.pv_records), Some(variations));
        let mut two = Book::new(BoardSize::S6, BuildInfo::default());
        grown(&mut two, &config(2), &stop);
        assert_eq!(sorted(&one), sorted(&two));
        // Played again, every book-side move comes from the book and nothing is searched.
        let before = sorted(&one);
        let searches = one.info().searches;
        let (_, again) = grown(&mut one, &config(2), &stop);
        let last = again.last().expect("progress");
        assert!(last.book_moves > 0);
        assert_eq!(last.known_moves, last.book_moves);
        assert_eq!(sorted(&one), before);
        assert_eq!(one.info().searches, searches);
    }

    #[test]
    fn lines_keep_what_the_book_had() {
        let mut book = Book::new(BoardSize::S6, BuildInfo::default());
        let cfg = BuildConfig {
            engine: EngineConfig::default(),
            limits: nodes(2_000),
            penalty: 5,
            threads: 1,
            batch: 2,
            max_positions: Some(20),
            rounds: None,
            time: None,
            max_ply: 40,
            save_every: Duration::from_secs(3600),
            roots: Vec::new(),
            deepen: false,
            repair: None,
        };
        let stop = AtomicBool::new(false);
        let end = build(&mut book, &cfg, &stop, &mut |_| Ok(()), &mut |_| {});
        assert_eq!(end.ok(), Some(BuildEnd::Positions));
        let old = book.entries().to_vec();
        grown(&mut book, &config(2), &stop);
        assert!(book.len() > old.len());
        for e in &old {
            let i = book.find_canonical(&e.position).expect("kept");
            assert_eq!(book.entry(i), e);
        }
    }

    #[test]
    fn a_stopped_run_resumed_equals_one_run_through() {
        let stop = AtomicBool::new(false);
        let mut whole = Book::new(BoardSize::S6, BuildInfo::default());
        grown(&mut whole, &config(2), &stop);
        // Stopped after the first game (the other thread's game is cut short), through the file
        // format as a resumed run reads it.
        let mut part = Book::new(BoardSize::S6, BuildInfo::default());
        let stopper = AtomicBool::new(false);
        let end = grow_lines(
            &mut part,
            &openings(),
            &config(2),
            &HashSet::new(),
            &stopper,
            &mut |_| Ok(()),
            &mut |_| stopper.store(true, Ordering::Relaxed),
        )
        .expect("grows");
        assert_eq!(end, LinesEnd::Stopped);
        assert!(part.len() < whole.len());
        let mut part = Book::from_bytes(&part.to_bytes().expect("writes")).expect("reads");
        let (end, _) = grown(&mut part, &config(2), &stop);
        assert_eq!(end, LinesEnd::Done);
        assert_eq!(sorted(&part), sorted(&whole));
    }

    #[test]
    fn games_told_played_are_skipped_and_the_rest_completes_the_book() {
        let stop = AtomicBool::new(false);
        let cfg = config(2);
        let mut whole = Book::new(BoardSize::S6, BuildInfo::default());
        grown(&mut whole, &cfg, &stop);
        let all = lines_games(&openings(), &cfg);
        assert_eq!(all.len(), 8);
        assert_eq!(
            all.iter().copied().collect::<HashSet<_>>().len(),
            8,
            "every game once"
        );
        let (first, second): (HashSet<LinesGame>, HashSet<LinesGame>) =
            all.iter().partition(|g| g.opening == 0);
        // The second opening's games told played: only the first's are played...
        let mut part = Book::new(BoardSize::S6, BuildInfo::default());
        let mut seen = Vec::new();
        let end = grow_lines(
            &mut part,
            &openings(),
            &cfg,
            &second,
            &stop,
            &mut |_| Ok(()),
            &mut |p| seen.push(p.clone()),
        )
        .expect("grows");
        assert_eq!(end, LinesEnd::Done);
        assert_eq!(seen.len(), 4);
        assert!(seen.iter().all(|p| p.total == 4 && first.contains(&p.game)));
        let reported: HashSet<LinesGame> = seen.iter().map(|p| p.game).collect();
        assert_eq!(reported, first);
        assert!(part.len() < whole.len());
        // ...and a run told those were played plays the rest: the book of one run through.
        let mut seen = Vec::new();
        grow_lines(
            &mut part,
            &openings(),
            &cfg,
            &first,
            &stop,
            &mut |_| Ok(()),
            &mut |p| seen.push(p.game),
        )
        .expect("grows");
        assert_eq!(seen.iter().copied().collect::<HashSet<_>>(), second);
        assert_eq!(sorted(&part), sorted(&whole));
        // Told every game was played, a run plays none.
        let everything: HashSet<LinesGame> = all.into_iter().collect();
        let before = sorted(&part);
        let end = grow_lines(
            &mut part,
            &openings(),
            &cfg,
            &everything,
            &stop,
            &mut |_| Ok(()),
            &mut |_| panic!("no game to report"),
        )
        .expect("grows");
        assert_eq!(end, LinesEnd::Done);
        assert_eq!(sorted(&part), before);
    }

    /// A drop-out build that expands a lines leaf's parent searches the leaf again at its own
    /// budget; the records it links are those of a build without the lines.
    #[test]
    fn a_build_replaces_the_smaller_leaves_it_reaches() {
        let stop = AtomicBool::new(false);
        let cfg = |max| BuildConfig {
            engine: EngineConfig::default(),
            limits: nodes(2_000),
            penalty: 5,
            threads: 1,
            batch: 2,
            max_positions: Some(max),
            rounds: None,
            time: None,
            max_ply: 40,
            save_every: Duration::from_secs(3600),
            roots: vec![(AnyPosition::initial(BoardSize::S6, Side::Bot), 0)],
            deepen: false,
            repair: None,
        };
        let mut lines = config(1);
        lines.limits = nodes(700);
        let mut mixed = Book::new(BoardSize::S6, BuildInfo::default());
        grown(&mut mixed, &lines, &stop);
        let small = mixed.len();
        let end = build(
            &mut mixed,
            &cfg(small + 40),
            &stop,
            &mut |_| Ok(()),
            &mut |_| {},
        );
        assert_eq!(end.ok(), Some(BuildEnd::Positions));
        let mut pure = Book::new(BoardSize::S6, BuildInfo::default());
        let end = build(
            &mut pure,
            &cfg(small + 60),
            &stop,
            &mut |_| Ok(()),
            &mut |_| {},
        );
        assert_eq!(end.ok(), Some(BuildEnd::Positions));
        // Every record reachable through expanded positions is the pure build's search.
        let mut reached = 0;
        for e in mixed.entries().iter().filter(|e| e.expanded) {
            for (_, next) in e.position.successors() {
                let c = canonical(&next).0;
                let i = mixed.find_canonical(&c).expect("children are in");
                let j = pure.find_canonical(&c).expect("the pure build has it");
                let (a, b) = (mixed.entry(i), pure.entry(j));
                // Their own searches; the moves of expanded ones depend on how far each grew.
                assert_eq!((a.value, a.depth, a.nodes), (b.value, b.depth, b.nodes));
                reached += 1;
            }
        }
        for e in mixed.entries() {
            if e.nodes == 2_000 || e.pv {
                continue;
            }
            assert_eq!(e.nodes, 700);
        }
        // The lines' leaves are the first records: those the build reached were searched again.
        let replaced = mixed.entries()[..small]
            .iter()
            .filter(|e| e.nodes == 2_000 && !e.pv)
            .count();
        assert!(reached > 10, "{reached}");
        assert!(replaced > 0, "no lines leaf was searched again");
    }

    /// Lines at a larger budget search again the smaller leaves they reach, so they play the
    /// games a run at that budget from nothing plays: its records are all there, and the smaller
    /// leaves left are those no game reached.
    #[test]
    fn lines_at_a_larger_budget_deepen_the_leaves_they_reach() {
        let stop = AtomicBool::new(false);
        let mut small = config(2);
        small.limits = nodes(700);
        let mut book = Book::new(BoardSize::S6, BuildInfo::default());
        grown(&mut book, &small, &stop);
        let searched_before = book.searched_only().len();
        let (_, seen) = grown(&mut book, &config(2), &stop);
        let last = seen.last().expect("progress");
        assert!(last.deepened > 0, "nothing deepened");
        // A position searched again is not a move from the book as it was.
        assert!(last.known_moves < last.book_moves);
        let mut fresh = Book::new(BoardSize::S6, BuildInfo::default());
        grown(&mut fresh, &config(1), &stop);
        let fresh = fresh.searched_only();
        let deep: Vec<Entry> = sorted(&book)
            .into_iter()
            .filter(|e| !e.pv && e.nodes == 3_000)
            .collect();
        assert_eq!(deep, sorted(&fresh));
        assert!(book
            .entries()
            .iter()
            .all(|e| e.pv || e.nodes == 700 || e.nodes == 3_000));
        // Each of the fresh run's searches either added a position or deepened a leaf (one
        // from a variation counts as added: it was not a search of its own).
        assert_eq!(
            book.searched_only().len() - searched_before + last.deepened,
            fresh.len()
        );
    }

    /// A leaf whose value an expanded record's moves hold is left to a build (which brings those
    /// moves up to date); the others a game reaches are searched again.
    #[test]
    fn lines_leave_the_children_of_expanded_positions_to_a_build() {
        let stop = AtomicBool::new(false);
        let cfg = BuildConfig {
            engine: EngineConfig::default(),
            limits: nodes(700),
            penalty: 5,
            threads: 1,
            batch: 2,
            max_positions: Some(30),
            rounds: None,
            time: None,
            max_ply: 40,
            save_every: Duration::from_secs(3600),
            roots: Vec::new(),
            deepen: false,
            repair: None,
        };
        let mut book = Book::new(BoardSize::S6, BuildInfo::default());
        let end = build(&mut book, &cfg, &stop, &mut |_| Ok(()), &mut |_| {});
        assert_eq!(end.ok(), Some(BuildEnd::Positions));
        // Lines at the same budget add leaves past the built tree.
        let mut small = config(2);
        small.limits = nodes(700);
        grown(&mut book, &small, &stop);
        let kept = children_of_expanded(&book);
        assert!(!kept.is_empty());
        let old = book.entries().to_vec();
        let (_, seen) = grown(&mut book, &config(2), &stop);
        assert!(seen.last().expect("progress").deepened > 0);
        for (i, e) in old.iter().enumerate() {
            if kept.contains(&i) || e.expanded {
                assert_eq!(book.entry(i), e, "record {i}");
            }
        }
        assert!(old
            .iter()
            .enumerate()
            .any(|(i, e)| !kept.contains(&i) && book.entry(i) != e));
    }
}
