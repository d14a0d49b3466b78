//! The CheckerBoard engine library (`checkerboard/`, a cdylib) loaded the way engine hosts load it:
//! Python's ctypes opens `libcheckersbot_cb.so`, checks `enginecommand`, and plays whole games
//! through `getmove` against `checkersbot serve`, checking every move with the project's rules
//! (`tests/checkerboard/cb_game.py`). The library is built here first, with the same profile.
//! Ignored where `python3` is missing, except in CI (`CI` set): see `build.rs`.

use std::path::PathBuf;
use std::process::Command;

#[test]
#[cfg_attr(not(has_python3), ignore = "needs python3, then touch build.rs")]
fn checkerboard_library_plays_whole_games_through_ctypes() {
    let cargo = option_env!("CARGO").unwrap_or("cargo");
    let release = cfg!(not(debug_assertions));
    let mut build = Command::new(cargo);
    build
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["build", "-p", "checkersbot-checkerboard"]);
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
