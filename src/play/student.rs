//! A re-creation of the student engines this project replaces, kept as a match opponent.
//!
//! The project must be clearly stronger than the hobby engines (Python, Haskell, C++, Rust) that
//! students wrote before it. Their code is not in this repository, so this module rebuilds the best
//! of them from their common description, and `checkersbot match --player-b student` measures the
//! engine against it. It uses the project's own [`Position`] and move generator, so both sides play
//! by exactly the same (correct) rules; only the search and the evaluation are the students'.
//!
//! What the student engines had, and so what this one has:
//!
//! - **negamax with alpha-beta** (fail-soft, full windows; no principal-variation search, no
//!   aspiration windows);
//! - **iterative deepening with a time limit**: the deadline (the move time less a millisecond) is
//!   checked every 1024 nodes, and no new iteration starts once half the move time is used. The move
//!   played is the best of the deepest completed iteration, except that a move of an unfinished
//!   iteration that was fully searched and scored better than the previous best (which is searched
//!   first) replaces it; a forced win or loss found ends the search;
//! - a **transposition table** with the project's Zobrist keys: one entry per bucket, replaced when
//!   the new result is for another position or at least as deep; its move is tried first, and its
//!   score ends the node when deep enough;
//! - **move ordering**: the table's move, then captures taking more pieces first (a capture is
//!   compulsory, so when one exists every move is one), then the generator's order;
//! - **quiescence on captures**: at depth 0 a position with a capture pending is searched on (all its
//!   moves are captures) instead of being evaluated;
//! - a **hand-written evaluation** (see [`StudentEval`]): material (man 100, king 150), men's
//!   advancement, men kept on the home row, pieces in the centre.
//!
//! What they lacked, and so what this one lacks: late-move reductions, killer and history ordering,
//! the threat extension, aspiration windows, and repetition detection (a repeated position is
//! scored like any other; the match's rules still draw the game).
//!
//! With a depth or node limit and a new table ([`Student::new_game`]) a search gives the same move
//! and node count every time.

use crate::engine::search::{move_id, score_from_tt, score_to_tt, MAX_PLY, WIN, WIN_BOUND};
use crate::engine::Limits;
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::bitboard::{squares, Bits};
use crate::rules::geometry::{Coord, Geometry};
use crate::rules::position::{Move, Position, Side};
use std::time::{Duration, Instant};

const INF: i32 = WIN + 1;
/// Deepest iteration when no depth limit is given.
const MAX_DEPTH: u32 = 100;
const NO_MOVE: u16 = u16::MAX;

const EXACT: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;

/// One table entry: 16 bytes.
#[derive(Copy, Clone, Debug, Default)]
struct Slot {
    key: u64,
    score: i32,
    mv: u16,
    depth: u8,
    /// 0 empty, else 1 + bound.
    bound: u8,
}

/// The evaluation of the student engines: the kind of sum they wrote by hand, from the side to
/// move's point of view, in hundredths of a man.
///
/// - material: man 100, king 150;
/// - advancement: each man scores `rows advanced * 24 / N` (3 a row on 8x8);
/// - back rank: 10 per man still on its home row while the opponent has men (it guards the crowning
///   squares);
/// - centre: 5 per piece in the central box (rows and columns `N/4 ..= N-1-N/4`).
#[derive(Clone, Debug)]
pub struct StudentEval<G: Geometry> {
    /// Bonus of a man of each side (by [`Side::index`]) on each square: advancement and centre.
    man_square: [Vec<i32>; 2],
    /// Bonus of a king on each square: centre.
    king_square: Vec<i32>,
    /// Home row of each side.
    home: [G::B; 2],
}

/// Material value of a man.
pub const MAN: i32 = 100;
/// Material value of a king.
pub const KING: i32 = 150;
/// Bonus per man on its home row while the opponent has men.
pub const BACK_RANK: i32 = 10;
/// Bonus per piece on a central square.
pub const CENTRE: i32 = 5;

impl<G: Geometry> Default for StudentEval<G> {
    fn default() -> Self {
        Self::new()
    }
}

impl<G: Geometry> StudentEval<G> {
    /// The tables for board size `G`.
    pub fn new() -> Self {
        let n = G::N;
        let mut man_square = [vec![0; 128], vec![0; 128]];
        let mut king_square = vec![0; 128];
        let mut home = [G::B::ZERO; 2];
        let lo = n / 4;
        let hi = n - 1 - n / 4;
        for row in 0..n {
            for col in 0..n {
                let Some(sq) = Coord::new(row as u8, col as u8).to_square(n) else {
                    continue;
                };
                let i = sq.0 as usize;
                let centre = if (lo..=hi).contains(&row) && (lo..=hi).contains(&col) {
                    CENTRE
                } else {
                    0
                };
                // The player starts at the bottom and moves up; the bot the other way.
                let advanced = [n - 1 - row, row];
                for side in [Side::Player, Side::Bot] {
                    let k = advanced[side.index()];
                    man_square[side.index()][i] = (k * 24 / n) as i32 + centre;
                    if k == 0 {
                        home[side.index()] |= G::B::bit(i as u32);
                    }
                }
                king_square[i] = centre;
            }
        }
        StudentEval {
            man_square,
            king_square,
            home,
        }
    }

    fn side_score(&self, pos: &Position<G>, side: Side) -> i32 {
        let s = side.index();
        let men = pos.men(side);
        let kings = pos.kings_of(side);
        let mut score = men.popcount() as i32 * MAN + kings.popcount() as i32 * KING;
        for sq in squares(men) {
            score += self.man_square[s][sq.0 as usize];
        }
        for sq in squares(kings) {
            score += self.king_square[sq.0 as usize];
        }
        if !pos.men(side.opponent()).is_empty() {
            score += (men & self.home[s]).popcount() as i32 * BACK_RANK;
        }
        score
    }

    /// The score for the side to move.
    pub fn evaluate(&self, pos: &Position<G>) -> i32 {
        self.side_score(pos, pos.side) - self.side_score(pos, pos.side.opponent())
    }
}

/// The outcome of a student search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StudentResult {
    /// The move to play (`None` only when there is no legal move).
    pub best: Option<MoveInfo>,
    /// Score of the best move for the side to move (see [`crate::engine::search::WIN`]).
    pub score: i32,
    /// Deepest completed iteration (0 when the move was forced or there was none).
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Table probes that found the position.
    pub tt_hits: u64,
    /// Beta cut-offs.
    pub beta_cutoffs: u64,
    /// Time taken.
    pub time: Duration,
}

/// The student engine: a transposition table kept across the moves of a game.
#[derive(Clone, Debug)]
pub struct Student {
    table: Vec<Slot>,
}

impl Student {
    /// A student engine with a table of at most `hash_mb` MiB (at least 1024 entries).
    pub fn new(hash_mb: usize) -> Student {
        let bytes = hash_mb.saturating_mul(1 << 20);
        let entries = (bytes / std::mem::size_of::<Slot>()).max(1024);
        // A power of two, not above the budget.
        let entries = if entries.is_power_of_two() {
            entries
        } else {
            entries.next_power_of_two() / 2
        };
        Student {
            table: vec![Slot::default(); entries],
        }
    }

    /// Forgets the table (call at a new game for reproducible results).
    pub fn new_game(&mut self) {
        self.table.fill(Slot::default());
    }

    /// Searches `pos` within `limits` (with no limit at all it runs to depth 100).
    pub fn search(&mut self, pos: &AnyPosition, limits: &Limits) -> StudentResult {
        crate::with_position!(pos, p => search_position(&mut self.table, p, limits))
    }
}

struct Searcher<'a, G: Geometry> {
    table: &'a mut [Slot],
    eval: StudentEval<G>,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    aborted: bool,
    nodes: u64,
    tt_hits: u64,
    beta_cutoffs: u64,
    bufs: Vec<Vec<Move<G::B>>>,
}

/// Puts the table move first, then captures by the number of pieces taken (stable, so the rest
/// keeps the generator's order).
fn order<B: Bits>(moves: &mut [Move<B>], tt_move: u16) {
    moves.sort_by_key(|m| {
        let first = tt_move != NO_MOVE && move_id(m) == tt_move;
        (!first, std::cmp::Reverse(m.captured.popcount()))
    });
}

impl<G: Geometry> Searcher<'_, G> {
    fn probe(&self, key: u64) -> Option<Slot> {
        let s = self.table[key as usize & (self.table.len() - 1)];
        (s.bound != 0 && s.key == key).then_some(s)
    }

    fn store(&mut self, key: u64, score: i32, mv: u16, depth: i32, bound: u8) {
        let i = key as usize & (self.table.len() - 1);
        let old = self.table[i];
        let depth = depth.clamp(0, 255) as u8;
        if old.bound == 0 || old.key != key || depth >= old.depth {
            self.table[i] = Slot {
                key,
                score,
                mv,
                depth,
                bound: bound + 1,
            };
        }
    }

    fn negamax(
        &mut self,
        pos: &Position<G>,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes & 1023 == 0
            && (self.deadline.is_some_and(|d| Instant::now() >= d)
                || self.node_limit.is_some_and(|n| self.nodes >= n))
        {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let mut moves = std::mem::take(&mut self.bufs[ply]);
        pos.generate(&mut moves);
        if moves.is_empty() {
            self.bufs[ply] = moves;
            return -(WIN - ply as i32);
        }
        // Quiescence: at the horizon only a pending capture is searched on.
        if (depth <= 0 && !moves[0].is_capture()) || ply >= MAX_PLY - 1 {
            self.bufs[ply] = moves;
            return self.eval.evaluate(pos);
        }
        let depth = depth.max(0);
        let mut tt_move = NO_MOVE;
        if let Some(e) = self.probe(pos.hash) {
            self.tt_hits += 1;
            tt_move = e.mv;
            if e.depth as i32 >= depth {
                let s = score_from_tt(e.score, ply);
                let cut = match e.bound - 1 {
                    EXACT => true,
                    LOWER => s >= beta,
                    _ => s <= alpha,
                };
                if cut {
                    self.bufs[ply] = moves;
                    return s;
                }
            }
        }
        order(&mut moves, tt_move);
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_move = NO_MOVE;
        for mv in moves.iter() {
            let child = pos.play(mv);
            let score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
            if self.aborted {
                self.bufs[ply] = moves;
                return 0;
            }
            if score > best {
                best = score;
                best_move = move_id(mv);
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        self.beta_cutoffs += 1;
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            LOWER
        } else if best > alpha0 {
            EXACT
        } else {
            UPPER
        };
        self.store(pos.hash, score_to_tt(best, ply), best_move, depth, bound);
        self.bufs[ply] = moves;
        best
    }
}

fn search_position<G: Geometry>(
    table: &mut [Slot],
    root: &Position<G>,
    limits: &Limits,
) -> StudentResult {
    let start = Instant::now();
    let mut moves = root.legal_moves();
    if moves.len() <= 1 {
        return StudentResult {
            best: moves.first().map(MoveInfo::of::<G>),
            score: if moves.is_empty() { -WIN } else { 0 },
            time: start.elapsed(),
            ..StudentResult::default()
        };
    }
    let deadline = limits.deadline(start);
    let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
    let mut s = Searcher {
        table,
        eval: StudentEval::<G>::new(),
        deadline,
        node_limit: limits.nodes,
        aborted: false,
        nodes: 0,
        tt_hits: 0,
        beta_cutoffs: 0,
        bufs: (0..=MAX_PLY).map(|_| Vec::with_capacity(32)).collect(),
    };
    order(&mut moves, NO_MOVE);
    let mut best = moves[0];
    let mut best_score = 0;
    let mut completed = 0;
    for depth in 1..=max_depth {
        s.nodes += 1;
        let mut alpha = -INF;
        let mut iter_best: Option<(usize, i32)> = None;
        for (i, mv) in moves.iter().enumerate() {
            let child = root.play(mv);
            let score = -s.negamax(&child, depth as i32 - 1, -INF, -alpha, 1);
            if s.aborted {
                break;
            }
            if score > alpha {
                alpha = score;
                iter_best = Some((i, score));
            }
        }
        if let Some((i, score)) = iter_best {
            // In an unfinished iteration a fully searched move counts only if it beat the
            // previous best, which is searched first.
            if !s.aborted || i > 0 {
                best = moves[i];
                best_score = score;
                // The best move first for the next iteration, the others in their order.
                moves[..=i].rotate_right(1);
            }
        }
        if s.aborted {
            break;
        }
        completed = depth;
        if best_score.abs() > WIN_BOUND {
            break;
        }
        if let Some(t) = limits.movetime {
            if start.elapsed() >= t / 2 {
                break;
            }
        }
    }
    StudentResult {
        best: Some(MoveInfo::of::<G>(&best)),
        score: best_score,
        depth: completed,
        nodes: s.nodes,
        tt_hits: s.tt_hits,
        beta_cutoffs: s.beta_cutoffs,
        time: start.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Grid;
    use crate::rules::geometry::{BoardSize, G8};

    fn pos(line: &str, side: Side) -> AnyPosition {
        AnyPosition::from_grid(&Grid::parse_line(line).expect("test board"), side)
    }

    fn depth(d: u32) -> Limits {
        Limits {
            depth: Some(d),
            ..Limits::default()
        }
    }

    /// Pieces of `side` less pieces of the opponent.
    fn material(p: &AnyPosition, side: Side) -> i32 {
        let g = p.grid();
        let (m, k) = g.count(side);
        let (om, ok) = g.count(side.opponent());
        (m + k) as i32 - (om + ok) as i32
    }

    #[test]
    fn legal_move_from_the_start_on_every_size() {
        for size in BoardSize::ALL {
            for side in [Side::Player, Side::Bot] {
                let p = AnyPosition::initial(size, side);
                let mut st = Student::new(1);
                let r = st.search(&p, &depth(4));
                let best = r.best.clone().expect("a move");
                assert!(p.legal_moves().contains(&best), "{size:?} {side}: {best}");
                assert_eq!(r.depth, 4, "{size:?}");
                assert!(r.nodes > 0);
            }
        }
    }

    /// The two-for-one shot of `tests/search.rs`: F4-E3 gives a man, D2xF4 is forced, then
    /// G5xE3xC5 takes two.
    const SHOT_8: &str = "_b_b____/b_______/________/__b_b___/________/__p_p___/_____p__/p_____p_";

    #[test]
    fn finds_the_two_for_one_shot() {
        let p = pos(SHOT_8, Side::Player);
        assert!(!p.has_capture());
        let mut st = Student::new(1);
        let r = st.search(&p, &depth(6));
        let best = r.best.clone().expect("a move");
        assert_eq!(best.notation(), "F4 E3", "{r:?}");
        assert!(r.score >= 60, "{r:?}");
        // Play the shot out: the player ends a man up (3 v 2 -> net +1 more than now).
        let after = p.play(&best).expect("legal");
        let reply = after.legal_moves();
        assert_eq!(reply.len(), 1);
        let after = after.play(&reply[0]).expect("legal");
        let r2 = st.search(&after, &depth(4));
        let after = after
            .play(&r2.best.expect("the double jump"))
            .expect("legal");
        assert!(material(&after, Side::Player) > material(&p, Side::Player));
    }

    #[test]
    fn takes_the_capture_that_is_not_taken_back() {
        // From tests/search.rs: E3xC1 is answered by B0xC1, E3xC5 wins a man clean.
        let line = "_____b_b/b_______/________/__b_b___/___p____/________/_______p/p_p_____";
        let p = pos(line, Side::Player);
        let mut st = Student::new(1);
        let r = st.search(&p, &depth(6));
        assert_eq!(r.best.clone().expect("a move").notation(), "E3 C5", "{r:?}");
    }

    #[test]
    fn depth_limited_search_is_reproducible() {
        let p = pos(SHOT_8, Side::Player);
        let start = AnyPosition::initial(BoardSize::S10, Side::Bot);
        for q in [p, start] {
            let mut a = Student::new(1);
            let mut b = Student::new(1);
            let ra = a.search(&q, &depth(7));
            let rb = b.search(&q, &depth(7));
            assert_eq!(
                (ra.best.clone(), ra.nodes, ra.score),
                (rb.best, rb.nodes, rb.score)
            );
            // The same engine after a new game too.
            a.new_game();
            let rc = a.search(&q, &depth(7));
            assert_eq!((ra.best, ra.nodes), (rc.best, rc.nodes));
            assert!(ra.nodes > 100);
        }
    }

    #[test]
    fn deeper_search_searches_more() {
        let p = AnyPosition::initial(BoardSize::S8, Side::Bot);
        let n4 = Student::new(1).search(&p, &depth(4)).nodes;
        let n7 = Student::new(1).search(&p, &depth(7)).nodes;
        assert!(n7 > 2 * n4, "{n4} {n7}");
    }

    #[test]
    fn answers_within_the_move_time() {
        let p = AnyPosition::initial(BoardSize::S12, Side::Player);
        let t = Instant::now();
        let r = Student::new(1).search(
            &p,
            &Limits {
                movetime: Some(Duration::from_millis(50)),
                ..Limits::default()
            },
        );
        assert!(r.best.is_some() && r.depth >= 1);
        // Generous, for a busy machine: the search itself stops at 49 ms.
        assert!(
            t.elapsed() < Duration::from_millis(400),
            "{:?}",
            t.elapsed()
        );
    }

    #[test]
    fn no_move_and_only_move() {
        // The player has no man left: no move.
        let p = pos("_b__/____/____/____", Side::Player);
        let r = Student::new(1).search(&p, &depth(3));
        assert_eq!(r.best, None);
        // One capture, forced.
        let p = pos("____/__b_/___p/____", Side::Player);
        let moves = p.legal_moves();
        assert_eq!(moves.len(), 1);
        let r = Student::new(1).search(&p, &depth(3));
        assert_eq!(r.best, Some(moves[0].clone()));
    }

    #[test]
    fn evaluation_is_symmetric_and_values_kings() {
        let ev = StudentEval::<G8>::new();
        let start = Position::<G8>::initial(Side::Player);
        assert_eq!(ev.evaluate(&start), 0);
        assert_eq!(ev.evaluate(&start.with_side(Side::Bot)), 0);
        let mut p = Position::<G8>::empty(Side::Player);
        let sq = Coord::new(4, 3).to_square(8).expect("playable");
        p.put(
            sq,
            Some(crate::rules::position::Piece {
                side: Side::Player,
                king: true,
            }),
        );
        let king = ev.evaluate(&p);
        p.put(
            sq,
            Some(crate::rules::position::Piece {
                side: Side::Player,
                king: false,
            }),
        );
        let man = ev.evaluate(&p);
        assert!(king > man && king >= KING && man >= MAN, "{king} {man}");
    }
}
