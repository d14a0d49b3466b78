//! `checkersbot train`: fits the learned evaluation to self-play data and writes a weights file.

use anyhow::{anyhow, Context, Result};
use checkersbot::engine::book::Book;
use checkersbot::engine::eval::{regions, LearnedWeights, Tiling};
use checkersbot::learn::data::Record;
use checkersbot::learn::deep::book_records;
use checkersbot::learn::net::train_net;
use checkersbot::learn::train::{train, EpochReport, TrainConfig};
use checkersbot::rules::geometry::BoardSize;
use clap::Args;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Data files written by `checkersbot selfplay` (all of one board size), or games it kept
    /// with `--pdn` (e.g. `weights/games/*.pdn`), read as the records they stand for.
    #[arg(long, required = true, num_args = 1..)]
    data: Vec<PathBuf>,
    /// Deep labels: positions scored by searches far deeper than the games', trained on with
    /// their score as the whole target (whatever `--lambda`) and never held out. An opening book
    /// (`books/8x8.cbbk`: its quiet positions, each scored by the book's minimax value) or data
    /// files (e.g. `checkersbot relabel`'s); see docs/experiments/learned-evaluation.md.
    #[arg(long, num_args = 1..)]
    deep: Vec<PathBuf>,
    /// How many times each deep label counts (its records repeated in every epoch).
    #[arg(long, default_value_t = 1, requires = "deep")]
    deep_weight: usize,
    /// The weights file to write.
    #[arg(long)]
    out: PathBuf,
    /// Start from these weights instead of the hand evaluation's global weights. If they carry a
    /// network, the patterns are fitted on top of it (without `--net`) and the network is written
    /// back as it was; `--net` then trains the network on top of the new patterns, so the two can
    /// be trained in turn.
    #[arg(long)]
    init: Option<PathBuf>,
    /// How the pattern regions cover the board: `sparse` (corners on even rows and columns: 9
    /// regions on 8x8) or `staggered` (those and the regions centred between them: 13 on 8x8, 25
    /// on 10x10; not 12x12). Default: the tiling of `--init`, else sparse. Starting from weights
    /// of another tiling keeps the tables of the regions both have; the others start empty.
    #[arg(long, value_parser = parse_tiling)]
    tiling: Option<Tiling>,
    /// Passes over the data.
    #[arg(long, default_value_t = 20)]
    epochs: usize,
    /// Positions per step.
    #[arg(long, default_value_t = 16384)]
    batch: usize,
    /// Adam step size: hundredths of a man for the patterns (default 1.0); with `--net`, units of
    /// a hidden unit's activation for the network's first layer, 100 times that in hundredths of
    /// a man for its output layer (default 0.001).
    #[arg(long)]
    lr: Option<f32>,
    /// Train a network on top of the `--init` weights' patterns, which stay as they are (see
    /// docs/experiments/learned-evaluation.md, "A network on top of the patterns"), instead of the patterns; `--l2` is then a
    /// penalty on the network's output, `l2 / 2 * (output / 100)^2` per position, which keeps its
    /// corrections to the patterns small (0.3 screened best). A network already in `--init` is
    /// trained on.
    #[arg(long, requires = "init")]
    net: bool,
    /// With `--net`: give the network an opening and an endgame output layer, blended by the
    /// pieces on the board as the patterns' two phases are (weights format version 4). A network
    /// with one output layer in `--init` starts with it in both phases; a phased one stays phased.
    #[arg(long, requires = "net")]
    phased: bool,
    /// Weight of the game result in the target; the rest is the search score.
    #[arg(long, default_value_t = 0.5)]
    lambda: f32,
    /// L2 penalty on the pattern weights, per use: each position adds `l2 / 2 * w^2` for every
    /// pattern weight it uses (weights in hundredths of a man; 1e-5 is already strong).
    #[arg(long, default_value_t = 0.0)]
    l2: f32,
    /// Make the L2 penalty pull every weight, the global ones (material, mobility, ...) too,
    /// towards the `--init` weights instead of the pattern weights towards zero: a fine-tune that
    /// keeps what they knew where the new data says little.
    #[arg(long, requires = "init")]
    anchor: bool,
    /// Fraction of the positions held out for validation (the last games of the data).
    #[arg(long, default_value_t = 0.05)]
    valid: f32,
    /// The logistic scale K (default: fitted to the search scores).
    #[arg(long)]
    k: Option<f32>,
    /// Seed of the shuffling.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: every core).
    #[arg(long)]
    threads: Option<usize>,
}

/// The deep labels of `paths` (books or data files), all of `size`.
fn read_deep(paths: &[PathBuf], size: BoardSize) -> Result<Vec<Record>> {
    let mut out = Vec::new();
    for path in paths {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        if bytes.starts_with(&checkersbot::engine::book::MAGIC) {
            let book = Book::from_bytes(&bytes)
                .and_then(|b| b.check_size(size).map(|()| b))
                .with_context(|| {
                    format!("cannot take the book {} as deep labels", path.display())
                })?;
            out.extend(book_records(&book));
        } else {
            let (s, mut r) = super::common::read_data(std::slice::from_ref(path))?;
            if s != size {
                return Err(anyhow!(
                    "{} holds {s} positions; the data is {size}",
                    path.display()
                ));
            }
            out.append(&mut r);
        }
    }
    Ok(out)
}

fn parse_tiling(s: &str) -> Result<Tiling, String> {
    Tiling::parse(s).ok_or_else(|| format!("unknown tiling `{s}`: sparse or staggered"))
}

/// Runs `train`.
pub fn run(args: &TrainArgs) -> Result<()> {
    let start = Instant::now();
    let (size, games) = super::common::read_data(&args.data)?;
    if games.is_empty() {
        return Err(anyhow!("the data files hold no positions"));
    }
    let deep = read_deep(&args.deep, size)?;
    let mut records = Vec::with_capacity(deep.len() * args.deep_weight + games.len());
    for _ in 0..args.deep_weight {
        records.extend_from_slice(&deep);
    }
    let score_only = records.len();
    records.extend(games);
    let init = match &args.init {
        Some(p) => {
            let bytes = std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?;
            LearnedWeights::from_bytes_for(&bytes, size)
                .with_context(|| format!("cannot start from {}", p.display()))?
        }
        None => LearnedWeights::initial(size, args.tiling.unwrap_or_default()),
    };
    // The tiling asked for, else the start's (retiling to its own tiling changes nothing);
    // `retiled` refuses only a tiling that does not fit.
    let tiling = args.tiling.unwrap_or(init.tiling);
    let init = init.retiled(tiling).ok_or_else(|| {
        anyhow!(
            "--tiling {} has {} regions on {size}, more than the evaluator holds",
            tiling.name(),
            regions(size, tiling)
        )
    })?;
    let cfg = TrainConfig {
        epochs: args.epochs,
        batch: args.batch,
        lr: args.lr.unwrap_or(if args.net { 0.001 } else { 1.0 }),
        lambda: args.lambda,
        l2: args.l2,
        anchor: args.anchor,
        valid: args.valid,
        k: args.k,
        seed: args.seed,
        threads: super::common::threads_or_cores(args.threads),
        phased: args.phased,
        score_only,
    };
    if !deep.is_empty() {
        println!(
            "{} deep labels, each counted {} time(s), trained on their scores alone",
            deep.len(),
            args.deep_weight
        );
    }
    println!(
        "{} positions ({size}) read in {:.1} s; {:.0}% of the games' held out for validation; {} regions ({})",
        records.len(),
        start.elapsed().as_secs_f64(),
        cfg.valid * 100.0,
        regions(size, init.tiling),
        init.tiling.name()
    );
    let mut report = |r: &EpochReport| {
        println!(
            "epoch {:3}: train loss {:.5}  validation loss {:.5}  ({:.1} s)",
            r.epoch,
            r.train_loss,
            r.valid_loss,
            start.elapsed().as_secs_f64()
        );
    };
    let w = if args.net {
        let from = init.net.as_ref().map(|n| n.to_float());
        let (w, _, r) = train_net(size, &records, &init, from.as_ref(), &cfg, &mut report);
        println!(
            "the network moves the held-out scores by {:.1} hundredths of a man on average, {:.0} at most",
            r.mean_output, r.max_output
        );
        w
    } else {
        train(size, &records, &init, &cfg, &mut report)
    };
    std::fs::write(&args.out, w.to_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    println!(
        "K = {:.1}; weights written to {} in {:.1} s",
        w.k,
        args.out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
