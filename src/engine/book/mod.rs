//! The opening book: positions the program has searched deeply ahead of time, each with its moves
//! and their values, built by [`build`] and consulted by the engine at the root before it searches.
//!
//! **Positions** are kept in a canonical form with the player (`p`) to move: a position with the
//! bot to move is turned 180 degrees and its colours swapped, which is the same game seen from the
//! other side of the table (men of the side to move always go up). One book therefore answers for
//! both colours; [`Book::moves`] turns the moves back. Positions are found by the Zobrist hash
//! ([`AnyPosition::hash_key`]) of the canonical position and compared in full, so a hash collision
//! can never give a wrong answer.
//!
//! **Values** are hundredths of a man from the side to move's point of view (the engine's
//! [`Score`](crate::engine::Score)). An expanded position lists every legal move with the minimax
//! value of the book below it; a leaf lists the best move of its own search.
//!
//! **File format** (little-endian), version [`VERSION`] (version 1 is still read):
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic [`MAGIC`] |
//! | 2 | format version |
//! | 1 | board side (4..12) |
//! | 1 | reserved, 0 |
//! | 8 | node budget per position of the latest build (0: none) |
//! | 8 | move time per position of the latest build, ms (0: none) |
//! | 4 | drop-out penalty per ply, hundredths of a man |
//! | 8 | build time, wall-clock seconds (summed over the builds that grew the book) |
//! | 8 | build compute, CPU seconds (summed likewise; version 2 only) |
//! | 8 | searches made |
//! | 4 | positions |
//! | 8 | body length, bytes |
//! | 8 | checksum: 64-bit FNV-1a of the header before it and of the body |
//!
//! The body is one record per position: three bit sets of the playable squares in standard order
//! (player pieces, bot pieces, kings; `ceil(squares / 8)` bytes each), the position's own search
//! value (i16), the depth that search reached (u8), flags (u8; bit 0: expanded, bit 1: its
//! expansion is under way, see [`build`]; bit 2: taken from another search's principal
//! variation, [`Entry::pv`]; a reader that does not know bit 2 reads such a record as a leaf),
//! the node budget of that search (u64; version 2 only: a version 1 record takes the header's),
//! the number of moves (u8), then per move its path length (u8), its path as standard square
//! numbers (u8 each) and its value (i16).
//!
//! A file is refused with a [`BookError`] naming the fault: not a regular file of at most
//! [`MAX_BOOK_FILE`] bytes (read through [`crate::files`]), no book header, another version, a board
//! size this program does not have or that is not the one expected, a truncated file or extra
//! bytes, a checksum mismatch, an impossible position, or a move that is not legal in its position.

pub mod build;
pub mod lines;
pub mod shard;

use crate::rng::Rng;
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::board::Grid;
use crate::rules::geometry::{BoardSize, Coord};
use crate::rules::position::{Piece, Side};
use std::collections::HashMap;
use std::path::Path;

/// The first eight bytes of a book file.
pub const MAGIC: [u8; 8] = *b"CBBOOK\r\n";
/// The format version this program writes.
pub const VERSION: u16 = 2;
/// The format versions this program reads.
pub const READS: [u16; 2] = [1, 2];
/// Bytes of the header (version 2).
pub const HEADER_LEN: usize = 8 + 2 + 1 + 1 + 8 + 8 + 4 + 8 + 8 + 8 + 4 + 8 + 8;
/// Bytes of a version 1 header (no compute field).
pub const HEADER_LEN_V1: usize = HEADER_LEN - 8;

/// The built-in 8x8 book (see `docs/experiments/opening-book.md` for how it was built).
pub const BUILTIN_8X8: &[u8] = include_bytes!("../../../books/8x8.cbbk");
/// The board size of the built-in book ([`BUILTIN_8X8`]).
pub const BUILTIN_SIZE: BoardSize = BoardSize::S8;

/// The largest book file read (a book of a million positions is about 40 MiB).
pub const MAX_BOOK_FILE: u64 = 256 << 20;

/// Why a book could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file cannot be read: missing, not a regular file, or too large.
    #[error(transparent)]
    File(#[from] crate::files::FileError),
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file does not start with the book magic.
    #[error("not a checkersbot opening book (no CBBOOK header)")]
    Magic,
    /// Another format version.
    #[error("book format version {found}; this program reads versions 1 and 2")]
    Version {
        /// The version in the file.
        found: u16,
    },
    /// The header names a board size this program does not have.
    #[error("the header names a {0}x{0} board, which is not a supported size")]
    BadSize(u8),
    /// The book is for another board size than the one asked for.
    #[error("wrong board size: the book is for {found}, expected {expected}")]
    WrongSize {
        /// The book's size.
        found: BoardSize,
        /// The size asked for.
        expected: BoardSize,
    },
    /// The file ends before the header or the body does.
    #[error("truncated: {what} needs {needed} bytes, the file has {found}")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes needed.
        needed: usize,
        /// Bytes there.
        found: usize,
    },
    /// Bytes after the body.
    #[error("{0} bytes after the end of the book")]
    Trailing(usize),
    /// The checksum does not match the contents.
    #[error("checksum mismatch: the header says {stored:016x}, the contents give {computed:016x}")]
    Checksum {
        /// The checksum in the header.
        stored: u64,
        /// The checksum of the contents.
        computed: u64,
    },
    /// A record's position cannot be (two pieces on a square, a king on an empty square, an
    /// unknown square number).
    #[error("position {index}: {what}")]
    BadPosition {
        /// Record number, from 0.
        index: usize,
        /// What is wrong.
        what: String,
    },
    /// The same position twice.
    #[error("position {index} ({position}) is in the book twice")]
    Duplicate {
        /// Record number of the second copy.
        index: usize,
        /// The position.
        position: String,
    },
    /// A book move is not a legal move of its position.
    #[error("position {index} ({position}): move {mv} is not legal there")]
    IllegalMove {
        /// Record number.
        index: usize,
        /// The position.
        position: String,
        /// The move's path.
        mv: String,
    },
    /// Too much to store (a field would overflow).
    #[error("cannot write the book: {0}")]
    TooLarge(String),
    /// A worker thread of a run stopped with a panic (a bug): the book in memory is not trusted
    /// and is not saved.
    #[error("a thread of the book's run failed; the book was not saved")]
    WorkerFailed,
}

/// A book move with its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move.
    pub mv: MoveInfo,
    /// Its value, hundredths of a man, from the mover's point of view.
    pub value: i16,
}

/// One position of the book, canonical (the player to move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The position, with [`Side::Player`] to move.
    pub position: AnyPosition,
    /// The value its own search gave it.
    pub value: i16,
    /// The depth that search completed.
    pub depth: u8,
    /// The node budget of that search (0: it had a move time instead).
    pub nodes: u64,
    /// Whether every legal move was searched in the book (else a leaf with its search's move).
    pub expanded: bool,
    /// Whether a build is expanding it: a build stopped in the middle of a round leaves the
    /// round's leaves marked, so that the next build finishes that round first.
    pub pending: bool,
    /// Whether the record comes from another search's principal variation rather than a search
    /// of its own ([`build::pv_entries`]): its move and value are that search's at this ply, its
    /// depth and node budget what was left of that search's there (the budget halved each ply).
    /// A search of its own at a larger budget replaces it like any smaller leaf.
    pub pv: bool,
    /// The moves, best first.
    pub moves: Vec<BookMove>,
}

impl Entry {
    /// The value the book's minimax gives the position, for the side to move: an expanded
    /// record's best move's (its moves hold the book below it; its own search is older), a
    /// leaf's own search's.
    pub fn standing(&self) -> i16 {
        match self.moves.iter().map(|m| m.value).max() {
            Some(best) if self.expanded => best,
            _ => self.value,
        }
    }
}

/// How a book was built: kept in its header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildInfo {
    /// Node budget of each position's search (0: none).
    pub nodes: u64,
    /// Move time of each position's search, ms (0: none).
    pub movetime_ms: u64,
    /// Drop-out penalty per ply, hundredths of a man.
    pub penalty: u32,
    /// Build time in wall-clock seconds, summed over the builds that grew the book.
    pub seconds: u64,
    /// Build compute in CPU seconds (core-seconds), summed likewise; counted from format
    /// version 2 on (a version 1 book reads as 0).
    pub cpu_seconds: u64,
    /// Searches made.
    pub searches: u64,
}

/// An opening book for one board size.
#[derive(Clone, PartialEq, Eq)]
pub struct Book {
    size: BoardSize,
    info: BuildInfo,
    entries: Vec<Entry>,
    index: HashMap<u64, usize>,
}

impl std::fmt::Debug for Book {
    /// A summary (size, positions, build record), not every position.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Book")
            .field("size", &self.size)
            .field("positions", &self.entries.len())
            .field("info", &self.info)
            .finish()
    }
}

/// A book spec as the command line and the daemon accept it: `builtin`, `off` or a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookSpec {
    /// The built-in 8x8 book.
    Builtin,
    /// No book.
    Off,
    /// A book file.
    File(std::path::PathBuf),
}

impl BookSpec {
    /// Reads `builtin`, `off` (also `none`) or a path.
    pub fn parse(text: &str) -> BookSpec {
        match text {
            "builtin" => BookSpec::Builtin,
            "off" | "none" => BookSpec::Off,
            path => BookSpec::File(path.into()),
        }
    }

    /// The book this spec names (`None` for `off`).
    pub fn load(&self) -> Result<Option<Book>, BookError> {
        match self {
            BookSpec::Builtin => Book::builtin().map(Some),
            BookSpec::Off => Ok(None),
            BookSpec::File(p) => Book::load(p).map(Some),
        }
    }

    /// [`BookSpec::load`] for a process that consults the book at `root` only (a one-position
    /// `search`): the built-in book is cut down to `root`'s record without decoding the others
    /// ([`Book::from_bytes_for`]), so the cost does not grow with the book, and is not read at
    /// all on another size; a file is read and checked whole, as [`BookSpec::load`] does. The
    /// engine answers `root` exactly as with the whole book.
    pub fn load_for_root(&self, root: &AnyPosition) -> Result<Option<Book>, BookError> {
        match self {
            BookSpec::Builtin if root.size() != BUILTIN_SIZE => Ok(None),
            BookSpec::Builtin => Book::from_bytes_for(BUILTIN_8X8, &[*root], false).map(Some),
            _ => self.load(),
        }
    }

    /// The name it is shown by: `builtin`, `off` or the path.
    pub fn name(&self) -> String {
        match self {
            BookSpec::Builtin => "builtin".into(),
            BookSpec::Off => "off".into(),
            BookSpec::File(p) => p.display().to_string(),
        }
    }
}

/// 64-bit FNV-1a over several slices, as one.
pub fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The position as the book keeps it (the player to move) and whether it was turned to get there.
pub fn canonical(pos: &AnyPosition) -> (AnyPosition, bool) {
    if pos.side() == Side::Player {
        return (*pos, false);
    }
    let grid = pos.grid().rotated();
    let mut swapped = Grid::empty(grid.size());
    for c in grid.playable() {
        let piece = grid.get(c).map(|p| Piece {
            side: p.side.opponent(),
            king: p.king,
        });
        swapped.set(c, piece);
    }
    (AnyPosition::from_grid(&swapped, Side::Player), true)
}

/// A move turned 180 degrees (between a position and its canonical form).
pub fn turn_move(mv: &MoveInfo, size: BoardSize) -> MoveInfo {
    let n = size.n() as u8;
    let t = |c: &Coord| Coord::new(n - 1 - c.row, n - 1 - c.col);
    MoveInfo {
        path: mv.path.iter().map(t).collect(),
        captured: mv.captured.iter().map(t).collect(),
        crowns: mv.crowns,
    }
}

/// Clamps an engine score to a book value.
pub fn value_of(score: i32) -> i16 {
    score.clamp(i32::from(i16::MIN) + 1, i32::from(i16::MAX)) as i16
}

impl Book {
    /// An empty book for a board size.
    pub fn new(size: BoardSize, info: BuildInfo) -> Book {
        Book {
            size,
            info,
            entries: Vec::new(),
            index: HashMap::new(),
        }
    }

    /// The built-in 8x8 book.
    pub fn builtin() -> Result<Book, BookError> {
        Book::from_bytes(BUILTIN_8X8)
    }

    /// Reads a book file.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        let bytes = crate::files::read_regular(path, MAX_BOOK_FILE)?;
        Book::from_bytes(&bytes)
    }

    /// Reads a book file that must be for `size`.
    pub fn load_for(path: &Path, size: BoardSize) -> Result<Book, BookError> {
        let book = Book::load(path)?;
        book.check_size(size)?;
        Ok(book)
    }

    /// Refuses the book unless it is for `size`.
    pub fn check_size(&self, size: BoardSize) -> Result<(), BookError> {
        if self.size == size {
            Ok(())
        } else {
            Err(BookError::WrongSize {
                found: self.size,
                expected: size,
            })
        }
    }

    /// The board size.
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// How the book was built.
    pub fn info(&self) -> &BuildInfo {
        &self.info
    }

    /// Changes the build record (the builder adds its time and searches).
    pub fn info_mut(&mut self) -> &mut BuildInfo {
        &mut self.info
    }

    /// Every position, in the order they were added.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The record number of a canonical position.
    pub fn find_canonical(&self, canon: &AnyPosition) -> Option<usize> {
        self.index
            .get(&canon.hash_key())
            .copied()
            .filter(|&i| self.entries[i].position == *canon)
    }

    /// The record of a canonical position.
    pub fn entry(&self, i: usize) -> &Entry {
        &self.entries[i]
    }

    /// Changes a record (its position must stay the same).
    pub(crate) fn entry_mut(&mut self, i: usize) -> &mut Entry {
        &mut self.entries[i]
    }

    /// Replaces record `i` by a new search of the same position (the caller checks it is one).
    pub(crate) fn replace(&mut self, i: usize, entry: Entry) {
        debug_assert_eq!(self.entries[i].position, entry.position);
        self.entries[i] = entry;
    }

    /// Adds a record taken from another search's principal variation ([`Entry::pv`]) unless
    /// its position has a record already. One from another variation is replaced when the new one
    /// ranks higher (node budget, then depth, value and move), so that the records a run keeps do
    /// not depend on the order its variations came in; a record searched on its own is never
    /// replaced. Returns whether the book changed.
    pub(crate) fn offer_pv(&mut self, entry: Entry) -> bool {
        debug_assert!(entry.pv && !entry.expanded);
        let Some(i) = self.find_canonical(&entry.position) else {
            return self.insert(entry).is_ok();
        };
        let old = &self.entries[i];
        if !old.pv {
            return false;
        }
        let n = self.size.n();
        let rank = |e: &Entry| {
            let path: Vec<usize> = e
                .moves
                .first()
                .map(|m| m.mv.path.iter().map(|c| c.standard_number(n)).collect())
                .unwrap_or_default();
            (e.nodes, e.depth, e.value, path)
        };
        if rank(&entry) > rank(old) {
            self.entries[i] = entry;
            true
        } else {
            false
        }
    }

    /// Adds a record (its position canonical and of the book's size); a position that is
    /// already in is refused with its record number.
    pub fn insert(&mut self, entry: Entry) -> Result<usize, usize> {
        if let Some(i) = self.find_canonical(&entry.position) {
            return Err(i);
        }
        let i = self.entries.len();
        self.index.insert(entry.position.hash_key(), i);
        self.entries.push(entry);
        Ok(i)
    }

    /// The book's moves for `pos`, best first, in `pos`'s own coordinates; `None` when the
    /// position is not in the book (or is of another size).
    pub fn moves(&self, pos: &AnyPosition) -> Option<Vec<BookMove>> {
        self.moves_within(pos, 0)
    }

    /// [`Book::moves`], but `None` also for a leaf whose search had a node budget below
    /// `min_nodes` (a search of `min_nodes` would be the better judge); expanded positions, and
    /// leaves searched by time (budget 0), always answer.
    pub fn moves_within(&self, pos: &AnyPosition, min_nodes: u64) -> Option<Vec<BookMove>> {
        if pos.size() != self.size {
            return None;
        }
        let (canon, turned) = canonical(pos);
        let i = self.find_canonical(&canon)?;
        let e = &self.entries[i];
        if e.moves.is_empty() || (!e.expanded && e.nodes > 0 && e.nodes < min_nodes) {
            return None;
        }
        Some(
            e.moves
                .iter()
                .map(|m| BookMove {
                    mv: if turned {
                        turn_move(&m.mv, self.size)
                    } else {
                        m.mv.clone()
                    },
                    value: m.value,
                })
                .collect(),
        )
    }

    /// A book move for `pos`: with `rng` and a positive `margin`, one at random among those
    /// within `margin` of the best; without, or with a margin of 0, the best (the first of
    /// equals, so that the best line is always the same). `None` when the position is not in
    /// the book.
    pub fn choose(
        &self,
        pos: &AnyPosition,
        margin: i32,
        rng: Option<&mut Rng>,
    ) -> Option<BookMove> {
        self.choose_within(pos, margin, rng, 0)
    }

    /// [`Book::choose`] among the records [`Book::moves_within`] answers for `min_nodes`.
    pub fn choose_within(
        &self,
        pos: &AnyPosition,
        margin: i32,
        rng: Option<&mut Rng>,
        min_nodes: u64,
    ) -> Option<BookMove> {
        let moves = self.moves_within(pos, min_nodes)?;
        let best = moves.iter().map(|m| m.value).max()?;
        let floor = i32::from(best) - margin.max(0);
        let near: Vec<&BookMove> = moves
            .iter()
            .filter(|m| i32::from(m.value) >= floor)
            .collect();
        let pick = match rng {
            Some(rng) if margin > 0 && near.len() > 1 => near[rng.below(near.len())],
            _ => near.iter().find(|m| m.value == best).copied()?,
        };
        Some(pick.clone())
    }

    /// The book's best line from `pos`: its best move (the first of equals) as long as the
    /// position is in the book, at most `limit` plies and never through a position twice. Its
    /// length is how many plies the book covers from `pos` when both sides play its best moves.
    pub fn best_line(&self, pos: &AnyPosition, limit: usize) -> Vec<MoveInfo> {
        let mut line = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut pos = *pos;
        while line.len() < limit && seen.insert(pos) {
            let Some(m) = self.choose(&pos, 0, None) else {
                break;
            };
            let Some(next) = pos.play(&m.mv) else { break };
            line.push(m.mv);
            pos = next;
        }
        line
    }

    /// The book without the records taken from principal variations ([`Entry::pv`]): what
    /// searches of their own hold.
    pub fn searched_only(&self) -> Book {
        let mut out = Book::new(self.size, self.info.clone());
        for e in self.entries.iter().filter(|e| !e.pv) {
            let _ = out.insert(e.clone());
        }
        out
    }

    /// The deepest ply of the book: the longest shortest path from the start position to a
    /// position of the book (0 when only the start is in).
    pub fn max_depth(&self) -> u32 {
        self.depths().into_iter().flatten().max().unwrap_or(0)
    }

    /// The ply at which each record is first reached from the start position through the book's
    /// moves (`None` if it is not reached).
    pub fn depths(&self) -> Vec<Option<u32>> {
        let mut depth = vec![None; self.entries.len()];
        let (root, _) = canonical(&AnyPosition::initial(self.size, Side::Player));
        let Some(r) = self.find_canonical(&root) else {
            return depth;
        };
        depth[r] = Some(0);
        let mut queue = std::collections::VecDeque::from([r]);
        while let Some(i) = queue.pop_front() {
            let d = depth[i].unwrap_or(0);
            let pos = self.entries[i].position;
            for m in &self.entries[i].moves {
                let Some(next) = pos.play(&m.mv) else {
                    continue;
                };
                if let Some(j) = self.find_canonical(&canonical(&next).0) {
                    if depth[j].is_none() {
                        depth[j] = Some(d + 1);
                        queue.push_back(j);
                    }
                }
            }
        }
        depth
    }

    /// A fingerprint of the book's records (64-bit FNV-1a of its size and of its body as the
    /// file holds it): two books with the same records in the same order have the same one,
    /// whatever their build records. A shard names the book it was grown from by it
    /// ([`shard`]).
    pub fn fingerprint(&self) -> Result<u64, BookError> {
        let mut body = Vec::with_capacity(self.entries.len() * (self.size.squares() / 2 + 30));
        for e in &self.entries {
            encode_entry(e, self.size, VERSION, &mut body)?;
        }
        Ok(fnv1a(&[&[self.size.n() as u8], &body]))
    }

    /// The book as file bytes (format [`VERSION`]).
    pub fn to_bytes(&self) -> Result<Vec<u8>, BookError> {
        self.encode(VERSION)
    }

    /// The book as file bytes of format `version` (1 or 2; version 1 drops the compute and the
    /// records' node budgets).
    pub fn encode(&self, version: u16) -> Result<Vec<u8>, BookError> {
        if !READS.contains(&version) {
            return Err(BookError::Version { found: version });
        }
        let mut body = Vec::with_capacity(self.entries.len() * (self.size.squares() / 2 + 30));
        for e in &self.entries {
            encode_entry(e, self.size, version, &mut body)?;
        }
        let count = u32::try_from(self.entries.len())
            .map_err(|_| BookError::TooLarge(format!("{} positions", self.entries.len())))?;
        let header_len = if version >= 2 {
            HEADER_LEN
        } else {
            HEADER_LEN_V1
        };
        let mut head = Vec::with_capacity(header_len);
        head.extend_from_slice(&MAGIC);
        head.extend_from_slice(&version.to_le_bytes());
        head.push(self.size.n() as u8);
        head.push(0);
        head.extend_from_slice(&self.info.nodes.to_le_bytes());
        head.extend_from_slice(&self.info.movetime_ms.to_le_bytes());
        head.extend_from_slice(&self.info.penalty.to_le_bytes());
        head.extend_from_slice(&self.info.seconds.to_le_bytes());
        if version >= 2 {
            head.extend_from_slice(&self.info.cpu_seconds.to_le_bytes());
        }
        head.extend_from_slice(&self.info.searches.to_le_bytes());
        head.extend_from_slice(&count.to_le_bytes());
        head.extend_from_slice(&(body.len() as u64).to_le_bytes());
        let sum = fnv1a(&[&head, &body]);
        head.extend_from_slice(&sum.to_le_bytes());
        debug_assert_eq!(head.len(), header_len);
        head.extend_from_slice(&body);
        Ok(head)
    }

    /// Writes the book atomically ([`crate::files::write_atomically`]): to a temporary file beside
    /// `path`, synced, then renamed over it.
    pub fn save(&self, path: &Path) -> Result<(), BookError> {
        let bytes = self.to_bytes()?;
        crate::files::write_atomically(path, &bytes).map_err(|source| BookError::Io {
            path: path.display().to_string(),
            source,
        })
    }

    /// Reads a book from file bytes, checking everything (see the module documentation).
    pub fn from_bytes(bytes: &[u8]) -> Result<Book, BookError> {
        let head = Header::read(bytes, true)?;
        let mut book = Book::new(head.size, head.info.clone());
        let mut r = Reader {
            bytes: head.body,
            at: 0,
            what: "a position record",
        };
        for index in 0..head.count {
            let entry = read_entry(&mut r, head.size, index, head.version, head.info.nodes)?;
            let position = entry.position;
            if book.insert(entry).is_err() {
                let position = position.to_string();
                return Err(BookError::Duplicate { index, position });
            }
        }
        if r.at != head.body.len() {
            return Err(BookError::Trailing(head.body.len() - r.at));
        }
        Ok(book)
    }

    /// The book file bytes hold, cut down to its records of `positions` (in either colour): all
    /// that a process which consults the book at these roots only (a one-position `search`)
    /// needs of it. The records are found by their squares in one pass over the bytes, each
    /// other record skipped by its lengths without being decoded, so the cost grows with the
    /// file's bytes, not with decoding every record (a fraction of a millisecond for the
    /// built-in book, against tens for [`Book::from_bytes`]); a record found is read and
    /// checked as [`Book::from_bytes`] reads it. The header is checked as there, the checksum
    /// only if `verify` (the built-in book's bytes are the program's own, checked by its tests).
    /// The build record is the whole book's.
    pub fn from_bytes_for(
        bytes: &[u8],
        positions: &[AnyPosition],
        verify: bool,
    ) -> Result<Book, BookError> {
        let head = Header::read(bytes, verify)?;
        let mut book = Book::new(head.size, head.info.clone());
        let wanted: Vec<Vec<u8>> = positions
            .iter()
            .filter(|p| p.size() == head.size)
            .map(|p| square_sets(&canonical(p).0))
            .collect();
        if wanted.is_empty() {
            return Ok(book);
        }
        let set_len = head.size.squares().div_ceil(8);
        let mut r = Reader {
            bytes: head.body,
            at: 0,
            what: "a position record",
        };
        for index in 0..head.count {
            let at = r.at;
            let sets = r.take(3 * set_len)?;
            if wanted.iter().any(|w| w[..] == *sets) {
                r.at = at;
                let entry = read_entry(&mut r, head.size, index, head.version, head.info.nodes)?;
                let position = entry.position;
                if book.insert(entry).is_err() {
                    let position = position.to_string();
                    return Err(BookError::Duplicate { index, position });
                }
                continue;
            }
            // value (i16), depth, flags, the node budget (version 2), then the moves.
            r.take(4 + if head.version >= 2 { 8 } else { 0 })?;
            let count = r.u8()?;
            for _ in 0..count {
                let len = r.u8()? as usize;
                r.take(len + 2)?;
            }
        }
        if r.at != head.body.len() {
            return Err(BookError::Trailing(head.body.len() - r.at));
        }
        Ok(book)
    }
}

/// A book file's header, read and checked, and its body.
struct Header<'a> {
    version: u16,
    size: BoardSize,
    info: BuildInfo,
    count: usize,
    body: &'a [u8],
}

impl<'a> Header<'a> {
    /// Reads the header of file `bytes`, the checksum checked if `verify`.
    fn read(bytes: &'a [u8], verify: bool) -> Result<Header<'a>, BookError> {
        if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
            return Err(BookError::Magic);
        }
        if bytes.len() < MAGIC.len() + 2 {
            return Err(BookError::Truncated {
                what: "the header",
                needed: HEADER_LEN,
                found: bytes.len(),
            });
        }
        let version = u16::from_le_bytes([bytes[MAGIC.len()], bytes[MAGIC.len() + 1]]);
        if !READS.contains(&version) {
            return Err(BookError::Version { found: version });
        }
        let header_len = if version >= 2 {
            HEADER_LEN
        } else {
            HEADER_LEN_V1
        };
        if bytes.len() < header_len {
            return Err(BookError::Truncated {
                what: "the header",
                needed: header_len,
                found: bytes.len(),
            });
        }
        let mut r = Reader {
            bytes: &bytes[..header_len],
            at: MAGIC.len() + 2,
            what: "the header",
        };
        let side = r.u8()?;
        let size = BoardSize::from_n(side as usize).ok_or(BookError::BadSize(side))?;
        r.u8()?;
        let nodes = r.u64()?;
        let movetime_ms = r.u64()?;
        let penalty = r.u32()?;
        let seconds = r.u64()?;
        let cpu_seconds = if version >= 2 { r.u64()? } else { 0 };
        let info = BuildInfo {
            nodes,
            movetime_ms,
            penalty,
            seconds,
            cpu_seconds,
            searches: r.u64()?,
        };
        let count = r.u32()? as usize;
        let body_len = r.u64()?;
        let sum_at = r.at;
        let stored = r.u64()?;
        let body_len = usize::try_from(body_len).unwrap_or(usize::MAX);
        let have = bytes.len() - header_len;
        if have < body_len {
            return Err(BookError::Truncated {
                what: "the body",
                needed: header_len.saturating_add(body_len),
                found: bytes.len(),
            });
        }
        if have > body_len {
            return Err(BookError::Trailing(have - body_len));
        }
        let body = &bytes[header_len..];
        if verify {
            let computed = fnv1a(&[&bytes[..sum_at], body]);
            if computed != stored {
                return Err(BookError::Checksum { stored, computed });
            }
        }
        Ok(Header {
            version,
            size,
            info,
            count,
            body,
        })
    }
}

/// The three bit sets of a position's record (player pieces, bot pieces, kings; see the module
/// documentation).
fn square_sets(pos: &AnyPosition) -> Vec<u8> {
    let size = pos.size();
    let n = size.n();
    let set_len = size.squares().div_ceil(8);
    let grid = pos.grid();
    let mut sets = vec![0u8; 3 * set_len];
    for num in 1..=size.squares() {
        let Some(c) = Coord::from_standard_number(num, n) else {
            continue;
        };
        if let Some(p) = grid.get(c) {
            let bit = num - 1;
            let which = if p.side == Side::Player { 0 } else { 1 };
            sets[which * set_len + bit / 8] |= 1 << (bit % 8);
            if p.king {
                sets[2 * set_len + bit / 8] |= 1 << (bit % 8);
            }
        }
    }
    sets
}

/// Appends one record as the body of a book file of `version` holds it (see the module
/// documentation).
pub(crate) fn encode_entry(
    e: &Entry,
    size: BoardSize,
    version: u16,
    body: &mut Vec<u8>,
) -> Result<(), BookError> {
    let n = size.n();
    body.extend_from_slice(&square_sets(&e.position));
    body.extend_from_slice(&e.value.to_le_bytes());
    body.push(e.depth);
    body.push(u8::from(e.expanded) | (u8::from(e.pending) << 1) | (u8::from(e.pv) << 2));
    if version >= 2 {
        body.extend_from_slice(&e.nodes.to_le_bytes());
    }
    let count = u8::try_from(e.moves.len())
        .map_err(|_| BookError::TooLarge(format!("{} moves", e.moves.len())))?;
    body.push(count);
    for m in &e.moves {
        let len = u8::try_from(m.mv.path.len())
            .map_err(|_| BookError::TooLarge("a path too long".into()))?;
        body.push(len);
        for c in &m.mv.path {
            body.push(c.standard_number(n) as u8);
        }
        body.extend_from_slice(&m.value.to_le_bytes());
    }
    Ok(())
}

/// Reads one record of a book file of `version` (record number `index`, for the errors).
pub(crate) fn read_entry(
    r: &mut Reader<'_>,
    size: BoardSize,
    index: usize,
    version: u16,
    default_nodes: u64,
) -> Result<Entry, BookError> {
    let n = size.n();
    let set_len = size.squares().div_ceil(8);
    let sets = r.take(3 * set_len)?;
    let bad = |what: String| BookError::BadPosition { index, what };
    let mut grid = Grid::empty(size);
    for bit in 0..set_len * 8 {
        let has = |k: usize| sets[k * set_len + bit / 8] & (1 << (bit % 8)) != 0;
        let (p, b, k) = (has(0), has(1), has(2));
        if !(p || b || k) {
            continue;
        }
        let c = Coord::from_standard_number(bit + 1, n)
            .ok_or_else(|| bad(format!("square number {} is off the board", bit + 1)))?;
        if p && b {
            return Err(bad(format!("both sides have a piece on {c}")));
        }
        if !(p || b) {
            return Err(bad(format!("a king on the empty square {c}")));
        }
        let side = if p { Side::Player } else { Side::Bot };
        grid.set(c, Some(Piece { side, king: k }));
    }
    let position = AnyPosition::from_grid(&grid, Side::Player);
    let value = r.i16()?;
    let depth = r.u8()?;
    let flags = r.u8()?;
    let nodes = if version >= 2 {
        r.u64()?
    } else {
        default_nodes
    };
    let count = r.u8()? as usize;
    let legal = position.legal_moves();
    let mut moves = Vec::with_capacity(count);
    for _ in 0..count {
        let len = r.u8()? as usize;
        let nums = r.take(len)?;
        let path: Vec<Option<Coord>> = nums
            .iter()
            .map(|&k| Coord::from_standard_number(k as usize, n))
            .collect();
        let value = r.i16()?;
        // The move as the file has it, for the error only (a square off the board as `#k`).
        let text = || {
            path.iter()
                .zip(nums)
                .map(|(c, k)| c.map_or_else(|| format!("#{k}"), |c| c.to_string()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let found = legal.iter().find(|m| {
            m.path.len() == path.len() && m.path.iter().zip(&path).all(|(a, b)| Some(*a) == *b)
        });
        let mv = found.cloned().ok_or_else(|| BookError::IllegalMove {
            index,
            position: position.to_string(),
            mv: text(),
        })?;
        moves.push(BookMove { mv, value });
    }
    Ok(Entry {
        position,
        value,
        depth,
        nodes,
        expanded: flags & 1 != 0,
        pending: flags & 2 != 0,
        pv: flags & 4 != 0,
        moves,
    })
}

/// Reads the fields of a file in turn, refusing to read past its end.
pub(crate) struct Reader<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) at: usize,
    pub(crate) what: &'static str,
}

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, k: usize) -> Result<&'a [u8], BookError> {
        let end = self.at.saturating_add(k);
        if end > self.bytes.len() {
            return Err(BookError::Truncated {
                what: self.what,
                needed: end,
                found: self.bytes.len(),
            });
        }
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, BookError> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn i16(&mut self) -> Result<i16, BookError> {
        let b = self.take(2)?;
        Ok(i16::from_le_bytes([b[0], b[1]]))
    }

    pub(crate) fn u32(&mut self) -> Result<u32, BookError> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(a))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, BookError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(pos: AnyPosition, expanded: bool, pending: bool, nodes: u64) -> Entry {
        let moves = pos
            .legal_moves()
            .into_iter()
            .enumerate()
            .map(|(i, mv)| BookMove {
                mv,
                value: 10 - i as i16,
            })
            .collect();
        Entry {
            position: pos,
            value: 7,
            depth: 12,
            nodes,
            expanded,
            pending,
            pv: false,
            moves,
        }
    }

    /// An expanded record stands at its best move's value (its moves hold the minimax below it),
    /// a leaf at its own search's, whatever its one move says.
    #[test]
    fn a_record_stands_at_its_best_move_if_expanded_else_at_its_own_value() {
        let start = AnyPosition::initial(BoardSize::S8, Side::Player);
        // The moves are worth 10, 9, 8...; the record's own search gave 7.
        assert_eq!(entry(start, true, false, 1).standing(), 10);
        assert_eq!(entry(start, false, false, 1).standing(), 7);
        let mut bare = entry(start, true, false, 1);
        bare.moves.clear();
        assert_eq!(bare.standing(), 7);
    }

    /// Version 2 keeps each record's node budget, the pending mark and the compute; a version 1
    /// file still reads, its records taking the header's budget and its compute 0.
    #[test]
    fn version_2_round_trips_and_version_1_still_reads() {
        let info = BuildInfo {
            nodes: 8_000,
            penalty: 10,
            seconds: 30,
            cpu_seconds: 55,
            searches: 2,
            ..BuildInfo::default()
        };
        let mut book = Book::new(BoardSize::S8, info.clone());
        let start = AnyPosition::initial(BoardSize::S8, Side::Player);
        let (_, next) = start.successors().remove(0);
        book.insert(entry(start, true, false, 8_000)).expect("new");
        book.insert(entry(canonical(&next).0, false, true, 25_000))
            .expect("new");
        let (_, third) = start.successors().remove(1);
        let mut from_pv = entry(canonical(&third).0, false, false, 4_000);
        from_pv.pv = true;
        book.insert(from_pv).expect("new");
        let v2 = book.to_bytes().expect("writes");
        assert_eq!(&v2[8..10], &2u16.to_le_bytes());
        assert_eq!(Book::from_bytes(&v2).expect("reads"), book);
        let v1 = book.encode(1).expect("writes version 1");
        assert_eq!(v1.len() + 8 + 8 * book.len(), v2.len());
        let old = Book::from_bytes(&v1).expect("reads version 1");
        assert_eq!(old.info().cpu_seconds, 0);
        assert_eq!(old.info().seconds, 30);
        assert!(old.entries().iter().all(|e| e.nodes == 8_000));
        assert!(old.entry(1).pending, "the flags are the same byte");
        assert!(old.entry(2).pv && !old.entry(2).pending && !old.entry(1).pv);
        assert_eq!(old.entry(1).moves, book.entry(1).moves);
        assert!(matches!(
            book.encode(3),
            Err(BookError::Version { found: 3 })
        ));
    }

    /// A variation's record fills a gap: among several for one position the highest ranked is
    /// kept whatever their order, and a record searched on its own is never displaced.
    #[test]
    fn variations_fill_gaps_in_an_order_that_does_not_matter() {
        let start = AnyPosition::initial(BoardSize::S8, Side::Player);
        let (_, child) = start.successors().remove(0);
        let child = canonical(&child).0;
        let variation = |nodes: u64, depth: u8, k: usize| {
            let mut e = entry(child, false, false, nodes);
            e.pv = true;
            e.depth = depth;
            e.moves = vec![e.moves[k].clone()];
            e
        };
        let offers = [
            variation(1_000, 9, 0),
            variation(4_000, 11, 1),
            variation(4_000, 12, 0),
            variation(4_000, 12, 1),
            variation(2_000, 15, 2),
        ];
        let mut kept = Vec::new();
        for order in [
            [0, 1, 2, 3, 4],
            [4, 3, 2, 1, 0],
            [2, 0, 4, 1, 3],
            [3, 2, 1, 0, 4],
        ] {
            let mut book = Book::new(BoardSize::S8, BuildInfo::default());
            for k in order {
                book.offer_pv(offers[k].clone());
            }
            assert_eq!(book.len(), 1);
            kept.push(book.entry(0).clone());
        }
        assert!(kept.iter().all(|e| *e == kept[0]));
        assert_eq!((kept[0].nodes, kept[0].depth), (4_000, 12));
        // A search of its own, even a smaller one, stays; the engine judges it by its budget.
        let mut book = Book::new(BoardSize::S8, BuildInfo::default());
        let own = entry(child, false, false, 500);
        book.insert(own.clone()).expect("new");
        assert!(!book.offer_pv(offers[2].clone()));
        assert_eq!(book.entry(0), &own);
    }

    #[test]
    fn the_best_line_follows_the_best_moves_while_in_the_book() {
        let mut book = Book::new(BoardSize::S8, BuildInfo::default());
        let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
        assert!(book.best_line(&start, 10).is_empty());
        book.insert(entry(canonical(&start).0, true, false, 1))
            .expect("new");
        let line = book.best_line(&start, 10);
        assert_eq!(line.len(), 1);
        // The best move of the entry (value 10, the first legal move), in the bot's coordinates.
        let best = book.moves(&start).expect("in")[0].mv.clone();
        assert_eq!(line[0], best);
        let after = start.play(&best).expect("legal");
        book.insert(entry(canonical(&after).0, false, false, 1))
            .expect("new");
        assert_eq!(book.best_line(&start, 10).len(), 2);
        assert_eq!(book.best_line(&start, 1).len(), 1);
    }

    #[test]
    fn a_leaf_searched_with_less_than_the_engine_will_does_not_answer() {
        let mut book = Book::new(BoardSize::S8, BuildInfo::default());
        let start = AnyPosition::initial(BoardSize::S8, Side::Player);
        let (_, child) = start.successors().remove(0);
        book.insert(entry(start, false, false, 4_000)).expect("new");
        book.insert(entry(canonical(&child).0, true, false, 1_000))
            .expect("new");
        // The leaf of 4,000 nodes answers a search of up to 4,000 nodes, not one of more.
        assert!(book.moves_within(&start, 0).is_some());
        assert!(book.moves_within(&start, 4_000).is_some());
        assert!(book.moves_within(&start, 4_001).is_none());
        assert!(book.choose_within(&start, 0, None, 4_001).is_none());
        assert_eq!(book.moves(&start), book.moves_within(&start, 0));
        // An expanded position answers whatever its own search's budget.
        assert!(book.moves_within(&child, u64::MAX).is_some());
        // A leaf searched by time (budget 0) answers too.
        let (_, other) = start.successors().remove(1);
        book.insert(entry(canonical(&other).0, false, false, 0))
            .expect("new");
        assert!(book.moves_within(&other, u64::MAX).is_some());
    }

    #[test]
    fn canonical_form_turns_the_bot_to_the_player() {
        let start_b = AnyPosition::initial(BoardSize::S8, Side::Bot);
        let start_p = AnyPosition::initial(BoardSize::S8, Side::Player);
        let (c, turned) = canonical(&start_b);
        assert!(turned);
        assert_eq!(c, start_p);
        // Every move of the bot, turned, is a move of the canonical position, and leads to the
        // canonical form of the position it leads to.
        for (mv, next) in start_b.successors() {
            let t = turn_move(&mv, BoardSize::S8);
            let after = c.play(&t).expect("turned move is legal");
            assert_eq!(canonical(&next).0, canonical(&after).0);
        }
    }

    #[test]
    fn the_built_in_book_is_read_only_on_its_own_size() {
        let book = Book::builtin().expect("the built-in book reads");
        assert_eq!(book.size(), BUILTIN_SIZE);
        for size in BoardSize::ALL {
            let root = AnyPosition::initial(size, Side::Player);
            let got = BookSpec::Builtin.load_for_root(&root).expect("reads");
            assert_eq!(got.is_some(), size == BUILTIN_SIZE, "{size}");
            if let Some(cut) = got {
                // The start is in the book: its record, and only it.
                assert_eq!(cut.len(), 1);
                assert_eq!(cut.moves(&root), book.moves(&root));
            }
        }
        let start = AnyPosition::initial(BUILTIN_SIZE, Side::Player);
        assert!(matches!(BookSpec::Off.load_for_root(&start), Ok(None)));
    }
}
