//! Slice files: one file per slice, its values compressed in blocks, each block with a checksum.
//!
//! Layout (little-endian):
//!
//! | bytes | what |
//! |---|---|
//! | 0..4 | magic `CBDB` |
//! | 4..8 | format version (1) |
//! | 8..16 | board side, men 0, kings 0, men 1, kings 1, lead 0, lead 1, flags (bit 0: distances capped) |
//! | 16..72 | entries, positions, wins, losses, draws, build milliseconds, compressed bytes (u64 each) |
//! | 72..84 | longest distance, entries per block, number of blocks (u32 each) |
//! | 84..88 | reserved (0) |
//! | 88.. | per block: offset in the file (u64), compressed length (u32), checksum (u32) |
//! | then | FNV-1a checksum (u64) of everything before it |
//! | then | the blocks: LZ4-compressed values, one byte per index (see [`super::Value`]) |
//!
//! A file is written under a temporary name and renamed, so a slice file is either complete or
//! absent; what is read is checked, so a damaged file is refused with the reason.

use super::index::SliceKey;
use super::EgdbError;
use crate::rules::geometry::BoardSize;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 4] = b"CBDB";
const VERSION: u32 = 1;
const FIXED: usize = 88;
/// Values per compressed block.
pub const BLOCK: usize = 4096;

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

/// Writes a slice's values (one code per index) to `path`, atomically; returns the file's size.
pub fn write_slice(path: &Path, header: &SliceHeader, values: &[u8]) -> Result<u64, EgdbError> {
    let io = |e: std::io::Error| EgdbError::Io(path.to_path_buf(), e);
    let blocks: Vec<Vec<u8>> = values
        .chunks(BLOCK)
        .map(lz4_flex::block::compress)
        .collect();
    let table_len = blocks.len() * 16;
    let data_start = (FIXED + table_len + 8) as u64;
    let mut head = Vec::with_capacity(FIXED + table_len + 8);
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&VERSION.to_le_bytes());
    let k = &header.key;
    head.extend_from_slice(&[
        k.size.n() as u8,
        k.men[0],
        k.kings[0],
        k.men[1],
        k.kings[1],
        k.lead[0],
        k.lead[1],
        header.capped as u8,
    ]);
    let compressed: u64 = blocks.iter().map(|b| b.len() as u64).sum();
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
    for v in [header.max_distance, BLOCK as u32, blocks.len() as u32, 0] {
        head.extend_from_slice(&v.to_le_bytes());
    }
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
        drop(f);
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

/// An open slice file (memory-mapped; its blocks are read and checked on demand).
#[derive(Debug)]
pub struct SliceFile {
    /// What the header says.
    pub header: SliceHeader,
    /// Where it is.
    pub path: PathBuf,
    /// Size of the file in bytes.
    pub file_bytes: u64,
    blocks: Vec<BlockRef>,
    map: memmap2::Mmap,
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
    /// Opens a slice file and checks its header (the blocks are checked when read).
    pub fn open(path: &Path) -> Result<SliceFile, EgdbError> {
        let bad = |why: String| EgdbError::Corrupt(path.to_path_buf(), why);
        let file = File::open(path).map_err(|e| EgdbError::Io(path.to_path_buf(), e))?;
        // Safety: the file is only read; databases are written once under a temporary name and
        // renamed, never changed in place. A file changed by someone else while mapped reads as
        // damaged blocks (checksums) or, at worst, wrong values.
        let map = unsafe { memmap2::Mmap::map(&file) }
            .map_err(|e| EgdbError::Io(path.to_path_buf(), e))?;
        let b: &[u8] = &map;
        if b.len() < FIXED + 8 {
            return Err(bad(format!("{} bytes is too short for a header", b.len())));
        }
        if &b[0..4] != MAGIC {
            return Err(bad("not an endgame database slice (no CBDB magic)".into()));
        }
        let version = u32_at(b, 4);
        if version != VERSION {
            return Err(bad(format!(
                "format version {version}, this program reads {VERSION}"
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
        let nblocks = u32_at(b, 80) as usize;
        let block_entries = u32_at(b, 76) as usize;
        let table_end = FIXED + nblocks * 16;
        if b.len() < table_end + 8 {
            return Err(bad("truncated block table".into()));
        }
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
        };
        if header.entries != key.entries() {
            return Err(bad(format!(
                "{} entries where the slice has {}",
                header.entries,
                key.entries()
            )));
        }
        if block_entries != BLOCK || nblocks != (header.entries as usize).div_ceil(BLOCK) {
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
            if r.offset.saturating_add(r.len as u64) > b.len() as u64 {
                return Err(bad(format!("block {i} lies past the end of the file")));
            }
            blocks.push(r);
        }
        Ok(SliceFile {
            header,
            path: path.to_path_buf(),
            file_bytes: b.len() as u64,
            blocks,
            map,
        })
    }

    /// Number of blocks.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The values of block `i`, checked and decompressed.
    pub fn read_block(&self, i: usize) -> Result<Vec<u8>, EgdbError> {
        let bad = |why: String| EgdbError::Corrupt(self.path.clone(), why);
        let r = self
            .blocks
            .get(i)
            .ok_or_else(|| bad(format!("no block {i}")))?;
        let data = &self.map[r.offset as usize..(r.offset + r.len as u64) as usize];
        if checksum32(data) != r.checksum {
            return Err(bad(format!("block {i} checksum mismatch")));
        }
        let want = if i + 1 == self.blocks.len() {
            self.header.entries as usize - i * BLOCK
        } else {
            BLOCK
        };
        let out = lz4_flex::block::decompress(data, want)
            .map_err(|e| bad(format!("block {i} does not decompress: {e}")))?;
        if out.len() != want {
            return Err(bad(format!(
                "block {i} holds {} values, not {want}",
                out.len()
            )));
        }
        Ok(out)
    }

    /// Every value of the slice (checks every block).
    pub fn read_all(&self) -> Result<Vec<u8>, EgdbError> {
        let mut out = Vec::with_capacity(self.header.entries as usize);
        for i in 0..self.blocks.len() {
            out.extend_from_slice(&self.read_block(i)?);
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

    #[test]
    fn round_trip_and_damage_is_refused() {
        let dir = std::env::temp_dir().join(format!("cbdb-store-{}", std::process::id()));
        let key = key();
        let values: Vec<u8> = (0..key.entries()).map(|i| (i % 7) as u8).collect();
        let header = SliceHeader {
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
        };
        let path = slice_path(&dir, &key);
        write_slice(&path, &header, &values).unwrap();
        let f = SliceFile::open(&path).unwrap();
        assert_eq!(f.read_all().unwrap(), values);
        assert_eq!(f.header.wins, 1);
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
        let _ = std::fs::remove_dir_all(&dir);
    }
}
