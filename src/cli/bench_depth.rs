//! `checkersbot bench depth`: time and nodes to the depths a robot plays at.
//!
//! The 8x8 start and eight ballots of the ACF 3-move deck are each searched once, one thread and a
//! fresh engine each, to the deepest of `--depth` (17, 19 and 21 by default); the time and nodes
//! when each listed depth's iteration completes are printed, then their sums. With one thread the
//! nodes are the same every run (a depth-limited search to 19 stops where this one passes 19), so
//! node counts compare two versions of the search on a busy machine; times need a quiet one.

use anyhow::{anyhow, bail, Result};
use checkersbot::engine::{Engine, EngineConfig, Info, Limits, SearchParams};
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::board::Grid;
use checkersbot::rules::position::Side;
use clap::Args;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Ballots 1, 21, 41, ..., 141 of the ACF 3-move deck (the standard list of 156 openings as
/// pydraughts 0.6.7 ships it, `draughts/ballot_files/3move_english.json`, numbered in its order):
/// the ballot's number, its three moves in standard notation, and the position after them (the
/// player, White, to move). Ballots 41 and 81 leave White a choice of two captures.
pub const BALLOTS: [(u32, &str, &str); 8] = [
    (
        1,
        "9-13 21-17 5-9",
        "_b_b_b_b/__b_b_b_/_b_b_b_b/b_______/_p______/__p_p_p_/_p_p_p_p/p_p_p_p_",
    ),
    (
        21,
        "9-13 24-19 5-9",
        "_b_b_b_b/__b_b_b_/_b_b_b_b/b_______/_____p__/p_p_p___/_p_p_p_p/p_p_p_p_",
    ),
    (
        41,
        "9-14 23-18 14-23",
        "_b_b_b_b/b_b_b_b_/___b_b_b/________/________/p_p_b_p_/_p_p_p_p/p_p_p_p_",
    ),
    (
        61,
        "10-14 22-18 12-16",
        "_b_b_b_b/b_b_b_b_/_b___b__/__b___b_/___p____/p___p_p_/_p_p_p_p/p_p_p_p_",
    ),
    (
        81,
        "10-15 21-17 15-18",
        "_b_b_b_b/b_b_b_b_/_b___b_b/________/_p_b____/__p_p_p_/_p_p_p_p/p_p_p_p_",
    ),
    (
        101,
        "11-15 21-17 9-13",
        "_b_b_b_b/b_b_b_b_/___b___b/b___b___/_p______/__p_p_p_/_p_p_p_p/p_p_p_p_",
    ),
    (
        121,
        "11-16 21-17 7-11",
        "_b_b_b_b/b_b___b_/_b_b_b_b/______b_/_p______/__p_p_p_/_p_p_p_p/p_p_p_p_",
    ),
    (
        141,
        "11-16 24-19 8-11",
        "_b_b_b_b/b_b_b___/_b_b_b_b/______b_/_____p__/p_p_p___/_p_p_p_p/p_p_p_p_",
    ),
];

/// Arguments of `bench depth`.
#[derive(Args, Debug)]
pub struct DepthBenchArgs {
    /// The depths to report, comma-separated; each position is searched once, to the deepest.
    #[arg(long, value_delimiter = ',', default_values_t = [17, 19, 21])]
    pub depth: Vec<u32>,
    /// Transposition table size in MiB (1 to 4096) [default: as `search --depth` sizes it for
    /// the deepest depth].
    #[arg(long, value_parser = super::common::hash_arg)]
    pub hash: Option<usize>,
    /// Search threads (1 to 64); with more than one the nodes vary from run to run.
    #[arg(long, default_value_t = 1, value_parser = super::common::threads_arg)]
    pub threads: usize,
    /// Which positions: `all` (the start and the ballots), `start` or `ballots`.
    #[arg(long, default_value = "all", value_parser = ["all", "start", "ballots"])]
    pub positions: String,
    /// Search settings changed from the engine's own, as `knob=value,...` (as `search --search`),
    /// e.g. to count the nodes of the search before a change.
    #[arg(long, default_value = "")]
    pub search: String,
}

/// What one depth of one position took.
#[derive(Clone, Copy, Debug, Default)]
struct Reached {
    nodes: u64,
    time: Duration,
}

/// Runs the bench.
pub fn run(args: &DepthBenchArgs) -> Result<()> {
    let mut depths = args.depth.clone();
    depths.sort_unstable();
    depths.dedup();
    let deepest = *depths
        .last()
        .ok_or_else(|| anyhow!("--depth needs a depth"))?;
    if depths[0] == 0 || deepest > 60 {
        bail!("--depth must be from 1 to 60");
    }
    let search = SearchParams::default()
        .with_knobs(&args.search)
        .map_err(|e| anyhow!("--search: {e}"))?;
    let hash = args.hash.unwrap_or_else(|| {
        let limits = Limits {
            depth: Some(deepest),
            ..Limits::default()
        };
        checkersbot::engine::default_hash_mb(&limits, args.threads)
    });
    super::common::check_table(hash, args.threads)?;
    let mut positions: Vec<(String, AnyPosition)> = Vec::new();
    if args.positions != "ballots" {
        let start =
            checkersbot::rules::board::initial_grid(checkersbot::rules::geometry::BoardSize::S8);
        positions.push(("start".into(), AnyPosition::from_grid(&start, Side::Player)));
    }
    if args.positions != "start" {
        for (n, moves, board) in BALLOTS {
            let grid = Grid::parse_line(board)?;
            positions.push((
                format!("ballot {n} ({moves})"),
                AnyPosition::from_grid(&grid, Side::Player),
            ));
        }
    }
    println!(
        "bench depth: {} position(s) to depth {}, hash {hash} MiB, {} thread(s){}",
        positions.len(),
        depths
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        args.threads,
        if args.search.is_empty() {
            String::new()
        } else {
            format!(", search {}", args.search)
        }
    );
    // Sums by depth: the start alone, the ballots together.
    let mut start_sum = vec![Reached::default(); depths.len()];
    let mut ballot_sum = vec![Reached::default(); depths.len()];
    for (name, pos) in &positions {
        let mut engine = Engine::new(EngineConfig {
            hash_mb: hash,
            threads: args.threads,
            search,
            ..EngineConfig::default()
        });
        let mut reached: Vec<Option<Reached>> = vec![None; depths.len()];
        let mut note = |i: &Info| {
            if let Some(k) = depths.iter().position(|&d| d == i.depth) {
                if reached[k].is_none() {
                    reached[k] = Some(Reached {
                        nodes: i.nodes,
                        time: i.time,
                    });
                }
            }
        };
        let limits = Limits {
            depth: Some(deepest),
            ..Limits::default()
        };
        let r = engine.search(pos, &[], &limits, &AtomicBool::new(false), &mut note);
        note(&r.info);
        for (k, d) in depths.iter().enumerate() {
            let sum = if name == "start" {
                &mut start_sum[k]
            } else {
                &mut ballot_sum[k]
            };
            match reached[k] {
                Some(x) => {
                    sum.nodes += x.nodes;
                    sum.time += x.time;
                    println!(
                        "{name:28} depth {d:2} nodes {:11} time {:8.3} s nps {:8}",
                        x.nodes,
                        x.time.as_secs_f64(),
                        nps(x)
                    );
                }
                None => println!(
                    "{name:28} depth {d:2} not reached: stopped at depth {} ({}), nodes {}, time {:.3} s",
                    r.info.depth,
                    r.reason.word(),
                    r.info.nodes,
                    r.info.time.as_secs_f64()
                ),
            }
        }
        println!(
            "{name:28} score {} move {} hashfull {}",
            r.info.score,
            r.best.map(|m| m.notation()).unwrap_or_default(),
            r.info.hashfull
        );
    }
    for (k, d) in depths.iter().enumerate() {
        for (what, sum) in [("start", start_sum[k]), ("ballots", ballot_sum[k])] {
            if sum.nodes > 0 {
                println!(
                    "total {what:8} depth {d:2} nodes {:11} time {:8.3} s nps {:8}",
                    sum.nodes,
                    sum.time.as_secs_f64(),
                    nps(sum)
                );
            }
        }
    }
    Ok(())
}

fn nps(r: Reached) -> u64 {
    (r.nodes as f64 / r.time.as_secs_f64().max(1e-9)) as u64
}
