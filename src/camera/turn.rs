//! How a camera's picture can be turned from what the daemon expects: the three turns, a board's
//! rows turned as text, and the orientation hint's data and words (what a turned board would be,
//! and the fix). [`super::orientation`] finds the hint; [`super::diagnosis`] carries it.
//!
//! ```
//! use checkersbot::camera::turn::{reorient, Turn};
//! assert_eq!(reorient("_b_b/____/____/p_p_", Turn::Rotated), "_p_p/____/____/b_b_");
//! assert_eq!(reorient("_b_b/____/____/p_p_", Turn::Mirrored), "b_b_/____/____/_p_p");
//! assert_eq!(reorient("_b_b/____/____/p_p_", Turn::Flipped), "p_p_/____/____/_b_b");
//! ```

use std::fmt;

/// A way the camera's picture can be turned from what the daemon expects.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Turn {
    /// Turned by 180 degrees (the camera on the other side of the table).
    Rotated,
    /// Mirrored left to right (columns run the wrong way).
    Mirrored,
    /// Flipped top to bottom (rows run the wrong way).
    Flipped,
}

impl Turn {
    /// Every turn, in the order they are tried.
    pub const ALL: [Turn; 3] = [Turn::Rotated, Turn::Mirrored, Turn::Flipped];

    fn words(self) -> &'static str {
        match self {
            Turn::Rotated => "turned by 180 degrees",
            Turn::Mirrored => "mirrored left to right",
            Turn::Flipped => "flipped top to bottom",
        }
    }

    /// What to do, `rotated` being the daemon's `rotated` setting.
    fn fix(self, rotated: bool) -> &'static str {
        match (self, rotated) {
            (Turn::Rotated, false) => {
                "the camera looks from the bot's side of the table: send set rotated on \
                 (or start serve with --rotated)"
            }
            (Turn::Rotated, true) => {
                "the camera looks from the person's side of the table, but rotated is on: \
                 send set rotated off"
            }
            (Turn::Mirrored, _) => {
                "the camera's picture is mirrored (column 0 must be on the left): mirror the \
                 rows in the vision system"
            }
            (Turn::Flipped, _) => {
                "the camera's picture is upside down (row A, the bot's back row, must come \
                 first): flip the rows in the vision system"
            }
        }
    }
}

/// The one-line board `rows` turned as `turn` says (row by row, as text; rows of unequal length
/// are turned as they are).
pub fn reorient(rows: &str, turn: Turn) -> String {
    let mut lines: Vec<String> = rows.split('/').map(str::to_string).collect();
    if matches!(turn, Turn::Rotated | Turn::Mirrored) {
        for l in &mut lines {
            *l = l.chars().rev().collect();
        }
    }
    if matches!(turn, Turn::Rotated | Turn::Flipped) {
        lines.reverse();
    }
    lines.join("/")
}

/// What a turned board would be.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fit {
    /// The start position of a new game.
    Start,
    /// The position the daemon expects.
    Expected,
    /// A legal move of the person from the position expected.
    LegalMove,
    /// A move under way (the person's or the arm's).
    UnderWay,
    /// Only a valid board (it fits nothing in the game).
    ValidBoard,
}

impl Fit {
    fn words(self) -> &'static str {
        match self {
            Fit::Start => "the board is the start position",
            Fit::Expected => "the board is the position the daemon expects",
            Fit::LegalMove => "the board is a legal move from the position the daemon expects",
            Fit::UnderWay => "the board is a move under way from the position the daemon expects",
            Fit::ValidBoard => "it would be a valid board",
        }
    }
}

/// The orientation help for a board: the turns under which it reads right, and what it then is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    /// The turns (one when the board fits the game; one or more when it would only be valid).
    pub turns: Vec<Turn>,
    /// What the board is under the first turn.
    pub fit: Fit,
    /// The daemon's `rotated` setting, which the fix depends on.
    pub rotated: bool,
}

impl Hint {
    /// Whether the board fits the game under the turn (not only a valid board).
    pub fn fits(&self) -> bool {
        self.fit != Fit::ValidBoard
    }
}

impl fmt::Display for Hint {
    /// `turned by 180 degrees the board is the start position: the camera looks from ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what: Vec<&str> = self.turns.iter().map(|t| t.words()).collect();
        let fixes: Vec<&str> = self.turns.iter().map(|t| t.fix(self.rotated)).collect();
        if self.fits() {
            write!(
                f,
                "{} {}: {}",
                what.join(" or "),
                self.fit.words(),
                fixes.join("; or ")
            )
        } else {
            write!(
                f,
                "{} {}: if {}",
                what.join(" or "),
                self.fit.words(),
                fixes.join("; or if ")
            )
        }
    }
}
