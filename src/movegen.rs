//! Legal move generation (American rules on every board size) and perft.
//!
//! Captures are mandatory, but any capture sequence may be chosen (no majority rule). A capture
//! continues while the same piece can keep jumping; a piece is never jumped twice; a man that reaches
//! the far row is crowned and its move ends there. Men step and capture forward only; kings step and
//! capture one square at a time in all four directions. During a multi-jump the moving piece's
//! start square counts as empty, so a king may pass through it or finish on it.
//!
//! Every capture path is a separate move, even when two paths take the same pieces and end on the
//! same square: this is what the published perft figures count.

use crate::bitboard::{squares, Bits};
use crate::geometry::{Geometry, Square};
use crate::position::{shift, step_index, Move, Position, Side};

/// Somewhere to put generated moves: a `Vec`, or a counter for perft's bulk counting.
pub trait MoveSink<B: Bits> {
    /// Takes one generated move.
    fn push(&mut self, mv: Move<B>);
}

impl<B: Bits> MoveSink<B> for Vec<Move<B>> {
    #[inline(always)]
    fn push(&mut self, mv: Move<B>) {
        Vec::push(self, mv);
    }
}

/// Counts moves without storing them.
#[derive(Debug, Default)]
pub struct Counter(pub u64);

impl<B: Bits> MoveSink<B> for Counter {
    #[inline(always)]
    fn push(&mut self, _mv: Move<B>) {
        self.0 += 1;
    }
}

/// The two forward directions of a side's men.
#[inline(always)]
fn forward(side: Side) -> [usize; 2] {
    match side {
        Side::Player => [0, 1],
        Side::Bot => [2, 3],
    }
}

/// The opposite direction.
#[inline(always)]
fn reverse(d: usize) -> usize {
    3 - d
}

impl<G: Geometry> Position<G> {
    /// The row where the side to move crowns its men.
    #[inline(always)]
    fn crown_row(&self) -> G::B {
        match self.side {
            Side::Player => G::TOP,
            Side::Bot => G::BOTTOM,
        }
    }

    /// Pieces of the side to move that can capture in direction `d` (men and kings given apart).
    #[inline(always)]
    fn jumpers(&self, movers: G::B, d: usize) -> G::B {
        let opp = self.pieces[self.side.opponent().index()];
        let r = reverse(d);
        shift::<G>(shift::<G>(self.empty_squares(), r) & opp, r) & movers
    }

    /// Men and kings of the side to move that have a capture.
    #[inline(always)]
    fn capturers(&self) -> (G::B, G::B) {
        let me = self.side;
        let men = self.men(me);
        let kings = self.kings_of(me);
        let [f0, f1] = forward(me);
        let mut men_j = self.jumpers(men, f0) | self.jumpers(men, f1);
        let mut kings_j = G::B::ZERO;
        if !kings.is_empty() {
            for d in 0..4 {
                kings_j |= self.jumpers(kings, d);
            }
        }
        men_j &= men;
        kings_j &= kings;
        (men_j, kings_j)
    }

    /// Whether the side to move has a capture (and so must capture).
    pub fn has_capture(&self) -> bool {
        let (m, k) = self.capturers();
        !(m | k).is_empty()
    }

    /// Puts every legal move into `out` (cleared first).
    pub fn generate(&self, out: &mut Vec<Move<G::B>>) {
        out.clear();
        self.generate_into(out);
    }

    /// Every legal move, in a new vector.
    pub fn legal_moves(&self) -> Vec<Move<G::B>> {
        let mut v = Vec::with_capacity(32);
        self.generate_into(&mut v);
        v
    }

    /// Generates every legal move into a sink.
    #[inline]
    pub fn generate_into<S: MoveSink<G::B>>(&self, sink: &mut S) {
        let (men_j, kings_j) = self.capturers();
        if !(men_j | kings_j).is_empty() {
            self.generate_captures(sink, men_j, kings_j);
        } else {
            self.generate_steps(sink);
        }
    }

    /// Generates only the captures (all legal moves when a capture exists, none otherwise).
    pub fn generate_captures_only(&self, out: &mut Vec<Move<G::B>>) {
        out.clear();
        let (men_j, kings_j) = self.capturers();
        if !(men_j | kings_j).is_empty() {
            self.generate_captures(out, men_j, kings_j);
        }
    }

    /// Number of legal moves; faster than generating them when there is no capture.
    #[inline]
    pub fn count_moves(&self) -> u64 {
        let (men_j, kings_j) = self.capturers();
        if !(men_j | kings_j).is_empty() {
            let mut c = Counter(0);
            self.generate_captures(&mut c, men_j, kings_j);
            return c.0;
        }
        let empty = self.empty_squares();
        let me = self.side;
        let men = self.men(me);
        let kings = self.kings_of(me);
        let [f0, f1] = forward(me);
        let mut n =
            (shift::<G>(men, f0) & empty).popcount() + (shift::<G>(men, f1) & empty).popcount();
        if !kings.is_empty() {
            for d in 0..4 {
                n += (shift::<G>(kings, d) & empty).popcount();
            }
        }
        n as u64
    }

    fn generate_steps<S: MoveSink<G::B>>(&self, sink: &mut S) {
        let empty = self.empty_squares();
        let me = self.side;
        let men = self.men(me);
        let kings = self.kings_of(me);
        let crown = self.crown_row();
        for d in forward(me) {
            for to in squares(shift::<G>(men, d) & empty) {
                let from = step_index::<G>(to.0 as u32, reverse(d));
                sink.push(Move {
                    from: Square(from as u8),
                    to,
                    captured: G::B::ZERO,
                    dirs: 0,
                    jumps: 0,
                    crowns: crown.has(to.0 as u32),
                });
            }
        }
        if !kings.is_empty() {
            for d in 0..4 {
                for to in squares(shift::<G>(kings, d) & empty) {
                    let from = step_index::<G>(to.0 as u32, reverse(d));
                    sink.push(Move {
                        from: Square(from as u8),
                        to,
                        captured: G::B::ZERO,
                        dirs: 0,
                        jumps: 0,
                        crowns: false,
                    });
                }
            }
        }
    }

    fn generate_captures<S: MoveSink<G::B>>(&self, sink: &mut S, men_j: G::B, kings_j: G::B) {
        let opp = self.pieces[self.side.opponent().index()];
        let empty = self.empty_squares();
        let crown = self.crown_row();
        let fwd = forward(self.side);
        for sq in squares(men_j) {
            let b = G::B::bit(sq.0 as u32);
            let mut walk = JumpWalk::<G, S> {
                sink,
                from: sq,
                fwd,
                crown,
            };
            walk.extend::<false>(b, opp, empty | b, G::B::ZERO, 0, 0);
        }
        for sq in squares(kings_j) {
            let b = G::B::bit(sq.0 as u32);
            let mut walk = JumpWalk::<G, S> {
                sink,
                from: sq,
                fwd,
                crown,
            };
            walk.extend::<true>(b, opp, empty | b, G::B::ZERO, 0, 0);
        }
    }
}

/// Depth-first walk over the capture sequences of one piece.
struct JumpWalk<'a, G: Geometry, S: MoveSink<G::B>> {
    sink: &'a mut S,
    from: Square,
    fwd: [usize; 2],
    crown: G::B,
}

impl<G: Geometry, S: MoveSink<G::B>> JumpWalk<'_, G, S> {
    /// Extends a sequence standing on `cur` after `n` jumps; emits it when it cannot go on.
    fn extend<const KING: bool>(
        &mut self,
        cur: G::B,
        opp: G::B,
        empty: G::B,
        captured: G::B,
        dirs: u64,
        n: u8,
    ) {
        let mut extended = false;
        if KING {
            for d in 0..4 {
                extended |= self.try_jump::<KING>(d, cur, opp, empty, captured, dirs, n);
            }
        } else {
            let [d0, d1] = self.fwd;
            extended |= self.try_jump::<KING>(d0, cur, opp, empty, captured, dirs, n);
            extended |= self.try_jump::<KING>(d1, cur, opp, empty, captured, dirs, n);
        }
        if !extended && n > 0 {
            self.sink.push(Move {
                from: self.from,
                to: Square(cur.lowest() as u8),
                captured,
                dirs,
                jumps: n,
                crowns: false,
            });
        }
    }

    /// Tries one jump from `cur` in direction `d`; returns whether it was possible.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn try_jump<const KING: bool>(
        &mut self,
        d: usize,
        cur: G::B,
        opp: G::B,
        empty: G::B,
        captured: G::B,
        dirs: u64,
        n: u8,
    ) -> bool {
        let over = shift::<G>(cur, d) & opp;
        if over.is_empty() {
            return false;
        }
        let land = shift::<G>(over, d) & empty;
        if land.is_empty() {
            return false;
        }
        let nd = dirs | ((d as u64) << (2 * n as u32));
        if !KING && !(land & self.crown).is_empty() {
            // A man reaching the far row is crowned and its move ends.
            self.sink.push(Move {
                from: self.from,
                to: Square(land.lowest() as u8),
                captured: captured | over,
                dirs: nd,
                jumps: n + 1,
                crowns: true,
            });
        } else {
            self.extend::<KING>(
                land,
                opp & !over,
                (empty & !land) | cur,
                captured | over,
                nd,
                n + 1,
            );
        }
        true
    }
}

/// Leaf count of the move tree to `depth` plies, counting the last ply without making its moves.
pub fn perft<G: Geometry>(pos: &Position<G>, depth: u32) -> u64 {
    let mut bufs: Vec<Vec<Move<G::B>>> = (0..depth).map(|_| Vec::with_capacity(64)).collect();
    perft_with(pos, depth, &mut bufs)
}

fn perft_with<G: Geometry>(pos: &Position<G>, depth: u32, bufs: &mut [Vec<Move<G::B>>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.count_moves();
    }
    let Some((buf, rest)) = bufs.split_first_mut() else {
        return 0;
    };
    pos.generate(buf);
    let mut total = 0;
    for mv in buf.iter() {
        total += perft_with(&pos.play_unhashed(mv), depth - 1, rest);
    }
    total
}

/// Leaf counts below each root move (`perft --divide`), in generation order.
pub fn perft_divide<G: Geometry>(pos: &Position<G>, depth: u32) -> Vec<(Move<G::B>, u64)> {
    let moves = pos.legal_moves();
    moves
        .into_iter()
        .map(|m| {
            let n = if depth <= 1 {
                1
            } else {
                perft(&pos.play(&m), depth - 1)
            };
            (m, n)
        })
        .collect()
}
