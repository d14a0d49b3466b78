//! Slices and their index: which positions a slice holds and the number of each.
//!
//! Every position is stored with the side to move as the player (`p`, men moving up): a position
//! with the bot to move is turned 180 degrees with the colours swapped first ([`normalize`]). In
//! that frame side 0 is the side to move and side 1 the other.
//!
//! A slice ([`SliceKey`]) is one material (men and kings of each side) and, for each side that has
//! men, the rank of its most advanced man ("lead", counted from the side's own back row: 0 is the
//! row it starts on, `N - 2` the row before crowning). A move keeps a position in its slice, or
//! captures (fewer pieces), crowns (fewer men) or advances a side's lead: so slices can be solved
//! in an order where every move out of a slice goes to a slice already solved.
//!
//! The index of a position in its slice is, in mixed radix, the ranks of: side 0's men, side 1's
//! men (each a combination of squares in the side's order of advancement, whose last square is on
//! the lead rank), side 0's kings among the squares the men leave free, side 1's kings among the
//! squares left then. Men of the two sides are ranked independently, so indices where they would
//! share a square hold no position ([`position_at`] answers `None`).

use crate::rules::bitboard::{squares, Bits};
use crate::rules::geometry::{row_base, BoardSize, Geometry};
use crate::rules::position::{Position, Side};
use std::fmt;

/// Most pieces a database may hold (sizes the tables below).
pub const MAX_PIECES: usize = 8;
/// Most squares of any board (12x12).
const MAX_SQUARES: usize = 72;

const fn binomials() -> [[u64; MAX_PIECES + 1]; MAX_SQUARES + 1] {
    let mut t = [[0u64; MAX_PIECES + 1]; MAX_SQUARES + 1];
    let mut n = 0;
    while n <= MAX_SQUARES {
        t[n][0] = 1;
        let mut k = 1;
        while k <= MAX_PIECES {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
}

static BINOM: [[u64; MAX_PIECES + 1]; MAX_SQUARES + 1] = binomials();

/// The binomial coefficient `C(n, k)` (0 when `k > n`), for `n <= 72`, `k <= 8`.
#[inline(always)]
pub fn binom(n: usize, k: usize) -> u64 {
    BINOM[n][k]
}

/// A slice: a material and the leading ranks of the men, side 0 to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SliceKey {
    /// Board size.
    pub size: BoardSize,
    /// Men of side 0 (to move) and side 1.
    pub men: [u8; 2],
    /// Kings of side 0 and side 1.
    pub kings: [u8; 2],
    /// Rank of each side's most advanced man, from its own back row (0 when it has no men).
    pub lead: [u8; 2],
}

impl SliceKey {
    /// Pieces on the board.
    pub fn pieces(&self) -> u32 {
        (self.men[0] + self.men[1] + self.kings[0] + self.kings[1]) as u32
    }

    /// The same slice seen from the other side (the slice a move leads to when it stays).
    pub fn flipped(&self) -> SliceKey {
        SliceKey {
            size: self.size,
            men: [self.men[1], self.men[0]],
            kings: [self.kings[1], self.kings[0]],
            lead: [self.lead[1], self.lead[0]],
        }
    }

    fn h(&self) -> usize {
        self.size.n() / 2
    }

    fn men_count(&self, side: usize) -> u64 {
        let (m, l, h) = (self.men[side] as usize, self.lead[side] as usize, self.h());
        if m == 0 {
            1
        } else {
            binom(h * (l + 1), m) - binom(h * l, m)
        }
    }

    fn free(&self) -> usize {
        self.size.squares() - (self.men[0] + self.men[1]) as usize
    }

    /// Number of indices of the slice (including those where men of both sides would overlap).
    pub fn entries(&self) -> u64 {
        let k0 = binom(self.free(), self.kings[0] as usize);
        let k1 = binom(self.free() - self.kings[0] as usize, self.kings[1] as usize);
        self.men_count(0) * self.men_count(1) * k0 * k1
    }

    /// Whether the key describes a slice that exists: men fit behind their lead, leads are 0
    /// without men, and the pieces fit on the board.
    pub fn is_valid(&self) -> bool {
        let h = self.h();
        let max_lead = self.size.n() - 2;
        for s in 0..2 {
            let (m, l) = (self.men[s] as usize, self.lead[s] as usize);
            if (m == 0 && l != 0) || l > max_lead || m > h * (l + 1) {
                return false;
            }
        }
        (self.pieces() as usize) <= MAX_PIECES && self.pieces() as usize <= self.size.squares()
    }

    /// The order slices are solved in: every slice a move leads out to comes earlier.
    pub fn build_order(&self) -> (u32, u32, i32) {
        (
            self.pieces(),
            (self.men[0] + self.men[1]) as u32,
            -((self.lead[0] + self.lead[1]) as i32),
        )
    }

    /// Its file name: `m{men}k{kings}l{lead}` for side 0, then side 1, e.g. `m1k1l3-m0k2l0.cbdb`.
    pub fn file_name(&self) -> String {
        format!(
            "m{}k{}l{}-m{}k{}l{}.cbdb",
            self.men[0], self.kings[0], self.lead[0], self.men[1], self.kings[1], self.lead[1]
        )
    }

    /// A number unique per key of one board size (for tables indexed by slice).
    pub fn slot(&self) -> usize {
        let p = MAX_PIECES + 1;
        let l = 11;
        ((((self.men[0] as usize * p + self.kings[0] as usize) * p + self.men[1] as usize) * p
            + self.kings[1] as usize)
            * l
            + self.lead[0] as usize)
            * l
            + self.lead[1] as usize
    }

    /// Number of different [`SliceKey::slot`] values.
    pub const SLOTS: usize = (MAX_PIECES + 1).pow(4) * 11 * 11;

    /// Every slice of a board size with 1 to `max_pieces` pieces, in build order.
    pub fn all(size: BoardSize, max_pieces: u32) -> Vec<SliceKey> {
        let mut keys = Vec::new();
        let max_lead = (size.n() - 2) as u8;
        let max = max_pieces.min(MAX_PIECES as u32) as u8;
        for m0 in 0..=max {
            for k0 in 0..=max - m0 {
                for m1 in 0..=max - m0 - k0 {
                    for k1 in 0..=max - m0 - k0 - m1 {
                        if m0 + k0 + m1 + k1 == 0 {
                            continue;
                        }
                        for l0 in 0..=max_lead {
                            for l1 in 0..=max_lead {
                                let key = SliceKey {
                                    size,
                                    men: [m0, m1],
                                    kings: [k0, k1],
                                    lead: [l0, l1],
                                };
                                if key.is_valid() {
                                    keys.push(key);
                                }
                            }
                        }
                    }
                }
            }
        }
        keys.sort_by_key(|k| (k.build_order(), *k));
        keys
    }
}

impl fmt::Display for SliceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}m{}k(lead {}) v {}m{}k(lead {})",
            self.size,
            self.men[0],
            self.kings[0],
            self.lead[0],
            self.men[1],
            self.kings[1],
            self.lead[1]
        )
    }
}

/// A position with side 0 to move, as three bit sets in the board's padded layout: side 0's
/// pieces (men move up), side 1's pieces, and the kings of both.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Norm<B: Bits> {
    /// Pieces of the side to move.
    pub me: B,
    /// Pieces of the other side.
    pub opp: B,
    /// Kings of both sides.
    pub kings: B,
}

impl<B: Bits> Norm<B> {
    /// As a position with the player to move (its hash is not computed: the builder does not
    /// need it).
    pub fn position<G: Geometry<B = B>>(&self) -> Position<G> {
        Position {
            pieces: [self.me, self.opp],
            kings: self.kings,
            side: Side::Player,
            hash: 0,
        }
    }
}

/// Turns a set 180 degrees on the board.
#[inline(always)]
pub fn rotate<G: Geometry>(set: G::B) -> G::B {
    set.reverse_low(G::BITS)
}

/// The position with the side to move as side 0 (turned and recoloured when the bot is to move).
#[inline]
pub fn normalize<G: Geometry>(pos: &Position<G>) -> Norm<G::B> {
    match pos.side {
        Side::Player => Norm {
            me: pos.pieces[0],
            opp: pos.pieces[1],
            kings: pos.kings,
        },
        Side::Bot => Norm {
            me: rotate::<G>(pos.pieces[1]),
            opp: rotate::<G>(pos.pieces[0]),
            kings: rotate::<G>(pos.kings),
        },
    }
}

/// The dense number (0..N*N/2, row by row from the top) of a padded bit.
#[inline(always)]
fn dense<G: Geometry>(bit: u32) -> u32 {
    let w = 2 * G::H + 1;
    (bit / w) * 2 * G::H + bit % w
}

/// The padded bit of a dense number.
#[inline(always)]
fn padded<G: Geometry>(d: u32) -> u32 {
    row_base(G::H, d / G::H) + d % G::H
}

/// The men of side 0 seen from side 0's back row (so that their order is their advancement).
#[inline(always)]
fn men_frames<G: Geometry>(n: &Norm<G::B>) -> [G::B; 2] {
    [rotate::<G>(n.me & !n.kings), n.opp & !n.kings]
}

/// The slice of a normalized position.
#[inline]
pub fn key_of<G: Geometry>(n: &Norm<G::B>) -> SliceKey {
    let men = men_frames::<G>(n);
    let mut lead = [0u8; 2];
    for s in 0..2 {
        if !men[s].is_empty() {
            let top = G::B::WIDTH - 1 - leading_zeros(men[s]);
            lead[s] = (dense::<G>(top) / G::H) as u8;
        }
    }
    SliceKey {
        size: G::SIZE,
        men: [men[0].popcount() as u8, men[1].popcount() as u8],
        kings: [
            (n.me & n.kings).popcount() as u8,
            (n.opp & n.kings).popcount() as u8,
        ],
        lead,
    }
}

#[inline(always)]
fn leading_zeros<B: Bits>(b: B) -> u32 {
    let v = b.to_u128();
    v.leading_zeros() - (128 - B::WIDTH)
}

/// The colex rank of a set of dense numbers, each first lowered by the number of `skip` squares
/// below it.
#[inline(always)]
fn rank_set(set: u128, skip: u128) -> u64 {
    let mut r = 0;
    let mut i = 1;
    let mut s = set;
    while s != 0 {
        let d = s.trailing_zeros();
        s &= s - 1;
        let below = (skip & ((1u128 << d) - 1)).count_ones();
        r += binom((d - below) as usize, i);
        i += 1;
    }
    r
}

/// The dense set of a padded set.
#[inline(always)]
fn dense_set<G: Geometry>(set: G::B) -> u128 {
    let mut out = 0u128;
    for sq in squares(set) {
        out |= 1u128 << dense::<G>(sq.0 as u32);
    }
    out
}

/// The index of a normalized position in its slice `key` (which must be [`key_of`] it).
#[inline]
pub fn index_of<G: Geometry>(key: &SliceKey, n: &Norm<G::B>) -> u64 {
    let h = G::H as usize;
    let men = men_frames::<G>(n);
    let mut idx = 0u64;
    for (s, &set) in men.iter().enumerate() {
        let m = key.men[s] as usize;
        let r = if m == 0 {
            0
        } else {
            rank_set(dense_set::<G>(set), 0) - binom(h * key.lead[s] as usize, m)
        };
        idx = idx * key.men_count(s) + r;
    }
    let men_dense = dense_set::<G>(n.me & !n.kings) | dense_set::<G>(n.opp & !n.kings);
    let k0 = dense_set::<G>(n.me & n.kings);
    let k1 = dense_set::<G>(n.opp & n.kings);
    let free = key.free();
    idx = idx * binom(free, key.kings[0] as usize) + rank_set(k0, men_dense);
    idx = idx * binom(free - key.kings[0] as usize, key.kings[1] as usize)
        + rank_set(k1, men_dense | k0);
    idx
}

/// The slice and index of any position.
#[inline]
pub fn locate<G: Geometry>(pos: &Position<G>) -> (SliceKey, u64) {
    let n = normalize(pos);
    let key = key_of::<G>(&n);
    let idx = index_of::<G>(&key, &n);
    (key, idx)
}

/// The `k` numbers below `limit` of colex rank `r`, highest first, as a bit set.
fn unrank_set(mut r: u64, k: usize, limit: usize) -> u128 {
    let mut set = 0u128;
    let mut c = limit;
    for i in (1..=k).rev() {
        // The largest c with C(c, i) <= r.
        c -= 1;
        while binom(c, i) > r {
            c -= 1;
        }
        r -= binom(c, i);
        set |= 1u128 << c;
    }
    set
}

/// The `k`-th lowest position (0-based) of a bit among the squares not in `skip`.
fn expand(reduced: u128, skip: u128, squares: usize) -> u128 {
    let mut out = 0u128;
    let mut j = 0;
    for d in 0..squares {
        if skip >> d & 1 == 1 {
            continue;
        }
        if reduced >> j & 1 == 1 {
            out |= 1u128 << d;
        }
        j += 1;
    }
    out
}

fn padded_set<G: Geometry>(dense_set: u128) -> G::B {
    let mut out = G::B::ZERO;
    let mut s = dense_set;
    while s != 0 {
        let d = s.trailing_zeros();
        s &= s - 1;
        out |= G::B::bit(padded::<G>(d));
    }
    out
}

/// The position at an index of a slice (side 0 to move), or `None` where the men of the two
/// sides would share a square.
pub fn position_at<G: Geometry>(key: &SliceKey, idx: u64) -> Option<Norm<G::B>> {
    let h = G::H as usize;
    let squares = key.size.squares();
    let free = key.free();
    let c1 = binom(free - key.kings[0] as usize, key.kings[1] as usize);
    let c0 = binom(free, key.kings[0] as usize);
    let mut rest = idx;
    let r_k1 = rest % c1;
    rest /= c1;
    let r_k0 = rest % c0;
    rest /= c0;
    let n1 = key.men_count(1);
    let r_m1 = rest % n1;
    let r_m0 = rest / n1;
    let mut men = [0u128; 2];
    for (s, r) in [(0usize, r_m0), (1, r_m1)] {
        let m = key.men[s] as usize;
        if m > 0 {
            let l = key.lead[s] as usize;
            men[s] = unrank_set(r + binom(h * l, m), m, h * (l + 1));
        }
    }
    let me_men = rotate::<G>(padded_set::<G>(men[0]));
    let opp_men = padded_set::<G>(men[1]);
    if !(me_men & opp_men).is_empty() {
        return None;
    }
    let men_dense = dense_set::<G>(me_men | opp_men);
    let k0 = expand(
        unrank_set(r_k0, key.kings[0] as usize, free),
        men_dense,
        squares,
    );
    let k1 = expand(
        unrank_set(r_k1, key.kings[1] as usize, free - key.kings[0] as usize),
        men_dense | k0,
        squares,
    );
    let k0 = padded_set::<G>(k0);
    let k1 = padded_set::<G>(k1);
    Some(Norm {
        me: me_men | k0,
        opp: opp_men | k1,
        kings: k0 | k1,
    })
}

/// Number of positions of a slice (indices where the men do not overlap).
pub fn valid_positions(key: &SliceKey) -> u64 {
    let h = key.size.n() / 2;
    let (m0, m1) = (key.men[0] as usize, key.men[1] as usize);
    let kings = key.entries() / (key.men_count(0) * key.men_count(1));
    if m0 == 0 || m1 == 0 {
        return key.entries();
    }
    // Count pairs of men sets without a shared square by walking side 0's sets.
    let mut pairs = 0u64;
    let l0 = key.lead[0] as usize;
    let l1 = key.lead[1] as usize;
    let n = key.size.n();
    for r in 0..key.men_count(0) {
        let set0 = unrank_set(r + binom(h * l0, m0), m0, h * (l0 + 1));
        // Side 0's men in side 1's frame: turning the board maps rank a to n - 1 - a and
        // square k of a row to h - 1 - k; count side 1's sets avoiding them.
        let mut blocked_rows = [0usize; 12];
        let mut s = set0;
        while s != 0 {
            let d = s.trailing_zeros() as usize;
            s &= s - 1;
            blocked_rows[n - 1 - d / h] += 1;
        }
        // Side 1's sets: all within ranks 0..=l1 with at least one on rank l1.
        let below: usize = (0..l1).map(|a| h - blocked_rows[a]).sum();
        let at = h - blocked_rows[l1];
        pairs += binom(below + at, m1) - binom(below, m1);
    }
    pairs * kings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::geometry::{G10, G12, G4, G6, G8};

    fn round_trip<G: Geometry>(max: u32) {
        for key in SliceKey::all(G::SIZE, max) {
            let mut valid = 0;
            let step = (key.entries() / 500).max(1);
            let mut i = 0;
            while i < key.entries() {
                if let Some(n) = position_at::<G>(&key, i) {
                    valid += 1;
                    assert_eq!(key_of::<G>(&n), key, "{key} index {i}");
                    assert_eq!(index_of::<G>(&key, &n), i, "{key}");
                    let p: Position<G> = n.position();
                    assert_eq!(
                        p.pieces[0].popcount() + p.pieces[1].popcount(),
                        key.pieces()
                    );
                    // The turned position with the bot to move normalizes back.
                    let turned = Position::<G> {
                        pieces: [rotate::<G>(n.opp), rotate::<G>(n.me)],
                        kings: rotate::<G>(n.kings),
                        side: Side::Bot,
                        hash: 0,
                    };
                    assert_eq!(normalize(&turned), n);
                    let mut q = p;
                    q.hash = q.compute_hash();
                    assert!(q.is_consistent(), "{key} index {i}");
                }
                i += step;
            }
            if step == 1 {
                assert_eq!(valid, valid_positions(&key), "{key}");
            }
        }
    }

    #[test]
    fn indices_round_trip_on_every_size() {
        round_trip::<G4>(4);
        round_trip::<G6>(3);
        round_trip::<G8>(3);
        round_trip::<G10>(2);
        round_trip::<G12>(2);
    }

    #[test]
    fn published_counts_on_8x8() {
        let expected = [120u64, 6_972, 261_224, 7_092_774];
        for (k, want) in expected.iter().enumerate() {
            let pieces = k as u32 + 1;
            let got: u64 = SliceKey::all(BoardSize::S8, pieces)
                .iter()
                .filter(|s| s.pieces() == pieces)
                .map(valid_positions)
                .sum();
            assert_eq!(got, *want, "{pieces} pieces");
        }
    }
}
