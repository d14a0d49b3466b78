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
//! This crate is the shell that C calls: the engine kept between calls, the pointers, the threads.
//! The board, the move and the commands are read and written by
//! [`checkersbot::hosts::checkerboard`], which documents the board's layout (`board[x][y]`, Black
//! on rows `y` 0 to 2) and its values (`WHITE` 1, `BLACK` 2, plus `MAN` 4 or `KING` 8).
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

use checkersbot::engine::{Engine, EngineConfig};
pub use checkersbot::hosts::checkerboard::{
    cb_move, limits_for, read_board, result_of, to_coor, write_board, CbMove, Coor, BLACK, DRAW,
    KING, LOSS, MAN, UNKNOWN, WHITE, WIN,
};
use checkersbot::hosts::checkerboard::{level_name, EngineCommand};
use checkersbot::play::level::Level;
use std::ffi::{c_char, c_double, c_int};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    let cmd = EngineCommand::parse(text)?;
    if let Some(reply) = cmd.fixed_reply() {
        return Some(reply);
    }
    match cmd {
        EngineCommand::GetHashSize => Some(with_state(|s| s.hash_mb.to_string())),
        EngineCommand::SetHashSize(mb) => with_state(|s| {
            s.engine.try_set_hash_mb(mb).ok()?;
            s.hash_mb = mb;
            Some(mb.to_string())
        }),
        EngineCommand::GetLevel => Some(with_state(|s| level_name(s.level).to_string())),
        EngineCommand::SetLevel(level) => {
            with_state(|s| s.level = level);
            Some(level_name(level).to_string())
        }
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
    use checkersbot::rules::any_size::AnyPosition;
    use checkersbot::rules::geometry::BoardSize;
    use checkersbot::rules::position::Side;

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
