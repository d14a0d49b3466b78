//! The transposition table: a fixed-size, lock-free hash table shared by all search threads.
//!
//! The table never grows: its size in MiB is fixed when it is made, which bounds the engine's
//! memory. Buckets are one 64-byte cache line each.
//!
//! **The compact layout (the default, since 2026-11-27)**: an entry is one `AtomicU64` holding
//! the score, the best move's index in generation order, the depth, the bound, the search's
//! generation and 24 bits of the key (the bucket is chosen by other bits), so eight entries share
//! a bucket and a MiB holds twice the entries of the layout before. An entry is written and read
//! with one atomic access, so two threads storing at once cannot mix two entries; a position
//! whose key shares the bucket and the 24 bits (about one probe in two million) reads another's
//! entry, as in any table that keeps part of the key. A result replaces the same position's
//! entry (unless it is a much shallower bound of the same search), else an empty one, else the
//! one whose depth less a few plies per search of age ([`Tt::set_age_weight`]) is smallest, so
//! deep entries of the last moves of a game outlive shallow ones of this search; an entry found
//! by a probe is counted as this search's. Any size is used whole (the bucket is found by a
//! multiplication, not a mask).
//!
//! **The layouts before** (kept for matches against the engine before, search knob `tt_ways`):
//! entries of two `AtomicU64`s (the key xored with the data, and the data, so a torn write fails
//! the key check), four a bucket (`tt_ways=4`: the same position's entry, else an empty one, else
//! one of an older search or the shallowest) or two (`tt_ways=2`: one kept by depth, one always
//! replaced), on a power-of-two number of entries.
//!
//! [`Tt::prefetch`] starts loading a bucket into the cache before it is probed: the search calls
//! it for each child as soon as the move is made.
//!
//! The table's memory is aligned so that a bucket is one cache-line access, and a table of 2 MiB
//! or more asks the kernel for 2 MiB pages (Linux `madvise`; transparent huge pages are commonly
//! offered on request), so that a probe seldom misses the address-translation cache too: on this
//! project's machine 20-40% more nodes a second for the same tree (docs/performance.md).

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
    /// The best move, or `u16::MAX`: in the compact layout ([`Tt::indexes_moves`]) its index in
    /// generation order (indexes from 255 up are not kept), in the layouts before a 16-bit move
    /// id.
    pub mv: u16,
    /// Remaining depth the score was searched to (the compact layout keeps up to 127).
    pub depth: u8,
    /// Kind of bound.
    pub bound: Bound,
}

/// Bits of the key a compact entry keeps (the low ones; the bucket comes from the high ones).
const CHECK_BITS: u32 = 24;
const CHECK_MASK: u64 = (1 << CHECK_BITS) - 1;
/// Where the key's bits sit in a compact entry.
const CHECK_SHIFT: u32 = 64 - CHECK_BITS;
/// Generations a compact entry tells apart (its age is counted modulo this).
const GENERATIONS: u64 = 128;
/// The deepest depth a compact entry holds.
const COMPACT_MAX_DEPTH: u8 = 127;
/// A compact entry's move field when it holds no move.
const COMPACT_NO_MOVE: u64 = 0xff;
/// Plies of depth a compact entry is worth less for each search since it was written, when
/// choosing the entry to replace (see [`Tt::set_age_weight`]).
pub const DEFAULT_AGE_WEIGHT: i32 = 4;

impl Entry {
    /// The layouts before: the data word (the key is xored into the other).
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

    /// The compact layout: score (bits 0-15), move index (16-23), depth (24-30), bound (31-32,
    /// never 0, so an entry is never the empty word), generation (33-39), key bits (40-63).
    fn pack_compact(self, generation: u8, key: u64) -> u64 {
        let bound = match self.bound {
            Bound::Exact => 1u64,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let mv = if self.mv < COMPACT_NO_MOVE as u16 {
            self.mv as u64
        } else {
            COMPACT_NO_MOVE
        };
        (self.score as u16 as u64)
            | mv << 16
            | (self.depth.min(COMPACT_MAX_DEPTH) as u64) << 24
            | bound << 31
            | (generation as u64 % GENERATIONS) << 33
            | (key & CHECK_MASK) << CHECK_SHIFT
    }

    fn unpack_compact(w: u64) -> (Entry, u8) {
        let bound = match (w >> 31) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        };
        let mv = (w >> 16) & 0xff;
        (
            Entry {
                score: w as u16 as i16,
                mv: if mv == COMPACT_NO_MOVE {
                    u16::MAX
                } else {
                    mv as u16
                },
                depth: ((w >> 24) & 0x7f) as u8,
                bound,
            },
            ((w >> 33) % GENERATIONS) as u8,
        )
    }
}

/// The table's memory, as 64-bit words: aligned so that a bucket never straddles two cache
/// lines, and for a table of 2 MiB or more aligned to (and, where the kernel offers them on
/// request, backed by) 2 MiB pages, so that a probe rarely misses the address-translation cache
/// either. Without large pages, the memory is allocated as a plain `Vec` of entries would be
/// (the engine before, for matches).
struct Words {
    ptr: std::ptr::NonNull<AtomicU64>,
    len: usize,
    /// The allocation's layout, to free it with.
    layout: std::alloc::Layout,
}

// SAFETY: `Words` owns its memory like a `Vec<AtomicU64>`.
unsafe impl Send for Words {}
// SAFETY: as above; shared access only reads and writes atomics.
unsafe impl Sync for Words {}

/// The engine's table by default: on large pages, compact, eight entries a bucket (see
/// [`Tt::try_new_with`]; the search's knobs `large_pages` and `tt_ways` start from these).
pub const DEFAULT_LARGE_PAGES: bool = true;
/// See [`DEFAULT_LARGE_PAGES`]: 8 is the compact layout, 4 and 2 the layouts before.
pub const DEFAULT_WAYS: usize = 8;

/// Size of a large page (x86-64 and most 64-bit Linux systems).
const LARGE_PAGE: usize = 2 << 20;

/// Bytes of a bucket (one cache line).
const BUCKET_BYTES: usize = 64;

impl Words {
    /// The layout of `len` words (`None` if it cannot be expressed); without `large`, aligned as
    /// a `Vec` of `entry_words`-word entries would be.
    fn layout(len: usize, large: bool, entry_words: usize) -> Option<std::alloc::Layout> {
        let bytes = len.max(1) * 8;
        let align = if !large {
            8 * entry_words
        } else if bytes >= LARGE_PAGE {
            LARGE_PAGE
        } else {
            BUCKET_BYTES
        };
        std::alloc::Layout::from_size_align(bytes, align).ok()
    }

    /// `len` zero words, written by `threads` threads; `None` if the memory cannot be had.
    fn zeroed(len: usize, threads: usize, large: bool, entry_words: usize) -> Option<Words> {
        let layout = Self::layout(len, large, entry_words)?;
        // SAFETY: the layout's size is not zero.
        let raw = unsafe { std::alloc::alloc(layout) }.cast::<AtomicU64>();
        let ptr = std::ptr::NonNull::new(raw)?;
        #[cfg(target_os = "linux")]
        if large && layout.align() == LARGE_PAGE {
            // A hint only (it fails harmlessly where large pages are off): asked before the
            // pages are first written, so that they are faulted in as large pages.
            // SAFETY: the range is this allocation, which nothing else uses yet.
            unsafe {
                libc::madvise(raw.cast(), layout.size(), libc::MADV_HUGEPAGE);
            }
        }
        // SAFETY: the allocation holds `len` words; none is read before it is written below.
        let spare = unsafe {
            std::slice::from_raw_parts_mut(raw.cast::<std::mem::MaybeUninit<AtomicU64>>(), len)
        };
        in_parallel(spare, threads, |w| {
            w.write(AtomicU64::new(0));
        });
        Some(Words { ptr, len, layout })
    }
}

/// Applies `each` to every item, the items split among `threads` threads (1 to 64).
fn in_parallel<T: Send>(items: &mut [T], threads: usize, each: impl Fn(&mut T) + Sync) {
    let chunk = items.len().div_ceil(threads.clamp(1, 64)).max(1);
    let each = &each;
    std::thread::scope(|scope| {
        for part in items.chunks_mut(chunk) {
            scope.spawn(move || part.iter_mut().for_each(each));
        }
    });
}

impl std::ops::Deref for Words {
    type Target = [AtomicU64];
    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: `ptr` holds `len` initialised words for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for Words {
    fn deref_mut(&mut self) -> &mut [AtomicU64] {
        // SAFETY: as for `deref`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this very layout; words need no drop.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), self.layout) }
    }
}

/// The table.
pub struct Tt {
    words: Words,
    /// The layouts before: the mask of an entry's index (entries less ways).
    mask: usize,
    /// The compact layout: the number of buckets.
    buckets: u64,
    /// Entries per bucket: 8 (compact), 4 or 2 (the layouts before).
    ways: usize,
    /// Compact layout: plies of depth an entry is worth less per search of age.
    age_weight: i32,
    generation: AtomicU64,
}

impl std::fmt::Debug for Tt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tt({} ways, {} bytes)", self.ways, self.bytes())
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

/// Bytes of an entry in the default (compact) layout.
pub const ENTRY_BYTES: usize = 8;

impl Tt {
    /// A table of at most `mib` MiB (at least 1 KiB). Aborts if the memory cannot be had;
    /// [`Tt::try_new`] checks first and fails cleanly instead.
    pub fn new(mib: usize) -> Tt {
        Self::new_with(mib, DEFAULT_LARGE_PAGES, DEFAULT_WAYS)
    }

    /// [`Tt::new`], with `large` and `ways` as for [`Tt::try_new_with`].
    pub fn new_with(mib: usize, large: bool, ways: usize) -> Tt {
        match Self::try_new_with(mib, 1, large, ways) {
            Ok(tt) => tt,
            Err(_) => std::alloc::handle_alloc_error(
                Words::layout(Self::words_for(mib, ways), large, 1)
                    .unwrap_or(std::alloc::Layout::new::<AtomicU64>()),
            ),
        }
    }

    /// The words of a table of at most `mib` MiB with `ways` entries a bucket: compact, every
    /// whole bucket; the layouts before, a power-of-two number of two-word entries.
    fn words_for(mib: usize, ways: usize) -> usize {
        let bytes = mib.saturating_mul(1 << 20).max(1024);
        if ways >= 8 {
            return bytes / BUCKET_BYTES * (BUCKET_BYTES / 8);
        }
        let mut entries = (bytes / 16).next_power_of_two();
        if entries * 16 > bytes {
            entries /= 2;
        }
        2 * entries.max(ways)
    }

    /// The bytes a table of at most `mib` MiB takes (in the default layout; the layouts before
    /// take the same or less).
    pub fn bytes_for(mib: usize) -> usize {
        Self::words_for(mib, DEFAULT_WAYS) * 8
    }

    /// A table of at most `mib` MiB with every page written (so the memory is really there and
    /// the first search does not pay for it), by `threads` threads; refused when it cannot be
    /// allocated (an address-space limit, say). Call [`crate::engine::memory::table_room`] first
    /// where the kernel overcommits memory: there the allocation succeeds and the process is
    /// killed later when the pages are touched.
    pub fn try_new(mib: usize, threads: usize) -> Result<Tt, TableError> {
        Self::try_new_with(mib, threads, DEFAULT_LARGE_PAGES, DEFAULT_WAYS)
    }

    /// [`Tt::try_new`]; `large` aligns the table to cache lines and, from 2 MiB, asks for large
    /// pages (the default: 20-40% more nodes a second on 8x8 than without, the same tree);
    /// `ways` is the layout: 8 (the default: compact one-word entries, eight a 64-byte bucket,
    /// aged), 4 (two-word entries, four a bucket, the shallowest or oldest replaced) or 2 (one
    /// kept by depth, one always replaced): the engines before, for matches.
    pub fn try_new_with(
        mib: usize,
        threads: usize,
        large: bool,
        ways: usize,
    ) -> Result<Tt, TableError> {
        let ways = match ways {
            8.. => 8,
            4..=7 => 4,
            _ => 2,
        };
        let len = Self::words_for(mib, ways);
        let entry_words = if ways == 8 { 1 } else { 2 };
        let words = Words::zeroed(len, threads, large, entry_words).ok_or(TableError::Alloc {
            mib,
            bytes: len * 8,
        })?;
        Ok(Tt {
            mask: (len / 2).saturating_sub(ways),
            buckets: (len / 8) as u64,
            words,
            ways,
            age_weight: DEFAULT_AGE_WEIGHT,
            generation: AtomicU64::new(0),
        })
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// Whether entries hold the best move's index in generation order (the compact layout) rather
    /// than a move id (the layouts before): see [`Entry::mv`].
    #[inline]
    pub fn indexes_moves(&self) -> bool {
        self.ways == 8
    }

    /// Compact layout: how many plies of depth an entry is worth less, when choosing the entry
    /// to replace, for each search since it was written (0: an entry of an earlier search goes
    /// only by its depth; the default [`DEFAULT_AGE_WEIGHT`]).
    pub fn set_age_weight(&mut self, plies: i32) {
        self.age_weight = plies.max(0);
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.clear_with(1);
    }

    /// Forgets everything, with `threads` threads writing.
    pub fn clear_with(&mut self, threads: usize) {
        in_parallel(&mut self.words, threads, |w| *w = AtomicU64::new(0));
    }

    /// Starts a new search: older entries become preferred for replacement.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn generation(&self) -> u8 {
        let g = self.generation.load(Ordering::Relaxed);
        if self.ways == 8 {
            (g % GENERATIONS) as u8
        } else {
            g as u8
        }
    }

    /// The first word of `key`'s bucket.
    #[inline]
    fn bucket(&self, key: u64) -> usize {
        if self.ways == 8 {
            (((key >> 32) * self.buckets) >> 32) as usize * 8
        } else {
            2 * ((key as usize) & self.mask)
        }
    }

    /// Asks the processor to start loading `key`'s bucket into its cache, so that a probe a
    /// little later (the child's, after the move is made) does not wait for main memory. Only a
    /// hint: it changes no result.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.words[self.bucket(key)..].as_ptr();
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
        if self.ways == 8 {
            let check = key & CHECK_MASK;
            for w in &self.words[b..b + 8] {
                let data = w.load(Ordering::Relaxed);
                if data >> CHECK_SHIFT == check && data != 0 {
                    let (entry, gen) = Entry::unpack_compact(data);
                    let now = self.generation();
                    if gen != now {
                        // Met again in this search: it counts as this search's.
                        w.store(entry.pack_compact(now, key), Ordering::Relaxed);
                    }
                    return Some(entry);
                }
            }
            return None;
        }
        for pair in self.words[b..b + 2 * self.ways].chunks_exact(2) {
            let data = pair[1].load(Ordering::Relaxed);
            let check = pair[0].load(Ordering::Relaxed);
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
        if self.ways == 8 {
            self.store_compact(b, key, entry, gen);
            return;
        }
        let data = entry.pack(gen);
        let slot = if self.ways == 2 {
            self.victim_of_two(b, key, &entry, gen)
        } else {
            self.victim_of_four(b, key, &entry, gen)
        };
        if let Some(pair) = slot {
            pair[1].store(data, Ordering::Relaxed);
            pair[0].store(key ^ data, Ordering::Relaxed);
        }
    }

    /// Whether `entry` may not overwrite the same position's `old_entry`: a much shallower
    /// bound of this search keeps a deeper result.
    #[inline]
    fn keeps(old_entry: &Entry, old_gen: u8, entry: &Entry, gen: u8) -> bool {
        entry.bound != Bound::Exact
            && old_gen == gen
            && (entry.depth as u32) + 2 < old_entry.depth as u32
    }

    /// Eight one-word entries a bucket: the same position's entry (its move kept if the new
    /// result has none), else an empty one, else the one whose depth less its age in searches
    /// times the age weight is least.
    #[inline]
    fn store_compact(&self, b: usize, key: u64, mut entry: Entry, gen: u8) {
        let check = key & CHECK_MASK;
        let bucket = &self.words[b..b + 8];
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, w) in bucket.iter().enumerate() {
            let old = w.load(Ordering::Relaxed);
            if old == 0 {
                victim = i;
                break;
            }
            let (old_entry, old_gen) = Entry::unpack_compact(old);
            if old >> CHECK_SHIFT == check {
                if Self::keeps(&old_entry, old_gen, &entry, gen) {
                    return;
                }
                if entry.mv == u16::MAX {
                    entry.mv = old_entry.mv;
                }
                victim = i;
                break;
            }
            let age = (u64::from(gen) + GENERATIONS - u64::from(old_gen)) % GENERATIONS;
            let value = i32::from(old_entry.depth) - self.age_weight * age as i32;
            if value < worst {
                worst = value;
                victim = i;
            }
        }
        bucket[victim].store(entry.pack_compact(gen, key), Ordering::Relaxed);
    }

    /// Two entries a bucket: the first kept by depth (replaced by a deeper result, by any result
    /// of a newer search, or by the same position), the second always replaced.
    #[inline]
    fn victim_of_two(&self, b: usize, key: u64, entry: &Entry, gen: u8) -> Option<&[AtomicU64]> {
        let deep = &self.words[b..b + 2];
        let old = deep[1].load(Ordering::Relaxed);
        let old_key = deep[0].load(Ordering::Relaxed) ^ old;
        let (old_entry, old_gen) = Entry::unpack(old);
        if old_key == key && old != 0 {
            if Self::keeps(&old_entry, old_gen, entry, gen) {
                return None;
            }
            Some(deep)
        } else if old == 0 || old_gen != gen || entry.depth >= old_entry.depth {
            Some(deep)
        } else {
            Some(&self.words[b + 2..b + 4])
        }
    }

    /// Four entries a bucket: the same position's entry, else an empty one, else the one of an
    /// older search or, among those of this one, the shallowest.
    #[inline]
    fn victim_of_four(&self, b: usize, key: u64, entry: &Entry, gen: u8) -> Option<&[AtomicU64]> {
        let bucket = &self.words[b..b + 8];
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, pair) in bucket.chunks_exact(2).enumerate() {
            let old = pair[1].load(Ordering::Relaxed);
            if old == 0 {
                return Some(pair);
            }
            let (old_entry, old_gen) = Entry::unpack(old);
            if pair[0].load(Ordering::Relaxed) ^ old == key {
                if Self::keeps(&old_entry, old_gen, entry, gen) {
                    return None;
                }
                return Some(pair);
            }
            let value = old_entry.depth as i32 + if old_gen == gen { 256 } else { 0 };
            if value < worst {
                worst = value;
                victim = i;
            }
        }
        bucket.get(2 * victim..2 * victim + 2)
    }

    /// Permille of the first thousand entries written (or met again) in this search (like UCI
    /// hashfull).
    pub fn hashfull(&self) -> u32 {
        let gen = self.generation();
        let compact = self.ways == 8;
        let per = if compact { 1 } else { 2 };
        let n = (self.words.len() / per).min(1000);
        let used = (0..n)
            .filter(|&i| {
                let d = self.words[i * per + per - 1].load(Ordering::Relaxed);
                d != 0
                    && if compact {
                        Entry::unpack_compact(d).1 == gen
                    } else {
                        Entry::unpack(d).1 == gen
                    }
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
        assert!(tt.words.iter().all(|w| w.load(Ordering::Relaxed) == 0));
    }

    #[test]
    fn buckets_sit_in_one_cache_line_and_both_allocations_work() {
        for (mib, large, ways) in [(1, true, 4), (4, true, 4), (4, false, 2), (3, true, 8)] {
            let tt = Tt::try_new_with(mib, 2, large, ways).unwrap();
            let base = tt.words.as_ptr() as usize;
            if large {
                // Four-way buckets are four 16-byte entries from an index divisible by four,
                // compact ones eight words from a multiple of eight: on a 64-byte base, each is
                // exactly one 64-byte line.
                assert_eq!(base % 64, 0, "{mib} MiB");
                if tt.bytes() >= LARGE_PAGE {
                    assert_eq!(base % LARGE_PAGE, 0, "{mib} MiB");
                }
            }
            assert!(tt.words.iter().all(|w| w.load(Ordering::Relaxed) == 0));
            let e = Entry {
                score: -7,
                mv: 3,
                depth: 12,
                bound: Bound::Upper,
            };
            for k in 0..1000u64 {
                tt.store(k.wrapping_mul(0x9E37_79B9_7F4A_7C15), e);
            }
            let found = (0..1000u64)
                .filter(|k| tt.probe(k.wrapping_mul(0x9E37_79B9_7F4A_7C15)) == Some(e))
                .count();
            assert!(
                found > 990,
                "{mib} MiB, large {large}: {found} of 1000 found"
            );
        }
    }

    #[test]
    fn a_four_way_bucket_replaces_the_oldest_then_the_shallowest() {
        let tt = Tt::try_new_with(1, 1, true, 4).unwrap();
        // Keys differing only in high bits share a bucket.
        let key = |i: u64| 0x1234_5678 | (i + 1) << 40;
        let entry = |depth: u8| Entry {
            score: depth as i16,
            mv: 0,
            depth,
            bound: Bound::Lower,
        };
        for (i, d) in [5u8, 9, 3, 7].into_iter().enumerate() {
            tt.store(key(i as u64), entry(d));
        }
        // Full: the depth-3 entry goes.
        tt.store(key(4), entry(1));
        assert_eq!(tt.probe(key(2)), None);
        for (i, d) in [(0, 5), (1, 9), (3, 7), (4, 1)] {
            assert_eq!(tt.probe(key(i)), Some(entry(d)), "key {i}");
        }
        // The same position: a much shallower bound keeps the deeper result, an exact one does not.
        tt.store(key(1), entry(2));
        assert_eq!(tt.probe(key(1)), Some(entry(9)));
        let exact = Entry {
            bound: Bound::Exact,
            ..entry(2)
        };
        tt.store(key(1), exact);
        assert_eq!(tt.probe(key(1)), Some(exact));
        // A new search: the old entries go first, even the deep ones.
        tt.new_search();
        tt.store(key(5), entry(1));
        tt.store(key(6), entry(1));
        assert_eq!(tt.probe(key(5)), Some(entry(1)));
        assert_eq!(tt.probe(key(6)), Some(entry(1)));
        assert_eq!(
            tt.probe(key(4)),
            None,
            "the shallowest old entry went first"
        );
        assert_eq!(tt.probe(key(1)), None, "then the next shallowest");
    }

    #[test]
    fn a_compact_bucket_keeps_deep_entries_of_earlier_searches() {
        let mut tt = Tt::try_new_with(1, 1, true, 8).unwrap();
        tt.set_age_weight(4);
        assert!(tt.indexes_moves());
        // Keys with the same high half share a bucket; the low bits tell them apart.
        let key = |i: u64| 0xABCD_0123_0000_0000 | ((i + 1) * 0x0101);
        let entry = |depth: u8| Entry {
            score: -(depth as i16),
            mv: depth as u16,
            depth,
            bound: Bound::Lower,
        };
        let depths = [5u8, 12, 3, 7, 1, 9, 4, 6];
        for (i, d) in depths.into_iter().enumerate() {
            tt.store(key(i as u64), entry(d));
        }
        for (i, d) in depths.into_iter().enumerate() {
            assert_eq!(tt.probe(key(i as u64)), Some(entry(d)), "key {i}");
        }
        // Full: the depth-1 entry goes.
        tt.store(key(8), entry(2));
        assert_eq!(tt.probe(key(4)), None);
        assert_eq!(tt.probe(key(8)), Some(entry(2)));
        // Two searches later the old entries are worth 8 plies less: the depth-12 one (worth 4)
        // outlives this search's depth-3 results, the depth-5 one (worth -3) does not.
        tt.new_search();
        tt.new_search();
        for k in 9..13 {
            tt.store(key(k), entry(3));
        }
        for gone in [0, 2, 6, 8] {
            assert_eq!(tt.probe(key(gone)), None, "old key {gone}");
        }
        // Probed, an old entry counts as this search's: worth 12, it outlives depth-6 results.
        assert_eq!(tt.probe(key(1)), Some(entry(12)));
        for k in 13..21 {
            tt.store(key(k), entry(6));
        }
        assert_eq!(tt.probe(key(1)), Some(entry(12)));
        // A result without a move keeps the move stored for the position.
        tt.store(
            key(1),
            Entry {
                mv: u16::MAX,
                ..entry(13)
            },
        );
        assert_eq!(
            tt.probe(key(1)),
            Some(entry(13)).map(|e| Entry { mv: 12, ..e })
        );
        // Depths beyond 127 and move indexes beyond 254 are not kept.
        let deep = Entry {
            score: 30_000,
            mv: 300,
            depth: 200,
            bound: Bound::Exact,
        };
        tt.store(7, deep);
        assert_eq!(
            tt.probe(7),
            Some(Entry {
                mv: u16::MAX,
                depth: 127,
                ..deep
            })
        );
    }

    #[test]
    fn a_compact_table_uses_every_mib_given() {
        for mib in [1, 3, 100] {
            let tt = Tt::try_new_with(mib, 1, true, 8).unwrap();
            assert_eq!(tt.bytes(), mib << 20);
            assert_eq!(tt.bytes(), Tt::bytes_for(mib));
        }
        // The layouts before round down to a power of two.
        assert_eq!(Tt::try_new_with(3, 1, true, 4).unwrap().bytes(), 2 << 20);
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
