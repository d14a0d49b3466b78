//! The `checkersbot` command line: parses flags, sets up logging, runs a subcommand and maps its
//! error to an exit code. The work is done in the library and in `cli/`.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// checkersbot: the decision maker of a checkers-playing robot.
#[derive(Parser, Debug)]
#[command(name = "checkersbot", version, about, long_about = None)]
struct Cli {
    /// Log level for stderr (error, warn, info, debug, trace); RUST_LOG overrides it.
    #[arg(long, global = true, default_value = "warn")]
    log_level: String,
    #[command(subcommand)]
    command: Command,
}

// Parsed once: the arguments are kept inline rather than boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the move tree (move generator check and benchmark).
    Perft(cli::perft::PerftArgs),
    /// List the legal moves of a position.
    Moves(cli::moves::MovesArgs),
    /// Search a position and print the best move.
    Search(cli::search::SearchArgs),
    /// Run the daemon: boards in, arm moves out (stdin/stdout or --serial); see protocol/PROTOCOL.md.
    Serve(cli::serve::ServeArgs),
    /// Feed a recorded file of protocol input through the daemon and print the replies.
    Replay(cli::replay::ReplayArgs),
    /// Play a game against the bot in the terminal.
    Play(cli::play::PlayArgs),
    /// Let two configurations (or the engine and a random player) play a series of games.
    Match(cli::matches::MatchArgs),
    /// The engine plays itself and writes training data for the learned evaluation.
    Selfplay(cli::selfplay::SelfPlayArgs),
    /// Fit the learned evaluation's weights to self-play data.
    Train(cli::train::TrainArgs),
    /// Endgame databases: build, probe, info.
    Egdb(cli::egdb::EgdbArgs),
    /// Opening book: build, info, probe, stats.
    Book(cli::book::BookArgs),
    /// Fixed benchmarks with their speed (`bench perft`, `bench search`).
    Bench(cli::bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(&cli.log_level);
    let result = match cli.command {
        Command::Perft(args) => cli::perft::run(&args),
        Command::Moves(args) => cli::moves::run(&args),
        Command::Search(args) => cli::search::run(&args),
        Command::Serve(args) => cli::serve::run(&args),
        Command::Replay(args) => cli::replay::run(&args),
        Command::Play(args) => cli::play::run(&args),
        Command::Match(args) => cli::matches::run(&args),
        Command::Bench(args) => cli::bench::run(&args),
        Command::Egdb(args) => cli::egdb::run(&args),
        Command::Book(args) => cli::book::run(&args),
        Command::Selfplay(args) => cli::selfplay::run_selfplay(&args),
        Command::Train(args) => cli::train::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("checkersbot: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn init_logging(level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .or_else(|_| tracing_subscriber::EnvFilter::try_new(level))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_target(false)
        .init();
}
