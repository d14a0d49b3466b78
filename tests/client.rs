//! The Python client for integrators (`protocol/client/`) against the real daemon: its own unit
//! tests, a recorded game through it with the golden replies, and the example vision loop. Skipped
//! with a note where `python3` is missing, except in CI (`CI` set).

use std::process::Command;

#[test]
fn python_client_against_the_daemon() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/protocol/client/test_client.py"
    );
    let run = Command::new("python3")
        .arg(script)
        .env("CHECKERSBOT_BIN", env!("CARGO_BIN_EXE_checkersbot"))
        .output();
    let run = match run {
        Ok(r) => r,
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("python_client_against_the_daemon: skipped (python3: {e})");
            return;
        }
        Err(e) => panic!("python3 is needed in CI: {e}"),
    };
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert!(said.contains("\nOK"), "{said}");
    assert!(!said.contains("skipped"), "{said}");
}
