//! Self-play games kept as text: the compact, lasting form of training data.
//!
//! A data file (`.cbsp`, [`crate::learn::data`]) holds 22 bytes a position and is made again from
//! its seed when it is lost, at the full cost of the games. Games at 100,000 nodes a move cost
//! far more than one working session can give, so they are kept in the repository and the data
//! is made from them instead: each game is written in PDN (8x8), and before each move whose
//! position the run recorded, a comment holds the search score of that position for its side to
//! move, in hundredths of a man (`{12}`). A position recorded at the very end of a game (the
//! run adjudicated it there) has its comment after the last move. The `Result` tag is the label
//! the run gave every position of the game (the winner, or a draw). Such a file is a little
//! smaller than the data file (about 17 bytes a position, 6 compressed, against 22 and 7), and
//! as appended text it is stored by git as the games added, readable by any PDN viewer, and
//! independent of the data file's layout.
//!
//! [`read_games`] turns a file of such games back into exactly the records the run wrote: the
//! same positions, scores, outcomes and plies. Other PDN (without score comments) gives no
//! records. Comments that are not a number are ignored, so a file may carry notes.
//!
//! ```
//! use checkersbot::learn::games::{read_games, write_game};
//! use checkersbot::rules::any_size::AnyPosition;
//! use checkersbot::rules::geometry::BoardSize;
//! use checkersbot::rules::position::Side;
//!
//! let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
//! let m = start.parse_move("C5 D4").unwrap();
//! let text = write_game("selfplay", 1, &start, &[m], &[(0, 12)], None);
//! assert!(text.contains("1. {12} 11-15 1/2-1/2"));
//! let records = read_games(&text).unwrap();
//! assert_eq!((records.len(), records[0].score), (1, 12));
//! ```

use crate::learn::data::{Outcome, Record};
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::geometry::BoardSize;
use crate::rules::pdn::{
    classify, pdn_fen, pdn_move, play_move, tag_pair, GameResult, PdnError, Token, Tokens, Word,
};
use crate::rules::position::Side;
use std::fmt::Write as _;
use thiserror::Error;

/// What is wrong with a file of games.
#[derive(Debug, Error)]
pub enum GamesError {
    /// A game cannot be read.
    #[error("game {game}: {source}")]
    Pdn {
        /// The game's number in the file, from 1.
        game: usize,
        /// What is wrong.
        source: PdnError,
    },
    /// A game has recorded positions but no result to label them with.
    #[error("game {game}: no result (a Result tag or a result after the moves)")]
    NoResult {
        /// The game's number in the file, from 1.
        game: usize,
    },
}

/// Writes one game: `event` and `round` as tags, the moves from `start`, before the move at ply
/// `p` a comment with the score of each `(p, score)` in `scored` (a ply equal to the number of
/// moves puts the comment after the last move), and the result (`winner`, `None` for a draw).
pub fn write_game(
    event: &str,
    round: usize,
    start: &AnyPosition,
    moves: &[MoveInfo],
    scored: &[(usize, i32)],
    winner: Option<Side>,
) -> String {
    let result = match winner {
        Some(w) => GameResult::Win(w),
        None => GameResult::Draw,
    }
    .pdn();
    let mut out = String::new();
    let _ = writeln!(out, "[Event \"{}\"]", event.replace(['"', '\\'], ""));
    let _ = writeln!(out, "[Round \"{round}\"]");
    if *start != AnyPosition::initial(BoardSize::S8, Side::Bot) {
        let _ = writeln!(out, "[SetUp \"1\"]\n[FEN \"{}\"]", pdn_fen(start));
    }
    let _ = writeln!(out, "[Result \"{result}\"]");
    let mut scores = scored.iter().peekable();
    let mut line = String::new();
    let mut push = |out: &mut String, token: &str| {
        if !line.is_empty() && line.len() + token.len() >= 90 {
            let _ = writeln!(out, "{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(token);
    };
    // Move numbers count Black's and White's moves as one, from the side that starts.
    let black_first = start.side() == Side::Bot;
    for ply in 0..=moves.len() {
        let mut tokens = Vec::new();
        if ply < moves.len() {
            let turn = ply + usize::from(!black_first);
            if turn % 2 == 0 {
                tokens.push(format!("{}.", turn / 2 + 1));
            } else if ply == 0 {
                tokens.push("1...".to_string());
            }
        }
        while let Some(&&(p, s)) = scores.peek() {
            if p > ply {
                break;
            }
            if p == ply {
                tokens.push(format!("{{{s}}}"));
            }
            scores.next();
        }
        if let Some(m) = moves.get(ply) {
            tokens.push(pdn_move(m));
        }
        for t in &tokens {
            push(&mut out, t);
        }
    }
    push(&mut out, result);
    let _ = writeln!(out, "{line}\n");
    out
}

/// One game's text split into its parts.
#[derive(Default)]
struct RawGame<'a> {
    fen: Option<&'a str>,
    result: Option<&'a str>,
    /// Moves and score comments in order: `Ok(move)`, `Err(score)`.
    tokens: Vec<Result<&'a str, i32>>,
}

/// Splits a file into games: a tag pair after move text starts the next game.
fn split_games(text: &str) -> Result<Vec<RawGame<'_>>, (usize, PdnError)> {
    let mut games = Vec::new();
    let mut game = RawGame::default();
    for token in Tokens::new(text) {
        match token.map_err(|e| (games.len() + 1, e))? {
            Token::Tag(tag) => {
                if !game.tokens.is_empty() {
                    games.push(std::mem::take(&mut game));
                }
                match tag_pair(tag) {
                    Some((key, value)) if key.eq_ignore_ascii_case("FEN") => game.fen = Some(value),
                    Some((key, value)) if key.eq_ignore_ascii_case("Result") => {
                        game.result = Some(value)
                    }
                    _ => {}
                }
            }
            Token::Comment(c) => {
                if let Ok(score) = c.trim().parse::<i32>() {
                    game.tokens.push(Err(score));
                }
            }
            Token::Word(w) => match classify(w) {
                Word::Result(r) => {
                    game.result.get_or_insert(r);
                }
                Word::Move(m) => game.tokens.push(Ok(m)),
                Word::Skip => {}
            },
        }
    }
    if !game.tokens.is_empty() {
        games.push(game);
    }
    Ok(games)
}

/// The records of every game in `text` (games as [`write_game`] writes them): each position
/// with a score comment, labelled by its game's result.
pub fn read_games(text: &str) -> Result<Vec<Record>, GamesError> {
    let raw = split_games(text).map_err(|(game, source)| GamesError::Pdn { game, source })?;
    let mut records = Vec::new();
    for (i, g) in raw.iter().enumerate() {
        let number = i + 1;
        let err = |source: PdnError| GamesError::Pdn {
            game: number,
            source,
        };
        let mut pos = match g.fen {
            Some(fen) => {
                let (grid, side) =
                    crate::rules::fen::parse_fen(fen, BoardSize::S8).map_err(|e| err(e.into()))?;
                AnyPosition::from_grid(&grid, side)
            }
            None => AnyPosition::initial(BoardSize::S8, Side::Bot),
        };
        let scored = g.tokens.iter().any(|t| t.is_err());
        let winner = g.result.and_then(|r| GameResult::from_pdn(r).winner());
        let winner = match (winner, scored) {
            (Some(w), _) => w,
            (None, false) => continue,
            (None, true) => return Err(GamesError::NoResult { game: number }),
        };
        let mut ply = 0;
        for t in &g.tokens {
            match *t {
                Err(score) => records.push(Record::new(
                    &pos,
                    Outcome::for_side(winner, pos.side()),
                    score,
                    ply,
                )),
                Ok(text) => {
                    (_, pos) = play_move(&pos, text, ply + 1).map_err(err)?;
                    ply += 1;
                }
            }
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some_game(start: AnyPosition, plies: usize) -> Vec<MoveInfo> {
        let mut pos = start;
        let mut moves = Vec::new();
        for i in 0..plies {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[(i * 7) % legal.len()].clone();
            pos = pos.play(&mv).unwrap();
            moves.push(mv);
        }
        moves
    }

    /// Scores before moves, one after the last move, other starts and every result read back as
    /// the records they stand for; several games in one file; prose comments are ignored.
    #[test]
    fn written_games_read_back_as_their_records() {
        let mut text = String::from("{ games kept by a test }\n");
        let mut expected = Vec::new();
        for (round, (side, winner)) in [
            (Side::Bot, Some(Side::Bot)),
            (Side::Player, Some(Side::Player)),
            (Side::Bot, None),
        ]
        .into_iter()
        .enumerate()
        {
            let start = AnyPosition::initial(BoardSize::S8, side);
            let moves = some_game(start, 40);
            let mut positions = vec![start];
            for m in &moves {
                positions.push(positions.last().unwrap().play(m).unwrap());
            }
            let scored: Vec<(usize, i32)> = (0..=moves.len())
                .filter(|p| p % 3 == round % 3 || *p == moves.len())
                .map(|p| (p, p as i32 * 10 - 150 + 5000 * i32::from(p == 7)))
                .collect();
            for &(p, s) in &scored {
                let pos = positions[p];
                let outcome = match winner {
                    None => Outcome::Draw,
                    Some(w) if w == pos.side() => Outcome::Win,
                    Some(_) => Outcome::Loss,
                };
                expected.push(Record::new(&pos, outcome, s, p));
            }
            text += &write_game("t", round + 1, &start, &moves, &scored, winner);
        }
        let records = read_games(&text).unwrap();
        assert_eq!(records, expected, "{text}");
        // The clamp of the data file applies as in Record::new.
        assert!(records.iter().any(|r| r.score == 3000));
    }

    #[test]
    fn bad_games_are_refused_with_their_number() {
        let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
        let moves = some_game(start, 6);
        let good = write_game("t", 1, &start, &moves, &[(2, 5)], None);
        let bad_move = good.replace(&pdn_move(&moves[3]), "1-5");
        let e = read_games(&format!("{good}{bad_move}")).unwrap_err();
        assert!(
            matches!(e, GamesError::Pdn { game: 2, .. }),
            "{e}: {bad_move}"
        );
        let no_result = good
            .replace("[Result \"1/2-1/2\"]\n", "")
            .replace(" 1/2-1/2", "");
        let e = read_games(&no_result).unwrap_err();
        assert!(matches!(e, GamesError::NoResult { game: 1 }), "{e}");
        // A game without scores has no records and needs no result.
        let plain = write_game("t", 1, &start, &moves, &[], None).replace("1/2-1/2", "*");
        assert_eq!(read_games(&plain).unwrap(), Vec::new());
        assert!(read_games("[Event \"x\"").is_err());
    }
}
