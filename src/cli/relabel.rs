//! `checkersbot relabel`: chosen positions of self-play data searched again far deeper (see
//! `learn::relabel`), written as a new data file for `train`.

use anyhow::{anyhow, Context, Result};
use checkersbot::engine::EngineConfig;
use checkersbot::learn::data::Writer;
use checkersbot::learn::relabel::{run, Relabel};
use clap::Args;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `relabel`.
#[derive(Args, Debug)]
pub struct RelabelArgs {
    /// Data files written by `checkersbot selfplay` (all of one board size), or games it kept
    /// with `--pdn`, read in turn.
    #[arg(long, required = true, num_args = 1..)]
    data: Vec<PathBuf>,
    /// The data file to write; a run appending to a file it wrote before resumes where that one
    /// stopped (same data and settings).
    #[arg(long)]
    out: PathBuf,
    /// Nodes searched for each position.
    #[arg(long, default_value_t = 200_000)]
    nodes: u64,
    /// Only positions at or after this ply of their game are chosen (e.g. 16: the middle game,
    /// past the book's lines).
    #[arg(long, default_value_t = 0)]
    from_ply: u16,
    /// Only positions before this ply of their game are chosen (the opening and early
    /// middlegame, where the engine's own short searches teach it least).
    #[arg(long, default_value_t = 40)]
    before_ply: u16,
    /// One in this many of those positions is chosen, at random with --seed.
    #[arg(long, default_value_t = 1)]
    every: u32,
    /// Seed of the choice.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// Transposition table MiB of each worker's engine.
    #[arg(long, default_value_t = 16)]
    hash: usize,
    /// The judge's evaluation: `hand`, `learned` (the built-in weights) or a weights file.
    #[arg(long, default_value = checkersbot::engine::eval::DEFAULT_EVAL)]
    eval: String,
}

/// Runs `relabel`.
pub fn run_relabel(args: &RelabelArgs) -> Result<()> {
    if args.nodes == 0 || args.every == 0 {
        return Err(anyhow!("--nodes and --every take a number above 0"));
    }
    if args.from_ply >= args.before_ply {
        return Err(anyhow!(
            "--from-ply {} chooses nothing: it must be below --before-ply {}",
            args.from_ply,
            args.before_ply
        ));
    }
    let (size, records) = super::common::read_data(&args.data)?;
    let cfg = Relabel {
        nodes: args.nodes,
        from_ply: args.from_ply,
        before_ply: args.before_ply,
        every: args.every,
        seed: args.seed,
        threads: super::common::threads_or_cores(args.threads),
        engine: EngineConfig {
            hash_mb: args.hash.max(1),
            learned: super::common::load_eval(&args.eval)?,
            ..EngineConfig::default()
        },
    };
    let mut out = Writer::append(&args.out, size)?;
    if out.existing() > 0 {
        eprintln!(
            "relabel: {} holds {} records; resuming after them",
            args.out.display(),
            out.existing()
        );
    }
    let start = Instant::now();
    let stop = super::common::stop_on_signals("stopping after the searches under way");
    let mut last = 0.0;
    let done = run(&cfg, &records, &mut out, stop, &mut |p| {
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        if secs - last < 1.0 && p.done < p.total {
            return;
        }
        last = secs;
        let rate = p.searched as f64 / secs;
        let left = (p.total - p.done) as f64 / rate.max(1e-9);
        eprint!(
            "\rrelabel: {}/{} positions, {} searched, {:.1} searches/s, ETA {:.0} s   ",
            p.done, p.total, p.searched, rate, left
        );
    })
    .with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!();
    println!(
        "{}/{} chosen positions of {} relabelled ({} searched at {} nodes) into {} in {:.1} s",
        done.done,
        done.total,
        records.len(),
        done.searched,
        args.nodes,
        args.out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
