//! The search: iterative-deepening negamax alpha-beta with principal-variation search, a shared
//! transposition table, killer and history move ordering, capture extension (a line never stops
//! while a capture is pending), repetition and no-progress draws, and a hard deadline. The history
//! rewards a quiet move that cuts off by the square of the depth and takes as much from the quiet
//! moves searched before it at that node (the malus, since 2026-12-06: at 100 ms a move +9.2 +/-
//! 7.3 Elo in 942 games on the deck, docs/experiments/search.md).
//!
//! Selectivity, each switchable through [`SearchParams`] for experiments:
//! - **aspiration windows** at the root around the previous iteration's score, widened on a fail;
//! - **late-move reductions**: quiet moves after the first few are searched a ply (two, late in
//!   deep nodes) less with a null window and searched again at full depth if they beat alpha. Never
//!   reduced: captures (when a capture is pending every move is one), crowning moves, killers, a
//!   move that offers the opponent a capture, and any move in a position where the opponent
//!   threatens a capture;
//! - **threat extension**: at the horizon, a position where the opponent threatens a capture is
//!   searched one more ply instead of being evaluated (measured: 47 wins to 29 in 120 games at equal
//!   nodes);
//! - **razoring**: one or two plies from the horizon, a quiet non-PV position (no capture pending
//!   for either side) whose static score is more than 0.6 of a man per ply below alpha is not
//!   searched further (measured at equal nodes: 73 wins to 40 in 200 games at 60k nodes a move,
//!   41 to 31 in 120 games at 200k; at equal time, 79 to 54 in 200 games at 50 ms a move; it cuts
//!   the nodes to depth 12 by about 2.8 times);
//! - **reverse futility pruning**: up to three plies from the horizon, a quiet non-PV position
//!   whose static score is more than 0.6 of a man per ply above beta returns that score;
//! - **reductions far from the window**: a quiet non-PV node (no capture pending for either
//!   side) at least three plies from the horizon whose static score is half a man or more (0.7
//!   before generation 16) above beta or below alpha is searched a ply less; every such node on
//!   a line takes its ply, so a line that stays far from the expected score is searched shallower
//!   all along it, in the manner of ProbCut (since 2026-11-27: 58% fewer nodes to depth 17, at 100 ms a move +17 +/- 34
//!   Elo against the search without it, docs/experiments/search.md);
//! - **ProbCut**: a non-PV node at least five plies from the horizon (no capture pending) is
//!   first searched four plies shallower against beta plus one man; if even that bound holds,
//!   the node is cut without the full search (together with reverse futility, measured at equal
//!   time: 100 ms a move, see docs/experiments/search.md).
//!
//! Each child's table bucket is prefetched as soon as its move is made, and the next move's
//! before this one is searched, so that a probe rarely waits for main memory (the same tree:
//! 20-30% less time to a fixed depth on 8x8, and about 6% more from the early fetch).
//!
//! This module is generic over the board size; [`crate::engine`] is the size-independent facade.
//!
//! Scores are from the side to move's view, in hundredths of a man; a win in `n` plies scores
//! `WIN - n`, so the search prefers the fastest win and the slowest loss.

use crate::engine::egdb::{Egdb, Value};
use crate::engine::eval::{EvalState, Evaluator};
use crate::engine::tt::{Bound, Entry, Tt};
use crate::rules::bitboard::Bits;
use crate::rules::geometry::Geometry;
use crate::rules::position::{Move, Position};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// Score of a win at the root (a win `n` plies away scores `WIN - n`).
pub const WIN: i32 = 30_000;
/// Deepest ply the search reaches (extensions included).
pub const MAX_PLY: usize = 128;
/// Scores beyond this are wins or losses.
pub const WIN_BOUND: i32 = WIN - MAX_PLY as i32 - 1;
/// Score of an endgame-database win at the root with distance 0: a database win `d` plies to
/// conversion, `ply` plies from the root, scores `EGDB_WIN - ply - d`, below every win the
/// search finds itself and above every evaluation.
pub const EGDB_WIN: i32 = 25_000;
/// Scores beyond this (up to [`WIN_BOUND`]) are database wins or losses; evaluations stay inside.
pub const EGDB_BOUND: i32 = EGDB_WIN - 2_000;
/// The distance a database score assumes where the database does not know it (slices stored
/// as win/loss/draw only): beyond every stored distance, so that a line reaching a slice with
/// distances (after a conversion) is preferred.
pub const EGDB_UNKNOWN_DISTANCE: i32 = 800;
/// Among wins of unknown distance the winner's evaluation (halved, within this bound) moves the
/// score, so that the search makes progress (advances men, drives kings) towards a conversion
/// it cannot yet see.
const EGDB_UNKNOWN_EVAL: i32 = 500;

/// The lowest score a database win of unknown distance can get anywhere in the tree.
const UNKNOWN_WIN_FLOOR: i32 =
    EGDB_WIN - MAX_PLY as i32 - EGDB_UNKNOWN_DISTANCE - EGDB_UNKNOWN_EVAL;

/// The score of a database value `ply` plies from the root (an unknown distance counts as
/// [`EGDB_UNKNOWN_DISTANCE`]).
pub fn egdb_score(v: Value, ply: usize) -> i32 {
    egdb_score_eval(v, ply, 0)
}

/// The score of a database value `ply` plies from the root, `eval` the static evaluation for
/// the side to move there: a win or loss of unknown distance is moved by the winner's
/// evaluation (see [`EGDB_UNKNOWN_EVAL`]).
pub fn egdb_score_eval(v: Value, ply: usize, eval: i32) -> i32 {
    let e = (eval / 2).clamp(-EGDB_UNKNOWN_EVAL, EGDB_UNKNOWN_EVAL);
    let base = EGDB_WIN - ply as i32;
    match v {
        Value::Win(Some(d)) => base - d as i32,
        Value::Loss(Some(d)) => -(base - d as i32),
        Value::Win(None) => base - EGDB_UNKNOWN_DISTANCE + e,
        Value::Loss(None) => -(base - EGDB_UNKNOWN_DISTANCE - e),
        Value::Draw => 0,
    }
}
pub use crate::rules::game::NO_PROGRESS_PLIES;
const INF: i32 = WIN + 1;
/// The root window that gives exact scores.
pub const FULL_WINDOW: (i32, i32) = (-INF, INF);
const NO_MOVE: u16 = u16::MAX;
/// Move ordering keeps each move's index in generation order in the low bits of its sort key.
const INDEX_BITS: u32 = 12;
const INDEX_MASK: i64 = (1 << INDEX_BITS) - 1;

/// Search settings that are not part of the engine's configuration: for experiments, benches and
/// matches between variants of the search. The defaults are what the engine plays with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchParams {
    /// Late-move reductions: quiet moves after the first few are first searched less deep.
    pub lmr: bool,
    /// Moves searched at full depth before reductions start.
    pub lmr_min_index: usize,
    /// Smallest remaining depth where a move may be reduced.
    pub lmr_min_depth: i32,
    /// No reductions in a position where the opponent threatens a capture.
    pub lmr_threat_guard: bool,
    /// Half-width of the root aspiration window in hundredths of a man (0 = full window).
    pub aspiration: i32,
    /// At the horizon, a position where the opponent threatens a capture is searched one ply
    /// more instead of being evaluated.
    pub threat_extension: bool,
    /// Razoring: a quiet non-PV node within `razor_depth` plies of the horizon whose static score
    /// is this margin per ply below alpha is only evaluated (0 = off).
    pub razor_margin: i32,
    /// Deepest remaining depth where razoring applies.
    pub razor_depth: i32,
    /// ProbCut: a non-PV node at least `probcut_depth` plies from the horizon whose search
    /// `probcut_reduction` plies shallower scores `probcut` above beta is cut (0 = off).
    pub probcut: i32,
    /// Smallest remaining depth where ProbCut applies.
    pub probcut_depth: i32,
    /// How much shallower ProbCut's verifying search is.
    pub probcut_reduction: i32,
    /// Reverse futility pruning: a quiet non-PV node within `rfp_depth` plies of the horizon whose
    /// static score is this margin per ply above beta returns that score (0 = off).
    pub rfp: i32,
    /// Deepest remaining depth where reverse futility pruning applies.
    pub rfp_depth: i32,
    /// Iterative deepening under a game clock's soft limit starts a new iteration only if this
    /// percentage of its expected time still fits before the soft limit (time saved stays on the
    /// clock for later moves).
    pub iter_fit: i32,
    /// The same share under a fixed move time with no clock, where time left over is lost: at 0
    /// (the default) iterations go on until the move time is up, and the unfinished last one
    /// still counts with the root moves it finished.
    pub move_fit: i32,
    /// Each child's transposition-table bucket is fetched into the cache as soon as the move is
    /// made, so that the child's probe does not wait for main memory (the same tree, faster;
    /// off is the engine before it, for matches).
    pub prefetch: bool,
    /// The transposition table is aligned to cache lines and, from 2 MiB, asks the kernel for
    /// large pages (the same tree, faster; off is the engine before it, for matches). Read when
    /// an engine makes its table.
    pub large_pages: bool,
    /// Entries a transposition-table bucket, which is the table's layout: 8 (one-word entries,
    /// one cache line, replaced by depth and age; the default), 4 (two-word entries, one cache
    /// line, the shallowest or oldest entry replaced: the engine before 2026-11-27) or 2 (one
    /// kept by depth, one always replaced: the engine before that), for matches. Read when an
    /// engine makes its table.
    pub tt_ways: usize,
    /// With `tt_ways=8`: plies of depth a table entry is worth less for each search since it
    /// was written, when the table chooses the entry to replace (see `Tt::set_age_weight`).
    /// Read when an engine makes its table.
    pub tt_age: i32,
    /// Late-move pruning: within two plies of the horizon, in a quiet non-PV node, a quiet move
    /// (no crowning, no killer, offering no capture) from index `lmp` times the remaining depth
    /// on is not searched (0 = off).
    pub lmp: i32,
    /// Reductions far from the window: a quiet non-PV node at least `evr_depth` plies from the
    /// horizon whose static score is this far above beta or below alpha is searched a ply less
    /// (0 = off).
    pub evr: i32,
    /// Smallest remaining depth where `evr` applies.
    pub evr_depth: i32,
    /// Late-move reductions by formula: a reducible move is searched `ln(depth) ln(index + 1) *
    /// 100 / lmr_div` plies less (at least one; one less at PV nodes); 0 = the fixed one or two
    /// plies.
    pub lmr_div: i32,
    /// Contempt, in hundredths of a man: a repetition or no-progress draw in the tree scores this
    /// much below zero for the side to move at the root (and as much above for its opponent), so
    /// that the engine plays on rather than repeat in a position it judges about level (0 = a
    /// draw is level; negative prefers draws).
    pub contempt: i32,
    /// Under a soft limit (a game clock), stretch or shrink it with the root's stability: up to
    /// about twice as long while the best move changes from iteration to iteration or the score
    /// falls, down to 0.8 of it once the best move and score have held for several iterations
    /// (see `engine::Stability`). Off: the soft limit as the clock gives it.
    pub time_scale: bool,
    /// History malus: when a quiet move cuts off, the quiet moves searched before it at that
    /// node lose as much history as it gains (off: only the cutting move gains, the engine
    /// before 2026-12-06).
    pub hmalus: bool,
    /// Drawn endings scored by who presses: a position the endgame database holds as a draw
    /// scores a quarter of the side to move's static evaluation, within this many hundredths of
    /// a man either side of level, instead of exactly level; and at a drawn root the engine
    /// searches the drawing moves only (the drawn positions below searched on while depth is
    /// left) and plays the one that keeps the most pressure, rather than the database's first,
    /// so that it keeps the winning chances a fallible opponent leaves it (0 = off: every
    /// database draw is level and a drawn root answers at once, the engine before 2026-12-07).
    pub egdb_draw: i32,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            lmr: true,
            lmr_min_index: 4,
            lmr_min_depth: 4,
            lmr_threat_guard: true,
            aspiration: 25,
            threat_extension: true,
            razor_margin: 60,
            razor_depth: 2,
            probcut: 100,
            probcut_depth: 5,
            probcut_reduction: 4,
            rfp: 60,
            rfp_depth: 3,
            iter_fit: 40,
            move_fit: 0,
            prefetch: true,
            large_pages: crate::engine::tt::DEFAULT_LARGE_PAGES,
            tt_ways: crate::engine::tt::DEFAULT_WAYS,
            tt_age: crate::engine::tt::DEFAULT_AGE_WEIGHT,
            lmp: 0,
            evr: 50,
            evr_depth: 3,
            lmr_div: 0,
            contempt: 0,
            time_scale: true,
            hmalus: true,
            egdb_draw: 25,
        }
    }
}

impl SearchParams {
    /// These settings changed by a comma-separated list of `knob=value` (for experiments and
    /// matches between variants): `lmr`, `lmr_min_index`, `lmr_min_depth`, `lmr_threat_guard`,
    /// `aspiration`, `threat_extension`, `razor_margin`, `razor_depth`, `probcut`,
    /// `probcut_depth`, `probcut_reduction`, `rfp`, `rfp_depth`, `iter_fit`, `move_fit`,
    /// `prefetch`, `large_pages`, `tt_ways`, `tt_age`, `lmp`, `contempt`, `time_scale`, `evr`,
    /// `evr_depth`, `lmr_div`, `hmalus` and `egdb_draw` (switches take 0 or 1). An empty list
    /// changes nothing.
    pub fn with_knobs(mut self, knobs: &str) -> Result<SearchParams, String> {
        for part in knobs.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("search knob '{part}' has no '=value'"))?;
            let v: i32 = v
                .trim()
                .parse()
                .map_err(|_| format!("search knob '{k}' needs a whole number, not '{v}'"))?;
            let flag = || match v {
                0 => Ok(false),
                1 => Ok(true),
                _ => Err(format!("search knob '{k}' is a switch: 0 or 1, not {v}")),
            };
            let count =
                || usize::try_from(v).map_err(|_| format!("search knob '{k}' cannot be negative"));
            match k.trim() {
                "lmr" => self.lmr = flag()?,
                "lmr_min_index" => self.lmr_min_index = count()?,
                "lmr_min_depth" => self.lmr_min_depth = v,
                "lmr_threat_guard" => self.lmr_threat_guard = flag()?,
                "aspiration" => self.aspiration = v.max(0),
                "threat_extension" => self.threat_extension = flag()?,
                "razor_margin" => self.razor_margin = v.max(0),
                "razor_depth" => self.razor_depth = v,
                "probcut" => self.probcut = v.max(0),
                "probcut_depth" => self.probcut_depth = v.max(2),
                "probcut_reduction" => self.probcut_reduction = v.clamp(1, 8),
                "rfp" => self.rfp = v.max(0),
                "rfp_depth" => self.rfp_depth = v,
                "iter_fit" => self.iter_fit = v.clamp(0, 1000),
                "move_fit" => self.move_fit = v.clamp(0, 1000),
                "prefetch" => self.prefetch = flag()?,
                "large_pages" => self.large_pages = flag()?,
                "tt_ways" => {
                    self.tt_ways = match v {
                        2 | 4 | 8 => v as usize,
                        _ => return Err(format!("search knob 'tt_ways' is 2, 4 or 8, not {v}")),
                    }
                }
                "tt_age" => self.tt_age = v.clamp(0, 64),
                "lmp" => self.lmp = v.max(0),
                "evr" => self.evr = v.max(0),
                "evr_depth" => self.evr_depth = v.max(1),
                "lmr_div" => self.lmr_div = v.max(0),
                "contempt" => self.contempt = v.clamp(-200, 200),
                "time_scale" => self.time_scale = flag()?,
                "hmalus" => self.hmalus = flag()?,
                "egdb_draw" => self.egdb_draw = v.clamp(0, 100),
                other => return Err(format!("unknown search knob '{other}'")),
            }
        }
        Ok(self)
    }
}

/// Counters kept during a search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Nodes visited.
    pub nodes: u64,
    /// Deepest ply reached (selective depth).
    pub seldepth: u32,
    /// Transposition-table probes that found an entry.
    pub tt_hits: u64,
    /// Probes whose entry ended the node at once.
    pub tt_cutoffs: u64,
    /// Beta cut-offs.
    pub beta_cutoffs: u64,
    /// Positions whose value came from the endgame database.
    pub egdb_hits: u64,
}

impl Counters {
    /// Adds another thread's counters.
    pub fn add(&mut self, o: &Counters) {
        self.nodes += o.nodes;
        self.seldepth = self.seldepth.max(o.seldepth);
        self.tt_hits += o.tt_hits;
        self.tt_cutoffs += o.tt_cutoffs;
        self.beta_cutoffs += o.beta_cutoffs;
        self.egdb_hits += o.egdb_hits;
    }
}

/// What a thread needs to know about when to stop.
pub struct StopControl<'a> {
    /// Set from outside (a `stop` command) or by the main thread for its helpers.
    pub stop: &'a AtomicBool,
    /// A second flag, for the main thread to stop helper threads.
    pub helpers_stop: &'a AtomicBool,
    /// The hard deadline.
    pub deadline: Option<Instant>,
    /// Node limit (checked against the shared node count).
    pub node_limit: Option<u64>,
    /// Nodes of all threads.
    pub shared_nodes: &'a AtomicU64,
}

/// A completed (or partly completed) iteration's result.
#[derive(Clone, Debug)]
pub struct Iteration<B: Bits> {
    /// Depth searched.
    pub depth: u32,
    /// Score for the side to move.
    pub score: i32,
    /// Principal variation, best move first.
    pub pv: Vec<Move<B>>,
    /// Whether the iteration was cut short (the best move is then the best fully searched one).
    pub partial: bool,
}

/// One search thread's state.
pub struct Searcher<'a, G: Geometry> {
    tt: &'a Tt,
    eval: &'a Evaluator<G>,
    ctl: StopControl<'a>,
    /// Counters of this thread.
    pub counters: Counters,
    aborted: bool,
    keys: Vec<u64>,
    quiet: Vec<u32>,
    killers: Vec<[Killer; 2]>,
    history: Vec<u32>,
    bufs: Vec<Vec<Move<G::B>>>,
    keys_buf: Vec<Vec<i64>>,
    pv: Vec<Vec<Move<G::B>>>,
    /// Root move noise for helper threads (0 = none), so threads explore different orders.
    jitter: u64,
    local_nodes_flushed: u64,
    params: SearchParams,
    egdb: Option<&'a Egdb>,
    /// The last database answers by position key (direct-mapped): probes of positions met again
    /// skip the index and the block cache.
    egdb_memo: Vec<(u64, Value)>,
    /// The root is a database draw searched among its drawing moves (`egdb_draw`): drawn
    /// positions in the tree are searched on rather than scored at once, without the pruning
    /// that reads the static score, so that the choice looks past the next move.
    drawn_root: bool,
    /// The last static evaluations by position key (direct-mapped), kept only for the learned
    /// evaluation, which costs more than a probe: positions met again by transposition are not
    /// evaluated twice.
    eval_memo: Vec<(u64, i32)>,
    /// The learned evaluation's state (region indices, network sums) of the position at each
    /// ply, updated move by move (empty with the hand evaluation).
    patterns: Vec<EvalState>,
}

/// Entries of [`Searcher`]'s memo of static evaluations.
const EVAL_MEMO: usize = 1 << 14;

/// Entries of [`Searcher`]'s memo of database answers (512 KiB, within the core's own cache: a
/// larger memo answered more probes but each of them from main memory).
const EGDB_MEMO: usize = 1 << 15;

/// One step of a xorshift64 generator (the state must not be 0).
pub fn xorshift(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

/// A killer-table slot: a quiet move by its start, end and path, or empty.
type Killer = Option<(u8, u8, u8)>;

/// The killer-table key of a move.
#[inline]
fn killer_key<B: Bits>(m: &Move<B>) -> Killer {
    Some((m.from.0, m.to.0, m.jumps))
}

/// A quiet move that reductions and pruning may pass over: no crowning, not one of the ply's
/// killers, and offering the opponent no capture (such a move is tactical: a shot or a blunder).
#[inline]
fn is_plain<G: Geometry>(mv: &Move<G::B>, child: &Position<G>, killers: &[Killer; 2]) -> bool {
    let id = killer_key(mv);
    !mv.crowns && killers[0] != id && killers[1] != id && !child.has_capture()
}

/// A 16-bit identifier of a move (start, end and path), stored in the transposition table.
/// Two moves of one position sharing an id only costs move-ordering quality.
#[inline]
pub fn move_id<B: Bits>(m: &Move<B>) -> u16 {
    let x = ((m.from.0 as u64) | (m.to.0 as u64) << 8 | (m.jumps as u64) << 16)
        ^ m.dirs.rotate_left(24);
    let h = x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48;
    if h as u16 == NO_MOVE {
        0
    } else {
        h as u16
    }
}

/// A score as stored for a node `ply` plies from the root: a win or loss (found or from the
/// endgame database) counts its distance from that node rather than from the root, so the entry
/// is right wherever the node is met again.
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score > EGDB_BOUND {
        score + ply as i32
    } else if score < -EGDB_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// The inverse of [`score_to_tt`]: a stored score read at a node `ply` plies from the root.
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score > EGDB_BOUND {
        score - ply as i32
    } else if score < -EGDB_BOUND {
        score + ply as i32
    } else {
        score
    }
}

fn to_tt(score: i32, ply: usize) -> i16 {
    score_to_tt(score, ply).clamp(-WIN, WIN) as i16
}

fn from_tt(score: i16, ply: usize) -> i32 {
    score_from_tt(score as i32, ply)
}

impl<'a, G: Geometry> Searcher<'a, G> {
    /// A searcher for a game whose earlier positions (since the last capture or man move, oldest
    /// first, not including the root) are `history`.
    pub fn new(
        tt: &'a Tt,
        eval: &'a Evaluator<G>,
        ctl: StopControl<'a>,
        history: &[u64],
        jitter: u64,
        params: SearchParams,
    ) -> Self {
        let mut keys = Vec::with_capacity(history.len() + MAX_PLY + 2);
        let mut quiet = Vec::with_capacity(history.len() + MAX_PLY + 2);
        for (i, &k) in history.iter().enumerate() {
            keys.push(k);
            quiet.push(i as u32);
        }
        Searcher {
            tt,
            eval,
            ctl,
            counters: Counters::default(),
            aborted: false,
            keys,
            quiet,
            killers: vec![[None; 2]; MAX_PLY + 1],
            history: vec![0; 2 * 128 * 128],
            bufs: (0..=MAX_PLY).map(|_| Vec::with_capacity(32)).collect(),
            keys_buf: (0..=MAX_PLY).map(|_| Vec::with_capacity(32)).collect(),
            pv: (0..=MAX_PLY).map(|_| Vec::new()).collect(),
            jitter,
            local_nodes_flushed: 0,
            params,
            egdb: None,
            egdb_memo: Vec::new(),
            drawn_root: false,
            // An empty slot holds the key u64::MAX (see `set_egdb`).
            eval_memo: if eval.is_learned() {
                vec![(u64::MAX, 0); EVAL_MEMO]
            } else {
                Vec::new()
            },
            patterns: if eval.is_learned() {
                vec![EvalState::default(); MAX_PLY + 1]
            } else {
                Vec::new()
            },
        }
    }

    /// Probes this endgame database in the tree (positions within its piece count with no
    /// capture pending).
    pub fn set_egdb(&mut self, egdb: Option<&'a Egdb>) {
        self.egdb = egdb;
        // A resident database answers faster than the memo could.
        if egdb.is_some_and(|db| !db.is_resident()) && self.egdb_memo.is_empty() {
            // An empty slot holds the key u64::MAX: like a table entry, a position whose key
            // collides (one chance in 2^64) would read a wrong value.
            self.egdb_memo = vec![(u64::MAX, Value::Draw); EGDB_MEMO];
        }
    }

    /// The database's value of a position (through the memo).
    #[inline]
    fn egdb_value(&mut self, db: &Egdb, pos: &Position<G>) -> Option<Value> {
        if self.egdb_memo.is_empty() {
            return db.probe_quiet(pos);
        }
        let slot = (pos.hash as usize) & (EGDB_MEMO - 1);
        if let Some(&(k, v)) = self.egdb_memo.get(slot) {
            if k == pos.hash {
                return Some(v);
            }
        }
        let v = db.probe_quiet(pos)?;
        if let Some(e) = self.egdb_memo.get_mut(slot) {
            *e = (pos.hash, v);
        }
        Some(v)
    }

    /// The static evaluation, kept inside the band below database scores.
    #[inline(always)]
    fn static_eval(&mut self, pos: &Position<G>, ply: usize) -> i32 {
        let slot = (pos.hash as usize) & (EVAL_MEMO - 1);
        if let Some(&(k, v)) = self.eval_memo.get(slot) {
            if k == pos.hash {
                return v;
            }
        }
        let v = match self.patterns.get(ply) {
            Some(idx) => self.eval.evaluate_with(pos, idx),
            None => self.eval.evaluate(pos),
        }
        .clamp(-EGDB_BOUND + 1, EGDB_BOUND - 1);
        if let Some(e) = self.eval_memo.get_mut(slot) {
            *e = (pos.hash, v);
        }
        v
    }

    /// The search settings.
    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    /// Whether the last search was stopped before it finished.
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    fn check_stop(&mut self) {
        let delta = self.counters.nodes - self.local_nodes_flushed;
        self.local_nodes_flushed = self.counters.nodes;
        let total = self.ctl.shared_nodes.fetch_add(delta, Ordering::Relaxed) + delta;
        if self.ctl.stop.load(Ordering::Relaxed)
            || self.ctl.helpers_stop.load(Ordering::Relaxed)
            || self.ctl.node_limit.is_some_and(|l| total >= l)
            || self.ctl.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.aborted = true;
        }
    }

    /// Flushes this thread's node count into the shared count.
    pub fn flush_nodes(&mut self) {
        let delta = self.counters.nodes - self.local_nodes_flushed;
        self.local_nodes_flushed = self.counters.nodes;
        self.ctl.shared_nodes.fetch_add(delta, Ordering::Relaxed);
    }

    fn is_draw(&self, idx: usize) -> bool {
        let q = self.quiet[idx];
        if q >= NO_PROGRESS_PLIES {
            return true;
        }
        let key = self.keys[idx];
        let mut back = 2;
        while back <= q as usize && back <= idx {
            if self.keys[idx - back] == key {
                return true;
            }
            back += 2;
        }
        false
    }

    fn push(&mut self, pos: &Position<G>, mv: &Move<G::B>, child: &Position<G>) {
        let irreversible = mv.is_capture() || !pos.kings.has(mv.from.0 as u32);
        let q = if irreversible {
            0
        } else {
            self.quiet.last().map_or(1, |q| q + 1)
        };
        self.keys.push(child.hash);
        self.quiet.push(q);
    }

    /// Sets the region indices at ply 0 from scratch (learned evaluation only).
    fn start_patterns(&mut self, root: &Position<G>) {
        if let Some(st) = self.patterns.first_mut() {
            self.eval.start_state(root, st);
        }
    }

    /// The region indices at `ply + 1`, for `child` of `pos` at `ply` (learned evaluation only).
    #[inline]
    fn child_patterns(&mut self, pos: &Position<G>, child: &Position<G>, ply: usize) {
        if ply + 1 < self.patterns.len() {
            let (head, tail) = self.patterns.split_at_mut(ply + 1);
            self.eval.child_state(&head[ply], pos, child, &mut tail[0]);
        }
    }

    fn pop(&mut self) {
        self.keys.pop();
        self.quiet.pop();
    }

    fn history_index(&self, pos: &Position<G>, mv: &Move<G::B>) -> usize {
        pos.side.index() * 128 * 128 + mv.from.0 as usize * 128 + mv.to.0 as usize
    }

    /// Orders moves in place: TT move, then captures by size, killers, history. `moves` must be
    /// in generation order: afterwards [`Searcher::table_move`] reads each one's place in it.
    fn order(&mut self, pos: &Position<G>, moves: &mut [Move<G::B>], tt_move: u16, ply: usize) {
        let killers = self.killers[ply];
        let by_index = self.tt.indexes_moves();
        let mut keys = std::mem::take(&mut self.keys_buf[ply]);
        keys.clear();
        for (i, m) in moves.iter().enumerate() {
            let is_tt_move = if by_index {
                i == usize::from(tt_move)
            } else {
                move_id(m) == tt_move
            };
            let k: i64 = if tt_move != NO_MOVE && is_tt_move {
                1 << 40
            } else if m.is_capture() {
                let caps = m.captured.popcount() as i64;
                let kings = (m.captured & pos.kings).popcount() as i64;
                (1 << 32) + caps * 1000 + kings * 100
            } else {
                let id = killer_key(m);
                if killers[0] == id {
                    1 << 31
                } else if killers[1] == id {
                    (1 << 31) - 1
                } else {
                    let mut h = self.history[self.history_index(pos, m)] as i64;
                    if m.crowns {
                        h += 1 << 30;
                    }
                    h
                }
            };
            // The generation index in the low bits: ties keep generation order, as a stable sort
            // would, and the index stays readable after sorting.
            keys.push(k << INDEX_BITS | (INDEX_MASK - (i as i64).min(INDEX_MASK)));
        }
        // Insertion sort, best first: lists are short and often nearly sorted.
        for i in 1..moves.len() {
            let (k, m) = (keys[i], moves[i]);
            let mut j = i;
            while j > 0 && keys[j - 1] < k {
                keys[j] = keys[j - 1];
                moves[j] = moves[j - 1];
                j -= 1;
            }
            keys[j] = k;
            moves[j] = m;
        }
        self.keys_buf[ply] = keys;
    }

    /// The table's id of the move `order` put at `sorted` at `ply`: its index in generation order
    /// (as a compact table keeps it), or its move id (the layouts before).
    #[inline]
    fn table_move(&self, ply: usize, sorted: usize, mv: &Move<G::B>) -> u16 {
        if !self.tt.indexes_moves() {
            return move_id(mv);
        }
        match self.keys_buf[ply].get(sorted) {
            Some(&k) => {
                let i = INDEX_MASK - (k & INDEX_MASK);
                if i < INDEX_MASK {
                    i as u16
                } else {
                    NO_MOVE
                }
            }
            None => NO_MOVE,
        }
    }

    /// Probes the table for `pos`: sets `tt_move` from an entry, and returns its score if it ends
    /// the node (a non-PV node below the root, an entry at least `depth` deep whose bound settles
    /// the window).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn probe_table(
        &mut self,
        pos: &Position<G>,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        is_pv: bool,
        tt_move: &mut u16,
    ) -> Option<i32> {
        let e = self.tt.probe(pos.hash)?;
        self.counters.tt_hits += 1;
        *tt_move = e.mv;
        if !is_pv && e.depth as i32 >= depth && ply > 0 {
            let s = from_tt(e.score, ply);
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            };
            if cut {
                self.counters.tt_cutoffs += 1;
                return Some(s);
            }
        }
        None
    }

    /// Negamax with alpha-beta and PVS. `ply` is the distance from the root.
    pub fn negamax(
        &mut self,
        pos: &Position<G>,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.counters.nodes += 1;
        if ply == 0 {
            self.start_patterns(pos);
        }
        if self.counters.nodes & 1023 == 0 {
            self.check_stop();
        }
        if self.aborted {
            return 0;
        }
        self.counters.seldepth = self.counters.seldepth.max(ply as u32);
        self.pv[ply].clear();
        let idx = self.keys.len() - 1;
        if ply > 0 && self.is_draw(idx) {
            // The root side (even plies) sees a rule draw as `contempt` below level.
            return if ply.is_multiple_of(2) {
                -self.params.contempt
            } else {
                self.params.contempt
            };
        }
        // Mate-distance pruning: nothing here can beat a win already found closer to the root.
        let alpha0 = alpha.max(-(WIN - ply as i32));
        let beta0 = beta.min(WIN - ply as i32 - 1);
        if alpha0 >= beta0 {
            return alpha0;
        }
        if let Some(db) = self.egdb {
            if ply > 0 && db.covers(pos) && !pos.has_capture() {
                if let Some(v) = self.egdb_value(db, pos) {
                    self.counters.egdb_hits += 1;
                    match v {
                        // A win or loss of unknown distance is searched on while depth is
                        // left (to find the conversion), and at the horizon scored by the
                        // evaluation within its band. Searched on, it can score no lower than
                        // the lowest win of unknown distance: a window below that (a middlegame
                        // line that reaches a won ending) is decided without searching it.
                        Value::Win(None) if depth > 0 && beta0 <= UNKNOWN_WIN_FLOOR => {
                            return UNKNOWN_WIN_FLOOR
                        }
                        Value::Loss(None) if depth > 0 && alpha0 >= -UNKNOWN_WIN_FLOOR => {
                            return -UNKNOWN_WIN_FLOOR
                        }
                        Value::Win(None) | Value::Loss(None) if depth > 0 => {}
                        Value::Win(None) | Value::Loss(None) => {
                            return egdb_score_eval(v, ply, self.static_eval(pos, ply))
                        }
                        Value::Draw if self.params.egdb_draw > 0 => {
                            if !(self.drawn_root && depth > 0) {
                                let band = self.params.egdb_draw;
                                return (self.static_eval(pos, ply) / 4).clamp(-band, band);
                            }
                        }
                        _ => return egdb_score(v, ply),
                    }
                }
            }
        }
        let is_pv = beta - alpha > 1;
        let mut tt_move = NO_MOVE;
        // The table first where the depth is known (a node at the horizon may still be extended):
        // a cut-off then costs no move generation.
        let probed = depth >= 1 && ply < MAX_PLY - 1;
        if probed {
            if let Some(s) = self.probe_table(pos, depth, alpha, beta, ply, is_pv, &mut tt_move) {
                return s;
            }
        }
        let mut moves = std::mem::take(&mut self.bufs[ply]);
        pos.generate(&mut moves);
        if moves.is_empty() {
            self.bufs[ply] = moves;
            return -(WIN - ply as i32);
        }
        let forced_capture = moves[0].is_capture();
        // Whether the opponent, were it to move, could capture: computed once, used below.
        let threatened = !forced_capture && pos.with_side(pos.side.opponent()).has_capture();
        let mut depth = depth;
        if depth == 0 && !forced_capture && self.params.threat_extension && threatened {
            depth = 1;
        }
        if (depth <= 0 && !forced_capture) || ply >= MAX_PLY - 1 {
            self.bufs[ply] = moves;
            return self.static_eval(pos, ply);
        }
        if !probed {
            if let Some(s) = self.probe_table(pos, depth, alpha, beta, ply, is_pv, &mut tt_move) {
                self.bufs[ply] = moves;
                return s;
            }
        }
        // Razoring: near the horizon, a quiet non-PV position far below alpha is only evaluated.
        let razor = self.params.razor_margin * depth;
        if razor > 0
            && depth <= self.params.razor_depth
            && !is_pv
            && !forced_capture
            && !threatened
            && ply > 0
            && moves.len() > 1
            && !self.drawn_root
            && alpha.abs() < EGDB_BOUND
        {
            let stand = self.static_eval(pos, ply);
            if stand + razor <= alpha {
                self.bufs[ply] = moves;
                return stand + razor;
            }
        }
        // Reverse futility: near the horizon, a quiet non-PV position far above beta is cut.
        if self.params.rfp > 0
            && depth <= self.params.rfp_depth
            && !is_pv
            && !forced_capture
            && !threatened
            && ply > 0
            && !self.drawn_root
            && beta.abs() < EGDB_BOUND
        {
            let stand = self.static_eval(pos, ply);
            if stand - self.params.rfp * depth >= beta {
                self.bufs[ply] = moves;
                return stand - self.params.rfp * depth;
            }
        }
        // Far from the window: a ply less.
        if self.params.evr > 0
            && depth >= self.params.evr_depth
            && !is_pv
            && !forced_capture
            && !threatened
            && ply > 0
            && alpha.abs() < EGDB_BOUND
            && beta.abs() < EGDB_BOUND
        {
            let stand = self.static_eval(pos, ply);
            if stand >= beta + self.params.evr || stand <= alpha - self.params.evr {
                depth -= 1;
            }
        }
        // ProbCut: a shallower search far above beta predicts a cut-off.
        if self.params.probcut > 0
            && depth >= self.params.probcut_depth
            && !is_pv
            && !forced_capture
            && ply > 0
            && !self.drawn_root
            && beta.abs() < EGDB_BOUND
        {
            let rbeta = beta + self.params.probcut;
            self.bufs[ply] = moves;
            let s = self.negamax(
                pos,
                depth - self.params.probcut_reduction,
                rbeta - 1,
                rbeta,
                ply,
            );
            moves = std::mem::take(&mut self.bufs[ply]);
            if self.aborted {
                self.bufs[ply] = moves;
                return 0;
            }
            if s >= rbeta {
                self.bufs[ply] = moves;
                return s - self.params.probcut;
            }
            moves.clear();
            pos.generate(&mut moves);
        }
        // A single legal move costs no depth.
        let new_depth = if moves.len() == 1 { depth } else { depth - 1 };
        self.order(pos, &mut moves, tt_move, ply);
        // Late quiet moves may be searched less deep first; never when captures are forced, and
        // (optionally) not when the opponent threatens a capture.
        let lmr = self.params;
        let may_reduce = lmr.lmr
            && !forced_capture
            && depth >= lmr.lmr_min_depth
            && moves.len() > lmr.lmr_min_index
            && !(lmr.lmr_threat_guard && threatened);
        let killers = self.killers[ply];
        let may_prune = self.params.lmp > 0
            && depth <= 2
            && !is_pv
            && !forced_capture
            && !threatened
            && ply > 0
            && alpha.abs() < EGDB_BOUND;
        let mut best = -INF;
        let mut best_at = 0;
        let mut bound = Bound::Upper;
        // With the prefetch, the next move is made before this one is searched and its child's
        // bucket fetched, so that the load overlaps this whole subtree (a child's own probe
        // comes too soon after its move for the fetch to finish).
        let (prefetch, tt) = (self.params.prefetch, self.tt);
        let made_and_fetched = |m: &Move<G::B>| {
            let c = pos.play(m);
            tt.prefetch(c.hash);
            c
        };
        let mut next = if prefetch {
            moves.first().map(made_and_fetched)
        } else {
            None
        };
        for (i, mv) in moves.iter().enumerate() {
            let child = next.take().unwrap_or_else(|| pos.play(mv));
            if prefetch {
                next = moves.get(i + 1).map(made_and_fetched);
            }
            // Late-move pruning (off by default: measured no better at equal time).
            if may_prune && i as i32 >= self.params.lmp * depth && is_plain(mv, &child, &killers) {
                continue;
            }
            self.push(pos, mv, &child);
            self.child_patterns(pos, &child, ply);
            let mut score;
            if i == 0 {
                score = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1);
            } else {
                let mut reduction = 0;
                if may_reduce && i >= lmr.lmr_min_index && is_plain(mv, &child, &killers) {
                    reduction = if lmr.lmr_div > 0 {
                        let r = (depth as f64).ln() * ((i + 1) as f64).ln() * 100.0
                            / lmr.lmr_div as f64;
                        (r as i32).clamp(1, (new_depth - 1).max(1))
                    } else {
                        1 + i32::from(depth >= 6 && i >= 2 * lmr.lmr_min_index)
                    };
                    if is_pv {
                        reduction -= 1;
                    }
                }
                score = -self.negamax(&child, new_depth - reduction, -alpha - 1, -alpha, ply + 1);
                if reduction > 0 && score > alpha && !self.aborted {
                    score = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1);
                }
                if score > alpha && score < beta && !self.aborted {
                    score = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1);
                }
            }
            self.pop();
            if self.aborted {
                self.bufs[ply] = moves;
                return 0;
            }
            if score > best {
                best = score;
                best_at = i;
                if score > alpha {
                    alpha = score;
                    bound = Bound::Exact;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(*mv);
                    head[ply].extend_from_slice(&tail[0]);
                    if score >= beta {
                        bound = Bound::Lower;
                        self.counters.beta_cutoffs += 1;
                        if !mv.is_capture() {
                            let id = killer_key(mv);
                            let k = &mut self.killers[ply];
                            if k[0] != id {
                                k[1] = k[0];
                                k[0] = id;
                            }
                            let hi = self.history_index(pos, mv);
                            let d = depth.max(1) as u32;
                            self.history[hi] = self.history[hi].saturating_add(d * d).min(1 << 29);
                            if self.params.hmalus {
                                for m in moves[..i].iter().filter(|m| !m.is_capture()) {
                                    let h = self.history_index(pos, m);
                                    self.history[h] = self.history[h].saturating_sub(d * d);
                                }
                            }
                        }
                        break;
                    }
                }
            }
        }
        // After a fail-low every move was refuted: the table's old move is as good a guess as any.
        let mv_index = if bound == Bound::Upper && tt_move != NO_MOVE {
            tt_move
        } else {
            self.table_move(ply, best_at, &moves[best_at])
        };
        self.tt.store(
            pos.hash,
            Entry {
                score: to_tt(best, ply),
                mv: mv_index,
                depth: depth.clamp(0, 255) as u8,
                bound,
            },
        );
        self.bufs[ply] = moves;
        best
    }

    /// Searches the root to `depth` within the window `(alpha, beta)` (use `(-INF, INF)`, see
    /// [`FULL_WINDOW`], for an exact score), with `order` the root moves best first (reordered in
    /// place so the best ends up first). A score at or below alpha is an upper bound (fail low), one
    /// at or above beta a lower bound (fail high). Returns the iteration, which is partial if the search was stopped
    /// after at least the first move was fully searched; `None` if stopped before that.
    pub fn search_root(
        &mut self,
        root: &Position<G>,
        order: &mut Vec<Move<G::B>>,
        depth: u32,
        window: (i32, i32),
        tie_break: Option<&mut u64>,
    ) -> Option<Iteration<G::B>> {
        self.counters.nodes += 1;
        self.pv[0].clear();
        self.start_patterns(root);
        let depth = depth as i32;
        let (mut alpha, beta) = window;
        let mut best_index = None;
        let mut best_score = -INF;
        let mut ties: Vec<usize> = Vec::new();
        let randomise = tie_break.is_some();
        let mut scores = vec![-INF; order.len()];
        for i in 0..order.len() {
            let mv = order[i];
            let child = root.play(&mv);
            self.push(root, &mv, &child);
            self.child_patterns(root, &child, 0);
            let score = if i == 0 {
                -self.negamax(&child, depth - 1, -beta, -alpha, 1)
            } else {
                // With randomisation, a window one below alpha tells equal moves from worse ones.
                let a = if randomise { alpha - 1 } else { alpha };
                let mut s = -self.negamax(&child, depth - 1, -a - 1, -a, 1);
                if s > a && !self.aborted {
                    s = -self.negamax(&child, depth - 1, -beta, -a, 1);
                }
                s
            };
            self.pop();
            if self.aborted {
                break;
            }
            scores[i] = score;
            if score > best_score {
                best_score = score;
                best_index = Some(i);
                ties.clear();
                ties.push(i);
                let mut pv = vec![mv];
                pv.extend_from_slice(&self.pv[1]);
                self.pv[0] = pv;
                alpha = alpha.max(score);
                if score >= beta {
                    // Fail high: the caller widens the window and searches again.
                    break;
                }
            } else if randomise && score == best_score {
                ties.push(i);
            }
        }
        let partial = self.aborted;
        let mut best = best_index?;
        if let Some(state) = tie_break {
            if ties.len() > 1 && !partial {
                *state = xorshift(*state);
                best = ties[(*state % ties.len() as u64) as usize];
                if best != best_index.unwrap_or(best) {
                    self.pv[0] = vec![order[best]];
                }
            }
        }
        // Best first, the rest by score (stable), for the next iteration.
        let mut idx: Vec<usize> = (0..order.len()).collect();
        idx.sort_by_key(|&i| (i != best, -scores[i], i.wrapping_add(self.jitter as usize)));
        let reordered: Vec<Move<G::B>> = idx.iter().map(|&i| order[i]).collect();
        *order = reordered;
        let mv_index = if self.tt.indexes_moves() {
            let mut generated = Vec::new();
            root.generate(&mut generated);
            generated
                .iter()
                .position(|m| *m == order[0])
                .filter(|&i| i < INDEX_MASK as usize)
                .map_or(NO_MOVE, |i| i as u16)
        } else {
            move_id(&order[0])
        };
        if !partial {
            let bound = if best_score <= window.0 {
                Bound::Upper
            } else if best_score >= window.1 {
                Bound::Lower
            } else {
                Bound::Exact
            };
            self.tt.store(
                root.hash,
                Entry {
                    score: to_tt(best_score, 0),
                    mv: mv_index,
                    depth: depth.clamp(0, 255) as u8,
                    bound,
                },
            );
        }
        Some(Iteration {
            depth: depth as u32,
            score: best_score,
            pv: self.pv[0].clone(),
            partial,
        })
    }

    /// Marks the root as a database draw searched among its drawing moves (see `drawn_root`).
    pub fn set_drawn_root(&mut self, drawn: bool) {
        self.drawn_root = drawn;
    }

    /// Prepares the root: the key stack ends with the root's key.
    pub fn set_root(&mut self, root: &Position<G>) {
        let q = self.quiet.len() as u32;
        self.keys.push(root.hash);
        self.quiet.push(q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tt_scores_keep_mate_distance() {
        let s = WIN - 10; // win 10 plies from the root
        let stored = to_tt(s, 4); // seen at ply 4: win 6 plies from this node
        assert_eq!(from_tt(stored, 4), s);
        assert_eq!(from_tt(stored, 2), WIN - 8);
        assert_eq!(from_tt(to_tt(-s, 3), 3), -s);
        assert_eq!(from_tt(to_tt(123, 9), 1), 123);
    }

    #[test]
    fn search_knobs_change_only_what_they_name_and_bad_ones_are_refused() {
        let d = SearchParams::default();
        assert_eq!(d.with_knobs(""), Ok(d));
        let p = d
            .with_knobs("probcut=0, lmr=0,razor_depth=3,rfp=40,rfp_depth=5,iter_fit=15,move_fit=40,prefetch=0,large_pages=0,tt_ways=2,tt_age=2,lmp=3,contempt=15,time_scale=0,evr=0,evr_depth=5,lmr_div=150,hmalus=0,egdb_draw=0")
            .unwrap();
        assert_eq!(
            p,
            SearchParams {
                probcut: 0,
                lmr: false,
                razor_depth: 3,
                rfp: 40,
                rfp_depth: 5,
                iter_fit: 15,
                move_fit: 40,
                prefetch: false,
                large_pages: false,
                tt_ways: 2,
                tt_age: 2,
                lmp: 3,
                evr: 0,
                evr_depth: 5,
                lmr_div: 150,
                contempt: 15,
                time_scale: false,
                hmalus: false,
                egdb_draw: 0,
                ..d
            }
        );
        assert_eq!(d.with_knobs("egdb_draw=500").map(|p| p.egdb_draw), Ok(100));
        for (bad, says) in [
            ("probcut", "no '=value'"),
            ("lmr=2", "0 or 1"),
            ("tt_ways=3", "2, 4 or 8"),
            ("lmp=x", "whole number"),
            ("razor_margin=x", "whole number"),
            ("lmr_min_index=-1", "negative"),
            ("speed=9", "unknown search knob 'speed'"),
        ] {
            let e = d.with_knobs(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
