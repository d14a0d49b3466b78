//! `checkersbot bench`: fixed benchmarks that print their speed.
//!
//! `bench perft` counts the move trees of the 8x8 and 12x12 start positions and checks the counts
//! against the known figures; `bench search` searches fixed positions to a fixed depth (its total
//! node count is the search's signature) and measures time-to-depth, deadlines, threads and memory;
//! `bench depth` gives the time and nodes to depths 17, 19 and 21 from the start and eight ACF
//! ballots.

use anyhow::{bail, Result};
use checkersbot::rules::geometry::{Geometry, G12, G8};
use checkersbot::rules::movegen::perft;
use checkersbot::rules::position::{Position, Side};
use clap::{Args, Subcommand};
use std::time::Instant;

/// Arguments of `bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Which benchmark to run.
    #[command(subcommand)]
    pub kind: BenchKind,
}

/// The benchmarks.
#[derive(Subcommand, Debug)]
pub enum BenchKind {
    /// Perft (leaf counting) speed from the 8x8 and 12x12 start positions, player to move.
    Perft(PerftBenchArgs),
    /// Search: node signature over fixed positions, depth in time, deadline overshoot, threads,
    /// memory.
    Search(super::bench_search::SearchBenchArgs),
    /// Search: time and nodes to depths 17, 19 and 21 from the 8x8 start and eight ACF 3-move
    /// ballots (1, 21, ..., 141), one thread.
    Depth(super::bench_depth::DepthBenchArgs),
}

/// Arguments of `bench perft`.
#[derive(Args, Debug)]
pub struct PerftBenchArgs {
    /// Depth on the 8x8 board (0 skips it).
    #[arg(long, default_value_t = 12)]
    pub depth8: u32,
    /// Depth on the 12x12 board (0 skips it).
    #[arg(long, default_value_t = 10)]
    pub depth12: u32,
}

/// Published perft figures of the 8x8 start position, by depth (index 0 is depth 0).
const PERFT_8X8: [u64; 13] = [
    1, 7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564, 85242128, 388623673,
];

/// Perft figures of the 12x12 start position, by depth, as checked against the reference move
/// generator of the test suite (`tests/data/perft_12x12.txt`).
const PERFT_12X12: [u64; 10] = [
    1, 11, 121, 1222, 10053, 78629, 577772, 4263112, 30635845, 223052917,
];

/// Runs a benchmark.
pub fn run(args: &BenchArgs) -> Result<()> {
    match &args.kind {
        BenchKind::Perft(a) => run_perft(a),
        BenchKind::Search(a) => super::bench_search::run(a),
        BenchKind::Depth(a) => super::bench_depth::run(a),
    }
}

fn run_perft(args: &PerftBenchArgs) -> Result<()> {
    let mut wrong = Vec::new();
    if args.depth8 > 0 {
        if let Some(msg) = one::<G8>(args.depth8, &PERFT_8X8) {
            wrong.push(msg);
        }
    }
    if args.depth12 > 0 {
        if let Some(msg) = one::<G12>(args.depth12, &PERFT_12X12) {
            wrong.push(msg);
        }
    }
    if !wrong.is_empty() {
        bail!("{}", wrong.join("; "));
    }
    Ok(())
}

/// Times perft of the start position of size `G`; returns an error message if the count is not the
/// known one.
fn one<G: Geometry>(depth: u32, known: &[u64]) -> Option<String> {
    let pos = Position::<G>::initial(Side::Player);
    let start = Instant::now();
    let leaves = perft(&pos, depth);
    let secs = start.elapsed().as_secs_f64();
    let speed = if secs > 0.0 {
        leaves as f64 / secs / 1e6
    } else {
        0.0
    };
    let expected = known.get(depth as usize).copied();
    let check = match expected {
        Some(k) if k == leaves => "ok",
        Some(_) => "WRONG",
        None => "no known figure",
    };
    println!(
        "perft {} start  depth {depth:2}  leaves {leaves:13}  time {secs:8.3} s  {speed:7.1} M leaves/s  {check}",
        G::SIZE
    );
    match expected {
        Some(k) if k != leaves => Some(format!(
            "{} perft depth {depth} gave {leaves} leaves, expected {k}",
            G::SIZE
        )),
        _ => None,
    }
}
