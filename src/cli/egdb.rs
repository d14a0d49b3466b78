//! `checkersbot egdb build|probe|info`: endgame databases.

use super::common::{parse_side, PositionArgs};
use anyhow::{anyhow, Context, Result};
use checkersbot::engine::egdb::build::{build, BuildOptions, Progress, DEFAULT_DTC_PIECES};
use checkersbot::engine::egdb::probe::{DEFAULT_CACHE_MB, ON_DEMAND_CACHE_MB};
use checkersbot::engine::egdb::store::Encoding;
use checkersbot::engine::egdb::{default_dir, Egdb};
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::board::Grid;
use checkersbot::rules::geometry::BoardSize;
use clap::{Args, Subcommand};
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `egdb`.
#[derive(Args, Debug)]
pub struct EgdbArgs {
    #[command(subcommand)]
    command: EgdbCommand,
}

#[derive(Subcommand, Debug)]
enum EgdbCommand {
    /// Build (or finish building) the database of every position with up to K pieces.
    Build(BuildArgs),
    /// Print the value of a position (`win 17`, `loss 4`, `draw`), or of each `ROWS SIDE` line of
    /// stdin without --board.
    Probe(ProbeArgs),
    /// Positions, wins, losses, draws, size on disk and build time per board size and piece count.
    Info(InfoArgs),
    /// Where recorded 8x8 games came into the database and which moves after that changed its
    /// value, by player
    ///
    /// Reads PDN games (e.g. `match --pdn`): prints a line for each game in which a move changed
    /// the database's value (a win let go, a draw lost) or whose result is not its last database
    /// value, then a table by player (the `Black` and `White` tags). A change that the
    /// no-progress rule overtook (the game drawn before the next capture or man's move) is
    /// counted apart: the database knows no move counts, so it cost nothing.
    Audit(AuditArgs),
}

#[derive(Args, Debug)]
struct BuildArgs {
    /// Board side: 4, 6, 8, 10 or 12.
    #[arg(long, default_value_t = 8)]
    size: usize,
    /// Most pieces.
    #[arg(long)]
    pieces: u32,
    /// Database directory [default: $XDG_CACHE_HOME/checkersbot/egdb or ~/.cache/checkersbot/egdb].
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Build threads (0 = one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Slices with more pieces than this store win/loss/draw only (no distances to conversion).
    #[arg(long, default_value_t = DEFAULT_DTC_PIECES)]
    dtc_pieces: u32,
}

#[derive(Args, Debug)]
struct ProbeArgs {
    /// One-line board (rows top to bottom joined by '/'); without it, `ROWS SIDE` lines are read
    /// from stdin.
    #[arg(long)]
    board: Option<String>,
    /// Side to move: p or b.
    #[arg(long, default_value = "p")]
    side: String,
    /// Database directory (default as for build).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Also print the database's best move.
    #[arg(long)]
    best: bool,
}

#[derive(Args, Debug)]
struct AuditArgs {
    /// PDN files of 8x8 games.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Database directory (default as for build).
    #[arg(long)]
    dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct InfoArgs {
    /// Database directory (default as for build).
    #[arg(long)]
    dir: Option<PathBuf>,
}

/// The directory an `--egdb`/`--dir` value names, or the default.
pub fn resolve_dir(dir: &Option<PathBuf>) -> Result<PathBuf> {
    match dir {
        Some(d) => Ok(d.clone()),
        None => default_dir()
            .ok_or_else(|| anyhow!("no --dir given and neither XDG_CACHE_HOME nor HOME is set")),
    }
}

/// Runs `egdb`.
pub fn run(args: &EgdbArgs) -> Result<()> {
    match &args.command {
        EgdbCommand::Build(a) => run_build(a),
        EgdbCommand::Probe(a) => run_probe(a),
        EgdbCommand::Info(a) => run_info(a),
        EgdbCommand::Audit(a) => super::egdb_audit::run(a.files.as_slice(), &open(&a.dir)?),
    }
}

fn fmt_duration(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn run_build(a: &BuildArgs) -> Result<()> {
    let size = BoardSize::from_n(a.size)
        .ok_or_else(|| anyhow!("--size {} is not 4, 6, 8, 10 or 12", a.size))?;
    let dir = resolve_dir(&a.dir)?;
    let opts = BuildOptions {
        size,
        pieces: a.pieces,
        dir: dir.clone(),
        threads: a.threads,
        dtc_pieces: a.dtc_pieces,
        store_captures: false,
    };
    let tty = std::io::stderr().is_terminal();
    let mut last_print = Instant::now();
    let mut progress = |p: &Progress| {
        let finished = p.slices_done == p.slices_total;
        if !finished && last_print.elapsed() < Duration::from_secs(if tty { 0 } else { 10 }) {
            return;
        }
        last_print = Instant::now();
        let eta = p.eta().map(fmt_duration).unwrap_or_else(|| "?".into());
        let line = format!(
            "slices {}/{}  positions {:.1}M/{:.1}M  {:.2}M/s  elapsed {}  eta {}  ({})",
            p.slices_done,
            p.slices_total,
            p.entries_done as f64 / 1e6,
            p.entries_total as f64 / 1e6,
            p.rate() / 1e6,
            fmt_duration(p.elapsed),
            eta,
            p.last
        );
        if tty {
            eprint!("\r\x1b[K{line}");
            if finished {
                eprintln!();
            }
        } else {
            eprintln!("{line}");
        }
    };
    let start = Instant::now();
    let report = build(&opts, &mut progress)?;
    let secs = start.elapsed().as_secs_f64();
    let positions: u64 = report.slices.iter().map(|h| h.positions).sum();
    println!(
        "built {} up to {} pieces in {}: {} slices ({} found built, {} converted from an older format version), {} positions, {:.1} MB on disk, {:.1} s",
        size,
        a.pieces,
        dir.display(),
        report.slices.len(),
        report.resumed,
        report.converted,
        positions,
        report.bytes as f64 / 1e6,
        secs
    );
    Ok(())
}

fn open(dir: &Option<PathBuf>) -> Result<Egdb> {
    let dir = resolve_dir(dir)?;
    // Probing from the command line reads blocks on demand: a few probes need no resident copy.
    Egdb::open(&dir, ON_DEMAND_CACHE_MB).map_err(|e| anyhow!(e))
}

fn probe_line(db: &Egdb, pos: &AnyPosition, best: bool) -> String {
    let mut out = match db.probe_any(pos) {
        Some(v) => v.text(),
        None => "unknown".to_string(),
    };
    if best {
        if let Some((m, _)) = db.best_move_any(pos) {
            out.push_str(&format!(" move {}", m.notation()));
        }
    }
    out
}

fn run_probe(a: &ProbeArgs) -> Result<()> {
    let db = open(&a.dir)?;
    if let Some(board) = &a.board {
        let pos = PositionArgs {
            layout: None,
            board: Some(board.clone()),
            side: a.side.clone(),
        }
        .position()?;
        println!("{}", probe_line(&db, &pos, a.best));
        return Ok(());
    }
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.context("reading stdin")?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let answer = match words.as_slice() {
            [] => continue,
            [rows, side] => match (Grid::parse_line(rows), parse_side(side)) {
                (Ok(g), Ok(s)) => probe_line(&db, &AnyPosition::from_grid(&g, s), a.best),
                (Err(e), _) => format!("error {e}"),
                (_, Err(e)) => format!("error {e}"),
            },
            _ => "error expected ROWS SIDE".to_string(),
        };
        writeln!(out, "{answer}")?;
        out.flush()?;
    }
    Ok(())
}

#[derive(Default)]
struct Row {
    slices: usize,
    positions: u64,
    wins: u64,
    losses: u64,
    draws: u64,
    bytes: u64,
    build_ms: u64,
    max_distance: u32,
    capped: bool,
    wld_only: usize,
    packed: usize,
}

fn stored_text(r: &Row) -> String {
    match r.wld_only {
        0 => "dtc".into(),
        n if n == r.slices => format!("wld (wld2 {})", r.packed),
        n => format!("dtc, wld in {n} (wld2 {})", r.packed),
    }
}

fn run_info(a: &InfoArgs) -> Result<()> {
    let db = open(&a.dir)?;
    let mut rows: BTreeMap<(BoardSize, u32), Row> = BTreeMap::new();
    let mut seen_pairs = std::collections::HashSet::new();
    for f in db.slices() {
        let h = &f.header;
        let r = rows.entry((h.key.size, h.key.pieces())).or_default();
        r.slices += 1;
        r.positions += h.positions;
        r.wins += h.wins;
        r.losses += h.losses;
        r.draws += h.draws;
        r.bytes += f.file_bytes;
        // The build time is that of the slice and its twin together: count it once.
        if seen_pairs.insert(h.key.min(h.key.flipped())) {
            r.build_ms += h.build_ms;
        }
        r.max_distance = r.max_distance.max(h.max_distance);
        r.capped |= h.capped;
        r.wld_only += h.wld_only as usize;
        r.packed += (h.encoding == Encoding::Wld2) as usize;
    }
    println!("database {}", db.dir().display());
    println!("| board | pieces | slices | positions | wins | losses | draws | longest | stored | on disk | build time |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for ((size, pieces), r) in &rows {
        println!(
            "| {size} | {pieces} | {} | {} | {} | {} | {} | {}{} | {} | {:.1} MB | {:.1} s |",
            r.slices,
            r.positions,
            r.wins,
            r.losses,
            r.draws,
            r.max_distance,
            if r.capped { "+" } else { "" },
            stored_text(r),
            r.bytes as f64 / 1e6,
            r.build_ms as f64 / 1000.0
        );
    }
    let mib = db.decompressed_bytes().div_ceil(1 << 20);
    println!(
        "in memory: {mib} MiB decompressed; `search`, `play`, `serve` and `match` hold it in memory when --egdb-cache is at least {mib} (default {DEFAULT_CACHE_MB}), else read it block by block through a cache of that size"
    );
    println!("(positions: placements of the pieces; each is stored with the side to move as `p`, the other side to move being its mirror image; wins and losses are for the side to move; longest: plies to conversion (found by the build, stored only where `stored` says dtc), + where some were too long to store; stored: dtc = distances to conversion, a byte per position; wld = win/loss/draw only, `wld2 N` where N slices pack four values to a byte; positions with a capture pending are not stored)");
    Ok(())
}
