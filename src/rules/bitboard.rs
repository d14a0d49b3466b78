//! Bit sets of squares in the padded layout (see [`crate::rules::geometry`]).
//!
//! [`Bits`] is implemented for `u64` (boards up to 10x10) and `u128` (12x12). All methods are small
//! and inlined, so generic code compiles to the same instructions as hand-written `u64` code.

use crate::rules::geometry::Square;
use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Shl, Shr};

/// An unsigned integer used as a set of squares.
pub trait Bits:
    Copy
    + Clone
    + Debug
    + Default
    + Eq
    + Hash
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
{
    /// The empty set.
    const ZERO: Self;
    /// Width of the integer in bits.
    const WIDTH: u32;
    /// The set holding only `bit`.
    fn bit(bit: u32) -> Self;
    /// Number of squares in the set.
    fn popcount(self) -> u32;
    /// Lowest square in the set (the set must not be empty).
    fn lowest(self) -> u32;
    /// Whether the set is empty.
    fn is_empty(self) -> bool;
    /// Whether `bit` is in the set.
    fn has(self, bit: u32) -> bool;
    /// The set without its lowest square.
    fn clear_lowest(self) -> Self;
    /// The set as a `u128`, for hashing and printing.
    fn to_u128(self) -> u128;
    /// The two bits at `shift` and `shift + 1` as a number 0..=3.
    fn two_bits(self, shift: u32) -> usize;
    /// The set with its bit order reversed over the lowest `width` bits (bit `i` goes to
    /// `width - 1 - i`; bits at or above `width` must be clear). With `width` the layout's
    /// [`crate::rules::geometry::Geometry::BITS`] this turns the board 180 degrees.
    fn reverse_low(self, width: u32) -> Self;
}

macro_rules! impl_bits {
    ($t:ty) => {
        impl Bits for $t {
            const ZERO: Self = 0;
            const WIDTH: u32 = <$t>::BITS;
            #[inline(always)]
            fn bit(bit: u32) -> Self {
                1 << bit
            }
            #[inline(always)]
            fn popcount(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn lowest(self) -> u32 {
                self.trailing_zeros()
            }
            #[inline(always)]
            fn is_empty(self) -> bool {
                self == 0
            }
            #[inline(always)]
            fn has(self, bit: u32) -> bool {
                bit < Self::WIDTH && (self >> bit) & 1 == 1
            }
            #[inline(always)]
            fn clear_lowest(self) -> Self {
                self & self.wrapping_sub(1)
            }
            #[inline(always)]
            fn to_u128(self) -> u128 {
                self as u128
            }
            #[inline(always)]
            fn two_bits(self, shift: u32) -> usize {
                ((self >> shift) & 3) as usize
            }
            #[inline(always)]
            fn reverse_low(self, width: u32) -> Self {
                self.reverse_bits() >> (Self::WIDTH - width)
            }
        }
    };
}

impl_bits!(u64);
impl_bits!(u128);

/// Iterates over the squares of a set, lowest first.
#[derive(Copy, Clone, Debug)]
pub struct SquareIter<B: Bits>(pub B);

impl<B: Bits> Iterator for SquareIter<B> {
    type Item = Square;
    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0.is_empty() {
            None
        } else {
            let sq = self.0.lowest();
            self.0 = self.0.clear_lowest();
            Some(Square(sq as u8))
        }
    }
}

/// The squares of a set, lowest first.
#[inline(always)]
pub fn squares<B: Bits>(set: B) -> SquareIter<B> {
    SquareIter(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_in_order() {
        let set: u128 = (1 << 3) | (1 << 70) | 1;
        let got: Vec<u8> = squares(set).map(|s| s.0).collect();
        assert_eq!(got, vec![0, 3, 70]);
        assert_eq!(set.popcount(), 3);
        assert!(set.has(70) && !set.has(71) && !set.has(200));
        assert_eq!(squares(0u64).count(), 0);
    }
}
