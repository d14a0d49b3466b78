//! An opened database: every slice file of a directory, memory-mapped, read block by block
//! through a cache of decompressed blocks kept under a memory cap; or, when the cap is at least
//! the whole database decompressed, every slice decompressed once when the database is opened
//! (*resident*: a probe is then one memory read, with no lock and no decompression).
//!
//! Positions where the side to move has a capture are not stored (their values in the files are
//! "don't care"): [`Egdb::probe`] values them through their captures, which always reach
//! slices with fewer pieces; the search never asks for them ([`Egdb::probe_quiet`]).

use super::index::{index_of, key_of, normalize, SliceKey, MAX_PIECES};
use super::store::{size_dir, SliceFile, PROBE_MIN_VERSION};
use super::{EgdbError, Value};
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::bitboard::Bits;
use crate::rules::geometry::{BoardSize, Geometry};
use crate::rules::position::{Move, Position};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The default memory cap, in MiB: enough to hold the 8x8 database up to 6 pieces decompressed
/// (784 MiB), which keeps the search within 10% of its speed without a database; a
/// bigger database, or a lower cap, is read block by block through a cache under the cap.
pub const DEFAULT_CACHE_MB: usize = 1024;

/// The cap of `egdb probe` and `egdb info`, which need few values: blocks on demand.
pub const ON_DEMAND_CACHE_MB: usize = 64;

/// A set of the block cache: two blocks, the most recently read first. A set is found from the
/// block's id by a multiplicative hash, so a hit costs one lock and the block's byte, with no
/// table to search (the search probes at most nodes of a database ending; a hash map and an
/// `Arc` per hit made each probe three memory misses, not one). A block read replaces the older
/// of the two and reuses its buffer (no allocation once the cache is full).
#[derive(Default)]
struct CacheSet {
    /// Block id and bytes; an empty buffer is an empty way (no block is empty).
    ways: [(u64, Vec<u8>); 2],
}

impl CacheSet {
    /// The block with this id, if cached.
    #[inline]
    fn get(&self, id: u64) -> Option<&[u8]> {
        self.ways
            .iter()
            .find(|w| w.0 == id && !w.1.is_empty())
            .map(|w| w.1.as_slice())
    }
}

/// The slices of one board size.
#[derive(Debug, Default)]
struct SizeDb {
    /// Slot of a key to its number in `slices` (`u32::MAX`: absent).
    slot: Vec<u32>,
    slices: Vec<SliceFile>,
    /// Each slice's values decompressed (laid out by its encoding), when resident; empty where
    /// a block could not be read (that slice is then read through the cache).
    resident: Vec<Box<[u8]>>,
    max_pieces: u32,
}

/// An endgame database opened for probing. Shared between search threads.
pub struct Egdb {
    dir: PathBuf,
    sizes: Vec<SizeDb>,
    /// The block cache: a power of two of sets, two blocks each, up to the memory cap.
    sets: Vec<Mutex<CacheSet>>,
    /// Every slice decompressed in memory (the cap allowed it).
    resident: bool,
    warned: AtomicBool,
}

impl std::fmt::Debug for Egdb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Egdb({})", self.dir.display())
    }
}

impl PartialEq for Egdb {
    fn eq(&self, other: &Self) -> bool {
        self.dir == other.dir && self.sets.len() == other.sets.len()
    }
}

impl Eq for Egdb {}

fn size_index(size: BoardSize) -> usize {
    BoardSize::ALL.iter().position(|&s| s == size).unwrap_or(0)
}

/// Bytes of every slice's values decompressed.
fn decompressed_total(sizes: &[SizeDb]) -> usize {
    sizes
        .iter()
        .flat_map(|s| s.slices.iter())
        .map(|f| f.decompressed_bytes())
        .sum()
}

/// Checks that every slice up to the most pieces found is there; if some are missing (a build
/// that did not finish, a file removed), warns once with the first missing slice and uses the
/// database only up to the piece count below it, so that no probe falls into the gap.
fn limit_to_complete(db: &mut SizeDb, size: BoardSize, dir: &Path) {
    let missing: Vec<SliceKey> = SliceKey::all(size, db.max_pieces)
        .into_iter()
        .filter(|k| db.slot.get(k.slot()).is_none_or(|&s| s == u32::MAX))
        .collect();
    let Some(fewest) = missing.iter().map(SliceKey::pieces).min() else {
        return;
    };
    let first = missing
        .iter()
        .find(|k| k.pieces() == fewest)
        .map_or_else(String::new, |k| k.to_string());
    tracing::warn!(
        "{}: {} slice files of the {size} endgame database are missing (the first: {first}, {}); \
         it is used only up to {} pieces (run `checkersbot egdb build` again to complete it)",
        dir.display(),
        missing.len(),
        first_file(&missing, fewest),
        fewest - 1
    );
    db.max_pieces = fewest - 1;
}

/// The file name of the first missing slice with `pieces` pieces.
fn first_file(missing: &[SliceKey], pieces: u32) -> String {
    missing
        .iter()
        .find(|k| k.pieces() == pieces)
        .map_or_else(String::new, SliceKey::file_name)
}

/// The file names of every slice of `size` with at most `pieces` pieces.
fn level_files(size: BoardSize, pieces: u32) -> HashSet<String> {
    SliceKey::all(size, pieces)
        .iter()
        .map(SliceKey::file_name)
        .collect()
}

/// The most pieces `K` such that every slice file of `size` with up to `K` pieces is under `dir`
/// (0: not even the 1-piece slices), found from the file names alone (nothing is read): a
/// level that `egdb build` has finished, since it writes each slice file whole under its final
/// name (see [`super::store`]). Whether the files read well is checked when they are opened.
pub fn complete_pieces(dir: &Path, size: BoardSize) -> u32 {
    let Ok(entries) = std::fs::read_dir(size_dir(dir, size)) else {
        return 0;
    };
    let present: HashSet<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    let mut pieces = 0;
    for p in 1..=MAX_PIECES as u32 {
        let level = SliceKey::all(size, p);
        if !level
            .iter()
            .filter(|k| k.pieces() == p)
            .all(|k| present.contains(&k.file_name()))
        {
            break;
        }
        pieces = p;
    }
    pieces
}

impl Egdb {
    /// Opens every slice under `dir` (`dir/NxN/*.cbdb`), keeping at most `cache_mb` MiB of
    /// decompressed blocks in memory. A damaged header is an error naming the file; damaged blocks
    /// are found when read (the probe then answers "unknown" and a warning is logged), as are
    /// blocks a file no longer holds (it shrank under the running program). Missing slices are
    /// reported here (a warning), and the database is then used below the fewest pieces missing.
    pub fn open(dir: &Path, cache_mb: usize) -> Result<Egdb, EgdbError> {
        Egdb::open_where(dir, cache_mb, false, &|| ())
    }

    /// [`Egdb::open`] of the complete levels only: on each board size, the slices up to the most
    /// pieces of which every slice is there ([`complete_pieces`]); the slices of a level still
    /// being built (by `egdb build`, maybe in the background of `serve`) are neither opened nor
    /// held in memory, and are no reason for a warning. [`EgdbError::Empty`] when no level is
    /// complete.
    pub fn open_complete(dir: &Path, cache_mb: usize) -> Result<Egdb, EgdbError> {
        Egdb::open_where(dir, cache_mb, true, &|| ())
    }

    /// [`Egdb::open_complete`] that calls `between` before it reads each slice file (its header,
    /// then its values when they are held in memory): the daemon's background opening waits
    /// there while the bot searches.
    pub fn open_complete_between(
        dir: &Path,
        cache_mb: usize,
        between: &(dyn Fn() + Sync),
    ) -> Result<Egdb, EgdbError> {
        Egdb::open_where(dir, cache_mb, true, between)
    }

    fn open_where(
        dir: &Path,
        cache_mb: usize,
        complete_only: bool,
        between: &(dyn Fn() + Sync),
    ) -> Result<Egdb, EgdbError> {
        let mut sizes = Vec::new();
        let mut any = false;
        for size in BoardSize::ALL {
            let mut db = SizeDb::default();
            let sdir = size_dir(dir, size);
            if sdir.is_dir() {
                let entries =
                    std::fs::read_dir(&sdir).map_err(|e| EgdbError::Io(sdir.clone(), e))?;
                let mut paths: Vec<PathBuf> = entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "cbdb"))
                    .collect();
                if complete_only {
                    let names = level_files(size, complete_pieces(dir, size));
                    paths.retain(|p| {
                        p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| names.contains(n))
                    });
                }
                paths.sort();
                if !paths.is_empty() {
                    db.slot = vec![u32::MAX; SliceKey::SLOTS];
                }
                for p in paths {
                    between();
                    let f = SliceFile::open(&p)?;
                    if f.header.version < PROBE_MIN_VERSION {
                        return Err(EgdbError::OldFormat(p, f.header.version));
                    }
                    if f.header.key.size != size {
                        return Err(EgdbError::Corrupt(
                            p,
                            format!("a {} slice in the {size} directory", f.header.key.size),
                        ));
                    }
                    db.max_pieces = db.max_pieces.max(f.header.key.pieces());
                    db.slot[f.header.key.slot()] = db.slices.len() as u32;
                    db.slices.push(f);
                    any = true;
                }
                limit_to_complete(&mut db, size, &sdir);
            }
            sizes.push(db);
        }
        if !any {
            return Err(EgdbError::Empty(dir.to_path_buf()));
        }
        // Resident when the whole database fits under the cap.
        let resident = decompressed_total(&sizes) <= cache_mb.saturating_mul(1 << 20);
        if resident {
            use rayon::prelude::*;
            for db in &mut sizes {
                db.resident = db
                    .slices
                    .par_iter()
                    .map(|f| {
                        between();
                        match f.read_raw() {
                            Ok(v) => v.into_boxed_slice(),
                            Err(e) => {
                                tracing::warn!("{e}; that slice is read block by block");
                                Box::default()
                            }
                        }
                    })
                    .collect();
            }
        }
        // Sets of two blocks within the cap (at least 4 sets), counting every block as the
        // largest there is; resident, only what a damaged slice needs.
        let cache_mb = if resident { 0 } else { cache_mb };
        let largest = sizes
            .iter()
            .flat_map(|s| s.slices.iter())
            .map(|f| f.block_bytes())
            .max()
            .unwrap_or(1);
        let cap_sets = ((cache_mb.max(1) << 20) / largest / 2).max(4);
        let sets = 1usize << (usize::BITS - 1 - cap_sets.leading_zeros());
        Ok(Egdb {
            dir: dir.to_path_buf(),
            resident,
            sizes,
            sets: (0..sets).map(|_| Mutex::new(CacheSet::default())).collect(),
            warned: AtomicBool::new(false),
        })
    }

    /// The directory it was opened from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether every slice is held decompressed in memory (the cache cap is at least the
    /// database's decompressed size).
    pub fn is_resident(&self) -> bool {
        self.resident
    }

    /// Most pieces of any slice of a board size (0: none of that size).
    #[inline]
    pub fn max_pieces(&self, size: BoardSize) -> u32 {
        self.sizes[size_index(size)].max_pieces
    }

    /// The headers of every slice, by board size.
    pub fn slices(&self) -> impl Iterator<Item = &SliceFile> {
        self.sizes.iter().flat_map(|s| s.slices.iter())
    }

    /// Bytes of every slice's values decompressed: a cap (`cache_mb` of [`Egdb::open`]) of at
    /// least this holds the database in memory.
    pub fn decompressed_bytes(&self) -> usize {
        decompressed_total(&self.sizes)
    }

    /// The code stored for an index of a slice, through the cache.
    fn code(&self, size: BoardSize, key: &SliceKey, idx: u64) -> Option<u8> {
        let db = &self.sizes[size_index(size)];
        let n = *db.slot.get(key.slot())?;
        let file = db.slices.get(n as usize)?;
        let enc = file.header.encoding;
        if let Some(values) = db.resident.get(n as usize).filter(|v| !v.is_empty()) {
            return enc.code_at(values, idx as usize);
        }
        let per = file.block_entries();
        let block = idx as usize / per;
        let id = ((size_index(size) as u64) << 56) | ((n as u64) << 32) | block as u64;
        let bits = self.sets.len().trailing_zeros();
        let set = &self.sets[(id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize];
        let mut s = set.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = s.get(id) {
            return enc.code_at(b, idx as usize % per);
        }
        // A miss: the block is read into the older way's buffer, under the set's lock (other
        // threads wait only for this set).
        let mut buf = std::mem::take(&mut s.ways[1].1);
        if let Err(e) = file.read_block_into(block, &mut buf) {
            if !self.warned.swap(true, Ordering::Relaxed) {
                tracing::warn!("{e}; positions there are searched without the database");
            }
            return None;
        }
        let c = enc.code_at(&buf, idx as usize % per);
        s.ways.swap(0, 1);
        s.ways[0] = (id, buf);
        c
    }

    /// The value of a position for the side to move, if the database holds it. A position with
    /// a capture pending is valued through its captures (won in 1 if one reaches a lost
    /// position, drawn if one reaches a draw, else lost in 1).
    pub fn probe<G: Geometry>(&self, pos: &Position<G>) -> Option<Value> {
        if !pos.has_capture() {
            return self.probe_quiet(pos);
        }
        if !self.covers(pos) {
            return None;
        }
        let mut draw = false;
        for m in &pos.legal_moves() {
            match self.probe(&pos.play(m))? {
                Value::Loss(_) => return Some(Value::Win(Some(1))),
                Value::Draw => draw = true,
                Value::Win(_) => {}
            }
        }
        Some(if draw {
            Value::Draw
        } else {
            Value::Loss(Some(1))
        })
    }

    /// [`Egdb::probe`] for a position where the side to move has no capture (what the search
    /// asks); for one with a capture pending the answer is meaningless.
    #[inline]
    pub fn probe_quiet<G: Geometry>(&self, pos: &Position<G>) -> Option<Value> {
        let n = normalize(pos);
        let key = key_of::<G>(&n);
        // A slice not there (more pieces, or a partly built database) is found before the
        // index is computed: the search asks for many.
        let db = &self.sizes[size_index(G::SIZE)];
        if key.pieces() > db.max_pieces || db.slot.get(key.slot()).is_none_or(|&s| s == u32::MAX) {
            return None;
        }
        let idx = index_of::<G>(&key, &n);
        self.code(G::SIZE, &key, idx).map(Value::from_code)
    }

    /// The value of a position of any size.
    pub fn probe_any(&self, pos: &AnyPosition) -> Option<Value> {
        crate::with_position!(pos, p => self.probe(p))
    }

    /// A best move by the database and the position's value: a win takes the move with the
    /// shortest distance to conversion (converting at once counts 0), a loss the longest, a draw
    /// the first drawing move. `None` if a successor is not in the database or there is no move.
    pub fn best_move<G: Geometry>(&self, pos: &Position<G>) -> Option<(Move<G::B>, Value)> {
        let moves = pos.legal_moves();
        let here = key_of::<G>(&normalize(pos));
        if here.pieces() > self.max_pieces(G::SIZE) {
            return None;
        }
        // (move, kind 0 win / 1 draw / 2 loss for us, distance after the move)
        let mut best: Option<(Move<G::B>, u8, u32)> = None;
        let mut unknown_dist = false;
        for m in &moves {
            let child = pos.play(m);
            let key = key_of::<G>(&normalize(&child));
            let v = self.probe(&child)?;
            let inside = key == here.flipped() && !m.is_capture() && !m.crowns;
            let (kind, d) = match v {
                Value::Loss(d) => (0, d),
                Value::Draw => (1, Some(0)),
                Value::Win(d) => (2, d),
            };
            unknown_dist |= d.is_none() && inside;
            let d = if inside { d.unwrap_or(1000) } else { 0 };
            let better = match best {
                None => true,
                Some((_, bk, bd)) => {
                    kind < bk
                        || (kind == bk && kind == 0 && d < bd)
                        || (kind == bk && kind == 2 && d > bd)
                }
            };
            if better {
                best = Some((*m, kind, d));
            }
        }
        let (m, kind, d) = best?;
        let dist = (!unknown_dist).then_some(d + 1);
        let v = match kind {
            0 => Value::Win(dist),
            1 => Value::Draw,
            _ => Value::Loss(dist),
        };
        Some((m, v))
    }

    /// [`Egdb::best_move`] for a position of any size.
    pub fn best_move_any(&self, pos: &AnyPosition) -> Option<(MoveInfo, Value)> {
        fn go<G: Geometry>(db: &Egdb, p: &Position<G>) -> Option<(MoveInfo, Value)> {
            db.best_move(p).map(|(m, v)| (MoveInfo::of::<G>(&m), v))
        }
        crate::with_position!(pos, p => go(self, p))
    }

    /// Whether a position could be in the database (its piece count is covered); cheaper than a
    /// probe.
    #[inline]
    pub fn covers<G: Geometry>(&self, pos: &Position<G>) -> bool {
        (pos.pieces[0] | pos.pieces[1]).popcount() <= self.max_pieces(G::SIZE)
    }
}
