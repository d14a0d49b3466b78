//! The Hub protocol (Scan's engine protocol, spoken by pydraughts' `HubEngine` and the tools built
//! on it) for American checkers on 8x8: parsing the host's lines and writing the engine's. The
//! loop that runs searches is `checkersbot hub` (`src/cli/hub.rs`); this module has no I/O.
//!
//! A line is a command word followed by `key=value` pairs (a value with spaces in double quotes),
//! or bare words (`go think`); a quote left open is an error. Text from the host that an error
//! quotes is cut to its first 40 characters and escaped ([`quote`]), so an error line stays short
//! and printable whatever was sent. Positions and moves follow pydraughts' `english` variant:
//!
//! - a position is `pos=` and 33 characters: the side to move (`W` or `B`), then the 32 playable
//!   squares. In it the board is seen from the other side with the colours' names swapped: hub
//!   square `h` is PDN square `33 - h`, a hub `w`/`W` (man/king) is a PDN Black piece (checkersbot's
//!   `b`, the top side that moves first), a hub `b`/`B` a PDN White piece (`p`); `W` to move is
//!   Black (`b`) to move, `B` is White (`p`). `e` is an empty square. So the start is
//!   `Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww`, as pydraughts sends it;
//! - a move is in PDN square numbers: `11-15` for a step, `from x to x captured...` for a capture
//!   (`22x13x18`: from 22 to 13 over 18; a multi-jump lists its start, its end and every captured
//!   square in ascending order, without the landing squares between), as pydraughts writes it.

use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::board::Grid;
use crate::rules::game::Game;
use crate::rules::geometry::{BoardSize, Coord};
use crate::rules::position::{Piece, Side};
use std::time::Duration;

/// The variants the Hub mode plays: American checkers (pydraughts calls it `english`; `american`
/// is read as the same).
pub const VARIANTS: [&str; 2] = ["english", "american"];

/// A Hub line read: the command word and its arguments in order (bare words have no value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HubLine {
    /// The first word.
    pub command: String,
    /// `key=value` pairs and bare words (`("think", None)`), in order.
    pub args: Vec<(String, Option<String>)>,
}

impl HubLine {
    /// Splits `line` into the command and its arguments; `None` for a blank line, an error for a
    /// quote left open.
    pub fn parse(line: &str) -> Result<Option<HubLine>, HubError> {
        let mut words = Vec::new();
        let mut word = String::new();
        let mut in_quotes = false;
        let mut any = false;
        for c in line.trim().chars() {
            match c {
                '"' => {
                    in_quotes = !in_quotes;
                    any = true;
                }
                ' ' | '\t' if !in_quotes => {
                    if any {
                        words.push(std::mem::take(&mut word));
                        any = false;
                    }
                }
                c => {
                    word.push(c);
                    any = true;
                }
            }
        }
        if in_quotes {
            return Err(HubError::UnclosedQuote(quote(line)));
        }
        if any {
            words.push(word);
        }
        let mut it = words.into_iter();
        let Some(command) = it.next() else {
            return Ok(None);
        };
        let args = it
            .map(|w| match w.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (w, None),
            })
            .collect();
        Ok(Some(HubLine { command, args }))
    }

    /// The value of `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Whether the bare word (or key) `word` is among the arguments.
    pub fn has(&self, word: &str) -> bool {
        self.args.iter().any(|(k, _)| k == word)
    }
}

/// A Hub line, position or move that cannot be read. The text quoted is cut and escaped
/// ([`quote`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HubError {
    /// A line with a double quote that is not closed.
    #[error("unclosed quote in {0}")]
    UnclosedQuote(String),
    /// The position text is not 33 characters of `W`/`B` and `wWbBe`.
    #[error("bad position {0}: expected W or B and 32 squares of w, W, b, B or e")]
    BadPosition(String),
    /// A move that is not legal in its position.
    #[error("move {number} {text} is not legal here (legal: {legal})")]
    IllegalMove {
        /// Its place in the list, from 1.
        number: usize,
        /// The text read.
        text: String,
        /// The legal moves, in Hub notation.
        legal: String,
    },
}

/// How many characters of the host's text an error quotes.
pub const QUOTED: usize = 40;

/// `text` as an error quotes it: in single quotes, its first [`QUOTED`] characters (then `...`),
/// every character that is not printable ASCII escaped (`\x1b`, `\u{e9}`) and a double quote
/// written as a single one, so that it cannot end the `message="..."` value.
///
/// ```
/// use checkersbot::hosts::hub::quote;
/// assert_eq!(quote("Wbbb"), "'Wbbb'");
/// assert_eq!(quote("a\u{1b}\"\u{e9}"), "'a\\x1b'\\u{e9}'");
/// assert_eq!(quote(&"x".repeat(1000)).len(), 2 + 40 + 3);
/// ```
pub fn quote(text: &str) -> String {
    let mut out = String::from("'");
    for (i, c) in text.chars().enumerate() {
        if i == QUOTED {
            out.push_str("...");
            break;
        }
        push_escaped(&mut out, c);
    }
    out.push('\'');
    out
}

/// Appends `c` as an error line shows it: printable ASCII as it is (a double quote as a single
/// one), other ASCII as `\xNN`, the rest as `\u{N}`.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '"' => out.push('\''),
        ' '..='~' => out.push(c),
        c if c.is_ascii() => out.push_str(&format!("\\x{:02x}", c as u32)),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

/// Bytes that may not be UTF-8 (the start of a line the framing rejected) as an error quotes
/// them: as [`quote`] does, with every byte outside printable ASCII escaped (`\xff`).
///
/// ```
/// use checkersbot::hosts::hub::quote_bytes;
/// assert_eq!(quote_bytes(b"ab\xff\r"), "'ab\\xff\\x0d'");
/// ```
pub fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::from("'");
    for (i, &b) in bytes.iter().enumerate() {
        if i == QUOTED {
            out.push_str("...");
            break;
        }
        // A byte outside ASCII is shown as a byte, not as the character it may start.
        match b {
            0x80.. => out.push_str(&format!("\\x{b:02x}")),
            b => push_escaped(&mut out, char::from(b)),
        }
    }
    out.push('\'');
    out
}

/// The Hub error line for `message`: `error message="..."`, with any double quote in it written as
/// a single one and any character that is not printable ASCII escaped, so that the line stays one
/// well-formed line.
///
/// ```
/// use checkersbot::hosts::hub::error_line;
/// assert_eq!(error_line("no \"pos\"\n"), "error message=\"no 'pos'\\x0a\"");
/// ```
pub fn error_line(message: &str) -> String {
    let mut out = String::from("error message=\"");
    for c in message.chars() {
        push_escaped(&mut out, c);
    }
    out.push('"');
    out
}

fn coord(hub_square: usize) -> Option<Coord> {
    Coord::from_standard_number(33usize.checked_sub(hub_square)?, 8)
}

/// Reads a Hub position (see the module documentation).
pub fn parse_position(text: &str) -> Result<AnyPosition, HubError> {
    let bad = || HubError::BadPosition(quote(text));
    let chars: Vec<char> = text.chars().collect();
    if chars.len() != 33 {
        return Err(bad());
    }
    let side = match chars[0] {
        'W' | 'w' => Side::Bot,
        'B' | 'b' => Side::Player,
        _ => return Err(bad()),
    };
    let mut grid = Grid::empty(BoardSize::S8);
    for (i, &c) in chars[1..].iter().enumerate() {
        let piece = match c {
            'e' | 'E' | '.' => None,
            'w' => Some(Piece {
                side: Side::Bot,
                king: false,
            }),
            'W' => Some(Piece {
                side: Side::Bot,
                king: true,
            }),
            'b' => Some(Piece {
                side: Side::Player,
                king: false,
            }),
            'B' => Some(Piece {
                side: Side::Player,
                king: true,
            }),
            _ => return Err(bad()),
        };
        grid.set(coord(i + 1).ok_or_else(bad)?, piece);
    }
    if grid.uncrowned_man().is_some() {
        return Err(bad());
    }
    Ok(AnyPosition::from_grid(&grid, side))
}

/// Writes an 8x8 position as a Hub position (the inverse of [`parse_position`]).
pub fn write_position(pos: &AnyPosition) -> String {
    let grid = pos.grid();
    let mut s = String::with_capacity(33);
    s.push(match pos.side() {
        Side::Bot => 'W',
        Side::Player => 'B',
    });
    for h in 1..=32 {
        let piece = coord(h).and_then(|c| grid.get(c));
        s.push(match piece {
            None => 'e',
            Some(Piece {
                side: Side::Bot,
                king,
            }) => {
                if king {
                    'W'
                } else {
                    'w'
                }
            }
            Some(Piece {
                side: Side::Player,
                king,
            }) => {
                if king {
                    'B'
                } else {
                    'b'
                }
            }
        });
    }
    s
}

/// A move in Hub notation: `11-15`, or start, end and the captured squares in ascending order
/// joined by `x`.
pub fn write_move(mv: &MoveInfo) -> String {
    let num = |c: &Coord| c.standard_number(8);
    let (Some(first), Some(last)) = (mv.path.first(), mv.path.last()) else {
        return "0-0".to_string();
    };
    if mv.captured.is_empty() {
        return format!("{}-{}", num(first), num(last));
    }
    let mut captured: Vec<usize> = mv.captured.iter().map(num).collect();
    captured.sort_unstable();
    let mut parts = vec![num(first), num(last)];
    parts.extend(captured);
    parts
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

/// The legal move of `pos` that `text` names (Hub notation; a multi-jump may also list every
/// landing square, PDN style, when that names one move).
pub fn parse_move(pos: &AnyPosition, text: &str) -> Option<MoveInfo> {
    let moves = pos.legal_moves();
    if let Some(m) = moves.iter().find(|m| write_move(m) == text) {
        return Some(m.clone());
    }
    // Hub hosts may list the captures in another order, or a path: compare as sets.
    let nums: Vec<usize> = text
        .split(['-', 'x'])
        .map(|n| n.parse().ok())
        .collect::<Option<Vec<_>>>()?;
    let (from, to) = (*nums.first()?, *nums.get(1)?);
    let mut rest: Vec<usize> = nums[2..].to_vec();
    rest.sort_unstable();
    let candidates: Vec<&MoveInfo> = moves
        .iter()
        .filter(|m| {
            let n = |c: &Coord| c.standard_number(8);
            let mut captured: Vec<usize> = m.captured.iter().map(n).collect();
            captured.sort_unstable();
            m.path.first().map(n) == Some(from)
                && m.path.last().map(n) == Some(to)
                && (rest == captured || rest.is_empty())
        })
        .collect();
    if let [one] = candidates.as_slice() {
        return Some((*one).clone());
    }
    // A PDN path: every square the piece lands on.
    let by_path: Vec<&MoveInfo> = moves
        .iter()
        .filter(|m| {
            m.path
                .iter()
                .map(|c| c.standard_number(8))
                .eq(nums.iter().copied())
        })
        .collect();
    match by_path.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    }
}

/// Plays `moves` (Hub notation, space separated) from `start`: the game, with its history for the
/// draw rules.
pub fn play_moves(start: AnyPosition, moves: &str) -> Result<Game, HubError> {
    let mut game = Game::new(start);
    for (i, text) in moves.split_whitespace().enumerate() {
        let pos = *game.current();
        let played = parse_move(&pos, text).and_then(|m| game.play(&m).copied());
        played.ok_or_else(|| HubError::IllegalMove {
            number: i + 1,
            text: quote(text),
            legal: pos
                .legal_moves()
                .iter()
                .map(write_move)
                .collect::<Vec<_>>()
                .join(" "),
        })?;
    }
    Ok(game)
}

/// The search limits a `level` line sets (times in seconds, as the Hub protocol gives them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Level {
    /// `depth=N`.
    pub depth: Option<u32>,
    /// `nodes=N`.
    pub nodes: Option<u64>,
    /// `move-time=S`: a fixed time a move.
    pub move_time: Option<Duration>,
    /// `time=S`: the time left on the engine's clock before its increment is added.
    pub time: Option<Duration>,
    /// `inc=S`.
    pub inc: Option<Duration>,
    /// `moves=N`: moves to the next time control.
    pub moves: Option<u32>,
    /// `infinite`: no limit.
    pub infinite: bool,
}

fn secs(v: &str) -> Option<Duration> {
    let s: f64 = v.parse().ok()?;
    (0.0..=86_400.0)
        .contains(&s)
        .then(|| Duration::from_secs_f64(s))
}

impl Level {
    /// Reads a `level` line's arguments; an unknown key or a bad value is named in the error.
    pub fn parse(line: &HubLine) -> Result<Level, String> {
        let mut level = Level::default();
        for (key, value) in &line.args {
            let v = value.as_deref().unwrap_or("");
            let bad = || format!("bad level {}", quote(&format!("{key}={v}")));
            match key.as_str() {
                "depth" => {
                    level.depth = Some(v.parse().ok().filter(|d| *d <= 100).ok_or_else(bad)?)
                }
                "nodes" => level.nodes = Some(v.parse().map_err(|_| bad())?),
                "move-time" => level.move_time = Some(secs(v).ok_or_else(bad)?),
                "time" => level.time = Some(secs(v).ok_or_else(bad)?),
                "inc" => level.inc = Some(secs(v).ok_or_else(bad)?),
                "moves" => level.moves = Some(v.parse().ok().filter(|m| *m > 0).ok_or_else(bad)?),
                "infinite" => level.infinite = true,
                _ => return Err(format!("unknown level {}", quote(key))),
            }
        }
        Ok(level)
    }
}

/// A score for an `info` line: the evaluation in men (`0.25`), or, for a proven result in `k`
/// plies, `100 - k/100` (`-100 + k/100` for a loss), which pydraughts reads as a win in `k` plies.
pub fn write_score(score: crate::engine::Score) -> String {
    if let Some(p) = score.plies_to_end() {
        let v = if p >= 0 {
            10_000 - p.min(9_000)
        } else {
            -10_000 + (-p).min(9_000)
        };
        return format!("{:.2}", f64::from(v) / 100.0);
    }
    if let Some(p) = score.egdb_plies() {
        // A database result: far beyond any evaluation, short of a proven distance.
        let v = if p >= 0 { 8_000 } else { -8_000 };
        return format!("{:.2}", f64::from(v) / 100.0);
    }
    format!("{:.2}", f64::from(score.0) / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::initial_grid;

    const START: &str = "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww";

    #[test]
    fn the_start_reads_as_pydraughts_sends_it() {
        let pos = parse_position(START).unwrap();
        assert_eq!(pos.grid(), initial_grid(BoardSize::S8));
        assert_eq!(pos.side(), Side::Bot);
        assert_eq!(write_position(&pos), START);
        let moves: Vec<String> = pos.legal_moves().iter().map(write_move).collect();
        for m in ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"] {
            assert!(moves.contains(&m.to_string()), "{m} in {moves:?}");
        }
    }

    #[test]
    fn after_12_16_the_position_is_as_pydraughts_writes_it() {
        // pydraughts' english board after 12-16: `Bbbbbbbbbbbbbeeeeweeeewwwwwwwwwww`.
        let game = play_moves(parse_position(START).unwrap(), "12-16").unwrap();
        assert_eq!(
            write_position(game.current()),
            "Bbbbbbbbbbbbbeeeeweeeewwwwwwwwwww"
        );
    }

    #[test]
    fn captures_list_start_end_and_captured_squares_in_order() {
        // A double jump for b: 6 over 10 to 15, over 19 to 24 (PDN squares).
        let mut grid = Grid::empty(BoardSize::S8);
        let at = |n| Coord::from_standard_number(n, 8).unwrap();
        let man = |side| Some(Piece { side, king: false });
        grid.set(at(6), man(Side::Bot));
        grid.set(at(10), man(Side::Player));
        grid.set(at(19), man(Side::Player));
        grid.set(at(32), man(Side::Player));
        let pos = AnyPosition::from_grid(&grid, Side::Bot);
        let moves = pos.legal_moves();
        assert_eq!(moves.len(), 1);
        assert_eq!(write_move(&moves[0]), "6x24x10x19");
        assert_eq!(parse_move(&pos, "6x24x19x10"), Some(moves[0].clone()));
        assert_eq!(parse_move(&pos, "6x15x24"), Some(moves[0].clone()));
        assert_eq!(parse_move(&pos, "6-15"), None);
    }

    #[test]
    fn bad_positions_and_moves_are_named() {
        assert!(matches!(
            parse_position("Wbbb"),
            Err(HubError::BadPosition(_))
        ));
        assert!(parse_position(&START.replace('W', "X")).is_err());
        let err = play_moves(parse_position(START).unwrap(), "12-16 12-16").unwrap_err();
        assert!(
            matches!(&err, HubError::IllegalMove { number: 2, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("21-17"), "{err}");
    }

    #[test]
    fn lines_split_into_words_and_quoted_values() {
        let l = HubLine::parse(r#"pos pos=Wbe moves="12-16 21-17""#)
            .unwrap()
            .unwrap();
        assert_eq!(l.command, "pos");
        assert_eq!(l.get("moves"), Some("12-16 21-17"));
        assert!(HubLine::parse("go think").unwrap().unwrap().has("think"));
        assert_eq!(HubLine::parse("   "), Ok(None));
        let open = HubLine::parse(r#"pos moves="12-16"#).unwrap_err();
        assert_eq!(open.to_string(), "unclosed quote in 'pos moves='12-16'");
        assert!(HubLine::parse(r#"pos pos="Wxx"#).is_err());
        let line = |text| HubLine::parse(text).unwrap().unwrap();
        let level = Level::parse(&line("level time=10.5 inc=0.1 moves=40"));
        assert_eq!(
            level,
            Ok(Level {
                time: Some(Duration::from_millis(10_500)),
                inc: Some(Duration::from_millis(100)),
                moves: Some(40),
                ..Level::default()
            })
        );
        assert!(Level::parse(&line("level depth=x")).is_err());
        assert!(Level::parse(&line("level colour=red")).is_err());
        let long = format!("level {}=1", "k".repeat(4000));
        assert!(Level::parse(&line(&long)).unwrap_err().len() < 80);
    }

    #[test]
    fn scores_read_back_as_pydraughts_reads_them() {
        use crate::engine::Score;
        assert_eq!(write_score(Score(25)), "0.25");
        assert_eq!(write_score(Score(-130)), "-1.30");
        // pydraughts: int(float * 100) > 9000 is a win in ceil((10000 - v) / 2) moves.
        let win = write_score(Score(crate::engine::search::WIN - 7));
        let v = (win.parse::<f64>().unwrap() * 100.0).round() as i32;
        assert_eq!(10_000 - v, 7);
    }
}
