//! `checkersbot book build|info|probe|stats`: the opening book.

use super::common::{hash_arg, load_eval, parse_side};
use anyhow::{anyhow, bail, Context, Result};
use checkersbot::engine::book::build::{build, BuildConfig, BuildEnd, Progress};
use checkersbot::engine::book::{Book, BookSpec, BuildInfo};
use checkersbot::engine::{EngineConfig, Limits};
use checkersbot::play::level::Level;
use checkersbot::rng::Rng;
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::board::Grid;
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::position::Side;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Arguments of `book`.
#[derive(Args, Debug)]
pub struct BookArgs {
    #[command(subcommand)]
    command: BookCommand,
}

#[derive(Subcommand, Debug)]
enum BookCommand {
    /// Build an opening book from deep searches (drop-out expansion), or go on building one: an
    /// existing --out file is extended unless --fresh.
    Build(BuildArgs),
    /// Positions, depth, build budget and time of a book.
    Info(InfoArgs),
    /// The book's moves and their values for a board.
    Probe(ProbeArgs),
    /// How far games from the start stay in the book at each level (both sides choosing book
    /// moves as that level does).
    Stats(StatsArgs),
}

#[derive(Args, Debug)]
struct BuildArgs {
    /// The book file (written atomically: a temporary file, then renamed).
    #[arg(long)]
    out: PathBuf,
    /// Board side: 4, 6, 8, 10 or 12.
    #[arg(long, default_value_t = 8)]
    size: usize,
    /// Node budget of each position's search (deterministic; default 2000000 unless
    /// --movetime is given).
    #[arg(long)]
    nodes: Option<u64>,
    /// Time of each position's search, ms.
    #[arg(long)]
    movetime: Option<u64>,
    /// Cost of a ply on a line, hundredths of a man: higher makes a broader, shallower book.
    #[arg(long, default_value_t = 10)]
    penalty: u32,
    /// Searches side by side (0 = one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Leaves expanded per round (the book depends on it, not on --threads).
    #[arg(long, default_value_t = 2)]
    batch: usize,
    /// Stop once the book has this many positions.
    #[arg(long)]
    max_positions: Option<usize>,
    /// Stop after this many seconds (checked between rounds).
    #[arg(long)]
    time: Option<u64>,
    /// Do not expand leaves deeper than this many plies.
    #[arg(long, default_value_t = 60)]
    max_ply: u32,
    /// Save every this many seconds.
    #[arg(long, default_value_t = 60)]
    save_every: u64,
    /// Start over even if --out exists.
    #[arg(long)]
    fresh: bool,
    /// Transposition table of each search, MiB.
    #[arg(long, default_value_t = 64, value_parser = hash_arg)]
    hash: usize,
    /// Evaluation (as for `search --eval`).
    #[arg(long, default_value = checkersbot::engine::eval::DEFAULT_EVAL)]
    eval: String,
}

#[derive(Args, Debug)]
struct InfoArgs {
    /// The book: `builtin` or a file.
    #[arg(long, default_value = "builtin")]
    book: String,
}

#[derive(Args, Debug)]
struct ProbeArgs {
    /// One-line board (rows top to bottom joined by '/') [default: the 8x8 start].
    #[arg(long)]
    board: Option<String>,
    /// Side to move: p or b.
    #[arg(long, default_value = "p")]
    side: String,
    /// The book: `builtin` or a file.
    #[arg(long, default_value = "builtin")]
    book: String,
}

#[derive(Args, Debug)]
struct StatsArgs {
    /// The book: `builtin` or a file.
    #[arg(long, default_value = "builtin")]
    book: String,
    /// Games per level.
    #[arg(long, default_value_t = 1000)]
    games: u32,
    /// Seed of the first game (game k uses seed + k).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The ply the report counts games leaving the book before.
    #[arg(long, default_value_t = 10)]
    ply: u32,
}

/// Runs `book`.
pub fn run(args: &BookArgs) -> Result<()> {
    match &args.command {
        BookCommand::Build(a) => run_build(a),
        BookCommand::Info(a) => run_info(a),
        BookCommand::Probe(a) => run_probe(a),
        BookCommand::Stats(a) => run_stats(a),
    }
}

/// The book a `--book` value names (`off` is refused: these commands need one).
fn load(spec: &str) -> Result<Book> {
    BookSpec::parse(spec)
        .load()
        .map_err(|e| anyhow!("--book {spec}: {e}"))?
        .ok_or_else(|| anyhow!("--book off: this command needs a book"))
}

fn hms(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn run_build(a: &BuildArgs) -> Result<()> {
    let size =
        BoardSize::from_n(a.size).ok_or_else(|| anyhow!("--size {}: no such board", a.size))?;
    let nodes = match (a.nodes, a.movetime) {
        (None, None) => Some(2_000_000),
        (n, _) => n,
    };
    let limits = Limits {
        nodes,
        movetime: a.movetime.map(Duration::from_millis),
        depth: None,
    };
    let threads = super::common::threads_or_cores(Some(a.threads).filter(|&t| t > 0));
    let mut book = if a.out.exists() && !a.fresh {
        let book = Book::load_for(&a.out, size).with_context(|| {
            format!(
                "cannot resume {} (use --fresh to start over)",
                a.out.display()
            )
        })?;
        eprintln!(
            "book: resuming {} ({} positions, {} searches, {})",
            a.out.display(),
            book.len(),
            book.info().searches,
            hms(Duration::from_secs(book.info().seconds))
        );
        book
    } else {
        Book::new(size, BuildInfo::default())
    };
    let info = book.info_mut();
    let (old_nodes, old_ms, old_pen) = (info.nodes, info.movetime_ms, info.penalty);
    info.nodes = nodes.unwrap_or(0);
    info.movetime_ms = a.movetime.unwrap_or(0);
    info.penalty = a.penalty;
    if old_nodes + old_ms > 0
        && (old_nodes, old_ms, old_pen) != (info.nodes, info.movetime_ms, info.penalty)
    {
        tracing::warn!(
            "the book was built with nodes {old_nodes} movetime {old_ms} penalty {old_pen}; going on with nodes {} movetime {} penalty {}",
            info.nodes, info.movetime_ms, info.penalty
        );
    }
    let engine = EngineConfig {
        hash_mb: a.hash,
        learned: load_eval(&a.eval)?,
        ..EngineConfig::default()
    };
    let cfg = BuildConfig {
        engine,
        limits,
        penalty: a.penalty,
        threads,
        batch: a.batch,
        max_positions: a.max_positions,
        time: a.time.map(Duration::from_secs),
        max_ply: a.max_ply,
        save_every: Duration::from_secs(a.save_every),
    };
    let stop = AtomicBool::new(false);
    let out = a.out.clone();
    let mut last: Option<Instant> = None;
    let mut report = |p: &Progress| {
        if last.is_some_and(|t| t.elapsed() < Duration::from_secs(5)) {
            return;
        }
        last = Some(Instant::now());
        let line: Vec<String> = p
            .best_line
            .iter()
            .take(12)
            .map(|m| m.notation().replace(' ', "-"))
            .collect();
        eprintln!(
            "book: {} positions ({} expanded), depth {}, best cp {}, {} searches at {:.2}/s (avg depth {:.1}), {} ; line {}",
            p.positions,
            p.expanded,
            p.depth,
            p.best_value,
            p.searches,
            p.rate,
            p.search_depth,
            hms(p.elapsed),
            line.join(" ")
        );
    };
    let end = build(
        &mut book,
        &cfg,
        &stop,
        &mut |b| {
            tracing::debug!("saving {} positions", b.len());
            b.save(&out)
        },
        &mut report,
    )
    .map_err(|e| anyhow!("book build: {e}"))?;
    let why = match end {
        BuildEnd::Positions => "position limit",
        BuildEnd::Time => "time limit",
        BuildEnd::Stopped => "stopped",
        BuildEnd::Exhausted => "no leaf left",
    };
    eprintln!(
        "book: done ({why}): {} positions, depth {}, {} searches, {} in all; written to {}",
        book.len(),
        book.max_depth(),
        book.info().searches,
        hms(Duration::from_secs(book.info().seconds)),
        a.out.display()
    );
    Ok(())
}

fn run_info(a: &InfoArgs) -> Result<()> {
    let book = load(&a.book)?;
    let i = book.info();
    let expanded = book.entries().iter().filter(|e| e.expanded).count();
    let bytes = book.to_bytes().map(|b| b.len()).unwrap_or(0);
    println!("size {}", book.size());
    println!("positions {}", book.len());
    println!("expanded {expanded}");
    println!("depth {}", book.max_depth());
    let budget = match (i.nodes, i.movetime_ms) {
        (0, 0) => "none".to_string(),
        (n, 0) => format!("nodes {n}"),
        (0, t) => format!("movetime {t}"),
        (n, t) => format!("nodes {n} movetime {t}"),
    };
    println!("budget {budget}");
    println!("penalty {}", i.penalty);
    println!("searches {}", i.searches);
    println!("buildtime {}", hms(Duration::from_secs(i.seconds)));
    println!("bytes {bytes}");
    Ok(())
}

fn run_probe(a: &ProbeArgs) -> Result<()> {
    let book = load(&a.book)?;
    let side = parse_side(&a.side)?;
    let grid = match &a.board {
        Some(line) => Grid::parse_line(line).context("bad --board")?,
        None => checkersbot::rules::board::initial_grid(BoardSize::S8),
    };
    let pos = AnyPosition::from_grid(&grid, side);
    book.check_size(pos.size())
        .map_err(|e| anyhow!("--book {}: {e}", a.book))?;
    match book.moves(&pos) {
        Some(moves) => {
            for m in moves {
                println!("move {} value {}", m.mv.notation(), m.value);
            }
        }
        None => println!("notinbook"),
    }
    Ok(())
}

/// The ply at which a game leaves the book when both sides choose book moves as `level` does
/// (`limit` if it is still in at that ply), and the moves played.
pub fn book_game(book: &Book, level: Level, rng: &mut Rng, limit: u32) -> (u32, Vec<String>) {
    let mut pos = AnyPosition::initial(book.size(), Side::Player);
    let mut moves = Vec::new();
    for ply in 0..limit {
        let margin = level.book_margin();
        let Some(m) = book.choose(&pos, margin, Some(rng)) else {
            return (ply, moves);
        };
        moves.push(m.mv.notation());
        match pos.play(&m.mv) {
            Some(next) => pos = next,
            None => return (ply, moves),
        }
    }
    (limit, moves)
}

fn run_stats(a: &StatsArgs) -> Result<()> {
    let book = load(&a.book)?;
    if book.size() != BoardSize::S8 && a.games > 0 {
        tracing::info!("the book is for {}", book.size());
    }
    if a.games == 0 {
        bail!("--games must be at least 1");
    }
    println!(
        "level games left_before_ply{} mean_ply_out distinct_first_{}",
        a.ply, a.ply
    );
    for level in Level::ALL {
        let mut before = 0;
        let mut total = 0u64;
        let mut distinct = std::collections::HashSet::new();
        for g in 0..a.games {
            let mut rng = Rng::new(a.seed.wrapping_add(u64::from(g)));
            let (out, moves) = book_game(&book, level, &mut rng, 200);
            if out < a.ply {
                before += 1;
            }
            total += u64::from(out);
            distinct.insert(moves.into_iter().take(a.ply as usize).collect::<Vec<_>>());
        }
        println!(
            "{} {} {} ({:.1}%) {:.1} {}",
            level.name(),
            a.games,
            before,
            100.0 * f64::from(before) / f64::from(a.games),
            total as f64 / f64::from(a.games),
            distinct.len()
        );
    }
    Ok(())
}
