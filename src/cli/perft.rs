//! `checkersbot perft`: leaf counts per depth with time and speed, or per root move (`--divide`).

use super::common::PositionArgs;
use anyhow::Result;
use checkersbot::rules::any_size::MoveInfo;
use checkersbot::rules::geometry::Geometry;
use checkersbot::rules::movegen::perft_divide;
use checkersbot::rules::position::Position;
use checkersbot::with_position;
use clap::Args;
use std::time::Instant;

/// Arguments of `perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    pos: PositionArgs,
    /// Deepest depth to count (1 to 20: deeper 8x8 counts would take days).
    #[arg(long, default_value_t = 6, value_parser = super::common::perft_depth_arg)]
    depth: u32,
    /// Leaf counts below each root move at the given depth.
    #[arg(long)]
    divide: bool,
}

/// Runs perft.
pub fn run(args: &PerftArgs) -> Result<()> {
    let pos = args.pos.position()?;
    if args.divide {
        fn go<G: Geometry>(p: &Position<G>, depth: u32) {
            let mut total = 0;
            for (m, n) in perft_divide(p, depth) {
                println!("{}: {n}", MoveInfo::of::<G>(&m));
                total += n;
            }
            println!("total: {total}");
        }
        with_position!(&pos, p => go(p, args.depth));
        return Ok(());
    }
    println!(
        "perft {} {}, {} to move",
        pos.size(),
        pos.to_line(),
        pos.side()
    );
    for depth in 1..=args.depth {
        let start = Instant::now();
        let n = pos.perft(depth);
        let secs = start.elapsed().as_secs_f64();
        let nps = if secs > 0.0 { n as f64 / secs } else { 0.0 };
        println!(
            "depth {depth:2}  leaves {n:12}  time {:9.3} s  {:8.1} M leaves/s",
            secs,
            nps / 1e6
        );
    }
    Ok(())
}
