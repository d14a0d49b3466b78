//! Growing a book on many machines: a round of a build, or the games of `book lines`, split into
//! `N` independent *shards*, each searched by its own process into a shard file, then merged into
//! the book they were grown from. See `docs/book-shards.md` for the commands and for the same job
//! under GNU parallel, a Slurm job array and a Kubernetes Indexed Job.
//!
//! **A build's round in shards.** A build grows in rounds ([`super::build`]): each round's list of
//! positions to search ([`Round::todo`]) and the leaves it expands are a function of the book and
//! the settings alone ([`next_round`]), and its searches (a node budget, a fresh table, one thread)
//! do not depend on one another or on the machine. Shard `K` of `N` ([`build_shard`]) plans the
//! same round from the same book and searches the positions of the list whose place `i` (from 0)
//! has `i mod N == K - 1`; [`merge`] puts every shard's records back in the list's order and ends
//! the round as the build does ([`apply_round`]). So `G` generations of (`N` shards, merge) give
//! the records, in the same order, of one `book build --rounds G` with the same settings from the
//! same book: the merged file's body is byte for byte the single process's, and its header differs
//! only in the two clock fields (wall-clock and CPU seconds).
//!
//! **`book lines` in shards.** Its games do not depend on one another (a position's record is the
//! same whichever game met it first, [`super::lines`]), so shard `K` plays the games of the
//! openings whose place in the list has `i mod N == K - 1` ([`lines_shard`]) and keeps what it
//! changed; [`merge`] adds the searched records, then offers the variations' records as one run
//! does (the highest ranked kept). The merged book holds the same record for every position as one
//! `book lines` run from the same book; like two runs with different threads, the order of its new
//! records may differ, and its search count is the shards' sum (a position two shards' games both
//! reach is searched by both).
//!
//! **A shard file** (little-endian), version [`SHARD_VERSION`]:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic [`SHARD_MAGIC`] |
//! | 2 | format version |
//! | 1 | kind: 1 a build's round, 2 lines |
//! | 1 | board side |
//! | 4, 4 | shard `K`, shards `N` |
//! | 1 | 1 if complete (every search of the shard done), 0 if stopped part way |
//! | 4 + L | the settings, `key=value` words (UTF-8), length first |
//! | 8 | node budget of the searches |
//! | 4 | drop-out penalty |
//! | 8, 4 | fingerprint ([`Book::fingerprint`]) and positions of the book grown from |
//! | 4 | a build: positions the round searches; lines: games of the openings in all |
//! | 8 | fingerprint of the plan (the round's list and leaves, or the openings) |
//! | 4 + 4 a leaf | the round's leaves (record numbers), count first |
//! | 8, 8, 8 | searches, wall-clock seconds, CPU seconds of the shard |
//! | 4 | records |
//! | per record | its place (u32: in the round's list; lines: record number), then the record as a book file holds it ([`super`]) |
//! | 8 | checksum: 64-bit FNV-1a of everything before it |

use super::build::{
    apply_round, next_round, process_cpu_time, search_positions, BuildConfig, Round,
};
use super::lines::{grow_lines, lines_games, LinesConfig, LinesEnd, LinesProgress, Opening};
use super::{encode_entry, fnv1a, read_entry, Book, BookError, Entry, Reader, MAX_BOOK_FILE};
use crate::engine::Limits;
use crate::rules::any_size::AnyPosition;
use crate::rules::geometry::BoardSize;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The first eight bytes of a shard file.
pub const SHARD_MAGIC: [u8; 8] = *b"CBSHARD\n";
/// The shard format version this program writes and reads.
pub const SHARD_VERSION: u16 = 1;

/// Which shard of how many: `K/N`, `K` from 1 to `N`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    /// This shard, from 1.
    pub k: u32,
    /// Shards in all.
    pub n: u32,
}

/// The most shards a job is split into.
pub const MAX_SHARDS: u32 = 1 << 20;

impl std::str::FromStr for ShardSpec {
    type Err = String;

    /// Reads `K/N` (`3/4`: the third of four shards).
    fn from_str(text: &str) -> Result<ShardSpec, String> {
        let not = || {
            format!(
                "`{text}` is not K/N: give this shard's number and the number of shards, e.g. 3/4"
            )
        };
        let (k, n) = text.split_once('/').ok_or_else(not)?;
        let num = |s: &str| {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(not());
            }
            s.parse::<u32>().map_err(|_| not())
        };
        let (k, n) = (num(k.trim())?, num(n.trim())?);
        if n == 0 {
            return Err(format!(
                "`{text}`: the number of shards N must be at least 1"
            ));
        }
        if n > MAX_SHARDS {
            return Err(format!("`{text}`: at most {MAX_SHARDS} shards"));
        }
        if k == 0 {
            return Err(format!(
                "`{text}`: shards are numbered from 1 to N (1/{n} to {n}/{n})"
            ));
        }
        if k > n {
            return Err(format!(
                "`{text}`: shard {k} of {n} does not exist (K goes from 1 to N = {n})"
            ));
        }
        Ok(ShardSpec { k, n })
    }
}

impl std::fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

impl ShardSpec {
    /// Whether place `i` of a list (from 0) is this shard's.
    pub fn owns(&self, i: usize) -> bool {
        i % self.n as usize == (self.k - 1) as usize
    }
}

/// What a shard grows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShardKind {
    /// A share of a build's round ([`build_shard`]).
    Build,
    /// A share of `book lines`'s games ([`lines_shard`]).
    Lines,
}

impl ShardKind {
    fn code(self) -> u8 {
        match self {
            ShardKind::Build => 1,
            ShardKind::Lines => 2,
        }
    }

    /// The command that writes it.
    pub fn command(self) -> &'static str {
        match self {
            ShardKind::Build => "book build",
            ShardKind::Lines => "book lines",
        }
    }
}

/// One shard's work: what it was grown from and with, and its records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    /// What it grows.
    pub kind: ShardKind,
    /// The board size.
    pub size: BoardSize,
    /// Which shard of how many.
    pub spec: ShardSpec,
    /// The settings, `key=value` words: shards merged together must have the same.
    pub settings: String,
    /// Node budget of the searches.
    pub nodes: u64,
    /// Drop-out penalty of the build (0 for lines).
    pub penalty: u32,
    /// [`Book::fingerprint`] of the book it was grown from.
    pub base: u64,
    /// Positions of that book.
    pub base_positions: u32,
    /// A build: the positions its round searches; lines: the games of all the openings.
    pub total: u32,
    /// Fingerprint of the plan: the round's list and leaves, or the openings.
    pub plan: u64,
    /// The round's leaves (a build).
    pub leaves: Vec<u32>,
    /// Whether every search of the shard is done.
    pub complete: bool,
    /// Searches made.
    pub searches: u64,
    /// Wall-clock seconds.
    pub seconds: u64,
    /// CPU seconds.
    pub cpu_seconds: u64,
    /// The records with their places: a build's in the round's list (ascending), lines' the
    /// record numbers in the shard's book (a number below `base_positions` replaces that record).
    pub records: Vec<(u32, Entry)>,
}

/// Why a shard could not be made, read or merged.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    /// A book, or the file, could not be read or written.
    #[error(transparent)]
    Book(#[from] BookError),
    /// Not a shard file.
    #[error("not a checkersbot book shard (no CBSHARD header)")]
    Magic,
    /// Another version of the format.
    #[error("shard format version {0}; this program reads version {SHARD_VERSION}")]
    Version(u16),
    /// A field that cannot be.
    #[error("bad shard file: {0}")]
    Bad(String),
    /// The checksum does not match.
    #[error("checksum mismatch: the file says {stored:016x}, the contents give {computed:016x}")]
    Checksum {
        /// In the file.
        stored: u64,
        /// Of the contents.
        computed: u64,
    },
    /// The build has nothing to search: no root missing, nothing to deepen, no leaf to expand.
    #[error("the book has no leaf left to expand within the ply limit: the build is done")]
    NothingToDo,
    /// An existing shard file of other work than the command's.
    #[error("{0}")]
    OtherWork(String),
    /// Shards that cannot be merged together, or not into this book.
    #[error("{0}")]
    Merge(String),
}

fn bad(what: impl Into<String>) -> ShardError {
    ShardError::Bad(what.into())
}

impl Shard {
    /// The shard as file bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, ShardError> {
        let too_large = |what: &str| ShardError::Book(BookError::TooLarge(what.to_string()));
        let count32 = |n: usize, what: &str| u32::try_from(n).map_err(|_| too_large(what));
        let mut b = Vec::new();
        b.extend_from_slice(&SHARD_MAGIC);
        b.extend_from_slice(&SHARD_VERSION.to_le_bytes());
        b.push(self.kind.code());
        b.push(self.size.n() as u8);
        b.extend_from_slice(&self.spec.k.to_le_bytes());
        b.extend_from_slice(&self.spec.n.to_le_bytes());
        b.push(u8::from(self.complete));
        b.extend_from_slice(&count32(self.settings.len(), "settings")?.to_le_bytes());
        b.extend_from_slice(self.settings.as_bytes());
        b.extend_from_slice(&self.nodes.to_le_bytes());
        b.extend_from_slice(&self.penalty.to_le_bytes());
        b.extend_from_slice(&self.base.to_le_bytes());
        b.extend_from_slice(&self.base_positions.to_le_bytes());
        b.extend_from_slice(&self.total.to_le_bytes());
        b.extend_from_slice(&self.plan.to_le_bytes());
        b.extend_from_slice(&count32(self.leaves.len(), "leaves")?.to_le_bytes());
        for l in &self.leaves {
            b.extend_from_slice(&l.to_le_bytes());
        }
        b.extend_from_slice(&self.searches.to_le_bytes());
        b.extend_from_slice(&self.seconds.to_le_bytes());
        b.extend_from_slice(&self.cpu_seconds.to_le_bytes());
        b.extend_from_slice(&count32(self.records.len(), "records")?.to_le_bytes());
        for (i, e) in &self.records {
            b.extend_from_slice(&i.to_le_bytes());
            encode_entry(e, self.size, super::VERSION, &mut b)?;
        }
        let sum = fnv1a(&[&b]);
        b.extend_from_slice(&sum.to_le_bytes());
        Ok(b)
    }

    /// Reads a shard from file bytes, checking everything (each record as a book file's).
    pub fn from_bytes(bytes: &[u8]) -> Result<Shard, ShardError> {
        if bytes.len() < SHARD_MAGIC.len() || bytes[..SHARD_MAGIC.len()] != SHARD_MAGIC {
            return Err(ShardError::Magic);
        }
        if bytes.len() < SHARD_MAGIC.len() + 2 + 8 {
            return Err(BookError::Truncated {
                what: "the shard",
                needed: SHARD_MAGIC.len() + 2 + 8,
                found: bytes.len(),
            }
            .into());
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != SHARD_VERSION {
            return Err(ShardError::Version(version));
        }
        let (content, sum) = bytes.split_at(bytes.len() - 8);
        let mut stored = [0u8; 8];
        stored.copy_from_slice(sum);
        let stored = u64::from_le_bytes(stored);
        let computed = fnv1a(&[content]);
        if stored != computed {
            return Err(ShardError::Checksum { stored, computed });
        }
        let mut r = Reader {
            bytes: content,
            at: 10,
            what: "the shard",
        };
        let kind = match r.u8()? {
            1 => ShardKind::Build,
            2 => ShardKind::Lines,
            k => return Err(bad(format!("kind {k} (1: a build's round, 2: lines)"))),
        };
        let side = r.u8()?;
        let size = BoardSize::from_n(side as usize).ok_or(BookError::BadSize(side))?;
        let (k, n) = (r.u32()?, r.u32()?);
        if n == 0 || n > MAX_SHARDS || k == 0 || k > n {
            return Err(bad(format!("shard {k}/{n}")));
        }
        let complete = match r.u8()? {
            0 => false,
            1 => true,
            c => return Err(bad(format!("complete flag {c}"))),
        };
        let len = r.u32()? as usize;
        let settings = std::str::from_utf8(r.take(len)?)
            .map_err(|_| bad("the settings are not UTF-8"))?
            .to_string();
        let nodes = r.u64()?;
        let penalty = r.u32()?;
        let base = r.u64()?;
        let base_positions = r.u32()?;
        let total = r.u32()?;
        let plan = r.u64()?;
        let count = r.u32()? as usize;
        if count > content.len() / 4 {
            return Err(bad(format!("{count} leaves")));
        }
        let mut leaves = Vec::with_capacity(count);
        for _ in 0..count {
            leaves.push(r.u32()?);
        }
        let searches = r.u64()?;
        let seconds = r.u64()?;
        let cpu_seconds = r.u64()?;
        let count = r.u32()? as usize;
        if count > content.len() / 8 {
            return Err(bad(format!("{count} records")));
        }
        let mut records = Vec::with_capacity(count);
        r.what = "a record of the shard";
        for index in 0..count {
            let at = r.u32()?;
            let e = read_entry(&mut r, size, index, super::VERSION, nodes)?;
            records.push((at, e));
        }
        if r.at != content.len() {
            return Err(BookError::Trailing(content.len() - r.at).into());
        }
        Ok(Shard {
            kind,
            size,
            spec: ShardSpec { k, n },
            settings,
            nodes,
            penalty,
            base,
            base_positions,
            total,
            plan,
            leaves,
            complete,
            searches,
            seconds,
            cpu_seconds,
            records,
        })
    }

    /// Reads a shard file.
    pub fn load(path: &Path) -> Result<Shard, ShardError> {
        let bytes = crate::files::read_regular(path, MAX_BOOK_FILE).map_err(BookError::from)?;
        Shard::from_bytes(&bytes)
    }

    /// Writes the shard atomically ([`crate::files::write_atomically`]): to a temporary file beside
    /// `path`, synced, then renamed over it.
    pub fn save(&self, path: &Path) -> Result<(), ShardError> {
        let bytes = self.to_bytes()?;
        crate::files::write_atomically(path, &bytes).map_err(|source| BookError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Ok(())
    }

    /// Whether `other` is a share of the same job (kind, size, shards, settings, book, plan); if
    /// not, what differs.
    pub fn same_job(&self, other: &Shard) -> Result<(), String> {
        if self.kind != other.kind {
            return Err(format!(
                "one is of `{}`, the other of `{}`",
                self.kind.command(),
                other.kind.command()
            ));
        }
        if self.size != other.size {
            return Err(format!(
                "one is for {}, the other for {}",
                self.size, other.size
            ));
        }
        if self.spec.n != other.spec.n {
            return Err(format!(
                "one is of {} shards, the other of {}",
                self.spec.n, other.spec.n
            ));
        }
        if self.settings != other.settings {
            return Err(format!(
                "other settings: {}",
                settings_diff(&self.settings, &other.settings)
            ));
        }
        if (self.base, self.base_positions) != (other.base, other.base_positions) {
            return Err(format!(
                "grown from different books ({} positions, fingerprint {:016x}, against {}, {:016x})",
                self.base_positions, self.base, other.base_positions, other.base
            ));
        }
        if (self.total, self.plan, &self.leaves) != (other.total, other.plan, &other.leaves) {
            return Err(format!(
                "their plans differ ({} {} against {}; a different program?)",
                self.total,
                if self.kind == ShardKind::Build {
                    "positions to search"
                } else {
                    "games"
                },
                other.total
            ));
        }
        Ok(())
    }
}

/// The words of two settings texts that differ: `nodes=3000 against nodes=2000, hash=8 against
/// hash=16`.
pub fn settings_diff(a: &str, b: &str) -> String {
    let map = |s: &str| -> Vec<(String, String)> {
        s.split_whitespace()
            .map(|w| match w.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (w.to_string(), String::new()),
            })
            .collect()
    };
    let (ma, mb) = (map(a), map(b));
    let mut keys: Vec<&String> = ma.iter().chain(&mb).map(|(k, _)| k).collect();
    keys.dedup();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for k in keys {
        if !seen.insert(k) {
            continue;
        }
        let get = |m: &[(String, String)]| {
            m.iter()
                .find(|(x, _)| x == k)
                .map_or_else(|| "(none)".to_string(), |(_, v)| format!("{k}={v}"))
        };
        let (va, vb) = (get(&ma), get(&mb));
        if va != vb {
            out.push(format!("{va} against {vb}"));
        }
    }
    if out.is_empty() {
        "the same words in another order".into()
    } else {
        out.join(", ")
    }
}

/// Fingerprint of a round: its positions in order and its leaves.
fn round_plan(round: &Round) -> u64 {
    let mut bytes = Vec::with_capacity(8 * (round.todo.len() + round.leaves.len()) + 8);
    for p in &round.todo {
        bytes.extend_from_slice(&p.hash_key().to_le_bytes());
    }
    bytes.extend_from_slice(&(round.leaves.len() as u64).to_le_bytes());
    for &l in &round.leaves {
        bytes.extend_from_slice(&(l as u64).to_le_bytes());
    }
    fnv1a(&[&bytes])
}

/// Fingerprint of a list of openings.
fn openings_plan(openings: &[Opening]) -> u64 {
    let mut bytes = Vec::with_capacity(12 * openings.len());
    for o in openings {
        bytes.extend_from_slice(&o.position.hash_key().to_le_bytes());
        bytes.extend_from_slice(&o.ply.to_le_bytes());
    }
    fnv1a(&[&bytes])
}

fn count32(n: usize, what: &str) -> Result<u32, ShardError> {
    u32::try_from(n).map_err(|_| ShardError::Book(BookError::TooLarge(format!("{n} {what}"))))
}

/// Checks that an existing shard file `old` is this command's work (else an error naming what
/// differs, to run with `--fresh` or another `--out`).
fn check_resume(old: &Shard, new: &Shard) -> Result<(), ShardError> {
    if old.spec.k != new.spec.k {
        return Err(ShardError::OtherWork(format!(
            "it is shard {}, not {}",
            old.spec, new.spec
        )));
    }
    old.same_job(new).map_err(ShardError::OtherWork)
}

/// The clock of a shard's run, added to what a resumed shard already spent.
struct Clock {
    start: Instant,
    cpu0: Option<Duration>,
    seconds0: u64,
    cpu_seconds0: u64,
    threads: usize,
}

impl Clock {
    fn start(shard: &Shard, threads: usize) -> Clock {
        Clock {
            start: Instant::now(),
            cpu0: process_cpu_time(),
            seconds0: shard.seconds,
            cpu_seconds0: shard.cpu_seconds,
            threads,
        }
    }

    fn record(&self, shard: &mut Shard) {
        let elapsed = self.start.elapsed();
        let cpu = match (self.cpu0, process_cpu_time()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => elapsed * self.threads as u32,
        };
        shard.seconds = self.seconds0 + elapsed.as_secs();
        shard.cpu_seconds = self.cpu_seconds0 + cpu.as_secs();
    }
}

/// Progress of a shard, reported after each group of searches (a build) or game (lines).
#[derive(Clone, Debug, PartialEq)]
pub struct ShardProgress {
    /// Searches (a build) or games (lines) of the shard done.
    pub done: usize,
    /// Of how many.
    pub total: usize,
    /// Time of this run.
    pub elapsed: Duration,
}

/// Shard `spec` of the next round of a build of `base` with `cfg` (its `max_positions`, `time`
/// and `rounds` are not used; `time` is the shard's own limit): plans the round as
/// [`super::build::build`] would, searches this shard's share of its positions, and returns the
/// shard, complete unless `stop` or `time` ended it (then searching it again with `resume`, the
/// shard so far, goes on). `settings` describes every setting the searches depend on; `save` is
/// called at least every [`BuildConfig::save_every`] and at the end.
#[allow(clippy::too_many_arguments)]
pub fn build_shard(
    base: &mut Book,
    cfg: &BuildConfig,
    spec: ShardSpec,
    settings: &str,
    resume: Option<Shard>,
    stop: &AtomicBool,
    time: Option<Duration>,
    save: &mut dyn FnMut(&Shard) -> Result<(), ShardError>,
    on_progress: &mut dyn FnMut(&ShardProgress),
) -> Result<Shard, ShardError> {
    let nodes = cfg
        .limits
        .nodes
        .filter(|_| cfg.limits.movetime.is_none() && cfg.limits.depth.is_none())
        .ok_or_else(|| bad("a shard's searches need a node budget alone (a search by time depends on the machine)"))?;
    let fingerprint = base.fingerprint()?;
    let round = next_round(base, cfg).ok_or(ShardError::NothingToDo)?;
    let mut shard = Shard {
        kind: ShardKind::Build,
        size: base.size(),
        spec,
        settings: settings.to_string(),
        nodes,
        penalty: cfg.penalty,
        base: fingerprint,
        base_positions: count32(base.len(), "positions")?,
        total: count32(round.todo.len(), "positions to search")?,
        plan: round_plan(&round),
        leaves: round
            .leaves
            .iter()
            .map(|&l| count32(l, "positions"))
            .collect::<Result<_, _>>()?,
        complete: false,
        searches: 0,
        seconds: 0,
        cpu_seconds: 0,
        records: Vec::new(),
    };
    if let Some(old) = resume {
        check_resume(&old, &shard)?;
        shard.searches = old.searches;
        shard.seconds = old.seconds;
        shard.cpu_seconds = old.cpu_seconds;
        shard.records = old.records;
        let mut places = HashSet::new();
        for (i, e) in &shard.records {
            let ok = (*i as usize) < round.todo.len()
                && spec.owns(*i as usize)
                && round.todo[*i as usize] == e.position
                && places.insert(*i);
            if !ok {
                return Err(ShardError::OtherWork(format!(
                    "its record at place {i} is not this shard's search there"
                )));
            }
        }
        shard.records.sort_by_key(|(i, _)| *i);
    }
    let done: HashSet<u32> = shard.records.iter().map(|(i, _)| *i).collect();
    let mine: Vec<usize> = (0..round.todo.len()).filter(|&i| spec.owns(i)).collect();
    let todo: Vec<usize> = mine
        .iter()
        .copied()
        .filter(|&i| !done.contains(&(i as u32)))
        .collect();
    let positions: Vec<AnyPosition> = todo.iter().map(|&i| round.todo[i]).collect();
    let clock = Clock::start(&shard, cfg.threads.max(1));
    let mut last_save = Instant::now();
    let mut at = 0;
    let mut failure = None;
    let timed_out = || time.is_some_and(|t| clock.start.elapsed() >= t);
    if !timed_out() {
        search_positions(cfg, &positions, stop, &mut |found| {
            for e in found {
                shard.records.push((todo[at] as u32, e));
                shard.searches += 1;
                at += 1;
            }
            on_progress(&ShardProgress {
                done: shard.records.len(),
                total: mine.len(),
                elapsed: clock.start.elapsed(),
            });
            if last_save.elapsed() >= cfg.save_every {
                clock.record(&mut shard);
                if let Err(e) = save(&shard) {
                    failure = Some(e);
                    return false;
                }
                last_save = Instant::now();
            }
            !timed_out()
        });
    }
    if let Some(e) = failure {
        return Err(e);
    }
    shard.records.sort_by_key(|(i, _)| *i);
    shard.complete = shard.records.len() == mine.len();
    clock.record(&mut shard);
    save(&shard)?;
    Ok(shard)
}

/// The records of `book` that `base` does not hold as they are (new ones and changed ones), with
/// their record numbers: what a `book lines` shard grew.
fn changes(base: &Book, book: &Book) -> Vec<(u32, Entry)> {
    book.entries()
        .iter()
        .enumerate()
        .filter(|(i, e)| *i >= base.len() || base.entry(*i) != *e)
        .map(|(i, e)| (i as u32, e.clone()))
        .collect()
}

/// Shard `spec` of `book lines` from `base`: plays the games of the openings whose place in
/// `openings` is the shard's ([`ShardSpec::owns`]) as [`grow_lines`] does, and returns the shard
/// (the records it added or changed), complete unless `stop` or the time limit ended it (then
/// running it again with `resume` goes on: the games played are replayed from the shard's
/// records). `save` is called as [`grow_lines`] saves.
#[allow(clippy::too_many_arguments)]
pub fn lines_shard(
    base: &Book,
    openings: &[Opening],
    cfg: &LinesConfig,
    spec: ShardSpec,
    settings: &str,
    resume: Option<Shard>,
    stop: &AtomicBool,
    save: &mut (dyn FnMut(&Shard) -> Result<(), ShardError> + Send),
    on_progress: &mut (dyn FnMut(&ShardProgress) + Send),
) -> Result<Shard, ShardError> {
    let nodes = cfg
        .limits
        .nodes
        .filter(|_| cfg.limits.movetime.is_none() && cfg.limits.depth.is_none())
        .ok_or_else(|| bad("a shard's searches need a node budget alone"))?;
    let mine: Vec<Opening> = openings
        .iter()
        .enumerate()
        .filter(|(i, _)| spec.owns(*i))
        .map(|(_, o)| *o)
        .collect();
    let games = lines_games(openings, cfg).len();
    let mut shard = Shard {
        kind: ShardKind::Lines,
        size: base.size(),
        spec,
        settings: settings.to_string(),
        nodes,
        penalty: 0,
        base: base.fingerprint()?,
        base_positions: count32(base.len(), "positions")?,
        total: count32(games, "games")?,
        plan: openings_plan(openings),
        leaves: Vec::new(),
        complete: false,
        searches: 0,
        seconds: 0,
        cpu_seconds: 0,
        records: Vec::new(),
    };
    let mut book = base.clone();
    if let Some(old) = resume {
        check_resume(&old, &shard)?;
        for (i, e) in &old.records {
            let i = *i as usize;
            let fits = if i < base.len() {
                base.entry(i).position == e.position
            } else {
                i == book.len() && book.insert(e.clone()).is_ok()
            };
            if !fits {
                return Err(ShardError::OtherWork(format!(
                    "its record {i} does not follow the book it was grown from"
                )));
            }
            if i < base.len() {
                book.replace(i, e.clone());
            }
        }
        shard.searches = old.searches;
        shard.seconds = old.seconds;
        shard.cpu_seconds = old.cpu_seconds;
    }
    // The book's build record counts this shard's work only, from what it had.
    {
        let info = book.info_mut();
        info.searches = shard.searches;
        info.seconds = shard.seconds;
        info.cpu_seconds = shard.cpu_seconds;
    }
    let template = shard.clone();
    let mut saved: Option<ShardError> = None;
    let total = mine.len() * 2 * cfg.opponents.len();
    let end = {
        let mut save_book = |b: &Book| -> Result<(), BookError> {
            let mut s = template.clone();
            s.records = changes(base, b);
            s.searches = b.info().searches;
            s.seconds = b.info().seconds;
            s.cpu_seconds = b.info().cpu_seconds;
            match save(&s) {
                Ok(()) => Ok(()),
                Err(ShardError::Book(e)) => Err(e),
                Err(e) => {
                    let text = e.to_string();
                    saved = Some(e);
                    Err(BookError::TooLarge(text))
                }
            }
        };
        let mut report = |p: &LinesProgress| {
            on_progress(&ShardProgress {
                done: p.games,
                total,
                elapsed: p.elapsed,
            })
        };
        grow_lines(
            &mut book,
            &mine,
            cfg,
            &HashSet::new(),
            stop,
            &mut save_book,
            &mut report,
        )
    };
    if let Some(e) = saved {
        return Err(e);
    }
    let end = end?;
    shard.records = changes(base, &book);
    shard.searches = book.info().searches;
    shard.seconds = book.info().seconds;
    shard.cpu_seconds = book.info().cpu_seconds;
    shard.complete = end == LinesEnd::Done;
    if shard.complete {
        save(&shard)?;
    }
    Ok(shard)
}

/// What a merge did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    /// What the shards grew.
    pub kind: ShardKind,
    /// Shards merged.
    pub shards: u32,
    /// Records the shards held.
    pub records: usize,
    /// Positions the book gained.
    pub added: usize,
    /// Searches of all the shards.
    pub searches: u64,
}

/// Merges every shard of one job (`(name, shard)`: the name for the errors, e.g. the file) into
/// `base`, the book they were all grown from: for a build's round, the records in the round's
/// order and the round ended as one process ends it; for lines, the searched records, then the
/// variations' as one run keeps them. The build record adds the shards' searches and CPU
/// seconds and the longest shard's wall-clock seconds (the time of shards side by side).
/// Refused, with the reason and the shard named: shards of different kinds, sizes, numbers of
/// shards, settings, books or plans; a shard missing, given twice or not complete; a book
/// that is not the one they were grown from (as after merging them once already).
pub fn merge(base: &mut Book, shards: &[(String, Shard)]) -> Result<Merged, ShardError> {
    let m = |s: String| ShardError::Merge(s);
    let Some((first_name, first)) = shards.first() else {
        return Err(m("no shard to merge".into()));
    };
    for (name, s) in &shards[1..] {
        first.same_job(s).map_err(|why| {
            m(format!(
                "{name} is not of the same job as {first_name}: {why}"
            ))
        })?;
    }
    let n = first.spec.n;
    let mut by_k: HashMap<u32, &str> = HashMap::new();
    for (name, s) in shards {
        if let Some(other) = by_k.insert(s.spec.k, name) {
            return Err(m(format!(
                "shard {} is given twice: {other} and {name}",
                s.spec
            )));
        }
        if !s.complete {
            return Err(m(format!(
                "{name} (shard {}) is not complete: run its command again to finish it",
                s.spec
            )));
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !by_k.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(m(format!(
            "{} of the {n} shards missing: {}",
            missing.len(),
            missing.join(", ")
        )));
    }
    if base.size() != first.size {
        return Err(m(format!(
            "the shards are for {}, the book for {}",
            first.size,
            base.size()
        )));
    }
    let fingerprint = base.fingerprint()?;
    if (fingerprint, base.len()) != (first.base, first.base_positions as usize) {
        return Err(m(format!(
            "the shards were grown from a book of {} positions (fingerprint {:016x}), not from this one ({} positions, {fingerprint:016x}): merge them into the book their `{}` commands started from (each merge makes a new book, so a set of shards merges once)",
            first.base_positions,
            first.base,
            base.len(),
            first.kind.command()
        )));
    }
    let positions0 = base.len();
    let records: usize = shards.iter().map(|(_, s)| s.records.len()).sum();
    match first.kind {
        ShardKind::Build => merge_round(base, shards)?,
        ShardKind::Lines => merge_lines(base, shards)?,
    }
    let searches: u64 = shards.iter().map(|(_, s)| s.searches).sum();
    let info = base.info_mut();
    if first.kind == ShardKind::Build {
        info.nodes = first.nodes;
        info.movetime_ms = 0;
        info.penalty = first.penalty;
    }
    info.searches += searches;
    info.seconds += shards.iter().map(|(_, s)| s.seconds).max().unwrap_or(0);
    info.cpu_seconds += shards.iter().map(|(_, s)| s.cpu_seconds).sum::<u64>();
    Ok(Merged {
        kind: first.kind,
        shards: n,
        records,
        added: base.len() - positions0,
        searches,
    })
}

/// A build's round from its shards.
fn merge_round(base: &mut Book, shards: &[(String, Shard)]) -> Result<(), ShardError> {
    let first = &shards[0].1;
    let total = first.total as usize;
    let mut found: Vec<Option<Entry>> = vec![None; total];
    for (name, s) in shards {
        for (i, e) in &s.records {
            let i = *i as usize;
            if i >= total || !s.spec.owns(i) || found[i].is_some() {
                return Err(ShardError::Merge(format!(
                    "{name} (shard {}) holds a record at place {i} of the round's {total}, which is not its own",
                    s.spec
                )));
            }
            found[i] = Some(e.clone());
        }
    }
    let found: Vec<Entry> = found
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            e.ok_or_else(|| {
                ShardError::Merge(format!(
                    "no shard holds the round's position {i} of {total}"
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    let round = Round {
        leaves: first.leaves.iter().map(|&l| l as usize).collect(),
        todo: found.iter().map(|e| e.position).collect(),
    };
    if round_plan(&round) != first.plan {
        return Err(ShardError::Merge(
            "the shards' records are not the positions of the round they planned".into(),
        ));
    }
    let limits = Limits {
        nodes: Some(first.nodes),
        ..Limits::default()
    };
    apply_round(base, &round, found, &limits)?;
    Ok(())
}

/// `book lines` shards: the searched records (the same position searched by two shards must be
/// the same record), then the variations' records offered as one run offers them.
fn merge_lines(base: &mut Book, shards: &[(String, Shard)]) -> Result<(), ShardError> {
    let base_len = base.len();
    let mut touched: HashMap<usize, &str> = HashMap::new();
    for (name, s) in shards {
        for (at, e) in s.records.iter().filter(|(_, e)| !e.pv) {
            if (*at as usize) < base_len && base.entry(*at as usize).position != e.position {
                return Err(ShardError::Merge(format!(
                    "{name}: its record {at} is not the book's position there"
                )));
            }
            match base.find_canonical(&e.position) {
                None => {
                    let i = base.len();
                    let _ = base.insert(e.clone());
                    touched.insert(i, name);
                }
                Some(j) if base.entry(j) == e => {}
                Some(j) => {
                    if let Some(other) = touched.get(&j) {
                        return Err(ShardError::Merge(format!(
                            "{other} and {name} searched {} differently: were they run by the same program with the same settings?",
                            e.position
                        )));
                    }
                    base.replace(j, e.clone());
                    touched.insert(j, name);
                }
            }
        }
    }
    for (_, s) in shards {
        for (_, e) in s.records.iter().filter(|(_, e)| e.pv) {
            base.offer_pv(e.clone());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::book::build::{build, BuildEnd};
    use crate::engine::book::{canonical, BookMove, BuildInfo};
    use crate::engine::EngineConfig;
    use crate::rules::position::Side;
    use std::sync::atomic::Ordering;

    fn nodes(n: u64) -> Limits {
        Limits {
            nodes: Some(n),
            ..Limits::default()
        }
    }

    fn config(rounds: Option<u64>) -> BuildConfig {
        BuildConfig {
            engine: EngineConfig {
                hash_mb: 4,
                ..EngineConfig::default()
            },
            limits: nodes(2_000),
            penalty: 10,
            threads: 2,
            batch: 3,
            max_positions: None,
            rounds,
            time: None,
            max_ply: 40,
            save_every: Duration::from_secs(3600),
            roots: Vec::new(),
            deepen: false,
            repair: None,
        }
    }

    fn spec(k: u32, n: u32) -> ShardSpec {
        ShardSpec { k, n }
    }

    /// The book without its clocks, as file bytes: what must be equal.
    fn bytes_without_clocks(book: &Book) -> Vec<u8> {
        let mut b = book.clone();
        b.info_mut().seconds = 0;
        b.info_mut().cpu_seconds = 0;
        b.to_bytes().expect("writes")
    }

    /// One generation: the `n` shards of `book`'s next round searched one after the other (each
    /// through its file format), merged into it.
    fn generation(book: &mut Book, cfg: &BuildConfig, n: u32) -> Merged {
        let stop = AtomicBool::new(false);
        let shards: Vec<(String, Shard)> = (1..=n)
            .map(|k| {
                let mut base = book.clone();
                let s = build_shard(
                    &mut base,
                    cfg,
                    spec(k, n),
                    "kind=build test",
                    None,
                    &stop,
                    None,
                    &mut |_| Ok(()),
                    &mut |_| {},
                )
                .expect("searches");
                assert_eq!(&base, book, "planning does not change the book");
                let s = Shard::from_bytes(&s.to_bytes().expect("writes")).expect("reads");
                (format!("shard{k}"), s)
            })
            .collect();
        merge(book, &shards).expect("merges")
    }

    #[test]
    fn shard_specs_read_and_bad_ones_are_named() {
        assert_eq!("3/4".parse::<ShardSpec>(), Ok(spec(3, 4)));
        assert_eq!("1/1".parse::<ShardSpec>(), Ok(spec(1, 1)));
        assert_eq!(spec(3, 4).to_string(), "3/4");
        for (text, says) in [
            ("5/4", "does not exist"),
            ("0/4", "numbered from 1"),
            ("1/0", "at least 1"),
            ("a/b", "is not K/N"),
            ("3", "is not K/N"),
            ("-1/4", "is not K/N"),
            ("1/4/5", "is not K/N"),
            ("", "is not K/N"),
            ("99999999999/4", "is not K/N"),
        ] {
            let e = text.parse::<ShardSpec>().expect_err(text);
            assert!(e.contains(says), "{text}: {e}");
        }
        let owned: Vec<usize> = (0..10).filter(|&i| spec(2, 4).owns(i)).collect();
        assert_eq!(owned, [1, 5, 9]);
    }

    /// From nothing (the first generation searches the start, then each expands a round), three
    /// generations of three shards give, byte for byte but for the clocks, the book of one build
    /// of three rounds; a fourth generation on a book already grown too.
    #[test]
    fn generations_of_shards_equal_one_build_of_as_many_rounds() {
        let size = BoardSize::S6;
        // As `book build` records its settings in the header.
        let info = BuildInfo {
            nodes: 2_000,
            penalty: 10,
            ..BuildInfo::default()
        };
        let mut single = Book::new(size, info);
        let stop = AtomicBool::new(false);
        let end = build(
            &mut single,
            &config(Some(4)),
            &stop,
            &mut |_| Ok(()),
            &mut |_| {},
        );
        assert_eq!(end.ok(), Some(BuildEnd::Rounds));
        let mut sharded = Book::new(size, BuildInfo::default());
        let mut searches = 0;
        for g in 0..4 {
            let merged = generation(&mut sharded, &config(None), 3);
            assert_eq!(merged.shards, 3);
            searches += merged.searches;
            if g == 0 {
                assert_eq!(sharded.len(), 1, "the first generation searches the start");
            }
        }
        assert!(single.len() > 20, "{}", single.len());
        assert_eq!(sharded.entries(), single.entries());
        assert!(
            bytes_without_clocks(&sharded) == bytes_without_clocks(&single),
            "the files differ"
        );
        assert_eq!(sharded.info().searches, searches);
        assert_eq!(single.info().searches, searches);
        assert_eq!(sharded.info().nodes, 2_000);
        assert_eq!(sharded.info().penalty, 10);
    }

    /// A build at a larger budget with `deepen`: its first round searches again the records a
    /// move from an expanded one, which three shards share as they share any round.
    #[test]
    fn a_deepen_round_in_shards_equals_one_build() {
        let mut small = config(Some(3));
        small.limits = nodes(1_000);
        let mut base = Book::new(BoardSize::S6, BuildInfo::default());
        let stop = AtomicBool::new(false);
        build(&mut base, &small, &stop, &mut |_| Ok(()), &mut |_| {}).expect("builds");
        let mut deep = config(Some(2));
        deep.deepen = true;
        let again = crate::engine::book::build::deepen_list(&base, &deep.limits);
        assert!(again.len() >= 6, "{}", again.len());
        let mut single = base.clone();
        single.info_mut().nodes = 2_000;
        single.info_mut().penalty = 10;
        build(&mut single, &deep, &stop, &mut |_| Ok(()), &mut |_| {}).expect("builds");
        let mut sharded = base.clone();
        let first = generation(&mut sharded, &deep, 3);
        assert_eq!(first.searches, again.len() as u64);
        generation(&mut sharded, &deep, 3);
        assert_eq!(sharded.entries(), single.entries());
        assert!(bytes_without_clocks(&sharded) == bytes_without_clocks(&single));
    }

    /// A build with `repair` at a larger budget: its rounds expand the leaves the book
    /// contradicts (a small budget's book has some at a margin of 0), which three shards share as
    /// they share any round.
    #[test]
    fn repair_rounds_in_shards_equal_one_build() {
        let mut small = config(Some(3));
        small.limits = nodes(1_000);
        let mut base = Book::new(BoardSize::S6, BuildInfo::default());
        let stop = AtomicBool::new(false);
        build(&mut base, &small, &stop, &mut |_| Ok(()), &mut |_| {}).expect("builds");
        // Contradictions, as searches of other budgets leave them: for a few leaves, a record
        // of another move's position (below the build's budget) saying that move is better.
        let leaves: Vec<usize> = (0..base.len())
            .filter(|&i| !base.entry(i).expanded && !base.entry(i).moves.is_empty())
            .collect();
        let mut forged = 0;
        for i in leaves {
            let e = base.entry(i).clone();
            let own = e.moves[0].mv.clone();
            let other = e.position.successors().into_iter().find(|(mv, next)| {
                mv.path != own.path && base.find_canonical(&canonical(next).0).is_none()
            });
            if let Some((_, next)) = other {
                let next = canonical(&next).0;
                let value = -(e.value + 50);
                let _ = base.insert(Entry {
                    position: next,
                    value,
                    depth: 1,
                    nodes: 500,
                    expanded: false,
                    pending: false,
                    pv: false,
                    moves: vec![BookMove {
                        mv: next.legal_moves()[0].clone(),
                        value,
                    }],
                });
                forged += 1;
            }
            if forged == 4 {
                break;
            }
        }
        let mut repair = config(Some(2));
        repair.repair = Some(20);
        let doubted = crate::engine::book::build::contradicted(&base, 20, usize::MAX);
        assert!(doubted.len() >= 4, "{doubted:?}");
        let mut single = base.clone();
        single.info_mut().nodes = 2_000;
        single.info_mut().penalty = 10;
        build(&mut single, &repair, &stop, &mut |_| Ok(()), &mut |_| {}).expect("builds");
        let first = doubted[0];
        assert!(
            single.entry(first).expanded,
            "the first doubted leaf is expanded"
        );
        let mut sharded = base.clone();
        generation(&mut sharded, &repair, 3);
        generation(&mut sharded, &repair, 3);
        assert_eq!(sharded.entries(), single.entries());
        assert!(bytes_without_clocks(&sharded) == bytes_without_clocks(&single));
    }

    /// A shard stopped part way is saved not complete, refused by a merge, and goes on where it
    /// stopped; its records are those of a shard run straight through.
    #[test]
    fn a_stopped_shard_goes_on_and_only_complete_shards_merge() {
        let mut base = Book::new(BoardSize::S6, BuildInfo::default());
        build(
            &mut base,
            &config(Some(3)),
            &AtomicBool::new(false),
            &mut |_| Ok(()),
            &mut |_| {},
        )
        .expect("builds");
        let cfg = config(None);
        let straight = build_shard(
            &mut base.clone(),
            &cfg,
            spec(1, 2),
            "s",
            None,
            &AtomicBool::new(false),
            None,
            &mut |_| Ok(()),
            &mut |_| {},
        )
        .expect("searches");
        assert!(straight.complete && straight.records.len() >= 4);
        let stop = AtomicBool::new(false);
        let mut saves = 0;
        let part = build_shard(
            &mut base.clone(),
            &cfg,
            spec(1, 2),
            "s",
            None,
            &stop,
            None,
            &mut |_| {
                saves += 1;
                Ok(())
            },
            &mut |_| stop.store(true, Ordering::Relaxed),
        )
        .expect("searches");
        assert_eq!(saves, 1);
        assert!(!part.complete);
        assert_eq!(part.records.len(), cfg.threads);
        let other = build_shard(
            &mut base.clone(),
            &cfg,
            spec(2, 2),
            "s",
            None,
            &AtomicBool::new(false),
            None,
            &mut |_| Ok(()),
            &mut |_| {},
        )
        .expect("searches");
        let e = merge(
            &mut base.clone(),
            &[("a".into(), part.clone()), ("b".into(), other.clone())],
        )
        .expect_err("not complete");
        assert!(
            e.to_string().contains("a (shard 1/2) is not complete"),
            "{e}"
        );
        // Resumed through its file, with another shard's settings refused.
        let part = Shard::from_bytes(&part.to_bytes().expect("writes")).expect("reads");
        let mut wrong = part.clone();
        wrong.settings = "t".into();
        let e = build_shard(
            &mut base.clone(),
            &cfg,
            spec(1, 2),
            "s",
            Some(wrong),
            &AtomicBool::new(false),
            None,
            &mut |_| Ok(()),
            &mut |_| {},
        )
        .expect_err("other settings");
        assert!(matches!(e, ShardError::OtherWork(_)), "{e}");
        let e = build_shard(
            &mut base.clone(),
            &cfg,
            spec(2, 2),
            "s",
            Some(part.clone()),
            &AtomicBool::new(false),
            None,
            &mut |_| Ok(()),
            &mut |_| {},
        )
        .expect_err("another shard");
        assert!(e.to_string().contains("it is shard 1/2, not 2/2"), "{e}");
        let mut searched = Vec::new();
        let resumed = build_shard(
            &mut base.clone(),
            &cfg,
            spec(1, 2),
            "s",
            Some(part),
            &AtomicBool::new(false),
            None,
            &mut |_| Ok(()),
            &mut |p| searched.push(p.done),
        )
        .expect("goes on");
        assert!(resumed.complete);
        assert_eq!(resumed.records, straight.records);
        assert_eq!(resumed.searches, straight.searches);
        assert_eq!(searched.first(), Some(&(2 * cfg.threads)));
        let mut merged = base.clone();
        merge(&mut merged, &[("b".into(), other), ("a".into(), resumed)]).expect("merges");
        let mut single = base.clone();
        build(
            &mut single,
            &config(Some(1)),
            &AtomicBool::new(false),
            &mut |_| Ok(()),
            &mut |_| {},
        )
        .expect("builds");
        assert_eq!(merged.entries(), single.entries());
    }

    /// Shards that are not one job, or not of this book, are refused naming what is wrong.
    #[test]
    fn merges_of_mismatched_shards_are_refused_naming_the_fault() {
        let mut base = Book::new(BoardSize::S6, BuildInfo::default());
        generation(&mut base, &config(None), 1);
        generation(&mut base, &config(None), 1);
        let shard = |k: u32, n: u32, settings: &str, cfg: &BuildConfig| {
            build_shard(
                &mut base.clone(),
                cfg,
                spec(k, n),
                settings,
                None,
                &AtomicBool::new(false),
                None,
                &mut |_| Ok(()),
                &mut |_| {},
            )
            .expect("searches")
        };
        let cfg = config(None);
        let (a, b) = (
            shard(1, 2, "nodes=2000 hash=4", &cfg),
            shard(2, 2, "nodes=2000 hash=4", &cfg),
        );
        let refused = |shards: Vec<(&str, Shard)>, book: &Book| {
            let shards: Vec<(String, Shard)> = shards
                .into_iter()
                .map(|(n, s)| (n.to_string(), s))
                .collect();
            let mut book = book.clone();
            let before = book.clone();
            let e = merge(&mut book, &shards).expect_err("refused");
            assert_eq!(book, before, "a refused merge leaves the book");
            e.to_string()
        };
        let other_settings = shard(2, 2, "nodes=2000 hash=8", &cfg);
        let e = refused(vec![("a", a.clone()), ("c", other_settings)], &base);
        assert!(
            e.contains("c is not of the same job as a: other settings: hash=4 against hash=8"),
            "{e}"
        );
        let e = refused(
            vec![("a", a.clone()), ("b", b.clone()), ("a2", a.clone())],
            &base,
        );
        assert!(e.contains("shard 1/2 is given twice: a and a2"), "{e}");
        let e = refused(vec![("b", b.clone())], &base);
        assert!(e.contains("1 of the 2 shards missing: 1/2"), "{e}");
        let three = shard(3, 3, "nodes=2000 hash=4", &cfg);
        let e = refused(vec![("a", a.clone()), ("t", three)], &base);
        assert!(e.contains("one is of 2 shards, the other of 3"), "{e}");
        let six = Book::new(BoardSize::S8, BuildInfo::default());
        let e = refused(vec![("a", a.clone()), ("b", b.clone())], &six);
        assert!(
            e.contains("the shards are for 6x6, the book for 8x8"),
            "{e}"
        );
        // Merged once, the book is another: the same shards again are refused.
        let mut once = base.clone();
        merge(
            &mut once,
            &[("a".into(), a.clone()), ("b".into(), b.clone())],
        )
        .expect("merges");
        let e = refused(vec![("a", a.clone()), ("b", b.clone())], &once);
        assert!(e.contains("not from this one"), "{e}");
        // Another book grown from: the shards of the same settings are of different jobs.
        let mut moved = base.clone();
        generation(&mut moved, &cfg, 1);
        let later = build_shard(
            &mut moved,
            &cfg,
            spec(2, 2),
            "nodes=2000 hash=4",
            None,
            &AtomicBool::new(false),
            None,
            &mut |_| Ok(()),
            &mut |_| {},
        )
        .expect("searches");
        let e = refused(vec![("a", a.clone()), ("l", later)], &base);
        assert!(e.contains("grown from different books"), "{e}");
        // A record moved to a place that is not its shard's.
        let mut forged = b.clone();
        forged.records[0].0 = 0;
        let e = refused(vec![("a", a.clone()), ("f", forged)], &base);
        assert!(e.contains("f (shard 2/2) holds a record at place 0"), "{e}");
    }

    #[test]
    fn a_shard_file_round_trips_and_damage_is_refused() {
        let mut base = Book::new(BoardSize::S6, BuildInfo::default());
        generation(&mut base, &config(None), 1);
        let s = build_shard(
            &mut base,
            &config(None),
            spec(1, 1),
            "kind=build x=1",
            None,
            &AtomicBool::new(false),
            None,
            &mut |_| Ok(()),
            &mut |_| {},
        )
        .expect("searches");
        let bytes = s.to_bytes().expect("writes");
        assert_eq!(Shard::from_bytes(&bytes).expect("reads"), s);
        let mut flipped = bytes.clone();
        flipped[40] ^= 1;
        assert!(matches!(
            Shard::from_bytes(&flipped),
            Err(ShardError::Checksum { .. })
        ));
        assert!(matches!(
            Shard::from_bytes(&bytes[..bytes.len() - 1]),
            Err(ShardError::Checksum { .. })
        ));
        assert!(matches!(
            Shard::from_bytes(b"CBBOOK\r\n........."),
            Err(ShardError::Magic)
        ));
        let book_bytes = base.to_bytes().expect("writes");
        assert!(matches!(
            Shard::from_bytes(&book_bytes),
            Err(ShardError::Magic)
        ));
        let mut version = bytes.clone();
        version[8] = 7;
        assert!(matches!(
            Shard::from_bytes(&version),
            Err(ShardError::Version(7))
        ));
        // Resealed after a change inside: the fields are checked too.
        let reseal = |mut b: Vec<u8>| {
            let at = b.len() - 8;
            let sum = fnv1a(&[&b[..at]]);
            b[at..].copy_from_slice(&sum.to_le_bytes());
            b
        };
        let mut k = bytes.clone();
        k[12..16].copy_from_slice(&9u32.to_le_bytes());
        let e = Shard::from_bytes(&reseal(k)).expect_err("shard 9/1");
        assert!(e.to_string().contains("shard 9/1"), "{e}");
        let mut longer = bytes[..bytes.len() - 8].to_vec();
        longer.push(0);
        longer.extend_from_slice(&[0; 8]);
        assert!(matches!(
            Shard::from_bytes(&reseal(longer)),
            Err(ShardError::Book(BookError::Trailing(1)))
        ));
    }

    /// `book lines` in shards by opening: the merged book holds every position's record as one
    /// run does, whatever the order the shards are given in.
    #[test]
    fn lines_shards_merged_equal_one_run() {
        let size = BoardSize::S6;
        let start = AnyPosition::initial(size, Side::Bot);
        let mut openings = vec![Opening {
            position: start,
            ply: 0,
        }];
        for (k, (_, a)) in start.successors().into_iter().enumerate().take(3) {
            let (_, b) = a.successors().remove(k % 2);
            openings.push(Opening {
                position: b,
                ply: 2,
            });
        }
        let cfg = LinesConfig {
            engine: EngineConfig {
                hash_mb: 4,
                ..EngineConfig::default()
            },
            limits: nodes(3_000),
            opponents: vec![nodes(300), nodes(900)],
            max_ply: 9,
            pv_plies: 3,
            threads: 2,
            time: None,
            save_every: Duration::from_secs(3600),
        };
        // The book grown from holds a built tree and smaller leaves, which lines search again.
        let mut base = Book::new(size, BuildInfo::default());
        let mut small = cfg.clone();
        small.limits = nodes(700);
        let stop = AtomicBool::new(false);
        grow_lines(
            &mut base,
            &openings[..2],
            &small,
            &HashSet::new(),
            &stop,
            &mut |_| Ok(()),
            &mut |_| {},
        )
        .expect("grows");
        let mut single = base.clone();
        grow_lines(
            &mut single,
            &openings,
            &cfg,
            &HashSet::new(),
            &stop,
            &mut |_| Ok(()),
            &mut |_| {},
        )
        .expect("grows");
        let mut shards: Vec<(String, Shard)> = (1..=3)
            .map(|k| {
                let s = lines_shard(
                    &base,
                    &openings,
                    &cfg,
                    spec(k, 3),
                    "kind=lines",
                    None,
                    &stop,
                    &mut |_| Ok(()),
                    &mut |_| {},
                )
                .expect("plays");
                assert!(s.complete);
                let s = Shard::from_bytes(&s.to_bytes().expect("writes")).expect("reads");
                (format!("l{k}"), s)
            })
            .collect();
        let sorted = |b: &Book| {
            let mut e = b.entries().to_vec();
            e.sort_by_key(|e| e.position.to_line());
            e
        };
        let want = sorted(&single);
        assert!(single.len() > base.len() + 10);
        assert!(
            single.entries()[..base.len()] != base.entries()[..],
            "some leaf deepened"
        );
        for _ in 0..2 {
            let mut merged = base.clone();
            merge(&mut merged, &shards).expect("merges");
            assert_eq!(sorted(&merged), want);
            // The base's records stay where they were.
            assert_eq!(
                merged.entries()[..base.len()],
                single.entries()[..base.len()]
            );
            shards.reverse();
        }
    }
}
