//! A small neural network whose output is added to the learned evaluation's score: the patterns
//! see 4x4 regions of men one at a time, the network sees the whole board at once (men and kings),
//! so it can learn what they miss (a king against a formation, the two wings together).
//!
//! **Shape.** Each side sees the board from its own end: the bot's view is the board turned 180
//! degrees with the colours swapped, as for the regions. A view has four input planes over the bits
//! of the padded layout (own men, own kings, enemy men, enemy kings), so `4 * G::BITS` inputs, of
//! which only the occupied squares are on. One hidden layer of [`HIDDEN`] units, its weights
//! shared by both views, clipped to `0..=1`; the output is a weighted sum of the side to move's
//! hidden units and of its opponent's, plus a bias, in hundredths of a man for the side to move.
//! A position and its colour-mirrored twin (turned, colours and the side to move swapped) have
//! the same two views, so their scores for the side to move are equal: for the player, exact
//! negatives.
//!
//! **Integers.** The first layer is stored in `1 / QA` of a unit (a unit's activation is clipped
//! to `0..=QA`), the output weights and bias in `1 / QV` of a hundredth of a man. The first
//! layer's weights are bounded so that its sums fit `i16` on any board ([`Net::read`] refuses a
//! file whose do not), so the sums are exact and do not depend on the order of additions, and an
//! accumulator can be brought from one position to the next by adding and subtracting the rows of
//! the squares that changed ([`Net::update`]).

use crate::rules::bitboard::Bits;
use crate::rules::geometry::{BoardSize, Geometry, G10, G12, G4, G6, G8};
use crate::rules::position::{Position, Side};

/// Hidden units per view.
pub const HIDDEN: usize = 32;
/// A hidden unit's activation 1.0 in the first layer's integers.
pub const QA: i32 = 128;
/// A hundredth of a man in the output layer's integers.
pub const QV: i32 = 64;

/// One view's hidden sums before clipping. Quantizing bounds the weights so that no position's
/// true sum leaves the `i16` range ([`FloatNet::quantize`]), so the sums are kept with wrapping
/// additions: exact whatever the order in which rows are added and taken away.
pub type Acc = [i16; HIDDEN];

/// The network, in the integers the engine evaluates with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Net {
    /// Inputs per view: four planes of the padded layout's bits.
    pub inputs: usize,
    /// Input-major first-layer weights: input `i`'s row is `w[i * HIDDEN..(i + 1) * HIDDEN]`.
    pub w: Vec<i16>,
    /// First-layer biases.
    pub b: [i16; HIDDEN],
    /// Output weights: the side to move's units, then its opponent's.
    pub v: [i16; 2 * HIDDEN],
    /// Output bias.
    pub c: i32,
    /// A phased network's endgame output layer (weights as [`Net::v`], bias as [`Net::c`]): its
    /// output is then the two layers' outputs blended by the pieces on the board, as the
    /// patterns' two phases are (`v`, `c` at the start position, these with no pieces left).
    /// `None`: one output layer for every phase.
    pub end: Option<([i16; 2 * HIDDEN], i32)>,
}

/// The float form of a network (training works on it).
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// Inputs per view.
    pub inputs: usize,
    /// Input-major first-layer weights (activation units).
    pub w: Vec<f32>,
    /// First-layer biases.
    pub b: Vec<f32>,
    /// Output weights, hundredths of a man per unit of activation: the side to move's, then its
    /// opponent's.
    pub v: Vec<f32>,
    /// Output bias, hundredths of a man.
    pub c: f32,
    /// A phased network's endgame output weights and bias (see [`Net::end`]).
    pub end: Option<(Vec<f32>, f32)>,
}

/// The largest first-layer bias and weight (in `1 / QA`) for a network of `inputs` inputs: with
/// one piece at most on each of the `inputs / 4` squares, a sum stays within `i16`.
fn bounds(inputs: usize) -> (i16, i16) {
    let b_max = 4 * QA;
    let squares = (inputs / 4).max(1) as i32;
    (
        b_max as i16,
        ((i32::from(i16::MAX) - b_max) / squares) as i16,
    )
}

fn q16(x: f32) -> i16 {
    x.round().clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16
}

impl FloatNet {
    /// The integer network (rounded). A bias is bounded by 4 units and a first-layer weight so
    /// that a sum over every square of the board stays within `i16` (on 8x8 about 7 units, far
    /// beyond what training gives).
    pub fn quantize(&self) -> Net {
        let mut b = [0i16; HIDDEN];
        let (b_max, w_max) = bounds(self.inputs);
        let (b_max, w_max) = (f32::from(b_max), f32::from(w_max));
        for (o, &x) in b.iter_mut().zip(&self.b) {
            *o = q16((x * QA as f32).clamp(-b_max, b_max));
        }
        // An output layer (the opening's, or a phased network's endgame one).
        let layer = |v: &[f32], c: f32| {
            let mut out = [0i16; 2 * HIDDEN];
            for (o, &x) in out.iter_mut().zip(v) {
                *o = q16(x * QV as f32);
            }
            (out, (c * QV as f32).round() as i32)
        };
        let (v, c) = layer(&self.v, self.c);
        Net {
            inputs: self.inputs,
            w: self
                .w
                .iter()
                .map(|&x| q16((x * QA as f32).clamp(-w_max, w_max)))
                .collect(),
            b,
            v,
            c,
            end: self.end.as_ref().map(|(ve, ce)| layer(ve, *ce)),
        }
    }
}

impl Net {
    /// The float form (to train on from these weights).
    pub fn to_float(&self) -> FloatNet {
        let layer = |v: &[i16], c: i32| {
            (
                v.iter().map(|&x| f32::from(x) / QV as f32).collect(),
                c as f32 / QV as f32,
            )
        };
        let (v, c) = layer(&self.v, self.c);
        FloatNet {
            inputs: self.inputs,
            w: self.w.iter().map(|&x| f32::from(x) / QA as f32).collect(),
            b: self.b.iter().map(|&x| f32::from(x) / QA as f32).collect(),
            v,
            c,
            end: self.end.as_ref().map(|(ve, ce)| layer(ve, *ce)),
        }
    }

    /// Bytes this network adds to a weights file: inputs and hidden units (`u16` each), then the
    /// first-layer weights, biases and output weights (`i16`), then the output bias (`i32`); a
    /// phased network follows them with its endgame output weights (`i16`) and bias (`i32`).
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.inputs as u16).to_le_bytes());
        out.extend_from_slice(&(HIDDEN as u16).to_le_bytes());
        for x in self.w.iter().chain(&self.b).chain(&self.v) {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&self.c.to_le_bytes());
        if let Some((ve, ce)) = &self.end {
            for x in ve {
                out.extend_from_slice(&x.to_le_bytes());
            }
            out.extend_from_slice(&ce.to_le_bytes());
        }
    }

    /// Reads what [`Net::write`] wrote, expecting `inputs` inputs and, if `phased`, the endgame
    /// output layer; the error says what is wrong.
    pub fn read(bytes: &[u8], inputs: usize, phased: bool) -> Result<Net, String> {
        if bytes.len() < 4 {
            return Err(format!("a network section of {} bytes", bytes.len()));
        }
        let u16_at = |i: usize| usize::from(u16::from_le_bytes([bytes[i], bytes[i + 1]]));
        let (found_inputs, hidden) = (u16_at(0), u16_at(2));
        if found_inputs != inputs || hidden != HIDDEN {
            return Err(format!(
                "a network of {found_inputs} inputs and {hidden} hidden units (this program \
                 reads {inputs} inputs and {HIDDEN} units for this size)"
            ));
        }
        let count = inputs * HIDDEN + 3 * HIDDEN;
        let end_len = if phased { 2 * 2 * HIDDEN + 4 } else { 0 };
        let want = 4 + 2 * count + 4 + end_len;
        if bytes.len() != want {
            return Err(format!(
                "a network section of {} bytes, expected {want}",
                bytes.len()
            ));
        }
        let all: Vec<i16> = bytes[4..4 + 2 * count]
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        let (w, rest) = all.split_at(inputs * HIDDEN);
        let mut b = [0i16; HIDDEN];
        let mut v = [0i16; 2 * HIDDEN];
        b.copy_from_slice(&rest[..HIDDEN]);
        v.copy_from_slice(&rest[HIDDEN..]);
        let (b_max, w_max) = bounds(inputs);
        if w.iter().any(|x| x.abs() > w_max) || b.iter().any(|x| x.abs() > b_max) {
            return Err(format!(
                "first-layer weights beyond {w_max} or biases beyond {b_max}: its sums could \
                 overflow"
            ));
        }
        let t = &bytes[4 + 2 * count..];
        let i32_at = |t: &[u8]| i32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        let end = phased.then(|| {
            let e = &t[4..];
            let mut ve = [0i16; 2 * HIDDEN];
            for (o, c) in ve.iter_mut().zip(e.chunks_exact(2)) {
                *o = i16::from_le_bytes([c[0], c[1]]);
            }
            (ve, i32_at(&e[4 * HIDDEN..]))
        });
        Ok(Net {
            inputs,
            w: w.to_vec(),
            b,
            v,
            c: i32_at(t),
            end,
        })
    }

    /// Inputs of a board with `bits` bits in its padded layout.
    pub fn inputs_for(bits: u32) -> usize {
        4 * bits as usize
    }

    #[inline(always)]
    fn row(&self, input: usize) -> &[i16; HIDDEN] {
        self.w
            .get(input * HIDDEN..(input + 1) * HIDDEN)
            .and_then(|r| r.try_into().ok())
            .unwrap_or(&[0; HIDDEN])
    }

    #[inline(always)]
    fn add_row(&self, acc: &mut Acc, input: usize) {
        let row = self.row(input);
        for (a, &x) in acc.iter_mut().zip(row) {
            *a = a.wrapping_add(x);
        }
    }

    #[inline(always)]
    fn sub_row(&self, acc: &mut Acc, input: usize) {
        let row = self.row(input);
        for (a, &x) in acc.iter_mut().zip(row) {
            *a = a.wrapping_sub(x);
        }
    }

    /// The hidden sums of `side`'s view of `pos`, from scratch.
    pub fn accumulate<G: Geometry>(&self, pos: &Position<G>, side: Side) -> Acc {
        let mut acc = self.b;
        view_inputs(pos, side, |i| self.add_row(&mut acc, i));
        acc
    }

    /// Both views' sums of `pos`, from scratch (`[player, bot]`).
    pub fn accumulate_both<G: Geometry>(&self, pos: &Position<G>) -> [Acc; 2] {
        [
            self.accumulate(pos, Side::Player),
            self.accumulate(pos, Side::Bot),
        ]
    }

    /// Brings the hidden sums of both views (`acc[side.index()]`) of `before` to those of
    /// `after`, by the squares whose contents changed. A change on bit `b` of the player's
    /// board is bit `BITS - 1 - b` of the bot's turned one, where the colours' planes swap.
    #[inline]
    pub fn update<G: Geometry>(
        &self,
        before: &Position<G>,
        after: &Position<G>,
        acc: &mut [Acc; 2],
    ) {
        let bits = G::BITS as usize;
        let sets = |p: &Position<G>| {
            [
                p.men(Side::Player),
                p.kings_of(Side::Player),
                p.men(Side::Bot),
                p.kings_of(Side::Bot),
            ]
        };
        let (old, new) = (sets(before), sets(after));
        let [player, bot] = acc;
        for plane in 0..4 {
            // The bot sees the player's planes (0, 1) as enemy planes (2, 3) and the reverse.
            let (p_base, b_base) = (plane * bits, (plane ^ 2) * bits + bits - 1);
            let (mut gone, mut came) = (old[plane] & !new[plane], new[plane] & !old[plane]);
            while !gone.is_empty() {
                let bit = gone.lowest() as usize;
                gone = gone.clear_lowest();
                self.sub_row(player, p_base + bit);
                self.sub_row(bot, b_base - bit);
            }
            while !came.is_empty() {
                let bit = came.lowest() as usize;
                came = came.clear_lowest();
                self.add_row(player, p_base + bit);
                self.add_row(bot, b_base - bit);
            }
        }
    }

    /// The output for the side to move, in hundredths of a man, from the hidden sums of its view
    /// and of its opponent's; `phase` is the pieces on the board and at the start (a phased
    /// network blends its two output layers by it).
    pub fn output(&self, to_move: &Acc, other: &Acc, phase: (i32, i32)) -> i32 {
        // Two plain loops over fixed-size arrays (a chained iterator is not vectorised).
        let mut h = [0i16; 2 * HIDDEN];
        let (mine, theirs) = h.split_at_mut(HIDDEN);
        for (o, &a) in mine.iter_mut().zip(to_move) {
            *o = a.max(0).min(QA as i16);
        }
        for (o, &a) in theirs.iter_mut().zip(other) {
            *o = a.max(0).min(QA as i16);
        }
        let dot = |v: &[i16; 2 * HIDDEN]| -> i32 {
            h.iter()
                .zip(v)
                .map(|(&a, &b)| i32::from(a) * i32::from(b))
                .sum()
        };
        let open = dot(&self.v) / QA + self.c;
        let sum = match &self.end {
            None => open,
            Some((ve, ce)) => {
                let end = dot(ve) / QA + ce;
                let (p, full) = (phase.0.clamp(0, phase.1.max(1)), phase.1.max(1));
                (open * p + end * (full - p)) / full
            }
        };
        sum.div_euclid(QV)
    }

    /// The output for the player, from both views' sums (`acc[side.index()]`) and the phase (see
    /// [`Net::output`]).
    pub fn for_player(&self, acc: &[Acc; 2], to_move: Side, phase: (i32, i32)) -> i32 {
        match to_move {
            Side::Player => self.output(&acc[0], &acc[1], phase),
            Side::Bot => -self.output(&acc[1], &acc[0], phase),
        }
    }
}

/// A side's view of `pos` as four sets of the padded layout's bits: own men, own kings, enemy
/// men, enemy kings; the bot's on the board turned 180 degrees.
pub fn view_planes<G: Geometry>(pos: &Position<G>, side: Side) -> [G::B; 4] {
    let opp = side.opponent();
    let planes = [
        pos.men(side),
        pos.kings_of(side),
        pos.men(opp),
        pos.kings_of(opp),
    ];
    match side {
        Side::Player => planes,
        Side::Bot => planes.map(|p| p.reverse_low(G::BITS)),
    }
}

/// Inputs per view of a network for a board size.
pub fn net_inputs(size: BoardSize) -> usize {
    let bits = match size {
        BoardSize::S4 => G4::BITS,
        BoardSize::S6 => G6::BITS,
        BoardSize::S8 => G8::BITS,
        BoardSize::S10 => G10::BITS,
        BoardSize::S12 => G12::BITS,
    };
    Net::inputs_for(bits)
}

/// Calls `f` with every input that is on in `side`'s view of `pos` (plane by plane, lowest bit
/// first): `plane * G::BITS + bit`.
pub fn view_inputs<G: Geometry>(pos: &Position<G>, side: Side, mut f: impl FnMut(usize)) {
    for (plane, set) in view_planes(pos, side).into_iter().enumerate() {
        let mut set = set;
        while !set.is_empty() {
            f(plane * G::BITS as usize + set.lowest() as usize);
            set = set.clear_lowest();
        }
    }
}
