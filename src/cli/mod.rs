//! The command line: [`Cli`] with one [`Command`] per subcommand, and one module per subcommand,
//! each reading its own arguments and writing its own output. `tests/docs.rs` includes this module to
//! check every command line the documentation shows against these definitions.

pub mod bench;
pub mod bench_depth;
pub mod bench_search;
pub mod book;
pub mod common;
pub mod egdb;
pub mod egdb_audit;
pub mod hub;
pub mod matches;
pub mod moves;
pub mod perft;
pub mod play;
pub mod relabel;
pub mod render;
pub mod replay;
pub mod search;
pub mod selfplay;
pub mod serve;
pub mod simulate;
pub mod train;

use clap::{Parser, Subcommand};

/// checkersbot: the decision maker of a checkers-playing robot.
#[derive(Parser, Debug)]
#[command(name = "checkersbot", version, about, long_about = None)]
pub struct Cli {
    /// Log level for stderr (off, error, warn, info, debug, trace) [default: warn; off for hub,
    /// whose host reads stderr with stdout]; RUST_LOG overrides it.
    #[arg(long, global = true,
          value_parser = ["off", "error", "warn", "info", "debug", "trace"])]
    pub log_level: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands, one module of `cli/` each.
// Parsed once: the arguments are kept inline rather than boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count the leaves of the move tree (move generator check and benchmark).
    Perft(perft::PerftArgs),
    /// List the legal moves of a position.
    Moves(moves::MovesArgs),
    /// Search a position and print the best move.
    Search(search::SearchArgs),
    /// Run the daemon: boards in, arm moves out (stdin/stdout or --serial); see protocol/PROTOCOL.md.
    Serve(serve::ServeArgs),
    /// Feed a recorded file of protocol input through the daemon and print the replies.
    Replay(replay::ReplayArgs),
    /// Play a game against the bot in the terminal.
    Play(play::PlayArgs),
    /// Let two configurations (or the engine and a random player) play a series of games.
    /// SIGINT or SIGTERM ends it after the game being played, with the table of the games so far.
    Match(matches::MatchArgs),
    /// The engine plays itself and writes training data for the learned evaluation.
    Selfplay(selfplay::SelfPlayArgs),
    /// Search chosen positions of self-play data again, far deeper, for better training scores.
    /// SIGINT or SIGTERM stops it after the searches under way; the same command resumes it.
    Relabel(relabel::RelabelArgs),
    /// Fit the learned evaluation's weights to self-play data.
    Train(train::TrainArgs),
    /// Endgame databases: build, probe, info, audit.
    Egdb(egdb::EgdbArgs),
    /// Opening book: build, lines, merge, info, probe, stats.
    Book(book::BookArgs),
    /// Fixed benchmarks with their speed (`bench perft`, `bench search`, `bench depth`).
    Bench(bench::BenchArgs),
    /// Draw a board as an SVG picture (from rows, a FEN, a PDN game or a recorded session).
    Render(render::RenderArgs),
    /// Speak the Hub protocol (Scan's) on stdin/stdout, for draughts tools that drive Hub engines.
    Hub(hub::HubArgs),
    /// A software robot: whole games against the real daemon with camera, person, arm and link
    /// faults, every reply judged against the true board. Exits 1 when the judge finds a wrong
    /// command, a lost reply, a clean frame refused or a game not finished.
    Simulate(simulate::SimulateArgs),
}

impl Command {
    /// The log level when `--log-level` is not given: `warn`, but `off` for `hub`, whose hosts
    /// (pydraughts' `HubEngine`) read stderr with stdout and would take each log line for a
    /// reply.
    pub fn default_log_level(&self) -> &'static str {
        match self {
            Command::Hub(_) => "off",
            _ => "warn",
        }
    }
}
