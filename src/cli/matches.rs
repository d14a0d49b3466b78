//! `checkersbot match`: two configurations play each other; a progress line per game, then a table.

use super::common::{load_layout, openings_arg, parse_side, Openings};
use anyhow::{anyhow, Context, Result};
use checkersbot::engine::book::{Book, BookSpec};
use checkersbot::engine::clock::{AfterBook, BadTimeControl, TimeControl};
use checkersbot::engine::egdb::Egdb;
use checkersbot::engine::eval::{Term, Weights};
use checkersbot::engine::{EngineConfig, Limits, SearchParams};
use checkersbot::play::arena::{
    progress_line, run_match, EarlyTime, GameRecord, MatchOptions, PlayerKind, PlayerSpec,
};
use checkersbot::play::level::Level;
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::board::{initial_grid, Grid};
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::pdn::{write_game, GameResult, RecordInfo};
use checkersbot::rules::position::Side;
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What a player is.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The engine.
    Engine,
    /// Uniformly random legal moves.
    Random,
    /// The re-created student engine (plain alpha-beta, hand-written evaluation); honours
    /// --movetime-x and --depth-x.
    Student,
}

/// Arguments of `match`.
/// `--games`: at least one.
fn games_arg(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "games must be a number of at least 1, not '{text}'"
        )),
    }
}

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Number of games, at least 1 (played in pairs with colours swapped) [default: 20; with a
    /// deck, two a ballot].
    #[arg(long, value_parser = games_arg)]
    games: Option<usize>,
    /// Player A: engine, random or student.
    #[arg(long, value_enum, default_value = "engine")]
    player_a: Kind,
    /// Player B: engine, random or student.
    #[arg(long, value_enum, default_value = "engine")]
    player_b: Kind,
    /// A's level (engine only): easy, medium, hard or max, with its limits and missteps;
    /// --movetime-a and --depth-a override its limits (e.g. to measure max and hard at scaled
    /// times).
    #[arg(long, value_parser = super::common::level_parser())]
    level_a: Option<Level>,
    /// B's level (engine only), as --level-a.
    #[arg(long, value_parser = super::common::level_parser())]
    level_b: Option<Level>,
    /// A's time per move in milliseconds (0 to 3600000, as `serve`; 0 = no time limit).
    #[arg(long, value_parser = super::common::movetime_arg)]
    movetime_a: Option<u64>,
    /// B's time per move in milliseconds (0 to 3600000, as `serve`; 0 = no time limit).
    #[arg(long, value_parser = super::common::movetime_arg)]
    movetime_b: Option<u64>,
    /// A's game clock instead of a time per move (engine only): BASE+INC or MOVES/BASE+INC in
    /// seconds, as `serve --clock` (e.g. 5+1 for about a second a move, more where the position
    /// needs it); a player whose clock runs out loses.
    #[arg(long, value_parser = clock_arg)]
    clock_a: Option<TimeControl>,
    /// B's game clock (engine only), as --clock-a.
    #[arg(long, value_parser = clock_arg)]
    clock_b: Option<TimeControl>,
    /// A's time per move early in the game (engine only, not with --clock-a): MS:PLY, e.g.
    /// 2000:23 for 2 s a move at game plies (the opening's included) below 23, its own limits
    /// after. The early moves come from a second engine with a table of its own, so the rest of
    /// the game is played as after a book's moves: it measures what deeper opening play, such as
    /// a deep book's, is worth.
    #[arg(long, value_name = "MS:PLY")]
    early_a: Option<EarlyTime>,
    /// B's time per move early in the game, as --early-a.
    #[arg(long, value_name = "MS:PLY")]
    early_b: Option<EarlyTime>,
    /// More time for A's first moves out of the book (engine only): FACTOR:MOVES, e.g. 2.5:4 for
    /// the first 4 moves of a game the book does not answer at up to 2.5 times the usual time.
    /// Under --clock-a the budget is scaled (within the clock's caps), taking the time from the
    /// later moves; with a time per move the extra comes only from what the game's book moves
    /// left unspent, so a game never takes more than its moves' times added up.
    #[arg(long, value_name = "FACTOR:MOVES")]
    after_book_a: Option<AfterBook>,
    /// More time for B's first moves out of the book, as --after-book-a.
    #[arg(long, value_name = "FACTOR:MOVES")]
    after_book_b: Option<AfterBook>,
    /// A's depth per move (0 to 100, as `serve`; 0 = none; default 6 when no move time is
    /// given).
    #[arg(long, value_parser = super::common::depth_arg)]
    depth_a: Option<u32>,
    /// B's depth per move (0 to 100, as `serve`; 0 = none; default 6 when no move time is
    /// given).
    #[arg(long, value_parser = super::common::depth_arg)]
    depth_b: Option<u32>,
    /// Evaluation terms A plays without, comma-separated.
    #[arg(long, value_delimiter = ',')]
    without_a: Vec<String>,
    /// Evaluation terms B plays without, comma-separated.
    #[arg(long, value_delimiter = ',')]
    without_b: Vec<String>,
    /// A's evaluation: `hand`, `learned` (the built-in weights of the board's size) or a
    /// weights file from `checkersbot train`.
    #[arg(long, default_value = checkersbot::engine::eval::DEFAULT_EVAL)]
    eval_a: String,
    /// B's evaluation: `hand`, `learned` (the built-in weights of the board's size) or a
    /// weights file from `checkersbot train`.
    #[arg(long, default_value = checkersbot::engine::eval::DEFAULT_EVAL)]
    eval_b: String,
    /// A's search settings changed from the engine's own, as `knob=value,...` (e.g.
    /// `probcut=0` for the search without ProbCut; the knobs are listed in docs/cli.md under `match`).
    #[arg(long, default_value = "")]
    search_a: String,
    /// B's search settings changed from the engine's own, as --search-a.
    #[arg(long, default_value = "")]
    search_b: String,
    /// A plays the aggressive style.
    #[arg(long)]
    aggressive_a: bool,
    /// B plays the aggressive style.
    #[arg(long)]
    aggressive_b: bool,
    /// A's search threads (1 to 64).
    #[arg(long, default_value_t = 1, value_parser = super::common::threads_arg)]
    threads_a: usize,
    /// B's search threads (1 to 64).
    #[arg(long, default_value_t = 1, value_parser = super::common::threads_arg)]
    threads_b: usize,
    /// Transposition table per engine (the student's too), MiB (1 to 4096) [default: each
    /// player's sized for its move time, depth or clock, as `search` sizes it].
    #[arg(long, value_parser = super::common::hash_arg)]
    hash: Option<usize>,
    /// A's table, MiB (overrides --hash), e.g. to match the engine before with its 16 MiB.
    #[arg(long, value_parser = super::common::hash_arg)]
    hash_a: Option<usize>,
    /// B's table, MiB (overrides --hash).
    #[arg(long, value_parser = super::common::hash_arg)]
    hash_b: Option<usize>,
    /// The games' openings, each played twice with colours swapped: a number of random plies
    /// before the players take over, or a deck of ballots: `acf3` (the ACF 3-move deck, 157
    /// ballots from the 8x8 start, b first) or a range of it, `acf3:1-50`. With a deck the table
    /// counts each player's losses with the side that made the ballot's first move.
    #[arg(long, default_value = "4", value_parser = openings_arg)]
    openings: Openings,
    /// Seed for the openings and the random player.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A game still going after this many plies is drawn.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// Layout file of the starting position.
    #[arg(long, conflicts_with = "board")]
    layout: Option<PathBuf>,
    /// One-line starting position (rows top to bottom joined by '/'), e.g. an endgame.
    #[arg(long)]
    board: Option<String>,
    /// Board size for the standard start when neither --layout nor --board is given.
    #[arg(long, default_value_t = 8)]
    size: usize,
    /// Side to move first: b (the top side, PDN Black) or p.
    #[arg(long, default_value = "b")]
    side: String,
    /// Save the games: PDN on 8x8, a plain path list on other sizes.
    #[arg(long)]
    pdn: Option<PathBuf>,
    /// Endgame database for both engines (`default`: the cache directory); matches use none
    /// unless told, so that they compare like with like.
    #[arg(long)]
    egdb: Option<String>,
    /// Adjudicate by an endgame database (a directory, or `default`): a game ends at the first
    /// position the database holds, with its exact result, sparing the plies of an ending already
    /// decided (the players' own databases are set apart, by --egdb).
    #[arg(long)]
    adjudicate_egdb: Option<String>,
    /// Endgame database for A only (overrides --egdb).
    #[arg(long)]
    egdb_a: Option<String>,
    /// Endgame database for B only (overrides --egdb).
    #[arg(long)]
    egdb_b: Option<String>,
    /// Memory for the endgame database, MiB: held decompressed in memory when its values fit,
    /// else read block by block through a cache of this size (one database named for both
    /// players is opened once).
    #[arg(long, default_value_t = checkersbot::engine::egdb::probe::DEFAULT_CACHE_MB)]
    egdb_cache: usize,
    /// A's memory for its endgame database (overrides --egdb-cache), e.g. to match a database
    /// held in memory against one read on demand.
    #[arg(long)]
    egdb_cache_a: Option<usize>,
    /// B's memory for its endgame database (overrides --egdb-cache).
    #[arg(long)]
    egdb_cache_b: Option<usize>,
    /// Opening book for both engines: `builtin` (the 8x8 book built into the program; inert on
    /// other sizes), `off` or a book file. A player with a level chooses among book moves within
    /// its level's margin, one without plays the best.
    #[arg(long, default_value = "builtin")]
    book: String,
    /// Opening book for A only (overrides --book).
    #[arg(long)]
    book_a: Option<String>,
    /// Opening book for B only (overrides --book).
    #[arg(long)]
    book_b: Option<String>,
    /// A (an engine) ponders: while B searches, A searches the position B faces on a second
    /// thread, until B has moved; A's time per move is unchanged.
    #[arg(long)]
    ponder_a: bool,
}

struct PlayerArgs {
    kind: Kind,
    level: Option<Level>,
    movetime: Option<u64>,
    depth: Option<u32>,
    /// A game clock gives the move times: no depth limit by default.
    clock: Option<TimeControl>,
    /// The table, MiB (`None`: sized for the player's limits)
    hash: Option<usize>,
    without: Vec<String>,
    aggressive: bool,
    threads: usize,
    eval: String,
    search: String,
    /// The endgame database, opened once for both players when they name the same one.
    egdb: Option<Arc<Egdb>>,
    /// The opening book.
    book: Option<Arc<Book>>,
    /// What the player's name says about the book: nothing for the built-in one (the default),
    /// `nobook` without one, `book` for a file.
    book_tag: Option<&'static str>,
}

fn player(s: &PlayerArgs) -> Result<PlayerSpec> {
    if s.kind == Kind::Random {
        return Ok(PlayerSpec {
            name: "random".into(),
            kind: PlayerKind::Random,
        });
    }
    let mut weights = if s.aggressive {
        Weights::aggressive()
    } else {
        Weights::default()
    };
    let mut name = Vec::new();
    if s.level.is_some() && s.kind != Kind::Engine {
        return Err(anyhow!("--level-a/--level-b apply to engine players only"));
    }
    if s.kind == Kind::Student {
        name.push("student".to_string());
    }
    // 0 means no limit, as in `serve`.
    let (movetime, depth) = super::common::move_limits(s.movetime, s.depth);
    let (movetime, depth) = (movetime.map(|t| t.as_millis() as u64), depth);
    let limits = match s.level {
        Some(level) => {
            name.push(level.name().to_string());
            let mut limits = level.limits();
            if let Some(ms) = s.movetime {
                limits.movetime = movetime.map(Duration::from_millis);
                name.push(format!("{ms}ms"));
            }
            if let Some(d) = s.depth {
                limits.depth = depth;
                name.push(format!("d{d}"));
            }
            limits
        }
        None => {
            let depth = match (movetime, depth) {
                (None, None) if s.clock.is_none() => Some(6),
                (_, d) => d,
            };
            if let Some(ms) = movetime {
                name.push(format!("{ms}ms"));
            }
            if let Some(d) = depth {
                name.push(format!("d{d}"));
            }
            Limits {
                movetime: movetime.map(Duration::from_millis),
                depth,
                nodes: None,
            }
        }
    };
    let hash = s.hash.unwrap_or_else(|| {
        let mut typical = limits.clone();
        if let Some(tc) = s.clock {
            typical.movetime = Some(tc.budget(tc.base, 0).soft);
        }
        checkersbot::engine::default_hash_mb(&typical, s.threads)
    });
    if s.kind == Kind::Student {
        if !s.without.is_empty() || s.aggressive || s.threads > 1 || !s.search.is_empty() {
            return Err(anyhow!(
                "the student player has its own evaluation and one thread: --without, --aggressive, --search \
                 and --threads do not apply to it"
            ));
        }
        return Ok(PlayerSpec {
            name: name.join("-"),
            kind: PlayerKind::Student {
                hash_mb: hash,
                limits,
            },
        });
    }
    for t in &s.without {
        let term = Term::from_name(t).ok_or_else(|| {
            let names: Vec<&str> = Term::ALL.iter().map(|t| t.name()).collect();
            anyhow!("unknown evaluation term '{t}'; terms: {}", names.join(", "))
        })?;
        weights = weights.without(term);
        name.push(format!("no-{t}"));
    }
    if s.aggressive {
        name.push("aggressive".into());
    }
    let search = SearchParams::default()
        .with_knobs(&s.search)
        .map_err(|e| anyhow!("--search-a/--search-b: {e}"))?;
    if !s.search.is_empty() {
        name.push(s.search.replace(',', "+"));
    }
    if s.threads > 1 {
        name.push(format!("t{}", s.threads));
    }
    let egdb = s.egdb.clone();
    if egdb.is_some() {
        name.push("egdb".into());
    }
    if let Some(tag) = s.book_tag {
        name.push(tag.into());
    }
    if s.eval != checkersbot::engine::eval::DEFAULT_EVAL {
        let stem = std::path::Path::new(&s.eval)
            .file_stem()
            .map_or_else(|| s.eval.clone(), |f| f.to_string_lossy().into_owned());
        name.push(stem);
    }
    Ok(PlayerSpec {
        name: name.join("-"),
        kind: PlayerKind::Engine {
            config: EngineConfig {
                hash_mb: hash,
                threads: s.threads.max(1),
                weights,
                learned: super::common::load_eval(&s.eval)?,
                seed: None,
                egdb,
                search,
                book: s.book.clone(),
                book_margin: s.level.map_or(0, Level::book_margin),
            },
            limits,
            misstep: s.level.and_then(Level::misstep),
        },
    })
}

/// The table a player makes, MiB (none for the random player).
fn table_mb(p: &PlayerSpec) -> usize {
    match &p.kind {
        PlayerKind::Engine { config, .. } => config.hash_mb,
        PlayerKind::Student { hash_mb, .. } => *hash_mb,
        PlayerKind::Random => 0,
    }
}

fn clock_arg(text: &str) -> Result<TimeControl, String> {
    text.parse().map_err(|e: BadTimeControl| e.to_string())
}

fn record_text(r: &GameRecord, a: &str, b: &str) -> String {
    let (black, white) = if r.a_side == Side::Bot {
        (a, b)
    } else {
        (b, a)
    };
    let mut info = RecordInfo::new(
        &format!("checkersbot match {a} vs {b}"),
        r.number,
        black,
        white,
    );
    info.comment = match r.ballot {
        Some(b) => format!("{}; ballot {b}", r.outcome.ending.describe()),
        None => format!(
            "{}; {} random opening plies",
            r.outcome.ending.describe(),
            r.opening_plies
        ),
    };
    let result = match r.outcome.winner {
        Some(w) => GameResult::Win(w),
        None => GameResult::Draw,
    };
    write_game(&info, &r.start, &r.moves, result)
}

/// Runs the match.
pub fn run(args: &MatchArgs) -> Result<()> {
    // Before any engine starts a thread: the first SIGINT or SIGTERM ends the match after the
    // game being played, with the table of the games so far.
    let stop = super::common::stop_on_signals("stopping after this game");
    let side = parse_side(&args.side)?;
    let grid = match (&args.layout, &args.board) {
        (Some(path), _) => load_layout(path)?,
        (None, Some(line)) => Grid::parse_line(line).context("bad --board")?,
        (None, None) => initial_grid(
            BoardSize::from_n(args.size)
                .ok_or_else(|| anyhow!("--size must be 4, 6, 8, 10 or 12"))?,
        ),
    };
    let mut start = AnyPosition::from_grid(&grid, side);
    let (opening_plies, ballots) = match &args.openings {
        Openings::Random(plies) => (*plies, Vec::new()),
        Openings::Deck(spec) => {
            if args.layout.is_some() || args.board.is_some() || args.size != 8 || side != Side::Bot
            {
                return Err(anyhow!(
                    "--openings {spec}: the deck's ballots start from the 8x8 start with b to move; \
                     --layout, --board, --size and --side do not apply"
                ));
            }
            let ballots = spec
                .ballots()
                .map_err(|e| anyhow!("--openings {spec}: {e}"))?;
            start = spec.deck().map_err(|e| anyhow!("{e}"))?.start();
            (0, ballots)
        }
    };
    let games = match (args.games, ballots.len()) {
        (None, 0) => 20,
        (None, n) => 2 * n,
        (Some(g), n) if n > 0 && g > 2 * n => {
            return Err(anyhow!(
                "--games {g}: --openings {} has {n} ballots, {} games (two a ballot)",
                args.openings,
                2 * n
            ))
        }
        (Some(g), _) => g,
    };
    let spec_a = (
        args.egdb_a.clone().or_else(|| args.egdb.clone()),
        args.egdb_cache_a.unwrap_or(args.egdb_cache),
    );
    let spec_b = (
        args.egdb_b.clone().or_else(|| args.egdb.clone()),
        args.egdb_cache_b.unwrap_or(args.egdb_cache),
    );
    let open = |(spec, cache_mb): &(Option<String>, usize)| match spec {
        Some(spec) => super::common::load_egdb(Some(spec), *cache_mb),
        None => Ok(None),
    };
    let egdb_a = open(&spec_a)?;
    let egdb_b = if spec_b == spec_a {
        egdb_a.clone()
    } else {
        open(&spec_b)?
    };
    let adjudicate = match &args.adjudicate_egdb {
        None => None,
        Some(spec) if Some(spec) == spec_a.0.as_ref() && args.egdb_cache == spec_a.1 => {
            egdb_a.clone()
        }
        Some(spec) if spec == "default" => super::common::load_egdb(Some(spec), args.egdb_cache)?,
        Some(dir) => Some(Arc::new(
            Egdb::open(std::path::Path::new(dir), args.egdb_cache)
                .map_err(|e| anyhow!("--adjudicate-egdb {e}"))?,
        )),
    };
    if let (Some(spec), None) = (&args.adjudicate_egdb, &adjudicate) {
        return Err(anyhow!(
            "--adjudicate-egdb {spec}: no endgame database there (build one with `egdb build`)"
        ));
    }
    let spec_a = args.book_a.as_ref().unwrap_or(&args.book);
    let spec_b = args.book_b.as_ref().unwrap_or(&args.book);
    let book_a = super::common::load_book(spec_a)?;
    let book_b = if spec_b == spec_a {
        book_a.clone()
    } else {
        super::common::load_book(spec_b)?
    };
    let book_tag = |spec: &str| match BookSpec::parse(spec) {
        BookSpec::Builtin => None,
        BookSpec::Off => Some("nobook"),
        BookSpec::File(_) => Some("book"),
    };
    let mut a = player(&PlayerArgs {
        kind: args.player_a,
        level: args.level_a,
        movetime: args.movetime_a,
        depth: args.depth_a,
        clock: args.clock_a,
        hash: args.hash_a.or(args.hash),
        without: args.without_a.clone(),
        aggressive: args.aggressive_a,
        threads: args.threads_a,
        eval: args.eval_a.clone(),
        search: args.search_a.clone(),
        egdb: egdb_a,
        book: book_a,
        book_tag: book_tag(spec_a),
    })?;
    let mut b = player(&PlayerArgs {
        kind: args.player_b,
        level: args.level_b,
        movetime: args.movetime_b,
        depth: args.depth_b,
        clock: args.clock_b,
        hash: args.hash_b.or(args.hash),
        without: args.without_b.clone(),
        aggressive: args.aggressive_b,
        threads: args.threads_b,
        eval: args.eval_b.clone(),
        search: args.search_b.clone(),
        egdb: egdb_b,
        book: book_b,
        book_tag: book_tag(spec_b),
    })?;
    // Two engines' tables at once.
    super::common::check_table(table_mb(&a) + table_mb(&b), args.threads_a + args.threads_b)?;
    if a.name == b.name {
        a.name = format!("A:{}", a.name);
        b.name = format!("B:{}", b.name);
    }
    for (clock, early, kind, side) in [
        (&args.clock_a, &args.early_a, args.player_a, 'a'),
        (&args.clock_b, &args.early_b, args.player_b, 'b'),
    ] {
        if clock.is_some() && kind != Kind::Engine {
            return Err(anyhow!("--clock-{side} applies to an engine player only"));
        }
        if early.is_some() && (kind != Kind::Engine || clock.is_some()) {
            return Err(anyhow!(
                "--early-{side} applies to an engine player without a game clock only"
            ));
        }
    }
    for (after, kind, side) in [
        (&args.after_book_a, args.player_a, 'a'),
        (&args.after_book_b, args.player_b, 'b'),
    ] {
        if after.is_some() && kind != Kind::Engine {
            return Err(anyhow!(
                "--after-book-{side} applies to an engine player only"
            ));
        }
    }
    for (early, name) in [(&args.early_a, &mut a.name), (&args.early_b, &mut b.name)] {
        if let Some(e) = early {
            *name = format!("{name}-early{e}");
        }
    }
    for (clock, name) in [(&args.clock_a, &mut a.name), (&args.clock_b, &mut b.name)] {
        if let Some(tc) = clock {
            *name = if name.is_empty() {
                format!("clock{tc}")
            } else {
                format!("{name}-clock{tc}")
            };
        }
    }
    for (after, name) in [
        (&args.after_book_a, &mut a.name),
        (&args.after_book_b, &mut b.name),
    ] {
        if let Some(ab) = after {
            *name = format!("{name}-afterbook{ab}");
        }
    }
    let opts = MatchOptions {
        games,
        start,
        opening_plies,
        ballots,
        seed: args.seed,
        max_plies: args.max_plies,
        ponder_a: args.ponder_a,
        clocks: [args.clock_a, args.clock_b],
        adjudicate,
        early: [args.early_a, args.early_b],
        after_book: [args.after_book_a, args.after_book_b],
    };
    if args.ponder_a {
        if args.player_a != Kind::Engine {
            return Err(anyhow!("--ponder-a needs an engine as player A"));
        }
        a.name = format!("{}-ponder", a.name);
    }
    let mut pdn = match &args.pdn {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        )),
        None => None,
    };
    let openings = match &args.openings {
        Openings::Random(plies) => format!("{plies} random opening plies"),
        Openings::Deck(spec) => format!("openings {spec} ({} ballots)", opts.ballots.len()),
    };
    let adjudication = match &opts.adjudicate {
        Some(db) => format!(
            ", adjudicated by the endgame database {}",
            db.dir().display()
        ),
        None => String::new(),
    };
    println!(
        "match: {} vs {}, {} games from {} ({} to move), {openings}, seed {}, cap {} plies{adjudication}",
        a.name,
        b.name,
        games,
        start.to_line(),
        start.side(),
        args.seed,
        args.max_plies
    );
    let mut write_error = None;
    let (stats, _) = run_match(&a, &b, &opts, &mut |r, s| {
        println!("{}", progress_line(r, s, &a.name, &b.name, games));
        if let Some(w) = pdn.as_mut() {
            if let Err(e) = w.write_all(record_text(r, &a.name, &b.name).as_bytes()) {
                write_error.get_or_insert(e);
            }
        }
        !stop.load(std::sync::atomic::Ordering::SeqCst)
    });
    if let Some(mut w) = pdn {
        if let Err(e) = w.flush() {
            write_error.get_or_insert(e);
        }
    }
    if stats.games < games {
        println!(
            "match stopped by a signal after {} of {games} games",
            stats.games
        );
    }
    print!("\n{}", stats.table(&a.name, &b.name));
    if let Some(e) = write_error {
        return Err(e).context("cannot write the game records");
    }
    Ok(())
}
