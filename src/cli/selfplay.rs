//! `checkersbot selfplay`: the engine plays itself and writes training data (see `learn::data`).

use anyhow::{anyhow, Context, Result};
use checkersbot::engine::book::BookSpec;
use checkersbot::engine::EngineConfig;
use checkersbot::learn::data::Writer;
use checkersbot::learn::selfplay::{run, SelfPlay};
use checkersbot::rules::geometry::BoardSize;
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `selfplay`.
#[derive(Args, Debug)]
pub struct SelfPlayArgs {
    /// The data file; records are appended (it is created with its header if new).
    #[arg(long)]
    out: PathBuf,
    /// Keep the games as text too (8x8; appended): PDN with each recorded position's search
    /// score as a comment and the label as the result. `train --data` reads such a file as the
    /// records it stands for, so the games can be kept (in the repository, as text) and the
    /// data made from them at no cost.
    #[arg(long)]
    pdn: Option<PathBuf>,
    /// Board size (4, 6, 8, 10 or 12).
    #[arg(long, default_value_t = 8)]
    size: usize,
    /// Games in the whole run (all shards together).
    #[arg(long, default_value_t = 1000)]
    games: usize,
    /// Seed: the same seed gives the same games.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Nodes searched per move.
    #[arg(long, default_value_t = 5000)]
    nodes: u64,
    /// The games' openings: a number of random plies at the start of each game (after the book's
    /// line with --book), or a deck of ballots, `acf3` or `acf3:A-B` (8x8): game g starts with
    /// the deck's ballot g modulo its size, then the book's line with --book (vary it with
    /// --book-margin: at a node budget the same ballot otherwise gives the same game).
    #[arg(long, default_value = "6", value_parser = super::common::openings_arg)]
    openings: super::common::Openings,
    /// Start every game on a line of this opening book (`builtin` or a file; default `off`):
    /// the book's moves chosen at random within --book-margin of the best, then --openings
    /// random plies. The data then holds the openings strong players play, varied.
    #[arg(long, default_value = "off")]
    book: String,
    /// Margin of the book's choices, hundredths of a man (0: always the best line).
    #[arg(long, default_value_t = 60)]
    book_margin: i32,
    /// Varied plies after the opening: at each, every move is searched with a tenth of --nodes
    /// and one is chosen at random among those within --vary-margin of the best. With a deck
    /// (`--openings acf3`) the games from one ballot then differ (at a node budget the engine
    /// is otherwise deterministic and a ballot gives the same game every time).
    #[arg(long, default_value_t = 0)]
    vary_plies: usize,
    /// Margin of the varied plies' choices, hundredths of a man.
    #[arg(long, default_value_t = 40)]
    vary_margin: i32,
    /// A game still going after this many plies is recorded as a draw.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// Win adjudication margin in hundredths of a man (e.g. 300): a game ends as a win for a side
    /// once both sides' searches have scored it that far ahead for 8 plies in a row. Off by
    /// default. Advised on 10x10 and 12x12, where the engine converts won endings slowly and
    /// games played out end as draws at --max-plies or by a draw rule, labelling won positions
    /// as draws.
    #[arg(long)]
    adjudicate: Option<i32>,
    /// Worker threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// This machine's part of the run, K/N: the games whose number modulo N is K (0-based). Each
    /// job of a batch array runs the same command with its own K and its own --out.
    #[arg(long, default_value = "0/1")]
    shard: String,
    /// Transposition table MiB of each worker's engine.
    #[arg(long, default_value_t = 16)]
    hash: usize,
    /// The players' evaluation: `hand`, `learned` (the built-in weights of the board's size) or
    /// a weights file written by `checkersbot train` (the next generation's data comes from the
    /// last generation's weights).
    #[arg(long, default_value = checkersbot::engine::eval::DEFAULT_EVAL)]
    eval: String,
    /// Endgame database directory (`off` by default): the players probe it in their searches,
    /// and a game ends on the first position it holds, with its exact result (win, loss or
    /// draw), so the data's endings are labelled by perfect play. `default` is the user's cache
    /// directory, as in `search`.
    #[arg(long, default_value = "off")]
    egdb: String,
    /// Memory for the endgame database, MiB (shared by the workers), as in `search`.
    #[arg(long, default_value_t = checkersbot::engine::egdb::probe::DEFAULT_CACHE_MB)]
    egdb_cache: usize,
}

fn parse_shard(text: &str) -> Result<(usize, usize)> {
    let bad = || anyhow!("--shard takes K/N with 0 <= K < N, e.g. 3/16; got '{text}'");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if n == 0 || k >= n {
        return Err(bad());
    }
    Ok((k, n))
}

/// Runs `selfplay`.
pub fn run_selfplay(args: &SelfPlayArgs) -> Result<()> {
    // Before any thread starts (the database's loader, the players): they inherit the mask.
    let stop = super::common::stop_on_signals("stopping after the games being played");
    let size = BoardSize::from_n(args.size)
        .ok_or_else(|| anyhow!("--size {} is not one of 4, 6, 8, 10, 12", args.size))?;
    let threads = super::common::threads_or_cores(args.threads);
    if let Some(m) = args.adjudicate.filter(|&m| m <= 0) {
        return Err(anyhow!(
            "--adjudicate takes a margin in hundredths of a man above 0, e.g. 300; got {m}"
        ));
    }
    let (opening_plies, ballots) = match &args.openings {
        super::common::Openings::Random(n) => (*n, Vec::new()),
        super::common::Openings::Deck(spec) => {
            if size != BoardSize::S8 {
                return Err(anyhow!(
                    "--openings {spec}: the deck is for 8x8, not --size {}",
                    args.size
                ));
            }
            (
                0,
                spec.ballots()
                    .map_err(|e| anyhow!("--openings {spec}: {e}"))?,
            )
        }
    };
    let cfg = SelfPlay {
        size,
        games: args.games,
        shard: parse_shard(&args.shard)?,
        seed: args.seed,
        nodes: args.nodes,
        opening_plies,
        ballots,
        book: match BookSpec::parse(&args.book).load()? {
            Some(book) => {
                book.check_size(size)?;
                Some(Arc::new(book))
            }
            None => None,
        },
        book_margin: args.book_margin.max(0),
        vary_plies: args.vary_plies,
        vary_margin: args.vary_margin.max(0),
        max_plies: args.max_plies,
        adjudicate: args.adjudicate,
        threads,
        engine: EngineConfig {
            hash_mb: args.hash.max(1),
            learned: super::common::load_eval(&args.eval)?,
            egdb: super::common::load_egdb(Some(&args.egdb), args.egdb_cache)?,
            ..EngineConfig::default()
        },
    };
    if args.pdn.is_some() && size != BoardSize::S8 {
        return Err(anyhow!(
            "--pdn keeps 8x8 games only, not --size {}",
            args.size
        ));
    }
    let mut out = Writer::append(&args.out, size)?;
    let mut games = match &args.pdn {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open {}", path.display()))?,
        ),
        None => None,
    };
    let start = Instant::now();
    let done = run(
        &cfg,
        &mut out,
        games.as_mut().map(|f| f as &mut dyn std::io::Write),
        stop,
        &mut |p| {
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        let rate = p.games as f64 / secs;
        let eta = (p.total - p.games) as f64 / rate.max(1e-9);
        eprint!(
            "\rselfplay: {}/{} games ({} ended by the database), {:.1} games/s, {} positions, ETA {:.0} s   ",
            p.games, p.total, p.database_ends, rate, p.records, eta
        );
        },
    )
    .with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!();
    println!(
        "{} games ({} ended by the database), {} positions written to {} in {:.1} s",
        done.games,
        done.database_ends,
        done.records,
        args.out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
