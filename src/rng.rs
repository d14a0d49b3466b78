//! A small seeded pseudo-random generator (xorshift64*) for opening variety, the random-move player
//! and the easy level of the terminal game. Not for anything that needs real randomness.

/// A seeded xorshift64* generator: the same seed gives the same sequence on every machine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value, zero included).
    pub fn new(seed: u64) -> Rng {
        // Mix the seed so that nearby seeds start far apart, and never use the all-zero state.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(if z == 0 { 0x2545_F491_4F6C_DD1D } else { z })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n` must be positive; 0 gives 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u32, den: u32) -> bool {
        den > 0 && (self.below(den as usize) as u32) < num
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence_and_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let mut seen = [false; 5];
        for _ in 0..200 {
            let x = a.below(5);
            assert_eq!(x, b.below(5));
            seen[x] = true;
        }
        assert!(seen.iter().all(|&s| s), "every value in range comes up");
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }
}
