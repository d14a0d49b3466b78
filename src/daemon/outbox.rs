//! The daemon's one writer: replies are queued here and written, in order, by a thread of their
//! own, so that a slow reader or a missing device never blocks the daemon, the engine or the
//! reader thread, and a reply that cannot be written now is kept and written when it can.
//!
//! - A line whose write fails (the device is away, the write timed out because nobody reads) stays
//!   at the head of the queue and is tried again: at once after a time-out (the write itself
//!   waited), every [`RETRY`] otherwise. A serial sink resumes a line cut short where it stopped,
//!   or writes it whole again on a new device (see [`crate::daemon::transport::SerialSink`]).
//! - Final replies are never dropped. `info` lines are: when more than [`MAX_WAITING_INFO`] wait,
//!   the oldest waiting one goes (counted and logged).
//! - Memory stays bounded by flow control ([`FlowControl::wait_for_room`], called by the reader
//!   before it hands on each input): the reader is held back while [`MAX_UNANSWERED`] requests
//!   are unanswered (read, but their final reply not queued yet: the daemon reports each with
//!   [`Outbox::answered`]), and while more than [`HIGH_WATER`] bytes of replies (counting
//!   [`LINE_OVERHEAD`] bytes of bookkeeping per line) wait on a link that is up but not read. The
//!   peer's writes then block in turn. While the link is down the byte limit does not hold the
//!   reader, so that it can see the device go and come back.
//! - A line answers a connection (`session`, see [`crate::daemon::transport::Input::Connected`])
//!   or any link (`None`): a line whose connection has been replaced is dropped, never written to
//!   the next one (the daemon keeps the last final reply for `repeat`).
//! - A closed output (a pipe whose reader has gone: `BrokenPipe`) cannot come back: the queue is
//!   dropped and the daemon is told, so that it exits.

use super::transport::{LineSink, Sent};
use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// `info` lines that may wait; beyond this the oldest waiting one is dropped.
pub const MAX_WAITING_INFO: usize = 64;
/// Bytes of waiting replies above which the reader is held back (while the link is up).
pub const HIGH_WATER: usize = 4 << 20;
/// Wait between attempts when a write failed without waiting itself.
pub const RETRY: Duration = Duration::from_millis(50);
/// Requests read but not answered yet above which the reader is held back.
pub const MAX_UNANSWERED: usize = 64;
/// Bytes counted for each waiting line on top of its text: the queue entry and the allocation.
pub const LINE_OVERHEAD: usize = 64;

struct Waiting {
    text: String,
    is_final: bool,
    session: Option<u64>,
}

impl Waiting {
    /// The memory it is counted for.
    fn cost(&self) -> usize {
        self.text.capacity() + LINE_OVERHEAD
    }
}

#[derive(Default)]
struct Queue {
    lines: VecDeque<Waiting>,
    bytes: usize,
    infos: usize,
    /// Requests handed to the daemon whose final reply is not queued yet.
    unanswered: usize,
    /// Lines dropped because their connection was replaced.
    stale: u64,
    dropped_infos: u64,
    written: u64,
    /// No more lines will come: the writer ends when the queue is empty.
    closing: bool,
    /// The writer must end now.
    abandoned: bool,
    /// The output is gone for good.
    closed: bool,
    /// The last write failed with an error other than a time-out: the link is down.
    link_down: bool,
    /// The last write failed (any error); cleared by a success.
    failing: bool,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // A writer that panicked leaves the queue as it was: keep using it.
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn wait_timeout<'a>(&self, q: MutexGuard<'a, Queue>, d: Duration) -> MutexGuard<'a, Queue> {
        match self.changed.wait_timeout(q, d) {
            Ok((q, _)) => q,
            Err(p) => p.into_inner().0,
        }
    }
}

/// The queue and its writer thread.
pub struct Outbox {
    shared: Arc<Shared>,
    writer: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let q = self.shared.lock();
        write!(f, "Outbox({} waiting)", q.lines.len())
    }
}

/// Holds the reader back while too many replies wait (see the module documentation).
#[derive(Clone)]
pub struct FlowControl {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for FlowControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FlowControl")
    }
}

impl FlowControl {
    /// Returns when there is room for one more request: fewer than [`MAX_UNANSWERED`] are
    /// unanswered and (while the link is up) fewer than [`HIGH_WATER`] bytes of replies wait, or
    /// the output is closed; then counts one more unanswered request (every input handed to the
    /// daemon is one, until it calls [`Outbox::answered`]).
    pub fn wait_for_room(&self) {
        let mut q = self.shared.lock();
        let mut logged = false;
        loop {
            if q.closed || q.abandoned {
                break;
            }
            let full = q.bytes > HIGH_WATER && !q.link_down;
            if !full && q.unanswered < MAX_UNANSWERED {
                break;
            }
            if full && !logged {
                tracing::warn!(
                    "{} bytes of replies wait to be read; reading paused until they are",
                    q.bytes
                );
                logged = true;
            }
            q = self.shared.wait_timeout(q, Duration::from_millis(100));
        }
        q.unanswered += 1;
    }

    /// Waits until every request handed on is answered and every reply written (or dropped),
    /// however long a search takes; gives up when `gone` says so (checked every 100 ms), when the
    /// output closes, or when writes have been failing with nothing moving for `patience`.
    /// Returns whether everything was written.
    pub fn wait_drained(&self, patience: Duration, gone: &dyn Fn() -> bool) -> bool {
        let mut q = self.shared.lock();
        let mut seen = (q.written, q.stale, q.unanswered);
        let mut since = Instant::now();
        loop {
            if q.unanswered == 0 && q.lines.is_empty() {
                return true;
            }
            if q.closed || q.abandoned || gone() {
                return false;
            }
            let now = (q.written, q.stale, q.unanswered);
            if now != seen {
                seen = now;
                since = Instant::now();
            } else if q.failing && since.elapsed() >= patience {
                return false;
            }
            q = self.shared.wait_timeout(q, Duration::from_millis(100));
        }
    }
}

impl Outbox {
    /// Starts the writer thread over `sink`; `on_closed` is called (once, from the writer thread)
    /// if the output closes for good.
    pub fn start(sink: Box<dyn LineSink>, on_closed: Box<dyn FnOnce() + Send>) -> Outbox {
        let shared = Arc::new(Shared::default());
        let writer_shared = Arc::clone(&shared);
        let writer = std::thread::Builder::new()
            .name("writer".into())
            .spawn(move || write_loop(&writer_shared, sink, on_closed))
            .map_err(|e| tracing::error!("cannot start the writer thread: {e}"))
            .ok();
        Outbox { shared, writer }
    }

    /// Queues a line (without its LF) for connection `session` (`None`: whatever link there is);
    /// never blocks on the output.
    pub fn push(&self, text: String, is_final: bool, session: Option<u64>) {
        let mut q = self.shared.lock();
        if q.closed {
            return;
        }
        if !is_final && q.infos >= MAX_WAITING_INFO {
            // The head may be half written: the oldest info line after it goes.
            if let Some(i) = q.lines.iter().skip(1).position(|l| !l.is_final) {
                if let Some(old) = q.lines.remove(i + 1) {
                    q.bytes -= old.cost();
                    q.infos -= 1;
                    q.dropped_infos += 1;
                    if q.dropped_infos.is_power_of_two() {
                        tracing::warn!(
                            "the output is behind: {} info lines dropped so far (final replies are kept)",
                            q.dropped_infos
                        );
                    }
                }
            }
        }
        let line = Waiting {
            text,
            is_final,
            session,
        };
        q.bytes += line.cost();
        if !is_final {
            q.infos += 1;
        }
        q.lines.push_back(line);
        drop(q);
        self.shared.changed.notify_all();
    }

    /// `n` requests have their final reply queued (see [`FlowControl::wait_for_room`]).
    pub fn answered(&self, n: usize) {
        if n == 0 {
            return;
        }
        let mut q = self.shared.lock();
        q.unanswered = q.unanswered.saturating_sub(n);
        drop(q);
        self.shared.changed.notify_all();
    }

    /// The reader's flow control.
    pub fn flow_control(&self) -> FlowControl {
        FlowControl {
            shared: Arc::clone(&self.shared),
        }
    }

    /// Lines waiting to be written.
    pub fn waiting(&self) -> usize {
        self.shared.lock().lines.len()
    }

    /// Writes what waits, then ends the writer. Gives up when no line could be written for
    /// `patience` (the device stays away, nobody reads); returns the number of lines left
    /// unwritten.
    pub fn finish(mut self, patience: Duration) -> usize {
        let mut q = self.shared.lock();
        q.closing = true;
        self.shared.changed.notify_all();
        let mut written = q.written;
        let mut since = Instant::now();
        while !q.lines.is_empty() && !q.closed && self.writer.is_some() {
            if q.written != written {
                written = q.written;
                since = Instant::now();
            } else if since.elapsed() >= patience {
                let left = q.lines.len();
                q.abandoned = true;
                drop(q);
                self.shared.changed.notify_all();
                tracing::error!(
                    "{left} replies could not be written within {} s; giving up",
                    patience.as_secs()
                );
                // The writer may be stuck in a write: leave it to the process's end.
                self.writer = None;
                return left;
            }
            q = self.shared.wait_timeout(q, Duration::from_millis(20));
        }
        let left = if q.closed { 0 } else { q.lines.len() };
        drop(q);
        if let Some(w) = self.writer.take() {
            w.join().ok();
        }
        left
    }
}

fn write_loop(shared: &Shared, mut sink: Box<dyn LineSink>, on_closed: Box<dyn FnOnce() + Send>) {
    let mut on_closed = Some(on_closed);
    loop {
        let (text, session) = {
            let mut q = shared.lock();
            loop {
                if q.abandoned {
                    return;
                }
                if let Some(head) = q.lines.front() {
                    break (head.text.clone(), head.session);
                }
                if q.closing {
                    return;
                }
                q = shared.wait_timeout(q, Duration::from_secs(1));
            }
        };
        let result = sink.send_line_to(&text, session);
        let mut q = shared.lock();
        match result {
            Ok(sent) => {
                if let Some(done) = q.lines.pop_front() {
                    q.bytes -= done.cost();
                    if !done.is_final {
                        q.infos -= 1;
                    }
                }
                if sent == Sent::Stale {
                    q.stale += 1;
                    if q.stale.is_power_of_two() {
                        tracing::info!(
                            "'{}' answered a connection that has gone: not written to the next \
                             ({} such lines so far; `repeat` gives the last final reply)",
                            crate::daemon::protocol::printable(&text),
                            q.stale
                        );
                    }
                    if q.lines.is_empty() {
                        release_memory(&mut q);
                    }
                    drop(q);
                    shared.changed.notify_all();
                    continue;
                }
                q.written += 1;
                if q.failing {
                    tracing::info!(
                        "output back: writing the {} replies kept meanwhile",
                        q.lines.len() + 1
                    );
                }
                q.failing = false;
                q.link_down = false;
            }
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                tracing::warn!("output closed ({e}); {} replies dropped", q.lines.len());
                q.closed = true;
                q.lines.clear();
                q.bytes = 0;
                q.infos = 0;
                drop(q);
                shared.changed.notify_all();
                if let Some(f) = on_closed.take() {
                    f();
                }
                return;
            }
            Err(e) => {
                let waited = matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
                );
                if !q.failing {
                    tracing::warn!(
                        "cannot write '{}' now ({e}); kept with {} other replies, written when the output is back",
                        crate::daemon::protocol::printable(&text),
                        q.lines.len() - 1
                    );
                }
                q.failing = true;
                q.link_down = !waited;
                if !waited {
                    q = shared.wait_timeout(q, RETRY);
                }
            }
        }
        drop(q);
        shared.changed.notify_all();
    }
}

/// After a backlog of stale replies is dropped (a client that flooded without reading, then
/// went): the queue's own capacity goes, and on glibc the freed heap is handed back to the
/// system, so that the daemon's memory returns to what it was.
fn release_memory(q: &mut Queue) {
    if q.lines.capacity() > 1024 {
        q.lines.shrink_to_fit();
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: malloc_trim only returns free memory at the heap's top to the system.
        unsafe {
            libc::malloc_trim(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// A sink that fails while `down` is set (NotConnected, or TimedOut after a short wait when
    /// `slow`), else keeps the lines.
    #[derive(Clone, Default)]
    struct Flaky {
        lines: Arc<Mutex<Vec<String>>>,
        down: Arc<AtomicBool>,
        slow: bool,
        attempts: Arc<AtomicUsize>,
    }

    impl LineSink for Flaky {
        fn send_line(&mut self, line: &str) -> io::Result<()> {
            self.attempts.fetch_add(1, Ordering::Relaxed);
            if self.down.load(Ordering::Relaxed) {
                if self.slow {
                    std::thread::sleep(Duration::from_millis(5));
                    return Err(io::Error::new(io::ErrorKind::TimedOut, "nobody reads"));
                }
                return Err(io::Error::new(io::ErrorKind::NotConnected, "away"));
            }
            self.lines.lock().unwrap().push(line.to_string());
            Ok(())
        }
    }

    /// Waits (generously) until `f` holds.
    fn eventually(f: impl Fn() -> bool) {
        let end = Instant::now() + Duration::from_secs(30);
        while !f() {
            assert!(Instant::now() < end, "condition not reached");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn lines_kept_while_the_sink_fails_are_written_in_order_when_it_recovers() {
        for slow in [false, true] {
            let sink = Flaky {
                slow,
                ..Flaky::default()
            };
            sink.down.store(true, Ordering::Relaxed);
            let out = Outbox::start(Box::new(sink.clone()), Box::new(|| {}));
            for i in 0..500 {
                out.push(format!("pong {i}"), true, None);
            }
            out.push("move C1 D2".into(), true, None);
            // It tries, fails, and keeps everything.
            eventually(|| sink.attempts.load(Ordering::Relaxed) >= 3);
            assert_eq!(out.waiting(), 501);
            assert!(sink.lines.lock().unwrap().is_empty());
            sink.down.store(false, Ordering::Relaxed);
            assert_eq!(out.finish(Duration::from_secs(30)), 0);
            let got = sink.lines.lock().unwrap().clone();
            let want: Vec<String> = (0..500)
                .map(|i| format!("pong {i}"))
                .chain(["move C1 D2".to_string()])
                .collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn info_lines_are_dropped_first_never_a_final_reply() {
        let sink = Flaky::default();
        sink.down.store(true, Ordering::Relaxed);
        let out = Outbox::start(Box::new(sink.clone()), Box::new(|| {}));
        let mut finals = Vec::new();
        for i in 0..1000 {
            out.push(format!("info depth {i}"), false, None);
            if i % 10 == 0 {
                let f = format!("pong {i}");
                out.push(f.clone(), true, None);
                finals.push(f);
            }
        }
        assert!(out.waiting() <= finals.len() + MAX_WAITING_INFO);
        sink.down.store(false, Ordering::Relaxed);
        assert_eq!(out.finish(Duration::from_secs(30)), 0);
        let got = sink.lines.lock().unwrap().clone();
        let got_finals: Vec<String> = got
            .iter()
            .filter(|l| l.starts_with("pong"))
            .cloned()
            .collect();
        assert_eq!(got_finals, finals);
        let infos = got.iter().filter(|l| l.starts_with("info")).count();
        assert!(infos <= MAX_WAITING_INFO + 1, "{infos}");
        // The newest info lines survive.
        assert_eq!(got.last().map(String::as_str), Some("info depth 999"));
    }

    #[test]
    fn a_closed_output_is_reported_once_and_later_lines_are_discarded() {
        struct Closed;
        impl LineSink for Closed {
            fn send_line(&mut self, _: &str) -> io::Result<()> {
                Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone"))
            }
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let out = Outbox::start(
            Box::new(Closed),
            Box::new(move || {
                tx.send(()).ok();
            }),
        );
        out.push("pong".into(), true, None);
        rx.recv_timeout(Duration::from_secs(30)).unwrap();
        out.push("pong".into(), true, None);
        assert_eq!(out.waiting(), 0);
        assert_eq!(out.finish(Duration::from_secs(1)), 0);
        assert!(rx.try_recv().is_err());
    }

    #[test]
    fn finish_gives_up_on_an_output_that_never_comes_back() {
        let sink = Flaky::default();
        sink.down.store(true, Ordering::Relaxed);
        let out = Outbox::start(Box::new(sink.clone()), Box::new(|| {}));
        out.push("move C1 D2".into(), true, None);
        assert_eq!(out.finish(Duration::from_millis(200)), 1);
    }

    #[test]
    fn the_reader_is_held_back_only_while_the_link_is_up_and_full() {
        let sink = Flaky {
            slow: true,
            ..Flaky::default()
        };
        sink.down.store(true, Ordering::Relaxed);
        let out = Outbox::start(Box::new(sink.clone()), Box::new(|| {}));
        let flow = out.flow_control();
        let big = "x".repeat(1 << 16);
        for _ in 0..(HIGH_WATER >> 16) + 2 {
            out.push(big.clone(), true, None);
        }
        let released = Arc::new(AtomicBool::new(false));
        let r = Arc::clone(&released);
        let waiter = std::thread::spawn(move || {
            flow.wait_for_room();
            r.store(true, Ordering::Relaxed);
        });
        std::thread::sleep(Duration::from_millis(100));
        assert!(!released.load(Ordering::Relaxed), "held back while full");
        sink.down.store(false, Ordering::Relaxed);
        waiter.join().unwrap();
        assert!(released.load(Ordering::Relaxed));
        assert_eq!(out.finish(Duration::from_secs(30)), 0);
    }
}
