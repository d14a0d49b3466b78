//! The transposition table: a fixed-size, lock-free hash table shared by all search threads.
//!
//! Each entry is two `AtomicU64`s: the key xored with the data, and the data. A torn write (two
//! threads storing at once) makes the key check fail, so a reader never trusts a mixed entry. The
//! table never grows: its size in MiB is fixed when it is made, which bounds the engine's memory.
//!
//! Buckets hold four entries, one 64-byte cache line. A result replaces the same position's entry
//! (unless it is a much shallower bound of the same search), else an empty one, else one of an
//! older search or, among this search's, the shallowest. The table before (kept for matches,
//! `tt_ways=2`) had two entries a bucket: one kept by depth, one always replaced; four find 15-20%
//! fewer nodes to depths 17 and 19 from the 8x8 start with the default 16 MiB.
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

/// The table's memory: aligned so that a bucket never straddles two cache lines, and for a
/// table of 2 MiB or more aligned to (and, where the kernel offers them on request, backed by)
/// 2 MiB pages, so that a probe rarely misses the address-translation cache either.
/// Without large pages, the memory is allocated as a plain `Vec<Slot>` would be (the engine
/// before, for matches).
struct Slots {
    ptr: std::ptr::NonNull<Slot>,
    len: usize,
    /// The allocation's layout, to free it with.
    layout: std::alloc::Layout,
}

// SAFETY: `Slots` owns its memory like a `Vec<Slot>`, and `Slot` is made of atomics.
unsafe impl Send for Slots {}
// SAFETY: as above; shared access only reads and writes atomics.
unsafe impl Sync for Slots {}

/// The engine's table by default: on large pages, with four entries a bucket (see
/// [`Tt::try_new_with`]; the search's knobs `large_pages` and `tt_ways` start from these).
pub const DEFAULT_LARGE_PAGES: bool = true;
/// See [`DEFAULT_LARGE_PAGES`].
pub const DEFAULT_WAYS: usize = 4;

/// Size of a large page (x86-64 and most 64-bit Linux systems).
const LARGE_PAGE: usize = 2 << 20;

impl Slots {
    /// The layout of `len` slots (`None` if it cannot be expressed).
    fn layout(len: usize, large: bool) -> Option<std::alloc::Layout> {
        let bytes = len.max(1) * ENTRY_BYTES;
        let align = if !large {
            std::mem::align_of::<Slot>()
        } else if bytes >= LARGE_PAGE {
            LARGE_PAGE
        } else {
            64
        };
        std::alloc::Layout::from_size_align(bytes, align).ok()
    }

    /// `len` empty slots, written by `threads` threads; `None` if the memory cannot be had.
    fn zeroed(len: usize, threads: usize, large: bool) -> Option<Slots> {
        let layout = Self::layout(len, large)?;
        // SAFETY: the layout's size is not zero.
        let raw = unsafe { std::alloc::alloc(layout) }.cast::<Slot>();
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
        // SAFETY: the allocation holds `len` slots; none is read before it is written below.
        let spare = unsafe {
            std::slice::from_raw_parts_mut(raw.cast::<std::mem::MaybeUninit<Slot>>(), len)
        };
        in_parallel(spare, threads, |s| {
            s.write(Slot::default());
        });
        Some(Slots { ptr, len, layout })
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

impl std::ops::Deref for Slots {
    type Target = [Slot];
    fn deref(&self) -> &[Slot] {
        // SAFETY: `ptr` holds `len` initialised slots for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for Slots {
    fn deref_mut(&mut self) -> &mut [Slot] {
        // SAFETY: as for `deref`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this very layout; slots need no drop.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), self.layout) }
    }
}

/// The table.
pub struct Tt {
    slots: Slots,
    mask: usize,
    /// Entries per bucket: 2 (one kept by depth, one always replaced) or 4 (the shallowest or
    /// oldest replaced).
    ways: usize,
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
        Self::new_with(mib, DEFAULT_LARGE_PAGES, DEFAULT_WAYS)
    }

    /// [`Tt::new`], with `large` and `ways` as for [`Tt::try_new_with`].
    pub fn new_with(mib: usize, large: bool, ways: usize) -> Tt {
        match Self::try_new_with(mib, 1, large, ways) {
            Ok(tt) => tt,
            Err(_) => std::alloc::handle_alloc_error(
                Slots::layout(Self::entries(mib), large)
                    .unwrap_or(std::alloc::Layout::new::<Slot>()),
            ),
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
        Self::try_new_with(mib, threads, DEFAULT_LARGE_PAGES, DEFAULT_WAYS)
    }

    /// [`Tt::try_new`]; `large` aligns the table to cache lines and, from 2 MiB, asks for large
    /// pages (the default: 20-40% more nodes a second on 8x8 than without, the same tree);
    /// `ways` is the number of entries a bucket: 4 (the default: a 64-byte cache line, the
    /// shallowest or oldest replaced) or 2 (one kept by depth, one always replaced: the engine
    /// before, for matches).
    pub fn try_new_with(
        mib: usize,
        threads: usize,
        large: bool,
        ways: usize,
    ) -> Result<Tt, TableError> {
        let ways = if ways >= 4 { 4 } else { 2 };
        let entries = Self::entries(mib).max(ways);
        let slots = Slots::zeroed(entries, threads, large).ok_or(TableError::Alloc {
            mib,
            bytes: entries * ENTRY_BYTES,
        })?;
        Ok(Tt {
            slots,
            mask: entries - ways,
            ways,
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
        in_parallel(&mut self.slots, threads, |s| *s = Slot::default());
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
        for slot in &self.slots[b..b + self.ways] {
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
        let slot = if self.ways == 2 {
            self.victim_of_two(b, key, &entry, gen)
        } else {
            self.victim_of_four(b, key, &entry, gen)
        };
        if let Some(slot) = slot {
            slot.data.store(data, Ordering::Relaxed);
            slot.check.store(key ^ data, Ordering::Relaxed);
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

    /// Two entries a bucket: the first kept by depth (replaced by a deeper result, by any result
    /// of a newer search, or by the same position), the second always replaced.
    #[inline]
    fn victim_of_two(&self, b: usize, key: u64, entry: &Entry, gen: u8) -> Option<&Slot> {
        let deep = &self.slots[b];
        let old = deep.data.load(Ordering::Relaxed);
        let old_key = deep.check.load(Ordering::Relaxed) ^ old;
        let (old_entry, old_gen) = Entry::unpack(old);
        if old_key == key && old != 0 {
            if Self::keeps(&old_entry, old_gen, entry, gen) {
                return None;
            }
            Some(deep)
        } else if old == 0 || old_gen != gen || entry.depth >= old_entry.depth {
            Some(deep)
        } else {
            Some(&self.slots[b + 1])
        }
    }

    /// Four entries a bucket: the same position's entry, else an empty one, else the one of an
    /// older search or, among those of this one, the shallowest.
    #[inline]
    fn victim_of_four(&self, b: usize, key: u64, entry: &Entry, gen: u8) -> Option<&Slot> {
        let bucket = &self.slots[b..b + 4];
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, slot) in bucket.iter().enumerate() {
            let old = slot.data.load(Ordering::Relaxed);
            if old == 0 {
                return Some(slot);
            }
            let (old_entry, old_gen) = Entry::unpack(old);
            if slot.check.load(Ordering::Relaxed) ^ old == key {
                if Self::keeps(&old_entry, old_gen, entry, gen) {
                    return None;
                }
                return Some(slot);
            }
            let value = old_entry.depth as i32 + if old_gen == gen { 256 } else { 0 };
            if value < worst {
                worst = value;
                victim = i;
            }
        }
        bucket.get(victim)
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
    fn buckets_sit_in_one_cache_line_and_both_allocations_work() {
        for (mib, large) in [(1, true), (4, true), (4, false)] {
            let tt = Tt::try_new_with(mib, 2, large, if large { 4 } else { 2 }).unwrap();
            let base = tt.slots.as_ptr() as usize;
            if large {
                // Four-way buckets are four 16-byte slots from an index divisible by four: on a
                // 64-byte base, each is exactly one 64-byte line.
                assert_eq!(base % 64, 0, "{mib} MiB");
                if tt.bytes() >= LARGE_PAGE {
                    assert_eq!(base % LARGE_PAGE, 0, "{mib} MiB");
                }
            }
            assert!(tt.slots.iter().all(|s| s.data.load(Ordering::Relaxed) == 0));
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
