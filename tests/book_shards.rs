//! A book grown in shards on an existing scheduler: GNU parallel runs four `book build --shard
//! K/4` (and `book lines --shard K/4`) processes side by side, `book merge` combines them, and the
//! merge equals the book one process grows with the same settings. Also the command line's
//! refusals: bad shard numbers, settings that cannot be sharded, shards that are not one job.
//!
//! GNU parallel is the Debian package `parallel`; `.ci/run` installs it. Where it is missing the
//! tests that drive it are marked ignored by `build.rs` (with what to install), except under CI,
//! where they fail, saying so.

mod common;

use checkersbot::engine::book::shard::Shard;
use checkersbot::engine::book::Book;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_checkersbot")
}

/// Runs the binary: stdout, stderr, success.
fn run(args: &[&str]) -> (String, String, bool) {
    common::run_binary(args)
}

/// GNU parallel, or a failure that says how to install it.
fn gnu_parallel() -> PathBuf {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("parallel"))
            .find(|p| p.is_file())
    });
    let Some(path) = found else {
        panic!(
            "GNU parallel is not installed: install the Debian package `parallel` \
             (apt-get install parallel); CI installs it (.ci/run)"
        );
    };
    let out = Command::new(&path)
        .arg("--version")
        .output()
        .expect("parallel runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("GNU parallel"),
        "{} is not GNU parallel (moreutils has another `parallel`): install the Debian package \
         `parallel`; it says: {text}",
        path.display()
    );
    path
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("checkersbot-shards-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs `command` (words, `{}` the shard number) for shards 1 to 4 under GNU parallel, four at
/// a time; panics with their output if one fails.
fn four_shards_under_parallel(parallel: &Path, command: &[String]) {
    let mut args: Vec<String> = ["--will-cite", "--halt", "now,fail=1", "-j", "4", "--"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(bin().to_string());
    args.extend(command.iter().cloned());
    args.extend([":::", "1", "2", "3", "4"].iter().map(|s| s.to_string()));
    let out = Command::new(parallel)
        .args(&args)
        .output()
        .expect("GNU parallel runs");
    assert!(
        out.status.success(),
        "parallel {}:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// The book's file bytes with its two clock fields (wall-clock and CPU seconds) zeroed: the only
/// part of the header a merge cannot give as one process does.
fn without_clocks(book: &Book) -> Vec<u8> {
    let mut b = book.clone();
    b.info_mut().seconds = 0;
    b.info_mut().cpu_seconds = 0;
    b.to_bytes().expect("writes")
}

/// Two generations of four shards from the committed book (each `book build --shard K/4` its own
/// process under GNU parallel, then `book merge`), against one `book build --rounds 2` from the
/// same book with the same settings: the same file, byte for byte but for the clocks.
#[test]
#[cfg_attr(
    not(has_parallel),
    ignore = "needs GNU parallel: apt-get install parallel, then touch build.rs"
)]
fn four_shards_under_gnu_parallel_merge_into_the_one_process_book() {
    let parallel = gnu_parallel();
    let dir = scratch("build");
    let settings = "--nodes 3000 --hash 8 --batch 6 --threads 1 --deck acf3:1-20";
    let single = dir.join("single.cbbk");
    let merged = dir.join("merged.cbbk");
    let mut one = words(&format!(
        "book build --out {} --from builtin --rounds 2 {settings}",
        path(&single)
    ));
    one.push("--save-every".into());
    one.push("1".into());
    let (_, err, ok) = run(&one.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok && err.contains("rounds done"), "{err}");
    let shard = |k: &str| dir.join(format!("shard-{k}.cbshard"));
    for generation in 0..2 {
        let from = if generation == 0 {
            "builtin".to_string()
        } else {
            path(&merged)
        };
        let command = words(&format!(
            "book build --from {from} --out {} --fresh --shard {{}}/4 {settings}",
            path(&dir.join("shard-{}.cbshard"))
        ));
        four_shards_under_parallel(&parallel, &command);
        let mut args = vec![
            "book".to_string(),
            "merge".into(),
            "--out".into(),
            path(&merged),
        ];
        if generation == 0 {
            args.extend(["--from".into(), "builtin".into()]);
        }
        // In another order than their numbers: the merge puts every record in its place.
        for k in ["3", "1", "4", "2"] {
            args.push(path(&shard(k)));
        }
        let (_, err, ok) = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(ok && err.contains("merged 4 shards"), "{err}");
    }
    let builtin = Book::builtin().expect("the committed book reads");
    let single = Book::load(&single).expect("the one-process book");
    let merged = Book::load(&merged).expect("the merged book");
    std::fs::remove_dir_all(&dir).ok();
    // The two generations did real work: a full round expands `--batch 6` leaves, each with a
    // search at least, and the book grew. (How many positions a round adds depends on how much
    // of the deck's first ballots the committed book already holds, which grows every session.)
    assert!(
        single.info().searches >= builtin.info().searches + 6 && single.len() > builtin.len(),
        "{} positions and {} searches from {} and {}",
        single.len(),
        single.info().searches,
        builtin.len(),
        builtin.info().searches
    );
    assert_eq!(
        &merged.entries()[..builtin.len()].len(),
        &builtin.entries().len()
    );
    assert_eq!(merged.entries(), single.entries());
    assert_eq!(merged.info().searches, single.info().searches);
    assert!(
        without_clocks(&merged) == without_clocks(&single),
        "the files differ beyond their clocks"
    );
}

/// `book lines` in four shards by ballot under GNU parallel, merged, holds every position's
/// record as one `book lines` run does (the order of new records may differ, as between two runs
/// with different threads).
#[test]
#[cfg_attr(
    not(has_parallel),
    ignore = "needs GNU parallel: apt-get install parallel, then touch build.rs"
)]
fn four_lines_shards_under_gnu_parallel_merge_into_the_one_process_book() {
    let parallel = gnu_parallel();
    let dir = scratch("lines");
    let settings =
        "--deck acf3:1-10 --nodes 2000 --opponent-nodes 200,500 --max-ply 9 --pv-plies 2 --hash 8 --threads 1";
    let single = dir.join("single.cbbk");
    let merged = dir.join("merged.cbbk");
    let one = words(&format!("book lines --out {} {settings}", path(&single)));
    let (_, err, ok) = run(&one.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok && err.contains("every game played"), "{err}");
    let command = words(&format!(
        "book lines --out {} --shard {{}}/4 {settings}",
        path(&dir.join("lines-{}.cbshard"))
    ));
    four_shards_under_parallel(&parallel, &command);
    let mut args = vec![
        "book".to_string(),
        "merge".into(),
        "--out".into(),
        path(&merged),
    ];
    for k in 1..=4 {
        args.push(path(&dir.join(format!("lines-{k}.cbshard"))));
    }
    let (_, err, ok) = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        ok && err.contains("merged 4 shards of `book lines`"),
        "{err}"
    );
    let single = Book::load(&single).expect("the one-process book");
    let merged = Book::load(&merged).expect("the merged book");
    std::fs::remove_dir_all(&dir).ok();
    let sorted = |b: &Book| {
        let mut e = b.entries().to_vec();
        e.sort_by_key(|e| e.position.to_line());
        e
    };
    assert!(single.len() > 40, "{}", single.len());
    assert_eq!(sorted(&merged), sorted(&single));
}

/// Without a scheduler: shards one after the other, a stopped one that goes on, and every
/// refusal naming what is wrong.
#[test]
fn shards_run_one_after_another_and_bad_ones_are_refused() {
    let dir = scratch("errors");
    let base = dir.join("base.cbbk");
    let s = |k: u32| path(&dir.join(format!("s{k}.cbshard")));
    let small = [
        "--size",
        "6",
        "--nodes",
        "2000",
        "--hash",
        "8",
        "--threads",
        "1",
    ];
    let (_, err, ok) = run(&[
        &[
            "book",
            "build",
            "--out",
            &path(&base),
            "--max-positions",
            "15",
        ],
        &small[..],
    ]
    .concat());
    assert!(ok, "{err}");
    let b = path(&base);
    let shard_cmd = |k: u32, n: u32, extra: &[&str]| -> (String, String, bool) {
        let spec = format!("{k}/{n}");
        let out = s(k);
        let mut args = vec![
            "book", "build", "--from", &b, "--out", &out, "--shard", &spec,
        ];
        args.extend(small);
        args.extend(extra);
        run(&args)
    };
    // Bad shard numbers and settings a shard cannot have.
    for (spec, says) in [
        ("5/4", "shard 5 of 4 does not exist"),
        ("0/4", "numbered from 1"),
        ("a/b", "is not K/N"),
        ("4", "is not K/N"),
        ("1/0", "at least 1"),
    ] {
        let (out, err, ok) = run(&["book", "build", "--out", &s(9), "--shard", spec]);
        assert!(!ok && out.is_empty(), "{spec}");
        assert!(
            err.contains(&format!("--shard `{spec}`")) && err.contains(says),
            "{spec}: {err}"
        );
    }
    for (extra, says) in [
        (&["--movetime", "50"][..], "--shard needs --nodes"),
        (
            &["--max-positions", "40"][..],
            "--max-positions and --rounds do not apply",
        ),
        (
            &["--rounds", "2"][..],
            "--max-positions and --rounds do not apply",
        ),
    ] {
        let (_, err, ok) = shard_cmd(1, 2, extra);
        assert!(!ok && err.contains(says), "{extra:?}: {err}");
    }
    // Shard 1 stopped by its time limit before a search: saved, not complete, refused by a merge.
    let (_, err, ok) = shard_cmd(1, 2, &["--time", "0"]);
    assert!(
        ok && err.contains("stopped (the same command goes on)"),
        "{err}"
    );
    let (_, err, ok) = shard_cmd(2, 2, &[]);
    assert!(ok && err.contains("complete"), "{err}");
    let merged = path(&dir.join("merged.cbbk"));
    let merge = |shards: &[String]| {
        let mut args = vec!["book", "merge", "--out", &merged, "--from", &b];
        args.extend(shards.iter().map(String::as_str));
        let r = run(&args);
        std::fs::remove_file(&merged).ok();
        r
    };
    let (_, err, ok) = merge(&[s(1), s(2)]);
    assert!(!ok && err.contains("(shard 1/2) is not complete"), "{err}");
    // The same command goes on and completes it; run again, it is already complete.
    let (_, err, ok) = shard_cmd(1, 2, &[]);
    assert!(
        ok && err.contains("going on with") && err.contains("complete"),
        "{err}"
    );
    let first = Shard::load(Path::new(&s(1))).expect("shard 1");
    assert!(first.complete && !first.records.is_empty());
    let (_, err, ok) = shard_cmd(1, 2, &[]);
    assert!(ok, "{err}");
    let again = Shard::load(Path::new(&s(1))).expect("shard 1");
    assert!(again.complete);
    assert_eq!(
        (again.records, again.searches),
        (first.records, first.searches)
    );
    // Its file is for shard 1 of 2: another shard number, or other settings, are refused.
    let (_, err, ok) = run(&[
        &[
            "book",
            "build",
            "--from",
            &b,
            "--out",
            &s(1),
            "--shard",
            "2/2",
        ],
        &small[..],
    ]
    .concat());
    assert!(
        !ok && err.contains("is a shard of other work") && err.contains("it is shard 1/2, not 2/2"),
        "{err}"
    );
    // A book given as a shard's --out is never overwritten, not even with --fresh.
    let before = std::fs::read(&base).expect("base");
    let (_, err, ok) = run(&[
        &[
            "book", "build", "--from", &b, "--out", &b, "--shard", "1/2", "--fresh",
        ],
        &small[..],
    ]
    .concat());
    assert!(
        !ok && err.contains("is an opening book, not a shard file"),
        "{err}"
    );
    assert_eq!(std::fs::read(&base).expect("base"), before);
    // One shard at other settings: named.
    let (_, err, ok) = run(&[
        &[
            "book",
            "build",
            "--from",
            &b,
            "--out",
            &s(3),
            "--shard",
            "2/2",
            "--fresh",
        ],
        &[
            "--size",
            "6",
            "--nodes",
            "2000",
            "--hash",
            "16",
            "--threads",
            "1",
        ][..],
    ]
    .concat());
    assert!(ok, "{err}");
    let (_, err, ok) = merge(&[s(1), s(3)]);
    assert!(
        !ok && err.contains("other settings: hash=8 against hash=16"),
        "{err}"
    );
    let (_, err, ok) = merge(&[s(1)]);
    assert!(
        !ok && err.contains("1 of the 2 shards missing: 2/2"),
        "{err}"
    );
    let (_, err, ok) = merge(&[s(1), s(1)]);
    assert!(!ok && err.contains("given twice"), "{err}");
    let (_, err, ok) = merge(&[s(1), b.clone()]);
    assert!(!ok && err.contains("not a checkersbot book shard"), "{err}");
    // A 6x6 job merged into an 8x8 book.
    let (_, err, ok) = run(&[
        "book",
        "merge",
        "--out",
        &merged,
        "--from",
        "builtin",
        &s(1),
        &s(2),
    ]);
    assert!(!ok && err.contains("wrong board size"), "{err}");
    // Merged into the book they came from: the one-round build's book; once only.
    let (_, err, ok) = run(&[
        "book",
        "merge",
        "--out",
        &merged,
        "--from",
        &b,
        &s(2),
        &s(1),
    ]);
    assert!(ok, "{err}");
    let (_, err, ok) = run(&["book", "merge", "--out", &merged, &s(2), &s(1)]);
    assert!(!ok && err.contains("not from this one"), "{err}");
    let single = dir.join("single.cbbk");
    let (_, err, ok) = run(&[
        &[
            "book",
            "build",
            "--out",
            &path(&single),
            "--from",
            &b,
            "--rounds",
            "1",
        ],
        &small[..],
    ]
    .concat());
    assert!(ok, "{err}");
    let one = Book::load(&single).expect("single");
    let two = Book::load(Path::new(&merged)).expect("merged");
    std::fs::remove_dir_all(&dir).ok();
    assert!(one.len() > 15);
    assert_eq!(two.entries(), one.entries());
    assert!(without_clocks(&two) == without_clocks(&one));
}
