//! Zobrist keys for position hashing.
//!
//! The keys are computed at compile time from a fixed seed with SplitMix64, so hashes are the same in
//! every run and nothing is initialised at start-up. One key per (piece kind, padded bit) for up to
//! 128 bits, and one for the side to move.

/// Number of piece kinds hashed: player man, player king, bot man, bot king.
pub const KINDS: usize = 4;
/// Number of padded bits covered.
pub const BITS: usize = 128;

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn make_keys() -> ([[u64; BITS]; KINDS], u64) {
    let mut keys = [[0u64; BITS]; KINDS];
    let mut state = 0x00C0_FFEE_C4EC_4E45u64;
    let mut k = 0;
    while k < KINDS {
        let mut b = 0;
        while b < BITS {
            let (s, v) = splitmix(state);
            state = s;
            keys[k][b] = v;
            b += 1;
        }
        k += 1;
    }
    let (_, side) = splitmix(state);
    (keys, side)
}

const KEYS: ([[u64; BITS]; KINDS], u64) = make_keys();

/// The key of a piece kind (0..4, see [`KINDS`]) on a padded bit.
#[inline(always)]
pub fn piece_key(kind: usize, bit: u32) -> u64 {
    KEYS.0[kind][bit as usize]
}

/// The key xored in when the bot (`b`) is to move.
pub const SIDE_KEY: u64 = KEYS.1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct() {
        let mut all: Vec<u64> = KEYS.0.iter().flatten().copied().collect();
        all.push(SIDE_KEY);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
