//! Static evaluation, from the point of view of the side to move, on every board size.
//!
//! All weights live in [`Weights`]; each term can be switched off by name (see [`Term`]) so that
//! matches can show what every term is worth. Terms:
//!
//! - **material**: men and kings, kings worth more;
//! - **advance** (weight 0 by default): men moving up the board, i.e. the tempo count (more for the
//!   last rows before crowning). In matches at 100,000 nodes a move it cost strength (weight 2:
//!   -49 +/- 38 Elo), and neither of two reworked forms (rows past the middle only; only with at
//!   most N pieces on the board) was shown to help, so it is off; the code stays for experiments
//!   (`Weights::advance`). Crowning itself is still rewarded by the king's value and the runaway
//!   term. See docs/experiments/evaluation-terms.md;
//! - **back rank**: men left on the home row guard against enemy crowning while the enemy has men;
//! - **centre** (weight 0 by default): pieces on the central squares. Not shown to help in any form
//!   tried (all pieces, men only, kings only), so it is off and kept for experiments;
//! - **mobility**: the number of steps each side could make;
//! - **runaway**: a man with a free path to the crowning row;
//! - **trade**: when ahead, trading down (fewer pieces on the board) is worth more;
//! - **endgame**: when ahead in an endgame, kings that drive toward the enemy, and enemy pieces
//!   pushed away from the centre and the double corners;
//! - **aggression** (off unless the style asks for it): closing the distance to the enemy's pieces.

mod learned;
mod net;

pub use learned::{
    king_squares, params_per_phase, regions, Dense, LearnedWeights, Tiling, WeightsError, DENSE,
    MAX_SLOTS, REGION_ENTRIES, VERSION_NET, WEIGHT_SCALE,
};
pub use net::{net_inputs, view_inputs, view_planes, Acc, FloatNet, Net, HIDDEN, QA, QV};

use crate::rules::bitboard::{squares, Bits};
use crate::rules::geometry::{BoardSize, Coord, Geometry, Square};
use crate::rules::position::{shift, Position, Side};
use std::marker::PhantomData;
use std::sync::Arc;

/// The weights built into the program, one file per board size that has them (`weights/NxN.cbev`;
/// docs/experiments/learned-evaluation.md gives the commands that made each). [`load_eval`] names them
/// `learned`; sizes not listed play the hand evaluation.
pub const BUILT_IN: &[(BoardSize, &[u8])] = &[
    (
        BoardSize::S8,
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/weights/8x8.cbev")),
    ),
    (
        BoardSize::S10,
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/weights/10x10.cbev")),
    ),
];

/// The evaluation the program plays with unless told otherwise (a [`load_eval`] name): the
/// learned one, with the built-in weights of the board's size ([`BUILT_IN`]; a size without them
/// falls back to the hand evaluation). At 100 ms a move, the 8x8 weights (generation 10's j1,
/// patterns and a network) beat the engine before the learned evaluation by +265 +/- 22 Elo over
/// 1,000 games, and the 10x10 weights the hand evaluation by +147 +/- 46 over 200
/// (docs/experiments/learned-evaluation.md).
pub const DEFAULT_EVAL: &str = "learned";

/// Learned weights by board size: what an evaluation choice names. The built-in set has the
/// weights of every size in [`BUILT_IN`], a weights file gives one size, and the empty set (the
/// default value) is the hand evaluation. An evaluator takes the weights of its own size, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LearnedSet(Vec<Arc<LearnedWeights>>);

impl LearnedSet {
    /// The hand evaluation: no learned weights for any size.
    pub fn hand() -> LearnedSet {
        LearnedSet::default()
    }

    /// One size's weights (a weights file).
    pub fn single(w: LearnedWeights) -> LearnedSet {
        LearnedSet(vec![Arc::new(w)])
    }

    /// The weights for this board size, if the set has them.
    pub fn for_size(&self, size: BoardSize) -> Option<&Arc<LearnedWeights>> {
        self.0.iter().find(|w| w.size == size)
    }

    /// The sizes the set has weights for.
    pub fn sizes(&self) -> Vec<BoardSize> {
        self.0.iter().map(|w| w.size).collect()
    }

    /// Whether it is the hand evaluation on every size.
    pub fn is_hand(&self) -> bool {
        self.0.is_empty()
    }
}

/// The built-in weights of one size ([`BUILT_IN`]), parsed and checked once per process, the
/// first time that size is asked for (so a process that plays one size never reads the
/// others); `None` for a size without built-in weights.
fn built_in_for(size: BoardSize) -> Option<Result<Arc<LearnedWeights>, String>> {
    type Parsed = std::sync::OnceLock<Result<Arc<LearnedWeights>, String>>;
    static PARSED: [Parsed; BUILT_IN.len()] = [const { Parsed::new() }; BUILT_IN.len()];
    let i = BUILT_IN.iter().position(|&(s, _)| s == size)?;
    let bytes = BUILT_IN[i].1;
    Some(
        PARSED[i]
            .get_or_init(|| {
                LearnedWeights::from_bytes_for(bytes, size)
                    .map(Arc::new)
                    .map_err(|e| format!("the built-in {size} weights: {e}"))
            })
            .clone(),
    )
}

/// The built-in weights of every size ([`BUILT_IN`]), each parsed once per process.
fn built_in() -> Result<LearnedSet, String> {
    BUILT_IN
        .iter()
        .filter_map(|&(size, _)| built_in_for(size))
        .collect::<Result<Vec<_>, _>>()
        .map(LearnedSet)
}

/// The learned weights of [`DEFAULT_EVAL`], for default settings. Should they fail to load (only
/// if an embedded file were damaged; a test checks they are not), the engine plays with the hand
/// evaluation and says so in the log.
pub fn default_learned() -> LearnedSet {
    load_eval(DEFAULT_EVAL).unwrap_or_else(|e| {
        tracing::error!("{e}; playing with the hand evaluation");
        LearnedSet::hand()
    })
}

/// [`load_eval`] for a process that evaluates positions of one board size only: `learned` gives
/// just that size's built-in weights (none, the hand evaluation, for a size without them), so
/// the other sizes' weights are never read; other choices are [`load_eval`]'s. An evaluator of
/// `size` scores every position exactly as with [`load_eval`]'s set.
pub fn load_eval_for(spec: &str, size: BoardSize) -> Result<LearnedSet, String> {
    match spec {
        "learned" => match built_in_for(size) {
            Some(w) => w.map(|w| LearnedSet(vec![w])),
            None => Ok(LearnedSet::hand()),
        },
        _ => load_eval(spec),
    }
}

/// The largest weights file read (the built-in 8x8 weights are about 240 KiB).
pub const MAX_WEIGHTS_FILE: u64 = 16 << 20;

/// The learned weights an evaluation choice names: none for `hand`, the built-in weights
/// ([`BUILT_IN`]) for `learned`, else the weights file at that path (read and checked; the error
/// says what is wrong with it). A file named `learned` is given as `./learned`.
pub fn load_eval(spec: &str) -> Result<LearnedSet, String> {
    match spec {
        "hand" => Ok(LearnedSet::hand()),
        "learned" => built_in(),
        path => {
            let bytes = crate::files::read_regular(std::path::Path::new(path), MAX_WEIGHTS_FILE)
                .map_err(|e| e.to_string())?;
            LearnedWeights::from_bytes(&bytes)
                .map(LearnedSet::single)
                .map_err(|e| format!("'{path}': {e}"))
        }
    }
}

/// A named evaluation term that can be switched off.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// Men advancing.
    Advance,
    /// Home-row guard.
    BackRank,
    /// Central squares.
    Centre,
    /// Mobility.
    Mobility,
    /// Free paths to the crowning row.
    Runaway,
    /// Trading down when ahead.
    Trade,
    /// Endgame king driving.
    Endgame,
}

impl Term {
    /// Every term that can be switched off.
    pub const ALL: [Term; 7] = [
        Term::Advance,
        Term::BackRank,
        Term::Centre,
        Term::Mobility,
        Term::Runaway,
        Term::Trade,
        Term::Endgame,
    ];

    /// The term's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Term::Advance => "advance",
            Term::BackRank => "backrank",
            Term::Centre => "centre",
            Term::Mobility => "mobility",
            Term::Runaway => "runaway",
            Term::Trade => "trade",
            Term::Endgame => "endgame",
        }
    }

    /// Reads a term's name.
    pub fn from_name(name: &str) -> Option<Term> {
        Term::ALL.iter().copied().find(|t| t.name() == name)
    }
}

/// Evaluation weights, in hundredths of a man.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// A man.
    pub man: i32,
    /// A king.
    pub king: i32,
    /// Per row a man has advanced (scaled to the board size); 0 by default (not shown to help).
    pub advance: i32,
    /// Per man on its home row while the enemy still has men.
    pub back_rank: i32,
    /// Per piece on a central square; 0 by default (not shown to help).
    pub centre: i32,
    /// Per available step.
    pub mobility: i32,
    /// Per man with a free path to the crowning row.
    pub runaway: i32,
    /// Trade-down factor when ahead (bonus = lead * trade / pieces on board).
    pub trade: i32,
    /// Endgame driving factor.
    pub endgame: i32,
    /// Aggressive style: per unit of closeness of own pieces to enemy pieces (0 = off).
    pub aggression: i32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            man: 100,
            king: 130,
            advance: 0,
            back_rank: 12,
            centre: 0,
            mobility: 4,
            runaway: 30,
            trade: 120,
            endgame: 3,
            aggression: 0,
        }
    }
}

impl Weights {
    /// These weights with one term switched off.
    pub fn without(mut self, term: Term) -> Weights {
        match term {
            Term::Advance => self.advance = 0,
            Term::BackRank => self.back_rank = 0,
            Term::Centre => self.centre = 0,
            Term::Mobility => self.mobility = 0,
            Term::Runaway => self.runaway = 0,
            Term::Trade => self.trade = 0,
            Term::Endgame => self.endgame = 0,
        }
        self
    }

    /// The aggressive style: the default weights plus a reward for closing in on the enemy.
    pub fn aggressive() -> Weights {
        Weights {
            aggression: 4,
            ..Weights::default()
        }
    }
}

/// What a search keeps, ply by ply, for the learned evaluation: the region views' table indices
/// and the network's hidden sums of both views, brought from a position to its child by the
/// squares that changed ([`Evaluator::child_state`]).
#[derive(Copy, Clone, Debug)]
pub struct EvalState {
    /// The region indices ([`Evaluator::region_indices`]).
    pub idx: [u16; MAX_SLOTS],
    /// The network's sums, by side (unused without a network).
    pub acc: [Acc; 2],
}

impl Default for EvalState {
    fn default() -> Self {
        EvalState {
            idx: [0; MAX_SLOTS],
            acc: [[0; HIDDEN]; 2],
        }
    }
}

/// Masks and coordinates for one board size, computed once per search.
#[derive(Clone, Debug)]
pub struct Evaluator<G: Geometry> {
    w: Weights,
    /// Rows from the top, as masks.
    rows: Vec<G::B>,
    centre: G::B,
    /// Double-corner squares (top-left and bottom-right: A1, B0 and their mirror images).
    double_corners: G::B,
    /// The columns left of the middle (for the learned evaluation's balance of the men).
    left_half: G::B,
    coords: Vec<Coord>,
    /// The learned evaluation's regions.
    regions: learned::Regions,
    /// Per side, bit planes of the advancement weight of each square (rows from home times 8 / n):
    /// a man's weight is the sum of `1 << b` over the planes `b` holding its square.
    adv_planes: [[G::B; 3]; 2],
    /// Learned weights: when set (and made for this size), they evaluate instead of `w`.
    learned: Option<Arc<LearnedWeights>>,
    _g: PhantomData<G>,
}

impl<G: Geometry> Evaluator<G> {
    /// An evaluator with the given weights.
    pub fn new(w: Weights) -> Self {
        let n = G::N;
        let mut rows = vec![G::B::ZERO; n];
        let mut centre = G::B::ZERO;
        let mut double_corners = G::B::ZERO;
        let mut left_half = G::B::ZERO;
        let mut coords = vec![Coord::new(0, 0); 128];
        for (r, row_mask) in rows.iter_mut().enumerate() {
            for c in 0..n {
                let co = Coord::new(r as u8, c as u8);
                if let Some(sq) = co.to_square(n) {
                    let bit = G::B::bit(sq.0 as u32);
                    *row_mask |= bit;
                    coords[sq.0 as usize] = co;
                    if c < n / 2 {
                        left_half |= bit;
                    }
                    let lo = n / 4;
                    let hi = n - 1 - n / 4;
                    if r >= lo && r <= hi && c >= lo && c <= hi {
                        centre |= bit;
                    }
                    // Double corners: the two playable squares beside the light corner squares,
                    // top-left (A1, B0) and bottom-right; the other two corners are single.
                    if (r <= 1 && c <= 1) || (r >= n - 2 && c >= n - 2) {
                        double_corners |= bit;
                    }
                }
            }
        }
        let mut adv_planes = [[G::B::ZERO; 3]; 2];
        for side in [Side::Player, Side::Bot] {
            for k in 1..n {
                let row = match side {
                    Side::Player => rows[n - 1 - k],
                    Side::Bot => rows[k],
                };
                let weight = k * 8 / n;
                for (b, plane) in adv_planes[side.index()].iter_mut().enumerate() {
                    if weight & (1 << b) != 0 {
                        *plane |= row;
                    }
                }
            }
        }
        Evaluator {
            w,
            adv_planes,
            rows,
            centre,
            double_corners,
            left_half,
            coords,
            regions: learned::Regions::new(n, Tiling::Sparse),
            learned: None,
            _g: PhantomData,
        }
    }

    /// An evaluator that scores with learned weights when they are given and made for this board
    /// size, and with the hand weights `w` otherwise.
    pub fn with_learned(w: Weights, learned: &LearnedSet) -> Self {
        let learned = learned.for_size(G::SIZE).cloned();
        let mut e = Evaluator::with_tiling(
            w,
            learned.as_ref().map_or_else(Tiling::default, |l| l.tiling),
        );
        e.learned = learned;
        e
    }

    /// An evaluator with the hand weights `w` whose regions (for [`Self::features`] and
    /// [`Self::learned_for_player`]) cover the board as `tiling` says. A tiling that does not fit
    /// the size ([`Tiling::fits`]) leaves the sparse regions.
    pub fn with_tiling(w: Weights, tiling: Tiling) -> Self {
        let mut e = Evaluator::new(w);
        if tiling != Tiling::Sparse && tiling.fits(G::SIZE) {
            e.regions = learned::Regions::new(G::N, tiling);
        }
        e
    }

    /// Whether the learned weights evaluate.
    pub fn is_learned(&self) -> bool {
        self.learned.is_some()
    }

    /// The weights in use.
    pub fn weights(&self) -> &Weights {
        &self.w
    }

    fn coord(&self, sq: Square) -> Coord {
        self.coords[sq.0 as usize]
    }

    /// Men of `side` that have advanced `k` rows from their home row.
    fn row_from_home(&self, side: Side, k: usize) -> G::B {
        match side {
            Side::Player => self.rows[G::N - 1 - k],
            Side::Bot => self.rows[k],
        }
    }

    fn material(&self, pos: &Position<G>, side: Side) -> i32 {
        let (men, kings) = pos.material(side);
        men as i32 * self.w.man + kings as i32 * self.w.king
    }

    /// Positional score of one side (material not included).
    fn side_terms(&self, pos: &Position<G>, side: Side) -> i32 {
        let w = &self.w;
        let n = G::N;
        let men = pos.men(side);
        let mine = pos.pieces[side.index()];
        let opp = side.opponent();
        let empty = pos.empty_squares();
        let mut s = 0;
        if w.advance != 0 {
            let mut adv = 0;
            for k in 1..n {
                let c = (men & self.row_from_home(side, k)).popcount() as i32;
                // Rows are weighted so that the total scale is similar on every size.
                adv += c * (k as i32 * 8 / n as i32);
            }
            s += adv * w.advance;
        }
        if w.back_rank != 0 && !pos.men(opp).is_empty() {
            s += (men & self.row_from_home(side, 0)).popcount() as i32 * w.back_rank;
        }
        if w.centre != 0 {
            s += (mine & self.centre).popcount() as i32 * w.centre;
        }
        if w.mobility != 0 {
            let (f0, f1) = match side {
                Side::Player => (0, 1),
                Side::Bot => (2, 3),
            };
            let kings = pos.kings_of(side);
            let mut m =
                (shift::<G>(men, f0) & empty).popcount() + (shift::<G>(men, f1) & empty).popcount();
            for d in 0..4 {
                m += (shift::<G>(kings, d) & empty).popcount();
            }
            s += m as i32 * w.mobility;
        }
        if w.runaway != 0 {
            s += self.runaways(pos, side) * w.runaway;
        }
        s
    }

    /// Men whose whole forward cone up to the crowning row (two rows at most) is empty of enemies
    /// and whose next squares are free: a rough "cannot be stopped" test.
    fn runaways(&self, pos: &Position<G>, side: Side) -> i32 {
        let men = pos.men(side);
        let opp = pos.pieces[side.opponent().index()];
        let empty = pos.empty_squares();
        let (f0, f1) = match side {
            Side::Player => (0, 1),
            Side::Bot => (2, 3),
        };
        let n = G::N;
        let mut count = 0;
        for k in [n - 2, n - 3] {
            let near = men & self.row_from_home(side, k);
            for sq in squares(near) {
                let b = G::B::bit(sq.0 as u32);
                let ahead1 = shift::<G>(b, f0) | shift::<G>(b, f1);
                let ahead2 = shift::<G>(ahead1, f0) | shift::<G>(ahead1, f1);
                let cone = ahead1 | if k == n - 3 { ahead2 } else { G::B::ZERO };
                if (cone & opp).is_empty() && !(ahead1 & empty).is_empty() {
                    count += if k == n - 2 { 2 } else { 1 };
                }
            }
        }
        count
    }

    fn distance(&self, a: Square, b: Square) -> i32 {
        let (ca, cb) = (self.coord(a), self.coord(b));
        (ca.row.abs_diff(cb.row)).max(ca.col.abs_diff(cb.col)) as i32
    }

    /// Endgame driving for the stronger side `strong`: its kings close to the enemy, enemy pieces
    /// away from the centre and out of the double corners (unweighted).
    fn endgame_drive(&self, pos: &Position<G>, strong: Side) -> i32 {
        let weak = strong.opponent();
        let kings = pos.kings_of(strong);
        let enemies = pos.pieces[weak.index()];
        if kings.is_empty() || enemies.is_empty() {
            return 0;
        }
        let n = G::N as i32;
        let mut s = 0;
        for k in squares(kings) {
            let nearest = squares(enemies)
                .map(|e| self.distance(k, e))
                .min()
                .unwrap_or(0);
            s += n - nearest;
        }
        // Weak kings in a double corner are hard to dislodge; in the centre they are free.
        s -= 2 * (pos.kings_of(weak) & self.double_corners).popcount() as i32;
        s -= 2 * (enemies & self.centre).popcount() as i32;
        s
    }

    fn closeness(&self, pos: &Position<G>, side: Side) -> i32 {
        let mine = pos.pieces[side.index()];
        let theirs = pos.pieces[side.opponent().index()];
        if theirs.is_empty() {
            return 0;
        }
        let n = G::N as i32;
        squares(mine)
            .map(|a| {
                n - squares(theirs)
                    .map(|b| self.distance(a, b))
                    .min()
                    .unwrap_or(n)
            })
            .sum()
    }

    /// The score of `pos` for the side to move, in hundredths of a man.
    pub fn evaluate(&self, pos: &Position<G>) -> i32 {
        if let Some(l) = &self.learned {
            let s = self.learned_for_player(l, pos) + self.aggression(pos);
            return match pos.side {
                Side::Player => s,
                Side::Bot => -s,
            };
        }
        self.hand(pos)
    }

    /// The state a search keeps for the learned evaluation at `pos`, from scratch.
    pub fn start_state(&self, pos: &Position<G>, st: &mut EvalState) {
        self.region_indices(pos, &mut st.idx);
        if let Some(net) = self.net() {
            st.acc = net.accumulate_both(pos);
        }
    }

    /// Sets `child`, the state of `after`, from `parent`, the state of `before`, by the squares
    /// that changed. Without a network only the region indices are copied: the search does this
    /// at every node.
    #[inline]
    pub fn child_state(
        &self,
        parent: &EvalState,
        before: &Position<G>,
        after: &Position<G>,
        child: &mut EvalState,
    ) {
        child.idx = parent.idx;
        self.update_region_indices(before, after, &mut child.idx);
        if let Some(net) = self.net() {
            child.acc = parent.acc;
            net.update(before, after, &mut child.acc);
        }
    }

    fn net(&self) -> Option<&Net> {
        self.learned.as_ref().and_then(|l| l.net.as_ref())
    }

    /// [`Self::evaluate`] with the learned evaluation's state already known (see
    /// [`Self::start_state`]; the hand evaluation ignores it).
    pub fn evaluate_with(&self, pos: &Position<G>, st: &EvalState) -> i32 {
        if let Some(l) = &self.learned {
            let s =
                self.learned_for_player_with(l, pos, &st.idx, Some(&st.acc)) + self.aggression(pos);
            return match pos.side {
                Side::Player => s,
                Side::Bot => -s,
            };
        }
        self.hand(pos)
    }

    /// The aggressive style's term for the player (0 unless the style asks for it); added to the
    /// learned evaluation as to the hand one, so the style plays with either.
    fn aggression(&self, pos: &Position<G>) -> i32 {
        let a = self.w.aggression;
        if a == 0 {
            return 0;
        }
        (self.closeness(pos, Side::Player) - self.closeness(pos, Side::Bot)) * a
    }

    /// The hand evaluation's score of `pos` for the side to move.
    pub fn hand(&self, pos: &Position<G>) -> i32 {
        let w = &self.w;
        let mp = self.material(pos, Side::Player);
        let mb = self.material(pos, Side::Bot);
        let mut s = mp - mb;
        s += self.side_terms(pos, Side::Player) - self.side_terms(pos, Side::Bot);
        let lead = mp - mb;
        let pieces = pos.occupied().popcount() as i32;
        if w.trade != 0 && lead != 0 && pieces > 0 {
            // The same lead is worth more with fewer pieces left: encourages trading when ahead.
            s += lead * w.trade / (pieces * 10).max(1);
        }
        if w.endgame != 0 && lead.abs() >= w.man / 2 {
            let few = pieces as usize <= G::N || (pos.kings & pos.occupied()) == pos.occupied();
            if few {
                let strong = if lead > 0 { Side::Player } else { Side::Bot };
                let e = self.endgame_drive(pos, strong) * w.endgame;
                s += if strong == Side::Player { e } else { -e };
            }
        }
        s += self.aggression(pos);
        match pos.side {
            Side::Player => s,
            Side::Bot => -s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Grid;
    use crate::rules::geometry::{G12, G8};

    fn pos8(line: &str, side: Side) -> Position<G8> {
        Grid::parse_line(line).unwrap().to_position(side)
    }

    #[test]
    fn start_position_is_balanced() {
        let e = Evaluator::<G8>::new(Weights::default());
        assert_eq!(e.evaluate(&Position::<G8>::initial(Side::Player)), 0);
        let e12 = Evaluator::<G12>::new(Weights::default());
        assert_eq!(e12.evaluate(&Position::<G12>::initial(Side::Bot)), 0);
    }

    #[test]
    fn material_and_perspective() {
        let e = Evaluator::<G8>::new(Weights::default());
        // Player has an extra man.
        let line = "_b______/________/________/________/________/________/_____p__/____p___";
        let p = pos8(line, Side::Player);
        let b = pos8(line, Side::Bot);
        assert!(e.evaluate(&p) > 50);
        assert_eq!(e.evaluate(&p), -e.evaluate(&b));
    }

    #[test]
    fn kings_are_worth_more_than_men() {
        let e = Evaluator::<G8>::new(Weights::default());
        let king = pos8(
            "_b______/________/________/____P___/________/________/________/________",
            Side::Player,
        );
        let man = pos8(
            "_b______/________/________/____p___/________/________/________/________",
            Side::Player,
        );
        assert!(e.evaluate(&king) > e.evaluate(&man));
    }

    #[test]
    fn one_sizes_built_in_weights_are_the_whole_sets_weights_of_that_size() {
        let all = load_eval("learned").expect("the built-in weights load");
        for size in BoardSize::ALL {
            let one = load_eval_for("learned", size).expect("one size's weights load");
            assert_eq!(one.for_size(size), all.for_size(size), "{size}");
            assert!(one.sizes().iter().all(|&s| s == size), "{size}");
        }
        assert_eq!(
            load_eval_for("hand", BoardSize::S10),
            Ok(LearnedSet::hand())
        );
    }
}
