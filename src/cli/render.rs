//! `checkersbot render`: a board as an SVG picture, from board rows, a FEN, a PDN game's position
//! or a recorded session's step, with highlighted squares and moves drawn as arrows.

use anyhow::{anyhow, bail, Context, Result};
use checkersbot::render::{board_svg, compare_svg, Picture};
use checkersbot::rules::board::Grid;
use checkersbot::rules::fen::parse_fen;
use checkersbot::rules::geometry::{parse_coord, BoardSize, Coord};
use checkersbot::rules::pdn::read_game;
use checkersbot::rules::position::Side;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `render`.
#[derive(Args, Debug)]
pub struct RenderArgs {
    /// One-line board: rows top to bottom joined by '/', e.g. _b_b/____/____/p_p_
    #[arg(long, group = "source")]
    board: Option<String>,
    /// A draughts FEN (W is the person p, B the bot b), on a board of --size.
    #[arg(long, group = "source")]
    fen: Option<String>,
    /// A PDN game file (8x8): draws its position after --ply moves.
    #[arg(long, group = "source", requires = "ply")]
    pdn: Option<PathBuf>,
    /// Moves (plies) of the PDN game played before the position drawn (0: its start).
    #[arg(long)]
    ply: Option<usize>,
    /// A recorded session (tests/sessions/*.in): draws the board of its --step-th `board` or
    /// `position ROWS SIDE` line, turned round after `set rotated on` as the daemon reads it.
    #[arg(long, group = "source", requires = "step")]
    session: Option<PathBuf>,
    /// Which board of the session, from 1.
    #[arg(long)]
    step: Option<usize>,
    /// Board size of --fen (4, 6, 8, 10 or 12).
    #[arg(long, default_value_t = 8)]
    size: usize,
    /// Side to move, written under the board: p or b (default: the source's, if it has one).
    #[arg(long)]
    side: Option<String>,
    /// Squares to highlight, e.g. E5,F4 (commas or spaces).
    #[arg(long)]
    highlight: Option<String>,
    /// A move to draw as an arrow, every square of its path: G3-E5-C3 (also with x or spaces).
    /// May be given more than once.
    #[arg(long)]
    arrow: Vec<String>,
    /// Write each dark square's name on it.
    #[arg(long)]
    labels: bool,
    /// The board expected: draws it left of the board given (the board seen), the squares where
    /// they differ highlighted on both.
    #[arg(long)]
    compare: Option<String>,
    /// A title under the board (with --compare: under the board seen).
    #[arg(long)]
    title: Option<String>,
    /// Write the SVG to this file (default: standard output).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Square names separated by commas, blanks, `-` or `x`, on a board of side `n`.
fn squares(text: &str, n: usize) -> Result<Vec<Coord>> {
    text.split([',', ' ', '-', 'x', 'X'])
        .filter(|s| !s.is_empty())
        .map(|s| parse_coord(s, n).map_err(|e| anyhow!("{e}")))
        .collect()
}

/// The board and side of the `step`-th `board` or `position ROWS SIDE` line of a session file.
fn session_board(text: &str, step: usize) -> Result<(Grid, Side)> {
    let mut rotated = false;
    let mut seen = 0;
    for line in text.lines() {
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        match words.as_slice() {
            ["set", "rotated", v] => rotated = matches!(*v, "on" | "true" | "1" | "yes"),
            ["board", rows, side] | ["position", rows, side, ..]
                if !matches!(*rows, "fen" | "start" | "pdn") =>
            {
                seen += 1;
                if seen == step {
                    let side = Side::from_letter(side)
                        .ok_or_else(|| anyhow!("step {step}: side '{side}' is not p or b"))?;
                    let board = words[0] == "board" && rotated;
                    let rows: String = if board {
                        rows.chars().rev().collect()
                    } else {
                        rows.to_string()
                    };
                    let grid = Grid::parse_line_allowing_uncrowned(&rows)
                        .with_context(|| format!("step {step}: '{line}'"))?;
                    return Ok((grid, side));
                }
            }
            _ => {}
        }
    }
    bail!("the session has {seen} boards (board or position ROWS SIDE lines), not {step}")
}

/// The board to draw and its side to move, from the source given.
fn source(args: &RenderArgs) -> Result<(Grid, Option<Side>)> {
    if let Some(rows) = &args.board {
        let grid = Grid::parse_line_allowing_uncrowned(rows).context("bad --board")?;
        return Ok((grid, None));
    }
    if let Some(fen) = &args.fen {
        let size = BoardSize::from_n(args.size)
            .ok_or_else(|| anyhow!("--size must be 4, 6, 8, 10 or 12, not {}", args.size))?;
        let (grid, side) = parse_fen(fen, size).context("bad --fen")?;
        return Ok((grid, Some(side)));
    }
    if let (Some(path), Some(ply)) = (&args.pdn, args.ply) {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let (start, moves) =
            read_game(&text).with_context(|| format!("bad PDN game {}", path.display()))?;
        if ply > moves.len() {
            bail!("the game has {} moves, not {ply}", moves.len());
        }
        let mut pos = start;
        for mv in &moves[..ply] {
            pos = pos
                .play(mv)
                .ok_or_else(|| anyhow!("move {} does not replay", mv.notation()))?;
        }
        return Ok((pos.grid(), Some(pos.side())));
    }
    if let (Some(path), Some(step)) = (&args.session, args.step) {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let (grid, side) = session_board(&text, step)?;
        return Ok((grid, Some(side)));
    }
    bail!("give a board: --board ROWS, --fen FEN, --pdn FILE --ply N or --session FILE --step N")
}

/// Draws the board and writes the SVG.
pub fn run(args: &RenderArgs) -> Result<()> {
    let (grid, side) = source(args)?;
    let n = grid.size().n();
    let side = match &args.side {
        Some(s) => Some(super::common::parse_side(s)?),
        None => side,
    };
    let highlights = match &args.highlight {
        Some(list) => squares(list, n).context("bad --highlight")?,
        None => Vec::new(),
    };
    let arrows = args
        .arrow
        .iter()
        .map(|a| {
            let path = squares(a, n).with_context(|| format!("bad --arrow '{a}'"))?;
            if path.len() < 2 {
                bail!("--arrow '{a}' needs at least two squares");
            }
            Ok(path)
        })
        .collect::<Result<Vec<_>>>()?;
    let picture = Picture {
        side,
        highlights,
        arrows,
        labels: args.labels,
        title: args.title.clone(),
    };
    let svg = match &args.compare {
        None => board_svg(&grid, &picture),
        Some(rows) => {
            let expected = Grid::parse_line_allowing_uncrowned(rows).context("bad --compare")?;
            if expected.size() != grid.size() {
                bail!(
                    "--compare is {} but the board is {}",
                    expected.size(),
                    grid.size()
                );
            }
            let left = Picture {
                title: Some("expected".into()),
                labels: args.labels,
                side,
                ..Picture::default()
            };
            let right = Picture {
                title: Some(args.title.clone().unwrap_or_else(|| "seen".into())),
                ..picture
            };
            compare_svg(&expected, &grid, &left, &right)
        }
    };
    match &args.out {
        Some(path) => std::fs::write(path, &svg)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => print!("{svg}"),
    }
    Ok(())
}
