//! `checkersbot search`: searches one position and prints each iteration, then `move PATH`.

use super::common::{EngineArgs, PositionArgs};
use anyhow::Result;
use checkersbot::engine::{Info, Limits};
use clap::Args;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// What a run pays before it searches, shown after the options in `--help` (figures of
/// docs/performance.md, "process start").
const START_COST: &str = "Each run is a new process, which pays for its start before it \
searches: about 7 ms on this project's 2-core machine (of the built-in opening book only the \
position's own record is read, a small fraction of a millisecond whatever the book's size; a \
book file is read whole; the book and the learned weights of other sizes are not read), plus \
the endgame database if one is found, on any size (--egdb off skips it; held in \
memory, the 6-piece 8x8 one takes about 0.5 s). --movetime is the search's own time, so a run \
takes that and its start; the daemon (serve) pays these once and answers within the move time.";

/// Arguments of `search`.
#[derive(Args, Debug)]
// The opening book is on by default here (`--book off` to search every position).
#[command(mut_arg("book", |a| a.default_value("builtin")))]
#[command(after_help = START_COST)]
pub struct SearchArgs {
    #[command(flatten)]
    pos: PositionArgs,
    #[command(flatten)]
    engine: EngineArgs,
    /// Time for the move in milliseconds (0 to 3600000, as `serve`); 0 = no time limit (then
    /// --depth or --nodes must bound the search) [default: 1000 unless --depth or --nodes is
    /// given].
    #[arg(long, value_parser = super::common::movetime_arg)]
    movetime: Option<u64>,
    /// Depth limit in plies (0 to 100, as `serve`); 0 = none (with one thread, a depth limit
    /// gives the same result every run).
    #[arg(long, value_parser = super::common::depth_arg)]
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
    let (movetime, depth) = super::common::move_limits(args.movetime, args.depth);
    let movetime = match (args.movetime, depth, args.nodes) {
        (None, None, None) => Some(Duration::from_millis(1000)),
        _ => movetime,
    };
    if movetime.is_none() && depth.is_none() && args.nodes.is_none() {
        return Err(anyhow::anyhow!(
            "no limit: --movetime 0 and --depth 0 mean no time and no depth limit, so the \
             search would not end; give a move time, a depth or --nodes"
        ));
    }
    let limits = Limits {
        movetime,
        depth,
        nodes: args.nodes,
    };
    let mut config = args.engine.config_for(Some(&limits), Some(&pos))?;
    config.search = config
        .search
        .with_knobs(&args.search)
        .map_err(|e| anyhow::anyhow!("--search: {e}"))?;
    let mut engine = checkersbot::engine::Engine::new(config);
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
