//! `checkersbot play`: a game against the bot in the terminal.

use super::common::{level_parser, load_layout, parse_side, style_parser, EngineArgs};
use anyhow::{anyhow, Context, Result};
use checkersbot::play::level::{Level, Style};
use checkersbot::play::terminal::{play, want_colour, First, PlayEnd, PlayOptions};
use checkersbot::rules::board::{initial_grid, Grid};
use checkersbot::rules::game::Status;
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::pdn::{write_game, GameResult, RecordInfo};
use checkersbot::rules::position::Side;
use clap::{Args, ValueEnum};
use std::io::IsTerminal;
use std::path::PathBuf;

/// Who moves first.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum FirstArg {
    /// The bot.
    Bot,
    /// You.
    Player,
}

/// Arguments of `play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Layout file to start from (e.g. layouts/10x10.board).
    #[arg(long, conflicts_with_all = ["board", "size"])]
    layout: Option<PathBuf>,
    /// One-line board to start from: rows top to bottom joined by '/'.
    #[arg(long, conflicts_with = "size")]
    board: Option<String>,
    /// Board size for the standard start (4, 6, 8, 10, 12); default 8.
    #[arg(long)]
    size: Option<usize>,
    /// Who moves first.
    #[arg(long, value_enum, default_value = "player")]
    first: FirstArg,
    /// The side the bot plays: b (top, moving down) or p (bottom, moving up).
    #[arg(long, default_value = "b")]
    bot_side: String,
    /// Level: easy (2 plies, sometimes another of its 3 best moves), medium (6 plies, at most
    /// 300 ms), hard (1 s a move) or max (5 s a move); as `serve --level`.
    #[arg(long, default_value = "medium", value_parser = level_parser())]
    level: Level,
    /// Style: default or aggressive (closes in on the enemy's pieces); as `serve --style`.
    #[arg(long, default_value = "default", value_parser = style_parser())]
    style: Style,
    /// Time per bot move in milliseconds (0 to 3600000, as `serve`; 0 = no time limit);
    /// overrides the level's limits.
    #[arg(long, value_parser = super::common::movetime_arg)]
    movetime: Option<u64>,
    /// Depth per bot move in plies (0 to 100, as `serve`; 0 = none); overrides the level's
    /// limits.
    #[arg(long, value_parser = super::common::depth_arg)]
    depth: Option<u32>,
    /// Save the game when it ends: PDN on 8x8, a plain path list on other sizes.
    #[arg(long)]
    pdn: Option<PathBuf>,
    #[command(flatten)]
    engine: EngineArgs,
}

/// Runs the game on the terminal.
pub fn run(args: &PlayArgs) -> Result<()> {
    let grid: Grid = match (&args.layout, &args.board, args.size) {
        (Some(path), _, _) => load_layout(path)?,
        (None, Some(line), _) => Grid::parse_line(line).context("bad --board")?,
        (None, None, n) => {
            let n = n.unwrap_or(8);
            let size = BoardSize::from_n(n)
                .ok_or_else(|| anyhow!("--size must be 4, 6, 8, 10 or 12, not {n}"))?;
            initial_grid(size)
        }
    };
    let level = args.level;
    let mut opts = PlayOptions::new(level);
    opts.bot_side = parse_side(&args.bot_side)?;
    opts.first = match args.first {
        FirstArg::Bot => First::Bot,
        FirstArg::Player => First::Player,
    };
    opts.seed = args.engine.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    if args.movetime.is_some() || args.depth.is_some() {
        let (movetime, depth) = super::common::move_limits(args.movetime, args.depth);
        if movetime.is_none() && depth.is_none() {
            return Err(anyhow!(
                "no limit: with --movetime 0 (no time limit) give a depth, and with --depth 0 \
                 (no depth limit) a move time, or the bot would think for ever"
            ));
        }
        opts.limits.movetime = movetime;
        opts.limits.depth = depth;
        opts.level = format!("{} (custom limits)", level.name());
    }
    let mut engine = args.engine.clone();
    engine.aggressive |= args.style == Style::Aggressive;
    opts.config = engine.config(Some(&opts.limits))?;
    opts.config.book_margin = level.book_margin();
    opts.colour = want_colour(
        std::io::stdout().is_terminal(),
        std::env::var_os("NO_COLOR"),
    );
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let summary =
        play(&grid, &opts, stdin.lock(), stdout.lock()).context("terminal input/output failed")?;
    if let Some(path) = &args.pdn {
        let (black, white) = if opts.bot_side == Side::Bot {
            ("checkersbot", "you")
        } else {
            ("you", "checkersbot")
        };
        let mut info = RecordInfo::new("checkersbot play", 1, black, white);
        info.comment = format!("level {}", opts.level);
        let result = match summary.end {
            PlayEnd::Over(Status::Win { winner }) => GameResult::Win(winner),
            PlayEnd::Over(_) => GameResult::Draw,
            PlayEnd::Quit(_) => GameResult::Unfinished,
        };
        std::fs::write(
            path,
            write_game(&info, &summary.start, &summary.moves, result),
        )
        .with_context(|| format!("cannot write {}", path.display()))?;
        println!("Game saved to {}.", path.display());
    }
    Ok(())
}
