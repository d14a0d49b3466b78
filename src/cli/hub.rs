//! `checkersbot hub`: the engine behind the Hub protocol (Scan's), so that draughts tools that drive
//! Hub engines (pydraughts' `HubEngine` and what is built on it) can play it, either colour, on
//! American checkers 8x8. Positions and moves are read and written by
//! [`checkersbot::robot::hub`]; this module is the loop: a reader thread hands lines over a channel,
//! searches run on their own thread with a stop flag, and `stop`, `ping`, `ponder-hit` and `quit`
//! are answered while one runs.

use super::common::EngineArgs;
use anyhow::Result;
use checkersbot::engine::clock::TimeControl;
use checkersbot::engine::{Engine, Info, Limits, SearchResult};
use checkersbot::robot::hub::{self, HubLine, Level};
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::game::Game;
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::position::Side;
use clap::Args;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver};
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
    game: Game,
    level: Level,
    running: Option<Running>,
    out: Arc<Mutex<std::io::Stdout>>,
}

fn error(out: &Mutex<std::io::Stdout>, message: &str) {
    tracing::warn!("hub: {message}");
    say(
        out,
        &format!("error message=\"{}\"", message.replace('"', "'")),
    );
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

    /// The move time and soft limit for the side to move under the current `level`.
    fn budget(&self) -> (Limits, Option<Duration>) {
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
            let played = (self.game.plies() / 2) as u32;
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
        let pos = *self.game.current();
        let Some(mut engine) = self.engine.take() else {
            return error(&self.out, "the engine is not ready");
        };
        let ponder = line.has("ponder");
        let analyze = line.has("analyze") || line.has("analyse");
        let (mut limits, mut soft) = self.budget();
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
        let history = self.game.history_keys();
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

    fn position(&mut self, line: &HubLine) {
        let start = match line.get("pos") {
            Some(text) => match hub::parse_position(text) {
                Ok(p) => p,
                Err(e) => return error(&self.out, &e.to_string()),
            },
            None => AnyPosition::initial(BoardSize::S8, Side::Bot),
        };
        match hub::play_moves(start, line.get("moves").unwrap_or("")) {
            Ok(game) => self.game = game,
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
                    "variant {value} is not played: checkersbot plays American checkers (english) in Hub mode"
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
                _ => error(&self.out, &format!("hash must be 1 to 4096 MiB, not {value}")),
            },
            "threads" => match value.parse::<usize>() {
                Ok(t) if (1..=64).contains(&t) => {
                    if let Some(engine) = self.engine.as_mut() {
                        engine.set_threads(t);
                    }
                }
                _ => error(&self.out, &format!("threads must be 1 to 64, not {value}")),
            },
            other => tracing::info!("hub: parameter {other} ignored"),
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

fn reader(input: impl BufRead + Send + 'static) -> Receiver<Option<String>> {
    let (tx, rx) = channel();
    let _ = std::thread::Builder::new()
        .name("hub-reader".into())
        .spawn(move || {
            for line in input.lines() {
                match line {
                    Ok(l) => {
                        if tx.send(Some(l)).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        tracing::warn!("hub: input: {e}");
                        break;
                    }
                }
            }
            let _ = tx.send(None);
        });
    rx
}

/// Runs the Hub loop on stdin/stdout until `quit` or the end of input.
pub fn run(args: &HubArgs) -> Result<()> {
    let config = args.engine.config(None)?;
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let mut hub = Hub {
        engine: Some(Engine::try_new(config).map_err(|e| anyhow::anyhow!("--hash: {e}"))?),
        game: Game::new(AnyPosition::initial(BoardSize::S8, Side::Bot)),
        level: Level::default(),
        running: None,
        out: Arc::clone(&out),
    };
    let lines = reader(std::io::BufReader::new(std::io::stdin()));
    while let Ok(Some(text)) = lines.recv() {
        let Some(line) = HubLine::parse(&text) else {
            continue;
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
            "quit" => break,
            other => error(&out, &format!("unknown command {other}")),
        }
    }
    hub.join();
    Ok(())
}
