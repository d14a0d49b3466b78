//! `checkersbot hub`: the engine behind the Hub protocol (Scan's), so that draughts tools that drive
//! Hub engines (pydraughts' `HubEngine` and what is built on it) can play it, either colour, on
//! American checkers 8x8. Positions and moves are read and written by
//! [`checkersbot::hosts::hub`]; this module is the loop: a reader thread hands lines over a channel,
//! searches run on their own thread with a stop flag, and `stop`, `ping`, `ponder-hit` and `quit`
//! are answered while one runs.
//!
//! Input is framed as `serve` frames it ([`LineReader`]): byte lines of at most
//! [`MAX_LINE`](checkersbot::daemon::protocol::MAX_LINE) bytes, a longer one discarded as it is
//! read (memory stays bounded) and answered with an error that quotes its first bytes, a line that
//! is not UTF-8 answered with an error; the loop goes on after both. SIGINT and SIGTERM stop a
//! search under way, which writes its `done` line with the best move found so far, and end the
//! mode. Nothing goes to stderr unless `--log-level` (or `RUST_LOG`) asks: Hub hosts such as
//! pydraughts read stderr with stdout.

use super::common::EngineArgs;
use anyhow::Result;
use checkersbot::daemon::transport::LineReader;
use checkersbot::engine::clock::TimeControl;
use checkersbot::engine::{Engine, Info, Limits, SearchResult};
use checkersbot::hosts::hub::{self, HubLine, Level};
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::game::Game;
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::position::Side;
use clap::Args;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Arguments of `hub`.
#[derive(Args, Debug)]
pub struct HubArgs {
    #[command(flatten)]
    engine: EngineArgs,
}

/// Writes one whole line to stdout and flushes it (the search thread and the loop share stdout).
fn say(out: &Mutex<std::io::Stdout>, line: &str) {
    if let Ok(o) = out.lock() {
        let mut lock = o.lock();
        let _ = writeln!(lock, "{line}");
        let _ = lock.flush();
    }
}

/// A search in progress.
struct Running {
    stop: Arc<AtomicBool>,
    /// Set when pondering: `ponder-hit` turns the search into a timed one.
    ponder_budget: Option<Duration>,
    handle: JoinHandle<(Engine, SearchResult)>,
}

struct Hub {
    engine: Option<Engine>,
    /// The position to search, set by a valid `pos`; none before the first and after a rejected
    /// one, so that `go` never searches a position the host did not mean.
    game: Option<Game>,
    level: Level,
    running: Option<Running>,
    out: Arc<Mutex<std::io::Stdout>>,
}

fn error(out: &Mutex<std::io::Stdout>, message: &str) {
    tracing::warn!("hub: {message}");
    say(out, &hub::error_line(message));
}

impl Hub {
    /// Waits for a running search to end; its `done` line has been written by then.
    fn join(&mut self) {
        if let Some(r) = self.running.take() {
            r.stop.store(true, Ordering::Relaxed);
            match r.handle.join() {
                Ok((engine, _)) => self.engine = Some(engine),
                Err(_) => tracing::error!("hub: the search thread failed"),
            }
        }
    }

    /// Collects a search that has ended by itself.
    fn reap(&mut self) {
        if self
            .running
            .as_ref()
            .is_some_and(|r| r.handle.is_finished())
        {
            self.join();
        }
    }

    /// The move time and soft limit for the side to move in `game` under the current `level`.
    fn budget(&self, game: &Game) -> (Limits, Option<Duration>) {
        let l = &self.level;
        let mut limits = Limits {
            movetime: None,
            depth: l.depth,
            nodes: l.nodes,
        };
        let mut soft = None;
        if l.infinite {
            return (limits, None);
        }
        if let Some(t) = l.move_time {
            limits.movetime = Some(t.max(Duration::from_millis(1)));
        } else if let Some(time) = l.time {
            // Hub hosts send the time before the increment, which the engine adds itself.
            let inc = l.inc.unwrap_or_default();
            let tc = TimeControl {
                base: time.max(Duration::from_millis(1)),
                inc,
                moves: l.moves,
            };
            let played = (game.plies() / 2) as u32;
            let b = tc.budget(time + inc, played);
            limits.movetime = Some(b.hard.max(Duration::from_millis(1)));
            soft = Some(b.soft);
        } else if l.depth.is_none() && l.nodes.is_none() {
            limits.movetime = Some(Duration::from_secs(1));
        }
        (limits, soft)
    }

    fn go(&mut self, line: &HubLine) {
        self.reap();
        if self.running.is_some() {
            return error(&self.out, "a search is running; send stop first");
        }
        let Some(game) = &self.game else {
            return error(
                &self.out,
                "no position to search: send a valid pos first (none is set before the first pos or after a rejected one)",
            );
        };
        let pos = *game.current();
        let history = game.history_keys();
        let (mut limits, mut soft) = self.budget(game);
        let Some(mut engine) = self.engine.take() else {
            return error(&self.out, "the engine is not ready");
        };
        let ponder = line.has("ponder");
        let analyze = line.has("analyze") || line.has("analyse");
        let mut ponder_budget = None;
        if ponder || analyze {
            ponder_budget = limits.movetime;
            limits.movetime = None;
            soft = None;
            if analyze {
                limits.depth = None;
                limits.nodes = None;
            }
        }
        let stop = Arc::new(AtomicBool::new(false));
        let out = Arc::clone(&self.out);
        let flag = Arc::clone(&stop);
        let spawned = std::thread::Builder::new()
            .name("hub-search".into())
            .spawn(move || {
                let result = engine.search_soft(&pos, &history, &limits, soft, &flag, &mut |i| {
                    say(&out, &info_line(i, &pos));
                });
                say(&out, &info_line(&result.info, &pos));
                say(&out, &done_line(&result, &pos));
                (engine, result)
            });
        match spawned {
            Ok(handle) => {
                self.running = Some(Running {
                    stop,
                    ponder_budget: if ponder { ponder_budget } else { None },
                    handle,
                })
            }
            Err(e) => error(&self.out, &format!("cannot start the search: {e}")),
        }
    }

    /// `ponder-hit`: the guessed move was played; the search goes on as a timed one.
    fn ponder_hit(&mut self) {
        let Some(r) = self.running.as_mut() else {
            return;
        };
        let Some(budget) = r.ponder_budget.take() else {
            return;
        };
        let stop = Arc::clone(&r.stop);
        let deadline = Instant::now() + budget;
        let _ = std::thread::Builder::new()
            .name("hub-ponder-timer".into())
            .spawn(move || {
                while Instant::now() < deadline && !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(2));
                }
                stop.store(true, Ordering::Relaxed);
            });
    }

    /// `pos`: the position to search from now on; a rejected one leaves none.
    fn position(&mut self, line: &HubLine) {
        self.game = None;
        let start = match line.get("pos") {
            Some(text) => match hub::parse_position(text) {
                Ok(p) => p,
                Err(e) => return error(&self.out, &e.to_string()),
            },
            None => AnyPosition::initial(BoardSize::S8, Side::Bot),
        };
        match hub::play_moves(start, line.get("moves").unwrap_or("")) {
            Ok(game) => self.game = Some(game),
            Err(e) => error(&self.out, &e.to_string()),
        }
    }

    fn set_param(&mut self, line: &HubLine) {
        let (Some(name), value) = (line.get("name"), line.get("value").unwrap_or("")) else {
            return error(&self.out, "set-param needs name=NAME value=VALUE");
        };
        match name {
            "variant" if hub::VARIANTS.contains(&value.to_ascii_lowercase().as_str()) => {}
            "variant" => error(
                &self.out,
                &format!(
                    "variant {} is not played: checkersbot plays American checkers (english) in Hub mode",
                    hub::quote(value)
                ),
            ),
            "hash" | "tt-size" => match value.parse::<usize>() {
                Ok(mb) if (1..=4096).contains(&mb) => {
                    if let Some(engine) = self.engine.as_mut() {
                        if let Err(e) = engine.try_set_hash_mb(mb) {
                            error(&self.out, &format!("hash {mb}: {e}"));
                        }
                    }
                }
                _ => error(
                    &self.out,
                    &format!("hash must be 1 to 4096 MiB, not {}", hub::quote(value)),
                ),
            },
            "threads" => match value.parse::<usize>() {
                Ok(t) if (1..=64).contains(&t) => {
                    if let Some(engine) = self.engine.as_mut() {
                        engine.set_threads(t);
                    }
                }
                _ => error(
                    &self.out,
                    &format!("threads must be 1 to 64, not {}", hub::quote(value)),
                ),
            },
            other => tracing::info!("hub: parameter {} ignored", hub::quote(other)),
        }
    }
}

fn info_line(i: &Info, root: &AnyPosition) -> String {
    let mut pos = *root;
    let mut pv = Vec::new();
    for m in &i.pv {
        pv.push(hub::write_move(m));
        match pos.play(m) {
            Some(next) => pos = next,
            None => break,
        }
    }
    format!(
        "info depth={} mean-depth={} score={} nodes={} time={:.3} nps={} pv=\"{}\"",
        i.depth,
        i.seldepth,
        hub::write_score(i.score),
        i.nodes,
        i.time.as_secs_f64(),
        i.nps,
        pv.join(" ")
    )
}

fn done_line(result: &SearchResult, root: &AnyPosition) -> String {
    let Some(best) = &result.best else {
        return "done".to_string();
    };
    let mut line = format!("done move={}", hub::write_move(best));
    if let (Some(reply), Some(after)) = (result.info.pv.get(1), root.play(best)) {
        if result.info.pv.first() == Some(best) && after.play(reply).is_some() {
            line.push_str(&format!(" ponder={}", hub::write_move(reply)));
        }
    }
    line
}

/// What the loop reacts to.
enum Event {
    /// A line of input.
    Line(String),
    /// A line that broke the framing rules: the error to answer.
    Bad(String),
    /// The end of input.
    End,
    /// SIGINT or SIGTERM.
    Signal(i32),
}

/// How many bytes of a line an error quotes.
const QUOTED: usize = 40;

/// Passes a byte stream through unchanged, keeping the first bytes of each line in it (up to
/// [`QUOTED`] and one more, so a longer line shows as cut) for the error about a line the framing
/// rejects, whose bytes [`LineReader`] does not keep. One entry a line, in order: the reader
/// takes the front one for each line it delivers. It holds entries only for the lines read ahead
/// of delivery, so it stays as small as the read-ahead buffer.
struct LineStarts<R> {
    inner: R,
    current: Vec<u8>,
    started: bool,
    done: Rc<RefCell<VecDeque<Vec<u8>>>>,
}

impl<R: Read> Read for LineStarts<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && self.started {
            // A last line without LF: the reader delivers it too.
            self.done
                .borrow_mut()
                .push_back(std::mem::take(&mut self.current));
            self.started = false;
        }
        for &b in &buf[..n] {
            if b == b'\n' {
                self.done
                    .borrow_mut()
                    .push_back(std::mem::take(&mut self.current));
                self.started = false;
            } else {
                self.started = true;
                if self.current.len() <= QUOTED {
                    self.current.push(b);
                }
            }
        }
        Ok(n)
    }
}

/// Reads stdin on a thread of its own, framed as `serve` frames it, and hands each line (or the
/// error about it) to the loop; the channel is bounded, so input waits while the loop is behind.
fn reader(input: impl Read + Send + 'static, tx: SyncSender<Event>) {
    let _ = std::thread::Builder::new()
        .name("hub-reader".into())
        .spawn(move || {
            let starts = Rc::new(RefCell::new(VecDeque::new()));
            let mut lines = LineReader::new(LineStarts {
                inner: input,
                current: Vec::new(),
                started: false,
                done: Rc::clone(&starts),
            });
            loop {
                let event = match lines.next_line() {
                    Ok(None) => break,
                    Ok(Some(line)) => {
                        let start = starts.borrow_mut().pop_front().unwrap_or_default();
                        match line {
                            Ok(l) => Event::Line(l),
                            Err(e) => Event::Bad(format!("{e}: {}", hub::quote_bytes(&start))),
                        }
                    }
                    Err(e) => {
                        tracing::warn!("hub: input: {e}");
                        break;
                    }
                };
                if tx.send(event).is_err() {
                    return;
                }
            }
            let _ = tx.send(Event::End);
        });
}

/// Runs the Hub loop on stdin/stdout until `quit`, the end of input, SIGINT or SIGTERM.
pub fn run(args: &HubArgs) -> Result<()> {
    // Before any thread starts, so that every thread inherits the mask.
    let signals = super::common::block_termination_signals();
    let config = args.engine.config(None)?;
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let mut hub = Hub {
        engine: Some(Engine::try_new(config).map_err(|e| anyhow::anyhow!("--hash: {e}"))?),
        game: None,
        level: Level::default(),
        running: None,
        out: Arc::clone(&out),
    };
    let (tx, events) = sync_channel(64);
    if let Some(set) = signals {
        let tx = tx.clone();
        set.forward(move |sig| tx.send(Event::Signal(sig)).is_ok());
    }
    reader(std::io::stdin(), tx);
    serve_events(&mut hub, &events);
    hub.join();
    Ok(())
}

/// The loop itself: answers each event until `quit`, the end of input or a signal.
fn serve_events(hub: &mut Hub, events: &Receiver<Event>) {
    let out = Arc::clone(&hub.out);
    while let Ok(event) = events.recv() {
        let text = match event {
            Event::Line(text) => text,
            Event::Bad(message) => {
                error(&out, &message);
                continue;
            }
            Event::End => return,
            Event::Signal(sig) => {
                tracing::info!("hub: signal {sig}: stopping");
                return;
            }
        };
        let line = match HubLine::parse(&text) {
            Ok(Some(line)) => line,
            Ok(None) => continue,
            Err(e) => {
                error(&out, &e.to_string());
                continue;
            }
        };
        match line.command.as_str() {
            "hub" => {
                say(
                    &out,
                    &format!(
                        "id name=checkersbot version={} author=\"checkersbot developers\" country=none",
                        env!("CARGO_PKG_VERSION")
                    ),
                );
                say(
                    &out,
                    "param name=variant value=english type=enum values=\"english american\"",
                );
                say(&out, "param name=hash value=16 type=int min=1 max=4096");
                say(&out, "param name=threads value=1 type=int min=1 max=64");
                say(&out, "wait");
            }
            "init" => say(&out, "ready"),
            "ping" => say(&out, "pong"),
            "new-game" => {
                hub.join();
                if let Some(engine) = hub.engine.as_mut() {
                    engine.new_game();
                }
            }
            "set-param" => {
                hub.join();
                hub.set_param(&line);
            }
            "pos" => {
                hub.join();
                hub.position(&line);
            }
            "level" => match Level::parse(&line) {
                Ok(level) => hub.level = level,
                Err(e) => error(&out, &e),
            },
            "go" => hub.go(&line),
            "ponder-hit" => hub.ponder_hit(),
            "stop" => hub.join(),
            "quit" => return,
            other => error(&out, &format!("unknown command {}", hub::quote(other))),
        }
    }
}
