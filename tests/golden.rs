//! Golden transcripts: every recorded session in `tests/sessions/*.in` and every example in
//! `protocol/examples/*.txt` is replayed through the daemon in deterministic mode (depth limit from
//! the session, one thread, no timings, one line at a time) and each reply line is compared with the
//! stored transcript (`> ` input, `< ` reply).
//!
//! To regenerate the stored transcripts after an intended change, run
//! `CHECKERSBOT_BLESS=1 cargo test --release --test golden` and read the diff before committing.

mod common;

use std::path::{Path, PathBuf};

fn bless() -> bool {
    std::env::var_os("CHECKERSBOT_BLESS").is_some_and(|v| v != "0")
}

fn compare(name: &Path, expected_file: &Path, got: &[String]) -> Result<(), String> {
    let text = got.join("\n") + "\n";
    if bless() {
        std::fs::write(expected_file, &text).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let expected = std::fs::read_to_string(expected_file)
        .map_err(|e| format!("{}: {e}", expected_file.display()))?;
    let want: Vec<&str> = expected.lines().collect();
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        if w != g {
            return Err(format!(
                "{}: line {}:\n  expected: {w}\n  got:      {g}",
                name.display(),
                i + 1
            ));
        }
    }
    if want.len() != got.len() {
        return Err(format!(
            "{}: expected {} lines, got {}",
            name.display(),
            want.len(),
            got.len()
        ));
    }
    Ok(())
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == ext))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn recorded_sessions_replay_to_their_golden_transcripts() {
    let sessions = files("tests/sessions", "in");
    assert!(sessions.len() >= 10, "sessions missing: {sessions:?}");
    let mut failures = Vec::new();
    for path in &sessions {
        let input = std::fs::read(path).unwrap_or_default();
        let got = common::replay_transcript(input);
        if let Err(e) = compare(path, &path.with_extension("out"), &got) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn protocol_examples_replay_as_written() {
    let examples = files("protocol/examples", "txt");
    assert!(!examples.is_empty());
    let mut failures = Vec::new();
    for path in &examples {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let input: String = text
            .lines()
            .filter_map(|l| {
                l.strip_prefix("> ")
                    .or(if l == ">" { Some("") } else { None })
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let got = common::replay_transcript(input.into_bytes());
        if let Err(e) = compare(path, path, &got) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The spec quotes `basics.txt` whole; the quote must be the transcript the test replays.
#[test]
fn spec_quotes_the_basics_example_as_replayed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = std::fs::read_to_string(root.join("protocol/PROTOCOL.md")).unwrap_or_default();
    let basics =
        std::fs::read_to_string(root.join("protocol/examples/basics.txt")).unwrap_or_default();
    assert!(!basics.is_empty());
    assert!(
        spec.contains(&basics),
        "protocol/PROTOCOL.md no longer quotes protocol/examples/basics.txt as it is"
    );
}

// Every other transcript the spec quotes is replayed by `tests/docs.rs`.
