//! Requests: what the vision system sends ([`Command`]), with the option values of `set`
//! ([`SetOption`]), each parsed from and printed to one line.

use super::errors::clip;
use super::errors::{bad_option, syntax, ErrorCode, ProtocolError};
use super::text::*;
use crate::camera::tracking::AutoNewGame;
use crate::engine::bounds::{DEPTH, HASH_MB, MOVETIME_MS, MULTIPV, NODES, THREADS, TIMELEFT_MS};
use crate::engine::clock::{BadTimeControl, TimeControl};
use crate::play::level::{Level, Style};
use crate::rules::geometry::BoardSize;
use crate::rules::position::Side;
use std::fmt;

/// A request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `hello [TOKEN]`: identify; over TCP with `serve --token-file`, a new connection's first
    /// request, with the shared secret.
    Hello(Option<String>),
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
    /// `moves [SETUP]`: every legal move of a position (the game's current one without a
    /// position), as `legal` lines, then `ok`; answered at once, the game is not touched.
    Moves(Option<Setup>),
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
    /// Node budget of a search; 0 = none.
    Nodes(u64),
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
            "nodes" => SetOption::Nodes(parse_number("nodes", value, &NODES)?),
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
            SetOption::Nodes(v) => write!(f, "nodes {v}"),
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
        // Blank and comment lines get no reply, whatever a comment holds.
        if line.is_empty() || line.starts_with('#') {
            return Ok(None);
        }
        if let Some(c) = line.chars().find(|&c| !is_blank(c) && c.is_whitespace()) {
            return Err(syntax(format!(
                "only spaces and tabs separate words; the line holds {}",
                printable(&c.to_string())
            )));
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
            "hello" => match args {
                [] => Command::Hello(None),
                [token] => Command::Hello(Some(parse_token(token)?)),
                _ => return Err(syntax("usage: hello [TOKEN]")),
            },
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
            "moves" => Command::Moves(match args {
                [] => None,
                // Any position `position` takes; its usage message names `moves`.
                _ => Some(Setup::parse(args).map_err(|e| {
                    if e.message.starts_with("usage:") {
                        syntax(
                            "usage: moves [ROWS SIDE | fen FEN | start SIDE] [moves M1 M2 ...] \
                             | moves pdn TEXT",
                        )
                    } else {
                        e
                    }
                })?),
            }),
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
                        "'{}'; commands: hello ping set options newgame position board moves analyse hint takeback status stop repeat quit",
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
            Command::Hello(None) => f.write_str("hello"),
            Command::Hello(Some(token)) => write!(f, "hello {token}"),
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
            Command::Moves(None) => f.write_str("moves"),
            Command::Moves(Some(setup)) => write!(f, "moves {setup}"),
        }
    }
}
