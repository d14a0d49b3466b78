//! The Python client for integrators (`protocol/client/`, the `checkersbot-client` package)
//! against the real daemon: its own tests (over pipes and TCP, its README's examples run against
//! the package as pip installs it offline, the example vision loop), and `mypy --strict` on all
//! of its Python. Skipped with a note where `python3` (or mypy) is missing, except in CI (`CI`
//! set).

use std::process::Command;

const CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/protocol/client");

#[test]
fn python_client_against_the_daemon() {
    let script = format!("{CLIENT}/test_client.py");
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

#[test]
fn python_client_passes_mypy_strict() {
    let has_mypy = Command::new("python3")
        .args(["-m", "mypy", "--version"])
        .output()
        .is_ok_and(|r| r.status.success());
    if !has_mypy {
        assert!(
            std::env::var_os("CI").is_none(),
            "mypy is needed in CI (.ci/run installs it)"
        );
        eprintln!("python_client_passes_mypy_strict: skipped (no mypy: pip install mypy)");
        return;
    }
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
