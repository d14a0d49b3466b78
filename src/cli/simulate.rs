//! `checkersbot simulate`: a software robot plays whole games against the real daemon through a
//! real transport, with camera, person, arm and link faults at set rates, and the judge's table.

use anyhow::{anyhow, bail, Context, Result};
use checkersbot::rules::geometry::BoardSize;
use checkersbot::sim::faults::Rates;
use checkersbot::sim::link::Transport;
use checkersbot::sim::report::json_string;
use checkersbot::sim::{run, Config};
use clap::Args;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Arguments of `simulate`.
#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Seed of the run: each game's faults and the person's moves follow from it and the game's
    /// number, so a game reproduces alone with the same seed and --first-game.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of the first game (games are numbered from it; odd numbers: the bot moves first).
    #[arg(long, default_value_t = 0)]
    first_game: u64,
    /// Board size (4, 6, 8, 10 or 12).
    #[arg(long, default_value_t = 8)]
    size: usize,
    /// The daemon's link: its stdin and stdout (pipe), a pseudo-terminal named by a symbolic link
    /// as a serial device (serial), or TCP on 127.0.0.1 (tcp).
    #[arg(long, default_value = "pipe", value_parser = ["pipe", "serial", "tcp"])]
    transport: String,
    /// A fault rate, NAME=P with P from 0 to 1 (repeatable): misread, misread-two, kings, lifted,
    /// repeat, stale, forget-capture, two-moves, arm-leaves, arm-crown, pull, slow. The defaults
    /// are those of a noisy camera at a fair (docs/integration.md, "Rehearsing with the
    /// simulator").
    #[arg(long = "rate", value_name = "NAME=P")]
    rates: Vec<String>,
    /// Every rate 0 (then --rate sets those wanted).
    #[arg(long)]
    no_faults: bool,
    /// The daemon's depth limit (`serve --depth`); 0 for none.
    #[arg(long, default_value_t = 4)]
    depth: u32,
    /// The daemon's move time in milliseconds (`serve --movetime`); 0 for none.
    #[arg(long, default_value_t = 0)]
    movetime: u64,
    /// One more argument for `serve` (repeatable), e.g. `--daemon-arg=--level
    /// --daemon-arg=easy` (for a colour-only camera use --colour-only, which the camera must know).
    #[arg(long = "daemon-arg", value_name = "ARG", allow_hyphen_values = true)]
    daemon_args: Vec<String>,
    /// The daemon's program, run as `PROGRAM serve ARGS` [default: this checkersbot].
    #[arg(long)]
    daemon: Option<PathBuf>,
    /// Daemons playing at once, each its own process.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Each job plays all its games on one daemon, game after game as at a fair (a run then
    /// replays only as a whole, with the same --jobs); by default every game starts a daemon of
    /// its own, so that it replays alone.
    #[arg(long)]
    one_daemon: bool,
    /// The camera looks from the other side of the table: frames are sent rotated 180 degrees
    /// and the daemon runs with --rotated.
    #[arg(long)]
    rotated: bool,
    /// The camera tells colours only: frames show men everywhere but on the crowning rows, and
    /// the daemon runs with --colour-only (kings confusion and a forgotten crown are not made).
    #[arg(long)]
    colour_only: bool,
    /// Milliseconds a reply may take before it counts as lost.
    #[arg(long, default_value_t = 10_000)]
    patience: u64,
    /// Plies after which a game counts as finished without an end.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// Write the report as JSON to this file too.
    #[arg(long)]
    json: Option<PathBuf>,
}

/// Runs the simulation; `Ok(false)` when the judge found a failure (wrong commands, lost
/// replies, clean frames refused, games not finished).
pub fn run_simulate(args: &SimulateArgs) -> Result<bool> {
    let size = BoardSize::from_n(args.size)
        .ok_or_else(|| anyhow!("--size takes 4, 6, 8, 10 or 12, got {}", args.size))?;
    let transport = Transport::from_word(&args.transport)
        .ok_or_else(|| anyhow!("--transport takes pipe, serial or tcp"))?;
    let mut rates = if args.no_faults {
        Rates::none()
    } else {
        Rates::fair()
    };
    for r in &args.rates {
        rates.set(r).map_err(|e| anyhow!("--rate: {e}"))?;
    }
    if args.jobs == 0 || args.jobs > 16 {
        bail!("--jobs takes 1 to 16");
    }
    let program = match &args.daemon {
        Some(p) => p.clone(),
        None => std::env::current_exe().context("finding this program to run as the daemon")?,
    };
    let mut daemon_args = vec![
        "--depth".to_string(),
        args.depth.to_string(),
        "--movetime".to_string(),
        args.movetime.to_string(),
        "--info".to_string(),
        "off".to_string(),
    ];
    // No background database build unless asked for: a daemon a game would start one each time,
    // and a level becoming ready in the middle of a run would change the bot's moves.
    if !args
        .daemon_args
        .iter()
        .any(|a| a.starts_with("--egdb-build"))
    {
        daemon_args.extend(["--egdb-build".to_string(), "off".to_string()]);
    }
    if args.rotated {
        daemon_args.push("--rotated".into());
    }
    if args.colour_only {
        daemon_args.push("--colour-only".into());
    }
    daemon_args.extend(args.daemon_args.iter().cloned());
    let dir = std::env::temp_dir().join(format!("checkersbot-simulate-{}", std::process::id()));
    let cfg = Config {
        games: args.games,
        first_game: args.first_game,
        seed: args.seed,
        size,
        transport,
        rates: rates.clone(),
        program: program.clone(),
        daemon_args: daemon_args.clone(),
        restore: vec![
            format!("set depth {}", args.depth),
            format!("set movetime {}", args.movetime),
        ],
        jobs: args.jobs,
        one_daemon: args.one_daemon,
        rotated: args.rotated,
        colour_only: args.colour_only,
        patience: Duration::from_millis(args.patience),
        max_plies: args.max_plies,
        dir: dir.clone(),
    };
    let started = Instant::now();
    let report = run(&cfg);
    let _ = std::fs::remove_dir_all(&dir);
    let secs = started.elapsed().as_secs_f64();
    println!(
        "checkersbot simulate: {} games on {}x{} over {} (seed {}, games {}-{}), {:.1} s",
        args.games,
        size.n(),
        size.n(),
        transport.word(),
        args.seed,
        args.first_game,
        args.first_game + args.games.saturating_sub(1),
        secs
    );
    print!("{}", report.table());
    if let Some(path) = &args.json {
        let mut rates_json = Vec::new();
        let mut r = rates;
        for (name, p) in r.fields_mut() {
            rates_json.push(format!("{}:{}", json_string(name), p));
        }
        let settings = format!(
            r#"{{"games":{},"first_game":{},"seed":{},"size":{},"transport":{},"rotated":{},"colour_only":{},"jobs":{},"one_daemon":{},"program":{},"daemon_args":[{}],"rates":{{{}}},"seconds":{:.1}}}"#,
            args.games,
            args.first_game,
            args.seed,
            size.n(),
            json_string(transport.word()),
            args.rotated,
            args.colour_only,
            args.jobs,
            args.one_daemon,
            json_string(&program.to_string_lossy()),
            daemon_args
                .iter()
                .map(|a| json_string(a))
                .collect::<Vec<_>>()
                .join(","),
            rates_json.join(","),
            secs
        );
        std::fs::write(path, report.json(&settings) + "\n")
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(report.passed())
}
