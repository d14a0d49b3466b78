//! The `status` request's report built from the daemon's state: the tracked game, the settings,
//! whether the engine works, the bot's time left and what the daemon kept of the last board. The
//! line's data and text are [`super::protocol::StatusReport`].

use crate::camera::tracking::{camera_grid, Tracker};

use super::protocol::{GameState, StatusReport};
use super::settings::Settings;
use crate::rules::game::Status;
use crate::rules::position::Side;
use std::time::{Duration, Instant};

/// What the daemon keeps of the last board it was sent, for `status`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observed {
    /// The board as read (daemon orientation), `None` when it could not be read.
    pub seen: Option<String>,
    /// The `error` or `wait` reply it got, if it did not fit the game.
    pub diagnosis: Option<String>,
    /// When it came (for the operator page: how old the camera's last board is).
    pub at: Option<Instant>,
}

impl Observed {
    /// Notes a `board` line: its rows as sent, read with the daemon's camera settings, and the
    /// final reply it got (`None` when a search started: the board fit the game).
    pub fn note(&mut self, rows: &str, settings: &Settings, reply: Option<&str>) {
        self.seen = camera_grid(rows, settings.rotated, settings.colour_only)
            .ok()
            .map(|g| g.to_line());
        self.diagnosis = reply
            .filter(|r| r.starts_with("error ") || r.starts_with("wait "))
            .map(str::to_string);
    }
}

/// The `status` of a daemon: its tracker and settings, whether a search runs, the bot's time left
/// and what it kept of the last board.
pub fn report(
    tracker: &Tracker,
    settings: &Settings,
    searching: bool,
    clock_left: Duration,
    observed: &Observed,
) -> StatusReport {
    let mut report = StatusReport {
        state: GameState::NoGame,
        size: tracker.size(),
        side: None,
        position: None,
        expect: None,
        seen: observed.seen.clone(),
        plies: 0,
        result: None,
        clock: settings.clock,
        left_ms: settings.clock.map(|_| clock_left.as_millis() as u64),
        level: settings.level,
        style: settings.style,
        eval: settings.eval_name.clone(),
        egdb: settings.egdb_dir.as_ref().map(|d| d.display().to_string()),
        egdb_pieces: settings.egdb.as_ref().map_or(0, |db| {
            db.max_pieces(tracker.size().unwrap_or(settings.size))
        }),
        egdb_build: settings.egdb_build,
        book: settings.book_in_play().map(|_| settings.book_name.clone()),
        diagnosis: observed.diagnosis.clone(),
    };
    if let Some(start) = tracker.fresh_start() {
        report.state = GameState::Start;
        report.position = Some(start.to_line());
        report.result = Some(Status::Ongoing);
    }
    let Some(game) = tracker.game() else {
        return report;
    };
    let current = game.current();
    let status = game.status();
    report.plies = game.plies();
    report.result = Some(status);
    report.side = Some(current.side());
    report.position = Some(current.to_line());
    report.state = if searching {
        GameState::Search
    } else if let Some(before) = tracker.awaiting_arm() {
        report.expect = Some(current.to_line());
        report.position = Some(before.to_line());
        report.side = Some(before.side());
        GameState::Arm
    } else if status.is_over() {
        GameState::Over
    } else if current.side() == Side::Bot {
        GameState::Bot
    } else {
        GameState::Person
    };
    report
}
