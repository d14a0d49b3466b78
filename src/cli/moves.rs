//! `checkersbot moves`: every legal move of a position, one per line.

use super::common::PositionArgs;
use anyhow::Result;
use clap::Args;

/// Arguments of `moves`.
#[derive(Args, Debug)]
pub struct MovesArgs {
    #[command(flatten)]
    pos: PositionArgs,
}

/// Prints each legal move's path, then its captures and whether it crowns.
pub fn run(args: &MovesArgs) -> Result<()> {
    let pos = args.pos.position()?;
    let moves = pos.legal_moves();
    if moves.is_empty() {
        println!("none ({} has no legal moves and loses)", pos.side());
    }
    for m in &moves {
        println!("{}", m.described());
    }
    Ok(())
}
