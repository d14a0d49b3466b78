//! Runs the real binary: `play` driven through its standard input, `match` with a PDN file,
//! `search` with search knobs.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_checkersbot"))
}

/// The standard output of a run that had to succeed (`what` names it; a failure shows both
/// streams).
fn succeeded(out: &Output, what: &str) -> String {
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what}: {}\nstdout:\n{text}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The standard error of a run that had to fail (`what` names it).
fn failed(out: &Output, what: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{what} was accepted: {err}");
    err
}

/// 8x8 self-play data of `games` games at 300 nodes a move, written to `dir/d.cbsp`.
fn selfplay_data(dir: &std::path::Path, games: u32) -> std::path::PathBuf {
    let data = dir.join("d.cbsp");
    let made = bin()
        .args(["selfplay", "--nodes", "300", "--threads", "1", "--games"])
        .arg(games.to_string())
        .arg("--out")
        .arg(&data)
        .output()
        .expect("binary runs");
    succeeded(&made, "selfplay");
    data
}

#[test]
fn play_over_stdin_on_a_10x10_layout() {
    let record = std::env::temp_dir().join(format!("checkersbot-play-{}.txt", std::process::id()));
    let mut child = bin()
        .args([
            "play",
            "--layout",
            "layouts/10x10.board",
            "--depth",
            "2",
            "--seed",
            "5",
        ])
        .arg("--pdn")
        .arg(&record)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"G1 F1\nG1 F2\nundo\nG1 F2\nquit\n")
        .expect("write");
    let out = child.wait_with_output().expect("finishes");
    let text = succeeded(&out, "play");
    assert!(
        text.starts_with("checkersbot: 10x10 checkers, level medium (custom limits).\nYou play p"),
        "{text}"
    );
    assert!(
        text.contains("Refused: square F1 is a light square"),
        "{text}"
    );
    assert!(text.contains("You: G1 F2"), "{text}");
    assert!(
        text.contains("Took back your G1 F2 and the bot's "),
        "{text}"
    );
    assert!(!text.contains('\x1b'), "no colour when not a terminal");
    assert!(text.contains("Game saved to "), "{text}");
    let saved = std::fs::read_to_string(&record).expect("record written");
    assert!(
        saved.contains("# Result: unfinished (level medium (custom limits))"),
        "{saved}"
    );
    assert!(saved.contains("\n1. p G1 F2\n"), "{saved}");
    let _ = std::fs::remove_file(&record);
}

#[test]
fn match_against_random_writes_pdn() {
    let dir = std::env::temp_dir().join(format!("checkersbot-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let pdn = dir.join("games.pdn");
    let out = bin()
        .args([
            "match",
            "--games",
            "2",
            "--depth-a",
            "3",
            "--player-b",
            "random",
            "--seed",
            "9",
        ])
        .arg("--pdn")
        .arg(&pdn)
        .output()
        .expect("binary runs");
    let text = succeeded(&out, "match --pdn");
    assert!(
        text.contains("game 1/2: d3 first vs random: d3 wins"),
        "{text}"
    );
    assert!(text.contains("2 games: d3 2-0-0 random"), "{text}");
    let games = std::fs::read_to_string(&pdn).expect("pdn written");
    assert_eq!(games.matches("[Event ").count(), 2, "{games}");
    assert!(
        games.contains("[Black \"d3\"]\n[White \"random\"]\n[Result \"0-1\"]"),
        "{games}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn match_student_against_random() {
    let out = bin()
        .args([
            "match",
            "--games",
            "2",
            "--player-a",
            "student",
            "--depth-a",
            "3",
            "--player-b",
            "random",
            "--seed",
            "4",
        ])
        .output()
        .expect("binary runs");
    let text = succeeded(&out, "match with the student");
    assert!(text.contains("2 games: student-d3 2-0-0 random"), "{text}");
    // The table has the student's search figures: depth 3 reached.
    let row = text
        .lines()
        .find(|l| l.starts_with("student-d3 "))
        .expect("student row");
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols[6], "3", "maxdepth column: {row}");
    // Options that do not apply to the student are refused.
    let out = bin()
        .args(["match", "--player-b", "student", "--threads-b", "2"])
        .output()
        .expect("binary runs");
    assert!(failed(&out, "--threads-b for the student").contains("student"));
}

/// `match --openings acf3:A-B` plays every ballot of the range twice, colours swapped, names the
/// ballot in each progress line and counts the losses by opening side; more games than the range
/// has, or a deck on another board, are refused.
#[test]
fn match_on_a_deck_range_plays_each_ballot_twice() {
    let out = bin()
        .args([
            "match",
            "--openings",
            "acf3:3-4",
            "--depth-a",
            "2",
            "--depth-b",
            "1",
        ])
        .args(["--player-b", "random", "--seed", "2"])
        .output()
        .expect("binary runs");
    let text = succeeded(&out, "match on the deck");
    assert!(
        text.contains("4 games from") && text.contains("openings acf3:3-4 (2 ballots)"),
        "{text}"
    );
    for (g, b) in [(1, 3), (2, 3), (3, 4), (4, 4)] {
        assert!(
            text.contains(&format!("game {g}/4 (ballot {b}): ")),
            "game {g}: {text}"
        );
    }
    assert!(text.contains("\n4 games: d2 "), "{text}");
    assert!(text.contains("losses by opening side: d2 "), "{text}");
    for bad in [
        &["--openings", "acf3:3-4", "--games", "5"][..],
        &["--openings", "acf3:3-4", "--size", "6"],
        &["--openings", "acf3:150-160"],
    ] {
        let out = bin().arg("match").args(bad).output().expect("binary runs");
        let err = failed(&out, &format!("{bad:?}"));
        assert!(err.contains("acf3"), "{bad:?}: {err}");
    }
    let out = bin()
        .args(["match", "--openings", "acf4"])
        .output()
        .expect("binary runs");
    assert_eq!(out.status.code(), Some(2), "a bad value is a usage error");
}

/// The row of `player` in a match's final table, and its last column: the longest move, ms.
fn longest_move<'a>(text: &'a str, player: &str) -> (&'a str, f64) {
    let row = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(player))
        .unwrap_or_else(|| panic!("no row for {player}: {text}"));
    let max_ms = row
        .split_whitespace()
        .last()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no max ms: {row}"));
    (row, max_ms)
}

/// `--early-a MS:PLY` gives A another time per move before a ply: with 5 ms a move and 400 ms
/// before ply 12 (after a random opening of 4 plies: four moves of A's), A's longest move takes
/// far longer than 5 ms (a floor, which a loaded machine only raises). With a clock or a player
/// that is not an engine it is refused.
#[test]
fn match_early_time_applies_before_its_ply_only_to_an_engine_without_a_clock() {
    let out = bin()
        .args([
            "match",
            "--games",
            "2",
            "--movetime-a",
            "5",
            "--early-a",
            "400:12",
        ])
        .args(["--player-b", "random", "--max-plies", "20", "--seed", "3"])
        .output()
        .expect("binary runs");
    let text = succeeded(&out, "match --early-time");
    let (row, max_ms) = longest_move(&text, "5ms-early400:12");
    assert!(max_ms >= 100.0, "{row}");
    for bad in [
        &["--early-a", "100:4", "--clock-a", "5+1"][..],
        &["--early-a", "100:4", "--player-a", "random"],
        &["--early-b", "100:4", "--player-b", "student"],
    ] {
        let out = bin().arg("match").args(bad).output().expect("binary runs");
        let err = failed(&out, &format!("{bad:?}"));
        assert!(
            err.contains("--early-") && err.contains("without a game clock"),
            "{bad:?}: {err}"
        );
    }
}

/// `--after-book-a FACTOR:MOVES` gives A's first moves out of the book the time its book moves
/// left unspent: at 20 ms a move from ballot 1, where the built-in book answers A's first moves
/// (a book move takes no search), A's longest move takes well over 20 ms (each book move banks
/// about 20 ms; a loaded machine only makes moves longer). It is refused for a player that is
/// not an engine.
#[test]
fn match_time_after_the_book_spends_what_the_book_moves_left() {
    let out = bin()
        .args(["match", "--openings", "acf3:1", "--movetime-a", "20"])
        .args([
            "--movetime-b",
            "20",
            "--after-book-a",
            "10:2",
            "--max-plies",
            "30",
        ])
        .output()
        .expect("binary runs");
    let text = succeeded(&out, "match --after-book-a");
    let (row, max_ms) = longest_move(&text, "A:20ms-afterbook10:2");
    assert!(max_ms >= 40.0, "{row}");
    for bad in [
        &["--after-book-a", "2:4", "--player-a", "random"][..],
        &["--after-book-b", "2:4", "--player-b", "student"],
    ] {
        let out = bin().arg("match").args(bad).output().expect("binary runs");
        let err = failed(&out, &format!("{bad:?}"));
        assert!(err.contains("--after-book-"), "{bad:?}: {err}");
    }
    for bad in ["1:4", "2:0", "2", "x:1"] {
        let out = bin()
            .args(["match", "--after-book-a", bad])
            .output()
            .expect("binary runs");
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bad}: a bad value is a usage error"
        );
    }
}

/// The first SIGTERM ends a long match after the game being played: it exits cleanly with the
/// table of the games played and says that it was stopped.
#[cfg(unix)]
#[test]
fn match_stops_on_sigterm_after_the_game_and_prints_its_table() {
    use std::io::{BufRead, BufReader, Read};
    let mut child = bin()
        .args([
            "match",
            "--games",
            "400",
            "--movetime-a",
            "20",
            "--movetime-b",
            "20",
        ])
        .args(["--book", "off", "--seed", "3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut header = String::new();
    stdout.read_line(&mut header).expect("read");
    // The header comes after the signals are taken over, so the signal cannot kill it.
    assert!(header.starts_with("match: "), "{header}");
    common::signal(&child, libc::SIGTERM);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("read");
    let out = child.wait_with_output().expect("it ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{rest}{err}");
    assert!(err.contains("stopping after this game"), "{err}");
    let played = rest
        .lines()
        .find_map(|l| l.strip_prefix("match stopped by a signal after "))
        .and_then(|l| l.strip_suffix(" of 400 games"))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("no stop line: {rest}"));
    assert!((1..400).contains(&played), "{rest}");
    assert_eq!(rest.matches(" (wins-losses-draws)").count(), 1, "{rest}");
    assert_eq!(
        rest.lines().filter(|l| l.starts_with("game ")).count(),
        played,
        "{rest}"
    );
    assert!(rest.contains(&format!("\n{played} games: ")), "{rest}");
}

/// PDN written by `match` replays move for move in another program, pydraughts, for games from the
/// standard start and for games where `p` (PDN's White) moves first from a set-up position. Skipped
/// with a note where Python or pydraughts is missing, except in CI (`CI` set), which installs it.
#[test]
#[cfg_attr(
    not(has_pydraughts),
    ignore = "needs pydraughts: pip install pydraughts==0.6.7, then touch build.rs"
)]
fn pdn_is_read_by_pydraughts() {
    let dir = std::env::temp_dir().join(format!("checkersbot-pdn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/pdn/replay_pydraughts.py"
    );
    for side in ["b", "p"] {
        let pdn = dir.join(format!("games-{side}.pdn"));
        let out = bin()
            .args(["match", "--games", "4", "--depth-a", "3", "--depth-b", "2"])
            .args(["--seed", "3", "--side", side])
            .arg("--pdn")
            .arg(&pdn)
            .output()
            .expect("binary runs");
        succeeded(&out, "match for pydraughts");
        let run = Command::new("python3").arg(script).arg(&pdn).output();
        assert_ne!(
            run.as_ref().ok().and_then(|r| r.status.code()),
            Some(3),
            "pydraughts is missing"
        );
        let run = run.expect("python3 runs");
        let said = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "pydraughts could not replay the games with {side} to move first: {said}{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(said.starts_with("replayed 4 games, "), "{said}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `selfplay --eval FILE` plays with those weights (the next generation's data comes from the last
/// generation): the same games differ from the hand evaluation's, the same weights give the same
/// file twice, and a file that is not weights is refused before anything is written.
#[test]
fn selfplay_plays_with_the_weights_it_is_given() {
    let dir = std::env::temp_dir().join(format!("checkersbot-selfplay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let run = |eval: &str, name: &str| {
        let out = dir.join(name);
        let _ = std::fs::remove_file(&out);
        let res = bin()
            .args([
                "selfplay",
                "--games",
                "3",
                "--nodes",
                "400",
                "--threads",
                "2",
            ])
            .args(["--seed", "7", "--eval", eval, "--out"])
            .arg(&out)
            .output()
            .expect("binary runs");
        (res, std::fs::read(&out).unwrap_or_default())
    };
    let weights = concat!(env!("CARGO_MANIFEST_DIR"), "/weights/8x8-gen1x.cbev");
    let (ok1, learned1) = run(weights, "a.cbsp");
    let (ok2, learned2) = run(weights, "b.cbsp");
    let (ok3, hand) = run("hand", "c.cbsp");
    let (ok4, built_in) = run("learned", "e.cbsp");
    for r in [&ok1, &ok2, &ok3, &ok4] {
        succeeded(r, "selfplay");
    }
    assert!(learned1.len() > 100, "records written");
    assert_eq!(learned1, learned2, "deterministic for a seed");
    assert_ne!(learned1, hand, "the weights play other games");
    assert!(
        built_in.len() > 100 && built_in != hand,
        "the built-in weights play"
    );
    let (bad, written) = run("Cargo.toml", "d.cbsp");
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("--eval") && err.contains("Cargo.toml"),
        "{err}"
    );
    assert!(written.is_empty(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The last line of `search` before `move`: the final iteration's statistics.
fn search_final_line(knobs: &str) -> String {
    let out = bin()
        .args(["search", "--depth", "9", "--egdb", "off", "--book", "off"])
        .args(["--search", knobs])
        .output()
        .expect("binary runs");
    let text = succeeded(&out, knobs);
    let last = text
        .lines()
        .find(|l| l.contains(" stop "))
        .unwrap_or_else(|| panic!("{knobs}: no final line in {text}"));
    // The time and speed differ from run to run; the tree does not.
    let mut kept = Vec::new();
    let mut words = last.split(' ');
    while let Some(w) = words.next() {
        if w == "nps" || w == "time" {
            words.next();
        } else {
            kept.push(w);
        }
    }
    kept.join(" ")
}

#[test]
fn search_takes_knobs_prefetch_keeps_the_tree_and_a_bad_knob_is_named() {
    // Prefetching the table and its large pages only change speed: the same nodes, score and
    // line.
    let with = search_final_line("");
    assert_eq!(with, search_final_line("prefetch=0"));
    assert_eq!(with, search_final_line("large_pages=0"));
    let two_way = search_final_line("tt_ways=2");
    assert_eq!(
        two_way,
        search_final_line("tt_ways=2,large_pages=0,prefetch=0")
    );
    assert!(with.contains("depth 9"), "{with}");
    // A knob that changes the search changes the tree.
    assert_ne!(with, search_final_line("probcut=0,rfp=0,lmr=0"));
    // Without the history malus the same moves are ordered differently: another tree.
    assert_ne!(with, search_final_line("hmalus=0"));
    let out = bin()
        .args(["search", "--depth", "3", "--search", "speed=9"])
        .output()
        .expect("binary runs");
    let err = failed(&out, "search --search speed=9");
    assert!(
        err.contains("--search: unknown search knob 'speed'"),
        "{err}"
    );
}

/// `train --tiling staggered` from the built-in (sparse) weights: with no epochs the new regions
/// are empty, so the file searches the very tree the built-in weights do; trained, it writes the
/// 13 regions' tables; a tiling that does not exist is named.
#[test]
fn train_retiles_the_regions_and_keeps_what_the_weights_knew() {
    let dir = std::env::temp_dir().join(format!("checkersbot-tiling-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let data = selfplay_data(&dir, 4);
    let train = |extra: &[&str], out: &std::path::Path| {
        bin()
            .arg("train")
            .arg("--data")
            .arg(&data)
            .args(["--init", "weights/8x8.cbev", "--threads", "1"])
            .args(extra)
            .arg("--out")
            .arg(out)
            .output()
            .expect("binary runs")
    };
    let same = dir.join("same.cbev");
    let r = train(&["--tiling", "staggered", "--epochs", "0"], &same);
    succeeded(&r, "train");
    assert!(
        String::from_utf8_lossy(&r.stdout).contains("13 regions (staggered)"),
        "{}",
        String::from_utf8_lossy(&r.stdout)
    );
    let search = |eval: &str| {
        let out = bin()
            .args(["search", "--depth", "9", "--egdb", "off", "--book", "off"])
            .args(["--eval", eval])
            .output()
            .expect("binary runs");
        let text = succeeded(&out, eval);
        let last = text.lines().find(|l| l.contains(" stop ")).map(|l| {
            let w: Vec<&str> = l.split(' ').collect();
            // Score, nodes and line: the tree, not its time.
            let at = |k: &str| w.iter().position(|x| *x == k).map(|i| w[i + 1].to_string());
            (at("cp"), at("nodes"), at("pv"))
        });
        last.unwrap_or_else(|| panic!("{eval}: no final line in {text}"))
    };
    let same_path = same.to_string_lossy().into_owned();
    assert_eq!(search(&same_path), search("learned"));
    let trained = dir.join("trained.cbev");
    let r = train(&["--tiling", "staggered", "--epochs", "1"], &trained);
    succeeded(&r, "train");
    let bytes = std::fs::read(&trained).expect("weights written");
    let w = checkersbot::engine::eval::LearnedWeights::from_bytes(&bytes).expect("weights load");
    assert_eq!(w.tiling, checkersbot::engine::eval::Tiling::Staggered);
    assert_ne!(search(&trained.to_string_lossy()), search("learned"));
    let r = train(&["--tiling", "diagonal"], &dir.join("bad.cbev"));
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains("diagonal") && err.contains("staggered"),
        "{err}"
    );
    // An anchor needs weights to be anchored to.
    let r = bin()
        .arg("train")
        .arg("--data")
        .arg(&data)
        .args(["--anchor", "--out"])
        .arg(dir.join("anchored.cbev"))
        .output()
        .expect("binary runs");
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("--init"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `match --adjudicate-egdb` ends games at the database's positions and says so; a directory
/// without a database is refused with a message naming the flag.
#[test]
fn match_adjudicated_by_an_endgame_database() {
    let dir = std::env::temp_dir().join(format!("checkersbot-adjudicate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = bin()
        .args([
            "egdb",
            "build",
            "--size",
            "6",
            "--pieces",
            "4",
            "--threads",
            "1",
        ])
        .arg("--dir")
        .arg(&dir)
        .output()
        .expect("binary runs");
    succeeded(&out, "egdb build");
    let out = bin()
        .args([
            "match",
            "--size",
            "6",
            "--player-a",
            "random",
            "--player-b",
            "random",
        ])
        .args(["--games", "10", "--seed", "4", "--adjudicate-egdb"])
        .arg(&dir)
        .output()
        .expect("binary runs");
    let text = succeeded(&out, "match --adjudicate-egdb");
    assert!(
        text.contains(&format!(
            "adjudicated by the endgame database {}",
            dir.display()
        )),
        "{text}"
    );
    assert!(text.contains("(endgame database"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
    let out = bin()
        .args(["match", "--size", "6", "--games", "2", "--adjudicate-egdb"])
        .arg(&dir)
        .output()
        .expect("binary runs");
    let err = failed(&out, "match --adjudicate-egdb without a database");
    assert!(err.contains("--adjudicate-egdb"), "{err}");
}

/// `selfplay --pdn` keeps the games as text, read back (`train --data`) as exactly the records
/// of the data file; the first SIGTERM stops the run after the games being played, both files
/// whole; other sizes are refused.
#[cfg(unix)]
#[test]
fn selfplay_keeps_its_games_and_stops_whole_on_sigterm() {
    use checkersbot::learn::data::read_all;
    let dir = std::env::temp_dir().join(format!("checkersbot-kept-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (data, games) = (dir.join("g.cbsp"), dir.join("g.pdn"));
    let child = bin()
        .args([
            "selfplay",
            "--games",
            "100000",
            "--nodes",
            "300",
            "--threads",
            "2",
        ])
        .args([
            "--openings",
            "acf3",
            "--vary-plies",
            "2",
            "--egdb",
            "off",
            "--out",
        ])
        .arg(&data)
        .arg("--pdn")
        .arg(&games)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    // A game written means the signals were taken over (first thing the command does).
    let waited = std::time::Instant::now();
    while std::fs::metadata(&games).map_or(0, |m| m.len()) == 0 {
        assert!(waited.elapsed().as_secs() < 120, "no game written");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    common::signal(&child, libc::SIGTERM);
    let out = child.wait_with_output().expect("it ends");
    let (said, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{said}{err}");
    assert!(
        err.contains("stopping after the games being played"),
        "{err}"
    );
    let played: usize = said
        .split(" games (")
        .next()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no summary: {said}"));
    assert!((1..100000).contains(&played), "{said}");
    let text = std::fs::read_to_string(&games).expect("games kept");
    assert_eq!(text.matches("[Event ").count(), played, "{said}");
    let (_, from_games) = read_all(&games).expect("the games read as data");
    let (_, from_data) = read_all(&data).expect("data");
    assert!(!from_data.is_empty());
    assert_eq!(from_games, from_data);
    let refused = bin()
        .args(["selfplay", "--size", "6", "--games", "1", "--out"])
        .arg(dir.join("six.cbsp"))
        .arg("--pdn")
        .arg(dir.join("six.pdn"))
        .output()
        .expect("binary runs");
    let err = failed(&refused, "selfplay --pdn on 6x6");
    assert!(err.contains("--pdn") && err.contains("8x8"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `relabel --from-ply/--before-ply` chooses a window of plies (an empty one is refused, named);
/// SIGTERM stops it with every record it finished in the file, and the same command resumes
/// after them.
#[cfg(unix)]
#[test]
fn relabel_stops_on_sigterm_and_the_same_command_resumes() {
    let dir = std::env::temp_dir().join(format!("checkersbot-relabel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let data = selfplay_data(&dir, 2);
    let out = dir.join("deep.cbsp");
    let relabel = |window: [&str; 4]| {
        let mut c = bin();
        c.arg("relabel")
            .arg("--data")
            .arg(&data)
            .arg("--out")
            .arg(&out)
            .args(window)
            // Far more than the test waits for: each search takes a good part of a second.
            .args(["--nodes", "3000000", "--hash", "4", "--threads", "1"]);
        c
    };
    let empty = relabel(["--from-ply", "30", "--before-ply", "30"])
        .output()
        .expect("binary runs");
    let err = failed(&empty, "an empty window");
    assert!(err.contains("--from-ply 30 chooses nothing"), "{err}");
    assert!(!out.exists(), "nothing written for a refused run");

    use checkersbot::learn::data::{record_len, HEADER_LEN};
    const HEADER: u64 = HEADER_LEN as u64;
    let record = record_len(checkersbot::rules::geometry::BoardSize::S8) as u64;
    let len = || std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
    // Runs the command until the file holds more than `above` bytes, then stops it.
    let run_and_stop = |above: u64| {
        let child = relabel(["--from-ply", "10", "--before-ply", "40"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let waited = std::time::Instant::now();
        while len() <= above && waited.elapsed() < std::time::Duration::from_secs(120) {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        common::signal(&child, libc::SIGTERM);
        let done = child.wait_with_output().expect("it ends");
        let err = String::from_utf8_lossy(&done.stderr).into_owned();
        let text = succeeded(&done, "relabel stopped");
        assert!(
            err.contains("stopping after the searches under way"),
            "{err}"
        );
        (text, err)
    };
    let (text, _) = run_and_stop(HEADER);
    let first = len();
    assert!(
        (first - HEADER).is_multiple_of(record),
        "whole records only"
    );
    let kept = (first - HEADER) / record;
    assert!(kept >= 1, "{text}");
    // "k/N chosen positions of M relabelled": stopped well before the end.
    let total: u64 = text
        .split_once('/')
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {text}"));
    assert!(kept < total && total > 20, "{text}");
    let (text, err) = run_and_stop(first);
    assert!(
        err.contains(&format!("holds {kept} records; resuming after them")),
        "{err}"
    );
    assert!(
        len() > first && (len() - HEADER).is_multiple_of(record),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
