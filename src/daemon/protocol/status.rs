//! The `status` request: the tracked game and the daemon's settings in one line, without changing
//! anything (`protocol/PROTOCOL.md`, "Status").
//!
//! The line is `status` followed by `KEY VALUE` pairs. Every value is one token, except that of
//! `diagnosis`, which comes last and runs to the end of the line. A token has no blanks: a blank or
//! a backslash in a value (a path) is written `\x20` or `\x5c`, and any other character that is not
//! printable ASCII as [`printable`] escapes it (`\x1b`, `\u{e9}`). A value that is not there is
//! `none`. Readers ignore keys they do not know, so keys can be added.
//!
//! ```
//! use checkersbot::daemon::protocol::{GameState, StatusReport};
//!
//! let line = "status state person size 4 side p position ___b/b___/____/p_p_ expect none \
//!             seen ___b/b___/____/p_p_ plies 1 result ongoing clock off left none level hard \
//!             style default eval learned egdb none egdbpieces 0 egdbbuild off book none \
//!             diagnosis none";
//! let report = StatusReport::parse(line).unwrap();
//! assert_eq!(report.state, GameState::Person);
//! assert_eq!(report.position.as_deref(), Some("___b/b___/____/p_p_"));
//! assert_eq!(report.to_string(), line);
//! ```

use super::text::printable;
use crate::daemon::egdb_build::BuildState;
use crate::engine::clock::TimeControl;
use crate::play::level::{Level, Style};
use crate::rules::game::Status;
use crate::rules::geometry::BoardSize;
use crate::rules::position::Side;
use std::fmt;

/// Where the game stands and what the daemon waits for: the `state` of a `status` line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameState {
    /// `nogame`: no `newgame` or `position` yet.
    NoGame,
    /// `start`: after `newgame`; the first board tells who moves first.
    Start,
    /// `search`: the bot is searching its move.
    Search,
    /// `bot`: the bot is to move; a board showing `position` starts its search.
    Bot,
    /// `arm`: the bot has answered its move; the daemon waits for the board after it (`expect`).
    Arm,
    /// `person`: the person is to move.
    Person,
    /// `over`: the game is over (`result` says how).
    Over,
}

impl GameState {
    /// Every state.
    pub const ALL: [GameState; 7] = [
        GameState::NoGame,
        GameState::Start,
        GameState::Search,
        GameState::Bot,
        GameState::Arm,
        GameState::Person,
        GameState::Over,
    ];

    /// The protocol word.
    pub fn word(self) -> &'static str {
        match self {
            GameState::NoGame => "nogame",
            GameState::Start => "start",
            GameState::Search => "search",
            GameState::Bot => "bot",
            GameState::Arm => "arm",
            GameState::Person => "person",
            GameState::Over => "over",
        }
    }

    /// Reads a protocol word.
    pub fn from_word(word: &str) -> Option<GameState> {
        Self::ALL.into_iter().find(|s| s.word() == word)
    }
}

/// The reply to `status`: everything the daemon believes about the game, as plain data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusReport {
    /// Where the game stands.
    pub state: GameState,
    /// The game's board size (`None` without a game).
    pub size: Option<BoardSize>,
    /// The side to move in `position` (`None` when not known yet).
    pub side: Option<Side>,
    /// The last position of the game the camera has shown, as board rows (daemon orientation):
    /// the game's current position, or the one before the bot's move while the arm makes it; the
    /// start layout after `newgame`.
    pub position: Option<String>,
    /// The board the daemon waits for: the position after the bot's move while the arm makes it
    /// (state `arm`).
    pub expect: Option<String>,
    /// The last board the camera sent, as the daemon read it (turned round with `rotated`);
    /// `None` before any, or when the last one could not be read.
    pub seen: Option<String>,
    /// Moves played in the game by both sides, each counted once (the bot's answered move too).
    pub plies: usize,
    /// How the game stands (`None` without a game).
    pub result: Option<Status>,
    /// The bot's game clock (`None`: off, the move time applies).
    pub clock: Option<TimeControl>,
    /// Milliseconds left on the bot's clock (`None` with the clock off).
    pub left_ms: Option<u64>,
    /// The playing level.
    pub level: Level,
    /// The playing style.
    pub style: Style,
    /// The evaluation in use (`learned`, `hand` or a weights file).
    pub eval: String,
    /// The endgame database directory in use.
    pub egdb: Option<String>,
    /// Most pieces of the positions the database in use holds on the game's board size (on
    /// `serve --layout`'s size without a game); 0 without one.
    pub egdb_pieces: u32,
    /// What the background build of the database does (`serve --egdb-build`).
    pub egdb_build: BuildState,
    /// The opening book in use (`builtin` or its file; `None`: off).
    pub book: Option<String>,
    /// What the daemon made of the last board when it did not fit the game: its `error` or `wait`
    /// reply, word for word; `None` when it fit (or before any board).
    pub diagnosis: Option<String>,
}

impl Default for StatusReport {
    /// The report without a game: every value empty (`none`, 0) or the default of `serve`.
    fn default() -> Self {
        StatusReport {
            state: GameState::NoGame,
            size: None,
            side: None,
            position: None,
            expect: None,
            seen: None,
            plies: 0,
            result: None,
            clock: None,
            left_ms: None,
            level: Level::default(),
            style: Style::default(),
            eval: crate::engine::eval::DEFAULT_EVAL.into(),
            egdb: None,
            egdb_pieces: 0,
            egdb_build: BuildState::Off,
            book: None,
            diagnosis: None,
        }
    }
}

/// A value as one token: blanks and backslashes escaped, the rest as [`printable`] writes it.
fn token(text: &str) -> String {
    printable(&text.replace('\\', "\\x5c").replace(' ', "\\x20"))
}

/// Reads a token back: `\xNN` and `\u{HEX}` become the characters they name.
fn untoken(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let escaped = if let Some(hex) = rest.strip_prefix("\\x").and_then(|r| r.get(..2)) {
            u32::from_str_radix(hex, 16)
                .ok()
                .and_then(char::from_u32)
                .map(|c| (c, 4))
        } else if let Some(body) = rest.strip_prefix("\\u{") {
            body.find('}').and_then(|end| {
                u32::from_str_radix(&body[..end], 16)
                    .ok()
                    .and_then(char::from_u32)
                    .map(|c| (c, 4 + end))
            })
        } else {
            None
        };
        match escaped {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('\\');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn opt_token(value: &Option<String>) -> String {
    value.as_deref().map_or_else(|| "none".to_string(), token)
}

/// The `result` word of a game status (`ongoing`, `win-b`, `draw-repetition`, ...; `none`).
pub fn result_word(status: Option<Status>) -> &'static str {
    match status {
        None => "none",
        Some(Status::Ongoing) => "ongoing",
        Some(Status::Win { winner: Side::Bot }) => "win-b",
        Some(Status::Win {
            winner: Side::Player,
        }) => "win-p",
        Some(Status::DrawRepetition) => "draw-repetition",
        Some(Status::DrawNoProgress) => "draw-noprogress",
    }
}

fn result_from_word(word: &str) -> Option<Option<Status>> {
    Some(match word {
        "none" => None,
        "ongoing" => Some(Status::Ongoing),
        "win-b" => Some(Status::Win { winner: Side::Bot }),
        "win-p" => Some(Status::Win {
            winner: Side::Player,
        }),
        "draw-repetition" => Some(Status::DrawRepetition),
        "draw-noprogress" => Some(Status::DrawNoProgress),
        _ => return None,
    })
}

impl fmt::Display for StatusReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let size = self
            .size
            .map_or_else(|| "none".to_string(), |s| s.n().to_string());
        let side = self
            .side
            .map_or_else(|| "none".to_string(), |s| s.to_string());
        write!(
            f,
            "status state {} size {size} side {side} position {} expect {} seen {} plies {} \
             result {}",
            self.state.word(),
            opt_token(&self.position),
            opt_token(&self.expect),
            opt_token(&self.seen),
            self.plies,
            result_word(self.result),
        )?;
        match (&self.clock, self.left_ms) {
            (Some(tc), Some(left)) => write!(f, " clock {tc} left {left}")?,
            (Some(tc), None) => write!(f, " clock {tc} left none")?,
            (None, _) => f.write_str(" clock off left none")?,
        }
        write!(
            f,
            " level {} style {} eval {} egdb {} egdbpieces {} egdbbuild {} book {} diagnosis {}",
            self.level,
            self.style,
            token(&self.eval),
            opt_token(&self.egdb),
            self.egdb_pieces,
            self.egdb_build.word(),
            opt_token(&self.book),
            self.diagnosis
                .as_deref()
                .map_or_else(|| "none".to_string(), printable)
        )
    }
}

/// The words of a line with the byte offset where each starts.
fn words_at(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_ascii_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out
}

impl StatusReport {
    /// Reads a `status ...` line. Unknown keys are skipped; `state` must be there, a known key
    /// missing takes its empty value (`none`, 0, the defaults of `serve`).
    pub fn parse(line: &str) -> Option<StatusReport> {
        let words = words_at(line);
        let (_, head) = words.first()?;
        if *head != "status" {
            return None;
        }
        let mut r = StatusReport::default();
        let mut has_state = false;
        let opt = |v: &str| (v != "none").then(|| untoken(v));
        let mut i = 1;
        while i < words.len() {
            let key = words[i].1;
            if key == "diagnosis" {
                let (at, _) = *words.get(i + 1)?;
                let text = line[at..].trim_end();
                r.diagnosis = (text != "none").then(|| text.to_string());
                break;
            }
            let (_, value) = *words.get(i + 1)?;
            match key {
                "state" => {
                    r.state = GameState::from_word(value)?;
                    has_state = true;
                }
                "size" => {
                    r.size = match value {
                        "none" => None,
                        n => Some(BoardSize::from_n(n.parse().ok()?)?),
                    }
                }
                "side" => {
                    r.side = match value {
                        "none" => None,
                        s => Some(Side::from_letter(s)?),
                    }
                }
                "position" => r.position = opt(value),
                "expect" => r.expect = opt(value),
                "seen" => r.seen = opt(value),
                "plies" => r.plies = value.parse().ok()?,
                "result" => r.result = result_from_word(value)?,
                "clock" => {
                    r.clock = match value {
                        "off" => None,
                        tc => Some(tc.parse().ok()?),
                    }
                }
                "left" => {
                    r.left_ms = match value {
                        "none" => None,
                        ms => Some(ms.parse().ok()?),
                    }
                }
                "level" => r.level = Level::from_name(value)?,
                "style" => r.style = Style::from_name(value)?,
                "eval" => r.eval = untoken(value),
                "egdb" => r.egdb = opt(value),
                "egdbpieces" => r.egdb_pieces = value.parse().ok()?,
                "egdbbuild" => r.egdb_build = BuildState::from_word(value)?,
                "book" => r.book = opt(value),
                _ => {}
            }
            i += 2;
        }
        has_state.then_some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_carry_blanks_and_backslashes() {
        for text in [
            "plain",
            "/tmp/my weights.cbev",
            "C:\\weights\\x.cbev",
            "\\x20",
            "tab\there",
            "caf\u{e9}",
        ] {
            let t = token(text);
            assert!(!t.contains([' ', '\t']), "{t}");
            assert!(t.chars().all(|c| (' '..='~').contains(&c)), "{t}");
            assert_eq!(untoken(&t), text);
        }
        // A lone or unknown escape is kept as it is.
        assert_eq!(untoken("a\\qb\\x"), "a\\qb\\x");
    }

    #[test]
    fn a_full_report_prints_and_parses_back() {
        let report = StatusReport {
            state: GameState::Arm,
            size: Some(BoardSize::S8),
            side: Some(Side::Bot),
            position: Some("_b_b/____/____/p_p_".into()),
            expect: Some("___b/b___/____/p_p_".into()),
            seen: None,
            plies: 7,
            result: Some(Status::Ongoing),
            clock: Some("40/600+0.5".parse().unwrap()),
            left_ms: Some(598_000),
            level: Level::Easy,
            style: Style::Aggressive,
            eval: "/tmp/my weights.cbev".into(),
            egdb: Some("/data/egdb".into()),
            egdb_pieces: 5,
            egdb_build: BuildState::Building(6),
            book: None,
            diagnosis: Some(
                "error illegal-transition D6: misread: a piece appeared on D6 with no move".into(),
            ),
        };
        let line = report.to_string();
        assert!(line.contains(" eval /tmp/my\\x20weights.cbev "), "{line}");
        assert!(
            line.contains(" egdb /data/egdb egdbpieces 5 egdbbuild building-6 book none "),
            "{line}"
        );
        assert!(line.ends_with(" diagnosis error illegal-transition D6: misread: a piece appeared on D6 with no move"), "{line}");
        assert_eq!(StatusReport::parse(&line), Some(report));
    }

    #[test]
    fn unknown_keys_are_skipped_and_state_is_needed() {
        let r = StatusReport::parse("status colour blue state over result win-p").unwrap();
        assert_eq!(r.state, GameState::Over);
        assert_eq!(
            r.result,
            Some(Status::Win {
                winner: Side::Player
            })
        );
        assert_eq!(StatusReport::parse("status result win-p"), None);
        assert_eq!(StatusReport::parse("status state sleeping"), None);
        assert_eq!(StatusReport::parse("status state"), None);
        assert_eq!(StatusReport::parse("state person"), None);
    }
}
