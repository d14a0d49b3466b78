//! The training-data file: positions from self-play games with their outcome and search score.
//!
//! Format (all integers little-endian):
//!
//! - a 16-byte header: the magic `CBSP`, the format version (`u16`, now 1), the board size `n`
//!   (`u8`), a reserved zero byte, the record size in bytes (`u16`), six zero bytes;
//! - then fixed-size records, one per quiet position (no capture pending for the side to move):
//!   four bit sets of the playable squares, each `ceil(n*n/2 / 8)` bytes, in the order player's men,
//!   player's kings, bot's men, bot's kings (bit `i` is the `i`-th playable square in reading order:
//!   rows from the top, columns from the left); the side to move (`0` = `p`, `1` = `b`); the game's
//!   result for the side to move (`0` loss, `1` draw, `2` win); the search score for the side to
//!   move in hundredths of a man (`i16`, proven wins and losses clamped to +/-[`SCORE_CLAMP`]); the
//!   ply of the position in the game (`u16`, the random opening counted).
//!
//! A file is appendable: a new run opens it, checks the header and adds records at the end. A
//! reader ignores a partial last record (an interrupted writer), so every complete record counts.

use crate::rules::any_size::AnyPosition;
use crate::rules::board::Grid;
use crate::rules::geometry::BoardSize;
use crate::rules::position::{Piece, Side};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use thiserror::Error;

/// The file's magic bytes.
pub const MAGIC: [u8; 4] = *b"CBSP";
/// The format version this code writes and reads.
pub const VERSION: u16 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 16;
/// Search scores are clamped to this magnitude (a proven win is stored as this).
pub const SCORE_CLAMP: i16 = 3000;

/// What can go wrong with a data file.
#[derive(Debug, Error)]
pub enum DataError {
    /// An I/O error, with the file's path.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: io::Error,
    },
    /// Not a data file, or another version or size.
    #[error("{path}: {why}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
}

/// The outcome of the game for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The side to move lost.
    Loss = 0,
    /// Drawn.
    Draw = 1,
    /// The side to move won.
    Win = 2,
}

impl Outcome {
    /// The outcome for `side` of a game that `winner` won (`None`: drawn).
    pub fn for_side(winner: Option<Side>, side: Side) -> Outcome {
        match winner {
            None => Outcome::Draw,
            Some(w) if w == side => Outcome::Win,
            Some(_) => Outcome::Loss,
        }
    }

    /// The training target: 0, 1/2 or 1.
    pub fn target(self) -> f32 {
        f32::from(self as u8) / 2.0
    }

    fn from_byte(b: u8) -> Option<Outcome> {
        match b {
            0 => Some(Outcome::Loss),
            1 => Some(Outcome::Draw),
            2 => Some(Outcome::Win),
            _ => None,
        }
    }
}

/// One training position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The position (its side to move included).
    pub grid: Grid,
    /// The side to move.
    pub side: Side,
    /// The game's result for the side to move.
    pub outcome: Outcome,
    /// The search score for the side to move, hundredths of a man, clamped.
    pub score: i16,
    /// Ply in the game.
    pub ply: u16,
}

/// Bytes of one bit set of the playable squares on an `n`x`n` board.
fn set_len(size: BoardSize) -> usize {
    size.squares().div_ceil(8)
}

/// Bytes of one record on an `n`x`n` board.
pub fn record_len(size: BoardSize) -> usize {
    4 * set_len(size) + 1 + 1 + 2 + 2
}

impl Record {
    /// A record of `pos` with its outcome, score and ply.
    pub fn new(pos: &AnyPosition, outcome: Outcome, score: i32, ply: usize) -> Record {
        let clamp = i32::from(SCORE_CLAMP);
        Record {
            grid: pos.grid(),
            side: pos.side(),
            outcome,
            score: score.clamp(-clamp, clamp) as i16,
            ply: ply.min(usize::from(u16::MAX)) as u16,
        }
    }

    /// The position.
    pub fn position(&self) -> AnyPosition {
        AnyPosition::from_grid(&self.grid, self.side)
    }

    /// Appends the record's bytes to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let size = self.grid.size();
        let len = set_len(size);
        let mut sets = vec![0u8; 4 * len];
        for (i, c) in self.grid.playable().enumerate() {
            let which = match self.grid.get(c) {
                None => continue,
                Some(Piece { side, king }) => side.index() * 2 + usize::from(king),
            };
            sets[which * len + i / 8] |= 1 << (i % 8);
        }
        out.extend_from_slice(&sets);
        out.push(self.side.index() as u8);
        out.push(self.outcome as u8);
        out.extend_from_slice(&self.score.to_le_bytes());
        out.extend_from_slice(&self.ply.to_le_bytes());
    }

    /// Reads a record of an `n`x`n` board from exactly [`record_len`] bytes.
    pub fn decode(size: BoardSize, bytes: &[u8]) -> Option<Record> {
        let len = set_len(size);
        if bytes.len() != record_len(size) {
            return None;
        }
        let mut grid = Grid::empty(size);
        let coords: Vec<_> = grid.playable().collect();
        for (i, &c) in coords.iter().enumerate() {
            for which in 0..4 {
                if bytes[which * len + i / 8] & (1 << (i % 8)) != 0 {
                    let side = if which / 2 == 0 {
                        Side::Player
                    } else {
                        Side::Bot
                    };
                    grid.set(
                        c,
                        Some(Piece {
                            side,
                            king: which % 2 == 1,
                        }),
                    );
                }
            }
        }
        let rest = &bytes[4 * len..];
        let side = match rest[0] {
            0 => Side::Player,
            1 => Side::Bot,
            _ => return None,
        };
        Some(Record {
            grid,
            side,
            outcome: Outcome::from_byte(rest[1])?,
            score: i16::from_le_bytes([rest[2], rest[3]]),
            ply: u16::from_le_bytes([rest[4], rest[5]]),
        })
    }
}

fn header(size: BoardSize) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..4].copy_from_slice(&MAGIC);
    h[4..6].copy_from_slice(&VERSION.to_le_bytes());
    h[6] = size.n() as u8;
    h[8..10].copy_from_slice(&(record_len(size) as u16).to_le_bytes());
    h
}

fn check_header(path: &str, h: &[u8]) -> Result<BoardSize, DataError> {
    let bad = |why: String| DataError::Format {
        path: path.to_string(),
        why,
    };
    if h.len() < HEADER_LEN || h[..4] != MAGIC {
        return Err(bad(
            "not a checkersbot self-play data file (no CBSP header)".into(),
        ));
    }
    let version = u16::from_le_bytes([h[4], h[5]]);
    if version != VERSION {
        return Err(bad(format!(
            "format version {version}; this program reads version {VERSION}"
        )));
    }
    let size = BoardSize::from_n(usize::from(h[6]))
        .ok_or_else(|| bad(format!("board size {} is not supported", h[6])))?;
    let rec = usize::from(u16::from_le_bytes([h[8], h[9]]));
    if rec != record_len(size) {
        return Err(bad(format!(
            "record size {rec} does not fit a {size} board (expected {})",
            record_len(size)
        )));
    }
    Ok(size)
}

/// Appends records to a data file, writing the header if the file is new or empty.
#[derive(Debug)]
pub struct Writer {
    file: File,
    path: String,
    size: BoardSize,
    written: u64,
    existing: u64,
}

impl Writer {
    /// Opens `path` for appending `size` records (creating it if needed). An existing file must
    /// hold records of the same size; a partial last record left by an interrupted run is cut off.
    pub fn append(path: &Path, size: BoardSize) -> Result<Writer, DataError> {
        let name = path.display().to_string();
        let io = |source| DataError::Io {
            path: name.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let mut existing = 0;
        if len == 0 {
            file.write_all(&header(size)).map_err(io)?;
        } else {
            let mut h = [0u8; HEADER_LEN];
            file.seek(SeekFrom::Start(0)).map_err(io)?;
            file.read_exact(&mut h).map_err(io)?;
            let found = check_header(&name, &h)?;
            if found != size {
                return Err(DataError::Format {
                    path: name,
                    why: format!("holds {found} positions, not {size}"),
                });
            }
            let rec = record_len(size) as u64;
            let whole = (len - HEADER_LEN as u64) / rec * rec + HEADER_LEN as u64;
            if whole != len {
                file.set_len(whole).map_err(io)?;
            }
            existing = (whole - HEADER_LEN as u64) / rec;
        }
        Ok(Writer {
            file,
            path: name,
            size,
            written: 0,
            existing,
        })
    }

    /// Writes records (all of this writer's size) and flushes them to the file.
    pub fn write(&mut self, records: &[Record]) -> Result<(), DataError> {
        let mut buf = Vec::with_capacity(records.len() * record_len(self.size));
        for r in records {
            r.encode(&mut buf);
        }
        self.file
            .write_all(&buf)
            .and_then(|_| self.file.flush())
            .map_err(|source| DataError::Io {
                path: self.path.clone(),
                source,
            })?;
        self.written += records.len() as u64;
        Ok(())
    }

    /// Records written by this writer.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Complete records the file held when this writer opened it (a run resumes after them).
    pub fn existing(&self) -> u64 {
        self.existing
    }
}

/// Reads every complete record of a data file (a partial last record is ignored), or the records
/// of a file of self-play games kept as text ([`crate::learn::games`]).
pub fn read_all(path: &Path) -> Result<(BoardSize, Vec<Record>), DataError> {
    let name = path.display().to_string();
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|source| DataError::Io {
            path: name.clone(),
            source,
        })?;
    if bytes
        .trim_ascii_start()
        .first()
        .is_some_and(|&b| b == b'[' || b == b'{')
    {
        // Games kept as text (crate::learn::games): their records.
        let text = String::from_utf8_lossy(&bytes);
        let records = crate::learn::games::read_games(&text).map_err(|e| DataError::Format {
            path: name.clone(),
            why: e.to_string(),
        })?;
        return Ok((BoardSize::S8, records));
    }
    let size = check_header(&name, &bytes)?;
    let rec = record_len(size);
    let mut out = Vec::with_capacity((bytes.len() - HEADER_LEN) / rec);
    for (i, chunk) in bytes[HEADER_LEN..].chunks_exact(rec).enumerate() {
        let r = Record::decode(size, chunk).ok_or_else(|| DataError::Format {
            path: name.clone(),
            why: format!("record {i} is corrupt"),
        })?;
        out.push(r);
    }
    Ok((size, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_and_files_append() {
        let dir = std::env::temp_dir().join(format!("cb-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.cbsp");
        let _ = std::fs::remove_file(&path);
        let mut recs = Vec::new();
        for size in [BoardSize::S8] {
            let start = AnyPosition::initial(size, Side::Bot);
            let mut pos = start;
            for ply in 0..10 {
                recs.push(Record::new(
                    &pos,
                    Outcome::Draw,
                    4000 - ply as i32 * 900,
                    ply,
                ));
                let mv = pos.legal_moves()[0].clone();
                pos = pos.play(&mv).unwrap();
            }
        }
        assert_eq!(recs[0].score, SCORE_CLAMP);
        assert_eq!(recs[5].score, -500);
        assert_eq!(recs[9].score, -SCORE_CLAMP);
        let mut w = Writer::append(&path, BoardSize::S8).unwrap();
        w.write(&recs[..4]).unwrap();
        drop(w);
        // A run interrupted mid-record: the partial record is ignored, then cut on append.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[1, 2, 3]).unwrap();
        drop(f);
        assert_eq!(read_all(&path).unwrap().1, recs[..4].to_vec());
        let mut w = Writer::append(&path, BoardSize::S8).unwrap();
        w.write(&recs[4..]).unwrap();
        let (size, back) = read_all(&path).unwrap();
        assert_eq!((size, &back), (BoardSize::S8, &recs));
        assert_eq!(back[3].position(), recs[3].position());
        // Another size or a foreign file is refused with a reason.
        let e = Writer::append(&path, BoardSize::S10).unwrap_err();
        assert!(
            e.to_string().contains("holds 8x8 positions, not 10x10"),
            "{e}"
        );
        std::fs::write(&path, b"hello world, not data").unwrap();
        let e = read_all(&path).unwrap_err();
        assert!(e.to_string().contains("no CBSP header"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
