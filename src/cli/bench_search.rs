//! `checkersbot bench search`: the search benchmark.
//!
//! By default a fixed list of positions (8x8 mostly, one 10x10 and two 12x12) is searched to a fixed
//! depth, each with a fresh engine on one thread, and the total node count is printed: it is the
//! search's signature, and changes only when the search or the evaluation changes. Options add:
//! the depth reached in a fixed time from the 8x8 start, the deadline overshoot over many short
//! searches, the speed-up from one to two threads, the process's peak memory, and the search's
//! speed in endgames with and without an endgame database (`--egdb DIR`).

use anyhow::{anyhow, bail, Result};
use checkersbot::engine::{Engine, EngineConfig, Limits, SearchResult};
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::board::Grid;
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::position::Side;
use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The bench positions: one-line board form and side to move. Found by short seeded self-play from
/// the start positions, stopping where no capture is pending; the later ones are endgames.
pub const POSITIONS: [&str; 11] = [
    "_b_b___b/b_b_____/_b_b___b/____b_b_/________/p_p_p_p_/_p_____p/p_p_p_p_ p",
    "_b_b_b_b/b_______/_____b_b/__b_b___/________/p_p_p_p_/_p______/p_p_p_p_ p",
    "_b___b_b/b___b___/_____b_b/__b_b___/________/p_p_p_p_/_p_p____/p_p___p_ p",
    "_b_b___b/____b_b_/_____b_b/b_p_____/_____p_p/p_p_____/_______p/p___p_p_ b",
    "_b_____b/______b_/_______b/b___b_b_/________/p_p_p_p_/________/p___p_p_ p",
    "_b______/__b_____/_______b/________/_____p_b/____p_p_/________/p_p_____ p",
    "___b____/________/___p____/__b___p_/_____b__/p_______/___b____/p_______ p",
    "_b___P__/________/___P____/b_______/_____B__/__p_B___/_p______/________ p",
    "_b_b_b_b_b/b_b_b_b_b_/_______b__/b_b_b_b___/_b___b_b_b/p_______p_/_p_p_p_p_p/__p_p_p___/___p_p_p_p/p_p_p_p_p_ p",
    "_b_b_b_b_b_b/b_b_____b_b_/_b_b_b_b_b_b/b_b_b_b_b_b_/___b_b___b_b/b_____b_____/_p_p___p____/p_p_p___p_p_/_______p_p_p/p_p_p_p_p___/_p_p_p_p_p_p/p_p_p_p_p_p_ p",
    "_b_b_b_b_b_b/b_____b_b_b_/___b_b_b_b_b/__b_b_b_b_b_/___b___b___b/____________/___p_____p_b/p_____p_p___/_p_p___p_p_p/p_p_p_p_p_p_/_________p_p/p_p_p_p_p_p_ p",
];

/// 8x8 endgames for `--egdb` (7 to 10 pieces: a 6-piece database decides many of their lines
/// but not the root): one-line board form and side to move.
pub const ENDGAMES: [&str; 4] = [
    "___b_b__/__b_____/________/________/________/__p_p___/_p______/p_______ p",
    "_b_b_B__/________/___b____/________/________/____p___/________/P___p_p_ b",
    "_b_b____/________/___b_b__/________/________/__p_p___/________/____p_p_ b",
    "_b_b____/b_______/___b_b__/________/________/__p_p___/_______p/____p_p_ b",
];

/// Arguments of `bench search`.
#[derive(Args, Debug)]
pub struct SearchBenchArgs {
    /// Search depth for the 8x8 positions; 10x10 positions are searched two plies less, 12x12
    /// three less.
    #[arg(long, default_value_t = 12)]
    pub depth: u32,
    /// Transposition table size in MiB (1 to 4096).
    #[arg(long, default_value_t = 16, value_parser = super::common::hash_arg)]
    pub hash: usize,
    /// Also report the depth reached in a fixed time (see --movetime) from the 8x8 start position.
    #[arg(long)]
    pub depth_in_time: bool,
    /// Time for --depth-in-time, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub movetime: u64,
    /// Also measure the deadline overshoot over this many short searches (0 = skip).
    #[arg(long, default_value_t = 0)]
    pub deadline_runs: usize,
    /// Move time of the short searches of --deadline-runs, in milliseconds.
    #[arg(long, default_value_t = 50)]
    pub deadline_ms: u64,
    /// Also measure the speed-up from 1 to 2 threads: time to reach --depth on every position.
    #[arg(long)]
    pub threads_speedup: bool,
    /// Also print the process's peak resident memory (VmHWM, Linux only).
    #[arg(long)]
    pub rss: bool,
    /// Everything: --depth-in-time, --deadline-runs 100, --threads-speedup and --rss.
    #[arg(long)]
    pub all: bool,
    /// Also measure nodes per second in endgames (7 to 10 pieces) with this endgame database
    /// against none: each position is searched for --egdb-movetime without the database, then
    /// with it twice (fresh engines; the first search reads the database's blocks, the second
    /// finds them in its cache, as a game's later moves do).
    #[arg(long)]
    pub egdb: Option<PathBuf>,
    /// Time of each search of --egdb, in milliseconds.
    #[arg(long, default_value_t = 2000)]
    pub egdb_movetime: u64,
    /// The database's block cache for --egdb, MiB.
    #[arg(long, default_value_t = checkersbot::engine::egdb::probe::DEFAULT_CACHE_MB)]
    pub egdb_cache: usize,
}

/// Parses bench position lines.
fn parse(lines: &[&str]) -> Result<Vec<AnyPosition>> {
    lines
        .iter()
        .map(|text| {
            let (line, side) = text.split_once(' ').unwrap_or((text, "p"));
            let side = Side::from_letter(side).ok_or_else(|| anyhow!("bad side in {text}"))?;
            Ok(AnyPosition::from_grid(&Grid::parse_line(line)?, side))
        })
        .collect()
}

/// The bench positions, parsed.
pub fn positions() -> Result<Vec<AnyPosition>> {
    parse(&POSITIONS)
}

fn depth_for(pos: &AnyPosition, depth: u32) -> u32 {
    match pos.size() {
        BoardSize::S10 => depth.saturating_sub(2).max(1),
        BoardSize::S12 => depth.saturating_sub(3).max(1),
        _ => depth,
    }
}

fn fresh_engine(hash: usize, threads: usize) -> Engine {
    Engine::new(EngineConfig {
        hash_mb: hash,
        threads,
        ..EngineConfig::default()
    })
}

fn search(engine: &mut Engine, pos: &AnyPosition, limits: &Limits) -> SearchResult {
    engine.search(pos, &[], limits, &AtomicBool::new(false), &mut |_| {})
}

/// Runs the bench.
pub fn run(args: &SearchBenchArgs) -> Result<()> {
    if args.depth == 0 {
        bail!("--depth must be at least 1");
    }
    super::common::check_table(args.hash, 2)?;
    let positions = positions()?;
    let mut total_nodes = 0u64;
    let mut total_time = Duration::ZERO;
    for (i, pos) in positions.iter().enumerate() {
        let mut engine = fresh_engine(args.hash, 1);
        let d = depth_for(pos, args.depth);
        let limits = Limits {
            depth: Some(d),
            ..Limits::default()
        };
        let start = Instant::now();
        let r = search(&mut engine, pos, &limits);
        let t = start.elapsed();
        total_nodes += r.info.nodes;
        total_time += t;
        println!(
            "position {:2} {:5} depth {:2} nodes {:10} time {:7.3} s score {} move {}",
            i + 1,
            pos.size().to_string(),
            d,
            r.info.nodes,
            t.as_secs_f64(),
            r.info.score,
            r.best.map(|m| m.notation()).unwrap_or_default()
        );
    }
    let secs = total_time.as_secs_f64();
    println!(
        "total nodes {total_nodes} time {:.3} s nps {}",
        secs,
        (total_nodes as f64 / secs.max(1e-9)) as u64
    );
    if args.depth_in_time || args.all {
        depth_in_time(args)?;
    }
    if args.deadline_runs > 0 || args.all {
        let runs = if args.deadline_runs > 0 {
            args.deadline_runs
        } else {
            100
        };
        deadline(args, &positions, runs);
    }
    if args.threads_speedup || args.all {
        speedup(args, &positions);
    }
    if let Some(dir) = &args.egdb {
        endgame_speed(args, dir)?;
    }
    if args.rss || args.all {
        match peak_rss_kib() {
            Some(kib) => println!(
                "rss peak {:.1} MiB (hash {} MiB)",
                kib as f64 / 1024.0,
                args.hash
            ),
            None => println!("rss peak unknown (no /proc/self/status)"),
        }
    }
    Ok(())
}

/// Nodes per second in the endgames without and with a database (see [`SearchBenchArgs::egdb`]).
fn endgame_speed(args: &SearchBenchArgs, dir: &std::path::Path) -> Result<()> {
    let start = Instant::now();
    let db = Arc::new(
        checkersbot::engine::egdb::Egdb::open(dir, args.egdb_cache)
            .map_err(|e| anyhow!("--egdb {e}"))?,
    );
    let opened = start.elapsed();
    println!(
        "endgame database {} (opened in {:.2} s): {}",
        dir.display(),
        opened.as_secs_f64(),
        if db.is_resident() {
            "resident (every slice decompressed in memory)".to_string()
        } else {
            format!(
                "blocks read on demand through a {} MiB cache",
                args.egdb_cache
            )
        }
    );
    let limits = Limits {
        movetime: Some(Duration::from_millis(args.egdb_movetime)),
        ..Limits::default()
    };
    let names = ["without", "with, first", "with, again"];
    // Nodes and seconds per column, over every position.
    let mut totals = [(0u64, 0f64); 3];
    for (i, (pos, text)) in parse(&ENDGAMES)?.iter().zip(ENDGAMES).enumerate() {
        let board = text.split(' ').next().unwrap_or_default();
        let pieces = board.chars().filter(|c| c.is_ascii_alphabetic()).count();
        let mut line = format!("endgame {} ({pieces} pieces):", i + 1);
        for (k, name) in names.iter().enumerate() {
            let mut engine = Engine::new(EngineConfig {
                hash_mb: args.hash,
                egdb: (k > 0).then(|| db.clone()),
                ..EngineConfig::default()
            });
            let r = search(&mut engine, pos, &limits);
            let secs = r.info.time.as_secs_f64().max(1e-9);
            totals[k].0 += r.info.nodes;
            totals[k].1 += secs;
            line += &format!(
                " {name} {:.2} M nps depth {}{}",
                r.info.nodes as f64 / secs / 1e6,
                r.info.depth,
                if k < 2 { ";" } else { "" }
            );
        }
        println!("{line}");
    }
    let nps: Vec<f64> = totals
        .iter()
        .map(|&(n, t)| n as f64 / t.max(1e-9))
        .collect();
    println!(
        "endgames: without {:.2} M nps; with the database {:.2} M ({:+.1}%) reading it, {:.2} M ({:+.1}%) again",
        nps[0] / 1e6,
        nps[1] / 1e6,
        (nps[1] / nps[0] - 1.0) * 100.0,
        nps[2] / 1e6,
        (nps[2] / nps[0] - 1.0) * 100.0
    );
    Ok(())
}

fn depth_in_time(args: &SearchBenchArgs) -> Result<()> {
    let pos = AnyPosition::initial(BoardSize::S8, Side::Player);
    let limits = Limits {
        movetime: Some(Duration::from_millis(args.movetime)),
        ..Limits::default()
    };
    for threads in [1, 2] {
        let mut engine = fresh_engine(args.hash, threads);
        let r = search(&mut engine, &pos, &limits);
        println!(
            "depth-in-time threads {threads} movetime {} ms: depth {} seldepth {} nodes {} nps {} time {} ms score {}",
            args.movetime,
            r.info.depth,
            r.info.seldepth,
            r.info.nodes,
            r.info.nps,
            r.info.time.as_millis(),
            r.info.score
        );
    }
    Ok(())
}

fn deadline(args: &SearchBenchArgs, positions: &[AnyPosition], runs: usize) {
    let movetime = Duration::from_millis(args.deadline_ms);
    let limits = Limits {
        movetime: Some(movetime),
        ..Limits::default()
    };
    for threads in [1, 2] {
        let mut engine = fresh_engine(args.hash, threads);
        let mut max_over = f64::MIN;
        let mut sum_over = 0.0;
        for i in 0..runs {
            let pos = &positions[i % positions.len()];
            let start = Instant::now();
            let r = search(&mut engine, pos, &limits);
            let over = start.elapsed().as_secs_f64() * 1000.0 - movetime.as_secs_f64() * 1000.0;
            let _ = r;
            max_over = max_over.max(over);
            sum_over += over;
        }
        println!(
            "deadline threads {threads} movetime {} ms runs {runs}: overshoot max {:+.2} ms mean {:+.2} ms",
            args.deadline_ms,
            max_over,
            sum_over / runs as f64
        );
    }
}

fn speedup(args: &SearchBenchArgs, positions: &[AnyPosition]) {
    let mut times = [0.0f64; 2];
    let mut nodes = [0u64; 2];
    for (k, threads) in [1usize, 2].into_iter().enumerate() {
        for pos in positions {
            let mut engine = fresh_engine(args.hash, threads);
            let limits = Limits {
                depth: Some(depth_for(pos, args.depth)),
                ..Limits::default()
            };
            let start = Instant::now();
            let r = search(&mut engine, pos, &limits);
            times[k] += start.elapsed().as_secs_f64();
            nodes[k] += r.info.nodes;
        }
        println!(
            "time-to-depth threads {threads}: {:.3} s nodes {} nps {}",
            times[k],
            nodes[k],
            (nodes[k] as f64 / times[k].max(1e-9)) as u64
        );
    }
    println!(
        "speed-up 1 -> 2 threads (time to depth): {:.2}x",
        times[0] / times[1].max(1e-9)
    );
}

/// Peak resident set size of this process in KiB, from `/proc/self/status`.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}
