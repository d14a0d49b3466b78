//! The `checkersbot` command line: parses flags, sets up logging, runs a subcommand and maps its
//! error to an exit code. The work is done in the library and in `cli/`.

mod cli;

use clap::Parser;
use cli::{Cli, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let level = cli
        .log_level
        .as_deref()
        .unwrap_or(cli.command.default_log_level());
    init_logging(level);
    if !matches!(
        cli.command,
        Command::Serve(_) | Command::Hub(_) | Command::Play(_) | Command::Simulate(_)
    ) {
        end_quietly_on_a_closed_pipe();
    }
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
        Command::Relabel(args) => cli::relabel::run_relabel(&args),
        Command::Train(args) => cli::train::run(&args),
        Command::Hub(args) => cli::hub::run(&args),
        Command::Render(args) => cli::render::run(&args),
        Command::Simulate(args) => match cli::simulate::run_simulate(&args) {
            Ok(true) => Ok(()),
            // The judge found a failure: the table says which.
            Ok(false) => return ExitCode::from(1),
            Err(e) => Err(e),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("checkersbot: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Restores the system's default for SIGPIPE, which Rust programs ignore: a command whose output
/// goes to a reader that stops early (`checkersbot book info | head`) then ends quietly, as other
/// command-line tools do, instead of panicking on its next print. The daemon and the interactive
/// commands keep ignoring it: they handle a closed output themselves and must not die of it.
fn end_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called once at start-up, before any thread is started; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
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
