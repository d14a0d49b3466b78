//! Building a book by drop-out expansion from the program's own deep searches, from one or more
//! roots, and growing a book already built.
//!
//! Every position of the book has been searched once ([`BuildConfig::limits`]; its record keeps
//! the depth reached and the node budget); a position is *expanded* by searching every position
//! its legal moves lead to. The value of an expanded position is the best of its moves' values
//! (minimax over the book below it); a leaf's is its own search's. A position is not searched
//! again: an existing record keeps its own value, and only gains moves valued from deeper in the
//! book when it is expanded. The one exception is a leaf searched with a smaller node budget than
//! the build's (as [`super::lines`] adds them, and the variations' records): an expansion that
//! reaches it searches it again at the build's budget and the new search replaces it. Such a leaf
//! that is already a move from an expanded record is reached by no expansion; a
//! [`BuildConfig::deepen`] pass searches those again (before the build grows on), and the
//! expanded records' moves take the new values.
//!
//! **Which leaf next.** The book grows from its *roots* ([`BuildConfig::roots`]: the start
//! position, and for 8x8 the ballots of the ACF 3-move deck), each with a starting cost. A path's
//! cost is its root's starting cost plus, over its moves, how much worse the move is than the best
//! move there (its *drop*, for whichever side plays it) plus a penalty per ply; a position's cost
//! is that of its cheapest path from any root. Each round expands the [`BuildConfig::batch`]
//! cheapest leaves. The best line of every root costs only its penalties, so it grows deepest; a
//! line with a small misstep grows a little less, a blunder much less: the lines a strong
//! opponent or a person is likely to play.
//!
//! **Sharing the budget between roots.** With equal starting costs (the default, 0) the roots share
//! the expansion by cost level, not by count: every root's tree is grown to the same cost before
//! any grows further, so each ballot gets the same depth of near-best lines whatever the others
//! need; a root whose best lines are forced grows deeper than one with many near-equal moves, for
//! the same cost. A larger starting cost for a root delays it by that many hundredths of a man
//! (e.g. to favour the start position's own lines). Positions shared between roots (transpositions,
//! or a ballot reached from the start) are one record, at their cheapest cost.
//!
//! **Searches.** Each is a fresh engine table and one thread with a node budget, so that a book
//! depends on its settings and not on the machine, the load or the number of threads: searches run
//! side by side ([`BuildConfig::threads`]) in groups of that many, and their results are added in
//! the order of the round's list.
//!
//! **Stopping and resuming.** `stop` (a signal) aborts the searches under way, whose results are
//! dropped; the time limit is checked between groups of searches. Either can end a build in the
//! middle of a round: the positions searched so far stay in the book, unlinked, and the round's
//! leaves are marked ([`super::Entry::pending`]). The book is saved then, and every
//! [`BuildConfig::save_every`] between groups, atomically, so that a file is always consistent.
//! The next build finishes the marked round first (the cheapest leaves are the same ones: the new
//! records are not linked into the tree until the round ends), then goes on: a build interrupted
//! and resumed at the same settings gives the same book as one run straight through.

use super::{canonical, turn_move, value_of, Book, BookError, BookMove, Entry};
use crate::engine::{Engine, EngineConfig, Limits, StopReason};
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::position::Side;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
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
    /// Stop once the book has this many positions (checked between rounds).
    pub max_positions: Option<usize>,
    /// Stop after this many rounds (checked between rounds; a round a stopped build began counts
    /// as one, the first round of roots and records to deepen too): a build of `R` rounds equals
    /// `R` rounds each searched in shards and merged ([`super::shard`]).
    pub rounds: Option<u64>,
    /// Stop after this long (checked between searches).
    pub time: Option<Duration>,
    /// Leaves deeper than this many plies from their root are not expanded.
    pub max_ply: u32,
    /// Save at least this often.
    pub save_every: Duration,
    /// The positions the book grows from, each with its starting cost in hundredths of a man
    /// (see the module documentation); the first is the one whose best line
    /// [`Progress::best_line`] shows. Empty: the start position of the book's size, at 0.
    pub roots: Vec<(AnyPosition, u64)>,
    /// Before growing, search again at [`BuildConfig::limits`] every record a move from an
    /// expanded record that was searched with a smaller budget ([`deepen_list`]); the expanded
    /// records' values are then backed up from the new searches.
    pub deepen: bool,
    /// Expand first the leaves the book contradicts ([`contradicted`]): a leaf whose move is
    /// worse, by more than this many hundredths of a man, than another move there by the record
    /// the book holds of the position that move leads to. `None`: grow by cost alone.
    pub repair: Option<u32>,
}

/// Progress of a build, reported after each group of searches.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Positions in the book.
    pub positions: usize,
    /// Positions added in this run.
    pub added: usize,
    /// Expanded positions.
    pub expanded: usize,
    /// Plies of the first root's best line through the book.
    pub depth: u32,
    /// The first root's value (its best line's).
    pub best_value: i32,
    /// The first root's best line as far as the book goes (in the root's own coordinates).
    pub best_line: Vec<MoveInfo>,
    /// Plies of the best line of each other root (the deck's ballots): the least.
    pub roots_min_plies: u32,
    /// The same: the mean.
    pub roots_mean_plies: f64,
    /// The other roots that are expanded.
    pub roots_expanded: usize,
    /// The other roots.
    pub roots_other: usize,
    /// Searches in this run.
    pub searches: u64,
    /// Average depth of this run's searches.
    pub search_depth: f64,
    /// Searches per second in this run.
    pub rate: f64,
    /// Time of this run.
    pub elapsed: Duration,
    /// Searches of the round under way done so far.
    pub round_done: usize,
    /// Searches of the round under way in all.
    pub round_total: usize,
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
    /// The build ran its [`BuildConfig::rounds`].
    Rounds,
}

/// CPU time of this process so far (user and system, every thread); `None` where the system does
/// not say.
pub fn process_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        // SAFETY: `usage` is a plain C struct filled in by getrusage; it is only read after the
        // call returned success.
        let usage = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
                return None;
            }
            usage
        };
        let tv = |t: libc::timeval| {
            Duration::from_secs(t.tv_sec.max(0) as u64)
                + Duration::from_micros(t.tv_usec.max(0) as u64)
        };
        Some(tv(usage.ru_utime) + tv(usage.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
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

    /// The cost of every record from `roots` (record, starting cost) through the expanded
    /// records, and its ply from its cheapest root: `u64::MAX` for a record no path reaches.
    fn costs(&self, roots: &[(usize, u64)], val: &[i32], penalty: u32) -> (Vec<u64>, Vec<u32>) {
        let n = self.book.len();
        let mut cost = vec![u64::MAX; n];
        let mut ply = vec![0u32; n];
        let mut heap = BinaryHeap::new();
        for &(r, c) in roots {
            if c < cost[r] {
                cost[r] = c;
                heap.push(Reverse((c, r)));
            }
        }
        while let Some(Reverse((c, i))) = heap.pop() {
            if c > cost[i] || !self.book.entry(i).expanded {
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
        (cost, ply)
    }

    /// The cheapest `k` leaves to expand from `roots` (record, starting cost), cheapest first
    /// (of equal costs, the first in the book).
    fn leaves(
        &self,
        roots: &[(usize, u64)],
        val: &[i32],
        penalty: u32,
        max_ply: u32,
        k: usize,
    ) -> Vec<usize> {
        let (cost, ply) = self.costs(roots, val, penalty);
        let mut open: Vec<usize> = (0..self.book.len())
            .filter(|&i| {
                let e = self.book.entry(i);
                cost[i] != u64::MAX && !e.expanded && !e.moves.is_empty() && ply[i] < max_ply
            })
            .collect();
        open.sort_by_key(|&i| (cost[i], i));
        open.truncate(k);
        open
    }

    /// The best line from `root` through the book, in the root's own coordinates.
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

/// Whether a record is a leaf searched with a smaller node budget than `limits` gives (e.g. one
/// [`super::lines`] added): an expansion searches it again and the new search replaces it.
pub(super) fn weaker(e: &Entry, limits: &Limits) -> bool {
    !e.expanded && limits.nodes.is_some_and(|n| e.nodes > 0 && e.nodes < n)
}

/// A canonical position's search: its leaf record, its principal variation (the record's move
/// first; empty when the search ended without one that agrees with its move), and whether the
/// search ran to its limit (not stopped from outside).
pub(super) fn search_leaf(
    engine: &mut Engine,
    pos: &AnyPosition,
    limits: &Limits,
    stop: &AtomicBool,
) -> (Entry, Vec<MoveInfo>, bool) {
    engine.new_game();
    let mut r = engine.search_excluding(pos, &[], limits, &[], stop, &mut |_| {});
    let value = value_of(r.info.score.0);
    let pv = match (&r.best, r.info.pv.first()) {
        (Some(best), Some(first)) if best == first => std::mem::take(&mut r.info.pv),
        _ => Vec::new(),
    };
    let moves = r
        .best
        .map(|mv| vec![BookMove { mv, value }])
        .unwrap_or_default();
    let entry = Entry {
        position: *pos,
        value,
        depth: r.info.depth.min(255) as u8,
        nodes: limits.nodes.unwrap_or(0),
        expanded: moves.is_empty(),
        pending: false,
        pv: false,
        moves,
    };
    (entry, pv, r.reason != StopReason::Stopped)
}

/// The records of the first `plies` positions along a leaf's principal variation `pv` (which
/// starts with the leaf's move), each canonical with the variation's next move: the leaf's value
/// from that position's side, its depth less the plies played, and its node budget halved each
/// ply (a deliberately low estimate: a search's effective branching factor is about 1.4 a ply
/// here), so that the engine plays them only at budgets below that, and a search of its own
/// at a larger budget replaces them. A leaf searched by time (budget 0) gives none: there is no
/// budget to compare with.
pub fn pv_entries(leaf: &Entry, pv: &[MoveInfo], plies: u32) -> Vec<Entry> {
    let mut out = Vec::new();
    if leaf.nodes == 0 || leaf.moves.first().map(|m| &m.mv) != pv.first() {
        return out;
    }
    let size = leaf.position.size();
    let mut pos = leaf.position;
    for k in 1..=plies as usize {
        let (Some(played), Some(next)) = (pv.get(k - 1), pv.get(k)) else {
            break;
        };
        let Some(after) = pos.play(played) else { break };
        pos = after;
        let (canon, turned) = canonical(&pos);
        let mv = if turned {
            turn_move(next, size)
        } else {
            next.clone()
        };
        let nodes = leaf.nodes >> k;
        let depth = usize::from(leaf.depth).saturating_sub(k);
        if nodes == 0 || depth == 0 || !canon.legal_moves().contains(&mv) {
            break;
        }
        // The side to move alternates: the leaf's value from this position's side.
        let value = if k % 2 == 1 { -leaf.value } else { leaf.value };
        out.push(Entry {
            position: canon,
            value,
            depth: depth as u8,
            nodes,
            expanded: false,
            pending: false,
            pv: true,
            moves: vec![BookMove { mv, value }],
        });
    }
    out
}

/// Searches positions side by side, one engine per thread; the results in the input's order, cut
/// before the first search that `stop` interrupted.
fn search_all(
    engines: &mut [Engine],
    positions: &[AnyPosition],
    limits: &Limits,
    stop: &AtomicBool,
) -> Vec<Entry> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<(Entry, bool)>>> = Mutex::new(vec![None; positions.len()]);
    std::thread::scope(|scope| {
        for engine in engines.iter_mut() {
            let (next, out) = (&next, &out);
            scope.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(pos) = positions.get(k) else { break };
                let (e, _, complete) = search_leaf(engine, pos, limits, stop);
                if let Ok(mut o) = out.lock() {
                    o[k] = Some((e, complete));
                }
            });
        }
    });
    out.into_inner()
        .unwrap_or_default()
        .into_iter()
        .map_while(|r| r.filter(|(_, complete)| *complete).map(|(e, _)| e))
        .collect()
}

/// What a build has done in this run, for the progress reports and the build record.
/// A run's clock and counts, for the build record in the book's header (used by [`build`] and
/// by [`super::lines`]).
pub(super) struct Run {
    pub(super) start: Instant,
    cpu0: Option<Duration>,
    seconds0: u64,
    cpu_seconds0: u64,
    searches0: u64,
    pub(super) searches: u64,
    pub(super) depth_sum: u64,
    pub(super) positions0: usize,
    pub(super) last_save: Instant,
}

impl Run {
    /// A run starting now on `book` (its record so far is kept and added to).
    pub(super) fn start(book: &Book) -> Run {
        Run {
            start: Instant::now(),
            cpu0: process_cpu_time(),
            seconds0: book.info().seconds,
            cpu_seconds0: book.info().cpu_seconds,
            searches0: book.info().searches,
            searches: 0,
            depth_sum: 0,
            positions0: book.len(),
            last_save: Instant::now(),
        }
    }

    /// Writes this run's time, compute and searches into the book's record.
    pub(super) fn record(&self, book: &mut Book, threads: usize) {
        let elapsed = self.start.elapsed();
        // Without the system's CPU time, the searches' threads are counted as busy throughout.
        let cpu = match (self.cpu0, process_cpu_time()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => elapsed * threads as u32,
        };
        let info = book.info_mut();
        info.searches = self.searches0 + self.searches;
        info.seconds = self.seconds0 + elapsed.as_secs();
        info.cpu_seconds = self.cpu_seconds0 + cpu.as_secs();
    }
}

/// The records that are a move from an expanded record: their values are backed up into their
/// parents' moves, so only a build (which brings those up to date) may replace them.
pub(super) fn children_of_expanded(book: &Book) -> HashSet<usize> {
    let mut out = HashSet::new();
    for e in book.entries().iter().filter(|e| e.expanded) {
        for (_, next) in e.position.successors() {
            if let Some(j) = book.find_canonical(&canonical(&next).0) {
                out.insert(j);
            }
        }
    }
    out
}

/// The records a [`BuildConfig::deepen`] pass searches again at `limits`, in the book's order: those
/// a move from an expanded record (whose moves hold their values, so neither an expansion nor
/// [`super::lines`] reaches them again) that were searched with a smaller budget.
pub fn deepen_list(book: &Book, limits: &Limits) -> Vec<usize> {
    let mut out: Vec<usize> = children_of_expanded(book)
        .into_iter()
        .filter(|&j| weaker(book.entry(j), limits))
        .collect();
    out.sort_unstable();
    out
}

/// The leaves of `book` that the book itself contradicts, in the book's order, at most `k` (a
/// build with [`BuildConfig::repair`] expands them cheapest first, as it orders leaves): a
/// record that is not expanded, whose move's value (its search's) is more than `margin` below
/// what another move is worth by the book's record of the position that move leads to (that
/// record's [`Entry::standing`], for the other side). Its search chose a move that a search of
/// its own, or an expansion, finds worse than another, so the move the book gives there is in
/// doubt; expanding it (every move searched at the build's budget) settles it by minimax. Such
/// leaves come from searches of different depths or evaluations meeting in one book (a leaf
/// searched before the evaluation changed, a sibling's record from a `book lines` game).
pub fn contradicted(book: &Book, margin: u32, k: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, e) in book.entries().iter().enumerate() {
        if out.len() >= k {
            break;
        }
        let Some(own) = e.moves.first() else {
            continue;
        };
        if e.expanded {
            continue;
        }
        let floor = i32::from(own.value) + margin as i32;
        let doubted = e.position.successors().into_iter().any(|(mv, next)| {
            mv.path != own.mv.path
                && book
                    .find_canonical(&canonical(&next).0)
                    .is_some_and(|j| -i32::from(book.entry(j).standing()) > floor)
        });
        if doubted {
            out.push(i);
        }
    }
    out
}

/// One round of a build: the positions it searches, in order, and the leaves it expands once they
/// are all in the book (none for the first round of a build that lacks a root or deepens).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Round {
    /// The leaves this round expands (record numbers), cheapest first; marked
    /// [`Entry::pending`] while it is under way.
    pub leaves: Vec<usize>,
    /// The canonical positions it searches, in the order their records are added.
    pub todo: Vec<AnyPosition>,
}

/// The roots of a build, canonical (the start position of the book's size when `cfg` has none).
fn canonical_roots(book: &Book, cfg: &BuildConfig) -> Vec<(AnyPosition, u64)> {
    let roots: Vec<(AnyPosition, u64)> = if cfg.roots.is_empty() {
        vec![(AnyPosition::initial(book.size(), Side::Player), 0)]
    } else {
        cfg.roots.clone()
    };
    roots
        .into_iter()
        .map(|(p, c)| (canonical(&p).0, c))
        .collect()
}

/// The build's tree of `book`: every expanded record linked to its children.
fn tree_of(book: &mut Book) -> Tree<'_> {
    let mut tree = Tree {
        children: vec![Vec::new(); book.len()],
        book,
    };
    for i in 0..tree.book.len() {
        if tree.book.entry(i).expanded {
            tree.link(i);
        }
    }
    tree
}

/// The first round of a build: the roots the book lacks and, with [`BuildConfig::deepen`], the
/// records to search again ([`deepen_list`]), in that order, each once.
fn first_round(tree: &Tree<'_>, roots: &[(AnyPosition, u64)], cfg: &BuildConfig) -> Round {
    let mut todo = Vec::new();
    let mut seen = HashSet::new();
    for (p, _) in roots {
        if tree.book.find_canonical(p).is_none() && seen.insert(*p) {
            todo.push(*p);
        }
    }
    if cfg.deepen {
        // Deterministic and resumable as the rounds are: the list is in the book's order, and a
        // record searched again is no longer below the budget, so a resumed pass skips it.
        let again: Vec<AnyPosition> = deepen_list(tree.book, &cfg.limits)
            .into_iter()
            .map(|j| tree.book.entry(j).position)
            .collect();
        todo.extend(again.into_iter().filter(|p| seen.insert(*p)));
    }
    Round {
        leaves: Vec::new(),
        todo,
    }
}

/// The next expansion round: the [`BuildConfig::batch`] cheapest leaves (those of a round a
/// stopped build began, when the book has some marked), and the positions their moves lead to
/// that the book lacks or holds searched with a smaller budget. No leaves: nothing left to expand.
fn expansion_round(tree: &Tree<'_>, roots: &[(AnyPosition, u64)], cfg: &BuildConfig) -> Round {
    let val = tree.values();
    let root_ids = root_ids(tree, roots);
    let pending: Vec<usize> = (0..tree.book.len())
        .filter(|&i| tree.book.entry(i).pending)
        .collect();
    // The leaves the book contradicts first, those games reach soonest (the cheapest from the
    // roots, then those no expanded line leads to, in the book's order); then the cheapest.
    let mut leaves = match cfg.repair {
        Some(margin) => {
            let (cost, _) = tree.costs(&root_ids, &val, cfg.penalty);
            let mut doubted = contradicted(tree.book, margin, usize::MAX);
            doubted.sort_by_key(|&i| (cost[i], i));
            doubted.truncate(cfg.batch.max(1));
            doubted
        }
        None => Vec::new(),
    };
    if leaves.is_empty() {
        leaves = tree.leaves(&root_ids, &val, cfg.penalty, cfg.max_ply, cfg.batch.max(1));
    }
    if !pending.is_empty() {
        // A round a stopped build began: the same leaves (its new records are not linked
        // yet), unless the settings changed, when the marked ones are taken as they are.
        let mut sorted = leaves.clone();
        sorted.sort_unstable();
        if sorted != pending {
            leaves = pending;
        }
    }
    let mut todo: Vec<AnyPosition> = Vec::new();
    let mut seen = HashSet::new();
    for &leaf in &leaves {
        for (_, next) in tree.book.entry(leaf).position.successors() {
            let c = canonical(&next).0;
            let search = match tree.book.find_canonical(&c) {
                None => true,
                Some(j) => weaker(tree.book.entry(j), &cfg.limits),
            };
            if search && seen.insert(c) {
                todo.push(c);
            }
        }
    }
    Round { leaves, todo }
}

/// The round a build of `book` with `cfg` would run next: its first round if that has anything
/// to search, else the next expansion round (`None`: no leaf left to expand). The book is not
/// changed. A shard of a build ([`super::shard`]) searches a share of this round's positions.
pub fn next_round(book: &mut Book, cfg: &BuildConfig) -> Option<Round> {
    let roots = canonical_roots(book, cfg);
    let tree = tree_of(book);
    let first = first_round(&tree, &roots, cfg);
    if !first.todo.is_empty() {
        return Some(first);
    }
    let round = expansion_round(&tree, &roots, cfg);
    (!round.leaves.is_empty()).then_some(round)
}

/// Adds a search's record as a build does: a new position is appended, a leaf searched with a
/// smaller budget is replaced (keeping its pending mark), any other record stays.
fn add_found(book: &mut Book, mut e: Entry, limits: &Limits) {
    match book.find_canonical(&e.position) {
        None => {
            let _ = book.insert(e);
        }
        Some(i) if weaker(book.entry(i), limits) => {
            e.pending = book.entry(i).pending;
            book.replace(i, e);
        }
        Some(_) => {}
    }
}

/// Ends a round whose positions are all searched: its leaves are expanded and linked.
fn finish_round(tree: &mut Tree<'_>, leaves: &[usize]) {
    for &leaf in leaves {
        let e = tree.book.entry_mut(leaf);
        e.expanded = true;
        e.pending = false;
        tree.link(leaf);
    }
}

/// Applies a whole round to `book` as [`build`] does once its last search is in: `found` holds
/// one record per position of `round.todo`, in that order; the leaves are expanded and every
/// expanded record's moves take the new minimax values. [`super::shard`] merges shards with it,
/// so that a round searched in shards gives the book one process gives.
pub fn apply_round(
    book: &mut Book,
    round: &Round,
    found: Vec<Entry>,
    limits: &Limits,
) -> Result<(), BookError> {
    if found.len() != round.todo.len()
        || found.iter().zip(&round.todo).any(|(e, p)| e.position != *p)
        || round.leaves.iter().any(|&i| i >= book.len())
    {
        return Err(BookError::TooLarge(
            "the round's records are not its positions".into(),
        ));
    }
    for &leaf in &round.leaves {
        book.entry_mut(leaf).pending = true;
    }
    for e in found {
        add_found(book, e, limits);
    }
    let mut tree = tree_of(book);
    finish_round(&mut tree, &round.leaves);
    let val = tree.values();
    tree.refresh_moves(&val);
    Ok(())
}

/// Searches the positions `todo` (canonical) as a build does, `threads` side by side, in groups;
/// `on_group` receives each group's records in order (cut before the first search that `stop`
/// interrupted) and says whether to go on.
pub fn search_positions(
    cfg: &BuildConfig,
    todo: &[AnyPosition],
    stop: &AtomicBool,
    on_group: &mut dyn FnMut(Vec<Entry>) -> bool,
) {
    let mut engine_cfg = cfg.engine.clone();
    engine_cfg.threads = 1;
    engine_cfg.seed = None;
    let threads = cfg.threads.max(1);
    let mut engines: Vec<Engine> = (0..threads)
        .map(|_| Engine::new(engine_cfg.clone()))
        .collect();
    for group in todo.chunks(threads) {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let found = search_all(&mut engines, group, &cfg.limits, stop);
        let complete = found.len() == group.len();
        if !on_group(found) || !complete {
            return;
        }
    }
}

/// Builds or extends `book` (of the size it is for) until a limit in `cfg`, `stop`, or no leaf is
/// left; `save` is called at least every [`BuildConfig::save_every`] and at the end with the
/// book's moves up to date, `on_progress` after every group of searches.
pub fn build(
    book: &mut Book,
    cfg: &BuildConfig,
    stop: &AtomicBool,
    save: &mut dyn FnMut(&Book) -> Result<(), BookError>,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<BuildEnd, BookError> {
    let mut run = Run::start(book);
    let threads = cfg.threads.max(1);
    let mut engine_cfg = cfg.engine.clone();
    engine_cfg.threads = 1;
    engine_cfg.seed = None;
    let mut engines: Vec<Engine> = (0..threads)
        .map(|_| Engine::new(engine_cfg.clone()))
        .collect();
    let roots = canonical_roots(book, cfg);
    let mut tree = tree_of(book);
    let timed_out = |run: &Run| cfg.time.is_some_and(|t| run.start.elapsed() >= t);
    // The roots the book does not hold yet (and the records to deepen) are searched first.
    let first = first_round(&tree, &roots, cfg);
    let mut rounds = 0;
    let mut end = None;
    if !first.todo.is_empty() {
        end = search_round(
            &mut tree,
            &mut engines,
            &first.todo,
            cfg,
            stop,
            &mut run,
            &roots,
            save,
            on_progress,
            &timed_out,
        )?;
        rounds += 1;
    }
    let end = match end {
        Some(end) => end,
        None => loop {
            let under_way = tree.book.entries().iter().any(|e| e.pending);
            if !under_way {
                if stop.load(Ordering::Relaxed) {
                    break BuildEnd::Stopped;
                }
                if timed_out(&run) {
                    break BuildEnd::Time;
                }
                if cfg.max_positions.is_some_and(|m| tree.book.len() >= m) {
                    break BuildEnd::Positions;
                }
                if cfg.rounds.is_some_and(|r| rounds >= r) {
                    break BuildEnd::Rounds;
                }
            }
            let round = expansion_round(&tree, &roots, cfg);
            if round.leaves.is_empty() {
                break BuildEnd::Exhausted;
            }
            for &leaf in &round.leaves {
                tree.book.entry_mut(leaf).pending = true;
            }
            if let Some(end) = search_round(
                &mut tree,
                &mut engines,
                &round.todo,
                cfg,
                stop,
                &mut run,
                &roots,
                save,
                on_progress,
                &timed_out,
            )? {
                break end;
            }
            finish_round(&mut tree, &round.leaves);
            rounds += 1;
            report(&tree, &roots, &run, 0, 0, on_progress);
            maybe_save(&mut tree, &mut run, cfg, threads, save, false)?;
        },
    };
    maybe_save(&mut tree, &mut run, cfg, threads, save, true)?;
    Ok(end)
}

/// The records of the roots (those in the book) with their starting costs.
fn root_ids(tree: &Tree<'_>, roots: &[(AnyPosition, u64)]) -> Vec<(usize, u64)> {
    roots
        .iter()
        .filter_map(|(p, c)| tree.book.find_canonical(p).map(|i| (i, *c)))
        .collect()
}

/// Searches `todo` in groups of `threads`, adding each group's records in order; `Some(end)` when
/// `stop` or the time limit ended the round before its last search.
#[allow(clippy::too_many_arguments)]
fn search_round(
    tree: &mut Tree<'_>,
    engines: &mut [Engine],
    todo: &[AnyPosition],
    cfg: &BuildConfig,
    stop: &AtomicBool,
    run: &mut Run,
    roots: &[(AnyPosition, u64)],
    save: &mut dyn FnMut(&Book) -> Result<(), BookError>,
    on_progress: &mut dyn FnMut(&Progress),
    timed_out: &dyn Fn(&Run) -> bool,
) -> Result<Option<BuildEnd>, BookError> {
    let threads = engines.len();
    for (g, group) in todo.chunks(threads).enumerate() {
        if stop.load(Ordering::Relaxed) {
            return Ok(Some(BuildEnd::Stopped));
        }
        if timed_out(run) {
            return Ok(Some(BuildEnd::Time));
        }
        let found = search_all(engines, group, &cfg.limits, stop);
        let complete = found.len() == group.len();
        for e in found {
            run.searches += 1;
            run.depth_sum += u64::from(e.depth);
            add_found(tree.book, e, &cfg.limits);
        }
        if !complete {
            return Ok(Some(BuildEnd::Stopped));
        }
        let done = (g * threads + group.len()).min(todo.len());
        if done < todo.len() {
            report(tree, roots, run, done, todo.len(), on_progress);
            maybe_save(tree, run, cfg, threads, save, false)?;
        }
    }
    Ok(None)
}

/// Reports progress.
fn report(
    tree: &Tree<'_>,
    roots: &[(AnyPosition, u64)],
    run: &Run,
    round_done: usize,
    round_total: usize,
    on_progress: &mut dyn FnMut(&Progress),
) {
    let val = tree.values();
    let ids = root_ids(tree, roots);
    let (line, best_value) = match ids.first() {
        Some(&(r, _)) => (tree.best_line(r, &val), val[r]),
        None => (Vec::new(), 0),
    };
    let others: Vec<usize> = ids
        .iter()
        .skip(1)
        .map(|&(r, _)| tree.best_line(r, &val).len())
        .collect();
    let elapsed = run.start.elapsed();
    on_progress(&Progress {
        positions: tree.book.len(),
        added: tree.book.len().saturating_sub(run.positions0),
        expanded: tree.book.entries().iter().filter(|e| e.expanded).count(),
        depth: line.len() as u32,
        best_value,
        best_line: line,
        roots_min_plies: others.iter().min().copied().unwrap_or(0) as u32,
        roots_mean_plies: if others.is_empty() {
            0.0
        } else {
            others.iter().sum::<usize>() as f64 / others.len() as f64
        },
        roots_expanded: ids
            .iter()
            .skip(1)
            .filter(|&&(r, _)| tree.book.entry(r).expanded)
            .count(),
        roots_other: others.len(),
        searches: run.searches,
        search_depth: if run.searches > 0 {
            run.depth_sum as f64 / run.searches as f64
        } else {
            0.0
        },
        rate: run.searches as f64 / elapsed.as_secs_f64().max(1e-9),
        elapsed,
        round_done,
        round_total,
    });
}

/// Saves (with the moves and the build record brought up to date) when `force` or when the last
/// save is [`BuildConfig::save_every`] old.
fn maybe_save(
    tree: &mut Tree<'_>,
    run: &mut Run,
    cfg: &BuildConfig,
    threads: usize,
    save: &mut dyn FnMut(&Book) -> Result<(), BookError>,
    force: bool,
) -> Result<(), BookError> {
    if !force && run.last_save.elapsed() < cfg.save_every {
        return Ok(());
    }
    let val = tree.values();
    tree.refresh_moves(&val);
    run.record(tree.book, threads);
    save(tree.book)?;
    run.last_save = Instant::now();
    Ok(())
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
            rounds: None,
            time: None,
            max_ply: 40,
            save_every: Duration::from_secs(3600),
            roots: Vec::new(),
            deepen: false,
            repair: None,
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

    /// A leaf's variation gives records along it that the engine reads back as the variation's
    /// moves, in each position's own coordinates, with the budget halved and the depth less a
    /// ply at each; a search by time gives none.
    #[test]
    fn a_leaf_s_variation_reads_back_as_its_moves() {
        // The bot to move at the start: the leaf is its turned image, so is its variation, and
        // half of the variation's positions are turned once more in the book.
        let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
        let (root, turned) = canonical(&start);
        assert!(turned);
        let limits = Limits {
            nodes: Some(40_000),
            ..Limits::default()
        };
        let mut engine = Engine::new(EngineConfig::default());
        let (leaf, pv, complete) =
            search_leaf(&mut engine, &root, &limits, &AtomicBool::new(false));
        assert!(complete);
        assert!(pv.len() >= 5, "variation {}", pv.len());
        assert_eq!(Some(&pv[0]), leaf.moves.first().map(|m| &m.mv));
        let records = pv_entries(&leaf, &pv, 4);
        assert_eq!(records.len(), 4);
        let mut book = Book::new(BoardSize::S8, BuildInfo::default());
        for e in records.iter().cloned() {
            assert!(book.offer_pv(e));
        }
        // Walk the variation in the game's own coordinates, from the bot's side.
        let mut pos = start
            .play(&turn_move(&pv[0], BoardSize::S8))
            .expect("legal");
        for (k, e) in records.iter().enumerate() {
            let k = k + 1;
            assert!(e.pv && !e.expanded);
            assert_eq!(e.nodes, 40_000 >> k);
            assert_eq!(usize::from(e.depth), usize::from(leaf.depth) - k);
            let sign = if k % 2 == 1 { -1 } else { 1 };
            assert_eq!(e.value, sign * leaf.value);
            assert_eq!(canonical(&pos).0, e.position);
            let moves = book.moves_within(&pos, 40_000 >> k).expect("answers");
            assert_eq!(moves.len(), 1);
            // The variation's move, in the game's coordinates (the leaf's were turned, so all are).
            let want = turn_move(&pv[k], BoardSize::S8);
            assert_eq!(moves[0].mv, want);
            assert!(book.moves_within(&pos, (40_000 >> k) + 1).is_none());
            pos = pos.play(&want).expect("legal");
        }
        // A record by time has no budget to halve; a variation that is not the leaf's has none.
        let mut timed = leaf.clone();
        timed.nodes = 0;
        assert!(pv_entries(&timed, &pv, 4).is_empty());
        assert!(pv_entries(&leaf, &pv[1..], 4).is_empty());
        assert!(pv_entries(&leaf, &pv, 0).is_empty());
    }

    /// Every expanded record of `book` has a move for each legal move, best first, each valued
    /// minus the value of the position it leads to ([`Entry::standing`]).
    fn assert_minimax(book: &Book) {
        for e in book.entries().iter().filter(|e| e.expanded) {
            let pos = e.position;
            let moves = book.moves(&pos).expect("in book");
            assert_eq!(moves.len(), pos.legal_moves().len());
            assert!(moves.windows(2).all(|w| w[0].value >= w[1].value));
            for m in &moves {
                let next = pos.play(&m.mv).expect("legal");
                let j = book.find_canonical(&canonical(&next).0).expect("child in");
                assert_eq!(m.value, -book.entry(j).standing());
            }
        }
    }

    #[test]
    fn a_build_does_not_depend_on_threads_and_values_are_minimax() {
        let one = built(BoardSize::S8, 1, 40);
        let two = built(BoardSize::S8, 2, 40);
        assert_eq!(one.entries(), two.entries());
        assert!(one.len() >= 40);
        // The start is expanded, with every legal move; every expanded record's moves are minimax.
        let start = AnyPosition::initial(BoardSize::S8, Side::Player);
        let i = one.find_canonical(&canonical(&start).0).expect("start in");
        assert!(one.entry(i).expanded);
        assert!(one.entries().iter().filter(|e| e.expanded).count() >= 2);
        assert_minimax(&one);
        // Every record knows its search's budget; no round is left under way.
        assert!(one.entries().iter().all(|e| e.nodes == 2_000 && !e.pending));
    }

    /// A deepen pass searches again, at the build's budget, exactly the records a move from an
    /// expanded record that were searched with less; it keeps every other record as it was, backs
    /// the new values up into the expanded records' moves, and a pass interrupted and resumed
    /// equals one run straight through.
    #[test]
    fn a_deepen_pass_searches_again_the_children_of_expanded_records() {
        let mut small = built(BoardSize::S6, 1, 30);
        // A record at a smaller budget that is no expanded record's child: a pass leaves it.
        let leaf = small
            .entries()
            .iter()
            .find(|e| !e.expanded)
            .expect("a leaf")
            .position;
        let (_, next) = leaf.successors().remove(0);
        let (_, far) = next.successors().remove(0);
        let far = canonical(&far).0;
        assert!(small.find_canonical(&far).is_none());
        let mut lone = small.entry(0).clone();
        lone.position = far;
        lone.expanded = false;
        lone.nodes = 1_000;
        lone.moves = vec![BookMove {
            mv: far.legal_moves()[0].clone(),
            value: 7,
        }];
        let far_i = small.insert(lone).expect("new");

        let mut cfg = config(4_000, 1, 1);
        cfg.deepen = true;
        let list = deepen_list(&small, &cfg.limits);
        let children = children_of_expanded(&small);
        assert!(list.len() >= 10, "{}", list.len());
        assert!(!list.contains(&far_i));
        assert!(list.iter().all(|j| children.contains(j)));

        let run = |book: &mut Book, stop_after_first: bool| {
            let stop = AtomicBool::new(false);
            let end = build(book, &cfg, &stop, &mut |_| Ok(()), &mut |_| {
                if stop_after_first {
                    stop.store(true, Ordering::Relaxed);
                }
            });
            end.ok()
        };
        let mut once = small.clone();
        // The position limit (1) ends the build after the pass.
        assert_eq!(run(&mut once, false), Some(BuildEnd::Positions));
        assert_eq!(once.len(), small.len());
        assert!(deepen_list(&once, &cfg.limits).is_empty());
        let mut changed = 0;
        for (i, (a, b)) in small.entries().iter().zip(once.entries()).enumerate() {
            assert_eq!(a.position, b.position);
            assert_eq!(a.expanded, b.expanded);
            if list.contains(&i) {
                assert_eq!(b.nodes, 4_000);
                changed += usize::from(a.value != b.value);
            } else if !a.expanded {
                assert_eq!(a, b, "record {i}");
            }
        }
        assert!(changed > 0, "no deeper search changed a value");
        assert_eq!(once.entry(far_i).nodes, 1_000);
        assert_minimax(&once);

        // Stopped after its first search, through the file format, then resumed.
        let mut part = small.clone();
        assert_eq!(run(&mut part, true), Some(BuildEnd::Stopped));
        assert_eq!(deepen_list(&part, &cfg.limits).len(), list.len() - 1);
        let mut part = Book::from_bytes(&part.to_bytes().expect("writes")).expect("reads");
        assert_eq!(run(&mut part, false), Some(BuildEnd::Positions));
        assert_eq!(part.entries(), once.entries());
    }

    /// A leaf the book contradicts (the record of another move's position says that move is
    /// worth more than the leaf's own) is found, and a build with `repair` expands it first:
    /// every move searched at the build's budget (the doubtful record too, being below it), the
    /// leaf's moves then minimax, and it is no longer in doubt.
    #[test]
    fn a_repair_expands_first_the_leaves_the_book_contradicts() {
        let mut book = built(BoardSize::S6, 1, 30);
        // A leaf with another move whose position the book lacks: a record for it is forged,
        // at a smaller budget than the build's, saying that move wins a man more.
        let (leaf_i, other) = book
            .entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.expanded && !e.moves.is_empty())
            .find_map(|(i, e)| {
                let own = &e.moves[0].mv;
                e.position
                    .successors()
                    .into_iter()
                    .find(|(mv, next)| {
                        mv.path != own.path && book.find_canonical(&canonical(next).0).is_none()
                    })
                    .map(|(_, next)| (i, canonical(&next).0))
            })
            .expect("a leaf with a move the book lacks");
        let before = contradicted(&book, 20, usize::MAX);
        assert!(!before.contains(&leaf_i));
        let leaf_value = book.entry(leaf_i).value;
        let mut forged = book.entry(leaf_i).clone();
        forged.position = other;
        forged.nodes = 1_000;
        forged.value = -(leaf_value + 100);
        forged.moves = vec![BookMove {
            mv: other.legal_moves()[0].clone(),
            value: forged.value,
        }];
        let forged_i = book.insert(forged).expect("new");
        let doubted = contradicted(&book, 20, usize::MAX);
        assert!(doubted.contains(&leaf_i), "{doubted:?}");
        // A margin above the forged difference sees nothing there; `k` bounds the list.
        assert!(!contradicted(&book, 100, usize::MAX).contains(&leaf_i));
        assert!(contradicted(&book, 20, 1).len() <= 1);

        let mut cfg = config(2_000, 1, usize::MAX);
        cfg.max_positions = None;
        cfg.rounds = Some(1);
        cfg.batch = doubted.len();
        cfg.repair = Some(20);
        let round = next_round(&mut book.clone(), &cfg).expect("a round");
        let mut leaves = round.leaves.clone();
        leaves.sort_unstable();
        assert_eq!(leaves, doubted);
        let stop = AtomicBool::new(false);
        let end = build(&mut book, &cfg, &stop, &mut |_| Ok(()), &mut |_| {});
        assert_eq!(end.ok(), Some(BuildEnd::Rounds));
        let leaf = book.entry(leaf_i);
        assert!(leaf.expanded);
        assert_eq!(leaf.moves.len(), leaf.position.legal_moves().len());
        assert_eq!(book.entry(forged_i).nodes, 2_000, "searched again");
        assert!(!contradicted(&book, 20, usize::MAX).contains(&leaf_i));
        assert_minimax(&book);
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

    /// Several roots: each is in the book and expanded, at equal cost each grows.
    #[test]
    fn every_root_grows() {
        let start = AnyPosition::initial(BoardSize::S6, Side::Bot);
        let (_, a) = start.successors().remove(0);
        let (_, b) = a.successors().remove(0);
        let mut cfg = config(1_000, 2, 60);
        cfg.roots = vec![(start, 0), (b, 0)];
        let mut book = Book::new(BoardSize::S6, BuildInfo::default());
        let end = build(
            &mut book,
            &cfg,
            &AtomicBool::new(false),
            &mut |_| Ok(()),
            &mut |_| {},
        );
        assert_eq!(end.ok(), Some(BuildEnd::Positions));
        for root in [start, b] {
            let i = book.find_canonical(&canonical(&root).0).expect("root in");
            assert!(book.entry(i).expanded, "{root}");
            assert!(book.best_line(&root, 40).len() >= 2, "{root}");
        }
    }
}
