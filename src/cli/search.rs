//! `checkersbot search`: searches one position and prints each iteration, then `move PATH`.

use super::common::{EngineArgs, PositionArgs};
use anyhow::Result;
use checkersbot::engine::{Info, Limits};
use clap::Args;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Arguments of `search`.
#[derive(Args, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    pos: PositionArgs,
    #[command(flatten)]
    engine: EngineArgs,
    /// Time for the move in milliseconds (default 1000 unless --depth or --nodes is given).
    #[arg(long)]
    movetime: Option<u64>,
    /// Depth limit (with one thread, gives the same result every run).
    #[arg(long)]
    depth: Option<u32>,
    /// Node limit.
    #[arg(long)]
    nodes: Option<u64>,
    /// Search settings changed from the engine's own, as `knob=value,...` (the knobs of
    /// `match --search-a`, listed in docs/cli.md under `match`), e.g. to time the engine before a change on
    /// the same tree.
    #[arg(long, default_value = "")]
    search: String,
}

/// One line describing an iteration.
pub fn info_line(i: &Info) -> String {
    format!(
        "depth {} seldepth {} score {} nodes {} nps {} time {} tthits {} ttcuts {} betacuts {} hashfull {} egdb {} pv {}",
        i.depth,
        i.seldepth,
        i.score,
        i.nodes,
        i.nps,
        i.time.as_millis(),
        i.tt_hits,
        i.tt_cutoffs,
        i.beta_cutoffs,
        i.hashfull,
        i.egdb_hits,
        i.pv.iter().map(|m| m.notation().replace(' ', "-")).collect::<Vec<_>>().join(" ")
    )
}

/// Runs the search.
pub fn run(args: &SearchArgs) -> Result<()> {
    let pos = args.pos.position()?;
    let mut config = args.engine.config()?;
    config.search = config
        .search
        .with_knobs(&args.search)
        .map_err(|e| anyhow::anyhow!("--search: {e}"))?;
    let mut engine = checkersbot::engine::Engine::new(config);
    let movetime = match (args.movetime, args.depth, args.nodes) {
        (Some(ms), _, _) => Some(Duration::from_millis(ms)),
        (None, None, None) => Some(Duration::from_millis(1000)),
        _ => None,
    };
    let limits = Limits {
        movetime,
        depth: args.depth,
        nodes: args.nodes,
    };
    let stop = AtomicBool::new(false);
    let result = engine.search(&pos, &[], &limits, &stop, &mut |i| {
        println!("info {}", info_line(i))
    });
    println!(
        "info {} stop {}",
        info_line(&result.info),
        result.reason.word()
    );
    match result.best {
        Some(m) => println!("move {}", m.described()),
        None => println!("nomove ({} has no legal moves and loses)", pos.side()),
    }
    Ok(())
}
