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
//! target the search keeps to; at most an hour), stops early when the host sets `*playnow`, writes
//! the position after the move into `board`, the move into `move` (`from`, `to`, `path` with every
//! square from the start, `del` the captured squares, `jumps` how many), a line of search
//! information into `str`, and returns `WIN` 1, `LOSS` 2, `DRAW` 0 or `UNKNOWN` 3 (from the
//! search's score). `info` bit 0 starts a new game (the table is cleared). A call it cannot play
//! returns `UNKNOWN` with the reason in `str`, and leaves `board` and `move` as they were: a board
//! that is no legal position, a `maxtime` that gives no time (0 or less, NaN, infinite), or a
//! search already under way.
//!
//! **One search at a time.** A `getmove` called while another thread's `getmove` searches is
//! refused at once (`UNKNOWN`, `busy` in `str`), not queued: a host that calls twice has lost
//! track of its own searches, and a queued call would answer for a position that may be stale by
//! the time it runs. CheckerBoard itself never does it.
//!
//! **enginecommand** answers `name`, `about`, `help`, `get protocolversion` (2), `get gametype`
//! (21, English), `set gametype 21`, `get hashsize`, `set hashsize MB`, `get level`, `set level
//! easy|medium|hard|max|off` (a depth and time cap from checkersbot's levels) and `get book`/`set
//! book 0` (no book); it returns 1 when it understood the command, else 0 with `?` in `reply`. It
//! never waits for a search: the settings are kept apart from the engine, and a level set during
//! a search is the next search's. So is a hash size: `set hashsize` resizes the table at once when
//! no search runs, and otherwise checks that the size fits in memory and leaves the resize to the
//! next `getmove` (which says in `str` if it could not be done).

use checkersbot::engine::{check_room, Engine, EngineConfig};
pub use checkersbot::hosts::checkerboard::{
    cb_move, limits_for, read_board, result_of, to_coor, write_board, CbMove, Coor, BLACK, DRAW,
    KING, LOSS, MAN, UNKNOWN, WHITE, WIN,
};
use checkersbot::hosts::checkerboard::{level_name, EngineCommand};
use checkersbot::play::level::Level;
use std::ffi::{c_char, c_double, c_int};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::Duration;

/// What `enginecommand` reads and writes, kept apart from the engine so that a command never
/// waits for a search.
struct Settings {
    /// The table size asked for, in MiB (in effect, or `pending`).
    hash_mb: usize,
    /// A size asked for during a search, for the next `getmove` to apply.
    pending_hash: Option<usize>,
    level: Option<Level>,
}

static SETTINGS: Mutex<Settings> = Mutex::new(Settings {
    hash_mb: 16,
    pending_hash: None,
    level: None,
});

/// The engine (made by the first call that needs it), held by the `getmove` that searches.
static ENGINE: Mutex<Option<Engine>> = Mutex::new(None);

fn settings() -> MutexGuard<'static, Settings> {
    SETTINGS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The engine, unless a search holds it.
fn try_engine() -> Option<MutexGuard<'static, Option<Engine>>> {
    match ENGINE.try_lock() {
        Ok(guard) => Some(guard),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}

fn engine_in(slot: &mut Option<Engine>) -> &mut Engine {
    slot.get_or_insert_with(|| Engine::new(EngineConfig::default()))
}

/// Copies `text` into a C buffer of `cap` bytes, cut to fit and NUL-terminated.
///
/// # Safety
/// `dst` must point to `cap` writable bytes, or be null.
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
/// `board` must point to an `int[8][8]`, `str_` to 1024 writable bytes (or be null), `playnow` to
/// an int the host may change (or be null), and `mv` to a `CBmove`, all valid until the call
/// returns.
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
    let refuse = |why: &str| {
        write_c(str_, 1024, &format!("checkersbot: {why}"));
        UNKNOWN
    };
    if board.is_null() || mv.is_null() {
        return refuse("board or move is a null pointer; no move made");
    }
    let Some(pos) = read_board(&*board, color) else {
        return refuse("the board is not a legal American checkers position; no move made");
    };
    let limits = match limits_for(maxtime, settings().level) {
        Ok(limits) => limits,
        Err(e) => return refuse(&e.to_string()),
    };
    let Some(mut slot) = try_engine() else {
        return refuse(
            "busy: the engine is searching for another getmove (one search at a time); this one is refused, no move made",
        );
    };
    let engine = engine_in(&mut slot);
    let mut note = String::new();
    let pending = settings().pending_hash.take();
    if let Some(mb) = pending {
        if let Err(e) = engine.try_set_hash_mb(mb) {
            let kept = engine.config().hash_mb;
            settings().hash_mb = kept;
            note = format!(" (hash size {mb} MiB: {e}; {kept} MiB kept)");
        }
    }
    if info & 1 != 0 {
        engine.new_game();
    }
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
    let result = engine.search(&pos, &[], &limits, &stop, &mut |_| {});
    drop(slot);
    done.store(true, Ordering::Relaxed);
    if let Some(w) = watcher {
        let _ = w.join();
    }
    let Some(best) = result.best else {
        write_c(str_, 1024, &format!("checkersbot: no legal move{note}"));
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
            "checkersbot: depth {} score {} nodes {} time {:.2}s move {}{note}",
            i.depth,
            i.score,
            i.nodes,
            i.time.as_secs_f64(),
            best.described()
        ),
    );
    result_of(i.score)
}

/// Answers one `enginecommand` without waiting for a search: `Ok(reply)` when understood and
/// done, `Err(reason)` otherwise.
pub fn command(text: &str) -> Result<String, String> {
    let cmd = EngineCommand::parse(text).ok_or_else(String::new)?;
    if let Some(reply) = cmd.fixed_reply() {
        return Ok(reply);
    }
    let mut s = settings();
    match cmd {
        EngineCommand::GetHashSize => Ok(s.hash_mb.to_string()),
        EngineCommand::SetHashSize(mb) => {
            match try_engine() {
                Some(mut slot) => {
                    engine_in(&mut slot)
                        .try_set_hash_mb(mb)
                        .map_err(|e| format!("hash size {mb} MiB: {e}"))?;
                    s.pending_hash = None;
                }
                None => {
                    // A search holds the table: check the size now, resize before the next one.
                    check_room(mb, 1, (s.hash_mb as u64) << 20)
                        .map_err(|e| format!("hash size {mb} MiB: {e}"))?;
                    s.pending_hash = Some(mb);
                }
            }
            s.hash_mb = mb;
            Ok(mb.to_string())
        }
        EngineCommand::GetLevel => Ok(level_name(s.level).to_string()),
        EngineCommand::SetLevel(level) => {
            s.level = level;
            Ok(level_name(level).to_string())
        }
        _ => Err(String::new()),
    }
}

/// CheckerBoard's `enginecommand` (see the crate documentation).
///
/// # Safety
/// `command_` must point to a NUL-terminated string (at most 256 bytes are read) or be null, and
/// `reply` to 1024 writable bytes (or be null).
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
        Ok(answer) => {
            write_c(reply, 1024, &answer);
            1
        }
        Err(why) if why.is_empty() => {
            write_c(reply, 1024, "?");
            0
        }
        Err(why) => {
            write_c(reply, 1024, &format!("? {why}"));
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

    /// The library's state is global: the tests that call it take turns.
    static TURN: Mutex<()> = Mutex::new(());

    fn turn() -> MutexGuard<'static, ()> {
        TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn start_board() -> [[c_int; 8]; 8] {
        let mut board = [[0; 8]; 8];
        write_board(&AnyPosition::initial(BoardSize::S8, Side::Bot), &mut board);
        board
    }

    fn text_of(buf: &[c_char]) -> String {
        let bytes: Vec<u8> = buf
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// `getmove` on `board` with Black to move; its result and `str`.
    fn call(board: &mut [[c_int; 8]; 8], maxtime: f64, mv: &mut CbMove) -> (c_int, String) {
        let mut text = [0 as c_char; 1024];
        let playnow: c_int = 1; // play at once
                                // SAFETY: every pointer is to a live local of the right size.
        let r = unsafe { getmove(board, BLACK, maxtime, text.as_mut_ptr(), &playnow, 1, 0, mv) };
        (r, text_of(&text))
    }

    #[test]
    fn commands_are_answered_and_unknown_ones_refused() {
        let _turn = turn();
        assert_eq!(command("get protocolversion").as_deref(), Ok("2"));
        assert_eq!(command("get gametype").as_deref(), Ok("21"));
        assert!(command("set gametype 22").is_err());
        assert_eq!(command("set level easy").as_deref(), Ok("easy"));
        assert_eq!(command("get level").as_deref(), Ok("easy"));
        assert_eq!(command("set level off").as_deref(), Ok("off"));
        assert!(command("set hashsize 0").is_err());
        assert!(command("frobnicate").is_err());
        assert!(command("name").unwrap().starts_with("checkersbot"));
    }

    #[test]
    fn getmove_plays_a_legal_move_and_stops_on_playnow() {
        let _turn = turn();
        let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
        let mut board = start_board();
        let mut mv = CbMove::default();
        let t = std::time::Instant::now();
        let (r, _) = call(&mut board, 30.0, &mut mv);
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

    #[test]
    fn a_maxtime_that_gives_no_time_makes_no_move() {
        let _turn = turn();
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let mut board = start_board();
            let mut mv = CbMove {
                jumps: 77,
                ..CbMove::default()
            };
            let (r, said) = call(&mut board, bad, &mut mv);
            assert_eq!(r, UNKNOWN, "{bad}: {said}");
            assert!(said.contains("maxtime"), "{bad}: {said}");
            assert_eq!(board, start_board(), "{bad}");
            assert_eq!(mv.jumps, 77, "{bad}");
        }
    }

    /// While a search holds the engine, `getmove` is refused as busy and `enginecommand` is
    /// answered; a hash size set then is applied by the next `getmove`.
    #[test]
    fn during_a_search_getmove_is_refused_and_commands_answered() {
        let _turn = turn();
        let held = ENGINE
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut board = start_board();
        let mut mv = CbMove::default();
        let (r, said) = call(&mut board, 1.0, &mut mv);
        assert_eq!(r, UNKNOWN, "{said}");
        assert!(said.contains("busy"), "{said}");
        assert_eq!(board, start_board());
        assert_eq!(command("set level medium").as_deref(), Ok("medium"));
        assert_eq!(command("set hashsize 8").as_deref(), Ok("8"));
        assert_eq!(command("get hashsize").as_deref(), Ok("8"));
        assert_eq!(settings().pending_hash, Some(8));
        drop(held);
        assert_eq!(command("set level off").as_deref(), Ok("off"));
        let (_, said) = call(&mut board, 1.0, &mut mv);
        assert!(said.starts_with("checkersbot: depth"), "{said}");
        assert_eq!(settings().pending_hash, None);
        let engine = ENGINE.lock().unwrap();
        assert_eq!(engine.as_ref().map(|e| e.config().hash_mb), Some(8));
        drop(engine);
        assert_eq!(command("set hashsize 16").as_deref(), Ok("16"));
        assert_eq!(settings().pending_hash, None);
    }
}
