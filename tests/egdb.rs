//! Endgame databases: built here (8x8 up to 4 pieces, smaller sets on the other sizes) and checked
//! against the published position counts, hand-checked endings, a plain solver, their own
//! successors, the command line, and the engine's play.

use checkersbot::engine::egdb::build::{build, BuildOptions, BuildReport};
use checkersbot::engine::egdb::index::SliceKey;
use checkersbot::engine::egdb::store::{write_slice_version, SliceFile, VERSION};
use checkersbot::engine::egdb::{Egdb, Value};
use checkersbot::rules::board::Grid;
use checkersbot::rules::geometry::{BoardSize, G8};
use checkersbot::rules::position::{Position, Side};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("checkersbot-egdb-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn build_db(size: BoardSize, pieces: u32, dir: &std::path::Path) -> BuildReport {
    build_with(size, pieces, dir, 5, false)
}

fn build_with(
    size: BoardSize,
    pieces: u32,
    dir: &std::path::Path,
    dtc_pieces: u32,
    store_captures: bool,
) -> BuildReport {
    let opts = BuildOptions {
        size,
        pieces,
        dir: dir.to_path_buf(),
        threads: 0,
        dtc_pieces,
        store_captures,
    };
    build(&opts, &mut |_| {}).expect("build")
}

/// The 8x8 database up to 4 pieces with win/loss/draw only for 4 pieces (distances up to 3),
/// built once.
fn db8_wld() -> &'static (PathBuf, BuildReport, Egdb) {
    static DB: OnceLock<(PathBuf, BuildReport, Egdb)> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = temp_dir("8x8-wld");
        let report = build_with(BoardSize::S8, 4, &dir, 3, false);
        let db = Egdb::open(&dir, 16).expect("open");
        (dir, report, db)
    })
}

/// The 8x8 database up to 4 pieces, built once for all tests of this file.
fn db8() -> &'static (PathBuf, BuildReport, Egdb) {
    static DB: OnceLock<(PathBuf, BuildReport, Egdb)> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = temp_dir("8x8");
        let report = build_db(BoardSize::S8, 4, &dir);
        let db = Egdb::open(&dir, 16).expect("open");
        (dir, report, db)
    })
}

fn pos8(rows: &str, side: Side) -> Position<G8> {
    Grid::parse_line(rows).expect("board").to_position(side)
}

#[test]
fn counts_match_the_published_figures() {
    let (_, report, _) = db8();
    let mut per = [0u64; 5];
    for h in &report.slices {
        per[h.key.pieces() as usize] += h.positions;
        assert_eq!(h.positions, h.wins + h.losses + h.draws);
    }
    assert_eq!(per[1..], [120, 6_972, 261_224, 7_092_774]);
}

#[test]
fn hand_checked_endings() {
    let (_, _, db) = db8();
    let v = |rows: &str, side| db.probe(&pos8(rows, side)).expect("in the database");
    // Two kings against a lone king in the double corner win...
    let lone = "_P______/________/________/________/___B_B__/________/________/________";
    assert!(matches!(v(lone, Side::Player), Value::Loss(Some(_))));
    assert!(matches!(v(lone, Side::Bot), Value::Win(Some(_))));
    // ...but not when the lone king attacks both at once: it takes them both.
    let fork = "________/__B_____/________/__B_____/___P____/________/________/________";
    assert_eq!(v(fork, Side::Player), Value::Win(Some(1)));
    // One king against one king in the centre is a draw...
    let centre = "________/________/________/__P_____/_____B__/________/________/________";
    assert_eq!(v(centre, Side::Player), Value::Draw);
    assert_eq!(v(centre, Side::Bot), Value::Draw);
    // ...yet a king caught in the single corner is lost: its only move walks into a capture.
    let corner = "________/________/________/________/________/__B_____/________/P_______";
    assert_eq!(v(corner, Side::Player), Value::Loss(Some(2)));
    // A man the king cannot stop crowns and draws; one it can stop is lost.
    let runs = "________/________/___p____/________/________/________/________/______B_";
    assert_eq!(v(runs, Side::Player), Value::Draw);
    let caught = "________/________/________/__B_____/________/p_______/________/________";
    assert!(matches!(v(caught, Side::Player), Value::Loss(_)));
    // A side with no legal move loses at once.
    let blocked = "_B______/p_______/________/________/________/________/________/________";
    assert_eq!(v(blocked, Side::Player), Value::Loss(Some(0)));
    // Three kings against one: the lone side loses wherever it stands, barring a capture now.
    let three = "_B_B____/________/________/________/________/________/_B______/______P_";
    assert!(matches!(v(three, Side::Player), Value::Loss(_)));
}

/// Plain solver: all positions reachable from the starts, then values by repeating "won if a
/// move reaches a lost position, lost if every move reaches a won one" until nothing changes.
fn plain_values(starts: &[Position<G8>]) -> HashMap<Position<G8>, i8> {
    let mut index: HashMap<Position<G8>, usize> = HashMap::new();
    let mut nodes: Vec<Position<G8>> = Vec::new();
    let mut succ: Vec<Vec<usize>> = Vec::new();
    for s in starts {
        if !index.contains_key(s) {
            index.insert(*s, nodes.len());
            nodes.push(*s);
        }
    }
    let mut i = 0;
    while i < nodes.len() {
        let p = nodes[i];
        let mut out = Vec::new();
        for m in p.legal_moves() {
            let c = p.play(&m);
            let id = *index.entry(c).or_insert_with(|| {
                nodes.push(c);
                nodes.len() - 1
            });
            out.push(id);
        }
        succ.push(out);
        i += 1;
    }
    // 1 won, -1 lost, 0 unknown (drawn at the end).
    let mut val = vec![0i8; nodes.len()];
    loop {
        let mut changed = false;
        for j in 0..nodes.len() {
            if val[j] != 0 {
                continue;
            }
            let s = &succ[j];
            let nv = if s.iter().any(|&c| val[c] == -1) {
                1
            } else if s.iter().all(|&c| val[c] == 1) {
                -1
            } else {
                0
            };
            if nv != 0 {
                val[j] = nv;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    nodes.into_iter().zip(val).collect()
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// Random positions with the given material (kings and men of each side) and side to move.
fn random_positions(n: usize, seed: u64, men: [u32; 2], kings: [u32; 2]) -> Vec<Position<G8>> {
    let mut rng = Lcg(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut p = Position::<G8>::empty(if rng.next().is_multiple_of(2) {
            Side::Player
        } else {
            Side::Bot
        });
        let mut ok = true;
        for side in [Side::Player, Side::Bot] {
            for king in [false, true] {
                let count = if king {
                    kings[side.index()]
                } else {
                    men[side.index()]
                };
                for _ in 0..count {
                    let row = (rng.next() % 8) as u8;
                    let col = (rng.next() % 4) as u8 * 2 + (row + 1) % 2;
                    let c = checkersbot::rules::geometry::Coord::new(row, col);
                    let sq = c.to_square(8).expect("playable");
                    let crown_row = if side == Side::Player { 0 } else { 7 };
                    if p.piece_at(sq).is_some() || (!king && row == crown_row) {
                        ok = false;
                    }
                    p.put(sq, Some(checkersbot::rules::position::Piece { side, king }));
                }
            }
        }
        if ok {
            out.push(p);
        }
    }
    out
}

#[test]
fn values_agree_with_a_plain_solver() {
    let (_, _, db) = db8();
    let mut starts = random_positions(25, 1, [0, 0], [2, 1]);
    starts.extend(random_positions(25, 2, [1, 1], [0, 1]));
    starts.extend(random_positions(25, 3, [2, 0], [0, 1]));
    starts.extend(random_positions(25, 4, [1, 0], [1, 0]));
    let plain = plain_values(&starts);
    let mut seen = [0; 3];
    for (p, v) in &plain {
        let got = db.probe(p).expect("in the database");
        let want = match v {
            1 => matches!(got, Value::Win(_)),
            -1 => matches!(got, Value::Loss(_)),
            _ => got == Value::Draw,
        };
        assert!(
            want,
            "{} {:?}: plain {v}, database {got}",
            Grid::from_position(p).to_line(),
            p.side
        );
        seen[(v + 1) as usize] += 1;
    }
    assert!(
        seen.iter().all(|&s| s > 0),
        "wins, losses and draws all seen: {seen:?}"
    );
}

/// The value the successors give a position, from the database (distances to conversion count
/// a move that leaves the slice as one ply).
fn from_successors(db: &Egdb, p: &Position<G8>) -> Value {
    let moves = p.legal_moves();
    if moves.is_empty() {
        return Value::Loss(Some(0));
    }
    let here = checkersbot::engine::egdb::index::locate(p).0;
    let mut best_win: Option<u32> = None;
    let mut longest = 0;
    let mut draw = false;
    for m in &moves {
        let c = p.play(m);
        let inside = checkersbot::engine::egdb::index::locate(&c).0 == here.flipped();
        let v = db.probe(&c).expect("successor in the database");
        let d = |d: Option<u32>| if inside { d.expect("distance") + 1 } else { 1 };
        match v {
            Value::Loss(x) => best_win = Some(best_win.map_or(d(x), |b| b.min(d(x)))),
            Value::Win(x) => longest = longest.max(d(x)),
            Value::Draw => draw = true,
        }
    }
    match best_win {
        Some(d) => Value::Win(Some(d)),
        None if draw => Value::Draw,
        None => Value::Loss(Some(longest)),
    }
}

#[test]
fn every_sampled_value_agrees_with_its_successors() {
    let (_, _, db) = db8();
    let mut all = Vec::new();
    for (seed, men, kings) in [
        (10, [0, 0], [2, 2]),
        (11, [1, 1], [1, 1]),
        (12, [2, 1], [0, 1]),
        (13, [2, 2], [0, 0]),
        (14, [0, 1], [3, 0]),
    ] {
        all.extend(random_positions(400, seed, men, kings));
    }
    for p in &all {
        let v = db.probe(p).expect("in the database");
        assert_eq!(
            v,
            from_successors(db, p),
            "{} {:?}",
            Grid::from_position(p).to_line(),
            p.side
        );
    }
}

#[test]
fn an_interrupted_build_resumes_and_damage_is_rebuilt() {
    let dir = temp_dir("resume");
    let first = build_db(BoardSize::S6, 3, &dir);
    assert_eq!(first.resumed, 0);
    // Lose the last slices built (as a killed build would) and damage another.
    let mut files: Vec<PathBuf> = first
        .slices
        .iter()
        .map(|h| dir.join("6x6").join(h.key.file_name()))
        .collect();
    let last = files.split_off(files.len() - 5);
    for f in &last {
        std::fs::remove_file(f).expect("remove");
    }
    let victim = &files[files.len() / 2];
    let mut bytes = std::fs::read(victim).expect("read");
    let n = bytes.len();
    bytes[n - 1] ^= 0xFF;
    std::fs::write(victim, &bytes).expect("write");
    let second = build_db(BoardSize::S6, 3, &dir);
    // Each lost or damaged slice is built again with its twin.
    assert!(
        second.resumed >= first.slices.len() - 2 * 6,
        "{}",
        second.resumed
    );
    assert!(second.resumed < first.slices.len() - 5);
    let values = |r: &BuildReport| -> Vec<(SliceKey, u64, u64, u64)> {
        let mut v: Vec<_> = r
            .slices
            .iter()
            .map(|h| (h.key, h.wins, h.losses, h.draws))
            .collect();
        v.sort();
        v
    };
    assert_eq!(values(&first), values(&second));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every position of a slice (side 0 to move).
fn slice_positions(key: &SliceKey) -> Vec<Position<G8>> {
    (0..key.entries())
        .filter_map(|i| checkersbot::engine::egdb::index::position_at::<G8>(key, i))
        .map(|n| n.position::<G8>())
        .collect()
}

#[test]
fn win_loss_draw_slices_agree_with_a_distance_build() {
    let (_, dtc_report, dtc) = db8();
    let (dir, wld_report, wld) = db8_wld();
    let counts = |r: &BuildReport| -> Vec<(SliceKey, u64, u64, u64)> {
        let mut v: Vec<_> = r
            .slices
            .iter()
            .map(|h| (h.key, h.wins, h.losses, h.draws))
            .collect();
        v.sort();
        v
    };
    assert_eq!(counts(dtc_report), counts(wld_report));
    let kind = |v: Value| match v {
        Value::Win(_) => 1,
        Value::Loss(_) => -1,
        Value::Draw => 0,
    };
    let mut checked = 0;
    for h in &wld_report.slices {
        assert_eq!(h.wld_only, h.key.pieces() == 4, "{}", h.key);
        if h.key.pieces() < 4 {
            continue;
        }
        for p in slice_positions(&h.key) {
            let a = dtc.probe(&p).expect("in the distance build");
            let b = wld.probe(&p).expect("in the win/loss/draw build");
            assert_eq!(kind(a), kind(b), "{}", Grid::from_position(&p).to_line());
            if !p.has_capture() && !matches!(b, Value::Draw) {
                // No distance is stored for 4 pieces.
                assert!(matches!(b, Value::Win(None) | Value::Loss(None)), "{b:?}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 7_092_774);
    // Smaller on disk than with distances.
    let bytes = |d: &std::path::Path| -> u64 {
        std::fs::read_dir(d.join("8x8"))
            .expect("dir")
            .map(|e| e.expect("entry").metadata().expect("meta").len())
            .sum()
    };
    let dtc_dir = &db8().0;
    assert!(
        bytes(dir) < bytes(dtc_dir),
        "{} {}",
        bytes(dir),
        bytes(dtc_dir)
    );
}

#[test]
fn dont_care_capture_positions_never_change_a_probe() {
    // Built storing every value, and with positions with a capture pending left "don't care".
    let all = temp_dir("all-values");
    let full = build_with(BoardSize::S8, 3, &all, 5, true);
    let sparse = temp_dir("dont-care");
    build_with(BoardSize::S8, 3, &sparse, 5, false);
    let full_db = Egdb::open(&all, 4).expect("open");
    let db = Egdb::open(&sparse, 4).expect("open");
    let mut captures = 0;
    for h in &full.slices {
        assert!(!h.dont_care);
        for p in slice_positions(&h.key) {
            let want = full_db.probe_quiet(&p).expect("stored");
            if p.has_capture() {
                captures += 1;
                // Resolved through its captures, the same value.
                assert_eq!(db.probe(&p), Some(want));
            } else {
                assert_eq!(db.probe_quiet(&p), Some(want));
                assert_eq!(db.probe(&p), Some(want));
            }
        }
    }
    assert!(captures > 10_000, "{captures}");
    let bytes = |d: &std::path::Path| -> u64 {
        std::fs::read_dir(d.join("8x8"))
            .expect("dir")
            .map(|e| e.expect("entry").metadata().expect("meta").len())
            .sum()
    };
    assert!(
        bytes(&sparse) < bytes(&all),
        "{} {}",
        bytes(&sparse),
        bytes(&all)
    );
    let _ = std::fs::remove_dir_all(&all);
    let _ = std::fs::remove_dir_all(&sparse);
}

/// FNV-1a, as the slice files use it.
fn fnv1a(data: &[u8]) -> u64 {
    let mut h = 0xCBF2_9CE4_8422_2325u64;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// Writes a slice file again in an older format version, as an older program wrote it.
fn rewrite_as(path: &std::path::Path, version: u32) {
    let f = SliceFile::open(path).expect("open");
    let values = f.read_all().expect("read");
    let mut h = f.header.clone();
    drop(f);
    write_slice_version(path, &mut h, &values, version).expect("write");
    assert_eq!(
        SliceFile::open(path).expect("reopen").header.version,
        version
    );
}

/// Whether two values agree, distances aside (a slice rewritten without them reads as unknown).
fn same_value(a: Value, b: Value) -> bool {
    match (a, b) {
        (Value::Win(_), Value::Win(_)) | (Value::Loss(_), Value::Loss(_)) => true,
        (a, b) => a == b,
    }
}

/// Relabels a slice file's format version (and its header checksum to match).
fn set_version(path: &std::path::Path, version: u32) {
    let mut b = std::fs::read(path).expect("read");
    b[4..8].copy_from_slice(&version.to_le_bytes());
    let nblocks = u32::from_le_bytes([b[80], b[81], b[82], b[83]]) as usize;
    let end = 88 + nblocks * 16;
    let sum = fnv1a(&b[..end]);
    b[end..end + 8].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(path, &b).expect("write");
}

#[test]
fn old_and_wrong_versions_are_refused_and_old_ones_converted_by_build() {
    // A version-1 database: every value stored, a byte per index.
    let dir = temp_dir("v1");
    let first = build_with(BoardSize::S8, 3, &dir, 5, true);
    let reference = Egdb::open(&dir, 4).expect("open");
    let files: Vec<PathBuf> = first
        .slices
        .iter()
        .map(|h| dir.join("8x8").join(h.key.file_name()))
        .collect();
    let probes: Vec<(Position<G8>, Value)> = first
        .slices
        .iter()
        .filter(|h| h.key.pieces() == 3)
        .flat_map(|h| slice_positions(&h.key).into_iter().step_by(7))
        .map(|p| (p, reference.probe(&p).expect("stored")))
        .collect();
    drop(reference);
    for f in &files {
        rewrite_as(f, 1);
    }
    let e = Egdb::open(&dir, 4).expect_err("old format").to_string();
    assert!(
        e.contains("format version 1") && e.contains("egdb build"),
        "{e}"
    );
    // The build reads the old files and rewrites them (3 pieces without distances here).
    let second = build_with(BoardSize::S8, 3, &dir, 2, false);
    assert_eq!(
        (second.converted, second.resumed),
        (files.len(), 0),
        "{} slices",
        files.len()
    );
    let db = Egdb::open(&dir, 4).expect("open converted");
    for (p, v) in &probes {
        let got = db.probe(p).expect("converted");
        assert!(
            same_value(*v, got),
            "{} {v:?} {got:?}",
            Grid::from_position(p).to_line()
        );
    }
    // A version from the future is refused naming the versions read.
    set_version(&files[0], 7);
    let e = Egdb::open(&dir, 4).expect_err("future format").to_string();
    assert!(
        e.contains("format version 7") && e.contains(&format!("1 to {VERSION}")),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_resident_database_answers_as_one_read_block_by_block() {
    // Under a cap below its decompressed size a database is read block by block; at or above
    // it every slice is decompressed when opened. Both must give every value alike.
    for (dir, report, _) in [db8(), db8_wld()] {
        let blocks = Egdb::open(dir, 1).expect("open");
        let resident = Egdb::open(dir, 1024).expect("open");
        assert!(!blocks.is_resident() && resident.is_resident());
        let mut probes = 0;
        for h in &report.slices {
            for p in slice_positions(&h.key).into_iter().step_by(3) {
                assert_eq!(
                    blocks.probe(&p),
                    resident.probe(&p),
                    "{}",
                    Grid::from_position(&p).to_line()
                );
                probes += 1;
            }
        }
        assert!(probes > 1_000_000, "{probes}");
    }
}

#[test]
fn version_2_files_are_probed_as_they_are_and_converted_by_build() {
    // Version 2 had blocks four times as large; the values are the same.
    let dir = temp_dir("v2");
    let first = build_with(BoardSize::S8, 3, &dir, 2, false);
    let reference = Egdb::open(&dir, 4).expect("open");
    let probes: Vec<(Position<G8>, Value)> = first
        .slices
        .iter()
        .flat_map(|h| slice_positions(&h.key).into_iter().step_by(5))
        .filter(|p| !p.has_capture())
        .map(|p| (p, reference.probe(&p).expect("stored")))
        .collect();
    drop(reference);
    let files: Vec<PathBuf> = first
        .slices
        .iter()
        .map(|h| dir.join("8x8").join(h.key.file_name()))
        .collect();
    for f in &files {
        rewrite_as(f, 2);
    }
    let check = |what: &str| {
        let db = Egdb::open(&dir, 1).expect(what);
        for (p, v) in &probes {
            assert_eq!(
                db.probe(p),
                Some(*v),
                "{what}: {}",
                Grid::from_position(p).to_line()
            );
        }
    };
    check("version 2");
    let second = build_with(BoardSize::S8, 3, &dir, 2, false);
    assert_eq!((second.converted, second.resumed), (files.len(), 0));
    for f in &files {
        assert_eq!(SliceFile::open(f).expect("open").header.version, VERSION);
    }
    check("converted");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_size_builds_and_verifies() {
    for (size, pieces) in [
        (BoardSize::S4, 4),
        (BoardSize::S6, 3),
        (BoardSize::S10, 2),
        (BoardSize::S12, 2),
    ] {
        let dir = temp_dir(&format!("size{}", size.n()));
        let report = build_db(size, pieces, &dir);
        assert!(!report.slices.is_empty());
        let db = Egdb::open(&dir, 4).expect("open");
        assert_eq!(db.max_pieces(size), pieces);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn probe_command_prints_values() {
    let (dir, _, _) = db8();
    let exe = env!("CARGO_BIN_EXE_checkersbot");
    let out = std::process::Command::new(exe)
        .args([
            "egdb",
            "probe",
            "--board",
            "________/________/________/________/________/__B_____/________/P_______",
            "--side",
            "p",
            "--dir",
        ])
        .arg(dir)
        .output()
        .expect("run");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "loss 2\n");
    use std::io::Write;
    let mut child = std::process::Command::new(exe)
        .args(["egdb", "probe", "--dir"])
        .arg(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(
            b"________/________/________/__P_____/_____B__/________/________/________ b\n\
              ________/__B_____/________/__B_____/___P____/________/________/________ p\n\
              nonsense\n\
              _b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_ p\n",
        )
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(lines[0], "draw");
    assert_eq!(lines[1], "win 1");
    assert!(lines[2].starts_with("error"), "{}", lines[2]);
    assert_eq!(lines[3], "unknown");
    // info lists the piece counts with the published numbers.
    let out = std::process::Command::new(exe)
        .args(["egdb", "info", "--dir"])
        .arg(dir)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("| 8x8 | 4 | "), "{text}");
    assert!(text.contains(" 7092774 "), "{text}");
    // and the memory it takes held decompressed.
    let bytes: usize = Egdb::open(dir, 1)
        .expect("open")
        .slices()
        .map(|f| f.decompressed_bytes())
        .sum();
    let line = format!("in memory: {} MiB decompressed", bytes.div_ceil(1 << 20));
    assert!(text.contains(&line), "{line}: {text}");
    // A damaged directory is refused with a message, not a panic.
    let bad = temp_dir("bad");
    std::fs::create_dir_all(bad.join("8x8")).expect("mkdir");
    std::fs::write(bad.join("8x8").join("m0k1l0-m0k1l0.cbdb"), b"garbage").expect("write");
    let out = std::process::Command::new(exe)
        .args(["egdb", "info", "--dir"])
        .arg(&bad)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("damaged"), "{err}");
    let _ = std::fs::remove_dir_all(&bad);
}

mod engine_with_database {
    use super::*;
    use checkersbot::engine::{Engine, EngineConfig, Limits, SearchParams, StopReason};
    use checkersbot::rules::any_size::AnyPosition;
    use checkersbot::rules::game::{Game, Status};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    fn engine(db: Option<Arc<Egdb>>) -> Engine {
        Engine::new(EngineConfig {
            egdb: db,
            ..EngineConfig::default()
        })
    }

    fn shared_db() -> Arc<Egdb> {
        let (dir, _, _) = db8();
        Arc::new(Egdb::open(dir, 16).expect("open"))
    }

    /// Plays `game` on: `mover` (the engine) for `side`, `other` for the opponent, until it ends.
    fn play_out(
        game: &mut Game,
        side: Side,
        mover: &mut Engine,
        other: &mut dyn FnMut(&AnyPosition, &[u64]) -> checkersbot::rules::any_size::MoveInfo,
        max_plies: usize,
    ) -> Status {
        let limits = Limits {
            depth: Some(6),
            ..Limits::default()
        };
        let stop = AtomicBool::new(false);
        for _ in 0..max_plies {
            let st = game.status();
            if st.is_over() {
                return st;
            }
            let pos = *game.current();
            let history = game.history_keys();
            let mv = if pos.side() == side {
                mover
                    .search(&pos, &history, &limits, &stop, &mut |_| {})
                    .best
                    .expect("a move")
            } else {
                other(&pos, &history)
            };
            game.play(&mv).expect("legal");
        }
        game.status()
    }

    /// Up to `take` positions of each material (seed, men, kings) among `n` random ones that
    /// `db` values as `wanted` and where no capture is pending.
    fn sample(
        db: &Egdb,
        materials: &[(u64, [u32; 2], [u32; 2])],
        n: usize,
        take: usize,
        wanted: impl Fn(Value) -> bool,
    ) -> Vec<Position<G8>> {
        let mut out = Vec::new();
        for &(seed, men, kings) in materials {
            let found = random_positions(n, seed, men, kings)
                .into_iter()
                .filter(|p| db.probe(p).is_some_and(&wanted) && !p.has_capture());
            out.extend(found.take(take));
        }
        out
    }

    /// Plays every position of `won` out, the engine with `db` for the side to move against the
    /// best defence of `defence`, and checks that each is won within the 40-move rule's reach
    /// (400 plies at most). Returns the longest game in plies.
    fn convert_all(won: &[Position<G8>], db: Arc<Egdb>, defence: &Arc<Egdb>) -> usize {
        let mut winner = engine(Some(db));
        let mut longest = 0;
        for p in won {
            winner.new_game();
            let mut game = Game::new(AnyPosition::S8(*p));
            let mut defend = |pos: &AnyPosition, _: &[u64]| {
                defence.best_move_any(pos).expect("in the database").0
            };
            let status = play_out(&mut game, p.side, &mut winner, &mut defend, 400);
            assert_eq!(
                status,
                Status::Win { winner: p.side },
                "{} {:?} after {} plies",
                Grid::from_position(p).to_line(),
                p.side,
                game.plies()
            );
            longest = longest.max(game.plies());
        }
        longest
    }

    #[test]
    fn the_engine_converts_sampled_database_wins_within_the_40_move_rule() {
        let db = shared_db();
        let materials = [
            (20, [0, 0], [2, 1]),
            (21, [0, 1], [2, 0]),
            (22, [1, 0], [1, 1]),
            (23, [0, 0], [3, 1]),
            (24, [1, 1], [1, 0]),
            (25, [2, 0], [0, 1]),
        ];
        let won = sample(&db, &materials, 60, 6, |v| matches!(v, Value::Win(_)));
        assert!(won.len() >= 20, "{} won positions", won.len());
        let longest = convert_all(&won, db.clone(), &db);
        eprintln!(
            "{} wins converted, the longest in {longest} plies",
            won.len()
        );
    }

    #[test]
    fn without_distances_the_engine_still_converts_sampled_wins() {
        // 4-piece slices stored as win/loss/draw only (distances up to 3 pieces): the search,
        // reading the database below the root, must still make progress and win within the
        // 40-move rule against the best defence (from the database with distances). (Had the
        // search stopped at such wins as at those with distances, it would shuffle: 2 kings
        // against king and man repeated once.)
        let (dir, _, _) = db8_wld();
        let wld = Arc::new(Egdb::open(dir, 16).expect("open"));
        let dtc = shared_db();
        let materials = [
            (40, [0, 0], [3, 1]),
            (41, [0, 1], [2, 1]),
            (42, [1, 1], [1, 1]),
            (43, [2, 0], [0, 2]),
            (44, [1, 0], [2, 1]),
        ];
        let won = sample(&wld, &materials, 80, 4, |v| matches!(v, Value::Win(None)));
        assert!(won.len() >= 12, "{} won positions", won.len());
        let longest = convert_all(&won, wld.clone(), &dtc);
        eprintln!(
            "{} wins without distances converted, the longest in {longest} plies",
            won.len()
        );
    }

    #[test]
    fn the_engine_never_loses_a_sampled_drawn_position() {
        let db = shared_db();
        let materials = [
            (30, [0, 0], [1, 1]),
            (31, [1, 1], [0, 1]),
            (32, [0, 1], [2, 0]),
            (33, [1, 1], [1, 1]),
            (34, [0, 0], [2, 2]),
        ];
        let drawn = sample(&db, &materials, 60, 4, |v| v == Value::Draw);
        assert!(drawn.len() >= 12, "{} drawn positions", drawn.len());
        // With the database's first drawing move and pressing alike, against a deeper attacker.
        for egdb_draw in [0, SearchParams::default().egdb_draw] {
            play_drawn(&drawn, &db, egdb_draw, 8);
        }
    }

    /// Plays each drawn position of `drawn` out (120 plies at most), the engine with the
    /// database and `egdb_draw` for the side to move (depth 6) against the same engine without
    /// the database at `depth`, and returns the wins; panics on a loss.
    fn play_drawn(drawn: &[Position<G8>], db: &Arc<Egdb>, egdb_draw: i32, depth: u32) -> usize {
        let mut holder = Engine::new(EngineConfig {
            egdb: Some(db.clone()),
            search: SearchParams {
                egdb_draw,
                ..Default::default()
            },
            ..EngineConfig::default()
        });
        let mut opponent = engine(None);
        let stop = AtomicBool::new(false);
        let opponent_limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let mut wins = 0;
        for p in drawn {
            holder.new_game();
            opponent.new_game();
            let mut game = Game::new(AnyPosition::S8(*p));
            let mut reply = |pos: &AnyPosition, history: &[u64]| {
                opponent
                    .search(pos, history, &opponent_limits, &stop, &mut |_| {})
                    .best
                    .expect("a move")
            };
            let status = play_out(&mut game, p.side, &mut holder, &mut reply, 120);
            match status {
                Status::Win { winner } if winner == p.side => wins += 1,
                Status::Win { .. } => {
                    panic!("{} {:?} lost", Grid::from_position(p).to_line(), p.side)
                }
                _ => {}
            }
        }
        wins
    }

    #[test]
    fn in_drawn_endings_the_engine_presses_a_fallible_opponent() {
        // Drawn 4-piece endings, the side to move with the database: choosing among the drawing
        // moves by who presses (the default `egdb_draw`) must win clearly more of them against
        // an opponent of the same depth without the database than playing the database's first
        // drawing move (`egdb_draw=0`), and lose none. Deterministic (fixed depths, one thread):
        // 14 against 4 when written.
        let db = shared_db();
        let materials = [
            (50, [1, 1], [0, 1]),
            (51, [0, 1], [2, 0]),
            (52, [1, 1], [1, 1]),
            (53, [2, 1], [0, 1]),
            (54, [0, 0], [2, 2]),
            (55, [1, 0], [1, 2]),
        ];
        let drawn = sample(&db, &materials, 800, 24, |v| v == Value::Draw);
        assert!(drawn.len() >= 80, "{} drawn positions", drawn.len());
        let default_band = SearchParams::default().egdb_draw;
        assert!(default_band > 0, "pressing is the default");
        let pressed = play_drawn(&drawn, &db, default_band, 6);
        let passive = play_drawn(&drawn, &db, 0, 6);
        eprintln!(
            "{} drawn positions: {pressed} won pressing, {passive} with the first drawing move",
            drawn.len()
        );
        assert!(
            pressed >= 10 && pressed >= 2 * passive,
            "{pressed} won pressing against {passive}"
        );
    }

    #[test]
    fn a_root_in_the_database_is_answered_from_it_and_the_tree_probes_it() {
        let db = shared_db();
        let mut e = engine(Some(db.clone()));
        let stop = AtomicBool::new(false);
        let limits = Limits {
            depth: Some(8),
            ..Limits::default()
        };
        // Two kings against one: the database's move, with its score, at once.
        let lone = pos8(
            "_P______/________/________/________/___B_B__/________/________/________",
            Side::Bot,
        );
        let mut infos = Vec::new();
        let r = e.search(&AnyPosition::S8(lone), &[], &limits, &stop, &mut |i| {
            infos.push(i.clone())
        });
        assert_eq!(r.reason, StopReason::Egdb);
        assert_eq!(infos.len(), 1);
        let Some(Value::Win(Some(d))) = db.probe(&lone) else {
            panic!("a win")
        };
        assert_eq!(r.info.score.to_string(), format!("dbwin {d}"));
        // Five pieces (outside a 4-piece database), one capture away from it: the search reads
        // the database below the root, and knows the win.
        let five = pos8(
            "_P______/________/________/________/___B_B__/________/_B___p__/________",
            Side::Player,
        );
        let r = e.search(&AnyPosition::S8(five), &[], &limits, &stop, &mut |_| {});
        assert!(r.info.egdb_hits > 0);
        assert_ne!(r.reason, StopReason::Egdb);
        // Without the database the same search reads none.
        let mut plain = engine(None);
        let r = plain.search(&AnyPosition::S8(five), &[], &limits, &stop, &mut |_| {});
        assert_eq!(r.info.egdb_hits, 0);
    }
}

#[test]
fn the_daemon_takes_set_egdb() {
    let (dir, _, _) = db8();
    let exe = env!("CARGO_BIN_EXE_checkersbot");
    let rows = "_P______/________/________/________/___B_B__/________/________/________";
    let input = format!(
        "set egdb /nonexistent/egdb\nset egdb {}\nposition {rows} b\nboard {rows} b\nset egdb off\nquit\n",
        dir.display()
    );
    let file = temp_dir("daemon.in");
    std::fs::write(&file, input).expect("write");
    let out = std::process::Command::new(exe)
        .arg("replay")
        .arg(&file)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("error bad-option egdb:"), "{text}");
    assert_eq!(lines[1], "ok", "{text}");
    assert_eq!(lines[2], "ok", "{text}");
    assert!(
        lines[3].starts_with("info depth 1 score dbwin ") && lines[3].contains(" egdb 1 pv "),
        "{text}"
    );
    assert!(lines[4].starts_with("move "), "{text}");
    assert_eq!(lines[5..], ["ok", "bye"], "{text}");
    let _ = std::fs::remove_file(&file);
}

/// A copy of the 4-piece 8x8 database in a directory of its own (to damage it).
fn copy_db8(name: &str) -> PathBuf {
    let (dir, _, _) = db8();
    let copy = temp_dir(name);
    let from = dir.join("8x8");
    std::fs::create_dir_all(copy.join("8x8")).expect("copy dir");
    for e in std::fs::read_dir(&from).expect("db dir").flatten() {
        std::fs::copy(e.path(), copy.join("8x8").join(e.file_name())).expect("copy");
    }
    copy
}

#[test]
fn a_missing_slice_is_reported_at_open_and_the_database_used_below_it() {
    let copy = copy_db8("missing");
    let gone = SliceKey::all(BoardSize::S8, 4)
        .into_iter()
        .find(|k| k.pieces() == 4)
        .expect("a 4-piece slice");
    std::fs::remove_file(copy.join("8x8").join(gone.file_name())).expect("remove a slice");
    let db = Egdb::open(&copy, 16).expect("open");
    assert_eq!(db.max_pieces(BoardSize::S8), 3);
    // A 4-piece position is no longer answered (it would fall into the gap), a 3-piece one is.
    let four = pos8(
        "_P______/________/________/________/___B_B__/________/_p______/________",
        Side::Bot,
    );
    assert_eq!(db.probe(&four), None);
    let three = pos8(
        "_P______/________/________/________/___B_B__/________/________/________",
        Side::Bot,
    );
    assert!(db.probe(&three).is_some());
    std::fs::remove_dir_all(&copy).ok();
}

#[test]
fn database_files_truncated_under_a_running_daemon_give_unknown_not_a_crash() {
    use std::io::{BufRead, Write};
    let copy = copy_db8("truncated");
    let log = copy.join("stderr.log");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_checkersbot"))
        .args(["serve", "--egdb"])
        .arg(&copy)
        .args(["--egdb-cache", "0", "--movetime", "300", "--info", "final"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(&log).expect("log file"))
        .spawn()
        .expect("serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut ask = |line: &str| -> Vec<String> {
        writeln!(stdin, "{line}").expect("send");
        let mut got = Vec::new();
        loop {
            let mut l = String::new();
            if stdout.read_line(&mut l).unwrap_or(0) == 0 {
                return got;
            }
            let l = l.trim_end().to_string();
            let last = !l.starts_with("info ");
            got.push(l);
            if last {
                return got;
            }
        }
    };
    assert_eq!(ask("ping"), ["pong"]);
    // Every slice file shrinks to its header's first bytes while the daemon has them open.
    for e in std::fs::read_dir(copy.join("8x8"))
        .expect("db dir")
        .flatten()
    {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(e.path())
            .expect("open to truncate");
        f.set_len(100).expect("truncate");
    }
    let rows = "_P______/________/________/________/___B_B__/________/________/________";
    assert_eq!(ask(&format!("position {rows} b")), ["ok"]);
    let reply = ask(&format!("board {rows} b"));
    assert!(
        reply.last().is_some_and(|l| l.starts_with("move ")),
        "{reply:?}"
    );
    // Searched without the database: no database score.
    assert!(!reply[0].contains("dbwin"), "{reply:?}");
    assert_eq!(ask("ping"), ["pong"]);
    assert_eq!(ask("quit"), ["bye"]);
    let status = child.wait().expect("exit");
    assert!(status.success(), "{status:?}");
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(said.contains("cannot be read"), "{said}");
    std::fs::remove_dir_all(&copy).ok();
}

#[test]
fn audit_command_reports_a_thrown_win_by_player() {
    let (dir, _, _) = db8();
    let exe = env!("CARGO_BIN_EXE_checkersbot");
    let games = temp_dir("audit");
    std::fs::create_dir_all(&games).expect("mkdir");
    let file = games.join("games.pdn");
    // Game 1: two white kings (22, 29) against a black king (15), White to move: a win, until
    // 22-18 gives a king away (15x22) and leaves the other shut in on 29. Game 2 never gets
    // down to the database's 4 pieces.
    std::fs::write(
        &file,
        "[Black \"b1\"]\n[White \"w1\"]\n[Result \"0-1\"]\n[SetUp \"1\"]\n[FEN \"W:WK22,K29:BK15\"]\n\n\
         1... 22-18 2. 15x22 0-1\n\n\
         [Black \"w1\"]\n[White \"b1\"]\n[Result \"*\"]\n\n1. 11-15 23-19 *\n",
    )
    .expect("write");
    let audit = || {
        std::process::Command::new(exe)
            .args(["egdb", "audit", "--dir"])
            .arg(dir)
            .arg(&file)
            .output()
            .expect("run")
    };
    let out = audit();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}");
    assert!(
        lines[0].ends_with(
            "game 1 (b1 - w1): in at ply 0 (3 pieces), loss for Black; ply 1 White (w1) win -> loss \
             (0 plies without progress); result 0-1"
        ),
        "{text}"
    );
    assert_eq!(
        lines[1],
        "2 games read, 1 came into the database (1 never did); by player:"
    );
    let cells = |line: &str| {
        line.split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // player, games, came in, came in w-d-l, ended w-d-l, result moved, own moves (3), overtaken,
    // wins not taken.
    assert_eq!(
        cells(lines[3]),
        cells("b1 2 1 0-0-1 1-0-0 1 0 0 0 0 0"),
        "{text}"
    );
    assert_eq!(
        cells(lines[4]),
        cells("w1 2 1 1-0-0 0-0-1 1 0 1 0 0 0"),
        "{text}"
    );
    // A game that cannot be read is named.
    std::fs::write(&file, "[Black \"x\"]\n1. 11-15 11-15 *\n").expect("write");
    let out = audit();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("game 1") && err.contains("not legal"), "{err}");
    let _ = std::fs::remove_dir_all(&games);
}
