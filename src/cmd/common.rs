//! Arguments and helpers shared by several subcommands.

use anyhow::{anyhow, Context, Result};
use checkersbot::any::AnyPosition;
use checkersbot::board::Grid;
use checkersbot::position::Side;
use clap::Args;
use std::path::PathBuf;

/// Where a position comes from: a layout file or a one-line board, plus the side to move.
#[derive(Args, Debug, Clone)]
pub struct PositionArgs {
    /// Layout file (e.g. layouts/8x8.board).
    #[arg(long, conflicts_with = "board")]
    pub layout: Option<PathBuf>,
    /// One-line board: rows top to bottom joined by '/', e.g. _b_b/____/____/p_p_
    #[arg(long)]
    pub board: Option<String>,
    /// Side to move: p (player) or b (bot). Default p.
    #[arg(long, default_value = "p")]
    pub side: String,
}

impl PositionArgs {
    /// The position these arguments name (the 8x8 start position if neither file nor board).
    pub fn position(&self) -> Result<AnyPosition> {
        let side = parse_side(&self.side)?;
        let grid = match (&self.layout, &self.board) {
            (Some(path), _) => load_layout(path)?,
            (None, Some(line)) => Grid::parse_line(line).context("bad --board")?,
            (None, None) => checkersbot::board::initial_grid(checkersbot::geometry::BoardSize::S8),
        };
        Ok(AnyPosition::from_grid(&grid, side))
    }
}

/// Reads `p` or `b`.
pub fn parse_side(text: &str) -> Result<Side> {
    Side::from_letter(text).ok_or_else(|| anyhow!("side must be 'p' or 'b', not '{text}'"))
}

/// Reads and validates a layout file.
pub fn load_layout(path: &std::path::Path) -> Result<Grid> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read layout {}", path.display()))?;
    Grid::parse_layout(&text).with_context(|| format!("bad layout {}", path.display()))
}
