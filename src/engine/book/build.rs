//! Building a book by drop-out expansion from the program's own deep searches.
//!
//! Every position of the book has been searched with the build's budget ([`BuildConfig::limits`]);
//! a position is *expanded* by searching every position its legal moves lead to. The value of an
//! expanded position is the best of its moves' values (minimax over the book below it); a leaf's
//! is its own search's. Which leaf to expand next: the one whose path from the start costs least,
//! a path's cost being the sum, over its moves, of how much worse the move is than the best move
//! there (its *drop*, for whichever side plays it) plus a penalty per ply. The best line costs only
//! its penalties, so it grows deepest; a line with a small misstep grows a little less, a blunder
//! much less. That is the lines a strong opponent or a person is likely to play.
//!
//! Each round takes the [`BuildConfig::batch`] cheapest leaves and searches their new children in
//! parallel, one search per thread, each with a fresh table and a node budget, so that a build with
//! a node budget gives the same book whatever the number of threads. Positions are keyed and
//! searched in their canonical form ([`super::canonical`]).

use super::{canonical, turn_move, value_of, Book, BookError, BookMove, Entry};
use crate::engine::{Engine, EngineConfig, Limits};
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::position::Side;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How to build.
#[derive(Clone, Debug)]
pub struct BuildConfig {
    /// The engine of every search (its `threads` is set to 1: the build runs searches side by
    /// side instead).
    pub engine: EngineConfig,
    /// The budget of each position's search.
    pub limits: Limits,
    /// Cost of a ply on a path, hundredths of a man.
    pub penalty: u32,
    /// Searches run at the same time.
    pub threads: usize,
    /// Leaves expanded per round (the book does not depend on `threads`, it does on this).
    pub batch: usize,
    /// Stop once the book has this many positions.
    pub max_positions: Option<usize>,
    /// Stop after this long (checked between rounds).
    pub time: Option<Duration>,
    /// Leaves deeper than this many plies are not expanded.
    pub max_ply: u32,
    /// Save at least this often.
    pub save_every: Duration,
}

/// Progress of a build, reported after each round.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Positions in the book.
    pub positions: usize,
    /// Expanded positions.
    pub expanded: usize,
    /// The deepest ply of the book.
    pub depth: u32,
    /// The start position's value (its best line's).
    pub best_value: i32,
    /// The best line as far as the book goes.
    pub best_line: Vec<MoveInfo>,
    /// Searches in this run.
    pub searches: u64,
    /// Average search depth in this run.
    pub search_depth: f64,
    /// Searches per second in this run.
    pub rate: f64,
    /// Time of this run.
    pub elapsed: Duration,
}

/// Why a build ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BuildEnd {
    /// The book reached its position limit.
    Positions,
    /// The time limit ran out.
    Time,
    /// Stopped from outside.
    Stopped,
    /// No leaf left to expand (all beyond the ply limit or lost).
    Exhausted,
}

/// The state of a build: the book and, for each expanded position, its moves and where they lead.
struct Tree<'a> {
    book: &'a mut Book,
    children: Vec<Vec<(MoveInfo, usize)>>,
}

impl Tree<'_> {
    /// The children of an expanded record, if they are all in the book.
    fn link(&mut self, i: usize) {
        while self.children.len() < self.book.len() {
            self.children.push(Vec::new());
        }
        let pos = self.book.entry(i).position;
        let mut kids = Vec::new();
        for (mv, next) in pos.successors() {
            if let Some(j) = self.book.find_canonical(&canonical(&next).0) {
                kids.push((mv, j));
            }
        }
        self.children[i] = kids;
    }

    /// Minimax value of every record (a cycle counts as a draw).
    fn values(&self) -> Vec<i32> {
        let n = self.book.len();
        let mut val: Vec<Option<i32>> = vec![None; n];
        let mut on_stack = vec![false; n];
        for i in 0..n {
            self.value(i, &mut val, &mut on_stack);
        }
        val.into_iter().map(|v| v.unwrap_or(0)).collect()
    }

    fn value(&self, i: usize, val: &mut [Option<i32>], on_stack: &mut [bool]) -> i32 {
        if let Some(v) = val[i] {
            return v;
        }
        if on_stack[i] {
            return 0;
        }
        let e = self.book.entry(i);
        let kids = self.children.get(i).map_or(&[][..], |k| &k[..]);
        let v = if !e.expanded || kids.is_empty() {
            i32::from(e.value)
        } else {
            on_stack[i] = true;
            let mut best = i32::MIN;
            for (_, j) in kids {
                best = best.max(-self.value(*j, val, on_stack));
            }
            on_stack[i] = false;
            best
        };
        val[i] = Some(v);
        v
    }

    /// Writes every expanded record's moves with their minimax values, best first.
    fn refresh_moves(&mut self, val: &[i32]) {
        for i in 0..self.book.len() {
            if !self.book.entry(i).expanded {
                continue;
            }
            let mut moves: Vec<BookMove> = self.children[i]
                .iter()
                .map(|(mv, j)| BookMove {
                    mv: mv.clone(),
                    value: value_of(-val[*j]),
                })
                .collect();
            moves.sort_by_key(|m| Reverse(m.value));
            self.book.entry_mut(i).moves = moves;
        }
    }

    /// The cheapest `k` leaves to expand, cheapest first, and the deepest ply reached.
    fn leaves(&self, root: usize, val: &[i32], penalty: u32, max_ply: u32, k: usize) -> Vec<usize> {
        let n = self.book.len();
        let mut cost = vec![u64::MAX; n];
        let mut ply = vec![0u32; n];
        let mut heap = BinaryHeap::new();
        cost[root] = 0;
        heap.push(Reverse((0u64, root)));
        let mut out = Vec::new();
        while let Some(Reverse((c, i))) = heap.pop() {
            if c > cost[i] {
                continue;
            }
            let e = self.book.entry(i);
            if !e.expanded {
                if !e.moves.is_empty() && ply[i] < max_ply {
                    out.push(i);
                    if out.len() >= k {
                        break;
                    }
                }
                continue;
            }
            for (_, j) in &self.children[i] {
                let drop = (val[i] - (-val[*j])).max(0) as u64;
                let nc = c + drop + u64::from(penalty);
                if nc < cost[*j] {
                    cost[*j] = nc;
                    ply[*j] = ply[i] + 1;
                    heap.push(Reverse((nc, *j)));
                }
            }
        }
        out
    }

    /// The best line from the root through the book, in the start position's coordinates.
    fn best_line(&self, root: usize, val: &[i32]) -> Vec<MoveInfo> {
        let mut line = Vec::new();
        let mut i = root;
        let mut seen = vec![false; self.book.len()];
        while self.book.entry(i).expanded && !seen[i] {
            seen[i] = true;
            let best = self.children[i]
                .iter()
                .max_by_key(|(_, j)| (-val[*j], Reverse(*j)));
            let Some((mv, j)) = best else { break };
            // The canonical positions of odd plies are the real ones turned.
            line.push(if line.len() % 2 == 1 {
                turn_move(mv, self.book.size())
            } else {
                mv.clone()
            });
            i = *j;
        }
        line
    }
}

/// Searches a canonical position and makes its leaf record.
fn search_leaf(engine: &mut Engine, pos: &AnyPosition, limits: &Limits) -> Entry {
    engine.new_game();
    let never = AtomicBool::new(false);
    let r = engine.search_excluding(pos, &[], limits, &[], &never, &mut |_| {});
    let value = value_of(r.info.score.0);
    let moves = r
        .best
        .map(|mv| vec![BookMove { mv, value }])
        .unwrap_or_default();
    Entry {
        position: *pos,
        value,
        depth: r.info.depth.min(255) as u8,
        expanded: moves.is_empty(),
        moves,
    }
}

/// Searches positions side by side, one engine per thread; the results in the input's order.
fn search_all(engines: &mut [Engine], positions: &[AnyPosition], limits: &Limits) -> Vec<Entry> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<Entry>>> = Mutex::new(vec![None; positions.len()]);
    std::thread::scope(|scope| {
        for engine in engines.iter_mut() {
            let (next, out) = (&next, &out);
            scope.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(pos) = positions.get(k) else { break };
                let e = search_leaf(engine, pos, limits);
                if let Ok(mut o) = out.lock() {
                    o[k] = Some(e);
                }
            });
        }
    });
    out.into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// Builds or extends `book` (of the size it is for) until a limit in `cfg`, `stop`, or no leaf is
/// left; `save` is called at least every [`BuildConfig::save_every`] and at the end with the
/// book's moves up to date, `on_progress` after every round.
pub fn build(
    book: &mut Book,
    cfg: &BuildConfig,
    stop: &AtomicBool,
    save: &mut dyn FnMut(&Book) -> Result<(), BookError>,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<BuildEnd, BookError> {
    let start = Instant::now();
    let seconds0 = book.info().seconds;
    let searches0 = book.info().searches;
    let mut engine_cfg = cfg.engine.clone();
    engine_cfg.threads = 1;
    engine_cfg.seed = None;
    let mut engines: Vec<Engine> = (0..cfg.threads.max(1))
        .map(|_| Engine::new(engine_cfg.clone()))
        .collect();
    let root_pos = canonical(&AnyPosition::initial(book.size(), Side::Player)).0;
    let mut tree = Tree {
        book,
        children: Vec::new(),
    };
    let root = match tree.book.find_canonical(&root_pos) {
        Some(r) => r,
        None => {
            let e = search_all(&mut engines[..1], &[root_pos], &cfg.limits);
            tree.book.info_mut().searches += 1;
            let Some(e) = e.into_iter().next() else {
                return Ok(BuildEnd::Stopped);
            };
            tree.book.insert(e).unwrap_or_else(|i| i)
        }
    };
    tree.children = vec![Vec::new(); tree.book.len()];
    for i in 0..tree.book.len() {
        if tree.book.entry(i).expanded {
            tree.link(i);
        }
    }
    let mut searches = 0u64;
    let mut depth_sum = 0u64;
    let mut last_save = Instant::now();
    let end = loop {
        let val = tree.values();
        if stop.load(Ordering::Relaxed) {
            break BuildEnd::Stopped;
        }
        if cfg.time.is_some_and(|t| start.elapsed() >= t) {
            break BuildEnd::Time;
        }
        if cfg.max_positions.is_some_and(|m| tree.book.len() >= m) {
            break BuildEnd::Positions;
        }
        let leaves = tree.leaves(root, &val, cfg.penalty, cfg.max_ply, cfg.batch.max(1));
        if leaves.is_empty() {
            break BuildEnd::Exhausted;
        }
        let mut todo: Vec<AnyPosition> = Vec::new();
        let mut seen: HashMap<u64, ()> = HashMap::new();
        for &leaf in &leaves {
            for (_, next) in tree.book.entry(leaf).position.successors() {
                let c = canonical(&next).0;
                if tree.book.find_canonical(&c).is_none() && seen.insert(c.hash_key(), ()).is_none()
                {
                    todo.push(c);
                }
            }
        }
        let found = search_all(&mut engines, &todo, &cfg.limits);
        searches += found.len() as u64;
        for e in found {
            depth_sum += u64::from(e.depth);
            let _ = tree.book.insert(e);
        }
        for &leaf in &leaves {
            tree.book.entry_mut(leaf).expanded = true;
            tree.link(leaf);
        }
        let elapsed = start.elapsed();
        {
            let info = tree.book.info_mut();
            info.searches = searches0 + searches;
            info.seconds = seconds0 + elapsed.as_secs();
        }
        let val = tree.values();
        let line = tree.best_line(root, &val);
        let expanded = tree.book.entries().iter().filter(|e| e.expanded).count();
        on_progress(&Progress {
            positions: tree.book.len(),
            expanded,
            depth: line.len() as u32,
            best_value: val[root],
            best_line: line,
            searches,
            search_depth: if searches > 0 {
                depth_sum as f64 / searches as f64
            } else {
                0.0
            },
            rate: searches as f64 / elapsed.as_secs_f64().max(1e-9),
            elapsed,
        });
        if last_save.elapsed() >= cfg.save_every {
            tree.refresh_moves(&val);
            save(tree.book)?;
            last_save = Instant::now();
        }
    };
    let val = tree.values();
    tree.refresh_moves(&val);
    let info = tree.book.info_mut();
    info.searches = searches0 + searches;
    info.seconds = seconds0 + start.elapsed().as_secs();
    save(tree.book)?;
    Ok(end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::book::BuildInfo;
    use crate::rules::geometry::BoardSize;

    fn config(nodes: u64, threads: usize, max: usize) -> BuildConfig {
        BuildConfig {
            engine: EngineConfig::default(),
            limits: Limits {
                nodes: Some(nodes),
                ..Limits::default()
            },
            penalty: 5,
            threads,
            batch: 2,
            max_positions: Some(max),
            time: None,
            max_ply: 40,
            save_every: Duration::from_secs(3600),
        }
    }

    fn built(size: BoardSize, threads: usize, max: usize) -> Book {
        let mut book = Book::new(size, BuildInfo::default());
        let stop = AtomicBool::new(false);
        let end = build(
            &mut book,
            &config(2_000, threads, max),
            &stop,
            &mut |_| Ok(()),
            &mut |_| {},
        );
        assert_eq!(end.ok(), Some(BuildEnd::Positions));
        book
    }

    #[test]
    fn a_build_does_not_depend_on_threads_and_values_are_minimax() {
        let one = built(BoardSize::S8, 1, 40);
        let two = built(BoardSize::S8, 2, 40);
        assert_eq!(one.entries(), two.entries());
        assert!(one.len() >= 40);
        // The start is expanded, with every legal move, best first.
        let start = AnyPosition::initial(BoardSize::S8, Side::Player);
        let moves = one.moves(&start).expect("start in book");
        assert_eq!(moves.len(), start.legal_moves().len());
        assert!(moves.windows(2).all(|w| w[0].value >= w[1].value));
        // Each move's value is minus the value of the position it leads to.
        for m in &moves {
            let next = start.play(&m.mv).expect("legal");
            let j = one.find_canonical(&canonical(&next).0).expect("child in");
            let e = one.entry(j);
            let child_best = if e.expanded {
                e.moves.iter().map(|m| m.value).max().unwrap_or(e.value)
            } else {
                e.value
            };
            assert_eq!(m.value, -child_best);
        }
    }

    #[test]
    fn a_resumed_build_continues_where_it_stopped() {
        let half = built(BoardSize::S6, 1, 20);
        let n = half.len();
        // Through the file format, as a resumed build reads it.
        let mut book = Book::from_bytes(&half.to_bytes().expect("writes")).expect("reads");
        let stop = AtomicBool::new(false);
        let end = build(
            &mut book,
            &config(2_000, 1, 45),
            &stop,
            &mut |_| Ok(()),
            &mut |_| {},
        );
        assert_eq!(end.ok(), Some(BuildEnd::Positions));
        assert!(book.len() >= 45 && book.len() > n);
        assert_eq!(book.entries(), built(BoardSize::S6, 1, 45).entries());
    }
}
