//! `checkersbot simulate` against the real daemon: a seeded short campaign on each transport, every
//! board size, the diagnosis shares, and the judge catching deliberately wrong daemons.

mod common;

use common::{BIN, NO_CACHE};
use std::path::Path;
use std::process::{Command, Output};

/// Runs `simulate ARGS --json FILE` and returns its output and the JSON report.
fn simulate(tag: &str, args: &[&str]) -> (Output, String) {
    let json = std::env::temp_dir().join(format!(
        "checkersbot-simulate-test-{tag}-{}.json",
        std::process::id()
    ));
    let out = Command::new(BIN)
        .arg("simulate")
        .args(args)
        .arg("--json")
        .arg(&json)
        .env("XDG_CACHE_HOME", NO_CACHE)
        .output()
        .expect("simulate runs");
    let report = std::fs::read_to_string(&json).unwrap_or_default();
    std::fs::remove_file(&json).ok();
    (out, report)
}

/// A number field of the JSON report (the first with this name).
fn field(json: &str, name: &str) -> u64 {
    let key = format!("\"{name}\":");
    let at = json
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {json}"));
    json[at + key.len()..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or_else(|_| panic!("{name} is not a number in {json}"))
}

/// A fault kind's counts in the JSON report.
fn fault(json: &str, kind: &str) -> String {
    let key = format!("\"{kind}\":{{");
    let at = json
        .find(&key)
        .unwrap_or_else(|| panic!("no fault {kind} in {json}"));
    let rest = &json[at + key.len() - 1..];
    rest[..=rest.find('}').unwrap_or(rest.len() - 1)].to_string()
}

fn show(out: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The campaign's promises: no wrong command, no reply lost, every game finished, every fault
/// frame refused.
fn assert_clean_run(out: &Output, json: &str) {
    assert!(out.status.success(), "{}", show(out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("PASSED"));
    assert_eq!(field(json, "wrong_commands"), 0, "{json}");
    assert_eq!(field(json, "replies_lost"), 0, "{json}");
    assert_eq!(field(json, "clean_refused"), 0, "{json}");
    assert_eq!(field(json, "finished"), field(json, "games"), "{json}");
    assert_eq!(
        field(json, "fault_frames_refused"),
        field(json, "fault_frames"),
        "{json}"
    );
}

#[test]
fn a_seeded_campaign_over_the_pipe_commands_nothing_wrong_and_names_the_squares() {
    let (out, json) = simulate(
        "pipe",
        &[
            "--games", "200", "--seed", "11", "--jobs", "2", "--rate", "slow=0",
        ],
    );
    assert_clean_run(&out, &json);
    assert_eq!(field(&json, "games"), 200);
    assert!(field(&json, "fault_frames") > 1000, "{json}");
    // The faults whose reply should name squares (misreads, kings taken for men, the arm's
    // leftovers): at least 90% named exactly; the misreads with one nearest explanation at least
    // 95% (the bar).
    let (to_name, named) = (
        field(&json, "faults_to_name"),
        field(&json, "faults_named_exactly"),
    );
    assert!(named * 10 >= to_name * 9, "{named} of {to_name}: {json}");
    for kind in ["misread+move", "misread", "kings+move", "kings"] {
        let f = fault(&json, kind);
        let (unique, exact) = (field(&f, "unique"), field(&f, "unique_named_exactly"));
        assert!(unique > 20, "{kind}: {f}");
        assert!(
            exact * 100 >= unique * 95,
            "{kind}: {exact} of {unique}: {f}"
        );
    }
    // Recovery: the game goes on at the next clean frame.
    assert!(field(&json, "median") <= 1, "{json}");
    // The same seed plays the same games.
    let (_, again) = simulate(
        "pipe-again",
        &[
            "--games", "200", "--seed", "11", "--jobs", "2", "--rate", "slow=0",
        ],
    );
    let strip = |j: &str| j[j.find("\"passed\"").unwrap_or(0)..].to_string();
    assert_eq!(strip(&json), strip(&again));
}

#[test]
fn the_serial_link_pulled_while_the_bot_searches_loses_no_reply() {
    let (out, json) = simulate(
        "serial",
        &[
            "--games",
            "4",
            "--seed",
            "5",
            "--transport",
            "serial",
            "--rate",
            "pull=0.15",
            "--rate",
            "slow=0.05",
        ],
    );
    assert_clean_run(&out, &json);
    assert!(field(&json, "link_faults") >= 3, "{json}");
    assert!(field(&json, "slow_reads") >= 1, "{json}");
}

#[test]
fn a_tcp_connection_dropped_while_the_bot_searches_gets_its_move_by_repeat() {
    let (out, json) = simulate(
        "tcp",
        &[
            "--games",
            "4",
            "--seed",
            "6",
            "--transport",
            "tcp",
            "--rate",
            "pull=0.15",
            "--rate",
            "slow=0",
        ],
    );
    assert_clean_run(&out, &json);
    assert!(field(&json, "link_faults") >= 3, "{json}");
    assert_eq!(
        field(&json, "recovered_by_repeat"),
        field(&json, "link_faults"),
        "{json}"
    );
}

#[test]
fn every_board_size_colour_only_and_rotated_cameras() {
    for (tag, extra) in [
        ("s4", vec!["--size", "4"]),
        ("s6", vec!["--size", "6"]),
        ("s10", vec!["--size", "10", "--depth", "2"]),
        ("s12", vec!["--size", "12", "--depth", "2"]),
        ("colour", vec!["--colour-only"]),
        ("rotated", vec!["--rotated"]),
    ] {
        let mut args = vec![
            "--games",
            "16",
            "--seed",
            "9",
            "--jobs",
            "2",
            "--rate",
            "slow=0",
            "--rate",
            "misread=0.2",
        ];
        args.extend(extra);
        let (out, json) = simulate(tag, &args);
        assert_clean_run(&out, &json);
        let f = fault(&json, "misread+move");
        let (unique, exact) = (field(&f, "unique"), field(&f, "unique_named_exactly"));
        assert!(unique >= 5, "{tag}: {f}");
        assert!(
            exact * 100 >= unique * 90,
            "{tag}: {exact} of {unique}: {f}"
        );
    }
}

#[test]
fn the_judge_catches_a_daemon_that_commands_wrong_moves() {
    let stand_in = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/simulate/wrong_daemon.sh");
    let stand_in = stand_in.to_string_lossy().to_string();
    let (out, json) = simulate(
        "wrong",
        &["--games", "4", "--no-faults", "--daemon", &stand_in],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAILED"));
    assert_eq!(field(&json, "wrong_commands"), 4, "{json}");
    assert_eq!(field(&json, "finished"), 0, "{json}");
    // The real daemon in lenient mode takes misread boards for new positions and answers them
    // with moves: every such answer is a wrong command.
    let (out, json) = simulate(
        "lenient",
        &[
            "--games",
            "6",
            "--no-faults",
            "--rate",
            "misread=0.3",
            "--daemon-arg=--lenient",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    assert!(field(&json, "wrong_commands") >= 1, "{json}");
}

#[test]
fn bad_settings_are_refused_with_the_reason() {
    for (args, says) in [
        (vec!["--rate", "glare=0.1"], "unknown rate 'glare'"),
        (vec!["--rate", "misread=3"], "from 0 to 1"),
        (vec!["--size", "7"], "--size takes 4, 6, 8, 10 or 12"),
        (vec!["--jobs", "0"], "--jobs takes 1 to 16"),
    ] {
        let out = Command::new(BIN)
            .arg("simulate")
            .args(&args)
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
