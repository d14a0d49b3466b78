//! Replies: what the daemon answers ([`Reply`]): moves, `info` lines, analysis lines, option
//! lines, errors and the `status` line, each printed to and parsed from one line.

use super::errors::clip;
use super::errors::{syntax, ErrorCode, ProtocolError};
use super::status::StatusReport;
use super::text::*;
use crate::camera::diagnosis::Stage;
use crate::rules::any_size::MoveInfo;
use crate::rules::game::Status;
use crate::rules::geometry::{parse_coord, Coord};
use crate::rules::position::Side;
use std::fmt;

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
    /// `info line K depth ...`: the K-th best move at a depth an `analyse N infinite` has
    /// completed (score from the point of view of the side to move in the analysed position).
    Line {
        /// Rank, from 1.
        rank: usize,
        /// Depth, score and principal variation.
        info: SearchInfo,
    },
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
    /// `legal PATH [captures SQUARES] [crown]`: one legal move of a `moves` request (not a final
    /// reply; `ok` ends the list).
    Legal(MoveInfo),
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
    /// Whether this reply ends a request (everything but `info`, `option`, `line` and `legal`).
    pub fn is_final(&self) -> bool {
        !matches!(
            self,
            Reply::Info(_) | Reply::Option(_) | Reply::Line { .. } | Reply::Legal(_)
        )
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
            ("info", ["line", rank, rest @ ..]) => Reply::Info(InfoLine::Line {
                rank: rank.parse().map_err(|_| bad())?,
                info: parse_search_info(rest).ok_or_else(bad)?,
            }),
            ("info", ["depth", ..]) => {
                Reply::Info(InfoLine::Search(parse_search_info(args).ok_or_else(bad)?))
            }
            ("option", _) => Reply::Option(OptionLine::parse(line).ok_or_else(bad)?),
            ("line", [rank, rest @ ..]) => Reply::Line {
                rank: rank.parse().map_err(|_| bad())?,
                info: parse_search_info(rest).ok_or_else(bad)?,
            },
            ("hint", args) => Reply::Hint(parse_move_words(args).ok_or_else(bad)?),
            ("legal", args) => Reply::Legal(parse_move_words(args).ok_or_else(bad)?),
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
            // A flag, not a key with a value.
            ("book", _) => {
                info.book = true;
                i += 1;
                continue;
            }
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
            Reply::Info(InfoLine::Line { rank, info }) => {
                write!(f, "info line {rank} ")?;
                search_words(f, info)
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
            Reply::Legal(m) => {
                f.write_str("legal ")?;
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

impl ProtocolError {
    /// The `error` reply for it.
    pub fn reply(&self) -> Reply {
        Reply::Error {
            code: self.code,
            message: self.message.clone(),
        }
    }
}
