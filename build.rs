//! Finds the outside programs some integration tests drive: Python 3, pydraughts, mypy,
//! Chromium with chromedriver, and GNU parallel. A test whose program is missing is marked ignored, with what to
//! install (`#[cfg_attr(not(has_pydraughts), ignore = "...")]`), so that `cargo test` lists it
//! as ignored by name instead of counting it as passed. Under CI (`CI` set) nothing is marked:
//! a missing program fails its test, and `.ci/run` installs them all.
//!
//! The probes run again when `PATH` or `CI` change, or after `touch build.rs` (a program installed
//! later is not noticed by itself: watching Python's package folders would rebuild the crate
//! whenever Python writes a cache file there). The library and the binary do not use these
//! settings.

use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_python3, has_pydraughts, has_mypy, has_chromium, has_parallel)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=PATH");
    let ci = std::env::var_os("CI").is_some();
    let python = |code: &str| {
        Command::new("python3")
            .args(["-c", code])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(name).is_file()))
    };
    let found = [
        ("has_python3", python("pass")),
        ("has_pydraughts", python("import draughts")),
        ("has_mypy", python("import mypy")),
        (
            "has_chromium",
            python("pass") && on_path("chromium") && on_path("chromedriver"),
        ),
        ("has_parallel", on_path("parallel")),
    ];
    for (cfg, here) in found {
        if ci || here {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}
