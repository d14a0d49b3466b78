//! `checkersbot serve`: the daemon over stdin/stdout, a serial device or TCP (see
//! protocol/PROTOCOL.md).

use super::common::{depth_arg, hash_arg, movetime_arg, nodes_arg, threads_arg};
use anyhow::{anyhow, bail, Context, Result};
use checkersbot::camera::tracking::AutoNewGame;
use checkersbot::daemon::egdb_build::{self, auto_pieces, BuildPlan, BuildPriority, BuildState};
use checkersbot::daemon::network::{self, TcpSink};
use checkersbot::daemon::outbox::FlowControl;
use checkersbot::daemon::protocol::{parse_size, SetOption};
use checkersbot::daemon::snapshot::{Feed, LinkKind};
use checkersbot::daemon::transport::{self, SerialConfig, SerialSink, WriterSink};
use checkersbot::daemon::{Daemon, Event, Settings};
use checkersbot::engine::egdb::probe::DEFAULT_CACHE_MB;
use checkersbot::operator::http;
use checkersbot::play::level::{Level, Style};
use checkersbot::rules::board::{initial_grid, Grid};
use clap::Args;
use std::sync::mpsc::{channel, Sender};
use std::time::Duration;

/// Daemon settings shared by `serve` and `replay`; unset values take the command's defaults.
#[derive(Args, Debug, Clone, Default)]
pub struct DaemonArgs {
    /// Playing level (as `set level`): its move time and depth (which --movetime and --depth
    /// override) and, at easy, its missteps [serve: hard].
    #[arg(long, value_parser = super::common::level_parser())]
    pub level: Option<Level>,
    /// Playing style (as `set style`): the evaluation weights.
    #[arg(long, default_value = "default", value_parser = super::common::style_parser())]
    pub style: Style,
    /// Write each finished or abandoned game to this directory (as `set record`): PDN on 8x8, a
    /// path list on other sizes; `off` for none.
    #[arg(long)]
    pub record: Option<String>,
    /// Seed of the easy level's missteps [serve: from the clock; replay: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Time per bot move in milliseconds (0 to 3600000); 0 = no time limit [serve: 1000, replay: 0].
    #[arg(long, value_parser = movetime_arg)]
    pub movetime: Option<u64>,
    /// Depth limit in plies (0 to 100); 0 = none [serve: 0, replay: 6].
    #[arg(long, value_parser = depth_arg)]
    pub depth: Option<u32>,
    /// Node budget of a search (0 to 1000000000000, as `set nodes`); 0 = none [serve: 0].
    #[arg(long, value_parser = nodes_arg)]
    pub nodes: Option<u64>,
    /// Search threads (1 to 64, as `set threads`).
    #[arg(long, default_value_t = 1, value_parser = threads_arg)]
    pub threads: usize,
    /// Transposition table size in MiB (1 to 4096, as `set hash`, and what the machine can hold)
    /// [serve: sized for the move time, depth or clock, as `search` sizes it: 32 at the hard
    /// level; replay: 16].
    #[arg(long, value_parser = hash_arg)]
    pub hash: Option<usize>,
    /// Start layout of `newgame` (sets `size`): a size (4, 6, 8, 10, 12; also 8x8) or a layout
    /// file (e.g. layouts/10x10.board).
    #[arg(long)]
    pub layout: Option<String>,
    /// Reject boards no legal move explains (the default).
    #[arg(long, conflicts_with = "lenient")]
    pub strict: bool,
    /// Accept boards no legal move explains as new positions.
    #[arg(long)]
    pub lenient: bool,
    /// The camera cannot tell kings from men: match boards by colour, track kings from the game.
    #[arg(long, alias = "color-only")]
    pub colour_only: bool,
    /// The camera sits on the other side of the table: read boards rotated 180 degrees.
    #[arg(long)]
    pub rotated: bool,
    /// When the start position seen on the board begins a new game without `newgame`: after a
    /// game has ended (gameover), at any time (always) or never (off); as `set autonewgame`.
    #[arg(long, default_value = "gameover", value_parser = ["gameover", "always", "off"])]
    pub auto_newgame: String,
    /// Search info lines (as `set info`).
    #[arg(long, default_value = "iterations", value_parser = ["iterations", "final", "off"])]
    pub info: String,
    /// Evaluation: `hand`, `learned` (the built-in weights of the board's size) or a weights
    /// file written by `checkersbot train`.
    #[arg(long, default_value = checkersbot::engine::eval::DEFAULT_EVAL)]
    pub eval: String,
    /// Endgame database directory, or `off` [serve: $XDG_CACHE_HOME/checkersbot/egdb or
    /// ~/.cache/checkersbot/egdb if a database is there; replay: none].
    #[arg(long)]
    pub egdb: Option<String>,
    /// Memory for the endgame database, MiB: a database whose values fit is held decompressed
    /// in memory (fastest); a larger one is read block by block through a cache of this size
    /// (also for `set egdb`).
    #[arg(long, default_value_t = DEFAULT_CACHE_MB)]
    pub egdb_cache: usize,
    /// Opening book: `builtin` (the 8x8 book built into the program), `off`, or a book file
    /// written by `checkersbot book build` (as `set book`); used only on its board size, at every
    /// level [default: the built-in book at `hard` and `max` only].
    #[arg(long)]
    pub book: Option<String>,
    /// The bot's game clock, instead of a fixed move time: BASE+INC or MOVES/BASE+INC in seconds
    /// (e.g. 300+3, 2+0.05, 40/600+0), as `set clock`.
    #[arg(long, value_name = "TIME_CONTROL")]
    pub clock: Option<String>,
    /// Search while the person thinks (as `set ponder on`).
    #[arg(long)]
    pub ponder: bool,
}

impl DaemonArgs {
    /// The settings these flags describe, over `base` (the command's defaults).
    pub fn settings(&self, base: Settings) -> Result<Settings> {
        let mut s = base;
        if let Some(level) = self.level {
            s.set_level(level);
        }
        s.style = self.style;
        if let Some(seed) = self.seed {
            s.seed = seed;
        }
        s.record = match self.record.as_deref() {
            None | Some("off") | Some("none") => None,
            // The checks of `set record`: a writable directory, made only if its parent exists.
            Some(dir) => Some(
                checkersbot::files::check_record_dir(std::path::Path::new(dir))
                    .with_context(|| format!("--record {dir}"))?,
            ),
        };
        if let Some(ms) = self.movetime {
            s.movetime = (ms > 0).then(|| Duration::from_millis(ms));
        }
        if let Some(d) = self.depth {
            s.depth = (d > 0).then_some(d);
        }
        if let Some(n) = self.nodes {
            s.nodes = (n > 0).then_some(n);
        }
        s.threads = self.threads;
        if let Some(mb) = self.hash {
            s.hash_mb = mb;
        }
        s.learned = super::common::load_eval(&self.eval)?;
        s.eval_name = self.eval.clone();
        s.egdb_cache_mb = self.egdb_cache;
        if let Some(spec) = &self.egdb {
            s.egdb = super::common::load_egdb(Some(spec), s.egdb_cache_mb)?;
            s.egdb_dir = s.egdb.as_ref().map(|_| std::path::PathBuf::from(spec));
        }
        if let Some(spec) = &self.book {
            s.book = super::common::load_book(spec)?;
            s.book_name = checkersbot::engine::book::BookSpec::parse(spec).name();
            s.book_chosen = true;
        }
        if let Some(layout) = &self.layout {
            let grid = match parse_size(layout) {
                Some(size) => initial_grid(size),
                None => {
                    let text = std::fs::read_to_string(layout)
                        .with_context(|| format!("cannot read layout {layout}"))?;
                    Grid::parse_layout(&text).with_context(|| format!("bad layout {layout}"))?
                }
            };
            s.size = grid.size();
            s.layout = Some(grid);
        }
        if let Some(tc) = &self.clock {
            s.clock = match SetOption::parse("clock", tc) {
                Ok(SetOption::Clock(tc)) => tc,
                Ok(_) => None,
                Err(e) => return Err(anyhow!("--{}", e.message)),
            };
        }
        s.ponder = self.ponder;
        s.strict = !self.lenient;
        s.colour_only = self.colour_only;
        s.rotated = self.rotated;
        s.auto_newgame = AutoNewGame::from_word(&self.auto_newgame).unwrap_or_default();
        s.info = match SetOption::parse("info", &self.info) {
            Ok(SetOption::Info(m)) => m,
            _ => {
                return Err(anyhow!(
                    "--info must be iterations, final or off, not '{}'",
                    self.info
                ))
            }
        };
        Ok(s)
    }
}

/// Arguments of `serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    daemon: DaemonArgs,
    /// Speak on this serial device instead of stdin/stdout (e.g. /dev/ttyUSB0).
    #[arg(long, conflicts_with = "listen")]
    serial: Option<String>,
    /// Speak over TCP, one client at a time: PORT or :PORT (on 127.0.0.1 only), or ADDR:PORT
    /// (e.g. 0.0.0.0:5555 for every interface).
    #[arg(long, value_name = "ADDR:PORT", value_parser = network::listen_address)]
    listen: Option<std::net::SocketAddr>,
    /// Baud rate of the serial device.
    #[arg(long, default_value_t = 115_200, value_parser = clap::value_parser!(u32).range(1..))]
    baud: u32,
    /// Over TCP: seconds after which a client that vanished without closing (no acknowledgement,
    /// no keep-alive answer) is dropped, also while replies to it are in flight (1 to 3600).
    #[arg(long, value_name = "SECS", default_value_t = 25,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    tcp_timeout: u64,
    /// Over TCP: a file holding a shared secret (one line of 16 to 64 letters, digits, '-', '_',
    /// '.' or ':'). A connection must send `hello TOKEN` before anything else; others are refused.
    /// Required when --listen names an address other than loopback.
    #[arg(long, value_name = "FILE", requires = "listen")]
    token_file: Option<std::path::PathBuf>,
    /// Serve a read-only operator page over HTTP (off unless given): PORT or :PORT (on 127.0.0.1
    /// only), or ADDR:PORT (e.g. 0.0.0.0:8080 for every interface); with any link. The board as
    /// the camera sent it and as the daemon expects it, the bot's search, the clock, the moves;
    /// also /status.json and /game.pdn.
    #[arg(long, value_name = "ADDR:PORT", value_parser = network::listen_address)]
    http: Option<std::net::SocketAddr>,
    /// Build the 8x8 endgame database in the background, into the cache directory
    /// ($XDG_CACHE_HOME/checkersbot/egdb or ~/.cache/checkersbot/egdb), when it is not complete
    /// there: `auto` (up to 6 pieces on a machine with 6 GiB of memory or more, else 5; nothing
    /// when --egdb is given), `off`, or the most pieces (1 to 6). The levels (4, 5, then 6
    /// pieces: seconds, about 2 minutes, about 30 on two cores) are each used from the search
    /// after they are complete; the build runs in a process of its own at the lowest priority,
    /// ends with the daemon and goes on at its next start.
    #[arg(long, value_name = "auto|off|PIECES", default_value = "auto", value_parser = egdb_build_arg)]
    egdb_build: EgdbBuild,
    /// The priority of that build: `idle` (the lowest the kernel has: it takes only CPU time
    /// nothing else on the machine wants, so it waits while other programs keep the cores busy)
    /// or `normal` (the daemon's own: it shares the cores with them, for a machine that is always
    /// busy or one prepared before an event). At either, it is stopped while the bot searches.
    #[arg(long, value_name = "idle|normal", default_value = "idle", value_parser = build_priority_arg)]
    egdb_priority: BuildPriority,
    /// Over TCP: let clients name files and directories (`set eval PATH`, `set egdb DIR`, `set
    /// book PATH`, `set record DIR`); refused by default, since any machine that reaches the port
    /// is a client.
    #[arg(long)]
    allow_paths: bool,
}

/// What `serve --egdb-build` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EgdbBuild {
    /// As the machine allows, into the cache, when no `--egdb` is given.
    Auto,
    /// No background build.
    Off,
    /// Up to this many pieces.
    Pieces(u32),
}

/// Reads an `--egdb-build` value.
fn egdb_build_arg(value: &str) -> Result<EgdbBuild, String> {
    match value {
        "auto" => Ok(EgdbBuild::Auto),
        "off" | "none" => Ok(EgdbBuild::Off),
        n => match n.parse::<u32>() {
            Ok(k) if (1..=6).contains(&k) => Ok(EgdbBuild::Pieces(k)),
            _ => Err(format!(
                "expected auto, off or a number of pieces from 1 to 6, not '{n}'"
            )),
        },
    }
}

/// Reads an `--egdb-priority` value.
fn build_priority_arg(value: &str) -> Result<BuildPriority, String> {
    BuildPriority::from_word(value).ok_or_else(|| format!("expected idle or normal, not '{value}'"))
}

/// The background build `--egdb-build` asks for with these settings (the database already
/// opened from the cache in them), and the state `status` starts with.
fn egdb_plan(args: &ServeArgs, settings: &Settings) -> Result<(Option<BuildPlan>, BuildState)> {
    use checkersbot::engine::egdb::default_dir;
    use checkersbot::rules::geometry::BoardSize;
    if args.daemon.egdb.is_some() {
        if let EgdbBuild::Pieces(_) = args.egdb_build {
            bail!(
                "--egdb-build builds into the cache directory ($XDG_CACHE_HOME/checkersbot/egdb), \
                 which --egdb replaces; build another directory with `checkersbot egdb build --dir DIR`"
            );
        }
        return Ok((None, BuildState::Off));
    }
    let pieces = match args.egdb_build {
        EgdbBuild::Off => return Ok((None, BuildState::Off)),
        EgdbBuild::Auto => auto_pieces(checkersbot::engine::memory::mem_total()),
        EgdbBuild::Pieces(k) => k,
    };
    let size = BoardSize::S8;
    let have = settings.egdb.as_ref().map_or(0, |db| db.max_pieces(size));
    let Some(dir) = default_dir() else {
        tracing::warn!(
            "neither XDG_CACHE_HOME nor HOME is set: no endgame database is built (give \
             --egdb DIR of one built by `checkersbot egdb build`)"
        );
        return Ok((None, BuildState::Off));
    };
    let program = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!("cannot find the running program ({e}): no endgame database is built");
            return Ok((None, BuildState::Off));
        }
    };
    let plan = BuildPlan {
        program,
        dir,
        size,
        pieces,
        have,
        cache_mb: settings.egdb_cache_mb,
        priority: args.egdb_priority,
    };
    Ok(match plan.levels().first() {
        Some(&first) => (Some(plan), BuildState::Building(first)),
        None => (None, BuildState::Ready),
    })
}

/// The table `serve` makes when `--hash` is not given: sized for a move's search under the
/// settings (the move time, else a clock's usual move, else the depth), as `search` sizes it.
/// The daemon keeps it when `set level`, `set movetime` or `set clock` change the limits later.
fn default_table(s: &Settings) -> usize {
    let movetime = s.clock.map(|tc| tc.budget(tc.base, 0).soft).or(s.movetime);
    let limits = checkersbot::engine::Limits {
        movetime,
        depth: s.depth,
        nodes: None,
    };
    checkersbot::engine::default_hash_mb(&limits, s.threads)
}

/// Runs the daemon until `quit`, the end of stdin, SIGINT or SIGTERM.
pub fn run(args: &ServeArgs) -> Result<()> {
    let mut settings = args.daemon.settings(Settings::default())?;
    if args.daemon.hash.is_none() {
        settings.hash_mb = default_table(&settings);
    }
    if args.daemon.egdb.is_none() {
        settings.egdb = super::common::load_egdb(None, settings.egdb_cache_mb)?;
        settings.egdb_dir = settings
            .egdb
            .as_ref()
            .and_then(|_| checkersbot::engine::egdb::default_dir());
    }
    settings.egdb_chosen = args.daemon.egdb.is_some();
    let (plan, build_state) = egdb_plan(args, &settings)?;
    settings.egdb_build = build_state;
    if args.daemon.seed.is_none() {
        settings.seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
    }
    // Block the termination signals before any thread starts, so that every thread inherits the
    // mask and only the signal thread receives them.
    let signals = super::common::block_termination_signals();
    // The page's address is taken before the daemon starts, so that a port in use ends `serve`
    // at once with its address, as `--listen` does.
    let page = match args.http {
        Some(addr) => Some((http::bind(addr)?, Feed::default())),
        None => None,
    };
    let feed = page.as_ref().map(|(_, feed)| feed.clone());
    let pauser = egdb_build::Pauser::default();
    let daemon_pauser = pauser.clone();
    let with_page = move |daemon: Daemon, link: LinkKind| {
        let daemon = daemon.with_build_pauser(daemon_pauser.clone());
        match &feed {
            Some(feed) => daemon.with_feed(feed.clone()).with_link(link),
            None => daemon,
        }
    };
    let serve_page = move || -> Result<()> {
        if let Some((listener, feed)) = page {
            let bound = http::spawn(listener, feed).context("cannot start the operator page")?;
            tracing::info!("operator page at http://{bound}/");
            if !bound.ip().is_loopback() {
                tracing::warn!("operator page at {bound}: reachable from other machines");
            }
        }
        Ok(())
    };
    let (tx, rx) = channel();
    if let Some(signals) = signals {
        let tx = tx.clone();
        signals.forward(move |sig| tx.send(Event::Signal(sig)).is_ok());
    }
    let token = match &args.token_file {
        Some(path) => Some(network::read_token(path).map_err(|e| anyhow!("--token-file {e}"))?),
        None => None,
    };
    if let Some(addr) = args.listen.filter(|a| !a.ip().is_loopback()) {
        if token.is_none() {
            bail!(
                "--listen {addr} is reachable from other machines, and any of them could drive \
                 the arm: give --token-file FILE (a secret each client sends with hello), or \
                 listen on loopback (a port alone) behind an SSH tunnel; see docs/integration.md"
            );
        }
    }
    if let Some(plan) = plan {
        egdb_build::start(plan, tx.clone(), pauser);
    }
    let finished = match (&args.serial, args.listen) {
        (None, Some(addr)) => {
            settings.paths_allowed = args.allow_paths;
            let listener = std::net::TcpListener::bind(addr)
                .with_context(|| format!("cannot listen on {addr}"))?;
            let bound = listener.local_addr().unwrap_or(addr);
            tracing::info!("listening on {bound}");
            if !bound.ip().is_loopback() {
                tracing::warn!(
                    "listening on {bound}: reachable from other machines; clients must send the token"
                );
            }
            let sink = TcpSink::default();
            let daemon = Daemon::new(settings, Box::new(sink.clone()), tx.clone())
                .map_err(|e| anyhow!("--{e}"))?;
            let daemon = with_page(
                daemon,
                LinkKind::Tcp {
                    listen: bound.to_string(),
                },
            );
            serve_page()?;
            let options = network::TcpOptions {
                timeout: Duration::from_secs(args.tcp_timeout),
                token,
            };
            let flow = daemon.flow_control();
            spawn_reader(tx, daemon.flow_control(), move |deliver| {
                network::pump_tcp(listener, &sink, options, Some(flow), deliver)
            })?;
            daemon.run(rx)
        }
        (None, None) => {
            let mut settings = settings;
            settings.piped_stdin = !std::io::IsTerminal::is_terminal(&std::io::stdin());
            let daemon = Daemon::new(
                settings,
                Box::new(WriterSink(std::io::stdout())),
                tx.clone(),
            )
            .map_err(|e| anyhow!("--{e}"))?;
            let daemon = with_page(daemon, LinkKind::Stdin);
            serve_page()?;
            spawn_reader(tx, daemon.flow_control(), |deliver| {
                transport::pump_stdin(deliver)
            })?;
            daemon.run(rx)
        }
        (Some(path), _) => {
            let cfg = SerialConfig {
                path: path.clone(),
                baud: args.baud,
            };
            let sink = SerialSink::default();
            let daemon = Daemon::new(settings, Box::new(sink.clone()), tx.clone())
                .map_err(|e| anyhow!("--{e}"))?;
            let daemon = with_page(daemon, LinkKind::Serial { path: path.clone() });
            serve_page()?;
            spawn_reader(tx, daemon.flow_control(), move |deliver| {
                transport::pump_serial(&cfg, &sink, deliver)
            })?;
            daemon.run(rx)
        }
    };
    finished.map_err(|message| anyhow!(message))
}

/// Starts the reader thread; it waits for room (see [`FlowControl`]) before each line it hands on.
fn spawn_reader<F>(tx: Sender<Event>, flow: FlowControl, pump: F) -> Result<()>
where
    F: FnOnce(&mut dyn FnMut(transport::Input) -> bool) + Send + 'static,
{
    std::thread::Builder::new()
        .name("reader".into())
        .spawn(move || {
            pump(&mut |input| {
                flow.wait_for_room();
                tx.send(Event::Input(input)).is_ok()
            })
        })
        .context("cannot start the reader thread")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        daemon: DaemonArgs,
    }

    #[test]
    fn the_egdb_cache_flag_is_the_cap_of_set_egdb() {
        let parse = |args: &[&str]| {
            let cli = Cli::try_parse_from(std::iter::once("serve").chain(args.iter().copied()))
                .expect("flags");
            cli.daemon.settings(Settings::default()).expect("settings")
        };
        assert_eq!(parse(&["--egdb-cache", "64"]).egdb_cache_mb, 64);
        assert_eq!(parse(&[]).egdb_cache_mb, DEFAULT_CACHE_MB);
    }
}
