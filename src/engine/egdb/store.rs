//! Slice files: one file per slice, its values compressed in blocks, each block with a checksum.
//!
//! Layout (little-endian), format version 3:
//!
//! | bytes | what |
//! |---|---|
//! | 0..4 | magic `CBDB` |
//! | 4..8 | format version (3) |
//! | 8..16 | board side, men 0, kings 0, men 1, kings 1, lead 0, lead 1, flags (bit 0: some distances capped; bit 1: win/loss/draw only, no distances; bit 2: positions with a capture pending hold "don't care" values) |
//! | 16..72 | entries, positions, wins, losses, draws, build milliseconds, compressed bytes (u64 each) |
//! | 72..84 | longest distance (found by the build, even where not stored), entries per block, number of blocks (u32 each) |
//! | 84 | encoding: 0 one byte per index (a code, see [`super::code`]), 1 two bits per index (four to a byte, lowest bits first: 0 draw, 1 win, 2 loss) |
//! | 85..88 | reserved (0) |
//! | 88.. | per block: offset in the file (u64), compressed length (u32), checksum (u32) |
//! | then | FNV-1a checksum (u64) of everything before it |
//! | then | the blocks: LZ4-compressed, [`BLOCK_BYTES`] bytes each before compression (the last may be shorter) |
//!
//! **Blocks** are the unit of decompression and of the probe's cache: a probe that misses the
//! cache decompresses one. Version 3 made them 1,024 bytes (4,096 positions of a win/loss/draw
//! slice, 1,024 of a slice with distances); version 2 had 4,096-byte blocks, four times the
//! work per miss, which cost the search a third of its speed in 6-piece endings. Version 2 files
//! are still probed as they are; `egdb build` on such a directory rewrites them.
//!
//! **Don't care**: the search never asks for a position where the side to move has a capture
//! (it searches the captures), and the probe resolves such positions through their captures (see
//! [`super::probe`]), so their values (and those of indices that hold no position) are not
//! stored: each repeats the value stored before it, which makes runs that LZ4 takes almost for
//! free. **Win/loss/draw only** slices (the big ones, by default 6 pieces and more) keep no
//! distances; their values are written both ways (a byte per index and four per byte) and the
//! smaller is kept.
//!
//! Version 1 (a byte per index, distances everywhere, no don't-care values) is still read by
//! the build, which rewrites such files in the current version; probing refuses it with a message
//! saying so. A file is written under a temporary name, flushed to the disk and renamed, so a slice
//! file is either complete or absent, after a crash or a power cut too; what is read is checked, so a damaged file is refused with the reason.
//!
//! Slice files are read with positioned reads (`pread`) of the open file, never mapped: a file
//! that shrinks or is replaced under a running program gives a read error for the blocks it no
//! longer holds (the probe then answers "unknown" and logs a warning), never a fault.

use super::code;
use super::index::SliceKey;
use super::EgdbError;
use crate::rules::geometry::BoardSize;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const MAGIC: &[u8; 4] = b"CBDB";
/// The format version written.
pub const VERSION: u32 = 3;
/// The oldest version the probe reads as it is (its blocks are larger; the values are the same).
pub const PROBE_MIN_VERSION: u32 = 2;
const FIXED: usize = 88;
/// Bytes of a block before compression (the unit of decompression and of the probe cache).
pub const BLOCK_BYTES: usize = 1024;
/// Bytes of a block in version 2 files (and of version 1, a byte per index).
const BLOCK_BYTES_V2: usize = 4096;

/// Bytes of a block before compression in a file of this version.
pub fn block_bytes(version: u32) -> usize {
    if version >= 3 {
        BLOCK_BYTES
    } else {
        BLOCK_BYTES_V2
    }
}

/// How a slice's values are laid out before compression.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// One code per index.
    Bytes,
    /// Two bits per index, four per byte: 0 draw, 1 win, 2 loss.
    Wld2,
}

impl Encoding {
    /// Indices per byte.
    pub fn per_byte(self) -> usize {
        match self {
            Encoding::Bytes => 1,
            Encoding::Wld2 => 4,
        }
    }

    /// Indices per block in a file of this format version.
    pub fn block_entries(self, version: u32) -> usize {
        block_bytes(version) * self.per_byte()
    }

    /// The code of index `i` of a block's bytes.
    #[inline]
    pub fn code_at(self, block: &[u8], i: usize) -> Option<u8> {
        match self {
            Encoding::Bytes => block.get(i).copied(),
            Encoding::Wld2 => block
                .get(i / 4)
                .map(|b| wld2_code((b >> (2 * (i % 4))) & 3)),
        }
    }
}

/// The code a two-bit value stands for (distances unknown).
#[inline]
fn wld2_code(v: u8) -> u8 {
    match v {
        1 => code::win(code::CAP),
        2 => code::loss(code::CAP),
        _ => code::DRAW,
    }
}

/// The two-bit value of a code.
#[inline]
fn code_wld2(c: u8) -> u8 {
    if code::is_win(c) {
        1
    } else if code::is_loss(c) {
        2
    } else {
        0
    }
}

/// Packs codes four to a byte (win/loss/draw only).
pub fn pack_wld2(values: &[u8]) -> Vec<u8> {
    values
        .chunks(4)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u8, |acc, (i, &v)| acc | code_wld2(v) << (2 * i))
        })
        .collect()
}

/// What a slice file says about its slice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SliceHeader {
    /// The slice.
    pub key: SliceKey,
    /// Indices (including those that hold no position).
    pub entries: u64,
    /// Positions.
    pub positions: u64,
    /// Positions won for the side to move.
    pub wins: u64,
    /// Positions lost for the side to move.
    pub losses: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Time taken to build it (with its partner slice), in milliseconds.
    pub build_ms: u64,
    /// Bytes of compressed values.
    pub compressed: u64,
    /// Longest distance to conversion in plies.
    pub max_distance: u32,
    /// Some distances were too long to store (they read as unknown).
    pub capped: bool,
    /// Only win, loss or draw is stored (distances read as unknown).
    pub wld_only: bool,
    /// Positions with a capture pending (and indices without a position) hold no value.
    pub dont_care: bool,
    /// The layout of the values.
    pub encoding: Encoding,
    /// The file's format version (what was read; [`VERSION`] when written).
    pub version: u32,
}

fn fnv1a(data: &[u8], mut h: u64) -> u64 {
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

const FNV_START: u64 = 0xCBF2_9CE4_8422_2325;

fn checksum32(data: &[u8]) -> u32 {
    let h = fnv1a(data, FNV_START);
    (h ^ (h >> 32)) as u32
}

/// The directory of a board size's slices under a database directory.
pub fn size_dir(dir: &Path, size: BoardSize) -> PathBuf {
    dir.join(size.to_string())
}

/// The file of a slice under a database directory.
pub fn slice_path(dir: &Path, key: &SliceKey) -> PathBuf {
    size_dir(dir, key.size).join(key.file_name())
}

/// Compresses values laid out by `enc` into blocks of a format version's size.
fn compress_blocks(values: &[u8], enc: Encoding, version: u32) -> Vec<Vec<u8>> {
    let bytes;
    let raw: &[u8] = match enc {
        Encoding::Bytes => values,
        Encoding::Wld2 => {
            bytes = pack_wld2(values);
            &bytes
        }
    };
    raw.chunks(block_bytes(version))
        .map(lz4_flex::block::compress)
        .collect()
}

/// Writes a slice's values (one code per index, as they are to be stored: don't-care values
/// already filled in) to `path`, atomically. A win/loss/draw-only slice is written in the
/// smaller of the two encodings. Sets the header's encoding, compressed size and version, and
/// returns the file's size.
pub fn write_slice(path: &Path, header: &mut SliceHeader, values: &[u8]) -> Result<u64, EgdbError> {
    write_slice_version(path, header, values, VERSION)
}

/// [`write_slice`] in an older format version (2, or 1: a byte per index), as older programs
/// wrote it: for tests of reading and converting old databases.
pub fn write_slice_version(
    path: &Path,
    header: &mut SliceHeader,
    values: &[u8],
    version: u32,
) -> Result<u64, EgdbError> {
    let io = |e: std::io::Error| EgdbError::Io(path.to_path_buf(), e);
    let mut enc = Encoding::Bytes;
    let mut blocks = compress_blocks(values, enc, version);
    if header.wld_only && version >= 2 {
        let packed = compress_blocks(values, Encoding::Wld2, version);
        let size = |b: &[Vec<u8>]| b.iter().map(|x| x.len() + 16).sum::<usize>();
        if size(&packed) <= size(&blocks) {
            blocks = packed;
            enc = Encoding::Wld2;
        }
    }
    header.encoding = enc;
    header.version = version;
    let table_len = blocks.len() * 16;
    let data_start = (FIXED + table_len + 8) as u64;
    let mut head = Vec::with_capacity(FIXED + table_len + 8);
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&version.to_le_bytes());
    let k = &header.key;
    let flags = header.capped as u8 | (header.wld_only as u8) << 1 | (header.dont_care as u8) << 2;
    head.extend_from_slice(&[
        k.size.n() as u8,
        k.men[0],
        k.kings[0],
        k.men[1],
        k.kings[1],
        k.lead[0],
        k.lead[1],
        flags,
    ]);
    let compressed: u64 = blocks.iter().map(|b| b.len() as u64).sum();
    header.compressed = compressed;
    for v in [
        header.entries,
        header.positions,
        header.wins,
        header.losses,
        header.draws,
        header.build_ms,
        compressed,
    ] {
        head.extend_from_slice(&v.to_le_bytes());
    }
    for v in [
        header.max_distance,
        enc.block_entries(version) as u32,
        blocks.len() as u32,
    ] {
        head.extend_from_slice(&v.to_le_bytes());
    }
    head.extend_from_slice(&[enc as u8, 0, 0, 0]);
    let mut offset = data_start;
    for b in &blocks {
        head.extend_from_slice(&offset.to_le_bytes());
        head.extend_from_slice(&(b.len() as u32).to_le_bytes());
        head.extend_from_slice(&checksum32(b).to_le_bytes());
        offset += b.len() as u64;
    }
    let sum = fnv1a(&head, FNV_START);
    head.extend_from_slice(&sum.to_le_bytes());
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    let tmp = path.with_extension("tmp");
    {
        let mut f = std::io::BufWriter::new(File::create(&tmp).map_err(io)?);
        f.write_all(&head).map_err(io)?;
        for b in &blocks {
            f.write_all(b).map_err(io)?;
        }
        let f = f.into_inner().map_err(|e| io(e.into_error()))?;
        // On the disk before it takes its name: after a power cut a slice file is whole or
        // absent, never a name over blocks that were not written.
        f.sync_all().map_err(io)?;
    }
    std::fs::rename(&tmp, path).map_err(io)?;
    Ok(offset)
}

/// One block's place in a file.
#[derive(Copy, Clone, Debug)]
struct BlockRef {
    offset: u64,
    len: u32,
    checksum: u32,
}

/// An open slice file (memory-mapped; its blocks are read on demand and checked the first time).
#[derive(Debug)]
pub struct SliceFile {
    /// What the header says.
    pub header: SliceHeader,
    /// Where it is.
    pub path: PathBuf,
    /// Size of the file in bytes.
    pub file_bytes: u64,
    blocks: Vec<BlockRef>,
    /// One bit a block: its checksum has been checked (a block is checked the first time it is
    /// read, not every time the cache has dropped it: the check costs as much as decompressing).
    checked: Vec<AtomicU64>,
    file: File,
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

impl SliceFile {
    /// Opens a slice file and checks its header (each block is checked when first read).
    pub fn open(path: &Path) -> Result<SliceFile, EgdbError> {
        use std::os::unix::fs::FileExt;
        let bad = |why: String| EgdbError::Corrupt(path.to_path_buf(), why);
        let io = |e| EgdbError::Io(path.to_path_buf(), e);
        let (file, file_bytes) = crate::files::open_regular(path)?;
        if file_bytes < (FIXED + 8) as u64 {
            return Err(bad(format!("{file_bytes} bytes is too short for a header")));
        }
        let mut fixed = vec![0u8; FIXED];
        file.read_exact_at(&mut fixed, 0).map_err(io)?;
        let nblocks = u32_at(&fixed, 80) as usize;
        let table_end = FIXED.saturating_add(nblocks.saturating_mul(16));
        if file_bytes < table_end as u64 + 8 {
            return Err(bad("truncated block table".into()));
        }
        // The header and block table, checked below.
        let mut b = fixed;
        b.resize(table_end + 8, 0);
        file.read_exact_at(&mut b[FIXED..], FIXED as u64)
            .map_err(io)?;
        let b: &[u8] = &b;
        if &b[0..4] != MAGIC {
            return Err(bad("not an endgame database slice (no CBDB magic)".into()));
        }
        let version = u32_at(b, 4);
        if !(1..=VERSION).contains(&version) {
            return Err(bad(format!(
                "format version {version}, this program reads versions 1 to {VERSION}"
            )));
        }
        let size = BoardSize::from_n(b[8] as usize)
            .ok_or_else(|| bad(format!("board side {} is not supported", b[8])))?;
        let key = SliceKey {
            size,
            men: [b[9], b[11]],
            kings: [b[10], b[12]],
            lead: [b[13], b[14]],
        };
        if !key.is_valid() {
            return Err(bad(format!("impossible slice {key:?}")));
        }
        let block_entries = u32_at(b, 76) as usize;
        let sum = u64_at(b, table_end);
        if fnv1a(&b[..table_end], FNV_START) != sum {
            return Err(bad("header checksum mismatch".into()));
        }
        let header = SliceHeader {
            key,
            entries: u64_at(b, 16),
            positions: u64_at(b, 24),
            wins: u64_at(b, 32),
            losses: u64_at(b, 40),
            draws: u64_at(b, 48),
            build_ms: u64_at(b, 56),
            compressed: u64_at(b, 64),
            max_distance: u32_at(b, 72),
            capped: b[15] & 1 == 1,
            wld_only: version >= 2 && b[15] & 2 != 0,
            dont_care: version >= 2 && b[15] & 4 != 0,
            encoding: match (version, b[84]) {
                (1, _) | (_, 0) => Encoding::Bytes,
                (_, 1) => Encoding::Wld2,
                (_, e) => return Err(bad(format!("unknown value encoding {e}"))),
            },
            version,
        };
        if header.entries != key.entries() {
            return Err(bad(format!(
                "{} entries where the slice has {}",
                header.entries,
                key.entries()
            )));
        }
        let want_entries = header.encoding.block_entries(version);
        if block_entries != want_entries
            || nblocks != (header.entries as usize).div_ceil(block_entries)
        {
            return Err(bad("block layout does not match the slice".into()));
        }
        let mut blocks = Vec::with_capacity(nblocks);
        for i in 0..nblocks {
            let at = FIXED + i * 16;
            let r = BlockRef {
                offset: u64_at(b, at),
                len: u32_at(b, at + 8),
                checksum: u32_at(b, at + 12),
            };
            if r.offset.saturating_add(r.len as u64) > file_bytes {
                return Err(bad(format!("block {i} lies past the end of the file")));
            }
            blocks.push(r);
        }
        Ok(SliceFile {
            header,
            path: path.to_path_buf(),
            file_bytes,
            checked: (0..blocks.len().div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            blocks,
            file,
        })
    }

    /// Number of blocks.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Indices per block.
    pub fn block_entries(&self) -> usize {
        self.header.encoding.block_entries(self.header.version)
    }

    /// Bytes of a block before compression.
    pub fn block_bytes(&self) -> usize {
        block_bytes(self.header.version)
    }

    /// The bytes of block `i`, checked and decompressed (laid out by the header's encoding).
    pub fn read_block(&self, i: usize) -> Result<Vec<u8>, EgdbError> {
        let mut out = Vec::new();
        self.read_block_into(i, &mut out)?;
        Ok(out)
    }

    /// [`SliceFile::read_block`] into a buffer (resized to the block; a buffer of the block's
    /// size is reused without allocating: the probe's cache passes the block it drops).
    pub fn read_block_into(&self, i: usize, out: &mut Vec<u8>) -> Result<(), EgdbError> {
        use std::os::unix::fs::FileExt;
        thread_local! {
            static COMPRESSED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let r = self
            .blocks
            .get(i)
            .ok_or_else(|| EgdbError::Corrupt(self.path.clone(), format!("no block {i}")))?;
        COMPRESSED.with_borrow_mut(|data| {
            data.resize(r.len as usize, 0);
            // A file that shrank under us: an error, not a fault.
            self.file.read_exact_at(data, r.offset).map_err(|e| {
                EgdbError::Corrupt(
                    self.path.clone(),
                    format!("block {i} cannot be read ({e}); was the file changed?"),
                )
            })?;
            self.decode_block(i, data, out)
        })
    }

    /// Checks (the first time) and decompresses block `i`, whose compressed bytes are `data`.
    fn decode_block(&self, i: usize, data: &[u8], out: &mut Vec<u8>) -> Result<(), EgdbError> {
        let bad = |why: String| EgdbError::Corrupt(self.path.clone(), why);
        let r = self
            .blocks
            .get(i)
            .ok_or_else(|| bad(format!("no block {i}")))?;
        let (word, bit) = (&self.checked[i / 64], 1u64 << (i % 64));
        if word.load(Ordering::Relaxed) & bit == 0 {
            if checksum32(data) != r.checksum {
                return Err(bad(format!("block {i} checksum mismatch")));
            }
            word.fetch_or(bit, Ordering::Relaxed);
        }
        let per = self.block_entries();
        let entries = if i + 1 == self.blocks.len() {
            self.header.entries as usize - i * per
        } else {
            per
        };
        let want = entries.div_ceil(self.header.encoding.per_byte());
        out.resize(want, 0);
        let got = lz4_flex::block::decompress_into(data, out)
            .map_err(|e| bad(format!("block {i} does not decompress: {e}")))?;
        if got != want {
            return Err(bad(format!("block {i} holds {got} bytes, not {want}")));
        }
        Ok(())
    }

    /// Bytes of the slice's values decompressed (laid out by its encoding).
    pub fn decompressed_bytes(&self) -> usize {
        (self.header.entries as usize).div_ceil(self.header.encoding.per_byte())
    }

    /// The slice's values decompressed, laid out by its encoding (checks every block).
    pub fn read_raw(&self) -> Result<Vec<u8>, EgdbError> {
        use std::os::unix::fs::FileExt;
        // The whole file in one read, then each block from it.
        let mut file = vec![0u8; self.file_bytes as usize];
        self.file
            .read_exact_at(&mut file, 0)
            .map_err(|e| EgdbError::Io(self.path.clone(), e))?;
        let mut out = Vec::with_capacity(self.decompressed_bytes());
        let mut buf = Vec::new();
        for (i, r) in self.blocks.iter().enumerate() {
            let data = &file[r.offset as usize..(r.offset + r.len as u64) as usize];
            self.decode_block(i, data, &mut buf)?;
            out.extend_from_slice(&buf);
        }
        Ok(out)
    }

    /// Every value of the slice as codes, one per index (checks every block). Where distances
    /// are not stored they read as unknown; don't-care indices read as stored.
    pub fn read_all(&self) -> Result<Vec<u8>, EgdbError> {
        let n = self.header.entries as usize;
        let mut out = Vec::with_capacity(n);
        for i in 0..self.blocks.len() {
            let b = self.read_block(i)?;
            match self.header.encoding {
                Encoding::Bytes => out.extend_from_slice(&b),
                Encoding::Wld2 => {
                    for &x in &b {
                        for k in 0..4 {
                            if out.len() < n {
                                out.push(wld2_code((x >> (2 * k)) & 3));
                            }
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SliceKey {
        SliceKey {
            size: BoardSize::S6,
            men: [1, 0],
            kings: [0, 1],
            lead: [2, 0],
        }
    }

    fn header(wld_only: bool) -> SliceHeader {
        let key = key();
        SliceHeader {
            key,
            entries: key.entries(),
            positions: 10,
            wins: 1,
            losses: 2,
            draws: 7,
            build_ms: 5,
            compressed: 0,
            max_distance: 3,
            capped: false,
            wld_only,
            dont_care: true,
            encoding: Encoding::Bytes,
            version: VERSION,
        }
    }

    #[test]
    fn round_trip_and_damage_is_refused() {
        let dir = std::env::temp_dir().join(format!("cbdb-store-{}", std::process::id()));
        let key = key();
        let values: Vec<u8> = (0..key.entries()).map(|i| (i % 7) as u8).collect();
        let mut header = header(false);
        let path = slice_path(&dir, &key);
        write_slice(&path, &mut header, &values).unwrap();
        let f = SliceFile::open(&path).unwrap();
        assert_eq!(f.read_all().unwrap(), values);
        assert_eq!(f.header, header);
        // A flipped byte in the data is found when its block is read.
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(&path, &bytes).unwrap();
        let f = SliceFile::open(&path).unwrap();
        assert!(matches!(f.read_all(), Err(EgdbError::Corrupt(..))));
        // A flipped byte in the header, and a truncated file, are refused at once.
        bytes[last] ^= 0x55;
        bytes[20] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            SliceFile::open(&path),
            Err(EgdbError::Corrupt(..))
        ));
        std::fs::write(&path, &bytes[..50]).unwrap();
        assert!(matches!(
            SliceFile::open(&path),
            Err(EgdbError::Corrupt(..))
        ));
        std::fs::write(&path, b"hello").unwrap();
        let e = SliceFile::open(&path).unwrap_err().to_string();
        assert!(e.contains("short"), "{e}");
        // Another version is refused with the versions named.
        bytes[20] ^= 1;
        bytes[4] = 9;
        std::fs::write(&path, &bytes).unwrap();
        let e = SliceFile::open(&path).unwrap_err().to_string();
        assert!(e.contains("format version 9"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn win_loss_draw_slices_pack_four_to_a_byte() {
        let dir = std::env::temp_dir().join(format!("cbdb-store-wld-{}", std::process::id()));
        let key = key();
        // Runs of one value, as don't-care filling makes them.
        let values: Vec<u8> = (0..key.entries())
            .map(|i| match (i / 37) % 3 {
                0 => code::DRAW,
                1 => code::win(code::CAP),
                _ => code::loss(code::CAP),
            })
            .collect();
        let mut header = header(true);
        let path = slice_path(&dir, &key);
        write_slice(&path, &mut header, &values).unwrap();
        assert_eq!(header.encoding, Encoding::Wld2);
        let f = SliceFile::open(&path).unwrap();
        assert_eq!(f.header, header);
        assert_eq!(f.read_all().unwrap(), values);
        for (i, &v) in values.iter().enumerate() {
            let per = f.block_entries();
            let b = f.read_block(i / per).unwrap();
            assert_eq!(f.header.encoding.code_at(&b, i % per), Some(v));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
