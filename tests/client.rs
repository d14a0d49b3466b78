//! The Python client for integrators (`protocol/client/`, the `checkersbot-client` package)
//! against the real daemon: its own tests (over pipes and TCP, its README's examples run against
//! the package as pip installs it offline, the example vision loop), and `mypy --strict` on all
//! of its Python. Skipped with a note where `python3` (or mypy) is missing, except in CI (`CI`
//! set).

use std::process::Command;

const CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/protocol/client");

#[test]
#[cfg_attr(not(has_python3), ignore = "needs python3, then touch build.rs")]
fn python_client_against_the_daemon() {
    let script = format!("{CLIENT}/test_client.py");
    let run = Command::new("python3")
        .arg(script)
        .env("CHECKERSBOT_BIN", env!("CARGO_BIN_EXE_checkersbot"))
        .output();
    let run = run.expect("python3 runs");
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{said}");
    assert!(said.contains("\nOK"), "{said}");
    assert!(!said.contains("skipped"), "{said}");
}

#[test]
#[cfg_attr(
    not(has_mypy),
    ignore = "needs mypy: pip install mypy==2.4.1, then touch build.rs"
)]
fn python_client_passes_mypy_strict() {
    let run = Command::new("python3")
        .args(["-m", "mypy", "--strict", "--cache-dir"])
        .arg(format!("{}/mypy-cache", env!("CARGO_TARGET_TMPDIR")))
        .args([
            "checkersbot_client",
            "build_backend.py",
            "examples",
            "test_client.py",
            "vision_loop.py",
        ])
        .current_dir(CLIENT)
        .output()
        .expect("python3 runs");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{said}");
    assert!(said.contains("Success: no issues found"), "{said}");
}
