//! Opening decks: the standard openings that engine matches start from, as data.
//!
//! The one deck is the ACF 3-move deck of American checkers (`acf3`): 157 openings of three plies
//! ("ballots"), each played twice with colours swapped in a match. Its list is the text file
//! `openings/acf3.txt`, built into the program ([`ACF3_TEXT`]); the file's header says where it
//! comes from and under which licence.
//!
//! **The file**: `#` starts a comment; every other line is one ballot,
//! `NUMBER LIST MOVE MOVE MOVE FEN`: its number in the deck (1, 2, 3, ... in order), its number in
//! the source's 174-opening list, the three moves in standard square numbers (`9-13`, `13x22`),
//! and the position they reach as a FEN. Reading checks, and refuses with a [`DeckError`] naming
//! the line, a line that does not have these fields, numbers out of order, a move that is not
//! legal, a position the moves do not reach, and a position that is already in the deck.
//!
//! **A deck spec** ([`DeckSpec`]) names a deck and a range of its ballots: `acf3` (all),
//! `acf3:1-50`, `acf3:7` (one).
//!
//! ```
//! use checkersbot::rules::openings::{Deck, DeckSpec};
//! use checkersbot::rules::position::Side;
//!
//! let deck = Deck::acf3().unwrap();
//! assert_eq!(deck.ballots().len(), 157);
//! let first = &deck.ballots()[0];
//! assert_eq!((first.number, first.notation.as_str()), (1, "9-13 21-17 5-9"));
//! // Black (the bot, at the top) made the first move; White (p) is to move.
//! assert_eq!(first.position.side(), Side::Player);
//! let some: DeckSpec = "acf3:1-50".parse().unwrap();
//! assert_eq!(some.ballots().unwrap().len(), 50);
//! ```

use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::fen::{parse_fen, FenError};
use crate::rules::geometry::BoardSize;
use crate::rules::pdn::{play_moves, PdnError};
use crate::rules::position::Side;
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

/// The ACF 3-move deck as the program carries it (`openings/acf3.txt`).
pub const ACF3_TEXT: &str = include_str!("../../openings/acf3.txt");

/// The names of the decks the program knows.
pub const DECKS: [&str; 1] = ["acf3"];

/// Plies of a ballot of the 3-move deck.
pub const ACF3_PLIES: usize = 3;

/// One opening of a deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ballot {
    /// Its number in the deck, from 1.
    pub number: usize,
    /// Its number in the list the deck was taken from (the source's own key).
    pub source_number: usize,
    /// The moves as the file writes them, e.g. `9-13 21-17 5-9`.
    pub notation: String,
    /// The moves, from the deck's start ([`Deck::start`]).
    pub moves: Vec<MoveInfo>,
    /// The position the moves reach.
    pub position: AnyPosition,
}

/// A deck of openings, all from one start position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deck {
    name: String,
    start: AnyPosition,
    ballots: Vec<Ballot>,
}

/// Why a deck could not be read, or a deck spec not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeckError {
    /// A line without the fields of a ballot.
    #[error("line {line}: expected NUMBER LIST MOVE MOVE MOVE FEN, found '{text}'")]
    Syntax {
        /// Line number, from 1.
        line: usize,
        /// The line (its first 80 characters).
        text: String,
    },
    /// A ballot number out of order.
    #[error("line {line}: ballot number {found}, expected {expected}")]
    Number {
        /// Line number.
        line: usize,
        /// The number the line has.
        found: String,
        /// The number it should have.
        expected: usize,
    },
    /// A move that is not legal.
    #[error("line {line} (ballot {ballot}): {source}")]
    Move {
        /// Line number.
        line: usize,
        /// Ballot number.
        ballot: usize,
        /// What the move reader said.
        source: PdnError,
    },
    /// A position that cannot be read.
    #[error("line {line} (ballot {ballot}): {source}")]
    Fen {
        /// Line number.
        line: usize,
        /// Ballot number.
        ballot: usize,
        /// What the FEN reader said.
        source: FenError,
    },
    /// The moves do not reach the position the line gives.
    #[error("line {line} (ballot {ballot}): the moves reach {reached}, the line says {listed}")]
    Mismatch {
        /// Line number.
        line: usize,
        /// Ballot number.
        ballot: usize,
        /// The position the moves reach.
        reached: String,
        /// The position the line gives.
        listed: String,
    },
    /// The same position as an earlier ballot.
    #[error("line {line}: ballot {ballot} reaches the position of ballot {earlier}")]
    Duplicate {
        /// Line number.
        line: usize,
        /// Ballot number.
        ballot: usize,
        /// The earlier ballot.
        earlier: usize,
    },
    /// A deck with no ballot.
    #[error("the deck has no ballot")]
    Empty,
    /// A deck name the program does not know.
    #[error("no deck '{0}'; decks: acf3")]
    UnknownDeck(String),
    /// A range that is not `A-B` or `A` with `1 <= A <= B`.
    #[error("'{0}' is not a range of ballots (A-B or A, from 1)")]
    BadRange(String),
    /// A range beyond the deck.
    #[error("ballots {first}-{last}: the deck {deck} has ballots 1-{count}")]
    OutOfRange {
        /// The deck.
        deck: String,
        /// First ballot asked for.
        first: usize,
        /// Last ballot asked for.
        last: usize,
        /// Ballots in the deck.
        count: usize,
    },
}

impl Deck {
    /// The ACF 3-move deck, from the text built into the program.
    pub fn acf3() -> Result<Deck, DeckError> {
        Deck::parse("acf3", ACF3_TEXT)
    }

    /// The deck of this name ([`DECKS`]).
    pub fn named(name: &str) -> Result<Deck, DeckError> {
        match name {
            "acf3" => Deck::acf3(),
            other => Err(DeckError::UnknownDeck(other.to_string())),
        }
    }

    /// Reads a deck of 8x8 openings from the standard start, Black (the bot) to move (see the
    /// module documentation for the format).
    pub fn parse(name: &str, text: &str) -> Result<Deck, DeckError> {
        let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
        let mut ballots: Vec<Ballot> = Vec::new();
        let mut seen: HashMap<AnyPosition, usize> = HashMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let fields: Vec<&str> = content.split_whitespace().collect();
            let [number, source, moves @ .., fen] = fields.as_slice() else {
                return Err(syntax(line, raw));
            };
            if moves.is_empty() {
                return Err(syntax(line, raw));
            }
            let expected = ballots.len() + 1;
            if number.parse::<usize>().ok() != Some(expected) {
                return Err(DeckError::Number {
                    line,
                    found: number.to_string(),
                    expected,
                });
            }
            let source_number = source.parse::<usize>().map_err(|_| syntax(line, raw))?;
            let played = play_moves(&start, moves).map_err(|source| DeckError::Move {
                line,
                ballot: expected,
                source,
            })?;
            let mut position = start;
            for m in &played {
                // Legal: `play_moves` has played them.
                position = position.play(m).unwrap_or(position);
            }
            let (grid, side) = parse_fen(fen, BoardSize::S8).map_err(|source| DeckError::Fen {
                line,
                ballot: expected,
                source,
            })?;
            let listed = AnyPosition::from_grid(&grid, side);
            if listed != position {
                return Err(DeckError::Mismatch {
                    line,
                    ballot: expected,
                    reached: crate::rules::pdn::pdn_fen(&position),
                    listed: fen.to_string(),
                });
            }
            if let Some(&earlier) = seen.get(&position) {
                return Err(DeckError::Duplicate {
                    line,
                    ballot: expected,
                    earlier,
                });
            }
            seen.insert(position, expected);
            ballots.push(Ballot {
                number: expected,
                source_number,
                notation: moves.join(" "),
                moves: played,
                position,
            });
        }
        if ballots.is_empty() {
            return Err(DeckError::Empty);
        }
        Ok(Deck {
            name: name.to_string(),
            start,
            ballots,
        })
    }

    /// The deck's name (`acf3`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The position every ballot starts from.
    pub fn start(&self) -> AnyPosition {
        self.start
    }

    /// Every ballot, in order.
    pub fn ballots(&self) -> &[Ballot] {
        &self.ballots
    }

    /// Ballots `first..=last` (numbers from 1).
    pub fn range(&self, first: usize, last: usize) -> Result<&[Ballot], DeckError> {
        if first == 0 || last < first || last > self.ballots.len() {
            return Err(DeckError::OutOfRange {
                deck: self.name.clone(),
                first,
                last,
                count: self.ballots.len(),
            });
        }
        Ok(&self.ballots[first - 1..last])
    }
}

fn syntax(line: usize, raw: &str) -> DeckError {
    DeckError::Syntax {
        line,
        text: raw.chars().take(80).collect(),
    }
}

/// A deck and a range of its ballots, as the command line names them: `acf3`, `acf3:1-50`,
/// `acf3:7`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeckSpec {
    /// The deck's name.
    pub deck: String,
    /// First and last ballot, from 1 (`None`: the whole deck).
    pub range: Option<(usize, usize)>,
}

impl FromStr for DeckSpec {
    type Err = DeckError;

    fn from_str(text: &str) -> Result<DeckSpec, DeckError> {
        let (name, range) = match text.split_once(':') {
            Some((name, range)) => (name, Some(range)),
            None => (text, None),
        };
        if !DECKS.contains(&name) {
            return Err(DeckError::UnknownDeck(name.to_string()));
        }
        let bad = || DeckError::BadRange(range.unwrap_or("").to_string());
        let range = match range {
            None => None,
            Some(r) => {
                let (a, b) = r.split_once('-').unwrap_or((r, r));
                let a: usize = a.trim().parse().map_err(|_| bad())?;
                let b: usize = b.trim().parse().map_err(|_| bad())?;
                if a == 0 || b < a {
                    return Err(bad());
                }
                Some((a, b))
            }
        };
        Ok(DeckSpec {
            deck: name.to_string(),
            range,
        })
    }
}

impl fmt::Display for DeckSpec {
    /// `acf3` or `acf3:1-50`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.range {
            None => write!(f, "{}", self.deck),
            Some((a, b)) => write!(f, "{}:{a}-{b}", self.deck),
        }
    }
}

impl DeckSpec {
    /// The deck it names.
    pub fn deck(&self) -> Result<Deck, DeckError> {
        Deck::named(&self.deck)
    }

    /// The ballots it names, in order.
    pub fn ballots(&self) -> Result<Vec<Ballot>, DeckError> {
        let deck = self.deck()?;
        let (a, b) = self.range.unwrap_or((1, deck.ballots().len()));
        Ok(deck.range(a, b)?.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_acf3_deck_reads_into_157_distinct_legal_ballots() {
        let deck = Deck::acf3().expect("the deck reads");
        assert_eq!(deck.ballots().len(), 157);
        let start = deck.start();
        let mut positions = std::collections::HashSet::new();
        for (i, b) in deck.ballots().iter().enumerate() {
            assert_eq!(b.number, i + 1);
            assert_eq!(b.moves.len(), ACF3_PLIES);
            // Reached by legal moves from the start.
            let mut pos = start;
            for m in &b.moves {
                assert!(pos.legal_moves().contains(m), "ballot {}: {m}", b.number);
                pos = pos.play(m).expect("legal");
            }
            assert_eq!(pos, b.position);
            assert_eq!(pos.side(), Side::Player, "White to move after three plies");
            assert!(positions.insert(pos), "ballot {} twice", b.number);
        }
        // The source's numbering: ballot 3 is its opening 004, the last its 174.
        assert_eq!(deck.ballots()[2].source_number, 4);
        assert_eq!(deck.ballots()[2].notation, "9-13 22-17 13x22");
        assert_eq!(deck.ballots()[156].source_number, 174);
    }

    #[test]
    fn damaged_decks_are_refused_naming_the_line() {
        let good = "  1 001 9-13 21-17 5-9 W:W17,22-32:B1-4,6-13\n";
        assert_eq!(Deck::parse("t", good).map(|d| d.ballots().len()), Ok(1));
        let e = |text: &str| Deck::parse("t", text).expect_err("refused");
        assert!(matches!(
            e("1 001 9-13\n"),
            DeckError::Syntax { line: 1, .. }
        ));
        assert!(matches!(
            e(&good.replace("  1", "  2")),
            DeckError::Number { expected: 1, .. }
        ));
        assert!(matches!(
            e(&good.replace("5-9", "5-14")),
            DeckError::Move {
                line: 1,
                ballot: 1,
                ..
            }
        ));
        assert!(matches!(
            e(&good.replace("5-9", "6-9")),
            DeckError::Mismatch { line: 1, .. }
        ));
        assert!(matches!(
            e(&good.replace("W:W", "X:W")),
            DeckError::Fen { line: 1, .. }
        ));
        let twice = format!("{good}{}", good.replace("  1", "  2"));
        assert!(matches!(
            e(&twice),
            DeckError::Duplicate {
                line: 2,
                ballot: 2,
                earlier: 1
            }
        ));
        assert_eq!(e("# nothing\n"), DeckError::Empty);
    }

    #[test]
    fn deck_specs_name_ranges() {
        let all: DeckSpec = "acf3".parse().expect("spec");
        assert_eq!(all.range, None);
        assert_eq!(all.ballots().expect("ballots").len(), 157);
        let some: DeckSpec = "acf3:11-20".parse().expect("spec");
        let b = some.ballots().expect("ballots");
        assert_eq!((b.len(), b[0].number, b[9].number), (10, 11, 20));
        assert_eq!(some.to_string(), "acf3:11-20");
        let one: DeckSpec = "acf3:7".parse().expect("spec");
        assert_eq!(one.ballots().expect("one").len(), 1);
        assert!(matches!(
            "acf4".parse::<DeckSpec>(),
            Err(DeckError::UnknownDeck(_))
        ));
        for bad in ["acf3:0-3", "acf3:5-2", "acf3:x", "acf3:"] {
            assert!(
                matches!(bad.parse::<DeckSpec>(), Err(DeckError::BadRange(_))),
                "{bad}"
            );
        }
        let over: DeckSpec = "acf3:150-160".parse().expect("spec");
        assert!(matches!(
            over.ballots(),
            Err(DeckError::OutOfRange { count: 157, .. })
        ));
    }
}
