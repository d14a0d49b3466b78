//! `checkersbot replay FILE`: feeds a recorded file of protocol input through the daemon, one line
//! at a time (each answered before the next is read), and prints the replies.

use super::serve::DaemonArgs;
use anyhow::{anyhow, Context, Result};
use checkersbot::daemon::transport::WriterSink;
use checkersbot::daemon::{replay, Settings};
use clap::Args;
use std::path::PathBuf;

/// Arguments of `replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The recorded input (what the vision system sent), e.g. tests/sessions/full_game.in.
    file: PathBuf,
    /// Print a transcript: each input line as `> LINE`, each reply as `< REPLY`.
    #[arg(long)]
    transcript: bool,
    /// Put nodes, time and nps in info lines (then the output varies from run to run).
    #[arg(long)]
    timing: bool,
    #[command(flatten)]
    daemon: DaemonArgs,
}

/// Replays the file.
pub fn run(args: &ReplayArgs) -> Result<()> {
    let mut settings = args.daemon.settings(Settings::deterministic())?;
    settings.transcript = args.transcript;
    settings.timing = args.timing;
    let file = std::fs::File::open(&args.file)
        .with_context(|| format!("cannot open {}", args.file.display()))?;
    replay(settings, file, Box::new(WriterSink(std::io::stdout()))).map_err(|e| anyhow!("--{e}"))
}
