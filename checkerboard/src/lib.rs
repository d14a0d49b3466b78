//! checkersbot as a CheckerBoard engine: the shared-library API that CheckerBoard (Martin Fierz's
//! draughts GUI) and the engines made for it (Cake, KingsRow, GuiNN, Simple Checkers) implement,
//! for American checkers on 8x8:
//!
//! ```c
//! int getmove(int board[8][8], int color, double maxtime, char str[1024], int *playnow,
//!             int info, int moreinfo, struct CBmove *move);
//! int enginecommand(char command[256], char reply[1024]);
//! ```
//!
//! Built as `libcheckersbot_cb.so` on Linux (`cargo build --release -p checkersbot-checkerboard`);
//! for CheckerBoard itself, which loads Windows DLLs, build `checkersbot_cb.dll` with the same
//! command on Windows (or `--target x86_64-pc-windows-gnu`) — `extern "system"` is the `WINAPI`
//! calling convention there.
//!
//! **The board** (`board[x][y]`, as pydraughts lays it out for CheckerBoard engines): `x` is the
//! column and `y` the row, with Black (checkersbot's `b`, the side that moves first, on squares
//! 1-12) on rows `y` 0 to 2 and moving towards `y` 7; `board[x][y]` is checkersbot's square on row
//! `y` (from the top), column `7 - x`. Values: `WHITE` 1, `BLACK` 2, plus `MAN` 4 or `KING` 8; 0 is
//! empty. `color` is the side to move.
//!
//! **getmove** searches for `maxtime` seconds (`info` bit 1 set: exactly that long; else as a
//! target the search keeps to), stops early when the host sets `*playnow`, writes the position after
//! the move into `board`, the move into `move` (`from`, `to`, `path` with every square from the
//! start, `del` the captured squares, `jumps` how many), a line of search information into `str`,
//! and returns `WIN` 1, `LOSS` 2, `DRAW` 0 or `UNKNOWN` 3 (from the search's score). `info` bit 0
//! starts a new game (the table is cleared).
//!
//! **enginecommand** answers `name`, `about`, `help`, `get protocolversion` (2), `get gametype`
//! (21, English), `set gametype 21`, `get hashsize`, `set hashsize MB`, `get level`, `set level
//! easy|medium|hard|max` (a depth and time cap from checkersbot's levels) and `get book`/`set book
//! 0` (no book); it returns 1 when it understood the command, else 0 with `?` in `reply`.

use checkersbot::engine::{Engine, EngineConfig, Limits, Score};
use checkersbot::play::level::Level;
use checkersbot::rules::any_size::{AnyPosition, MoveInfo};
use checkersbot::rules::board::Grid;
use checkersbot::rules::geometry::{BoardSize, Coord};
use checkersbot::rules::position::{Piece, Side};
use std::ffi::{c_char, c_double, c_int};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// CheckerBoard's piece and colour codes.
pub const WHITE: c_int = 1;
/// Black: checkersbot's `b`.
pub const BLACK: c_int = 2;
/// A man (added to the colour).
pub const MAN: c_int = 4;
/// A king (added to the colour).
pub const KING: c_int = 8;
/// `getmove`'s results.
pub const DRAW: c_int = 0;
/// The side to move wins.
pub const WIN: c_int = 1;
/// The side to move loses.
pub const LOSS: c_int = 2;
/// Not known.
pub const UNKNOWN: c_int = 3;

/// A square: column and row as CheckerBoard numbers them.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Coor {
    /// Column.
    pub x: c_int,
    /// Row.
    pub y: c_int,
}

/// A move as CheckerBoard reads it.
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

/// The engine and its settings, kept between calls.
struct State {
    engine: Engine,
    hash_mb: usize,
    level: Option<Level>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn with_state<T>(f: impl FnOnce(&mut State) -> T) -> T {
    let mut guard = STATE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let state = guard.get_or_insert_with(|| State {
        engine: Engine::new(EngineConfig::default()),
        hash_mb: 16,
        level: None,
    });
    f(state)
}

/// Copies `text` into a C buffer of `cap` bytes, cut to fit and NUL-terminated.
///
/// # Safety
/// `dst` must point to `cap` writable bytes.
unsafe fn write_c(dst: *mut c_char, cap: usize, text: &str) {
    if dst.is_null() || cap == 0 {
        return;
    }
    let bytes = text.as_bytes();
    let n = bytes.len().min(cap - 1);
    for (i, &b) in bytes[..n].iter().enumerate() {
        *dst.add(i) = b as c_char;
    }
    *dst.add(n) = 0;
}

/// The search limits of a `getmove` call: `maxtime` seconds, capped by a level if one was set.
pub fn limits_for(maxtime: f64, level: Option<Level>) -> Limits {
    let secs = if maxtime.is_finite() && maxtime > 0.0 {
        maxtime.min(3600.0)
    } else {
        1.0
    };
    let mut limits = Limits {
        movetime: Some(Duration::from_secs_f64(secs)),
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
    limits
}

/// A pointer the host keeps valid for the duration of `getmove`, read by the watcher thread.
struct PlayNow(*const c_int);
// SAFETY: the host owns the int and keeps it alive until getmove returns; the watcher only reads
// it, and is joined before getmove returns.
unsafe impl Send for PlayNow {}

/// CheckerBoard's `getmove` (see the crate documentation).
///
/// # Safety
/// `board` must point to an `int[8][8]`, `str_` to 1024 writable bytes, `playnow` to an int the
/// host may change (or be null), and `mv` to a `CBmove`, all valid until the call returns.
#[no_mangle]
pub unsafe extern "system" fn getmove(
    board: *mut [[c_int; 8]; 8],
    color: c_int,
    maxtime: c_double,
    str_: *mut c_char,
    playnow: *const c_int,
    info: c_int,
    _moreinfo: c_int,
    mv: *mut CbMove,
) -> c_int {
    if board.is_null() || mv.is_null() {
        return UNKNOWN;
    }
    let Some(pos) = read_board(&*board, color) else {
        write_c(
            str_,
            1024,
            "checkersbot: the board is not a legal American checkers position",
        );
        return UNKNOWN;
    };
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let watcher = (!playnow.is_null()).then(|| {
        let flag = Arc::clone(&stop);
        let finished = Arc::clone(&done);
        let ptr = PlayNow(playnow);
        std::thread::spawn(move || {
            let ptr = ptr;
            while !finished.load(Ordering::Relaxed) {
                // SAFETY: see PlayNow.
                if unsafe { std::ptr::read_volatile(ptr.0) } != 0 {
                    flag.store(true, Ordering::Relaxed);
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        })
    });
    let result = with_state(|s| {
        if info & 1 != 0 {
            s.engine.new_game();
        }
        let limits = limits_for(maxtime, s.level);
        s.engine.search(&pos, &[], &limits, &stop, &mut |_| {})
    });
    done.store(true, Ordering::Relaxed);
    if let Some(w) = watcher {
        let _ = w.join();
    }
    let Some(best) = result.best else {
        write_c(str_, 1024, "checkersbot: no legal move");
        return LOSS;
    };
    *mv = cb_move(&pos, &best);
    if let Some(after) = pos.play(&best) {
        write_board(&after, &mut *board);
    }
    let i = &result.info;
    write_c(
        str_,
        1024,
        &format!(
            "checkersbot: depth {} score {} nodes {} time {:.2}s move {}",
            i.depth,
            i.score,
            i.nodes,
            i.time.as_secs_f64(),
            best.described()
        ),
    );
    result_of(i.score)
}

/// Answers one `enginecommand`: `Some(reply)` when understood.
pub fn command(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        ["name"] => Some(format!("checkersbot {}", env!("CARGO_PKG_VERSION"))),
        ["about"] => Some(format!(
            "checkersbot {}: the decision maker of a checkers-playing robot, as a CheckerBoard engine (American checkers). MIT licence.",
            env!("CARGO_PKG_VERSION")
        )),
        ["help"] => Some(
            "commands: name, about, get protocolversion, get gametype, set/get hashsize MB, set/get level easy|medium|hard|max|off"
                .to_string(),
        ),
        ["get", "protocolversion"] => Some("2".to_string()),
        ["get", "gametype"] => Some("21".to_string()),
        ["set", "gametype", "21"] => Some("21".to_string()),
        ["get", "hashsize"] => Some(with_state(|s| s.hash_mb.to_string())),
        ["set", "hashsize", mb] => {
            let mb: usize = mb.parse().ok().filter(|m| (1..=4096).contains(m))?;
            with_state(|s| {
                s.engine.try_set_hash_mb(mb).ok()?;
                s.hash_mb = mb;
                Some(mb.to_string())
            })
        }
        ["get", "level"] => Some(with_state(|s| s.level.map_or("off", Level::name).to_string())),
        ["set", "level", "off"] => {
            with_state(|s| s.level = None);
            Some("off".to_string())
        }
        ["set", "level", name] => {
            let level = Level::from_name(name)?;
            with_state(|s| s.level = Some(level));
            Some(level.name().to_string())
        }
        ["get", "book"] => Some("0".to_string()),
        ["set", "book", "0"] => Some("0".to_string()),
        _ => None,
    }
}

/// CheckerBoard's `enginecommand` (see the crate documentation).
///
/// # Safety
/// `command_` must point to a NUL-terminated string (at most 256 bytes are read) and `reply` to
/// 1024 writable bytes.
#[no_mangle]
pub unsafe extern "system" fn enginecommand(command_: *const c_char, reply: *mut c_char) -> c_int {
    if command_.is_null() {
        write_c(reply, 1024, "?");
        return 0;
    }
    let mut bytes = Vec::new();
    for i in 0..256 {
        let b = *command_.add(i) as u8;
        if b == 0 {
            break;
        }
        bytes.push(b);
    }
    let text = String::from_utf8_lossy(&bytes);
    match command(&text) {
        Some(answer) => {
            write_c(reply, 1024, &answer);
            1
        }
        None => {
            write_c(reply, 1024, "?");
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use checkersbot::rules::board::initial_grid;

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
    fn commands_are_answered_and_unknown_ones_refused() {
        assert_eq!(command("get protocolversion").as_deref(), Some("2"));
        assert_eq!(command("get gametype").as_deref(), Some("21"));
        assert_eq!(command("set gametype 22"), None);
        assert_eq!(command("set level easy").as_deref(), Some("easy"));
        assert_eq!(command("get level").as_deref(), Some("easy"));
        assert_eq!(command("set level off").as_deref(), Some("off"));
        assert_eq!(command("set hashsize 0"), None);
        assert_eq!(command("frobnicate"), None);
        assert!(command("name").unwrap().starts_with("checkersbot"));
    }

    #[test]
    fn getmove_plays_a_legal_move_and_stops_on_playnow() {
        let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
        let mut board = [[0; 8]; 8];
        write_board(&start, &mut board);
        let mut text = [0 as c_char; 1024];
        let playnow: c_int = 1; // play at once
        let mut mv = CbMove::default();
        let t = std::time::Instant::now();
        // SAFETY: every pointer is to a live local of the right size.
        let r = unsafe {
            getmove(
                &mut board,
                BLACK,
                30.0,
                text.as_mut_ptr(),
                &playnow,
                1,
                0,
                &mut mv,
            )
        };
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        assert_eq!(r, UNKNOWN);
        let after = read_board(&board, WHITE).unwrap();
        let legal: Vec<_> = start
            .legal_moves()
            .iter()
            .filter_map(|m| start.play(m))
            .collect();
        assert!(legal.iter().any(|p| p.grid() == after.grid()));
        assert_eq!(mv.jumps, 0);
    }
}
