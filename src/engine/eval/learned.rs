//! The learned evaluation: Scan-style region patterns plus a few global features, with weights
//! fitted to self-play games (`checkersbot train`).
//!
//! **Features**, all from the player's (`p`'s) side, then negated when the bot is to move:
//!
//! - *Patterns*: the board is covered by overlapping 4x4 regions whose top-left corners are on
//!   even rows and columns (9 on 8x8, 16 on 10x10, 25 on 12x12, 4 on 6x6, 1 on 4x4). A region holds
//!   8 playable squares; the men on them (empty, own man, enemy man) form a base-3 index into the
//!   region's table of 6,561 weights. Each region is read twice with the same table: as the player
//!   sees it (weight added) and, rotated 180 degrees with the colours swapped, as the bot sees it
//!   (weight subtracted). So a position and its colour-mirrored twin score exact negatives.
//! - *King squares*: a weight for a king on each playable square, read like the regions: the
//!   player's kings where they stand (weight added), the bot's on the board turned 180 degrees
//!   (weight subtracted).
//! - *Global features*, each the player's count minus the bot's ([`Dense`]): men, kings, men on the
//!   home row while the enemy has men, men's and kings' steps, runaway men, trapped kings,
//!   advancement, a trade-down term, the endgame driving of the hand evaluation, the men's
//!   balance between the board's halves, and the side to move.
//!
//! Every weight exists twice, for the opening and for the endgame; a position's score blends them
//! by the number of pieces on the board (all pieces: opening; none: endgame).
//!
//! **Weights file** (little-endian): the magic `CBEV`, the format version (`u16`, now 2), the board
//! size (`u8`), a zero byte, the number of regions (`u16`), the number of global features (`u16`),
//! the logistic scale `K` the weights were fitted with (`f32`), an FNV-1a 64 checksum of the
//! weights (`u64`), the number of king squares (`u16`), six zero bytes; then the opening weights
//! and the endgame weights, each as `regions * 6561 + king squares + globals` `i16` in eighths of a
//! hundredth of a man. Version 1 (no king squares, the first ten global features) is read too:
//! the weights it lacks are zero.

use super::net::{net_inputs, Acc, Net};
use super::Evaluator;
use crate::rules::bitboard::Bits;
use crate::rules::geometry::{BoardSize, Coord, Geometry};
use crate::rules::position::{shift, Position, Side};
use thiserror::Error;

/// Entries of one region's table: 3 states on 8 squares.
pub const REGION_ENTRIES: usize = 6561;
/// Squares of a region.
const REGION_SQUARES: usize = 8;
/// Weights are stored in eighths of a hundredth of a man.
pub const WEIGHT_SCALE: i32 = 8;
/// The file's magic bytes.
pub const MAGIC: [u8; 4] = *b"CBEV";
/// The format version this code writes and reads.
pub const VERSION: u16 = 2;
/// The format with a network after the pattern weights ([`Net::write`]); files without one are
/// written as [`VERSION`].
pub const VERSION_NET: u16 = 3;
/// Format version of weights with a phased network (one whose output layer has an opening and
/// an endgame form, [`Net::end`]): version 3 with the endgame output layer after the network.
pub const VERSION_PHASED: u16 = 4;
/// The first format: no king squares, [`DENSE_V1`] global features.
const VERSION_1: u16 = 1;
/// Global features in a version-1 file (the first ten of [`Dense::ALL`]).
const DENSE_V1: usize = 10;
const HEADER_LEN: usize = 32;

/// The global features, in their order after the pattern weights.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dense {
    /// Men.
    Men,
    /// Kings.
    Kings,
    /// Men on the home row while the enemy has men.
    BackRank,
    /// Steps the men can make.
    ManMobility,
    /// Steps the kings can make.
    KingMobility,
    /// Men with a free path to the crowning row (the hand evaluation's count).
    Runaway,
    /// Kings with no step.
    TrappedKings,
    /// Rows the men have advanced (scaled to the board size).
    Advance,
    /// The material lead in men, times 64, over the pieces on the board (trading down when ahead).
    Trade,
    /// The hand evaluation's endgame driving for the side ahead.
    Endgame,
    /// The difference between the side's men left and right of the middle (its absolute value).
    Balance,
    /// The side to move (1 for the player to move, -1 for the bot).
    ToMove,
}

impl Dense {
    /// Every global feature, in order.
    pub const ALL: [Dense; 12] = [
        Dense::Men,
        Dense::Kings,
        Dense::BackRank,
        Dense::ManMobility,
        Dense::KingMobility,
        Dense::Runaway,
        Dense::TrappedKings,
        Dense::Advance,
        Dense::Trade,
        Dense::Endgame,
        Dense::Balance,
        Dense::ToMove,
    ];

    /// The starting weight in hundredths of a man (the hand evaluation's, where it has one).
    pub fn initial_cp(self) -> f32 {
        match self {
            Dense::Men => 100.0,
            Dense::Kings => 130.0,
            Dense::BackRank => 12.0,
            Dense::ManMobility | Dense::KingMobility => 4.0,
            Dense::Runaway => 30.0,
            Dense::TrappedKings | Dense::Advance | Dense::Balance | Dense::ToMove => 0.0,
            Dense::Trade => 1200.0 / 64.0,
            Dense::Endgame => 3.0,
        }
    }
}

/// Number of global features.
pub const DENSE: usize = Dense::ALL.len();

/// How the regions cover the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Tiling {
    /// Top-left corners on even rows and columns: 9 regions on 8x8, 16 on 10x10, 25 on 12x12.
    #[default]
    Sparse,
    /// The sparse regions, then those with their top-left corners on odd rows and columns, each
    /// centred where four sparse ones meet: 13 on 8x8, 25 on 10x10, 5 on 6x6 (12x12 would need
    /// 41, more than [`MAX_SLOTS`] holds).
    Staggered,
}

impl Tiling {
    /// Both tilings, the default first.
    pub const ALL: [Tiling; 2] = [Tiling::Sparse, Tiling::Staggered];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Tiling::Sparse => "sparse",
            Tiling::Staggered => "staggered",
        }
    }

    /// The tiling of a name given on the command line.
    pub fn parse(s: &str) -> Option<Tiling> {
        Tiling::ALL.into_iter().find(|t| t.name() == s)
    }

    /// The regions' top-left corners (row, column) on an `n`x`n` board, in table order.
    pub fn corners(self, n: usize) -> Vec<(usize, usize)> {
        let grid = |first: usize| {
            let starts: Vec<usize> = (first..n.saturating_sub(3)).step_by(2).collect();
            starts
                .iter()
                .flat_map(|&r| starts.iter().map(move |&c| (r, c)))
                .collect::<Vec<_>>()
        };
        let mut out = grid(0);
        if self == Tiling::Staggered {
            out.extend(grid(1));
        }
        out
    }

    /// Whether the evaluator can hold this tiling's region views on this size.
    pub fn fits(self, size: BoardSize) -> bool {
        2 * self.corners(size.n()).len() <= MAX_SLOTS
    }

    /// The tiling with `count` regions on this size, if there is one.
    fn with_regions(size: BoardSize, count: usize) -> Option<Tiling> {
        Tiling::ALL
            .into_iter()
            .find(|t| t.fits(size) && t.corners(size.n()).len() == count)
    }
}

/// Number of regions on an `n`x`n` board with this tiling.
pub fn regions(size: BoardSize, tiling: Tiling) -> usize {
    tiling.corners(size.n()).len()
}

/// Playable squares on an `n`x`n` board: one king-square weight each.
pub fn king_squares(size: BoardSize) -> usize {
    size.n() * size.n() / 2
}

/// Weights of one phase on a board size with this tiling: the regions' tables, the king squares,
/// then the global features.
pub fn params_per_phase(size: BoardSize, tiling: Tiling) -> usize {
    regions(size, tiling) * REGION_ENTRIES + king_squares(size) + DENSE
}

/// What is wrong with a weights file.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum WeightsError {
    /// Not a weights file at all.
    #[error("not a checkersbot evaluation weights file (no CBEV header)")]
    NotWeights,
    /// Another format version.
    #[error(
        "weights format version {found}; this program reads versions {VERSION_1} to {VERSION_PHASED}"
    )]
    Version {
        /// The file's version.
        found: u16,
    },
    /// Weights for another board size.
    #[error("the weights are for {found}, not {wanted}")]
    WrongSize {
        /// The file's size.
        found: String,
        /// The size asked for.
        wanted: String,
    },
    /// Shape or length does not fit the header.
    #[error("the weights file is truncated or malformed: {0}")]
    Malformed(String),
    /// The checksum does not match: the file is damaged.
    #[error("the weights file is corrupt (checksum {found:016x}, expected {expected:016x})")]
    Checksum {
        /// Computed from the data.
        found: u64,
        /// From the header.
        expected: u64,
    },
}

/// Learned weights for one board size.
#[derive(Clone)]
pub struct LearnedWeights {
    /// The board size they are for.
    pub size: BoardSize,
    /// How their regions cover the board (told by the file's number of regions).
    pub tiling: Tiling,
    /// The logistic scale they were fitted with (for information).
    pub k: f32,
    /// Each weight's opening and endgame values side by side (one memory access per feature),
    /// eighths of a hundredth of a man.
    pairs: Vec<[i16; 2]>,
    /// The network whose output is added to the patterns' score (format version 3), if any.
    pub net: Option<Net>,
}

impl std::fmt::Debug for LearnedWeights {
    /// A summary: the weights themselves are too many to print.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sum = fnv1a(&self.to_bytes()[HEADER_LEN..]);
        write!(
            f,
            "LearnedWeights {{ size: {}, tiling: {}, k: {}, weights: {} per phase, checksum \
             {sum:016x} }}",
            self.size,
            self.tiling.name(),
            self.k,
            self.pairs.len()
        )
    }
}

impl PartialEq for LearnedWeights {
    fn eq(&self, other: &Self) -> bool {
        self.size == other.size
            && self.tiling == other.tiling
            && self.k.to_bits() == other.k.to_bits()
            && self.pairs == other.pairs
            && self.net == other.net
    }
}

impl Eq for LearnedWeights {}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl LearnedWeights {
    /// Weights from values in hundredths of a man (rounded to the stored resolution), laid out as
    /// [`params_per_phase`] says for `size` and `tiling`.
    pub fn from_cp(
        size: BoardSize,
        tiling: Tiling,
        k: f32,
        open: &[f32],
        end: &[f32],
    ) -> LearnedWeights {
        let q = |x: f32| {
            (x * WEIGHT_SCALE as f32)
                .round()
                .clamp(i16::MIN as f32, i16::MAX as f32) as i16
        };
        LearnedWeights {
            size,
            tiling,
            k,
            pairs: open.iter().zip(end).map(|(&o, &e)| [q(o), q(e)]).collect(),
            net: None,
        }
    }

    /// Opening and endgame values of weight `i` (within a phase), eighths of a hundredth of a man.
    pub fn pair(&self, i: usize) -> [i16; 2] {
        self.pairs[i]
    }

    /// Number of weights per phase.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether there are no weights (never, for weights of a board size).
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The starting point of training: the hand evaluation's global weights, empty patterns.
    pub fn initial(size: BoardSize, tiling: Tiling) -> LearnedWeights {
        let per = params_per_phase(size, tiling);
        let mut w = vec![0.0; per];
        for (i, d) in Dense::ALL.iter().enumerate() {
            w[per - DENSE + i] = d.initial_cp();
        }
        LearnedWeights::from_cp(size, tiling, 0.0, &w, &w)
    }

    /// The same weights with the regions of `tiling`: a region both tilings have keeps its
    /// table, a region only the new one has starts empty (its score is then unchanged), and a
    /// region only the old one has is dropped. `None` if the tiling does not fit the size.
    pub fn retiled(&self, tiling: Tiling) -> Option<LearnedWeights> {
        if !tiling.fits(self.size) {
            return None;
        }
        let n = self.size.n();
        let old = self.tiling.corners(n);
        let mut pairs = Vec::with_capacity(params_per_phase(self.size, tiling));
        for corner in tiling.corners(n) {
            match old.iter().position(|&c| c == corner) {
                Some(r) => pairs
                    .extend_from_slice(&self.pairs[r * REGION_ENTRIES..(r + 1) * REGION_ENTRIES]),
                None => pairs.extend(std::iter::repeat_n([0i16; 2], REGION_ENTRIES)),
            }
        }
        pairs.extend_from_slice(&self.pairs[old.len() * REGION_ENTRIES..]);
        Some(LearnedWeights {
            size: self.size,
            tiling,
            k: self.k,
            pairs,
            net: self.net.clone(),
        })
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(4 * self.pairs.len());
        for phase in 0..2 {
            for w in &self.pairs {
                payload.extend_from_slice(&w[phase].to_le_bytes());
            }
        }
        if let Some(net) = &self.net {
            net.write(&mut payload);
        }
        let version = match &self.net {
            Some(net) if net.end.is_some() => VERSION_PHASED,
            Some(_) => VERSION_NET,
            None => VERSION,
        };
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&version.to_le_bytes());
        out.push(self.size.n() as u8);
        out.push(0);
        out.extend_from_slice(&(regions(self.size, self.tiling) as u16).to_le_bytes());
        out.extend_from_slice(&(DENSE as u16).to_le_bytes());
        out.extend_from_slice(&self.k.to_le_bytes());
        out.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        out.extend_from_slice(&(king_squares(self.size) as u16).to_le_bytes());
        out.extend_from_slice(&[0; HEADER_LEN - 26]);
        out.extend_from_slice(&payload);
        out
    }

    /// Reads a weights file's bytes, checking everything the header says.
    pub fn from_bytes(bytes: &[u8]) -> Result<LearnedWeights, WeightsError> {
        if bytes.len() < HEADER_LEN || bytes[..4] != MAGIC {
            return Err(WeightsError::NotWeights);
        }
        let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
        let version = u16_at(4);
        if ![VERSION_1, VERSION, VERSION_NET, VERSION_PHASED].contains(&version) {
            return Err(WeightsError::Version { found: version });
        }
        let size = BoardSize::from_n(usize::from(bytes[6]))
            .ok_or_else(|| WeightsError::Malformed(format!("board size {}", bytes[6])))?;
        let (r, d, ks) = (
            usize::from(u16_at(8)),
            usize::from(u16_at(10)),
            usize::from(u16_at(24)),
        );
        // What the file holds per phase: version 1 has no king squares and fewer globals.
        let (want_d, want_ks) = if version == VERSION_1 {
            (DENSE_V1, 0)
        } else {
            (DENSE, king_squares(size))
        };
        let tiling = Tiling::with_regions(size, r).filter(|_| d == want_d && ks == want_ks);
        let Some(tiling) = tiling else {
            return Err(WeightsError::Malformed(format!(
                "{r} regions, {ks} king squares and {d} global features do not fit {size} \
                 (expected {} or {} regions, {want_ks} king squares and {want_d} global features)",
                regions(size, Tiling::Sparse),
                regions(size, Tiling::Staggered)
            )));
        };
        let k = f32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]);
        let mut sum = [0u8; 8];
        sum.copy_from_slice(&bytes[16..24]);
        let expected = u64::from_le_bytes(sum);
        let payload = &bytes[HEADER_LEN..];
        let per = r * REGION_ENTRIES + ks + d;
        let with_net = version == VERSION_NET || version == VERSION_PHASED;
        let (payload, net_bytes) = if with_net {
            payload.split_at(payload.len().min(4 * per))
        } else {
            (payload, &[][..])
        };
        if payload.len() != 4 * per {
            return Err(WeightsError::Malformed(format!(
                "{} bytes of weights, expected {}",
                payload.len(),
                4 * per
            )));
        }
        let found = fnv1a(&bytes[HEADER_LEN..]);
        if found != expected {
            return Err(WeightsError::Checksum { found, expected });
        }
        let all: Vec<i16> = payload
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        let stored: Vec<[i16; 2]> = all[..per]
            .iter()
            .zip(&all[per..])
            .map(|(&o, &e)| [o, e])
            .collect();
        // Lay the stored weights out as this version does: patterns, king squares, globals; what
        // an older file lacks is zero.
        let patterns = r * REGION_ENTRIES;
        let mut pairs = vec![[0i16; 2]; params_per_phase(size, tiling)];
        pairs[..patterns].copy_from_slice(&stored[..patterns]);
        pairs[patterns..patterns + ks].copy_from_slice(&stored[patterns..patterns + ks]);
        let dense_at = patterns + king_squares(size);
        pairs[dense_at..dense_at + d].copy_from_slice(&stored[patterns + ks..]);
        let net = if with_net {
            Some(
                Net::read(net_bytes, net_inputs(size), version == VERSION_PHASED)
                    .map_err(|e| WeightsError::Malformed(format!("the network: {e}")))?,
            )
        } else {
            None
        };
        Ok(LearnedWeights {
            size,
            tiling,
            k,
            pairs,
            net,
        })
    }

    /// Reads weights for `size`, refusing weights made for another size.
    pub fn from_bytes_for(bytes: &[u8], size: BoardSize) -> Result<LearnedWeights, WeightsError> {
        let w = LearnedWeights::from_bytes(bytes)?;
        if w.size != size {
            return Err(WeightsError::WrongSize {
                found: w.size.to_string(),
                wanted: size.to_string(),
            });
        }
        Ok(w)
    }
}

/// Where every region's squares are: a region has two adjacent playable squares on each of its
/// four rows, which are two adjacent bits of the padded layout, so a region is read as four 2-bit
/// chunks. `player` holds the chunks' shifts as the player sees the region. (The bot sees each
/// region turned 180 degrees: [`Evaluator::features`] reads it on the turned board.)
///
/// For incremental updates, `by_square` lists, for each bit of the padded layout, the region views
/// that read it: the slot (`2 * region` for the player's view, `2 * region + 1` for the bot's) and
/// what a player's man and a bot's man on that square add to the slot's index; `square_start[b]..
/// square_start[b + 1]` is bit `b`'s part of the list.
#[derive(Clone, Debug, Default)]
pub(super) struct Regions {
    tiling: Tiling,
    player: Vec<[u32; 4]>,
    /// Per bit of the padded layout, the king-square weight a player's king there uses, and the
    /// one a bot's king there uses (its square on the turned board); 0 off the board.
    king_square: Vec<[u16; 2]>,
    by_square: Vec<SquareSlot>,
    square_start: Vec<u16>,
}

/// One region view that reads a square, and what each colour's man there adds to its index.
#[derive(Copy, Clone, Debug)]
struct SquareSlot {
    slot: u8,
    player_man: u16,
    bot_man: u16,
}

impl Regions {
    pub(super) fn new(n: usize, tiling: Tiling) -> Regions {
        let mut out = Regions {
            tiling,
            ..Regions::default()
        };
        let first = |r: usize, c0: usize| {
            (c0..c0 + 4)
                .find_map(|c| Coord::new(r as u8, c as u8).to_square(n))
                .map_or(0, |s| u32::from(s.0))
        };
        for (r0, c0) in tiling.corners(n) {
            let mut p = [0; 4];
            for (i, shift) in p.iter_mut().enumerate() {
                *shift = first(r0 + i, c0);
            }
            out.player.push(p);
        }
        out.index_squares(n);
        let bits = out.square_start.len().saturating_sub(1);
        out.king_square = vec![[0; 2]; bits];
        for r in 0..n {
            for c in 0..n {
                let Some(sq) = Coord::new(r as u8, c as u8).to_square(n) else {
                    continue;
                };
                let (tr, tc) = (n - 1 - r, n - 1 - c);
                if let Some(e) = out.king_square.get_mut(usize::from(sq.0)) {
                    *e = [(r * (n / 2) + c / 2) as u16, (tr * (n / 2) + tc / 2) as u16];
                }
            }
        }
        out
    }

    /// Fills `by_square` and `square_start` from the regions' shifts.
    fn index_squares(&mut self, n: usize) {
        // The padded layout's width: one past the highest playable bit.
        let bits = (0..n * n)
            .filter_map(|i| Coord::new((i / n) as u8, (i % n) as u8).to_square(n))
            .map(|sq| u32::from(sq.0) + 1)
            .max()
            .unwrap_or(0) as usize;
        let mut per_bit: Vec<Vec<SquareSlot>> = vec![Vec::new(); bits];
        for (r, shifts) in self.player.iter().enumerate() {
            for (i, &shift) in shifts.iter().enumerate() {
                for j in 0..2u32 {
                    let digit = 2 * i as u32 + j;
                    let pow = 3u16.pow(digit);
                    let b = (shift + j) as usize;
                    // The player's view reads bit b: own (player) men count 1, enemy men 2.
                    if let Some(list) = per_bit.get_mut(b) {
                        list.push(SquareSlot {
                            slot: (2 * r) as u8,
                            player_man: pow,
                            bot_man: 2 * pow,
                        });
                    }
                    // The bot's view reads bit b of the turned board, which is bit bits-1-b of
                    // the real one: own (bot) men count 1, enemy men 2.
                    if let Some(list) = bits.checked_sub(b + 1).and_then(|t| per_bit.get_mut(t)) {
                        list.push(SquareSlot {
                            slot: (2 * r + 1) as u8,
                            player_man: 2 * pow,
                            bot_man: pow,
                        });
                    }
                }
            }
        }
        self.square_start = Vec::with_capacity(bits + 1);
        self.by_square.clear();
        for list in per_bit {
            self.square_start.push(self.by_square.len() as u16);
            self.by_square.extend(list);
        }
        self.square_start.push(self.by_square.len() as u16);
    }

    /// Index slots: two views of every region.
    pub(super) fn slots(&self) -> usize {
        2 * self.player.len()
    }
}

/// Room for the index slots of any board size (25 regions on 12x12, two views each: 50), rounded
/// up to a power of two so that a slot number is bounded by a mask.
pub const MAX_SLOTS: usize = 64;

/// Base-3 value of an 8-bit mask: bit `i` counts `3^i`.
const fn base3_table() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut m = 0;
    while m < 256 {
        let mut v = 0u16;
        let mut p = 1u16;
        let mut i = 0;
        while i < REGION_SQUARES {
            if m & (1 << i) != 0 {
                v += p;
            }
            p *= 3;
            i += 1;
        }
        t[m] = v;
        m += 1;
    }
    t
}

static BASE3: [u16; 256] = base3_table();

#[inline(always)]
fn region_index<B: Bits>(shifts: &[u32; 4], own: B, enemy: B) -> usize {
    let (mut o, mut e) = (0usize, 0usize);
    for (i, &s) in shifts.iter().enumerate() {
        o |= own.two_bits(s) << (2 * i);
        e |= enemy.two_bits(s) << (2 * i);
    }
    usize::from(BASE3[o]) + 2 * usize::from(BASE3[e])
}

impl<G: Geometry> Evaluator<G> {
    /// Calls `f(index, value)` for every active feature of `pos`, from the player's side: the
    /// weight at `index` (within one phase) counts `value` times.
    pub fn features(&self, pos: &Position<G>, f: &mut impl FnMut(usize, i32)) {
        let mut idx = [0u16; MAX_SLOTS];
        self.region_indices(pos, &mut idx);
        self.features_with(pos, &idx, f);
    }

    /// The region views' table indices of `pos` computed from scratch: slot `2 * r` is region
    /// `r` as the player sees it, slot `2 * r + 1` as the bot sees it. `out` needs
    /// [`Self::index_slots`] entries.
    pub fn region_indices(&self, pos: &Position<G>, out: &mut [u16]) {
        let pm = pos.men(Side::Player);
        let bm = pos.men(Side::Bot);
        // The bot's view of a region is the player's view of the same region on the board turned
        // 180 degrees with the colours swapped: turn the two sets once, read every region twice.
        let (pm_turned, bm_turned) = (pm.reverse_low(G::BITS), bm.reverse_low(G::BITS));
        for (p, pair) in self.regions.player.iter().zip(out.chunks_exact_mut(2)) {
            pair[0] = region_index(p, pm, bm) as u16;
            pair[1] = region_index(p, bm_turned, pm_turned) as u16;
        }
    }

    /// How this evaluator's regions cover the board.
    pub fn tiling(&self) -> Tiling {
        self.regions.tiling
    }

    /// Index slots of this board size's region views (see [`Self::region_indices`]).
    pub fn index_slots(&self) -> usize {
        self.regions.slots()
    }

    /// Brings `idx`, the region indices of `before`, to those of `after` by looking only at the
    /// squares whose men changed (a move changes two to a dozen). Kings do not count in regions.
    pub fn update_region_indices(
        &self,
        before: &Position<G>,
        after: &Position<G>,
        idx: &mut [u16; MAX_SLOTS],
    ) {
        let (p0, b0) = (before.men(Side::Player), before.men(Side::Bot));
        let (p1, b1) = (after.men(Side::Player), after.men(Side::Bot));
        let mut changed = (p0 ^ p1) | (b0 ^ b1);
        let regions = &self.regions;
        while !changed.is_empty() {
            let bit = changed.lowest();
            changed = changed.clear_lowest();
            // +1 for a man that arrived, -1 for one that left, per colour.
            let dp = i32::from(p1.has(bit)) - i32::from(p0.has(bit));
            let db = i32::from(b1.has(bit)) - i32::from(b0.has(bit));
            let b = bit as usize;
            let (Some(&from), Some(&to)) =
                (regions.square_start.get(b), regions.square_start.get(b + 1))
            else {
                continue;
            };
            for e in regions
                .by_square
                .get(usize::from(from)..usize::from(to))
                .unwrap_or(&[])
            {
                let delta = dp * i32::from(e.player_man) + db * i32::from(e.bot_man);
                let slot = &mut idx[usize::from(e.slot) & (MAX_SLOTS - 1)];
                *slot = slot.wrapping_add(delta as u16);
            }
        }
    }

    /// [`Self::features`] with the region indices already known.
    fn features_with(&self, pos: &Position<G>, idx: &[u16], f: &mut impl FnMut(usize, i32)) {
        for (r, pair) in idx
            .chunks_exact(2)
            .take(self.regions.player.len())
            .enumerate()
        {
            let base = r * REGION_ENTRIES;
            f(base + usize::from(pair[0]), 1);
            f(base + usize::from(pair[1]), -1);
        }
        let kings_base = self.regions.player.len() * REGION_ENTRIES;
        for (side, view, sign) in [(Side::Player, 0, 1), (Side::Bot, 1, -1)] {
            let mut kings = pos.kings_of(side);
            while !kings.is_empty() {
                let bit = kings.lowest() as usize;
                kings = kings.clear_lowest();
                if let Some(e) = self.regions.king_square.get(bit) {
                    f(kings_base + usize::from(e[view]), sign);
                }
            }
        }
        let base = kings_base + king_squares(G::SIZE);
        let d = |side: Side| self.dense(pos, side);
        let (dp, db) = (d(Side::Player), d(Side::Bot));
        for i in 0..DENSE {
            let v = dp[i] - db[i];
            if v != 0 {
                f(base + i, v);
            }
        }
        // Trade and endgame are whole-board terms, signed for the player.
        let (mp, _) = pos.material(Side::Player);
        let (mb, _) = pos.material(Side::Bot);
        let (kp, kb) = (
            pos.kings_of(Side::Player).popcount() as i32,
            pos.kings_of(Side::Bot).popcount() as i32,
        );
        let lead = (mp as i32 - mb as i32) + (kp - kb);
        let pieces = pos.occupied().popcount() as i32;
        if lead != 0 && pieces > 0 {
            f(base + Dense::Trade as usize, lead * 64 / pieces);
        }
        f(
            base + Dense::ToMove as usize,
            if pos.side == Side::Player { 1 } else { -1 },
        );
        let lead_cp = self.material(pos, Side::Player) - self.material(pos, Side::Bot);
        if lead_cp.abs() >= self.w.man / 2 {
            let few = pieces as usize <= G::N || (pos.kings & pos.occupied()) == pos.occupied();
            if few {
                let strong = if lead_cp > 0 { Side::Player } else { Side::Bot };
                let e = self.endgame_drive(pos, strong);
                if e != 0 {
                    f(
                        base + Dense::Endgame as usize,
                        if strong == Side::Player { e } else { -e },
                    );
                }
            }
        }
    }

    /// One side's global feature counts (trade, endgame and the side to move are left at 0: see
    /// [`Self::features`]).
    fn dense(&self, pos: &Position<G>, side: Side) -> [i32; DENSE] {
        let men = pos.men(side);
        let kings = pos.kings_of(side);
        let empty = pos.empty_squares();
        let (f0, f1) = match side {
            Side::Player => (0, 1),
            Side::Bot => (2, 3),
        };
        let mut out = [0; DENSE];
        out[Dense::Men as usize] = men.popcount() as i32;
        out[Dense::Kings as usize] = kings.popcount() as i32;
        if !pos.men(side.opponent()).is_empty() {
            out[Dense::BackRank as usize] = (men & self.row_from_home(side, 0)).popcount() as i32;
        }
        out[Dense::ManMobility as usize] = ((shift::<G>(men, f0) & empty).popcount()
            + (shift::<G>(men, f1) & empty).popcount())
            as i32;
        let mut free = G::B::ZERO;
        let mut km = 0;
        for d in 0..4 {
            let to = shift::<G>(kings, d) & empty;
            km += to.popcount();
            // Kings that can step in direction d: shift the targets back.
            free |= shift::<G>(to, 3 - d);
        }
        out[Dense::KingMobility as usize] = km as i32;
        out[Dense::TrappedKings as usize] = (kings & !free).popcount() as i32;
        out[Dense::Runaway as usize] = self.runaways(pos, side);
        let left = (men & self.left_half).popcount() as i32;
        out[Dense::Balance as usize] = (2 * left - men.popcount() as i32).abs();
        out[Dense::Advance as usize] = self.adv_planes[side.index()]
            .iter()
            .enumerate()
            .map(|(b, &plane)| ((men & plane).popcount() as i32) << b)
            .sum();
        out
    }

    /// Pieces on the board and the number at the start (for the phase blend).
    pub fn phase(&self, pos: &Position<G>) -> (i32, i32) {
        let full = (G::N * G::SIZE.start_rows()) as i32;
        (pos.occupied().popcount() as i32, full.max(1))
    }

    /// The learned score of `pos` for the player, in hundredths of a man.
    pub fn learned_for_player(&self, w: &LearnedWeights, pos: &Position<G>) -> i32 {
        let mut idx = [0u16; MAX_SLOTS];
        self.region_indices(pos, &mut idx);
        self.learned_for_player_with(w, pos, &idx, None)
    }

    /// [`Self::learned_for_player`] with the region indices already known.
    pub(super) fn learned_for_player_with(
        &self,
        w: &LearnedWeights,
        pos: &Position<G>,
        idx: &[u16],
        acc: Option<&[Acc; 2]>,
    ) -> i32 {
        let (mut so, mut se) = (0i32, 0i32);
        debug_assert_eq!(
            w.tiling, self.regions.tiling,
            "weights read with their own regions"
        );
        self.features_with(pos, idx, &mut |i, v| {
            if let Some(&[o, e]) = w.pairs.get(i) {
                so += i32::from(o) * v;
                se += i32::from(e) * v;
            }
        });
        let (p, full) = self.phase(pos);
        let p = p.min(full);
        let patterns = (so * p + se * (full - p)) / (full * WEIGHT_SCALE);
        match (&w.net, acc) {
            (Some(net), Some(acc)) => patterns + net.for_player(acc, pos.side, (p, full)),
            (Some(net), None) => {
                patterns + net.for_player(&net.accumulate_both(pos), pos.side, (p, full))
            }
            (None, _) => patterns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::geometry::G8;

    fn sample_weights(size: BoardSize, tiling: Tiling) -> LearnedWeights {
        let per = params_per_phase(size, tiling);
        let open: Vec<f32> = (0..per).map(|i| ((i * 7919) % 41) as f32 - 20.0).collect();
        let end: Vec<f32> = (0..per)
            .map(|i| ((i * 104_729) % 37) as f32 - 18.0)
            .collect();
        LearnedWeights::from_cp(size, tiling, 123.5, &open, &end)
    }

    #[test]
    fn weights_files_round_trip_and_damage_is_refused() {
        let w = sample_weights(BoardSize::S8, Tiling::Sparse);
        let bytes = w.to_bytes();
        assert_eq!(LearnedWeights::from_bytes(&bytes), Ok(w.clone()));
        assert_eq!(
            LearnedWeights::from_bytes_for(&bytes, BoardSize::S10),
            Err(WeightsError::WrongSize {
                found: "8x8".into(),
                wanted: "10x10".into()
            })
        );
        let mut corrupt = bytes.clone();
        corrupt[HEADER_LEN + 1000] ^= 0x40;
        assert!(matches!(
            LearnedWeights::from_bytes(&corrupt),
            Err(WeightsError::Checksum { .. })
        ));
        let mut version = bytes.clone();
        version[4] = 9;
        assert_eq!(
            LearnedWeights::from_bytes(&version),
            Err(WeightsError::Version { found: 9 })
        );
        assert_eq!(
            LearnedWeights::from_bytes(b"CBSP not weights at all, a data file......"),
            Err(WeightsError::NotWeights)
        );
        assert!(matches!(
            LearnedWeights::from_bytes(&bytes[..bytes.len() - 2]),
            Err(WeightsError::Malformed(_))
        ));
        let e = LearnedWeights::from_bytes(&corrupt)
            .unwrap_err()
            .to_string();
        assert!(e.contains("corrupt"), "{e}");
    }

    /// A file with a network (version 3) round-trips; damage to the network is caught by the
    /// checksum; a network for another size's inputs, a truncated one and one whose sums could
    /// overflow are refused, each saying so.
    #[test]
    fn weights_with_a_network_round_trip_and_bad_networks_are_refused() {
        use super::super::net::{FloatNet, HIDDEN};
        let mut w = sample_weights(BoardSize::S8, Tiling::Sparse);
        let inputs = net_inputs(BoardSize::S8);
        let f = FloatNet {
            inputs,
            w: (0..inputs * HIDDEN)
                .map(|i| (i % 7) as f32 / 10.0 - 0.3)
                .collect(),
            b: vec![0.5; HIDDEN],
            v: (0..2 * HIDDEN).map(|i| i as f32 - 30.0).collect(),
            c: 3.0,
            end: None,
        };
        w.net = Some(f.quantize());
        let bytes = w.to_bytes();
        assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), VERSION_NET);
        assert_eq!(LearnedWeights::from_bytes(&bytes), Ok(w.clone()));
        let plain = sample_weights(BoardSize::S8, Tiling::Sparse).to_bytes();
        assert_eq!(u16::from_le_bytes([plain[4], plain[5]]), VERSION);
        let mut corrupt = bytes.clone();
        let last = corrupt.len() - 10;
        corrupt[last] ^= 0x40;
        assert!(matches!(
            LearnedWeights::from_bytes(&corrupt),
            Err(WeightsError::Checksum { .. })
        ));
        // Rewrites the file and the checksum, as a damaged writer would.
        let damaged = |file: &[u8], edit: &dyn Fn(&mut Vec<u8>)| {
            let mut b = file.to_vec();
            edit(&mut b);
            let sum = fnv1a(&b[HEADER_LEN..]);
            b[16..24].copy_from_slice(&sum.to_le_bytes());
            LearnedWeights::from_bytes(&b).unwrap_err().to_string()
        };
        let with_net = |edit: &dyn Fn(&mut Vec<u8>)| damaged(&bytes, edit);
        let net_at = bytes.len() - (4 + 2 * (inputs * HIDDEN + 3 * HIDDEN) + 4);
        let e = with_net(&|b| b[net_at..net_at + 2].copy_from_slice(&7u16.to_le_bytes()));
        assert!(e.contains("network of 7 inputs"), "{e}");
        let e = with_net(&|b| b.truncate(b.len() - 2));
        assert!(e.contains("network section"), "{e}");
        let e = with_net(&|b| b[net_at + 4..net_at + 6].copy_from_slice(&i16::MAX.to_le_bytes()));
        assert!(e.contains("overflow"), "{e}");

        // A phased network (version 4) round-trips too, and its endgame layer is read: a file
        // cut short of it, or a version-3 file with one, is refused.
        let mut phased = w.clone();
        let mut pf = f.clone();
        pf.end = Some(((0..2 * HIDDEN).map(|i| 20.0 - i as f32).collect(), -4.0));
        phased.net = Some(pf.quantize());
        let pbytes = phased.to_bytes();
        assert_eq!(u16::from_le_bytes([pbytes[4], pbytes[5]]), VERSION_PHASED);
        assert_eq!(pbytes.len(), bytes.len() + 2 * 2 * HIDDEN + 4);
        assert_eq!(LearnedWeights::from_bytes(&pbytes), Ok(phased.clone()));
        assert_ne!(phased, w, "the endgame layer is kept");
        let rewrite = |edit: &dyn Fn(&mut Vec<u8>)| damaged(&pbytes, edit);
        let e = rewrite(&|b| b.truncate(b.len() - 4));
        assert!(e.contains("network section"), "{e}");
        let e = rewrite(&|b| b[4..6].copy_from_slice(&VERSION_NET.to_le_bytes()));
        assert!(e.contains("network section"), "{e}");
    }

    #[test]
    fn a_king_reads_its_square_and_the_bot_reads_the_turned_board() {
        let ev = Evaluator::<G8>::new(super::super::Weights::default());
        let size = BoardSize::S8;
        let kings_base = regions(size, Tiling::Sparse) * REGION_ENTRIES;
        let mut pos = Position::<G8>::initial(Side::Player);
        for r in 0..8u8 {
            for c in 0..8u8 {
                if let Some(sq) = Coord::new(r, c).to_square(8) {
                    pos.put(sq, None);
                }
            }
        }
        let put = |pos: &mut Position<G8>, r: u8, c: u8, side: Side| {
            let sq = Coord::new(r, c)
                .to_square(8)
                .unwrap_or_else(|| unreachable!("a playable square"));
            pos.put(sq, Some(crate::rules::position::Piece { side, king: true }));
        };
        // The player's king on row 3, column 2 (square 3 * 4 + 1); the bot's on row 0, column 1,
        // which is row 7, column 6 on the turned board (square 7 * 4 + 3).
        put(&mut pos, 3, 2, Side::Player);
        put(&mut pos, 0, 1, Side::Bot);
        let mut seen = Vec::new();
        ev.features(&pos, &mut |i, v| {
            if (kings_base..kings_base + king_squares(size)).contains(&i) {
                seen.push((i - kings_base, v));
            }
        });
        seen.sort_unstable();
        assert_eq!(seen, vec![(13, 1), (31, -1)]);
    }

    /// A version-1 file (no king squares, ten global features) of `w`'s other weights.
    fn version_1_bytes(w: &LearnedWeights) -> Vec<u8> {
        let patterns = regions(w.size, w.tiling) * REGION_ENTRIES;
        let dense_at = params_per_phase(w.size, w.tiling) - DENSE;
        let mut payload = Vec::new();
        for phase in 0..2 {
            let kept = (0..patterns).chain(dense_at..dense_at + DENSE_V1);
            for i in kept {
                payload.extend_from_slice(&w.pairs[i][phase].to_le_bytes());
            }
        }
        let mut out = Vec::new();
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION_1.to_le_bytes());
        out.extend_from_slice(&[w.size.n() as u8, 0]);
        out.extend_from_slice(&(regions(w.size, w.tiling) as u16).to_le_bytes());
        out.extend_from_slice(&(DENSE_V1 as u16).to_le_bytes());
        out.extend_from_slice(&w.k.to_le_bytes());
        out.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        out.extend_from_slice(&[0; HEADER_LEN - 24]);
        out.extend_from_slice(&payload);
        out
    }

    #[test]
    fn version_1_files_read_with_the_weights_they_lack_at_zero() {
        for size in [BoardSize::S8, BoardSize::S10] {
            let w = sample_weights(size, Tiling::Sparse);
            let old = LearnedWeights::from_bytes(&version_1_bytes(&w)).unwrap();
            let patterns = regions(size, Tiling::Sparse) * REGION_ENTRIES;
            let dense_at = params_per_phase(size, Tiling::Sparse) - DENSE;
            assert_eq!(old.len(), w.len());
            for i in 0..w.len() {
                let expected = if i < patterns || (dense_at..dense_at + DENSE_V1).contains(&i) {
                    w.pairs[i]
                } else {
                    [0, 0]
                };
                assert_eq!(old.pairs[i], expected, "weight {i} on {size}");
            }
            // Written again, it is a version-2 file that reads back the same.
            assert_eq!(LearnedWeights::from_bytes(&old.to_bytes()), Ok(old));
        }
    }

    /// The bot's view read square by square from the coordinates: the region turned 180 degrees,
    /// colours swapped, squares in the same order as the player's view.
    fn bot_view_by_coordinates<G: Geometry>(pos: &Position<G>, r0: usize, c0: usize) -> usize {
        let n = G::N;
        let (mut idx, mut p3) = (0usize, 1usize);
        for i in 0..4 {
            // The player's view reads row r0 + i from column c0 rightwards; turned, that is row
            // n - 1 - (r0 + i) read from column n - 1 - c0 leftwards.
            let r = n - 1 - (r0 + i);
            for c in (0..=(n - 1 - c0)).rev().take(4) {
                if let Some(sq) = Coord::new(r as u8, c as u8).to_square(n) {
                    let v = match pos.piece_at(sq) {
                        Some(pc) if !pc.king && pc.side == Side::Bot => 1,
                        Some(pc) if !pc.king => 2,
                        _ => 0,
                    };
                    idx += v * p3;
                    p3 *= 3;
                }
            }
        }
        idx
    }

    fn check_turned_views<G: Geometry>(seed: u64, tiling: Tiling) {
        let ev = Evaluator::<G>::with_tiling(super::super::Weights::default(), tiling);
        let corners = tiling.corners(G::N);
        let mut x = seed;
        for _ in 0..200 {
            let mut pos = Position::<G>::initial(Side::Player);
            let squares = (0..G::N * G::N)
                .filter_map(|i| Coord::new((i / G::N) as u8, (i % G::N) as u8).to_square(G::N));
            for sq in squares {
                x = crate::engine::search::xorshift(x);
                let piece = match x % 6 {
                    0 => Some((Side::Player, false)),
                    1 => Some((Side::Bot, false)),
                    2 => Some((Side::Bot, true)),
                    _ => None,
                };
                pos.put(
                    sq,
                    piece.map(|(side, king)| crate::rules::position::Piece { side, king }),
                );
            }
            let mut seen = Vec::new();
            ev.features(&pos, &mut |i, v| seen.push((i, v)));
            for (r, &(r0, c0)) in corners.iter().enumerate() {
                let bot = seen
                    .iter()
                    .filter(|&&(i, v)| v == -1 && i / REGION_ENTRIES == r)
                    .map(|&(i, _)| i % REGION_ENTRIES)
                    .next();
                assert_eq!(
                    bot,
                    Some(bot_view_by_coordinates(&pos, r0, c0)),
                    "region {r}"
                );
            }
        }
    }

    #[test]
    fn the_bot_reads_each_region_turned_on_every_size() {
        check_turned_views::<G8>(7, Tiling::Sparse);
        check_turned_views::<crate::rules::geometry::G10>(8, Tiling::Sparse);
        check_turned_views::<crate::rules::geometry::G12>(9, Tiling::Sparse);
        check_turned_views::<crate::rules::geometry::G6>(10, Tiling::Sparse);
        check_turned_views::<G8>(11, Tiling::Staggered);
        check_turned_views::<crate::rules::geometry::G10>(12, Tiling::Staggered);
        check_turned_views::<crate::rules::geometry::G6>(13, Tiling::Staggered);
    }

    #[test]
    fn the_staggered_tiling_adds_the_regions_between_the_sparse_ones() {
        let n = |size: BoardSize, t: Tiling| regions(size, t);
        assert_eq!(n(BoardSize::S8, Tiling::Sparse), 9);
        assert_eq!(n(BoardSize::S8, Tiling::Staggered), 13);
        assert_eq!(n(BoardSize::S10, Tiling::Staggered), 25);
        assert_eq!(n(BoardSize::S6, Tiling::Staggered), 5);
        assert_eq!(
            Tiling::Staggered.corners(8)[9..],
            [(1, 1), (1, 3), (3, 1), (3, 3)]
        );
        assert_eq!(
            Tiling::Staggered.corners(8)[..9],
            Tiling::Sparse.corners(8)[..]
        );
        // 12x12 would need 41 regions, 82 index slots: more than the evaluator holds.
        assert!(!Tiling::Staggered.fits(BoardSize::S12));
        assert!(Tiling::Staggered.fits(BoardSize::S10));
        assert!(sample_weights(BoardSize::S12, Tiling::Sparse)
            .retiled(Tiling::Staggered)
            .is_none());
    }

    #[test]
    fn staggered_weights_round_trip_and_the_region_count_tells_the_tiling() {
        for size in [BoardSize::S8, BoardSize::S10] {
            let w = sample_weights(size, Tiling::Staggered);
            let bytes = w.to_bytes();
            let back = LearnedWeights::from_bytes(&bytes);
            assert_eq!(back.as_ref().map(|b| b.tiling), Ok(Tiling::Staggered));
            assert_eq!(back, Ok(w));
        }
        // A header naming a region count no tiling has is refused, and the message says what
        // would fit.
        let mut bytes = sample_weights(BoardSize::S8, Tiling::Sparse).to_bytes();
        bytes[8] = 11;
        let e = LearnedWeights::from_bytes(&bytes).unwrap_err();
        assert!(matches!(e, WeightsError::Malformed(_)), "{e}");
        assert!(e.to_string().contains("9 or 13 regions"), "{e}");
    }

    /// Sparse weights retiled to staggered score every position the same (the new regions start
    /// empty), and back again they are the same weights.
    #[test]
    fn retiled_weights_score_the_same() {
        use crate::rules::geometry::G10;
        fn check<G: Geometry>(seed: u64) {
            let w = sample_weights(G::SIZE, Tiling::Sparse);
            let wide = w.retiled(Tiling::Staggered).unwrap();
            assert_eq!(wide.tiling, Tiling::Staggered);
            assert_eq!(wide.len(), params_per_phase(G::SIZE, Tiling::Staggered));
            let narrow = Evaluator::<G>::with_tiling(super::super::Weights::default(), w.tiling);
            let broad = Evaluator::<G>::with_tiling(super::super::Weights::default(), wide.tiling);
            let mut x = seed;
            for _ in 0..100 {
                let mut pos = Position::<G>::initial(Side::Player);
                let squares = (0..G::N * G::N)
                    .filter_map(|i| Coord::new((i / G::N) as u8, (i % G::N) as u8).to_square(G::N));
                for sq in squares {
                    x = crate::engine::search::xorshift(x);
                    let piece = match x % 7 {
                        0 | 1 => Some((Side::Player, x.is_multiple_of(5))),
                        2 | 3 => Some((Side::Bot, x.is_multiple_of(5))),
                        _ => None,
                    };
                    pos.put(
                        sq,
                        piece.map(|(side, king)| crate::rules::position::Piece { side, king }),
                    );
                }
                assert_eq!(
                    narrow.learned_for_player(&w, &pos),
                    broad.learned_for_player(&wide, &pos)
                );
            }
            assert_eq!(wide.retiled(Tiling::Sparse), Some(w));
        }
        check::<G8>(21);
        check::<G10>(22);
    }

    #[test]
    fn the_initial_weights_score_material_like_the_hand_evaluation() {
        let ev = Evaluator::<G8>::new(super::super::Weights::default());
        let w = LearnedWeights::initial(BoardSize::S8, Tiling::Sparse);
        let start = Position::<G8>::initial(Side::Player);
        assert_eq!(ev.learned_for_player(&w, &start), 0);
        // The bot a man down: the player is about a man ahead.
        let mut pos = start;
        let sq = crate::rules::geometry::Coord::new(0, 1)
            .to_square(8)
            .unwrap_or_else(|| unreachable!("A1 is playable"));
        pos.put(sq, None);
        let s = ev.learned_for_player(&w, &pos);
        assert!((100..=160).contains(&s), "{s}");
    }
}
