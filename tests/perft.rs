//! Perft figures as data: every `tests/data/perft_*.txt` file is read and each of its positions is
//! counted to every listed depth, with the fast perft and (for small counts) with the slow one that
//! goes through `generate` and `play`.
//!
//! File format: a `board ROWS SIDE` line (the one-line board form and `p` or `b`), then lines of
//! `depth leaves` for that board; a file may hold several boards. Blank lines and lines starting
//! with `#` are skipped.
//!
//! In a debug build (`cargo test` without `--release`) depths whose count exceeds twenty million
//! are skipped.

use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::board::Grid;
use checkersbot::rules::movegen::perft_by_moves;
use checkersbot::rules::position::Side;
use checkersbot::with_position;
use std::path::{Path, PathBuf};

/// One board of a data file with its expected counts.
#[derive(Debug)]
struct Case {
    file: String,
    line_no: usize,
    board: String,
    side: Side,
    counts: Vec<(u32, u64)>,
}

fn parse_file(path: &Path) -> Vec<Case> {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).unwrap();
    let mut cases: Vec<Case> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["board", board, side] => cases.push(Case {
                file: name.clone(),
                line_no: i + 1,
                board: board.to_string(),
                side: Side::from_letter(side)
                    .unwrap_or_else(|| panic!("{name}:{}: bad side {side}", i + 1)),
                counts: Vec::new(),
            }),
            [depth, leaves] => {
                let case = cases
                    .last_mut()
                    .unwrap_or_else(|| panic!("{name}:{}: counts before any board", i + 1));
                let (Ok(depth), Ok(leaves)) = (depth.parse::<u32>(), leaves.parse::<u64>()) else {
                    panic!("{name}:{}: bad line '{line}'", i + 1);
                };
                case.counts.push((depth, leaves));
            }
            _ => panic!("{name}:{}: cannot read '{line}'", i + 1),
        }
    }
    cases
}

fn data_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("perft_") && name.ends_with(".txt")
        })
        .collect();
    files.sort();
    files
}

/// Largest count checked in a debug build.
const DEBUG_LIMIT: u64 = 20_000_000;
/// Largest count also checked through `generate` and `play`.
const SLOW_LIMIT: u64 = 300_000;

#[test]
fn perft_data_files() {
    let files = data_files();
    assert!(
        files.iter().any(|f| f.ends_with("perft_8x8.txt")),
        "no data files found"
    );
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in &files {
        let cases = parse_file(path);
        assert!(!cases.is_empty(), "{} holds no board", path.display());
        for case in cases {
            let grid = Grid::parse_line(&case.board)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", case.file, case.line_no));
            let pos = AnyPosition::from_grid(&grid, case.side);
            assert!(
                !case.counts.is_empty(),
                "{}:{}: no counts",
                case.file,
                case.line_no
            );
            for &(depth, want) in &case.counts {
                if cfg!(debug_assertions) && want > DEBUG_LIMIT {
                    continue;
                }
                let got = pos.perft(depth);
                checked += 1;
                if got != want {
                    failures.push(format!(
                        "{}:{}: {} {} depth {depth}: got {got}, expected {want}",
                        case.file, case.line_no, case.board, case.side
                    ));
                }
                if want <= SLOW_LIMIT {
                    let slow = with_position!(&pos, p => perft_by_moves(p, depth));
                    if slow != want {
                        failures.push(format!(
                            "{}:{}: {} {} depth {depth}: perft_by_moves got {slow}, expected {want}",
                            case.file, case.line_no, case.board, case.side
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 0);
}

#[test]
fn depth_zero_is_one_leaf() {
    for path in data_files() {
        for case in parse_file(&path) {
            let pos = AnyPosition::from_grid(&Grid::parse_line(&case.board).unwrap(), case.side);
            assert_eq!(pos.perft(0), 1);
        }
    }
}
