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
//!
//! # How it is made fast
//!
//! The code is specialised by side to move ([`Turn`]): forward directions and the crowning row are
//! constants. Shifts are not masked with the valid squares: in the padded layout a step from a valid
//! square lands on a ghost bit or past the board when it leaves the board, and every shifted set is
//! intersected with a set that holds only valid squares (own pieces, opponent pieces or empty
//! squares), which drops those bits. Only the empty set is built with the mask.
//!
//! [`perft`] does not build [`Move`]s: it walks the tree on three bit sets (side to move, opponent,
//! kings), makes steps with two xors, and counts the last ply in bulk ([`Position::count_moves`]).

use crate::rules::bitboard::{squares, Bits};
use crate::rules::geometry::{Geometry, Square};
use crate::rules::position::{Move, Position, Side};

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

/// A diagonal step of a whole set in direction `d` (0 up-left, 1 up-right, 2 down-left,
/// 3 down-right), not masked: bits that leave the board land on ghost bits or past the board, and
/// the caller drops them by intersecting with a set of valid squares.
#[inline(always)]
fn sh<G: Geometry>(set: G::B, d: usize) -> G::B {
    match d {
        0 => set >> (G::H + 1),
        1 => set >> G::H,
        2 => set << G::H,
        _ => set << (G::H + 1),
    }
}

/// The opposite direction.
#[inline(always)]
const fn rev(d: usize) -> usize {
    3 - d
}

/// The lowest square of a non-empty set, as a set.
#[inline(always)]
fn low<B: Bits>(set: B) -> B {
    set ^ set.clear_lowest()
}

/// The side to move as a type, so that its directions and crowning row are constants.
trait Turn {
    /// The other side.
    type Next: Turn;
    /// Index of the side's pieces in [`Position::pieces`].
    const ME: usize;
    /// The two forward directions (men step and jump only these ways).
    const F0: usize;
    const F1: usize;
    /// The two backward directions (kings only).
    const B0: usize;
    const B1: usize;

    /// The row where this side's men are crowned.
    #[inline(always)]
    fn crown<G: Geometry>() -> G::B {
        if Self::ME == Side::Bot as usize {
            G::BOTTOM
        } else {
            G::TOP
        }
    }
}

/// The player (`p`) to move: men go up.
struct PlayerTurn;
/// The bot (`b`) to move: men go down.
struct BotTurn;

impl Turn for PlayerTurn {
    type Next = BotTurn;
    const ME: usize = Side::Player as usize;
    const F0: usize = 0;
    const F1: usize = 1;
    const B0: usize = 2;
    const B1: usize = 3;
}

impl Turn for BotTurn {
    type Next = PlayerTurn;
    const ME: usize = Side::Bot as usize;
    const F0: usize = 2;
    const F1: usize = 3;
    const B0: usize = 0;
    const B1: usize = 1;
}

/// Squares from which a piece can jump in direction `d`: an opponent piece next to it that way and
/// an empty square behind that piece.
#[inline(always)]
fn jump_from<G: Geometry>(opp: G::B, empty: G::B, d: usize) -> G::B {
    sh::<G>(opp & sh::<G>(empty, rev(d)), rev(d))
}

/// Men and kings of the side to move (`me`) that have a capture.
#[inline(always)]
fn jumpers<G: Geometry, T: Turn>(me: G::B, opp: G::B, kings: G::B, empty: G::B) -> (G::B, G::B) {
    let fwd = me & (jump_from::<G>(opp, empty, T::F0) | jump_from::<G>(opp, empty, T::F1));
    let my_kings = me & kings;
    let mut kj = fwd & kings;
    if !my_kings.is_empty() {
        kj |= my_kings & (jump_from::<G>(opp, empty, T::B0) | jump_from::<G>(opp, empty, T::B1));
    }
    (fwd & !kings, kj)
}

/// Number of legal moves of the side to move (`me`).
#[inline(always)]
fn count_node<G: Geometry, T: Turn>(me: G::B, opp: G::B, kings: G::B) -> u64 {
    let empty = G::VALID & !(me | opp);
    // Squares whose neighbour in a forward direction is empty: steps start there, and a jump over
    // an opponent piece there lands on it.
    let e0 = sh::<G>(empty, rev(T::F0));
    let e1 = sh::<G>(empty, rev(T::F1));
    let my_kings = me & kings;
    let jf0 = sh::<G>(opp & e0, rev(T::F0));
    let jf1 = sh::<G>(opp & e1, rev(T::F1));
    let fwd = me & (jf0 | jf1);
    if my_kings.is_empty() {
        if !fwd.is_empty() {
            return count_captures::<G, T>(opp, empty, jf0, jf1, fwd, G::B::ZERO);
        }
        return ((me & e0).popcount() + (me & e1).popcount()) as u64;
    }
    let b0 = sh::<G>(empty, rev(T::B0));
    let b1 = sh::<G>(empty, rev(T::B1));
    let back = my_kings & (sh::<G>(opp & b0, rev(T::B0)) | sh::<G>(opp & b1, rev(T::B1)));
    if !(fwd | back).is_empty() {
        let men_j = fwd & !kings;
        let kings_j = (fwd | back) & kings;
        return count_captures::<G, T>(opp, empty, jf0, jf1, men_j, kings_j);
    }
    ((me & e0).popcount()
        + (me & e1).popcount()
        + (my_kings & b0).popcount()
        + (my_kings & b1).popcount()) as u64
}

/// Counts the capture sequences of the given men and kings.
///
/// A man only ever jumps forward, so the pieces it has already taken and the square it left are
/// behind it and never matter again: its sequences depend on the board as it is. Each man's first
/// jumps are counted in bulk; only a landing square where it can jump again is walked.
#[inline(never)]
fn count_captures<G: Geometry, T: Turn>(
    opp: G::B,
    empty: G::B,
    jf0: G::B,
    jf1: G::B,
    men_j: G::B,
    kings_j: G::B,
) -> u64 {
    let cont = (jf0 | jf1) & !T::crown::<G>();
    let l0 = sh::<G>(sh::<G>(men_j & jf0, T::F0), T::F0);
    let l1 = sh::<G>(sh::<G>(men_j & jf1, T::F1), T::F1);
    let mut n = (l0.popcount() + l1.popcount()) as u64;
    let mut again = (l0 & cont, l1 & cont);
    for set in [&mut again.0, &mut again.1] {
        while !set.is_empty() {
            n += man_paths::<G, T>(low(*set), jf0, jf1, cont) - 1;
            *set = set.clear_lowest();
        }
    }
    if !kings_j.is_empty() {
        let mut c = CountEnd(0);
        let mut ks = kings_j;
        while !ks.is_empty() {
            let from = low(ks);
            ks = ks.clear_lowest();
            walk::<G, T, true, _>(&mut c, from, opp, empty | from, G::B::ZERO, 0, 0);
        }
        n += c.0;
    }
    n
}

/// Number of capture sequences of a man standing on `at` that can jump again (`at` is in `cont`).
fn man_paths<G: Geometry, T: Turn>(at: G::B, jf0: G::B, jf1: G::B, cont: G::B) -> u64 {
    let mut n = 0;
    for (jf, d) in [(jf0, T::F0), (jf1, T::F1)] {
        if !(at & jf).is_empty() {
            let land = sh::<G>(sh::<G>(at, d), d);
            n += if (land & cont).is_empty() {
                1
            } else {
                man_paths::<G, T>(land, jf0, jf1, cont)
            };
        }
    }
    n
}

/// Runs the capture walk of every given man and king.
#[inline(always)]
fn walk_all<G: Geometry, T: Turn, E: JumpEnd<G>>(
    e: &mut E,
    opp: G::B,
    empty: G::B,
    men_j: G::B,
    kings_j: G::B,
) {
    let mut men = men_j;
    while !men.is_empty() {
        let from = low(men);
        men = men.clear_lowest();
        e.start(from);
        walk::<G, T, false, E>(e, from, opp, empty | from, G::B::ZERO, 0, 0);
    }
    let mut ks = kings_j;
    while !ks.is_empty() {
        let from = low(ks);
        ks = ks.clear_lowest();
        e.start(from);
        walk::<G, T, true, E>(e, from, opp, empty | from, G::B::ZERO, 0, 0);
    }
}

/// What to do with each complete capture sequence found by [`walk`].
trait JumpEnd<G: Geometry> {
    /// A new piece starts jumping from `from`.
    fn start(&mut self, from: G::B);
    /// A complete sequence of the current piece: landing square, captured pieces, directions (two
    /// bits per jump), number of jumps, and whether a man is crowned.
    fn end<const KING: bool>(
        &mut self,
        to: G::B,
        captured: G::B,
        dirs: u64,
        jumps: u8,
        crowns: bool,
    );
}

/// Counts sequences.
struct CountEnd(u64);

impl<G: Geometry> JumpEnd<G> for CountEnd {
    #[inline(always)]
    fn start(&mut self, _from: G::B) {}
    #[inline(always)]
    fn end<const KING: bool>(&mut self, _: G::B, _: G::B, _: u64, _: u8, _: bool) {
        self.0 += 1;
    }
}

/// Depth-first walk over the capture sequences of one piece standing on `cur` after `n` jumps.
/// `opp` holds the opponent pieces not yet captured, `empty` the squares the piece may land on.
fn walk<G: Geometry, T: Turn, const KING: bool, E: JumpEnd<G>>(
    e: &mut E,
    cur: G::B,
    opp: G::B,
    empty: G::B,
    captured: G::B,
    dirs: u64,
    n: u8,
) {
    let mut extended = false;
    extended |= try_jump::<G, T, KING, E>(e, T::F0, cur, opp, empty, captured, dirs, n);
    extended |= try_jump::<G, T, KING, E>(e, T::F1, cur, opp, empty, captured, dirs, n);
    if KING {
        extended |= try_jump::<G, T, KING, E>(e, T::B0, cur, opp, empty, captured, dirs, n);
        extended |= try_jump::<G, T, KING, E>(e, T::B1, cur, opp, empty, captured, dirs, n);
    }
    if !extended && n > 0 {
        e.end::<KING>(cur, captured, dirs, n, false);
    }
}

/// Tries one jump from `cur` in direction `d`; returns whether it was possible.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn try_jump<G: Geometry, T: Turn, const KING: bool, E: JumpEnd<G>>(
    e: &mut E,
    d: usize,
    cur: G::B,
    opp: G::B,
    empty: G::B,
    captured: G::B,
    dirs: u64,
    n: u8,
) -> bool {
    let over = sh::<G>(cur, d) & opp;
    if over.is_empty() {
        return false;
    }
    let land = sh::<G>(over, d) & empty;
    if land.is_empty() {
        return false;
    }
    let nd = dirs | ((d as u64) << (2 * n as u32));
    if !KING && !(land & T::crown::<G>()).is_empty() {
        // A man reaching the far row is crowned and its move ends.
        e.end::<KING>(land, captured | over, nd, n + 1, true);
    } else {
        walk::<G, T, KING, E>(
            e,
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

/// Turns capture sequences into [`Move`]s.
struct MoveEnd<'a, S> {
    sink: &'a mut S,
    from: Square,
}

impl<G: Geometry, S: MoveSink<G::B>> JumpEnd<G> for MoveEnd<'_, S> {
    #[inline(always)]
    fn start(&mut self, from: G::B) {
        self.from = Square(from.lowest() as u8);
    }
    #[inline(always)]
    fn end<const KING: bool>(
        &mut self,
        to: G::B,
        captured: G::B,
        dirs: u64,
        jumps: u8,
        crowns: bool,
    ) {
        self.sink.push(Move {
            from: self.from,
            to: Square(to.lowest() as u8),
            captured,
            dirs,
            jumps,
            crowns,
        });
    }
}

impl<G: Geometry> Position<G> {
    /// Whether the side to move has a capture (and so must capture).
    pub fn has_capture(&self) -> bool {
        fn go<G: Geometry, T: Turn>(p: &Position<G>) -> bool {
            let me = p.pieces[T::ME];
            let opp = p.pieces[1 - T::ME];
            let (m, k) = jumpers::<G, T>(me, opp, p.kings, p.empty_squares());
            !(m | k).is_empty()
        }
        match self.side {
            Side::Player => go::<G, PlayerTurn>(self),
            Side::Bot => go::<G, BotTurn>(self),
        }
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
        match self.side {
            Side::Player => self.gen::<PlayerTurn, S, false>(sink),
            Side::Bot => self.gen::<BotTurn, S, false>(sink),
        }
    }

    /// Generates only the captures (all legal moves when a capture exists, none otherwise).
    pub fn generate_captures_only(&self, out: &mut Vec<Move<G::B>>) {
        out.clear();
        match self.side {
            Side::Player => self.gen::<PlayerTurn, _, true>(out),
            Side::Bot => self.gen::<BotTurn, _, true>(out),
        }
    }

    /// Number of legal moves; faster than generating them when there is no capture.
    #[inline]
    pub fn count_moves(&self) -> u64 {
        match self.side {
            Side::Player => count_node::<G, PlayerTurn>(self.pieces[0], self.pieces[1], self.kings),
            Side::Bot => count_node::<G, BotTurn>(self.pieces[1], self.pieces[0], self.kings),
        }
    }

    /// Generates the legal moves (only captures if `CAPTURES_ONLY`) of side `T`, which is to move.
    #[inline(always)]
    fn gen<T: Turn, S: MoveSink<G::B>, const CAPTURES_ONLY: bool>(&self, sink: &mut S) {
        let me = self.pieces[T::ME];
        let opp = self.pieces[1 - T::ME];
        let kings = self.kings;
        let empty = self.empty_squares();
        let (men_j, kings_j) = jumpers::<G, T>(me, opp, kings, empty);
        if !(men_j | kings_j).is_empty() {
            let mut e = MoveEnd {
                sink,
                from: Square(0),
            };
            walk_all::<G, T, _>(&mut e, opp, empty, men_j, kings_j);
            return;
        }
        if CAPTURES_ONLY {
            return;
        }
        let men = me & !kings;
        let crown = T::crown::<G>();
        for d in [T::F0, T::F1] {
            for to in squares(sh::<G>(men, d) & empty) {
                let from = sh::<G>(G::B::bit(to.0 as u32), rev(d));
                sink.push(Move {
                    from: Square(from.lowest() as u8),
                    to,
                    captured: G::B::ZERO,
                    dirs: 0,
                    jumps: 0,
                    crowns: crown.has(to.0 as u32),
                });
            }
        }
        let my_kings = me & kings;
        if !my_kings.is_empty() {
            for d in 0..4 {
                for to in squares(sh::<G>(my_kings, d) & empty) {
                    let from = sh::<G>(G::B::bit(to.0 as u32), rev(d));
                    sink.push(Move {
                        from: Square(from.lowest() as u8),
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
}

/// Perft's capture handling: makes each capture sequence and counts the subtree below it.
struct PerftEnd<G: Geometry, T: Turn> {
    me: G::B,
    opp: G::B,
    kings: G::B,
    from: G::B,
    depth: u32,
    total: u64,
    _turn: std::marker::PhantomData<T>,
}

impl<G: Geometry, T: Turn> JumpEnd<G> for PerftEnd<G, T> {
    #[inline(always)]
    fn start(&mut self, from: G::B) {
        self.from = from;
    }
    #[inline(always)]
    fn end<const KING: bool>(&mut self, to: G::B, captured: G::B, _: u64, _: u8, crowns: bool) {
        // `from ^ to` also works when a king ends where it started.
        let moved = self.from ^ to;
        let kings = if KING {
            self.kings ^ moved
        } else if crowns {
            self.kings | to
        } else {
            self.kings
        };
        self.total += child::<G, T::Next>(
            self.opp & !captured,
            self.me ^ moved,
            kings & !captured,
            self.depth,
        );
    }
}

/// Leaf count of the subtree of a child position (`me` is the side to move there), `depth >= 1`.
#[inline(always)]
fn child<G: Geometry, T: Turn>(me: G::B, opp: G::B, kings: G::B, depth: u32) -> u64 {
    if depth == 1 {
        count_node::<G, T>(me, opp, kings)
    } else {
        perft_node::<G, T>(me, opp, kings, depth)
    }
}

/// Leaf count below a position where side `T` (pieces `me`) is to move, `depth >= 2`.
fn perft_node<G: Geometry, T: Turn>(me: G::B, opp: G::B, kings: G::B, depth: u32) -> u64 {
    let empty = G::VALID & !(me | opp);
    let (men_j, kings_j) = jumpers::<G, T>(me, opp, kings, empty);
    if !(men_j | kings_j).is_empty() {
        let mut e = PerftEnd::<G, T> {
            me,
            opp,
            kings,
            from: G::B::ZERO,
            depth: depth - 1,
            total: 0,
            _turn: std::marker::PhantomData,
        };
        let crown = T::crown::<G>();
        let jf0 = jump_from::<G>(opp, empty, T::F0);
        let jf1 = jump_from::<G>(opp, empty, T::F1);
        let cont = (jf0 | jf1) & !crown;
        for (jf, d) in [(jf0, T::F0), (jf1, T::F1)] {
            let mut src = men_j & jf;
            while !src.is_empty() {
                let from = low(src);
                src = src.clear_lowest();
                let over = sh::<G>(from, d);
                let land = sh::<G>(over, d);
                e.from = from;
                if (land & cont).is_empty() {
                    e.end::<false>(land, over, d as u64, 1, !(land & crown).is_empty());
                } else {
                    walk::<G, T, false, _>(&mut e, land, opp & !over, empty, over, d as u64, 1);
                }
            }
        }
        let mut ks = kings_j;
        while !ks.is_empty() {
            let from = low(ks);
            ks = ks.clear_lowest();
            e.from = from;
            walk::<G, T, true, _>(&mut e, from, opp, empty | from, G::B::ZERO, 0, 0);
        }
        return e.total;
    }
    let mut total = 0;
    let men = me & !kings;
    let crown = T::crown::<G>();
    for d in [T::F0, T::F1] {
        let mut targets = sh::<G>(men, d) & empty;
        while !targets.is_empty() {
            let to = low(targets);
            targets = targets.clear_lowest();
            let moved = to | sh::<G>(to, rev(d));
            total += child::<G, T::Next>(opp, me ^ moved, kings | (to & crown), depth - 1);
        }
    }
    let my_kings = me & kings;
    if !my_kings.is_empty() {
        for d in 0..4 {
            let mut targets = sh::<G>(my_kings, d) & empty;
            while !targets.is_empty() {
                let to = low(targets);
                targets = targets.clear_lowest();
                let moved = to | sh::<G>(to, rev(d));
                total += child::<G, T::Next>(opp, me ^ moved, kings ^ moved, depth - 1);
            }
        }
    }
    total
}

/// Leaf count of the move tree to `depth` plies, counting the last ply without making its moves.
pub fn perft<G: Geometry>(pos: &Position<G>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let [p, b] = pos.pieces;
    match pos.side {
        Side::Player => child::<G, PlayerTurn>(p, b, pos.kings, depth),
        Side::Bot => child::<G, BotTurn>(b, p, pos.kings, depth),
    }
}

/// Leaf count computed the slow way, through [`Position::generate`] and [`Position::play`] at every
/// node; a cross-check of [`perft`] for tests.
pub fn perft_by_moves<G: Geometry>(pos: &Position<G>, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|m| perft_by_moves(&pos.play(m), depth - 1))
        .sum()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Grid;
    use crate::rules::geometry::{Coord, G4, G6, G8};

    fn pos<G: Geometry>(line: &str, side: Side) -> Position<G> {
        Grid::parse_line(line).unwrap().to_position(side)
    }

    /// Sorted paths of the legal moves, with `+` after a crowning move.
    fn paths<G: Geometry>(p: &Position<G>) -> Vec<String> {
        let mut v: Vec<String> = p
            .legal_moves()
            .iter()
            .map(|m| format!("{}{}", m.notation::<G>(), if m.crowns { "+" } else { "" }))
            .collect();
        v.sort();
        v
    }

    fn find<G: Geometry>(p: &Position<G>, path: &str) -> Move<G::B> {
        *p.legal_moves()
            .iter()
            .find(|m| m.notation::<G>() == path)
            .unwrap_or_else(|| panic!("no move {path} in {:?}", paths(p)))
    }

    /// The set of the named squares on a board of size `G`.
    fn set<G: Geometry>(names: &[&str]) -> G::B {
        let mut b = G::B::ZERO;
        for n in names {
            let c = crate::rules::geometry::parse_coord(n, G::N).unwrap();
            b |= G::B::bit(c.to_square(G::N).unwrap().0 as u32);
        }
        b
    }

    /// Every way of counting agrees with the generated list.
    fn counts_agree<G: Geometry>(p: &Position<G>) {
        let n = p.legal_moves().len() as u64;
        assert_eq!(p.count_moves(), n);
        assert_eq!(perft(p, 1), n);
        assert_eq!(perft_by_moves(p, 2), perft(p, 2));
        let mut c = Counter(0);
        p.generate_into(&mut c);
        assert_eq!(c.0, n);
        let mut caps = Vec::new();
        p.generate_captures_only(&mut caps);
        assert_eq!(p.has_capture(), !caps.is_empty());
        if p.has_capture() {
            assert_eq!(caps.len() as u64, n);
        }
    }

    #[test]
    fn man_may_not_capture_backwards() {
        // The player's man on B2 has a bot man behind it on C1 and an empty D0 beyond.
        let p = pos::<G4>("____/__p_/_b__/____", Side::Player);
        assert!(!p.has_capture());
        assert_eq!(paths(&p), ["B2 A1+", "B2 A3+"]);
        counts_agree(&p);
        // Likewise for the bot: its man on C1 may not take the player's man above it.
        let q = pos::<G4>("____/__p_/_b__/____", Side::Bot);
        assert!(!q.has_capture());
        assert_eq!(paths(&q), ["C1 D0+", "C1 D2+"]);
        counts_agree(&q);
        // Nor may a man turn back in the middle of a multi-jump: after E1xC3 the man on C3 has the
        // bot man on D4 behind it and E5 empty beyond, and stops.
        let r = pos::<G6>("______/______/______/__b_b_/_p____/______", Side::Player);
        assert_eq!(paths(&r), ["E1 C3"]);
        counts_agree(&r);
        // A king there does go on.
        let k = pos::<G6>("______/______/______/__b_b_/_P____/______", Side::Player);
        assert_eq!(paths(&k), ["E1 C3 E5"]);
        counts_agree(&k);
    }

    #[test]
    fn king_may_capture_backwards() {
        let p = pos::<G4>("____/__P_/_b__/____", Side::Player);
        assert!(p.has_capture());
        assert_eq!(paths(&p), ["B2 D0"]);
        let m = find(&p, "B2 D0");
        assert_eq!(m.captured, set::<G4>(&["C1"]));
        assert!(!m.crowns);
        counts_agree(&p);
        // A bot king takes upwards.
        let p = pos::<G6>("______/__p___/___B__/______/______/______", Side::Bot);
        assert_eq!(paths(&p), ["C3 A1"]);
        counts_agree(&p);
    }

    #[test]
    fn capture_is_mandatory() {
        // E1 can take D2; E5 could step but may not.
        let p = pos::<G6>("______/______/______/__b___/_p___p/______", Side::Player);
        assert!(p.has_capture());
        assert_eq!(paths(&p), ["E1 C3"]);
        counts_agree(&p);
        // Without the bot man, both men step.
        let q = pos::<G6>("______/______/______/______/_p___p/______", Side::Player);
        assert!(!q.has_capture());
        assert_eq!(paths(&q), ["E1 D0", "E1 D2", "E5 D4"]);
        counts_agree(&q);
    }

    #[test]
    fn crowning_capture_ends_the_move() {
        // C1 takes B2 and is crowned on A3; a king there could go on over B4, but the move ends.
        let p = pos::<G6>("______/__b_b_/_p____/______/______/______", Side::Player);
        assert_eq!(paths(&p), ["C1 A3+"]);
        let m = find(&p, "C1 A3");
        assert!(m.crowns);
        assert_eq!(m.jumps, 1);
        assert_eq!(m.captured, set::<G6>(&["B2"]));
        let after = p.play(&m);
        assert_eq!(
            Grid::from_position(&after).to_line(),
            "___P__/____b_/______/______/______/______"
        );
        counts_agree(&p);
        // A king already on C1 does go on.
        let k = pos::<G6>("______/__b_b_/_P____/______/______/______", Side::Player);
        assert_eq!(paths(&k), ["C1 A3 C5"]);
        counts_agree(&k);
    }

    #[test]
    fn king_loops_back_over_its_start_square() {
        // Round four men back to E3, both ways round.
        let p = pos::<G6>("______/__b_b_/______/__b_b_/___P__/______", Side::Player);
        assert_eq!(paths(&p), ["E3 C1 A3 C5 E3", "E3 C5 A3 C1 E3"]);
        let m = find(&p, "E3 C1 A3 C5 E3");
        assert_eq!(m.from, m.to);
        assert_eq!(m.jumps, 4);
        assert_eq!(m.captured, set::<G6>(&["B2", "B4", "D2", "D4"]));
        let after = p.play(&m);
        assert!(after.is_consistent());
        assert_eq!(after.material(Side::Bot), (0, 0));
        assert_eq!(after.material(Side::Player), (0, 1));
        assert!(after.kings.has(m.from.0 as u32));
        counts_agree(&p);
        // With two more men the king passes through E3 and goes on beyond it.
        let q = pos::<G8>(
            "________/__b_b___/________/__b_b___/___P____/__b_b___/________/________",
            Side::Player,
        );
        let through = find(&q, "E3 C1 A3 C5 E3 G5");
        assert_eq!(through.jumps, 5);
        assert_eq!(through.captured, set::<G8>(&["D2", "B2", "B4", "D4", "F4"]));
        assert!(paths(&q).contains(&"E3 C5 A3 C1 E3 G1".to_string()));
        counts_agree(&q);
    }

    #[test]
    fn a_piece_is_not_jumped_twice() {
        // After taking D2 the king on C3 could jump it again back to its empty start square E1.
        let p = pos::<G6>("______/______/______/__b___/_P____/______", Side::Player);
        assert_eq!(paths(&p), ["E1 C3"]);
        // After the four-piece loop the king stands on E3 next to D2 again and stops.
        let q = pos::<G6>("______/__b_b_/______/__b_b_/___P__/______", Side::Player);
        for m in q.legal_moves() {
            assert_eq!(m.jumps, 4);
        }
    }

    #[test]
    fn side_without_moves_has_none() {
        // Blocked men.
        let p = pos::<G4>("_b_b/p_p_/____/____", Side::Player);
        assert!(p.legal_moves().is_empty());
        assert_eq!(p.count_moves(), 0);
        assert_eq!(perft(&p, 1), 0);
        assert_eq!(perft(&p, 3), 0);
        counts_agree(&p);
        // No pieces at all.
        let q = pos::<G6>("______/______/______/______/______/p_p_p_", Side::Bot);
        assert!(q.legal_moves().is_empty());
        assert_eq!(q.count_moves(), 0);
        counts_agree(&q);
    }

    #[test]
    fn step_to_the_far_row_crowns() {
        let p = pos::<G4>("____/__p_/____/____", Side::Player);
        for m in p.legal_moves() {
            assert!(m.crowns, "{}", m.notation::<G4>());
            let after = p.play(&m);
            assert!(after.kings.has(m.to.0 as u32));
            assert!(after.is_consistent());
        }
        // The bot crowns on the bottom row; a king reaching a far row is not "crowned" again.
        let b = pos::<G4>("____/____/_b__/____", Side::Bot);
        assert!(b.legal_moves().iter().all(|m| m.crowns));
        let k = pos::<G4>("____/__P_/____/____", Side::Player);
        assert!(k.legal_moves().iter().all(|m| !m.crowns));
        assert_eq!(paths(&k), ["B2 A1", "B2 A3", "B2 C1", "B2 C3"]);
        // A step elsewhere does not crown.
        let q = pos::<G6>("______/______/______/______/_p____/______", Side::Player);
        assert!(q.legal_moves().iter().all(|m| !m.crowns));
    }

    #[test]
    fn captured_squares_are_reported() {
        // The man on H2 has a tree of multi-jumps; every path's captures are the squares between
        // its landing squares, and the captured set matches.
        let p = pos::<G8>(
            "___B____/________/_b_b_b__/______P_/___b_b__/______b_/_b_b____/__p_____",
            Side::Player,
        );
        let moves = p.legal_moves();
        assert!(moves.iter().all(|m| m.is_capture()));
        assert!(moves.iter().any(|m| m.jumps >= 3));
        for m in &moves {
            let coords = m.captured_coords::<G8>();
            assert_eq!(coords.len(), m.jumps as usize);
            let mut bits = 0u64;
            for c in &coords {
                bits |= 1u64 << c.to_square(8).unwrap().0;
            }
            assert_eq!(bits, m.captured, "{}", m.notation::<G8>());
            assert_eq!(m.captured & p.pieces[Side::Bot.index()], m.captured);
            let after = p.play(m);
            assert!(after.is_consistent());
            assert_eq!(
                after.pieces[Side::Bot.index()].popcount(),
                p.pieces[Side::Bot.index()].popcount() - m.jumps as u32
            );
        }
        let mut man: Vec<String> = moves
            .iter()
            .map(|m| m.notation::<G8>())
            .filter(|n| n.starts_with("H2"))
            .collect();
        man.sort();
        assert_eq!(man, ["H2 F0", "H2 F4 D2 B0", "H2 F4 D2 B4"]);
        let m = find(&p, "H2 F4 D2 B4");
        assert_eq!(
            m.captured_coords::<G8>(),
            [Coord::new(6, 3), Coord::new(4, 3), Coord::new(2, 3)]
        );
        assert_eq!(m.captured, set::<G8>(&["G3", "E3", "C3"]));
        counts_agree(&p);
    }
}
