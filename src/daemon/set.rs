//! The options family of requests: `set OPTION VALUE` (files for `eval`, `egdb`, `book` and
//! `record` checked and loaded off the loop's thread where reading may take time) and the
//! `options` list.

use super::engine_thread::Job;
use super::event::{Event, Loaded};
use super::event_loop::{Daemon, Pending, Work};
use super::options;
use super::protocol::{ErrorCode, Reply, SetOption};
use crate::engine::book::{Book, BookError, BookSpec};
use crate::engine::egdb::Egdb;
use crate::engine::eval::{load_eval, LearnedSet};
use crate::files::{check_record_dir, read_regular};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The largest weights file `set eval` reads.
pub const MAX_EVAL_FILE: u64 = crate::engine::eval::MAX_WEIGHTS_FILE;

/// What a loader thread reads for `set`.
#[derive(Clone, Copy, Debug)]
pub(super) enum Load {
    /// Weights (`set eval PATH`).
    Eval,
    /// An endgame database (`set egdb DIR`).
    Egdb,
    /// An opening book (`set book PATH`).
    Book,
}

impl Load {
    /// The option's name, for error replies.
    fn option(self) -> &'static str {
        match self {
            Load::Eval => "eval",
            Load::Egdb => "egdb",
            Load::Book => "book",
        }
    }
}

/// Why an option naming a path is refused over a link that may not name paths.
const PATHS_REFUSED: &str =
    "paths are not accepted over this link (start serve with --allow-paths to allow them)";

impl Daemon {
    /// `set OPTION VALUE`: options naming files are checked (and read off this thread where
    /// reading may take time) before `ok`; the others change the settings at once.
    pub(super) fn set_option(&mut self, opt: SetOption) {
        let busy = self.pending.is_some();
        match opt {
            SetOption::Eval(spec) if matches!(spec.as_str(), "hand" | "learned") => {
                match load_eval(&spec) {
                    Ok(learned) => self.loaded(Loaded::Eval {
                        spec,
                        result: Ok(learned),
                    }),
                    Err(e) => self.error(ErrorCode::BadOption, format!("eval: {e}")),
                }
            }
            SetOption::Egdb(spec) if matches!(spec.as_str(), "off" | "none") => {
                self.settings.egdb_dir = None;
                self.settings.egdb = None;
                self.settings.egdb_chosen = true;
                self.send(&Reply::Ok);
            }
            SetOption::Book(spec) if !matches!(BookSpec::parse(&spec), BookSpec::File(_)) => {
                match BookSpec::parse(&spec).load() {
                    Ok(book) => self.loaded(Loaded::Book {
                        spec,
                        result: Ok(book),
                    }),
                    Err(e) => self.error(ErrorCode::BadOption, format!("book: {e}")),
                }
            }
            SetOption::Eval(_) | SetOption::Egdb(_) | SetOption::Book(_) if busy => self.busy(),
            SetOption::Eval(spec) => self.start_load(spec, Load::Eval),
            SetOption::Egdb(spec) => self.start_load(spec, Load::Egdb),
            SetOption::Book(spec) => self.start_load(spec, Load::Book),
            SetOption::Hash(mb) => self.set_hash(mb),
            SetOption::Record(dir) => self.set_record(&dir),
            opt => {
                self.set(opt);
                self.send(&Reply::Ok);
            }
        }
    }

    /// `options`: every option with its type, range and value, then `ok`.
    pub(super) fn options(&mut self) {
        for spec in options::specs(&self.settings, self.clock_left) {
            self.send(&Reply::Option(spec.line));
        }
        self.send(&Reply::Ok);
    }

    pub(super) fn set(&mut self, opt: SetOption) {
        match opt {
            SetOption::Clock(tc) => {
                self.settings.clock = tc;
                return self.reset_clock();
            }
            SetOption::TimeLeft(ms) => {
                self.clock_left = Duration::from_millis(ms);
                return;
            }
            SetOption::Ponder(on) => {
                self.settings.ponder = on;
                if !on {
                    self.stop_pondering();
                }
                return;
            }
            _ => {}
        }
        let s = &mut self.settings;
        match opt {
            SetOption::Movetime(ms) => {
                s.movetime = (ms > 0).then(|| Duration::from_millis(ms));
            }
            SetOption::Depth(d) => s.depth = (d > 0).then_some(d),
            SetOption::Nodes(n) => s.nodes = (n > 0).then_some(n),
            SetOption::Threads(t) => s.threads = t,
            // Resized in `set_hash`.
            SetOption::Hash(_) => {}
            SetOption::Size(size) => {
                s.size = size;
                s.layout = None;
            }
            SetOption::Strict(b) => s.strict = b,
            SetOption::ColourOnly(b) => s.colour_only = b,
            SetOption::Rotated(b) => s.rotated = b,
            SetOption::AutoNewGame(p) => s.auto_newgame = p,
            SetOption::Info(m) => s.info = m,
            SetOption::Level(level) => s.set_level(level),
            SetOption::Style(style) => s.style = style,
            // Loaded (and checked) in `command`.
            SetOption::Eval(_) | SetOption::Egdb(_) | SetOption::Book(_) | SetOption::Record(_) => {
            }
            // Handled above.
            SetOption::Clock(_) | SetOption::TimeLeft(_) | SetOption::Ponder(_) => {}
        }
    }

    /// `set eval PATH`, `set egdb DIR` or `set book PATH`: loaded on a thread of its own, so
    /// that the daemon answers `ping`, `stop` and signals meanwhile; the reply comes with
    /// [`Event::Loaded`]. Files are opened without blocking and read only if they are regular
    /// files within their size limits ([`crate::files`]): a FIFO, a device or a huge file is
    /// refused at once, in the same words for every option.
    pub(super) fn start_load(&mut self, spec: String, load: Load) {
        if !self.settings.paths_allowed {
            return self.paths_refused(load.option());
        }
        let events = self.events.clone();
        let cache_mb = self.settings.egdb_cache_mb;
        let work = move || {
            let path = std::path::Path::new(&spec);
            let loaded = match load {
                Load::Eval => {
                    let result = read_regular(path, MAX_EVAL_FILE)
                        .map_err(|e| e.to_string())
                        .and_then(|bytes| {
                            crate::engine::eval::LearnedWeights::from_bytes(&bytes)
                                .map(LearnedSet::single)
                                .map_err(|e| format!("'{spec}': {e}"))
                        });
                    Loaded::Eval { spec, result }
                }
                Load::Egdb => {
                    let result = Egdb::open(path, cache_mb)
                        .map(Arc::new)
                        .map_err(|e| e.to_string());
                    Loaded::Egdb { spec, result }
                }
                Load::Book => {
                    let result = match Book::load(path) {
                        Ok(book) => Ok(Some(book)),
                        Err(BookError::File(e)) => Err(e.to_string()),
                        Err(e) => Err(format!("'{spec}': {e}")),
                    };
                    Loaded::Book { spec, result }
                }
            };
            events.send(Event::Loaded(loaded)).ok();
        };
        if let Err(e) = std::thread::Builder::new()
            .name("loader".into())
            .spawn(work)
        {
            return self.error(ErrorCode::Internal, format!("cannot start a loader: {e}"));
        }
        self.pending = Some(Pending {
            work: Work::Load,
            received: self.received,
            session: self.session,
            unbounded: false,
            after: Vec::new(),
            quit: None,
        });
    }

    /// A loader's result: the setting changes (`ok`) or stays (`error bad-option`).
    pub(super) fn loaded(&mut self, loaded: Loaded) {
        let pending = self.pending.take_if(|p| p.work == Work::Load);
        if let Some(p) = &pending {
            self.to = p.session;
        }
        match loaded {
            Loaded::Eval {
                spec,
                result: Ok(learned),
            } => {
                self.settings.learned = learned;
                self.settings.eval_name = spec;
                self.send(&Reply::Ok);
            }
            Loaded::Egdb {
                spec,
                result: Ok(db),
            } => {
                self.settings.egdb_dir = Some(PathBuf::from(&spec));
                self.settings.egdb = Some(db);
                self.settings.egdb_chosen = true;
                self.send(&Reply::Ok);
            }
            Loaded::Book {
                spec,
                result: Ok(book),
            } => {
                self.settings.book_name = BookSpec::parse(&spec).name();
                self.settings.book = book.map(Arc::new);
                self.settings.book_chosen = true;
                self.send(&Reply::Ok);
            }
            Loaded::Eval { result: Err(e), .. } => {
                self.error(ErrorCode::BadOption, format!("eval: {e}"))
            }
            Loaded::Book { result: Err(e), .. } => {
                self.error(ErrorCode::BadOption, format!("book: {e}"))
            }
            Loaded::Egdb { result: Err(e), .. } => {
                self.error(ErrorCode::BadOption, format!("egdb: {e}"))
            }
        }
        if let Some(p) = pending {
            self.answer_deferred(&p);
            self.ack_if_idle();
        }
    }

    /// `error bad-option` for an option naming a path over a link that may not.
    pub(super) fn paths_refused(&mut self, option: &str) {
        self.error(ErrorCode::BadOption, format!("{option}: {PATHS_REFUSED}"));
    }

    /// `set record DIR|off`: the directory must be writable (it is created if its parent
    /// exists); checked now, so that a record that cannot be written fails here, not later.
    pub(super) fn set_record(&mut self, dir: &str) {
        if matches!(dir, "off" | "none") {
            self.settings.record = None;
            return self.send(&Reply::Ok);
        }
        if !self.settings.paths_allowed {
            return self.paths_refused("record");
        }
        match check_record_dir(std::path::Path::new(dir)) {
            Ok(path) => {
                self.settings.record = Some(path);
                self.send(&Reply::Ok);
            }
            Err(e) => self.error(ErrorCode::BadOption, format!("record: {e}")),
        }
    }

    /// `set hash`: the table is allocated before `ok`, or refused (the old one kept) with what the
    /// machine has.
    pub(super) fn set_hash(&mut self, mb: usize) {
        if self.pending.is_some() {
            return self.error(
                ErrorCode::Busy,
                "the table is in use by a search; set hash after its move",
            );
        }
        if mb == self.settings.hash_mb {
            return self.send(&Reply::Ok);
        }
        let threads = self.settings.threads;
        match self.prepare(Job::Resize { mb, threads }) {
            Ok(took) => {
                tracing::info!(
                    "transposition table: {mb} MiB allocated in {} ms",
                    took.as_millis()
                );
                self.settings.hash_mb = mb;
                self.send(&Reply::Ok);
            }
            Err(e) => {
                tracing::warn!("set hash {mb} refused: {e}");
                self.error(
                    ErrorCode::BadOption,
                    format!("{e}; the table stays {} MiB", self.settings.hash_mb),
                );
            }
        }
    }
}
