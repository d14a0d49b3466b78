//! Game records. On 8x8 a game is written in PDN (Portable Draughts Notation), the draughts
//! world's game-record format: tag pairs, then the moves in standard square numbers 1-32 counted from
//! the top left (`11-15` for a step, `22x15` or `15x22x29` for captures). In the PDN convention Black
//! moves first from the standard start; here Black is the bot's side (`b`, at the top, squares 1-12)
//! and White the player's side (`p`). A game that does not start from the standard position with
//! Black to move gets `[SetUp "1"]` and a `[FEN "B:W21,K22:B1,2"]` tag. Results follow PDN:
//! `1-0` White won, `0-1` Black won, `1/2-1/2` drawn, `*` unfinished.
//!
//! Other sizes have no standard numbering, so their games are written as a plain path list: `#`
//! header lines, then one ply per line with the side's letter and the path in coordinate notation.
//!
//! ```
//! use checkersbot::rules::any_size::AnyPosition;
//! use checkersbot::rules::geometry::BoardSize;
//! use checkersbot::rules::pdn::{write_game, GameResult, RecordInfo};
//! use checkersbot::rules::position::Side;
//!
//! let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
//! let m1 = start.parse_move("C5 D4").unwrap();
//! let text = write_game(&RecordInfo::new("test", 1, "bot", "player"), &start, &[m1], GameResult::Unfinished);
//! assert!(text.contains("1. 11-15 *"));
//! ```

use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::board::initial_grid;
use crate::rules::geometry::{BoardSize, Coord};
use crate::rules::position::Side;
use std::fmt::Write as _;

/// The result of a recorded game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// This side won.
    Win(Side),
    /// Drawn.
    Draw,
    /// Not finished.
    Unfinished,
}

impl GameResult {
    /// The result a PDN result token stands for (`1-0`/`2-0` White won, `0-1`/`0-2` Black won,
    /// `1/2-1/2`/`1-1` drawn); `Unfinished` for `*` and anything else.
    pub fn from_pdn(token: &str) -> GameResult {
        match token {
            "1-0" | "2-0" => GameResult::Win(Side::Player),
            "0-1" | "0-2" => GameResult::Win(Side::Bot),
            "1/2-1/2" | "1-1" => GameResult::Draw,
            _ => GameResult::Unfinished,
        }
    }

    /// The side that won a finished game (`Some(None)`: drawn; `None`: unfinished).
    pub fn winner(self) -> Option<Option<Side>> {
        match self {
            GameResult::Win(s) => Some(Some(s)),
            GameResult::Draw => Some(None),
            GameResult::Unfinished => None,
        }
    }

    /// The PDN result token (`1-0` White = player won, `0-1` Black = bot won).
    pub fn pdn(self) -> &'static str {
        match self {
            GameResult::Win(Side::Player) => "1-0",
            GameResult::Win(Side::Bot) => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unfinished => "*",
        }
    }
}

/// The tags of a record besides the position and the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordInfo {
    /// Event name.
    pub event: String,
    /// Round (game number).
    pub round: usize,
    /// Who played the bot's side (`b`, PDN Black).
    pub black: String,
    /// Who played the player's side (`p`, PDN White).
    pub white: String,
    /// A closing comment, e.g. why the game ended (empty for none).
    pub comment: String,
}

impl RecordInfo {
    /// Tags with no comment.
    pub fn new(event: &str, round: usize, black: &str, white: &str) -> RecordInfo {
        RecordInfo {
            event: event.to_string(),
            round,
            black: black.to_string(),
            white: white.to_string(),
            comment: String::new(),
        }
    }
}

/// The PDN square number of a coordinate on 8x8.
fn number(c: Coord) -> usize {
    c.standard_number(8)
}

/// A move in PDN: `11-15`, or every landing square joined by `x` for a capture.
pub fn pdn_move(mv: &MoveInfo) -> String {
    let sep = if mv.captured.is_empty() { "-" } else { "x" };
    mv.path
        .iter()
        .map(|&c| number(c).to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

/// The PDN FEN of an 8x8 position, e.g. `B:W21,22,K23:B1,2`.
pub fn pdn_fen(pos: &AnyPosition) -> String {
    let grid = pos.grid();
    let list = |side: Side| {
        grid.playable()
            .filter_map(|c| {
                let p = grid.get(c)?;
                (p.side == side).then(|| format!("{}{}", if p.king { "K" } else { "" }, number(c)))
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let turn = match pos.side() {
        Side::Bot => 'B',
        Side::Player => 'W',
    };
    format!("{turn}:W{}:B{}", list(Side::Player), list(Side::Bot))
}

/// Writes one game: PDN on 8x8, a plain path list on other sizes.
pub fn write_game(
    info: &RecordInfo,
    start: &AnyPosition,
    moves: &[MoveInfo],
    result: GameResult,
) -> String {
    if start.size() == BoardSize::S8 {
        write_pdn(info, start, moves, result)
    } else {
        write_paths(info, start, moves, result)
    }
}

fn write_pdn(
    info: &RecordInfo,
    start: &AnyPosition,
    moves: &[MoveInfo],
    result: GameResult,
) -> String {
    let mut out = String::new();
    let tag = |out: &mut String, k: &str, v: &str| {
        let v = v.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(out, "[{k} \"{v}\"]");
    };
    tag(&mut out, "Event", &info.event);
    tag(&mut out, "Site", "?");
    tag(&mut out, "Date", "????.??.??");
    tag(&mut out, "Round", &info.round.to_string());
    tag(&mut out, "Black", &info.black);
    tag(&mut out, "White", &info.white);
    tag(&mut out, "Result", result.pdn());
    tag(&mut out, "GameType", "21");
    let standard = start.grid() == initial_grid(BoardSize::S8) && start.side() == Side::Bot;
    if !standard {
        tag(&mut out, "SetUp", "1");
        tag(&mut out, "FEN", &pdn_fen(start));
    }
    out.push('\n');
    // Move text: numbered pairs, each opening with the move of the side that moved first (Black from
    // the standard start; White when a set-up position has White to move, as draughts programs read
    // it: `1. 22-18 11-15 2. ...`).
    let mut tokens = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        // A move number stays on the line of its move.
        if i % 2 == 0 {
            tokens.push(format!("{}. {}", i / 2 + 1, pdn_move(m)));
        } else {
            tokens.push(pdn_move(m));
        }
    }
    if !info.comment.is_empty() {
        tokens.push(format!("{{{}}}", info.comment.replace('}', ")")));
    }
    tokens.push(result.pdn().to_string());
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

fn write_paths(
    info: &RecordInfo,
    start: &AnyPosition,
    moves: &[MoveInfo],
    result: GameResult,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Event: {}", info.event);
    let _ = writeln!(out, "# Round: {}", info.round);
    let _ = writeln!(out, "# b (top): {}", info.black);
    let _ = writeln!(out, "# p (bottom): {}", info.white);
    let _ = writeln!(
        out,
        "# Start: {} ({} to move)",
        start.to_line(),
        start.side()
    );
    let res = match result {
        GameResult::Win(s) => format!("{s} wins"),
        GameResult::Draw => "draw".to_string(),
        GameResult::Unfinished => "unfinished".to_string(),
    };
    if info.comment.is_empty() {
        let _ = writeln!(out, "# Result: {res}");
    } else {
        let _ = writeln!(out, "# Result: {res} ({})", info.comment);
    }
    let mut side = start.side();
    for (i, m) in moves.iter().enumerate() {
        let _ = writeln!(out, "{}. {} {}", i + 1, side, m.notation());
        side = side.opponent();
    }
    out.push('\n');
    out
}

/// Why a PDN game or a move list could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PdnError {
    /// The `FEN` tag cannot be read.
    #[error("FEN tag: {0}")]
    Fen(#[from] crate::rules::fen::FenError),
    /// A tag pair or comment is not closed.
    #[error("unclosed {0}")]
    Unclosed(&'static str),
    /// A token that is neither a move, a move number, a comment nor a result.
    #[error("'{0}' is not a move")]
    Token(String),
    /// A move that is not legal in the position it is played in.
    #[error("move {number} '{text}' is not legal there (legal: {legal})")]
    Illegal {
        /// The ply number, from 1.
        number: usize,
        /// The move as written.
        text: String,
        /// The legal moves there, in the notation the text was read in.
        legal: String,
    },
}

/// Reads one move against the position it is played in: a path in coordinates (`C5-D4`,
/// `C5 D4` is not one token, `E5xC3xA1`, as [`AnyPosition::parse_move`] reads them) or, on 8x8, in
/// PDN square numbers (`11-15`, `22x15`, `15x22x29`, a capture also by its first and last squares
/// `15x29` when that is unambiguous).
pub fn parse_any_move(pos: &AnyPosition, text: &str) -> Option<MoveInfo> {
    if pos.size() == BoardSize::S8 && text.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        let legal = pos.legal_moves();
        if let Some(m) = legal.iter().find(|m| pdn_move(m) == text) {
            return Some(m.clone());
        }
        let nums: Vec<&str> = text.split(['x', 'X', '-']).collect();
        let (Some(first), Some(last)) = (nums.first(), nums.last()) else {
            return None;
        };
        let ends: Vec<&MoveInfo> = legal
            .iter()
            .filter(|m| {
                let p: Vec<String> = m.path.iter().map(|&c| number(c).to_string()).collect();
                p.first().map(String::as_str) == Some(*first)
                    && p.last().map(String::as_str) == Some(*last)
            })
            .collect();
        return match ends.as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        };
    }
    pos.parse_move(text).ok()
}

/// Plays `moves` (as [`parse_any_move`] reads them) from `start`.
pub fn play_moves(start: &AnyPosition, moves: &[&str]) -> Result<Vec<MoveInfo>, PdnError> {
    let mut pos = *start;
    let mut out = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let (mv, next) = play_move(&pos, text, i + 1)?;
        out.push(mv);
        pos = next;
    }
    Ok(out)
}

/// Plays one move (as [`parse_any_move`] reads it), ply `number` of its game: the move and the
/// position after it, or [`PdnError::Illegal`] with the legal moves in the text's notation.
pub(crate) fn play_move(
    pos: &AnyPosition,
    text: &str,
    number: usize,
) -> Result<(MoveInfo, AnyPosition), PdnError> {
    if let Some(played) = parse_any_move(pos, text).and_then(|m| Some((m.clone(), pos.play(&m)?))) {
        return Ok(played);
    }
    let numbers =
        pos.size() == BoardSize::S8 && text.chars().next().is_some_and(|c| c.is_ascii_digit());
    let legal: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| {
            if numbers {
                pdn_move(m)
            } else {
                join_dash(&m.path)
            }
        })
        .collect();
    Err(PdnError::Illegal {
        number,
        text: text.chars().take(40).collect(),
        legal: if legal.is_empty() {
            "none".into()
        } else {
            legal.join(" ")
        },
    })
}

fn join_dash(path: &[Coord]) -> String {
    path.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join("-")
}

/// Reads one 8x8 PDN game (as [`write_game`] writes it, or as other programs do): tag pairs (only
/// `FEN` is used: the start, else the standard start with Black, the bot, to move), then the move
/// text; move numbers (`1.`, `1...`), comments (`{...}`), NAGs (`$1`), `!`/`?` marks and the result
/// are skipped. Returns the start and the moves.
///
/// ```
/// use checkersbot::rules::pdn::read_game;
/// let (start, moves) = read_game(r#"[FEN "W:W21,22:B1,2"] 1. 22-18 1-5 *"#).unwrap();
/// assert_eq!(start.side().letter(), 'p');
/// assert_eq!(moves.len(), 2);
/// ```
pub fn read_game(text: &str) -> Result<(AnyPosition, Vec<MoveInfo>), PdnError> {
    let mut raw = RawGame::default();
    for token in Tokens::new(text) {
        raw.take(token?);
    }
    let game = raw.play()?;
    Ok((game.start, game.moves))
}

/// One game of a PDN file, as [`read_games`] reads it.
#[derive(Clone, Debug)]
pub struct PdnGame {
    /// Its tag pairs in the order written (key, value without quotes).
    pub tags: Vec<(String, String)>,
    /// The start: the `FEN` tag's position, else the standard start with Black to move.
    pub start: AnyPosition,
    /// The moves played from the start.
    pub moves: Vec<MoveInfo>,
    /// The result: the `Result` tag's, else the one after the moves (`Unfinished` for `*`, for a
    /// token this reader does not know, or for none).
    pub result: GameResult,
}

impl PdnGame {
    /// The value of tag `key` (compared without regard to case).
    pub fn tag(&self, key: &str) -> Option<&str> {
        find_tag(&self.tags, key)
    }
}

/// The value of tag `key` among `tags` (keys compared without regard to case).
fn find_tag<'t, S: AsRef<str>>(tags: &'t [(S, S)], key: &str) -> Option<&'t str> {
    tags.iter()
        .find(|(k, _)| k.as_ref().eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_ref())
}

/// Reads every game of an 8x8 PDN file, as [`read_game`] reads one: a tag pair after move text
/// starts the next game. A game that cannot be read is an error naming its number (from 1).
///
/// ```
/// use checkersbot::rules::pdn::{read_games, GameResult};
/// let text = "[Black \"a\"]\n[Result \"0-1\"]\n1. 11-15 *\n\n[Black \"b\"]\n1. 9-13 21-17 1/2-1/2\n";
/// let games = read_games(text).unwrap();
/// assert_eq!(games.len(), 2);
/// assert_eq!((games[0].tag("black"), games[0].moves.len()), (Some("a"), 1));
/// assert_eq!((games[1].result, games[1].moves.len()), (GameResult::Draw, 2));
/// ```
pub fn read_games(text: &str) -> Result<Vec<PdnGame>, (usize, PdnError)> {
    let mut raws = vec![RawGame::default()];
    for token in Tokens::new(text) {
        let token = token.map_err(|e| (raws.len(), e))?;
        let last = raws.len() - 1;
        if matches!(token, Token::Tag(_)) && !raws[last].words.is_empty() {
            raws.push(RawGame::default());
        }
        let last = raws.len() - 1;
        raws[last].take(token);
    }
    raws.into_iter()
        .filter(|r| !r.words.is_empty() || !r.tags.is_empty())
        .enumerate()
        .map(|(i, r)| r.play().map_err(|e| (i + 1, e)))
        .collect()
}

/// One game's tags and move text, as read.
#[derive(Default)]
struct RawGame<'a> {
    tags: Vec<(&'a str, &'a str)>,
    words: Vec<&'a str>,
}

impl<'a> RawGame<'a> {
    fn take(&mut self, token: Token<'a>) {
        match token {
            Token::Tag(tag) => self.tags.extend(tag_pair(tag)),
            Token::Word(w) => self.words.push(w),
            Token::Comment(_) => {}
        }
    }

    /// The game: its start from the `FEN` tag, its moves played, its result.
    fn play(&self) -> Result<PdnGame, PdnError> {
        let start = match find_tag(&self.tags, "FEN") {
            Some(fen) => {
                let (grid, side) = crate::rules::fen::parse_fen(fen, BoardSize::S8)?;
                AnyPosition::from_grid(&grid, side)
            }
            None => AnyPosition::initial(BoardSize::S8, Side::Bot),
        };
        let mut moves = Vec::new();
        let mut after = None;
        for &w in &self.words {
            match classify(w) {
                Word::Move(t) => {
                    if !t
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == '-' || c == 'x' || c == 'X')
                    {
                        return Err(PdnError::Token(t.chars().take(40).collect()));
                    }
                    moves.push(t);
                }
                Word::Result(r) => after = after.or(Some(r)),
                Word::Skip => {}
            }
        }
        let result = find_tag(&self.tags, "Result")
            .or(after)
            .map_or(GameResult::Unfinished, GameResult::from_pdn);
        Ok(PdnGame {
            tags: self
                .tags
                .iter()
                .map(|&(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            moves: play_moves(&start, &moves)?,
            start,
            result,
        })
    }
}

/// A piece of PDN text, as [`Tokens`] reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    /// A tag pair's text, between `[` and `]` (see [`tag_pair`]).
    Tag(&'a str),
    /// A comment's text, between `{` and `}`.
    Comment(&'a str),
    /// Anything else up to white space, a comment or a tag: see [`classify`].
    Word(&'a str),
}

/// The tokens of PDN text in order; an unclosed tag pair or comment is an error.
pub(crate) struct Tokens<'a> {
    rest: &'a str,
}

impl<'a> Tokens<'a> {
    /// The tokens of `text`.
    pub(crate) fn new(text: &'a str) -> Tokens<'a> {
        Tokens { rest: text }
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Result<Token<'a>, PdnError>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.rest.trim_start();
        let c = rest.chars().next()?;
        let (close, what) = match c {
            '[' => (']', "tag pair"),
            '{' => ('}', "comment"),
            _ => {
                let end = rest
                    .find(|c: char| c.is_whitespace() || c == '{' || c == '[')
                    .unwrap_or(rest.len());
                self.rest = &rest[end..];
                return Some(Ok(Token::Word(&rest[..end])));
            }
        };
        let Some(end) = rest.find(close) else {
            self.rest = "";
            return Some(Err(PdnError::Unclosed(what)));
        };
        self.rest = &rest[end + 1..];
        let inner = &rest[1..end];
        Some(Ok(if c == '{' {
            Token::Comment(inner)
        } else {
            Token::Tag(inner)
        }))
    }
}

/// A tag pair's name and value (without its quotes), from the text of a [`Token::Tag`]; `None`
/// for a tag without a value.
pub(crate) fn tag_pair(tag: &str) -> Option<(&str, &str)> {
    let (key, value) = tag.trim().split_once(char::is_whitespace)?;
    Some((key, value.trim().trim_matches('"')))
}

/// What a [`Token::Word`] of move text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Word<'a> {
    /// A move (not checked), its move number and `!`/`?` marks taken off.
    Move(&'a str),
    /// A game result: `1-0`, `0-1`, `1/2-1/2`, `*` or their doubled forms.
    Result(&'a str),
    /// A move number alone or a NAG (`$1`).
    Skip,
}

/// Classifies a word of move text: a move number may be glued to its move (`1.11-15`).
pub(crate) fn classify(word: &str) -> Word<'_> {
    let t = word.trim_end_matches(['!', '?']);
    let t = match t.find('.') {
        Some(i) if t[..i].chars().all(|c| c.is_ascii_digit()) => t[i..].trim_start_matches('.'),
        _ => t,
    };
    if ["1-0", "0-1", "1/2-1/2", "*", "2-0", "0-2", "1-1"].contains(&t) {
        Word::Result(t)
    } else if t.is_empty() || t.starts_with('$') {
        Word::Skip
    } else {
        Word::Move(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Grid;

    #[test]
    fn written_games_read_back() {
        for (side, first) in [(Side::Bot, "C5 D4"), (Side::Player, "F4 E5")] {
            let start = AnyPosition::initial(BoardSize::S8, side);
            let mut pos = start;
            let mut moves = Vec::new();
            for _ in 0..12 {
                let legal = pos.legal_moves();
                let mv = if moves.is_empty() {
                    pos.parse_move(first).unwrap()
                } else {
                    legal[moves.len() % legal.len()].clone()
                };
                pos = pos.play(&mv).unwrap();
                moves.push(mv);
            }
            let text = write_game(
                &RecordInfo::new("t", 1, "b", "p"),
                &start,
                &moves,
                GameResult::Unfinished,
            );
            let (s2, m2) = read_game(&text).unwrap();
            assert_eq!(s2, start);
            assert_eq!(m2, moves, "{text}");
        }
    }

    #[test]
    fn bad_games_are_refused_with_the_reason() {
        assert!(matches!(
            read_game("1. 11-15 11-15"),
            Err(PdnError::Illegal { number: 2, .. })
        ));
        assert!(matches!(
            read_game("1. 11-15 hello"),
            Err(PdnError::Token(_))
        ));
        assert!(matches!(
            read_game("[FEN \"X:W1\"] 1. 11-15"),
            Err(PdnError::Fen(_))
        ));
        assert!(matches!(
            read_game("{no end 1. 11-15"),
            Err(PdnError::Unclosed(_))
        ));
        let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
        let m = play_moves(&start, &["C5-D4", "23-19"]).unwrap();
        assert_eq!(m.len(), 2);
    }

    fn play(start: AnyPosition, moves: &[&str]) -> Vec<MoveInfo> {
        let mut pos = start;
        let mut out = Vec::new();
        for m in moves {
            let mv = pos.parse_move(m).unwrap();
            pos = pos.play(&mv).unwrap();
            out.push(mv);
        }
        out
    }

    #[test]
    fn pdn_of_the_standard_opening() {
        let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
        // 11-15 is C5 D4, 23-19 is F4 E5.
        let moves = play(start, &["C5 D4", "F4 E5"]);
        let text = write_game(
            &RecordInfo::new("unit", 4, "bot", "person"),
            &start,
            &moves,
            GameResult::Draw,
        );
        assert!(text.starts_with("[Event \"unit\"]\n"), "{text}");
        assert!(text.contains("[Round \"4\"]\n[Black \"bot\"]\n[White \"person\"]\n[Result \"1/2-1/2\"]\n[GameType \"21\"]\n"), "{text}");
        assert!(!text.contains("FEN"));
        assert!(text.contains("\n1. 11-15 23-19 1/2-1/2\n"), "{text}");
    }

    #[test]
    fn pdn_capture_chain_and_setup() {
        // A bot man on C5 takes D4 and F4; the player has a king on H2.
        let grid = Grid::parse_line(
            "________/________/_____b__/____p___/________/____p___/________/__P_____",
        )
        .unwrap();
        let start = AnyPosition::from_grid(&grid, Side::Bot);
        let legal = start.legal_moves();
        assert_eq!(legal.len(), 1);
        assert_eq!(legal[0].notation(), "C5 E3 G5");
        let text = write_game(
            &RecordInfo::new("unit", 1, "a", "b"),
            &start,
            &legal,
            GameResult::Win(Side::Bot),
        );
        // C5 = 11, E3 = 18, G5 = 27.
        assert!(
            text.contains("[SetUp \"1\"]\n[FEN \"B:W15,23,K30:B11\"]\n"),
            "{text}"
        );
        assert!(text.contains("\n1. 11x18x27 0-1\n"), "{text}");
        // White to move: its move opens the numbered pair.
        let w = AnyPosition::from_grid(&grid, Side::Player);
        // The player's man on D4 must take C5 (square 15 to 8).
        let m = w.parse_move("D4 B6").unwrap();
        let text = write_game(
            &RecordInfo::new("unit", 1, "a", "b"),
            &w,
            &[m],
            GameResult::Unfinished,
        );
        assert!(text.contains("[FEN \"W:W15,23,K30:B11\"]"), "{text}");
        assert!(text.contains("\n1. 15x8 *\n"), "{text}");
    }

    #[test]
    fn other_sizes_get_a_path_list() {
        let start = AnyPosition::initial(BoardSize::S10, Side::Player);
        let moves = play(start, &["G1 F2", "D0 E1"]);
        let mut info = RecordInfo::new("ten", 2, "bot", "person");
        info.comment = "ply cap".into();
        let text = write_game(&info, &start, &moves, GameResult::Draw);
        assert!(
            text.contains("# Result: draw (ply cap)\n1. p G1 F2\n2. b D0 E1\n"),
            "{text}"
        );
    }
}
