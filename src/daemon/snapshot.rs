//! What the operator page shows, as one immutable value the daemon publishes and web threads read.
//!
//! The daemon thread (the one owner of the game) builds a [`Snapshot`] after each event that may
//! change what the page shows (a board, a search iteration, the search's result, a setting, a new
//! TCP connection, and any line at most once a second, so that the page can tell how long ago the
//! last line came) and hands it to a [`Feed`]: the snapshot is put behind an `Arc` and swapped in under a mutex held
//! only for the swap, a version counter goes up and a condition variable wakes the waiting
//! readers. Readers (the operator page's web threads) clone the `Arc` and do all their work (HTML, JSON,
//! PDN) on their own threads, so that nothing a web client does reaches the daemon or the engine:
//! the engine thread does not know the feed exists; its progress reaches the daemon as events,
//! at the end of each iteration, as before. Times are kept as instants (when the camera's board
//! came, when the last line came): the page works out their ages when it is shown.
//!
//! ```
//! use checkersbot::daemon::snapshot::{Feed, Snapshot};
//! use std::time::Duration;
//!
//! let feed = Feed::default();
//! let (v0, _) = feed.latest();
//! feed.publish(Snapshot::default());
//! let (v1, _) = feed.wait_newer(v0, Duration::from_millis(10)).unwrap();
//! assert!(v1 > v0);
//! assert!(feed.wait_newer(v1, Duration::from_millis(10)).is_none());
//! ```

use super::protocol::{SearchInfo, StatusReport};
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::geometry::Coord;
use crate::rules::position::Side;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The bot's last (or running) search, as the page shows it.
///
/// Its figures are those of an `info` line: the daemon hands the view the very [`SearchInfo`] it
/// writes to the client, so the page and the client's last `info` line cannot differ. With `set
/// info iterations` that is the last iteration's line (the search's final count of nodes and time
/// is never written, so it is not shown either); with `set info final` the final line; with `set
/// info off` the line that would have been written at each iteration and at the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchView {
    /// The position searched, as board rows.
    pub root: String,
    /// The side to move in it (the bot).
    pub side: Side,
    /// The figures of the last `info` line (`None` before the first).
    pub info: Option<SearchInfo>,
    /// The figures were written to the client as an `info` line (`false` with `set info off`,
    /// or with `final` while the search runs).
    pub written: bool,
    /// The move answered (once done).
    pub best: Option<MoveInfo>,
    /// The search has ended (its move was answered).
    pub done: bool,
    /// The move came from the opening book.
    pub book: bool,
}

impl SearchView {
    /// A search just started on `root`, before any iteration.
    pub fn started(root: &AnyPosition) -> SearchView {
        SearchView {
            root: root.to_line(),
            side: root.side(),
            info: None,
            written: false,
            best: None,
            done: false,
            book: false,
        }
    }

    /// Takes in the figures of an `info` line; `written`: the line went to the client.
    pub fn show(&mut self, info: &SearchInfo, written: bool) {
        self.book = info.book;
        self.info = Some(info.clone());
        self.written = written;
    }

    /// Principal variation of the figures shown: each move's path.
    pub fn pv(&self) -> &[Vec<Coord>] {
        self.info.as_ref().map_or(&[], |i| i.pv.as_slice())
    }
}

/// How the daemon reaches the vision system or the robot (`serve`'s link).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LinkKind {
    /// Standard input and output (a terminal, a pipe, a parent process).
    #[default]
    Stdin,
    /// A serial device (`--serial PATH`).
    Serial {
        /// The device's path.
        path: String,
    },
    /// TCP, one client at a time (`--listen ADDR:PORT`).
    Tcp {
        /// The address listened on.
        listen: String,
    },
}

/// The link as the daemon sees it: which one, the current TCP connection, and when a line last
/// came. The daemon is told when a TCP client connects (and when another takes over), not when
/// one leaves, and nothing of a serial device opening or closing; so the time since the last line
/// is what shows whether the other side is alive (a vision client sends what it sees, again and
/// again).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkView {
    /// Which link.
    pub kind: LinkKind,
    /// The number of the current TCP connection (`None`: no client has connected yet, or not
    /// TCP).
    pub connection: Option<u64>,
    /// When the current TCP connection was made.
    pub connected_at: Option<Instant>,
    /// When the last line (of any kind) came over the link.
    pub last_line_at: Option<Instant>,
}

/// Everything the operator page and `/status.json` show, at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// What the `status` request would answer now.
    pub status: StatusReport,
    /// The last final reply to a `board` (`move ...`, `unchanged`, `wait ...`, `error ...`).
    pub last_reply: Option<String>,
    /// The bot's last search in this game.
    pub search: Option<SearchView>,
    /// The game's start position (`None` without a game).
    pub start: Option<AnyPosition>,
    /// The moves of the game, both sides, from `start`.
    pub moves: Vec<MoveInfo>,
    /// The move time (`None`: no time limit).
    pub movetime_ms: Option<u64>,
    /// The depth limit (`None`: none).
    pub depth_limit: Option<u32>,
    /// When the camera's last board (`status.seen`) came (`None`: no board in this game yet).
    pub seen_at: Option<Instant>,
    /// The link to the vision system or the robot.
    pub link: LinkView,
    /// The start position set up on the board after a game's end starts the next game (`set
    /// autonewgame` is not `off`).
    pub new_game_from_board: bool,
}

impl Default for Snapshot {
    fn default() -> Self {
        Snapshot {
            status: StatusReport::default(),
            last_reply: None,
            search: None,
            start: None,
            moves: Vec::new(),
            movetime_ms: None,
            depth_limit: None,
            seen_at: None,
            link: LinkView::default(),
            new_game_from_board: true,
        }
    }
}

/// The latest snapshot and its version.
struct Latest {
    version: u64,
    snapshot: Arc<Snapshot>,
}

struct Shared {
    latest: Mutex<Latest>,
    changed: Condvar,
}

/// Where the daemon publishes [`Snapshot`]s and web threads read them (clones share the feed).
/// Versions start at 1 and go up by one with each publication.
#[derive(Clone)]
pub struct Feed {
    shared: Arc<Shared>,
}

impl Default for Feed {
    fn default() -> Self {
        Feed {
            shared: Arc::new(Shared {
                latest: Mutex::new(Latest {
                    version: 1,
                    snapshot: Arc::new(Snapshot::default()),
                }),
                changed: Condvar::new(),
            }),
        }
    }
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Feed")
    }
}

impl Feed {
    /// Makes `snapshot` the latest and wakes the readers waiting for one (the daemon's side: the
    /// lock is held for the swap only).
    pub fn publish(&self, snapshot: Snapshot) {
        let snapshot = Arc::new(snapshot);
        // A reader thread cannot panic while holding the lock (it only clones), but if one ever
        // did, the value inside is still whole: go on with it.
        let mut latest = self.shared.latest.lock().unwrap_or_else(|p| p.into_inner());
        latest.version += 1;
        let old = std::mem::replace(&mut latest.snapshot, snapshot);
        drop(latest);
        self.shared.changed.notify_all();
        // The old snapshot is freed here, outside the lock (or by its last reader).
        drop(old);
    }

    /// The latest snapshot and its version.
    pub fn latest(&self) -> (u64, Arc<Snapshot>) {
        let latest = self.shared.latest.lock().unwrap_or_else(|p| p.into_inner());
        (latest.version, Arc::clone(&latest.snapshot))
    }

    /// Waits up to `timeout` for a snapshot newer than version `seen`; `None` when none came.
    pub fn wait_newer(&self, seen: u64, timeout: Duration) -> Option<(u64, Arc<Snapshot>)> {
        let latest = self.shared.latest.lock().unwrap_or_else(|p| p.into_inner());
        let (latest, _) = self
            .shared
            .changed
            .wait_timeout_while(latest, timeout, |l| l.version <= seen)
            .unwrap_or_else(|p| p.into_inner());
        (latest.version > seen).then(|| (latest.version, Arc::clone(&latest.snapshot)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waiting_reader_is_woken_by_a_publication() {
        let feed = Feed::default();
        let (v0, first) = feed.latest();
        assert_eq!(*first, Snapshot::default());
        let reader = {
            let feed = feed.clone();
            std::thread::spawn(move || feed.wait_newer(v0, Duration::from_secs(20)))
        };
        std::thread::sleep(Duration::from_millis(20));
        let next = Snapshot {
            last_reply: Some("unchanged".into()),
            ..Snapshot::default()
        };
        feed.publish(next.clone());
        let (v1, got) = reader.join().expect("reader").expect("woken");
        assert_eq!(v1, v0 + 1);
        assert_eq!(*got, next);
    }
}
