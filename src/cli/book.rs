//! `checkersbot book build|lines|merge|info|probe|stats`: the opening book.

use super::common::{hash_arg, load_eval, parse_side};
use anyhow::{anyhow, bail, Context, Result};
use checkersbot::engine::book::build::{
    build, contradicted, deepen_list, BuildConfig, BuildEnd, Progress,
};
use checkersbot::engine::book::lines::{
    grow_lines, lines_games, LinesConfig, LinesEnd, LinesGame, LinesProgress, Opening,
};
use checkersbot::engine::book::shard::{
    build_shard, lines_shard, merge, Shard, ShardError, ShardProgress, ShardSpec,
};
use checkersbot::engine::book::{fnv1a, Book, BookError, BookSpec, BuildInfo, Entry};
use checkersbot::engine::{EngineConfig, Limits};
use checkersbot::play::level::Level;
use checkersbot::rng::Rng;
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::board::Grid;
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::openings::{Deck, DeckSpec};
use checkersbot::rules::position::Side;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Arguments of `book`.
#[derive(Args, Debug)]
pub struct BookArgs {
    #[command(subcommand)]
    command: BookCommand,
}

#[derive(Subcommand, Debug)]
enum BookCommand {
    /// Build an opening book from deep searches (drop-out expansion from the start position and
    /// the ACF deck's ballots), or grow one: an existing --out file is extended unless --fresh,
    /// a new one starts from --from (e.g. the built-in book). SIGINT or SIGTERM stops it with the
    /// file saved; the same command goes on from there.
    Build(BuildArgs),
    /// Grow a book along the lines games take: from each ballot of the ACF deck, once with each
    /// side playing from the book, to a game ply. The book side plays the book's move, or searches
    /// a position the book lacks and adds it; the other side is the engine at a small budget (the
    /// likely replies). Reach where `build` gives breadth; SIGINT or SIGTERM stops it saved, the
    /// same command goes on: the games already played, listed in the --played file, are not
    /// played again.
    Lines(LinesArgs),
    /// Merge the shard files of one `book build --shard K/N` round (or of `book lines --shard
    /// K/N`), all N of them, into the book they were grown from: --out if it exists, else --from.
    /// The result equals the same work done by one process (see docs/book-shards.md).
    Merge(MergeArgs),
    /// Positions, depth and nodes a position, plies covered per ballot, build time and compute.
    Info(InfoArgs),
    /// The book's moves and their values for a board.
    Probe(ProbeArgs),
    /// How far games from the start stay in the book at each level (both sides choosing book
    /// moves as that level does).
    Stats(StatsArgs),
}

#[derive(Args, Debug)]
struct BuildArgs {
    /// The book file (written atomically: a temporary file, then renamed); if it exists, it is
    /// extended.
    #[arg(long)]
    out: PathBuf,
    /// The book to start from when --out does not exist yet (or with --fresh): `builtin` or a
    /// file, e.g. to grow a copy of the committed book.
    #[arg(long)]
    from: Option<String>,
    /// Board side: 4, 6, 8, 10 or 12.
    #[arg(long, default_value_t = 8)]
    size: usize,
    /// Node budget of each new position's search (deterministic; default 30000000 unless
    /// --movetime is given). Positions already in the book keep their searches.
    #[arg(long)]
    nodes: Option<u64>,
    /// Time of each position's search, ms.
    #[arg(long)]
    movetime: Option<u64>,
    /// Cost of a ply on a line, hundredths of a man: higher makes a broader, shallower book.
    #[arg(long, default_value_t = 10)]
    penalty: u32,
    /// The ballots that are roots besides the start position: `acf3`, a range `acf3:A-B`, or
    /// `none` [default: acf3 on 8x8, none on other sizes].
    #[arg(long)]
    deck: Option<String>,
    /// Starting cost of each ballot root, hundredths of a man (0: every root grows alike; more
    /// favours the start position's own lines).
    #[arg(long, default_value_t = 0)]
    ballot_cost: u64,
    /// Searches side by side (0 = one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Leaves expanded per round (the book depends on it, not on --threads).
    #[arg(long, default_value_t = 2)]
    batch: usize,
    /// Stop once the book has this many positions.
    #[arg(long)]
    max_positions: Option<usize>,
    /// Stop after this many seconds (checked between searches).
    #[arg(long)]
    time: Option<u64>,
    /// Do not expand leaves deeper than this many plies.
    #[arg(long, default_value_t = 60)]
    max_ply: u32,
    /// Save every this many seconds.
    #[arg(long, default_value_t = 60)]
    save_every: u64,
    /// Start over (from --from, or empty) even if --out exists.
    #[arg(long)]
    fresh: bool,
    /// First search again, at this build's budget, every position a move from an expanded one
    /// that was searched with a smaller budget (`book info` counts them), and back the new values
    /// up; then grow as usual (--max-positions 1 stops after the pass).
    #[arg(long)]
    deepen: bool,
    /// Expand first the leaves the book contradicts: a leaf whose move is worse, by more than
    /// MARGIN hundredths of a man, than another move there by the record the book holds of the
    /// position that move leads to (every move is then searched at this build's budget, and
    /// the minimax settles which is right); then grow as usual. `--repair` alone: a margin of
    /// 30.
    #[arg(long, value_name = "MARGIN", num_args = 0..=1, default_missing_value = "30")]
    repair: Option<u32>,
    /// Stop after this many rounds (a round expands --batch leaves; the first round of a build
    /// that lacks a root or deepens searches those): as many rounds as --shard generations.
    #[arg(long)]
    rounds: Option<u64>,
    /// Search only shard K of N of the book's next round into --out, a shard file, for `book
    /// merge` (the book grown from is --from, else an empty one): positions K, K+N, K+2N... of
    /// the round's list. Resumable like a build; --max-positions, --rounds and --movetime do not
    /// apply.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Transposition table of each search, MiB.
    #[arg(long, default_value_t = 64, value_parser = hash_arg)]
    hash: usize,
    /// Evaluation (as for `search --eval`).
    #[arg(long, default_value = checkersbot::engine::eval::DEFAULT_EVAL)]
    eval: String,
}

#[derive(Args, Debug)]
struct LinesArgs {
    /// The book file (written atomically); if it exists, it is extended.
    #[arg(long)]
    out: PathBuf,
    /// The book to start from when --out does not exist yet (or with --fresh): `builtin` or a
    /// file.
    #[arg(long)]
    from: Option<String>,
    /// The openings: `acf3` or a range `acf3:A-B`.
    #[arg(long, default_value = "acf3")]
    deck: String,
    /// Node budget of each new book position's search; a leaf searched with fewer nodes that
    /// the book side reaches is searched again at this budget and replaced (unless an expanded
    /// position's moves hold its value: `book build --deepen` searches those again).
    #[arg(long, default_value_t = DEFAULT_LINES_NODES)]
    nodes: u64,
    /// The other side's node budgets, comma-separated: every game is played once per budget
    /// (200000 is about 100 ms a move on one thread, 2500000 about 1 s).
    #[arg(long, default_value = "200000", value_delimiter = ',')]
    opponent_nodes: Vec<u64>,
    /// Games end at this ply from the start position (the ballot's three included).
    #[arg(long, default_value_t = 24)]
    max_ply: u32,
    /// Plies of each new search's principal variation kept in the book as well (the search's
    /// move at each, its budget halved a ply; a search of their own replaces them), 0 for none.
    #[arg(long, default_value_t = 4)]
    pv_plies: u32,
    /// Games played side by side (0 = one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Stop after this many seconds (checked between moves).
    #[arg(long)]
    time: Option<u64>,
    /// Save every this many seconds.
    #[arg(long, default_value_t = 60)]
    save_every: u64,
    /// Start over (from --from, or empty) even if --out exists.
    #[arg(long)]
    fresh: bool,
    /// The games played, for resuming across runs and sessions: a line for each finished game
    /// (the settings, the opponent's budget, the book side and the ballot), written with the
    /// book; a game listed with this run's settings is not played again, whatever --deck. `off`
    /// for none. Default: --out with `.lines` added. A new book (--fresh, or no --out yet)
    /// starts it over. Not with --shard (a shard file resumes itself).
    #[arg(long, value_name = "FILE")]
    played: Option<String>,
    /// Play only shard K of N of the games into --out, a shard file, for `book merge` (the book
    /// grown from is --from, else an empty one): the games of ballots K, K+N, K+2N... of --deck.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Transposition table of each search, MiB.
    #[arg(long, default_value_t = 64, value_parser = hash_arg)]
    hash: usize,
    /// Evaluation (as for `search --eval`).
    #[arg(long, default_value = checkersbot::engine::eval::DEFAULT_EVAL)]
    eval: String,
}

#[derive(Args, Debug)]
struct MergeArgs {
    /// The book to write (atomically); if it exists, it is the book the shards were grown from
    /// and is extended.
    #[arg(long)]
    out: PathBuf,
    /// The book the shards were grown from, when --out does not exist yet (or with --fresh):
    /// `builtin` or a file (none: an empty book).
    #[arg(long)]
    from: Option<String>,
    /// Start from --from (or an empty book) even if --out exists.
    #[arg(long)]
    fresh: bool,
    /// The shard files, all N of one job, in any order.
    #[arg(required = true, value_name = "SHARD")]
    shards: Vec<PathBuf>,
}

#[derive(Args, Debug)]
struct InfoArgs {
    /// The book: `builtin` or a file.
    #[arg(long, default_value = "builtin")]
    book: String,
    /// Also one line per ballot of the ACF deck (8x8 books): the plies the book covers from it
    /// along its best moves, and the value of its best move.
    #[arg(long)]
    ballots: bool,
}

#[derive(Args, Debug)]
struct ProbeArgs {
    /// One-line board (rows top to bottom joined by '/') [default: the 8x8 start].
    #[arg(long)]
    board: Option<String>,
    /// Side to move: p or b.
    #[arg(long, default_value = "p")]
    side: String,
    /// The book: `builtin` or a file.
    #[arg(long, default_value = "builtin")]
    book: String,
}

#[derive(Args, Debug)]
struct StatsArgs {
    /// The book: `builtin` or a file.
    #[arg(long, default_value = "builtin")]
    book: String,
    /// Games per level.
    #[arg(long, default_value_t = 1000)]
    games: u32,
    /// Seed of the first game (game k uses seed + k).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The ply the report counts games leaving the book before.
    #[arg(long, default_value_t = 10)]
    ply: u32,
}

/// Runs `book`.
pub fn run(args: &BookArgs) -> Result<()> {
    match &args.command {
        BookCommand::Build(a) => run_build(a),
        BookCommand::Lines(a) => run_lines(a),
        BookCommand::Merge(a) => run_merge(a),
        BookCommand::Info(a) => run_info(a),
        BookCommand::Probe(a) => run_probe(a),
        BookCommand::Stats(a) => run_stats(a),
    }
}

/// The book a `--book` value names (`off` is refused: these commands need one).
fn load(spec: &str) -> Result<Book> {
    BookSpec::parse(spec)
        .load()
        .map_err(|e| anyhow!("--book {spec}: {e}"))?
        .ok_or_else(|| anyhow!("--book off: this command needs a book"))
}

/// The build record of a book for the last line of a growing command: searches, time, compute.
fn record(book: &Book) -> String {
    let i = book.info();
    format!(
        "{} searches, {} and {:.2} core-hours in all",
        i.searches,
        hms(Duration::from_secs(i.seconds)),
        i.cpu_seconds as f64 / 3600.0
    )
}

fn hms(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

fn run_build(a: &BuildArgs) -> Result<()> {
    let size =
        BoardSize::from_n(a.size).ok_or_else(|| anyhow!("--size {}: no such board", a.size))?;
    let nodes = match (a.nodes, a.movetime) {
        (None, None) => Some(DEFAULT_BUILD_NODES),
        (n, _) => n,
    };
    let limits = Limits {
        nodes,
        movetime: a.movetime.map(Duration::from_millis),
        depth: None,
    };
    let threads = super::common::threads_or_cores(Some(a.threads).filter(|&t| t > 0));
    let deck = match a.deck.as_deref() {
        Some("none") | Some("off") => None,
        Some(spec) => Some(
            spec.parse::<DeckSpec>()
                .map_err(|e| anyhow!("--deck {spec}: {e}"))?,
        ),
        None if size == BoardSize::S8 => Some(DeckSpec {
            deck: "acf3".into(),
            range: None,
        }),
        None => None,
    };
    let ballots = match &deck {
        Some(spec) if size != BoardSize::S8 => {
            bail!("--deck {spec}: the deck is for 8x8, not --size {}", a.size)
        }
        Some(spec) => spec.ballots().map_err(|e| anyhow!("--deck {spec}: {e}"))?,
        None => Vec::new(),
    };
    let mut roots = vec![(AnyPosition::initial(size, Side::Bot), 0)];
    roots.extend(ballots.iter().map(|b| (b.position, a.ballot_cost)));
    if a.rounds == Some(0) {
        bail!("--rounds 0: give 1 or more");
    }
    if let Some(text) = &a.shard {
        let spec: ShardSpec = text.parse().map_err(|e| anyhow!("--shard {e}"))?;
        return run_build_shard(a, spec, size, nodes, roots, deck.as_ref(), threads);
    }
    let mut book = open_to_grow(&a.out, a.from.as_deref(), a.fresh, size)?;
    let info = book.info_mut();
    let (old_nodes, old_ms, old_pen) = (info.nodes, info.movetime_ms, info.penalty);
    info.nodes = nodes.unwrap_or(0);
    info.movetime_ms = a.movetime.unwrap_or(0);
    info.penalty = a.penalty;
    if old_nodes + old_ms > 0
        && (old_nodes, old_ms, old_pen) != (info.nodes, info.movetime_ms, info.penalty)
    {
        eprintln!(
            "book: the book was grown with nodes {old_nodes} movetime {old_ms} penalty {old_pen}; its positions keep their searches, new ones get nodes {} movetime {} penalty {}",
            info.nodes, info.movetime_ms, info.penalty
        );
    }
    let engine = EngineConfig {
        hash_mb: a.hash,
        learned: load_eval(&a.eval)?,
        ..EngineConfig::default()
    };
    let cfg = BuildConfig {
        engine,
        limits,
        penalty: a.penalty,
        threads,
        batch: a.batch,
        max_positions: a.max_positions,
        rounds: a.rounds,
        time: a.time.map(Duration::from_secs),
        max_ply: a.max_ply,
        save_every: Duration::from_secs(a.save_every),
        roots,
        deepen: a.deepen,
        repair: a.repair,
    };
    let roots_text = match &deck {
        Some(spec) => format!("the start and {} ballots of {spec}", ballots.len()),
        None => "the start".to_string(),
    };
    eprintln!(
        "book: growing {} from {roots_text}, {} a search, {threads} thread(s), saved every {} s; SIGINT/SIGTERM stops it saved",
        a.out.display(),
        match (nodes, a.movetime) {
            (Some(n), _) => format!("{n} nodes"),
            (None, Some(ms)) => format!("{ms} ms"),
            (None, None) => "no limit".into(),
        },
        a.save_every
    );
    let stop = super::common::stop_on_signals("stopping after saving");
    let out = a.out.clone();
    let mut last: Option<Instant> = None;
    let max_positions = a.max_positions;
    let time = a.time.map(Duration::from_secs);
    let mut report = |p: &Progress| {
        if last.is_some_and(|t| t.elapsed() < Duration::from_secs(5)) {
            return;
        }
        last = Some(Instant::now());
        eprintln!("{}", progress_line(p, max_positions, time));
    };
    let end = build(
        &mut book,
        &cfg,
        stop,
        &mut |b| {
            tracing::debug!("saving {} positions", b.len());
            b.save(&out)
        },
        &mut report,
    )
    .map_err(|e| anyhow!("book build: {e}"))?;
    let why = match end {
        BuildEnd::Positions => "position limit",
        BuildEnd::Time => "time limit",
        BuildEnd::Stopped => "stopped",
        BuildEnd::Exhausted => "no leaf left",
        BuildEnd::Rounds => "rounds done",
    };
    eprintln!(
        "book: done ({why}): {} positions, depth {}, {}; written to {}",
        book.len(),
        book.max_depth(),
        record(&book),
        a.out.display()
    );
    Ok(())
}

/// What an `--eval` choice is, for a shard's settings: `hand`, or the weights' fingerprint (the
/// built-in ones of this program or a file's), so that shards searched with other weights, or by
/// programs with other built-in weights, are not merged together.
fn eval_word(spec: &str) -> String {
    match spec {
        "hand" => "hand".into(),
        "learned" => {
            let parts: Vec<&[u8]> = checkersbot::engine::eval::BUILT_IN
                .iter()
                .map(|(_, b)| *b)
                .collect();
            format!("learned:{:016x}", fnv1a(&parts))
        }
        path => match std::fs::read(path) {
            Ok(bytes) => format!("file:{:016x}", fnv1a(&[&bytes])),
            Err(_) => path.replace(char::is_whitespace, "_"),
        },
    }
}

/// The book a shard is grown from: `--from`, else an empty book of `size`.
fn shard_base(from: Option<&str>, size: BoardSize) -> Result<Book> {
    match from {
        Some(spec) => {
            let book = load(spec)?;
            book.check_size(size)
                .map_err(|e| anyhow!("--from {spec}: {e}"))?;
            Ok(book)
        }
        None => Ok(Book::new(size, BuildInfo::default())),
    }
}

/// The shard file `out` to go on with, if it exists and not `fresh`.
fn shard_to_resume(out: &Path, fresh: bool) -> Result<Option<Shard>> {
    // A book given as a shard's --out by mistake is never overwritten, not even with --fresh.
    let head = std::fs::File::open(out).ok().and_then(|mut f| {
        let mut magic = [0u8; 8];
        std::io::Read::read_exact(&mut f, &mut magic)
            .ok()
            .map(|_| magic)
    });
    if head == Some(checkersbot::engine::book::MAGIC) {
        bail!(
            "{} is an opening book, not a shard file: give the shard an --out of its own (the book it grows from is --from)",
            out.display()
        );
    }
    if fresh || !out.exists() {
        return Ok(None);
    }
    let shard = Shard::load(out).map_err(|e| {
        anyhow!(
            "cannot go on with {}: {e} (use --fresh to start the shard over)",
            out.display()
        )
    })?;
    eprintln!(
        "book: going on with {} (shard {}, {} records, {})",
        out.display(),
        shard.spec,
        shard.records.len(),
        if shard.complete {
            "complete"
        } else {
            "not complete"
        }
    );
    Ok(Some(shard))
}

/// The error of a shard command, with what to do about an existing shard of other work.
fn shard_error(out: &Path, e: ShardError) -> anyhow::Error {
    match e {
        ShardError::OtherWork(why) => anyhow!(
            "{} is a shard of other work than this command's ({why}): give another --out, or --fresh to start it over",
            out.display()
        ),
        e => anyhow!("{e}"),
    }
}

/// A shard's progress line, at most every 5 s and at its end.
fn shard_reporter(spec: ShardSpec, what: &'static str) -> impl FnMut(&ShardProgress) + Send {
    let mut last: Option<Instant> = None;
    move |p: &ShardProgress| {
        if last.is_some_and(|t| t.elapsed() < Duration::from_secs(5)) && p.done < p.total {
            return;
        }
        last = Some(Instant::now());
        eprintln!(
            "book: shard {spec}: {} of {} {what}, {}",
            p.done,
            p.total,
            hms(p.elapsed)
        );
    }
}

/// `book build --shard K/N`.
fn run_build_shard(
    a: &BuildArgs,
    spec: ShardSpec,
    size: BoardSize,
    nodes: Option<u64>,
    roots: Vec<(AnyPosition, u64)>,
    deck: Option<&DeckSpec>,
    threads: usize,
) -> Result<()> {
    if a.movetime.is_some() {
        bail!("--shard needs --nodes, not --movetime: a search by time depends on the machine, and the shards must give what one process gives");
    }
    if a.max_positions.is_some() || a.rounds.is_some() {
        bail!("--shard searches one round: --max-positions and --rounds do not apply (the loop that runs the generations decides when to stop)");
    }
    let nodes = nodes.unwrap_or(DEFAULT_BUILD_NODES);
    let mut base = shard_base(a.from.as_deref(), size)?;
    let resume = shard_to_resume(&a.out, a.fresh)?;
    let cfg = BuildConfig {
        engine: EngineConfig {
            hash_mb: a.hash,
            learned: load_eval(&a.eval)?,
            ..EngineConfig::default()
        },
        limits: Limits {
            nodes: Some(nodes),
            movetime: None,
            depth: None,
        },
        penalty: a.penalty,
        threads,
        batch: a.batch,
        max_positions: None,
        rounds: None,
        time: None,
        max_ply: a.max_ply,
        save_every: Duration::from_secs(a.save_every),
        roots,
        deepen: a.deepen,
        repair: a.repair,
    };
    let deck_word = deck.map_or_else(|| "none".to_string(), |d| d.to_string());
    let settings = format!(
        "kind=build size={} nodes={nodes} penalty={} batch={} max_ply={} deck={deck_word} ballot_cost={} deepen={}{} hash={} eval={} program=checkersbot-{}",
        size.n(),
        a.penalty,
        a.batch.max(1),
        a.max_ply,
        a.ballot_cost,
        u8::from(a.deepen),
        a.repair.map_or_else(String::new, |m| format!(" repair={m}")),
        a.hash,
        eval_word(&a.eval),
        env!("CARGO_PKG_VERSION")
    );
    eprintln!(
        "book: shard {spec} of the next round of {} ({} positions) into {}, {nodes} nodes a search, {threads} thread(s); SIGINT/SIGTERM stops it saved",
        a.from.as_deref().unwrap_or("an empty book"),
        base.len(),
        a.out.display()
    );
    let stop = super::common::stop_on_signals("stopping after saving");
    let out = a.out.clone();
    let mut report = shard_reporter(spec, "searches");
    let shard = build_shard(
        &mut base,
        &cfg,
        spec,
        &settings,
        resume,
        stop,
        a.time.map(Duration::from_secs),
        &mut |s| s.save(&out),
        &mut report,
    )
    .map_err(|e| shard_error(&a.out, e))?;
    eprintln!(
        "book: shard {spec} {}: {} of the round's {} searches, {} in this shard; written to {}",
        shard_state(shard.complete),
        shard.records.len(),
        shard.total,
        hms(Duration::from_secs(shard.seconds)),
        a.out.display()
    );
    Ok(())
}

/// How a shard's run ended, for its last line.
fn shard_state(complete: bool) -> &'static str {
    if complete {
        "complete"
    } else {
        "stopped (the same command goes on)"
    }
}

fn run_merge(a: &MergeArgs) -> Result<()> {
    let mut shards = Vec::with_capacity(a.shards.len());
    for path in &a.shards {
        let shard = Shard::load(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        shards.push((path.display().to_string(), shard));
    }
    let size = shards
        .first()
        .map(|(_, s)| s.size)
        .ok_or_else(|| anyhow!("no shard to merge"))?;
    let mut book = open_to_grow(&a.out, a.from.as_deref(), a.fresh, size)?;
    let merged = merge(&mut book, &shards).map_err(|e| anyhow!("book merge: {e}"))?;
    book.save(&a.out).map_err(|e| anyhow!("book merge: {e}"))?;
    eprintln!(
        "book: merged {} shards of `{}` ({} records, {} searches): +{} positions, {} positions, depth {}, {}; written to {}",
        merged.shards,
        merged.kind.command(),
        merged.records,
        merged.searches,
        merged.added,
        book.len(),
        book.max_depth(),
        record(&book),
        a.out.display()
    );
    Ok(())
}

/// The book a growing command works on: `out` if it exists (unless `fresh`), else a copy of
/// `from`, else an empty book of `size`.
fn open_to_grow(out: &Path, from: Option<&str>, fresh: bool, size: BoardSize) -> Result<Book> {
    let exists = out.exists();
    if exists && !fresh && from.is_some() {
        bail!(
            "{} exists and would be extended: drop --from, or add --fresh to start over from --from",
            out.display()
        );
    }
    if exists && !fresh {
        let book = Book::load_for(out, size).with_context(|| {
            format!(
                "cannot resume {} (use --fresh to start over)",
                out.display()
            )
        })?;
        eprintln!(
            "book: resuming {} ({} positions, {} searches, {})",
            out.display(),
            book.len(),
            book.info().searches,
            hms(Duration::from_secs(book.info().seconds))
        );
        Ok(book)
    } else if let Some(spec) = from {
        let book = load(spec)?;
        book.check_size(size)
            .map_err(|e| anyhow!("--from {spec}: {e}"))?;
        eprintln!(
            "book: starting from {spec} ({} positions, {} searches, {})",
            book.len(),
            book.info().searches,
            hms(Duration::from_secs(book.info().seconds))
        );
        Ok(book)
    } else {
        Ok(Book::new(size, BuildInfo::default()))
    }
}

/// The margin of `book build --repair` given alone, and of `book info`'s `contradicted` count:
/// hundredths of a man (ballot 9's doubtful leaf was contradicted by 36, research log).
const DEFAULT_REPAIR_MARGIN: u32 = 30;

/// The default node budget of a book position's search: deeper than the robot's own 5 s search.
pub const DEFAULT_BUILD_NODES: u64 = 30_000_000;

/// The progress line of `book build`.
fn progress_line(p: &Progress, max_positions: Option<usize>, time: Option<Duration>) -> String {
    let line: Vec<String> = p
        .best_line
        .iter()
        .take(10)
        .map(|m| m.notation().replace(' ', "-"))
        .collect();
    let per_search = if p.searches > 0 {
        format!("{:.1} s a search", 1.0 / p.rate.max(1e-9))
    } else {
        "no search yet".into()
    };
    let round = if p.round_total > 0 && p.searches > 0 {
        let left = (p.round_total - p.round_done) as f64 / p.rate.max(1e-9);
        format!(
            ", round {}/{} (its end in {})",
            p.round_done,
            p.round_total,
            hms(Duration::from_secs_f64(left))
        )
    } else {
        String::new()
    };
    let eta = match (max_positions, time) {
        (Some(m), _) if p.added > 0 && m > p.positions => {
            let per = p.elapsed.as_secs_f64() / p.added as f64;
            format!(
                "; ETA {} to {m} positions",
                hms(Duration::from_secs_f64(per * (m - p.positions) as f64))
            )
        }
        (_, Some(t)) => format!("; stops in {}", hms(t.saturating_sub(p.elapsed))),
        _ => String::new(),
    };
    format!(
        "book: {} positions (+{} this run, {} expanded), start line {} plies (cp {}), ballots {}/{} expanded, expanded plies along their lines {} min {:.1} mean, {} searches, {per_search} (avg depth {:.1}){round}, {}{eta}; line {}",
        p.positions,
        p.added,
        p.expanded,
        p.depth,
        p.best_value,
        p.roots_expanded,
        p.roots_other,
        p.roots_min_plies,
        p.roots_mean_plies,
        p.searches,
        p.search_depth,
        hms(p.elapsed),
        line.join(" ")
    )
}

/// The default node budget of a position `book lines` adds: about 1.6 s on one thread, 20 times
/// a 100 ms search.
pub const DEFAULT_LINES_NODES: u64 = 4_000_000;

fn run_lines(a: &LinesArgs) -> Result<()> {
    let spec: DeckSpec = a
        .deck
        .parse()
        .map_err(|e| anyhow!("--deck {}: {e}", a.deck))?;
    let ballots = spec.ballots().map_err(|e| anyhow!("--deck {spec}: {e}"))?;
    if a.nodes == 0 {
        bail!("--nodes 0: the book's searches need a budget");
    }
    if a.opponent_nodes.is_empty() || a.opponent_nodes.contains(&0) {
        bail!("--opponent-nodes: give one or more budgets above 0");
    }
    let shard = match &a.shard {
        Some(text) => Some(
            text.parse::<ShardSpec>()
                .map_err(|e| anyhow!("--shard {e}"))?,
        ),
        None => None,
    };
    let mut book = match shard {
        Some(_) => shard_base(a.from.as_deref(), BoardSize::S8)?,
        None => open_to_grow(&a.out, a.from.as_deref(), a.fresh, BoardSize::S8)?,
    };
    let openings: Vec<Opening> = ballots
        .iter()
        .map(|b| Opening {
            position: b.position,
            ply: b.moves.len() as u32,
        })
        .collect();
    let node_limits = |n: u64| Limits {
        nodes: Some(n),
        movetime: None,
        depth: None,
    };
    let threads = super::common::threads_or_cores(Some(a.threads).filter(|&t| t > 0));
    let cfg = LinesConfig {
        engine: EngineConfig {
            hash_mb: a.hash,
            learned: load_eval(&a.eval)?,
            ..EngineConfig::default()
        },
        limits: node_limits(a.nodes),
        opponents: a.opponent_nodes.iter().map(|&n| node_limits(n)).collect(),
        max_ply: a.max_ply,
        pv_plies: a.pv_plies,
        threads,
        time: a.time.map(Duration::from_secs),
        save_every: Duration::from_secs(a.save_every),
    };
    if let Some(spec) = shard {
        if a.played.is_some() {
            bail!("--played is not for a shard: a shard file resumes itself");
        }
        return run_lines_shard(a, spec, &book, &openings, &cfg);
    }
    let all = lines_games(&openings, &cfg);
    // Each game's line in the --played file.
    let settings = format!(
        "nodes={} max_ply={} hash={} eval={}",
        a.nodes,
        a.max_ply,
        a.hash,
        eval_word(&a.eval)
    );
    let line_of = |g: &LinesGame| {
        let o = &openings[g.opening];
        format!(
            "{settings} opponent_nodes={} book_side={} ballot={} ply={} opening={}",
            a.opponent_nodes[g.opponent], g.book_side, ballots[g.opening].number, o.ply, o.position
        )
    };
    let played_path = match a.played.as_deref() {
        Some("off") => None,
        Some(path) => Some(PathBuf::from(path)),
        None => {
            let mut name = a.out.clone().into_os_string();
            name.push(".lines");
            Some(PathBuf::from(name))
        }
    };
    if played_path.as_deref() == Some(a.out.as_path()) {
        bail!(
            "--played {}: that is the book itself (--out)",
            a.out.display()
        );
    }
    // A new book (no --out yet, or --fresh) starts the list over.
    let mut listed: Vec<String> = match &played_path {
        Some(path) if !a.fresh && a.out.exists() => read_played(path)?,
        _ => Vec::new(),
    };
    let known: std::collections::HashSet<&str> = listed.iter().map(String::as_str).collect();
    let played: std::collections::HashSet<LinesGame> = all
        .iter()
        .filter(|g| known.contains(line_of(g).as_str()))
        .copied()
        .collect();
    drop(known);
    let games = all.len() - played.len();
    eprintln!(
        "book: lines into {} from {} ballots of {spec}, {games} games to ply {}{}, {} nodes a new position, opponent {:?} nodes, {threads} thread(s); SIGINT/SIGTERM stops it saved",
        a.out.display(),
        ballots.len(),
        a.max_ply,
        match &played_path {
            Some(path) if !played.is_empty() => format!(
                " ({} of {} already played, listed in {})",
                played.len(),
                all.len(),
                path.display()
            ),
            _ => String::new(),
        },
        a.nodes,
        a.opponent_nodes
    );
    let stop = super::common::stop_on_signals("stopping after saving");
    let out = a.out.clone();
    let mut last: Option<Instant> = None;
    let mut report = |p: &LinesProgress| {
        if last.is_some_and(|t| t.elapsed() < Duration::from_secs(5)) && p.games < p.total {
            return;
        }
        last = Some(Instant::now());
        eprintln!(
            "book: lines: game {}/{}, {} positions (+{} this run, {} deepened, {} from variations, avg depth {:.1}), {} of {} book-side moves from the book as it was, {}",
            p.games,
            p.total,
            p.positions,
            p.added,
            p.deepened,
            p.pv_records,
            p.search_depth,
            p.known_moves,
            p.book_moves,
            hms(p.elapsed)
        );
    };
    // Games finished, listed once their records are in the book: a game is written to the
    // --played file only with (after) a save of the book that holds it.
    let finished: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut report_and_note = |p: &LinesProgress| {
        if let Ok(mut f) = finished.lock() {
            f.push(line_of(&p.game));
        }
        report(p);
    };
    let end = grow_lines(
        &mut book,
        &openings,
        &cfg,
        &played,
        stop,
        &mut |b| {
            tracing::debug!("saving {} positions", b.len());
            // The games finished before this save began are in the book being saved (none of
            // them is listed yet: a listed game is not played again).
            let now: Vec<String> = finished
                .lock()
                .map(|mut f| std::mem::take(&mut *f))
                .unwrap_or_default();
            b.save(&out)?;
            if let Some(path) = &played_path {
                listed.extend(now);
                write_played(path, &listed)?;
            }
            Ok(())
        },
        &mut report_and_note,
    )
    .map_err(|e| anyhow!("book lines: {e}"))?;
    let why = match end {
        LinesEnd::Done => "every game played",
        LinesEnd::Time => "time limit",
        LinesEnd::Stopped => "stopped",
    };
    eprintln!(
        "book: done ({why}): {} positions, {}; written to {}",
        book.len(),
        record(&book),
        a.out.display()
    );
    Ok(())
}

/// The largest `--played` file read (a line is some 200 bytes; the whole deck at one budget is
/// 314 lines).
const MAX_PLAYED_FILE: u64 = 16 << 20;

/// The lines of a `book lines --played` file (none if it does not exist yet).
fn read_played(path: &Path) -> Result<Vec<String>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let bytes = checkersbot::files::read_regular(path, MAX_PLAYED_FILE)
        .with_context(|| format!("--played {}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow!("--played {}: not text (UTF-8)", path.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect())
}

/// Writes the `--played` file (atomically).
fn write_played(path: &Path, lines: &[String]) -> Result<(), BookError> {
    let mut text = String::from(
        "# checkersbot book lines: the games played (see `checkersbot book lines --help`, --played)\n",
    );
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    checkersbot::files::write_atomically(path, text.as_bytes()).map_err(|source| BookError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// `book lines --shard K/N`.
fn run_lines_shard(
    a: &LinesArgs,
    spec: ShardSpec,
    base: &Book,
    openings: &[Opening],
    cfg: &LinesConfig,
) -> Result<()> {
    let resume = shard_to_resume(&a.out, a.fresh)?;
    let opponents: Vec<String> = a.opponent_nodes.iter().map(|n| n.to_string()).collect();
    let settings = format!(
        "kind=lines size=8 deck={} nodes={} opponent_nodes={} max_ply={} pv_plies={} hash={} eval={} program=checkersbot-{}",
        a.deck,
        a.nodes,
        opponents.join(","),
        a.max_ply,
        a.pv_plies,
        a.hash,
        eval_word(&a.eval),
        env!("CARGO_PKG_VERSION")
    );
    let mine = (0..openings.len()).filter(|&i| spec.owns(i)).count();
    eprintln!(
        "book: shard {spec} of the lines of {} ({} ballots of {}, {} games) from {} ({} positions) into {}, {} thread(s); SIGINT/SIGTERM stops it saved",
        a.deck,
        mine,
        openings.len(),
        mine * 2 * cfg.opponents.len(),
        a.from.as_deref().unwrap_or("an empty book"),
        base.len(),
        a.out.display(),
        cfg.threads
    );
    let stop = super::common::stop_on_signals("stopping after saving");
    let out = a.out.clone();
    let mut report = shard_reporter(spec, "games");
    let shard = lines_shard(
        base,
        openings,
        cfg,
        spec,
        &settings,
        resume,
        stop,
        &mut |s| s.save(&out),
        &mut report,
    )
    .map_err(|e| shard_error(&a.out, e))?;
    eprintln!(
        "book: shard {spec} {}: {} records added or changed, {} searches, {}; written to {}",
        shard_state(shard.complete),
        shard.records.len(),
        shard.searches,
        hms(Duration::from_secs(shard.seconds)),
        a.out.display()
    );
    Ok(())
}

/// How many `records` there are, and how many at each node budget (`budget:count`, smallest
/// budget first), for `book info`.
fn by_node_budget<'a>(records: impl Iterator<Item = &'a Entry>) -> (usize, String) {
    let mut counts: std::collections::BTreeMap<u64, usize> = Default::default();
    for e in records {
        *counts.entry(e.nodes).or_default() += 1;
    }
    let list: Vec<String> = counts.iter().map(|(n, c)| format!("{n}:{c}")).collect();
    (counts.values().sum(), list.join(" "))
}

fn run_info(a: &InfoArgs) -> Result<()> {
    let book = load(&a.book)?;
    let i = book.info();
    let expanded = book.entries().iter().filter(|e| e.expanded).count();
    let pending = book.entries().iter().filter(|e| e.pending).count();
    let bytes = book.to_bytes().map(|b| b.len()).unwrap_or(0);
    println!("size {}", book.size());
    println!("positions {}", book.len());
    println!("expanded {expanded}");
    if pending > 0 {
        println!("pending {pending} (a round under way: the next build finishes it)");
    }
    println!("depth {}", book.max_depth());
    let budget = match (i.nodes, i.movetime_ms) {
        (0, 0) => "none".to_string(),
        (n, 0) => format!("nodes {n}"),
        (0, t) => format!("movetime {t}"),
        (n, t) => format!("nodes {n} movetime {t}"),
    };
    println!("budget {budget}");
    let (_, searched) = by_node_budget(book.entries().iter().filter(|e| !e.pv));
    println!("search_nodes {searched}");
    let (variations, pv_list) = by_node_budget(book.entries().iter().filter(|e| e.pv));
    if variations > 0 {
        println!(
            "variations {variations} (records from principal variations, by node budget: {pv_list})"
        );
    }
    if i.nodes > 0 {
        let limits = Limits {
            nodes: Some(i.nodes),
            ..Limits::default()
        };
        let below = deepen_list(&book, &limits);
        let (n, below_list) = by_node_budget(below.iter().map(|&j| book.entry(j)));
        if n == 0 {
            println!("below_budget 0 (every move from an expanded position was searched at the build's budget)");
        } else {
            println!(
                "below_budget {n} (by node budget: {below_list}; a move from an expanded position, searched with fewer nodes: `book build --deepen` searches them again)"
            );
        }
    }
    let doubted = contradicted(&book, DEFAULT_REPAIR_MARGIN, usize::MAX).len();
    println!(
        "contradicted {doubted} (leaves whose move another move's record there beats by more than {DEFAULT_REPAIR_MARGIN} hundredths: `book build --repair` expands them first)"
    );
    let depths: Vec<u32> = book.entries().iter().map(|e| u32::from(e.depth)).collect();
    if !depths.is_empty() {
        println!(
            "search_depth mean {:.1} min {} max {}",
            depths.iter().sum::<u32>() as f64 / depths.len() as f64,
            depths.iter().min().copied().unwrap_or(0),
            depths.iter().max().copied().unwrap_or(0)
        );
    }
    println!("penalty {}", i.penalty);
    println!("searches {}", i.searches);
    println!("buildtime {}", hms(Duration::from_secs(i.seconds)));
    println!(
        "compute {:.2} core-hours (CPU time of the builds, recorded from format 2 on)",
        i.cpu_seconds as f64 / 3600.0
    );
    if book.size() == BoardSize::S8 {
        let deck = Deck::acf3().map_err(|e| anyhow!("{e}"))?;
        // The plies covered by records searched on their own, and with the variations' too.
        let searched = book.searched_only();
        let mut plies = Vec::new();
        let mut with_pv = Vec::new();
        let mut held = 0;
        for b in deck.ballots() {
            let line = searched.best_line(&b.position, 200);
            with_pv.push(book.best_line(&b.position, 200).len());
            let best = book.moves(&b.position).map(|m| m[0].clone());
            held += usize::from(best.is_some());
            plies.push(line.len());
            if a.ballots {
                let value =
                    best.map_or_else(|| "notinbook".into(), |m| format!("value {}", m.value));
                println!(
                    "ballot {} {} plies {} {value}",
                    b.number,
                    b.notation,
                    line.len()
                );
            }
        }
        let (min_at, min) = plies
            .iter()
            .enumerate()
            .min_by_key(|(_, p)| **p)
            .map_or((0, 0), |(k, p)| (k + 1, *p));
        let mean = |v: &[usize]| v.iter().sum::<usize>() as f64 / v.len().max(1) as f64;
        println!(
            "ballots acf3 {}: {held} in the book, plies covered mean {:.1} min {min} (ballot {min_at})",
            plies.len(),
            mean(&plies)
        );
        if variations > 0 {
            println!(
                "ballots acf3 with the variations' records: plies covered mean {:.1} min {}",
                mean(&with_pv),
                with_pv.iter().min().copied().unwrap_or(0)
            );
        }
    }
    println!("bytes {bytes}");
    Ok(())
}

fn run_probe(a: &ProbeArgs) -> Result<()> {
    let book = load(&a.book)?;
    let side = parse_side(&a.side)?;
    let grid = match &a.board {
        Some(line) => Grid::parse_line(line).context("bad --board")?,
        None => checkersbot::rules::board::initial_grid(BoardSize::S8),
    };
    let pos = AnyPosition::from_grid(&grid, side);
    book.check_size(pos.size())
        .map_err(|e| anyhow!("--book {}: {e}", a.book))?;
    match book.moves(&pos) {
        Some(moves) => {
            for m in moves {
                println!("move {} value {}", m.mv.notation(), m.value);
            }
            // What the moves rest on: an expanded position's minimax, or one search's.
            let canon = checkersbot::engine::book::canonical(&pos).0;
            if let Some(i) = book.find_canonical(&canon) {
                let e = book.entry(i);
                let kind = if e.expanded {
                    "expanded"
                } else if e.pv {
                    "variation"
                } else {
                    "leaf"
                };
                println!(
                    "record {kind} value {} depth {} nodes {}",
                    e.value, e.depth, e.nodes
                );
            }
        }
        None => println!("notinbook"),
    }
    Ok(())
}

/// The ply at which a game leaves the book when both sides choose book moves as `level` does
/// (`limit` if it is still in at that ply), and the moves played.
pub fn book_game(book: &Book, level: Level, rng: &mut Rng, limit: u32) -> (u32, Vec<String>) {
    let mut pos = AnyPosition::initial(book.size(), Side::Player);
    let mut moves = Vec::new();
    for ply in 0..limit {
        let margin = level.book_margin();
        let Some(m) = book.choose(&pos, margin, Some(rng)) else {
            return (ply, moves);
        };
        moves.push(m.mv.notation());
        match pos.play(&m.mv) {
            Some(next) => pos = next,
            None => return (ply, moves),
        }
    }
    (limit, moves)
}

fn run_stats(a: &StatsArgs) -> Result<()> {
    let book = load(&a.book)?;
    if book.size() != BoardSize::S8 && a.games > 0 {
        tracing::info!("the book is for {}", book.size());
    }
    if a.games == 0 {
        bail!("--games must be at least 1");
    }
    println!(
        "level games left_before_ply{} mean_ply_out distinct_first_{}",
        a.ply, a.ply
    );
    for level in Level::ALL {
        let mut before = 0;
        let mut total = 0u64;
        let mut distinct = std::collections::HashSet::new();
        for g in 0..a.games {
            let mut rng = Rng::new(a.seed.wrapping_add(u64::from(g)));
            let (out, moves) = book_game(&book, level, &mut rng, 200);
            if out < a.ply {
                before += 1;
            }
            total += u64::from(out);
            distinct.insert(moves.into_iter().take(a.ply as usize).collect::<Vec<_>>());
        }
        println!(
            "{} {} {} ({:.1}%) {:.1} {}",
            level.name(),
            a.games,
            before,
            100.0 * f64::from(before) / f64::from(a.games),
            total as f64 / f64::from(a.games),
            distinct.len()
        );
    }
    Ok(())
}
