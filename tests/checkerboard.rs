//! The CheckerBoard engine library (`checkerboard/`, a cdylib) loaded the way engine hosts load it:
//! Python's ctypes opens `libcheckersbot_cb.so`, checks `enginecommand`, and plays whole games
//! through `getmove` against `checkersbot serve`, checking every move with the project's rules
//! (`tests/checkerboard/cb_game.py`), and calls it the ways a careless host might
//! (`tests/checkerboard/cb_hostile.py`: a bad `maxtime`, `enginecommand` during a search, two
//! searches at once). The library is built here first, with the same profile.
//! Ignored where `python3` is missing, except in CI (`CI` set): see `build.rs`.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The library, built here with the profile of this test (once for the tests of this file).
fn library() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let cargo = option_env!("CARGO").unwrap_or("cargo");
            let release = cfg!(not(debug_assertions));
            let mut build = Command::new(cargo);
            build.current_dir(env!("CARGO_MANIFEST_DIR")).args([
                "build",
                "-p",
                "checkersbot-checkerboard",
            ]);
            if release {
                build.arg("--release");
            }
            let built = build.output().expect("cargo runs");
            assert!(
                built.status.success(),
                "{}",
                String::from_utf8_lossy(&built.stderr)
            );
            let dir = PathBuf::from(env!("CARGO_BIN_EXE_checkersbot"))
                .parent()
                .expect("target dir")
                .to_path_buf();
            let lib = dir.join(format!(
                "{}checkersbot_cb{}",
                std::env::consts::DLL_PREFIX,
                std::env::consts::DLL_SUFFIX
            ));
            assert!(lib.exists(), "{} was not built", lib.display());
            lib
        })
        .clone()
}

#[test]
#[cfg_attr(not(has_python3), ignore = "needs python3, then touch build.rs")]
fn checkerboard_library_plays_whole_games_through_ctypes() {
    let lib = library();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/checkerboard/cb_game.py");
    let run = Command::new("python3")
        .arg(script)
        .arg(&lib)
        .arg(env!("CARGO_BIN_EXE_checkersbot"))
        .output();
    let run = run.expect("python3 runs");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(said.contains("all games played through"), "{said}");
    assert_eq!(said.matches(" plies, ").count(), 2, "{said}");
}

/// Runs one check of `tests/checkerboard/cb_hostile.py` on the library, in a Python process of its
/// own (the library keeps its engine in a global), and returns what it printed.
fn hostile(check: &str) -> String {
    let lib = library();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/checkerboard/cb_hostile.py"
    );
    let run = Command::new("python3")
        .arg(script)
        .arg(&lib)
        .arg(check)
        .output()
        .expect("python3 runs");
    let said = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success() && said.contains("passed"),
        "{said}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    eprint!("{said}");
    said
}

/// Issue 52, finding 13: a `maxtime` of 0, negative, NaN or infinite is answered `UNKNOWN` with a
/// message in `str`, and no move is made (it used to mean a 1 s search).
#[test]
#[cfg_attr(not(has_python3), ignore = "needs python3, then touch build.rs")]
fn checkerboard_library_refuses_a_bad_maxtime() {
    hostile("maxtime");
}

/// Issue 52, finding 13: `enginecommand` is answered within 100 ms while `getmove` searches on
/// another thread (it used to wait for the search, 1.75 s and more), and a hash size set then is
/// the next search's.
#[test]
#[cfg_attr(not(has_python3), ignore = "needs python3, then touch build.rs")]
fn checkerboard_library_answers_enginecommand_during_getmove() {
    hostile("command");
}

/// Issue 52, finding 13: a second thread's `getmove` while one searches is refused at once with
/// `busy` in `str` (it used to wait for the first search to end).
#[test]
#[cfg_attr(not(has_python3), ignore = "needs python3, then touch build.rs")]
fn checkerboard_library_refuses_a_concurrent_getmove() {
    hostile("concurrent");
}
