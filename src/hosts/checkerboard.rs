//! The CheckerBoard engine API (Martin Fierz's draughts GUI; Cake, KingsRow, GuiNN and Simple
//! Checkers implement it) for American checkers on 8x8: its board, its move and its commands as
//! plain data, with no I/O and no global state. The shared library that exports `getmove` and
//! `enginecommand` is the crate in `checkerboard/` (a cdylib must be a crate of its own); it keeps
//! the engine between calls and does the unsafe part, and reads and writes through this module.
//!
//! **The board** (`board[x][y]`, as pydraughts lays it out for CheckerBoard engines): `x` is the
//! column and `y` the row, with Black (checkersbot's `b`, the side that moves first, on squares
//! 1-12) on rows `y` 0 to 2 and moving towards `y` 7; `board[x][y]` is checkersbot's square on row
//! `y` (from the top), column `7 - x`. Values: [`WHITE`] 1, [`BLACK`] 2, plus [`MAN`] 4 or
//! [`KING`] 8; 0 is empty. The side to move is [`BLACK`] or [`WHITE`].
//!
//! ```
//! use checkersbot::hosts::checkerboard::{read_board, write_board, BLACK, MAN};
//! use checkersbot::rules::any_size::AnyPosition;
//! use checkersbot::rules::geometry::BoardSize;
//! use checkersbot::rules::position::Side;
//!
//! let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
//! let mut board = [[0; 8]; 8];
//! write_board(&start, &mut board);
//! assert_eq!(board[6][0], BLACK + MAN); // PDN square 1, checkersbot's A1
//! assert_eq!(read_board(&board, BLACK).unwrap().grid(), start.grid());
//! ```

use crate::engine::{bounds, Limits, Score};
use crate::play::level::Level;
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::board::Grid;
use crate::rules::geometry::{BoardSize, Coord};
use crate::rules::position::{Piece, Side};
use std::ffi::c_int;
use std::time::Duration;

/// White (checkersbot's `p`, the bottom side): a colour, and a piece's colour bits.
pub const WHITE: c_int = 1;
/// Black: checkersbot's `b`, the side that moves first.
pub const BLACK: c_int = 2;
/// A man (added to the colour).
pub const MAN: c_int = 4;
/// A king (added to the colour).
pub const KING: c_int = 8;
/// `getmove`'s result: a draw.
pub const DRAW: c_int = 0;
/// `getmove`'s result: the side to move wins.
pub const WIN: c_int = 1;
/// `getmove`'s result: the side to move loses.
pub const LOSS: c_int = 2;
/// `getmove`'s result: not known (also the answer to a call that is refused).
pub const UNKNOWN: c_int = 3;

/// The longest search `getmove` runs, whatever `maxtime` asks: an hour.
pub const MAX_SECONDS: f64 = 3600.0;

/// A square: column and row as CheckerBoard numbers them.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Coor {
    /// Column.
    pub x: c_int,
    /// Row.
    pub y: c_int,
}

/// A move as CheckerBoard reads it (`struct CBmove`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CbMove {
    /// Pieces captured.
    pub jumps: c_int,
    /// The piece after the move (a man that crowns becomes a king).
    pub newpiece: c_int,
    /// The piece before the move.
    pub oldpiece: c_int,
    /// Start square.
    pub from: Coor,
    /// Last square.
    pub to: Coor,
    /// Every square of the path from the start.
    pub path: [Coor; 12],
    /// The captured squares.
    pub del: [Coor; 12],
    /// The captured pieces.
    pub delpiece: [c_int; 12],
}

/// The CheckerBoard square of checkersbot's coordinate.
pub fn to_coor(c: Coord) -> Coor {
    Coor {
        x: 7 - c_int::from(c.col),
        y: c_int::from(c.row),
    }
}

fn piece_code(p: Piece) -> c_int {
    let colour = match p.side {
        Side::Bot => BLACK,
        Side::Player => WHITE,
    };
    colour + if p.king { KING } else { MAN }
}

/// Reads a CheckerBoard board (`board[x][y]`) with `color` to move; `None` for a value that is no
/// piece, a piece on a light square, a man on its crowning row, or a colour that is neither side.
pub fn read_board(board: &[[c_int; 8]; 8], color: c_int) -> Option<AnyPosition> {
    let side = match color {
        BLACK => Side::Bot,
        WHITE => Side::Player,
        _ => return None,
    };
    let mut grid = Grid::empty(BoardSize::S8);
    for (x, column) in board.iter().enumerate() {
        for (y, &v) in column.iter().enumerate() {
            let c = Coord::new(y as u8, 7 - x as u8);
            let piece = match v {
                0 => None,
                v if v == BLACK + MAN => Some(Piece {
                    side: Side::Bot,
                    king: false,
                }),
                v if v == BLACK + KING => Some(Piece {
                    side: Side::Bot,
                    king: true,
                }),
                v if v == WHITE + MAN => Some(Piece {
                    side: Side::Player,
                    king: false,
                }),
                v if v == WHITE + KING => Some(Piece {
                    side: Side::Player,
                    king: true,
                }),
                _ => return None,
            };
            if piece.is_some() {
                // Playable squares only.
                if (c.row + c.col).is_multiple_of(2) {
                    return None;
                }
                grid.set(c, piece);
            }
        }
    }
    if grid.uncrowned_man().is_some() {
        return None;
    }
    Some(AnyPosition::from_grid(&grid, side))
}

/// Writes a position into a CheckerBoard board.
pub fn write_board(pos: &AnyPosition, board: &mut [[c_int; 8]; 8]) {
    let grid = pos.grid();
    for (x, column) in board.iter_mut().enumerate() {
        for (y, v) in column.iter_mut().enumerate() {
            let c = Coord::new(y as u8, 7 - x as u8);
            *v = grid.get(c).map_or(0, piece_code);
        }
    }
}

/// The CheckerBoard move of `mv`, played from `pos`.
pub fn cb_move(pos: &AnyPosition, mv: &MoveInfo) -> CbMove {
    let grid = pos.grid();
    let mut out = CbMove::default();
    let Some(&from) = mv.path.first() else {
        return out;
    };
    let old = grid.get(from).map_or(0, piece_code);
    out.oldpiece = old;
    out.newpiece = if mv.crowns { old - MAN + KING } else { old };
    out.from = to_coor(from);
    out.to = to_coor(*mv.path.last().unwrap_or(&from));
    for (slot, c) in out.path.iter_mut().zip(&mv.path) {
        *slot = to_coor(*c);
    }
    for ((slot, piece), c) in out
        .del
        .iter_mut()
        .zip(out.delpiece.iter_mut())
        .zip(&mv.captured)
    {
        *slot = to_coor(*c);
        *piece = grid.get(*c).map_or(0, piece_code);
    }
    out.jumps = mv.captured.len().min(12) as c_int;
    out
}

/// `getmove`'s result for a search's score from the mover's side.
pub fn result_of(score: Score) -> c_int {
    match score.plies_to_end().or(score.egdb_plies()) {
        Some(p) if p >= 0 => WIN,
        Some(_) => LOSS,
        None => UNKNOWN,
    }
}

/// A `maxtime` that gives no search time: zero, negative, NaN or infinite.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("maxtime must be a number of seconds above 0, not {0}; no move made")]
pub struct BadMaxTime(pub f64);

/// The search limits of a `getmove` call: `maxtime` seconds (at most [`MAX_SECONDS`]), capped by
/// a level if one was set. A `maxtime` of 0 or less, NaN or infinity is refused: no guess of what
/// the host meant.
///
/// ```
/// use checkersbot::hosts::checkerboard::limits_for;
/// use std::time::Duration;
/// assert_eq!(limits_for(0.5, None).unwrap().movetime, Some(Duration::from_millis(500)));
/// assert!(limits_for(0.0, None).is_err());
/// assert!(limits_for(f64::NAN, None).is_err());
/// ```
pub fn limits_for(maxtime: f64, level: Option<Level>) -> Result<Limits, BadMaxTime> {
    if !(maxtime.is_finite() && maxtime > 0.0) {
        return Err(BadMaxTime(maxtime));
    }
    let mut limits = Limits {
        movetime: Some(Duration::from_secs_f64(maxtime.min(MAX_SECONDS))),
        depth: None,
        nodes: None,
    };
    if let Some(level) = level {
        let l = level.limits();
        limits.depth = l.depth;
        if let Some(t) = l.movetime {
            limits.movetime = limits.movetime.map(|m| m.min(t));
        }
    }
    Ok(limits)
}

/// An `enginecommand` the library understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineCommand {
    /// `name`.
    Name,
    /// `about`.
    About,
    /// `help`.
    Help,
    /// `get protocolversion`: 2.
    ProtocolVersion,
    /// `get gametype`: 21, English checkers.
    GetGameType,
    /// `set gametype 21` (the only one played).
    SetGameType,
    /// `get hashsize`.
    GetHashSize,
    /// `set hashsize MB`, within [`bounds::HASH_MB`].
    SetHashSize(usize),
    /// `get level`.
    GetLevel,
    /// `set level easy|medium|hard|max|off` (`off`: `None`).
    SetLevel(Option<Level>),
    /// `get book`: 0, no book.
    GetBook,
    /// `set book 0`.
    SetBook,
}

impl EngineCommand {
    /// Reads a command's text (words separated by blanks); `None` for one the library does not
    /// understand, or a value out of range.
    ///
    /// ```
    /// use checkersbot::hosts::checkerboard::EngineCommand;
    /// use checkersbot::play::level::Level;
    /// assert_eq!(EngineCommand::parse("set hashsize 64"), Some(EngineCommand::SetHashSize(64)));
    /// assert_eq!(EngineCommand::parse("set level easy"), Some(EngineCommand::SetLevel(Some(Level::Easy))));
    /// assert_eq!(EngineCommand::parse("set gametype 22"), None);
    /// ```
    pub fn parse(text: &str) -> Option<EngineCommand> {
        let words: Vec<&str> = text.split_whitespace().collect();
        Some(match words.as_slice() {
            ["name"] => EngineCommand::Name,
            ["about"] => EngineCommand::About,
            ["help"] => EngineCommand::Help,
            ["get", "protocolversion"] => EngineCommand::ProtocolVersion,
            ["get", "gametype"] => EngineCommand::GetGameType,
            ["set", "gametype", "21"] => EngineCommand::SetGameType,
            ["get", "hashsize"] => EngineCommand::GetHashSize,
            ["set", "hashsize", mb] => {
                EngineCommand::SetHashSize(mb.parse().ok().filter(|m| bounds::HASH_MB.contains(m))?)
            }
            ["get", "level"] => EngineCommand::GetLevel,
            ["set", "level", "off"] => EngineCommand::SetLevel(None),
            ["set", "level", name] => EngineCommand::SetLevel(Some(Level::from_name(name)?)),
            ["get", "book"] => EngineCommand::GetBook,
            ["set", "book", "0"] => EngineCommand::SetBook,
            _ => return None,
        })
    }

    /// The reply of a command that neither reads nor changes the library's settings; `None` for
    /// those that do (`get`/`set` of the hash size and the level), which the library answers.
    pub fn fixed_reply(self) -> Option<String> {
        let version = env!("CARGO_PKG_VERSION");
        Some(match self {
            EngineCommand::Name => format!("checkersbot {version}"),
            EngineCommand::About => format!(
                "checkersbot {version}: the decision maker of a checkers-playing robot, as a CheckerBoard engine (American checkers). MIT licence."
            ),
            EngineCommand::Help => "commands: name, about, get protocolversion, get gametype, set/get hashsize MB, set/get level easy|medium|hard|max|off".to_string(),
            EngineCommand::ProtocolVersion => "2".to_string(),
            EngineCommand::GetGameType | EngineCommand::SetGameType => "21".to_string(),
            EngineCommand::GetBook | EngineCommand::SetBook => "0".to_string(),
            EngineCommand::GetHashSize
            | EngineCommand::SetHashSize(_)
            | EngineCommand::GetLevel
            | EngineCommand::SetLevel(_) => return None,
        })
    }
}

/// The name `get level` answers for a level (`off` for none).
pub fn level_name(level: Option<Level>) -> &'static str {
    level.map_or("off", Level::name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::initial_grid;

    #[test]
    fn the_start_has_black_on_rows_0_to_2_and_reads_back() {
        let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
        let mut board = [[0; 8]; 8];
        write_board(&start, &mut board);
        // PDN square 1 (checkersbot's A1) is board[6][0]; square 4 (A7) board[0][0].
        assert_eq!(board[6][0], BLACK + MAN);
        assert_eq!(board[0][0], BLACK + MAN);
        assert_eq!(board[1][7], WHITE + MAN);
        assert_eq!(board[0][1], 0);
        let back = read_board(&board, BLACK).unwrap();
        assert_eq!(back.grid(), initial_grid(BoardSize::S8));
        assert_eq!(back.side(), Side::Bot);
        assert!(read_board(&board, 5).is_none());
        board[0][1] = WHITE + MAN; // a light square
        assert!(read_board(&board, WHITE).is_none());
    }

    #[test]
    fn a_capture_lists_path_and_captured_pieces() {
        let grid = Grid::parse_line(
            "________/__b_____/___p____/________/_____p__/________/_______p/________",
        )
        .unwrap();
        let pos = AnyPosition::from_grid(&grid, Side::Bot);
        let mv = pos.legal_moves().into_iter().next().unwrap();
        let cb = cb_move(&pos, &mv);
        assert_eq!(cb.jumps, 2);
        assert_eq!(cb.from, to_coor(Coord::new(1, 2)));
        assert_eq!(cb.path[0], cb.from);
        assert_eq!(cb.path[2], cb.to);
        assert_eq!(cb.delpiece[..2], [WHITE + MAN, WHITE + MAN]);
        assert_eq!(cb.oldpiece, BLACK + MAN);
    }

    #[test]
    fn commands_are_read_and_unknown_ones_refused() {
        use EngineCommand::*;
        assert_eq!(
            EngineCommand::parse("get protocolversion"),
            Some(ProtocolVersion)
        );
        assert_eq!(ProtocolVersion.fixed_reply().as_deref(), Some("2"));
        assert_eq!(GetGameType.fixed_reply().as_deref(), Some("21"));
        assert_eq!(EngineCommand::parse("set gametype 22"), None);
        assert_eq!(
            EngineCommand::parse("  set   level  Easy "),
            Some(SetLevel(Some(Level::Easy)))
        );
        assert_eq!(EngineCommand::parse("set level off"), Some(SetLevel(None)));
        assert_eq!(EngineCommand::parse("set level fast"), None);
        assert_eq!(EngineCommand::parse("set hashsize 0"), None);
        assert_eq!(EngineCommand::parse("set hashsize 4097"), None);
        assert_eq!(
            EngineCommand::parse("set hashsize 4096"),
            Some(SetHashSize(4096))
        );
        assert_eq!(EngineCommand::parse("frobnicate"), None);
        assert_eq!(EngineCommand::parse(""), None);
        assert!(Name.fixed_reply().unwrap().starts_with("checkersbot"));
        assert_eq!(GetLevel.fixed_reply(), None);
        assert_eq!(level_name(None), "off");
    }

    #[test]
    fn a_maxtime_that_gives_no_time_is_refused() {
        for bad in [0.0, -0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let e = limits_for(bad, None).unwrap_err();
            assert!(e.to_string().contains("maxtime"), "{e}");
        }
        let huge = limits_for(1e300, None).unwrap();
        assert_eq!(huge.movetime, Some(Duration::from_secs(3600)));
        let medium = limits_for(10.0, Some(Level::Medium)).unwrap();
        assert_eq!(medium.movetime, Some(Duration::from_millis(300)));
        assert_eq!(medium.depth, Some(6));
    }
}
