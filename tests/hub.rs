//! `checkersbot hub` driven by another program's Hub client: pydraughts' own `HubEngine` plays a
//! whole game against the daemon (`serve`), a few games from random openings, and a game against
//! another `checkersbot hub` (so the Hub engine plays both colours); pydraughts checks every move
//! with its own rules (`tests/hub/hub_games.py`). Skipped with a note where Python or pydraughts is
//! missing, except in CI (`CI` set), which installs it. The Hub lines themselves are unit-tested in
//! `src/hosts/hub.rs`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
#[cfg_attr(
    not(has_pydraughts),
    ignore = "needs pydraughts: pip install pydraughts==0.6.7, then touch build.rs"
)]
fn pydraughts_hub_engine_plays_whole_games() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/hub/hub_games.py");
    let run = Command::new("python3")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_checkersbot"))
        .output();
    let run = run.expect("python3 runs");
    assert_ne!(run.status.code(), Some(3), "pydraughts is missing");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(said.contains("all games played through"), "{said}");
    assert_eq!(said.matches(" plies, ").count(), 5, "{said}");
}

/// The Hub loop answers `ping` and `stop` while an analysis with no limit runs, writes `done` with a
/// legal move after `stop`, refuses a variant it does not play with an error line, and keeps going.
#[test]
fn hub_answers_while_searching_and_refuses_other_variants() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_checkersbot"))
        .args(["hub", "--egdb", "off"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("hub starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut next = |want: &str| -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            assert!(Instant::now() < deadline, "no line starting {want}");
            let line = lines.next().expect("a line").expect("text");
            if line.starts_with(want) {
                return line;
            }
        }
    };
    writeln!(stdin, "hub").unwrap();
    assert!(next("id ").contains("name=checkersbot"));
    next("wait");
    writeln!(stdin, "set-param name=variant value=frisian").unwrap();
    assert!(next("error").contains("frisian"));
    writeln!(stdin, "init").unwrap();
    next("ready");
    writeln!(
        stdin,
        "pos pos=Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww moves=\"12-16 21-17\""
    )
    .unwrap();
    writeln!(stdin, "level infinite").unwrap();
    writeln!(stdin, "go analyze").unwrap();
    next("info depth=");
    let asked = Instant::now();
    writeln!(stdin, "ping").unwrap();
    next("pong");
    writeln!(stdin, "stop").unwrap();
    let done = next("done move=");
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    let mv = done["done move=".len()..]
        .split_whitespace()
        .next()
        .unwrap();
    // Black to move after 12-16 21-17: one of its legal moves (a man from 5 to 12 or 16).
    let from: u32 = mv.split(['-', 'x']).next().unwrap().parse().unwrap();
    assert!((5..=16).contains(&from), "{done}");
    writeln!(stdin, "pos pos=Wbbb").unwrap();
    assert!(next("error").contains("bad position"));
    writeln!(stdin, "quit").unwrap();
    let status = child.wait().expect("exit");
    assert!(status.success());
}
