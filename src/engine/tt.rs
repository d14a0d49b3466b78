//! The transposition table: a fixed-size, lock-free hash table shared by all search threads.
//!
//! Each entry is two `AtomicU64`s: the key xored with the data, and the data. A torn write (two
//! threads storing at once) makes the key check fail, so a reader never trusts a mixed entry. The
//! table never grows: its size in MiB is fixed when it is made, which bounds the engine's memory.
//!
//! Buckets hold two entries: one kept by depth (replaced by a deeper result, by any result of a
//! newer search, or by the same position unless the new result is a much shallower bound), one
//! always replaced.
//!
//! [`Tt::prefetch`] starts loading a bucket into the cache before it is probed: the search calls
//! it for each child as soon as the move is made.

use std::sync::atomic::{AtomicU64, Ordering};

/// What a stored score means.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The exact score.
    Exact,
    /// A lower bound (the search failed high).
    Lower,
    /// An upper bound (the search failed low).
    Upper,
}

/// One stored search result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Score (mate scores relative to this node).
    pub score: i16,
    /// Index of the best move in generation order, or `u16::MAX`.
    pub mv: u16,
    /// Remaining depth the score was searched to.
    pub depth: u8,
    /// Kind of bound.
    pub bound: Bound,
}

impl Entry {
    fn pack(self, generation: u8) -> u64 {
        let bound = match self.bound {
            Bound::Exact => 0u64,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        (self.score as u16 as u64)
            | (self.mv as u64) << 16
            | (self.depth as u64) << 32
            | bound << 40
            | (generation as u64) << 48
    }

    fn unpack(data: u64) -> (Entry, u8) {
        let bound = match (data >> 40) & 0xff {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        };
        (
            Entry {
                score: data as u16 as i16,
                mv: (data >> 16) as u16,
                depth: (data >> 32) as u8,
                bound,
            },
            (data >> 48) as u8,
        )
    }
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// The table.
pub struct Tt {
    slots: Vec<Slot>,
    mask: usize,
    generation: AtomicU64,
}

impl std::fmt::Debug for Tt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tt({} entries)", self.slots.len())
    }
}

/// A table that cannot be had.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// More than the machine can hold now (checked before allocating).
    #[error(
        "hash {mib} MiB does not fit: {} MiB available ({limit})",
        room >> 20
    )]
    TooBig {
        /// The size asked for.
        mib: usize,
        /// The most a table may take now, in bytes.
        room: u64,
        /// What limits it.
        limit: crate::engine::memory::Limit,
    },
    /// The allocation failed.
    #[error("hash {mib} MiB: cannot allocate {bytes} bytes")]
    Alloc {
        /// The size asked for.
        mib: usize,
        /// The bytes asked for.
        bytes: usize,
    },
}

/// Bytes per entry.
pub const ENTRY_BYTES: usize = std::mem::size_of::<Slot>();

impl Tt {
    /// A table of at most `mib` MiB (at least 1 KiB; a power-of-two number of entries). Aborts
    /// if the memory cannot be had; [`Tt::try_new`] checks first and fails cleanly instead.
    pub fn new(mib: usize) -> Tt {
        let entries = Self::entries(mib);
        let mut slots = Vec::with_capacity(entries);
        slots.resize_with(entries, Slot::default);
        Tt {
            slots,
            mask: entries - 2,
            generation: AtomicU64::new(0),
        }
    }

    /// The number of entries of a table of at most `mib` MiB.
    fn entries(mib: usize) -> usize {
        let bytes = mib.saturating_mul(1 << 20).max(1024);
        let mut entries = (bytes / ENTRY_BYTES).next_power_of_two();
        if entries * ENTRY_BYTES > bytes {
            entries /= 2;
        }
        entries.max(2)
    }

    /// The bytes a table of at most `mib` MiB takes.
    pub fn bytes_for(mib: usize) -> usize {
        Self::entries(mib) * ENTRY_BYTES
    }

    /// A table of at most `mib` MiB with every page written (so the memory is really there and
    /// the first search does not pay for it), by `threads` threads; refused when it cannot be
    /// allocated (an address-space limit, say). Call [`crate::engine::memory::table_room`] first
    /// where the kernel overcommits memory: there the allocation succeeds and the process is
    /// killed later when the pages are touched.
    pub fn try_new(mib: usize, threads: usize) -> Result<Tt, TableError> {
        let entries = Self::entries(mib);
        let mut slots: Vec<Slot> = Vec::new();
        slots
            .try_reserve_exact(entries)
            .map_err(|_| TableError::Alloc {
                mib,
                bytes: entries * ENTRY_BYTES,
            })?;
        let spare = &mut slots.spare_capacity_mut()[..entries];
        let chunk = entries.div_ceil(threads.clamp(1, 64));
        std::thread::scope(|scope| {
            for part in spare.chunks_mut(chunk) {
                scope.spawn(move || {
                    for s in part {
                        s.write(Slot::default());
                    }
                });
            }
        });
        // SAFETY: the capacity is at least `entries` and the first `entries` elements were all
        // initialised by the loop above (the chunks cover the slice; scope joined every thread).
        unsafe { slots.set_len(entries) };
        Ok(Tt {
            slots,
            mask: entries - 2,
            generation: AtomicU64::new(0),
        })
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.slots.len() * ENTRY_BYTES
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.clear_with(1);
    }

    /// Forgets everything, with `threads` threads writing.
    pub fn clear_with(&mut self, threads: usize) {
        let chunk = self.slots.len().div_ceil(threads.clamp(1, 64));
        std::thread::scope(|scope| {
            for part in self.slots.chunks_mut(chunk) {
                scope.spawn(move || {
                    for s in part {
                        *s = Slot::default();
                    }
                });
            }
        });
    }

    /// Starts a new search: older entries become preferred for replacement.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed) as u8
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (key as usize) & self.mask
    }

    /// Asks the processor to start loading `key`'s bucket into its cache, so that a probe a
    /// little later (the child's, after the move is made) does not wait for main memory. Only a
    /// hint: it changes no result.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.slots[self.bucket(key)..].as_ptr();
            // SAFETY: a prefetch only hints the cache; `p` points into the table.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    p.cast::<i8>(),
                )
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        for slot in &self.slots[b..b + 2] {
            let data = slot.data.load(Ordering::Relaxed);
            let check = slot.check.load(Ordering::Relaxed);
            if check ^ data == key && data != 0 {
                return Some(Entry::unpack(data).0);
            }
        }
        None
    }

    /// Stores an entry for `key`.
    #[inline]
    pub fn store(&self, key: u64, entry: Entry) {
        let b = self.bucket(key);
        let gen = self.generation();
        let data = entry.pack(gen);
        let deep = &self.slots[b];
        let old = deep.data.load(Ordering::Relaxed);
        let old_key = deep.check.load(Ordering::Relaxed) ^ old;
        let (old_entry, old_gen) = Entry::unpack(old);
        let slot = if old_key == key && old != 0 {
            // The same position: a much shallower bound does not overwrite a deeper result.
            if entry.bound != Bound::Exact
                && old_gen == gen
                && (entry.depth as u32) + 2 < old_entry.depth as u32
            {
                return;
            }
            deep
        } else if old == 0 || old_gen != gen || entry.depth >= old_entry.depth {
            deep
        } else {
            &self.slots[b + 1]
        };
        slot.data.store(data, Ordering::Relaxed);
        slot.check.store(key ^ data, Ordering::Relaxed);
    }

    /// Permille of the first thousand buckets' entries written in this search (like UCI hashfull).
    pub fn hashfull(&self) -> u32 {
        let gen = self.generation();
        let n = self.slots.len().min(1000);
        let used = self.slots[..n]
            .iter()
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && Entry::unpack(d).1 == gen
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_finds() {
        let tt = Tt::new(1);
        assert!(tt.bytes() <= 1 << 20);
        let e = Entry {
            score: -1234,
            mv: 7,
            depth: 9,
            bound: Bound::Lower,
        };
        tt.store(0xDEAD_BEEF_1234_5678, e);
        assert_eq!(tt.probe(0xDEAD_BEEF_1234_5678), Some(e));
        assert_eq!(tt.probe(0x1111_2222_3333_4444), None);
    }

    #[test]
    fn a_checked_table_is_zeroed_and_cleared_by_several_threads() {
        let mut tt = Tt::try_new(2, 3).unwrap();
        assert_eq!(tt.bytes(), Tt::bytes_for(2));
        assert_eq!(tt.probe(12345), None);
        let e = Entry {
            score: 5,
            mv: 1,
            depth: 3,
            bound: Bound::Exact,
        };
        tt.store(12345, e);
        assert_eq!(tt.probe(12345), Some(e));
        tt.clear_with(3);
        assert_eq!(tt.probe(12345), None);
        assert!(tt.slots.iter().all(|s| s.data.load(Ordering::Relaxed) == 0));
    }

    #[test]
    fn size_is_bounded() {
        for mib in [0, 1, 3, 16, 100] {
            let tt = Tt::new(mib);
            assert!(
                tt.bytes() <= (mib.max(1)) << 20,
                "{mib} MiB -> {}",
                tt.bytes()
            );
        }
    }
}
