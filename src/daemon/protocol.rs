//! The daemon protocol's messages as typed values: [`Command`] (what the vision system sends) and
//! [`Reply`] (what the daemon answers). Both parse from and print to the same text, as specified in
//! `protocol/PROTOCOL.md`; printing then parsing gives the value back.
//!
//! Parsing checks the grammar only (command words, argument counts, numbers, sides, square names);
//! whether a board's rows describe a valid board is checked by the daemon, which knows the camera
//! settings (rotation, colour-only) that affect how rows are read.
//!
//! ```
//! use checkersbot::daemon::protocol::{Command, Reply};
//! use checkersbot::rules::position::Side;
//!
//! let cmd = Command::parse("board _b_b/____/____/p_p_ b").unwrap().unwrap();
//! assert_eq!(cmd, Command::Board { rows: "_b_b/____/____/p_p_".into(), side: Side::Bot });
//! assert_eq!(cmd.to_string(), "board _b_b/____/____/p_p_ b");
//! let reply = Reply::parse("move E5 C3 A1 captures D4 B2 crown").unwrap();
//! assert_eq!(reply.to_string(), "move E5 C3 A1 captures D4 B2 crown");
//! ```

use crate::camera::diagnosis::Stage;
use crate::camera::tracking::AutoNewGame;
use crate::daemon::status::StatusReport;
use crate::engine::bounds::{DEPTH, HASH_MB, MOVETIME_MS, MULTIPV, THREADS, TIMELEFT_MS};
use crate::engine::clock::{BadTimeControl, TimeControl};
use crate::play::level::{Level, Style};
use crate::rules::any_size::MoveInfo;
use crate::rules::game::Status;
use crate::rules::geometry::{parse_coord, BoardSize, Coord};
use crate::rules::position::Side;
use std::fmt;

/// The protocol version reported by `hello`.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest line accepted, in bytes, without its terminator.
pub const MAX_LINE: usize = 4096;

/// The largest board side: square names in replies are read against it.
const MAX_N: usize = 12;

/// A request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `hello`: identify.
    Hello,
    /// `ping [TOKEN]`: answer `pong [TOKEN]` (a barrier: every reply to an earlier request comes
    /// before it).
    Ping(Option<String>),
    /// `stop`: stop the search now.
    Stop,
    /// `quit`: end the daemon.
    Quit,
    /// `repeat`: write the last final reply again (for an arm controller that restarted).
    Repeat,
    /// `set OPTION VALUE`.
    Set(SetOption),
    /// `newgame [LAYOUT]`.
    NewGame(Option<Layout>),
    /// `position ROWS SIDE` or `position fen FEN`.
    Position(Setup),
    /// `board ROWS SIDE`: what the camera sees.
    Board {
        /// The rows joined by `/`, as sent (not yet validated).
        rows: String,
        /// Side to move.
        side: Side,
    },
    /// `options`: list every option (`option ...` lines, then `ok`).
    Options,
    /// `analyse N [ROWS SIDE | fen FEN]`: the best `N` moves of a position (the game's current one
    /// without a position), without touching the game.
    Analyse {
        /// How many moves (lines).
        lines: usize,
        /// `analyse N infinite`: no time or depth limit; it runs until `stop` (or the deepest
        /// depth).
        infinite: bool,
        /// The position, or `None` for the game's current position.
        setup: Option<Setup>,
    },
    /// `hint`: the person's best move in the current game.
    Hint,
    /// `takeback`: take back the person's last move and the bot's reply.
    TakeBack,
    /// `status`: the tracked game and the settings, without changing anything.
    Status,
}

/// The start layout of `newgame`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The standard start of a size.
    Size(BoardSize),
    /// A one-line board (not yet validated).
    Rows(String),
}

/// A position given by `position`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setup {
    /// `position ROWS SIDE`.
    Rows {
        /// The rows joined by `/`.
        rows: String,
        /// Side to move.
        side: Side,
    },
    /// `position fen FEN` (the FEN, not yet validated).
    Fen(String),
    /// `position start SIDE`: the standard start of the `size` setting with `SIDE` to move.
    Start(Side),
    /// `position pdn TEXT`: a PDN game on one line (8x8), set up with its history.
    Pdn(String),
    /// `position ... moves M1 M2 ...`: a position, then moves played from it (the game's history).
    Moves {
        /// Where the moves start (`Rows`, `Fen` or `Start`).
        start: Box<Setup>,
        /// The moves as sent: paths (`C5-D4`, `E5xC3xA1`) or, on 8x8, PDN numbers (`11-15`).
        moves: Vec<String>,
    },
}

impl Setup {
    /// Reads the words after `position` (also used by `analyse`).
    pub fn parse(args: &[&str]) -> Result<Setup, ProtocolError> {
        const USAGE: &str = "usage: position ROWS SIDE | position fen FEN | position start SIDE \
            (each may end with: moves M1 M2 ...) | position pdn TEXT";
        if let ["pdn", text @ ..] = args {
            return if text.is_empty() {
                Err(syntax(USAGE))
            } else {
                Ok(Setup::Pdn(text.join(" ")))
            };
        }
        let (base, moves) = match args.iter().position(|w| *w == "moves") {
            Some(i) => (&args[..i], Some(&args[i + 1..])),
            None => (args, None),
        };
        let start = match base {
            ["fen", fen @ ..] if !fen.is_empty() => Setup::Fen(fen.concat()),
            ["start", side] => Setup::Start(parse_side(side)?),
            [rows, side] if *rows != "fen" && *rows != "start" => Setup::Rows {
                rows: rows.to_string(),
                side: parse_side(side)?,
            },
            _ => return Err(syntax(USAGE)),
        };
        Ok(match moves {
            None => start,
            Some([]) => return Err(syntax("'moves' must be followed by at least one move")),
            Some(list) => Setup::Moves {
                start: Box::new(start),
                moves: list.iter().map(|m| m.to_string()).collect(),
            },
        })
    }
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Setup::Rows { rows, side } => write!(f, "{rows} {side}"),
            Setup::Fen(fen) => write!(f, "fen {fen}"),
            Setup::Start(side) => write!(f, "start {side}"),
            Setup::Pdn(text) => write!(f, "pdn {text}"),
            Setup::Moves { start, moves } => write!(f, "{start} moves {}", moves.join(" ")),
        }
    }
}

/// Which search progress lines to write.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InfoMode {
    /// One line per completed iteration.
    Iterations,
    /// Only the final line of each search.
    Final,
    /// No search lines.
    Off,
}

impl InfoMode {
    /// The protocol word.
    pub fn word(self) -> &'static str {
        match self {
            InfoMode::Iterations => "iterations",
            InfoMode::Final => "final",
            InfoMode::Off => "off",
        }
    }
}

/// `set OPTION VALUE` with the value read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetOption {
    /// Milliseconds per move; 0 = no time limit.
    Movetime(u64),
    /// Depth limit; 0 = none.
    Depth(u32),
    /// Search threads.
    Threads(usize),
    /// Transposition table MiB.
    Hash(usize),
    /// Board size for `newgame` and `position fen`.
    Size(BoardSize),
    /// Strict (reject unexplained boards) or lenient.
    Strict(bool),
    /// The camera cannot tell kings from men.
    ColourOnly(bool),
    /// The camera sees the board rotated 180 degrees.
    Rotated(bool),
    /// When a start position on the board begins a new game without `newgame`.
    AutoNewGame(AutoNewGame),
    /// Which search lines to write.
    Info(InfoMode),
    /// The evaluation: `hand` or a weights file from `checkersbot train`.
    Eval(String),
    /// The endgame database directory, or `off`.
    Egdb(String),
    /// The opening book: `builtin`, `off` or a book file.
    Book(String),
    /// The bot's game clock (`None`: off, the move time applies).
    Clock(Option<TimeControl>),
    /// The time left on the bot's clock, in milliseconds, as the real clock shows it.
    TimeLeft(u64),
    /// Search while the person thinks.
    Ponder(bool),
    /// The playing level: its limits (`movetime`, `depth`) and missteps.
    Level(Level),
    /// The playing style: the evaluation weights.
    Style(Style),
    /// The directory game records are written to, or `off`.
    Record(String),
}

/// A protocol error's code: the second word of an `error` line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// Malformed arguments of a known command.
    Syntax,
    /// Unknown first word.
    UnknownCommand,
    /// Invalid board text.
    BadBoard,
    /// Invalid FEN.
    BadFen,
    /// Unknown option or bad value.
    BadOption,
    /// No legal move explains the board.
    IllegalTransition,
    /// The arm has not completed the bot's move.
    ArmIncomplete,
    /// Line over [`MAX_LINE`] bytes.
    LineTooLong,
    /// Line not UTF-8.
    NotUtf8,
    /// `board` before any game.
    NoGame,
    /// A request that needs the engine while it searches.
    Busy,
    /// A board that differs from a finished game's final position.
    GameOver,
    /// `repeat` before any final reply.
    NothingToRepeat,
    /// A fault inside the daemon (should not happen); the state is unchanged.
    Internal,
    /// `takeback` before the person has moved.
    NothingToTakeBack,
    /// A move of a `position ... moves` list or a PDN game that is not legal there.
    IllegalMove,
    /// A PDN game that cannot be read.
    BadPdn,
    /// `hint` when it is not the person's turn.
    NotPersonsTurn,
    /// Written to a TCP client whose connection another client took over, before it is closed.
    TakenOver,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: [ErrorCode; 19] = [
        ErrorCode::Syntax,
        ErrorCode::UnknownCommand,
        ErrorCode::BadBoard,
        ErrorCode::BadFen,
        ErrorCode::BadOption,
        ErrorCode::IllegalTransition,
        ErrorCode::ArmIncomplete,
        ErrorCode::LineTooLong,
        ErrorCode::NotUtf8,
        ErrorCode::NoGame,
        ErrorCode::Busy,
        ErrorCode::GameOver,
        ErrorCode::NothingToRepeat,
        ErrorCode::Internal,
        ErrorCode::NothingToTakeBack,
        ErrorCode::IllegalMove,
        ErrorCode::BadPdn,
        ErrorCode::NotPersonsTurn,
        ErrorCode::TakenOver,
    ];

    /// The protocol word.
    pub fn word(self) -> &'static str {
        match self {
            ErrorCode::Syntax => "syntax",
            ErrorCode::UnknownCommand => "unknown-command",
            ErrorCode::BadBoard => "bad-board",
            ErrorCode::BadFen => "bad-fen",
            ErrorCode::BadOption => "bad-option",
            ErrorCode::IllegalTransition => "illegal-transition",
            ErrorCode::ArmIncomplete => "arm-incomplete",
            ErrorCode::LineTooLong => "line-too-long",
            ErrorCode::NotUtf8 => "not-utf8",
            ErrorCode::NoGame => "no-game",
            ErrorCode::Busy => "busy",
            ErrorCode::GameOver => "game-over",
            ErrorCode::NothingToRepeat => "nothing-to-repeat",
            ErrorCode::Internal => "internal",
            ErrorCode::NothingToTakeBack => "nothing-to-take-back",
            ErrorCode::IllegalMove => "illegal-move",
            ErrorCode::BadPdn => "bad-pdn",
            ErrorCode::NotPersonsTurn => "not-persons-turn",
            ErrorCode::TakenOver => "taken-over",
        }
    }

    /// Reads a protocol word.
    pub fn from_word(word: &str) -> Option<ErrorCode> {
        Self::ALL.into_iter().find(|c| c.word() == word)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// A request that could not be read: the code and message of its `error` reply.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code} {message}")]
pub struct ProtocolError {
    /// The error code.
    pub code: ErrorCode,
    /// A human-readable explanation (one line).
    pub message: String,
}

impl ProtocolError {
    /// An error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ProtocolError {
            code,
            message: message.into(),
        }
    }

    /// The `error` reply for it.
    pub fn reply(&self) -> Reply {
        Reply::Error {
            code: self.code,
            message: self.message.clone(),
        }
    }
}

fn syntax(msg: impl Into<String>) -> ProtocolError {
    ProtocolError::new(ErrorCode::Syntax, msg)
}

fn bad_option(msg: impl Into<String>) -> ProtocolError {
    ProtocolError::new(ErrorCode::BadOption, msg)
}

/// The characters that separate words: space and tab only.
fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// The longest `ping` token.
pub const MAX_TOKEN: usize = 64;

/// Reads a `ping` token: 1 to [`MAX_TOKEN`] letters, digits, `-`, `_`, `.` or `:`.
fn parse_token(word: &str) -> Result<String, ProtocolError> {
    let ok = (1..=MAX_TOKEN).contains(&word.len())
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b));
    if ok {
        Ok(word.to_string())
    } else {
        Err(syntax(format!(
            "a ping token is 1 to {MAX_TOKEN} letters, digits, '-', '_', '.' or ':', not '{}'",
            clip(word)
        )))
    }
}

fn parse_side(word: &str) -> Result<Side, ProtocolError> {
    Side::from_letter(word)
        .ok_or_else(|| syntax(format!("side must be 'p' or 'b', not '{}'", clip(word))))
}

/// Shortens text quoted in messages so replies stay short.
fn clip(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(MAX).collect();
        s.push_str("...");
        s
    }
}

/// `text` with every character that is not printable ASCII escaped (`\x00`, `\x1b`, `\u{e9}`), so
/// that text quoted from the input cannot put control bytes or non-ASCII into a reply; at most
/// [`MAX_MESSAGE`] bytes (longer text is cut and ends with `...`).
///
/// ```
/// use checkersbot::daemon::protocol::printable;
/// assert_eq!(printable("a\0b\u{1b}[2J \u{e9}"), "a\\x00b\\x1b[2J \\u{e9}");
/// assert_eq!(printable("plain text"), "plain text");
/// ```
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if out.len() > MAX_MESSAGE {
            break;
        }
        match c {
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    if out.len() > MAX_MESSAGE {
        // All ASCII: any byte index is a character boundary.
        out.truncate(MAX_MESSAGE - 3);
        out.push_str("...");
    }
    out
}

/// The longest message an `error` or `wait` reply carries, in bytes, so that every reply line
/// stays within [`MAX_LINE`].
pub const MAX_MESSAGE: usize = 2048;

/// Reads a board size: `8` or `8x8`.
pub fn parse_size(word: &str) -> Option<BoardSize> {
    let n = match word.split_once(['x', 'X']) {
        Some((a, b)) if a == b => a,
        Some(_) => return None,
        None => word,
    };
    n.parse().ok().and_then(BoardSize::from_n)
}

fn parse_on_off(word: &str) -> Option<bool> {
    match word.to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "yes" => Some(true),
        "off" | "false" | "0" | "no" => Some(false),
        _ => None,
    }
}

fn parse_number<T: std::str::FromStr + PartialOrd + fmt::Display>(
    name: &str,
    word: &str,
    range: &std::ops::RangeInclusive<T>,
) -> Result<T, ProtocolError> {
    crate::engine::bounds::parse_in(name, word, range).map_err(bad_option)
}

impl SetOption {
    /// Reads an option name and its value.
    pub fn parse(name: &str, value: &str) -> Result<SetOption, ProtocolError> {
        let on_off = |v: &str| {
            parse_on_off(v)
                .ok_or_else(|| bad_option(format!("{name} must be on or off, not '{}'", clip(v))))
        };
        Ok(match name.to_ascii_lowercase().as_str() {
            "movetime" => SetOption::Movetime(parse_number("movetime", value, &MOVETIME_MS)?),
            "depth" => SetOption::Depth(parse_number("depth", value, &DEPTH)?),
            "threads" => SetOption::Threads(parse_number("threads", value, &THREADS)?),
            "hash" => SetOption::Hash(parse_number("hash", value, &HASH_MB)?),
            "size" | "layout" => SetOption::Size(parse_size(value).ok_or_else(|| {
                bad_option(format!(
                    "size must be 4, 6, 8, 10 or 12, not '{}'",
                    clip(value)
                ))
            })?),
            "strict" => SetOption::Strict(on_off(value)?),
            "lenient" => SetOption::Strict(!on_off(value)?),
            "colouronly" | "coloronly" | "colour-only" | "color-only" => {
                SetOption::ColourOnly(on_off(value)?)
            }
            "rotated" => SetOption::Rotated(on_off(value)?),
            "autonewgame" => {
                SetOption::AutoNewGame(AutoNewGame::from_word(value).ok_or_else(|| {
                    bad_option(format!(
                        "autonewgame must be gameover, always or off, not '{}'",
                        clip(value)
                    ))
                })?)
            }
            "eval" => SetOption::Eval(value.to_string()),
            "egdb" => SetOption::Egdb(value.to_string()),
            "book" => SetOption::Book(value.to_string()),
            "record" => SetOption::Record(value.to_string()),
            "level" => SetOption::Level(Level::from_name(value).ok_or_else(|| {
                bad_option(format!(
                    "level must be easy, medium, hard or max, not '{}'",
                    clip(value)
                ))
            })?),
            "style" => SetOption::Style(Style::from_name(value).ok_or_else(|| {
                bad_option(format!(
                    "style must be default or aggressive, not '{}'",
                    clip(value)
                ))
            })?),
            "info" => SetOption::Info(match value {
                "iterations" => InfoMode::Iterations,
                "final" => InfoMode::Final,
                "off" => InfoMode::Off,
                _ => {
                    return Err(bad_option(format!(
                        "info must be iterations, final or off, not '{}'",
                        clip(value)
                    )))
                }
            }),
            "clock" => SetOption::Clock(match value {
                "off" | "none" | "0" => None,
                tc => Some(
                    tc.parse()
                        .map_err(|e: BadTimeControl| bad_option(e.to_string()))?,
                ),
            }),
            "timeleft" => SetOption::TimeLeft(parse_number("timeleft", value, &TIMELEFT_MS)?),
            "ponder" => SetOption::Ponder(on_off(value)?),
            _ => {
                return Err(bad_option(format!(
                    "unknown option '{}'; send options for the list",
                    clip(name)
                )))
            }
        })
    }
}

impl fmt::Display for SetOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on = |b: bool| if b { "on" } else { "off" };
        match self {
            SetOption::Movetime(v) => write!(f, "movetime {v}"),
            SetOption::Depth(v) => write!(f, "depth {v}"),
            SetOption::Threads(v) => write!(f, "threads {v}"),
            SetOption::Hash(v) => write!(f, "hash {v}"),
            SetOption::Size(s) => write!(f, "size {}", s.n()),
            SetOption::Strict(b) => write!(f, "strict {}", on(*b)),
            SetOption::ColourOnly(b) => write!(f, "colouronly {}", on(*b)),
            SetOption::Rotated(b) => write!(f, "rotated {}", on(*b)),
            SetOption::AutoNewGame(p) => write!(f, "autonewgame {p}"),
            SetOption::Info(m) => write!(f, "info {}", m.word()),
            SetOption::Eval(e) => write!(f, "eval {e}"),
            SetOption::Egdb(e) => write!(f, "egdb {e}"),
            SetOption::Book(b) => write!(f, "book {b}"),
            SetOption::Clock(None) => write!(f, "clock off"),
            SetOption::Clock(Some(tc)) => write!(f, "clock {tc}"),
            SetOption::TimeLeft(ms) => write!(f, "timeleft {ms}"),
            SetOption::Ponder(b) => write!(f, "ponder {}", on(*b)),
            SetOption::Level(l) => write!(f, "level {l}"),
            SetOption::Style(st) => write!(f, "style {st}"),
            SetOption::Record(r) => write!(f, "record {r}"),
        }
    }
}

impl Command {
    /// Reads a request line (without its terminator). `Ok(None)` for a blank or comment line,
    /// which gets no reply.
    pub fn parse(line: &str) -> Result<Option<Command>, ProtocolError> {
        let line = line.trim_matches(is_blank);
        if let Some(c) = line.chars().find(|&c| !is_blank(c) && c.is_whitespace()) {
            return Err(syntax(format!(
                "only spaces and tabs separate words; the line holds {}",
                printable(&c.to_string())
            )));
        }
        if line.is_empty() || line.starts_with('#') {
            return Ok(None);
        }
        let words: Vec<&str> = line.split(is_blank).filter(|w| !w.is_empty()).collect();
        let Some((&head, args)) = words.split_first() else {
            return Ok(None);
        };
        let expect = |n: usize, usage: &str| {
            if args.len() == n {
                Ok(())
            } else {
                Err(syntax(format!("usage: {usage}")))
            }
        };
        let cmd = match head {
            "hello" => {
                expect(0, "hello")?;
                Command::Hello
            }
            "ping" => match args {
                [] => Command::Ping(None),
                [token] => Command::Ping(Some(parse_token(token)?)),
                _ => return Err(syntax("usage: ping [TOKEN]")),
            },
            "stop" => {
                expect(0, "stop")?;
                Command::Stop
            }
            "quit" => {
                expect(0, "quit")?;
                Command::Quit
            }
            "repeat" => {
                expect(0, "repeat")?;
                Command::Repeat
            }
            "set" => match args {
                [name, value] => Command::Set(SetOption::parse(name, value)?),
                _ => return Err(syntax("usage: set OPTION VALUE")),
            },
            "newgame" => match args {
                [] => Command::NewGame(None),
                [layout] => Command::NewGame(Some(match parse_size(layout) {
                    Some(size) => Layout::Size(size),
                    None if layout.contains('/') => Layout::Rows(layout.to_string()),
                    None => {
                        return Err(syntax(format!(
                            "'{}' is neither a size (8 or 8x8) nor a board (rows joined by '/')",
                            clip(layout)
                        )))
                    }
                })),
                _ => return Err(syntax("usage: newgame [SIZE|ROWS]")),
            },
            "position" => Command::Position(Setup::parse(args)?),
            "options" => {
                expect(0, "options")?;
                Command::Options
            }
            "hint" => {
                expect(0, "hint")?;
                Command::Hint
            }
            "takeback" => {
                expect(0, "takeback")?;
                Command::TakeBack
            }
            "status" => {
                expect(0, "status")?;
                Command::Status
            }
            "analyse" | "analyze" => match args {
                [n, rest @ ..] => {
                    let lines = crate::engine::bounds::parse_in("lines", n, &MULTIPV)
                        .map_err(|e| syntax(format!("analyse: {e}")))?;
                    let (infinite, rest) = match rest {
                        ["infinite", rest @ ..] => (true, rest),
                        _ => (false, rest),
                    };
                    let setup = match rest {
                        [] => None,
                        // Analysis has no use for a history: only a position.
                        _ => match Setup::parse(rest)? {
                            s @ (Setup::Rows { .. } | Setup::Fen(_) | Setup::Start(_)) => Some(s),
                            _ => {
                                return Err(syntax(
                                    "usage: analyse N [infinite] [ROWS SIDE | fen FEN | start SIDE]",
                                ))
                            }
                        },
                    };
                    Command::Analyse {
                        lines,
                        infinite,
                        setup,
                    }
                }
                _ => {
                    return Err(syntax(
                        "usage: analyse N [infinite] [ROWS SIDE | fen FEN | start SIDE]",
                    ))
                }
            },
            "board" => match args {
                [rows, side] => Command::Board {
                    rows: rows.to_string(),
                    side: parse_side(side)?,
                },
                _ => return Err(syntax("usage: board ROWS SIDE")),
            },
            _ => {
                return Err(ProtocolError::new(
                    ErrorCode::UnknownCommand,
                    format!(
                        "'{}'; commands: hello ping set options newgame position board analyse hint takeback status stop repeat quit",
                        clip(head)
                    ),
                ))
            }
        };
        Ok(Some(cmd))
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Hello => f.write_str("hello"),
            Command::Ping(None) => f.write_str("ping"),
            Command::Ping(Some(token)) => write!(f, "ping {token}"),
            Command::Stop => f.write_str("stop"),
            Command::Quit => f.write_str("quit"),
            Command::Repeat => f.write_str("repeat"),
            Command::Set(o) => write!(f, "set {o}"),
            Command::NewGame(None) => f.write_str("newgame"),
            Command::NewGame(Some(Layout::Size(s))) => write!(f, "newgame {}", s.n()),
            Command::NewGame(Some(Layout::Rows(r))) => write!(f, "newgame {r}"),
            Command::Position(setup) => write!(f, "position {setup}"),
            Command::Board { rows, side } => write!(f, "board {rows} {side}"),
            Command::Options => f.write_str("options"),
            Command::Analyse {
                lines,
                infinite,
                setup,
            } => {
                write!(f, "analyse {lines}")?;
                if *infinite {
                    f.write_str(" infinite")?;
                }
                match setup {
                    Some(setup) => write!(f, " {setup}"),
                    None => Ok(()),
                }
            }
            Command::Hint => f.write_str("hint"),
            Command::TakeBack => f.write_str("takeback"),
            Command::Status => f.write_str("status"),
        }
    }
}

/// A search score as the protocol prints it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScoreText {
    /// `cp X`: hundredths of a man.
    Cp(i32),
    /// `win K`: a forced win in K plies.
    Win(i32),
    /// `loss K`: a forced loss in K plies.
    Loss(i32),
    /// `dbwin K`: won by the endgame database, K plies to conversion.
    DbWin(i32),
    /// `dbloss K`: lost by the endgame database, K plies to conversion.
    DbLoss(i32),
}

impl ScoreText {
    /// The protocol form of an engine score.
    pub fn of(score: crate::engine::Score) -> ScoreText {
        match (score.plies_to_end(), score.egdb_plies()) {
            (Some(p), _) if p >= 0 => ScoreText::Win(p),
            (Some(p), _) => ScoreText::Loss(-p),
            (None, Some(p)) if p >= 0 => ScoreText::DbWin(p),
            (None, Some(p)) => ScoreText::DbLoss(-p),
            (None, None) => ScoreText::Cp(score.0),
        }
    }
}

impl fmt::Display for ScoreText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScoreText::Cp(v) => write!(f, "cp {v}"),
            ScoreText::Win(p) => write!(f, "win {p}"),
            ScoreText::Loss(p) => write!(f, "loss {p}"),
            ScoreText::DbWin(p) => write!(f, "dbwin {p}"),
            ScoreText::DbLoss(p) => write!(f, "dbloss {p}"),
        }
    }
}

/// Search progress as an `info` line carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    /// Completed depth.
    pub depth: u32,
    /// Score of the best move.
    pub score: ScoreText,
    /// Nodes (left out in replay mode).
    pub nodes: Option<u64>,
    /// Milliseconds (left out in replay mode).
    pub time_ms: Option<u64>,
    /// Nodes per second (left out in replay mode).
    pub nps: Option<u64>,
    /// Principal variation: each move's path.
    pub pv: Vec<Vec<Coord>>,
    /// Positions valued by the endgame database (written only when some were).
    pub egdb: u64,
    /// The move came from the opening book (the word `book`, written only then).
    pub book: bool,
}

impl SearchInfo {
    /// The info of an engine report; `timing` false leaves out nodes, time and nps.
    pub fn of(info: &crate::engine::Info, timing: bool) -> SearchInfo {
        SearchInfo {
            depth: info.depth,
            score: ScoreText::of(info.score),
            nodes: timing.then_some(info.nodes),
            time_ms: timing.then_some(info.time.as_millis() as u64),
            nps: timing.then_some(info.nps),
            pv: info.pv.iter().map(|m| m.path.clone()).collect(),
            egdb: info.egdb_hits,
            book: info.book,
        }
    }
}

/// The type of an option in the `options` list, with its range or choices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionType {
    /// A whole number from `min` to `max`.
    Int {
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
    },
    /// `on` or `off`.
    Bool,
    /// One of these words.
    Choice(Vec<String>),
    /// Free text (a path, or a word such as `off`).
    Text,
}

/// One line of the `options` list: `option NAME type TYPE [min X max Y | choices A,B] default D
/// value V` (the value comes last and runs to the end of the line, so it may hold spaces).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionLine {
    /// The option's name, as `set` takes it.
    pub name: String,
    /// Its type.
    pub kind: OptionType,
    /// Its default in `serve` (without flags).
    pub default: String,
    /// Its value now.
    pub value: String,
}

impl OptionLine {
    /// Reads an `option ...` line.
    pub fn parse(line: &str) -> Option<OptionLine> {
        let (head, value) = line.trim().split_once(" value ")?;
        let words: Vec<&str> = head.split_ascii_whitespace().collect();
        let (kind, rest) = match words.as_slice() {
            ["option", _, "type", "int", "min", a, "max", b, rest @ ..] => (
                OptionType::Int {
                    min: a.parse().ok()?,
                    max: b.parse().ok()?,
                },
                rest,
            ),
            ["option", _, "type", "bool", rest @ ..] => (OptionType::Bool, rest),
            ["option", _, "type", "choice", "choices", list, rest @ ..] => (
                OptionType::Choice(list.split(',').map(str::to_string).collect()),
                rest,
            ),
            ["option", _, "type", "string", rest @ ..] => (OptionType::Text, rest),
            _ => return None,
        };
        let ["default", default] = rest else {
            return None;
        };
        Some(OptionLine {
            name: words[1].to_string(),
            kind,
            default: default.to_string(),
            value: value.to_string(),
        })
    }
}

impl fmt::Display for OptionLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "option {} type ", self.name)?;
        match &self.kind {
            OptionType::Int { min, max } => write!(f, "int min {min} max {max}")?,
            OptionType::Bool => f.write_str("bool")?,
            OptionType::Choice(list) => write!(f, "choice choices {}", list.join(","))?,
            OptionType::Text => f.write_str("string")?,
        }
        write!(
            f,
            " default {} value {}",
            printable(&self.default),
            printable(&self.value)
        )
    }
}

/// The body of an `info` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InfoLine {
    /// `info opponent PATH ...`: the opponent's move inferred from the board.
    Opponent(MoveInfo),
    /// `info accepted ROWS SIDE`: lenient mode took the board as a new position.
    Accepted {
        /// The rows (daemon orientation).
        rows: String,
        /// Side to move.
        side: Side,
    },
    /// `info depth ...`: search progress.
    Search(SearchInfo),
    /// `info newgame`: the start position seen on the board began a new game (`autonewgame`).
    NewGame,
}

/// A reply line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// `hello NAME VERSION protocol N`.
    Hello {
        /// Program name.
        name: String,
        /// Program version.
        version: String,
        /// Protocol version.
        protocol: u32,
    },
    /// `ok`.
    Ok,
    /// `pong [TOKEN]`: the answer to `ping [TOKEN]`, with its token.
    Pong(Option<String>),
    /// `bye`.
    Bye,
    /// `unchanged`: nothing to do, the opponent is to move.
    Unchanged,
    /// `wait CLASS SQUARES: MESSAGE`: a legal move of the person is under way (a piece lifted, a
    /// multi-jump half done, captured pieces not removed, a man not crowned); nothing changed.
    Wait {
        /// How far the move has got, with the squares it names.
        stage: Stage,
        /// What to do, in words.
        message: String,
    },
    /// `move PATH [captures SQUARES] [crown]`.
    Move(MoveInfo),
    /// `gameover RESULT REASON`.
    GameOver(Status),
    /// `info ...` (not a final reply).
    Info(InfoLine),
    /// `option NAME type TYPE [min X max Y | choices A,B,...] default D value V`: one option of
    /// the `options` list (not a final reply; `ok` ends the list).
    Option(OptionLine),
    /// `line K depth D score S pv ...`: the K-th best move of an `analyse` (not a final reply;
    /// `ok` ends the analysis).
    Line {
        /// Rank, from 1.
        rank: usize,
        /// Depth, score (side to move's point of view) and principal variation.
        info: SearchInfo,
    },
    /// `hint PATH [captures SQUARES] [crown]`: the person's best move.
    Hint(MoveInfo),
    /// `expect ROWS SIDE`: after `takeback`, the board the daemon now expects, with the side to
    /// move.
    Expect {
        /// The rows (daemon orientation).
        rows: String,
        /// Side to move.
        side: Side,
    },
    /// `status KEY VALUE ...`: the tracked game and the settings (see [`StatusReport`]).
    Status(Box<StatusReport>),
    /// `error CODE MESSAGE`.
    Error {
        /// The code.
        code: ErrorCode,
        /// The explanation.
        message: String,
    },
}

impl Reply {
    /// Whether this reply ends a request (everything but `info`, `option` and `line`).
    pub fn is_final(&self) -> bool {
        !matches!(self, Reply::Info(_) | Reply::Option(_) | Reply::Line { .. })
    }

    /// Whether the writer may drop this line when too many wait (only `info` lines).
    pub fn is_droppable(&self) -> bool {
        matches!(self, Reply::Info(_))
    }

    /// The `hello` reply of this program.
    pub fn hello() -> Reply {
        Reply::Hello {
            name: "checkersbot".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            protocol: PROTOCOL_VERSION,
        }
    }

    /// Reads a reply line (for arm controllers and tests).
    pub fn parse(line: &str) -> Result<Reply, ProtocolError> {
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        let bad = || syntax(format!("not a reply: '{}'", clip(line)));
        let Some((&head, args)) = words.split_first() else {
            return Err(bad());
        };
        Ok(match (head, args) {
            ("ok", []) => Reply::Ok,
            ("pong", []) => Reply::Pong(None),
            ("pong", [token]) => Reply::Pong(Some(parse_token(token).map_err(|_| bad())?)),
            ("bye", []) => Reply::Bye,
            ("unchanged", []) => Reply::Unchanged,
            ("wait", [class, list, ..]) => {
                let list = list.strip_suffix(':').ok_or_else(bad)?;
                let squares = list
                    .split(',')
                    .map(|c| parse_coord(c, MAX_N))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| bad())?;
                let stage = match (*class, squares.as_slice()) {
                    ("lifted", [c]) => Stage::Lifted(*c),
                    ("jumping", [c]) => Stage::Jumping(*c),
                    ("crown", [c]) => Stage::Crown(*c),
                    ("remove-captured", [_, ..]) => Stage::RemoveCaptured(squares.clone()),
                    _ => return Err(bad()),
                };
                let message = line
                    .split_once(": ")
                    .map(|(_, m)| m.trim().to_string())
                    .unwrap_or_default();
                Reply::Wait { stage, message }
            }
            ("hello", [name, version, "protocol", n]) => Reply::Hello {
                name: name.to_string(),
                version: version.to_string(),
                protocol: n.parse().map_err(|_| bad())?,
            },
            ("move", args) => Reply::Move(parse_move_words(args).ok_or_else(bad)?),
            ("gameover", args) => Reply::GameOver(match args {
                ["win", side, "nomoves"] => Status::Win {
                    winner: Side::from_letter(side).ok_or_else(bad)?,
                },
                ["draw", "repetition"] => Status::DrawRepetition,
                ["draw", "noprogress"] => Status::DrawNoProgress,
                _ => return Err(bad()),
            }),
            ("error", [code, ..]) => {
                let code = ErrorCode::from_word(code).ok_or_else(bad)?;
                let message = line
                    .trim()
                    .split_once(code.word())
                    .map(|(_, m)| m.trim().to_string())
                    .unwrap_or_default();
                Reply::Error { code, message }
            }
            ("info", ["opponent", rest @ ..]) => {
                Reply::Info(InfoLine::Opponent(parse_move_words(rest).ok_or_else(bad)?))
            }
            ("info", ["accepted", rows, side]) => Reply::Info(InfoLine::Accepted {
                rows: rows.to_string(),
                side: Side::from_letter(side).ok_or_else(bad)?,
            }),
            ("info", ["newgame"]) => Reply::Info(InfoLine::NewGame),
            ("info", ["depth", ..]) => {
                Reply::Info(InfoLine::Search(parse_search_info(args).ok_or_else(bad)?))
            }
            ("option", _) => Reply::Option(OptionLine::parse(line).ok_or_else(bad)?),
            ("line", [rank, rest @ ..]) => Reply::Line {
                rank: rank.parse().map_err(|_| bad())?,
                info: parse_search_info(rest).ok_or_else(bad)?,
            },
            ("hint", args) => Reply::Hint(parse_move_words(args).ok_or_else(bad)?),
            ("expect", [rows, side]) => Reply::Expect {
                rows: rows.to_string(),
                side: Side::from_letter(side).ok_or_else(bad)?,
            },
            ("status", _) => Reply::Status(Box::new(StatusReport::parse(line).ok_or_else(bad)?)),
            _ => return Err(bad()),
        })
    }
}

fn parse_move_words(words: &[&str]) -> Option<MoveInfo> {
    let mut path = Vec::new();
    let mut captured = Vec::new();
    let mut crowns = false;
    let mut in_captures = false;
    for (i, w) in words.iter().enumerate() {
        match *w {
            "captures" if !in_captures && !path.is_empty() => in_captures = true,
            "crown" if i == words.len() - 1 => crowns = true,
            _ => {
                let c = parse_coord(w, MAX_N).ok()?;
                if in_captures {
                    captured.push(c);
                } else {
                    path.push(c);
                }
            }
        }
    }
    (path.len() >= 2 && (!in_captures || !captured.is_empty())).then_some(MoveInfo {
        path,
        captured,
        crowns,
    })
}

fn parse_search_info(words: &[&str]) -> Option<SearchInfo> {
    let mut info = SearchInfo {
        depth: 0,
        score: ScoreText::Cp(0),
        nodes: None,
        time_ms: None,
        nps: None,
        pv: Vec::new(),
        egdb: 0,
        book: false,
    };
    let mut i = 0;
    let mut has_depth = false;
    while i < words.len() {
        match (words[i], words.get(i + 1)) {
            ("depth", Some(v)) => {
                info.depth = v.parse().ok()?;
                has_depth = true;
            }
            ("nodes", Some(v)) => info.nodes = Some(v.parse().ok()?),
            ("time", Some(v)) => info.time_ms = Some(v.parse().ok()?),
            ("nps", Some(v)) => info.nps = Some(v.parse().ok()?),
            ("egdb", Some(v)) => info.egdb = v.parse().ok()?,
            ("book", _) => info.book = true,
            ("score", Some(kind)) => {
                let v: i32 = words.get(i + 2)?.parse().ok()?;
                info.score = match *kind {
                    "cp" => ScoreText::Cp(v),
                    "win" => ScoreText::Win(v),
                    "loss" => ScoreText::Loss(v),
                    "dbwin" => ScoreText::DbWin(v),
                    "dbloss" => ScoreText::DbLoss(v),
                    _ => return None,
                };
                i += 1;
            }
            ("pv", _) => {
                for m in &words[i + 1..] {
                    let path = m
                        .split('-')
                        .map(|s| parse_coord(s, MAX_N).ok())
                        .collect::<Option<Vec<_>>>()?;
                    info.pv.push(path);
                }
                break;
            }
            _ => return None,
        }
        i += 2;
    }
    has_depth.then_some(info)
}

fn move_words(f: &mut fmt::Formatter<'_>, m: &MoveInfo) -> fmt::Result {
    f.write_str(&m.described())
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Hello {
                name,
                version,
                protocol,
            } => write!(
                f,
                "hello {} {} protocol {protocol}",
                printable(name),
                printable(version)
            ),
            Reply::Ok => f.write_str("ok"),
            Reply::Pong(None) => f.write_str("pong"),
            Reply::Pong(Some(token)) => write!(f, "pong {token}"),
            Reply::Bye => f.write_str("bye"),
            Reply::Unchanged => f.write_str("unchanged"),
            Reply::Wait { stage, message } => {
                let squares: Vec<String> = stage.squares().iter().map(|c| c.to_string()).collect();
                let message = printable(message);
                write!(f, "wait {} {}: {message}", stage.word(), squares.join(","))
            }
            Reply::Move(m) => {
                f.write_str("move ")?;
                move_words(f, m)
            }
            Reply::GameOver(s) => write!(f, "gameover {s}"),
            Reply::Info(InfoLine::Opponent(m)) => {
                f.write_str("info opponent ")?;
                move_words(f, m)
            }
            Reply::Info(InfoLine::Accepted { rows, side }) => {
                write!(f, "info accepted {} {side}", printable(rows))
            }
            Reply::Info(InfoLine::NewGame) => f.write_str("info newgame"),
            Reply::Info(InfoLine::Search(i)) => {
                f.write_str("info ")?;
                search_words(f, i)
            }
            Reply::Option(o) => write!(f, "{o}"),
            Reply::Line { rank, info } => {
                write!(f, "line {rank} ")?;
                search_words(f, info)
            }
            Reply::Hint(m) => {
                f.write_str("hint ")?;
                move_words(f, m)
            }
            Reply::Expect { rows, side } => write!(f, "expect {} {side}", printable(rows)),
            Reply::Status(report) => write!(f, "{report}"),
            Reply::Error { code, message } => {
                // One line of printable ASCII whatever the message holds.
                write!(f, "error {code} {}", printable(message))
            }
        }
    }
}

fn search_words(f: &mut fmt::Formatter<'_>, i: &SearchInfo) -> fmt::Result {
    {
        {
            write!(f, "depth {} score {}", i.depth, i.score)?;
            if let Some(n) = i.nodes {
                write!(f, " nodes {n}")?;
            }
            if let Some(t) = i.time_ms {
                write!(f, " time {t}")?;
            }
            if let Some(n) = i.nps {
                write!(f, " nps {n}")?;
            }
            if i.egdb > 0 {
                write!(f, " egdb {}", i.egdb)?;
            }
            if i.book {
                f.write_str(" book")?;
            }
            f.write_str(" pv")?;
            for m in &i.pv {
                let s: Vec<String> = m.iter().map(|c| c.to_string()).collect();
                write!(f, " {}", s.join("-"))?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_round_trip() {
        for line in [
            "hello",
            "ping",
            "ping 7f3a-1",
            "stop",
            "quit",
            "set movetime 250",
            "set depth 6",
            "set threads 2",
            "set hash 32",
            "set size 10",
            "set strict off",
            "set colouronly on",
            "set rotated on",
            "set info final",
            "repeat",
            "newgame",
            "newgame 8",
            "newgame _b_b/____/____/p_p_",
            "position _b_b/____/____/p_p_ p",
            "position fen B:W21,22:B1,K2",
            "board _b_b/____/____/p_p_ b",
            "set level easy",
            "set style aggressive",
            "set record /tmp/games",
            "set record off",
            "options",
            "hint",
            "takeback",
            "status",
            "analyse 3",
            "analyse 1 _b_b/____/____/p_p_ p",
            "analyse 2 fen B:W21,22:B1,K2",
            "analyse 2 start b",
            "analyse 3 infinite",
            "analyse 1 infinite start b",
            "position start p",
            "position start b moves 11-15 23-19",
            "position _b_b/____/____/p_p_ b moves A1-B2 D2-C1",
            "position fen W:W21,22:B1,2 moves 22-18 1-5",
            "position pdn [FEN \"W:W21,22:B1,2\"] 1. 22-18 1-5 *",
        ] {
            let cmd = Command::parse(line).unwrap().unwrap();
            assert_eq!(cmd.to_string(), line);
            assert_eq!(Command::parse(&cmd.to_string()).unwrap().unwrap(), cmd);
        }
        assert_eq!(Command::parse("  # note").unwrap(), None);
        assert_eq!(Command::parse("").unwrap(), None);
        assert_eq!(
            Command::parse("newgame 8x8").unwrap(),
            Some(Command::NewGame(Some(Layout::Size(BoardSize::S8))))
        );
        assert_eq!(
            Command::parse("position fen W:W21, 22:B1").unwrap(),
            Some(Command::Position(Setup::Fen("W:W21,22:B1".into())))
        );
    }

    #[test]
    fn bad_commands_get_their_codes() {
        let code = |l: &str| Command::parse(l).unwrap_err().code;
        assert_eq!(code("jump"), ErrorCode::UnknownCommand);
        assert_eq!(code("ping now later"), ErrorCode::Syntax);
        assert_eq!(code("ping a/b"), ErrorCode::Syntax);
        for blank in ["\u{b}", "\u{c}", "\u{a0}", "\u{3000}"] {
            assert_eq!(code(blank), ErrorCode::Syntax, "{blank:?}");
            assert_eq!(
                code(&format!("ping{blank}x")),
                ErrorCode::Syntax,
                "{blank:?}"
            );
        }
        assert_eq!(Command::parse(" \t ").unwrap(), None);
        assert_eq!(
            Command::parse("\tping\t tok ").unwrap(),
            Some(Command::Ping(Some("tok".into())))
        );
        assert_eq!(code("board _b_b/____/____/p_p_"), ErrorCode::Syntax);
        assert_eq!(code("board _b_b/____/____/p_p_ x"), ErrorCode::Syntax);
        assert_eq!(code("set movetime soon"), ErrorCode::BadOption);
        assert_eq!(code("set threads 0"), ErrorCode::BadOption);
        assert_eq!(code("set colour blue"), ErrorCode::BadOption);
        assert_eq!(code("set size 7"), ErrorCode::BadOption);
        assert_eq!(code("newgame 7"), ErrorCode::Syntax);
        assert_eq!(code("position fen"), ErrorCode::Syntax);
        assert_eq!(code("position start b moves"), ErrorCode::Syntax);
        assert_eq!(code("position pdn"), ErrorCode::Syntax);
        assert_eq!(code("analyse"), ErrorCode::Syntax);
        assert_eq!(code("analyse 0"), ErrorCode::Syntax);
        assert_eq!(code("analyse 21"), ErrorCode::Syntax);
        assert_eq!(code("analyse 2 start b moves 11-15"), ErrorCode::Syntax);
        assert_eq!(code("hint now"), ErrorCode::Syntax);
        assert_eq!(code("status now"), ErrorCode::Syntax);
        assert_eq!(code("set level expert"), ErrorCode::BadOption);
        assert_eq!(code("set style wild"), ErrorCode::BadOption);
    }

    #[test]
    fn replies_round_trip() {
        for line in [
            "hello checkersbot 0.1.0 protocol 1",
            "ok",
            "pong",
            "pong 7f3a-1",
            "bye",
            "unchanged",
            "move C1 D2",
            "move E5 C3 A1 captures D4 B2",
            "move F2 H4 captures G3 crown",
            "move G1 H0 crown",
            "gameover win b nomoves",
            "gameover win p nomoves",
            "gameover draw repetition",
            "gameover draw noprogress",
            "info opponent F2 E3",
            "info accepted _b_b/____/____/p_p_ p",
            "info depth 4 score cp -12 pv C1-D2 F2-E3",
            "info depth 9 score win 7 nodes 1234 time 12 nps 100000 pv E5-C3-A1",
            "error illegal-transition E3,F4: no legal move by p explains this board",
            "option movetime type int min 0 max 3600000 default 1000 value 250",
            "option strict type bool default on value off",
            "option level type choice choices easy,medium,hard,max default hard value easy",
            "option record type string default off value /tmp/my games",
            "line 1 depth 6 score cp 12 pv C1-D2 F2-E3",
            "line 2 depth 6 score loss 4 pv C3-D4",
            "hint F2 E3",
            "hint E3 C5 captures D4",
            "expect _b_b/____/____/p_p_ p",
            "error nothing-to-take-back the person has not moved in this game",
            "status state nogame size none side none position none expect none seen none plies 0 \
             result none clock off left none level hard style default eval learned egdb none \
             book none diagnosis none",
        ] {
            let r = Reply::parse(line).unwrap();
            assert_eq!(r.to_string(), line);
        }
        assert!(Reply::parse("move C1").is_err());
        assert!(Reply::parse("move C1 D2 captures").is_err());
        assert!(Reply::parse("error nonsense x").is_err());
        assert!(Reply::Ok.is_final());
        assert!(!Reply::parse("info opponent F2 E3").unwrap().is_final());
        assert!(!Reply::parse("line 1 depth 1 score cp 0 pv C1-D2")
            .unwrap()
            .is_final());
        assert!(
            !Reply::parse("option hash type int min 1 max 4096 default 16 value 16")
                .unwrap()
                .is_final()
        );
        assert!(Reply::parse("hint F2 E3").unwrap().is_final());
    }

    #[test]
    fn error_codes_have_distinct_words() {
        for c in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_word(c.word()), Some(c));
        }
    }
}
