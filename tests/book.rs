//! The opening book: its file format (round trip, and damaged, truncated, foreign or wrong-size
//! files refused naming the fault), the built-in book's moves all legal, the engine answering
//! from it only on its board size, seeded variety, and the `search`, `book` and daemon commands.
//! Books are built here with tiny node budgets.

mod common;

use checkersbot::daemon::transport::MemorySink;
use checkersbot::daemon::{replay, Settings};
use checkersbot::engine::book::build::{build, BuildConfig, BuildEnd, Progress};
use checkersbot::engine::book::{
    canonical, fnv1a, Book, BookError, BookSpec, BuildInfo, HEADER_LEN, MAGIC,
};
use checkersbot::engine::{Engine, EngineConfig, Limits, StopReason};
use checkersbot::play::level::{choose_move, Level};
use checkersbot::rng::Rng;
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::openings::Deck;
use checkersbot::rules::position::Side;
use proptest::prelude::*;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// A small book built here: `max` positions of `size`, 3,000 nodes a search.
fn tiny(size: BoardSize, max: usize) -> Book {
    let cfg = BuildConfig {
        engine: EngineConfig::default(),
        limits: Limits {
            nodes: Some(3_000),
            ..Limits::default()
        },
        penalty: 10,
        threads: 2,
        batch: 2,
        max_positions: Some(max),
        rounds: None,
        time: None,
        max_ply: 30,
        save_every: Duration::from_secs(3600),
        roots: Vec::new(),
        deepen: false,
        repair: None,
    };
    let mut book = Book::new(
        size,
        BuildInfo {
            nodes: 3_000,
            penalty: 10,
            ..BuildInfo::default()
        },
    );
    let end = build(
        &mut book,
        &cfg,
        &AtomicBool::new(false),
        &mut |_| Ok(()),
        &mut |_| {},
    )
    .expect("no file to write");
    assert_eq!(end, BuildEnd::Positions);
    book
}

fn tiny8() -> &'static Book {
    static BOOK: OnceLock<Book> = OnceLock::new();
    BOOK.get_or_init(|| tiny(BoardSize::S8, 30))
}

fn builtin() -> &'static Book {
    static BOOK: OnceLock<Book> = OnceLock::new();
    BOOK.get_or_init(|| Book::builtin().expect("the built-in book reads"))
}

/// Rewrites the checksum after a deliberate change, so that the next check is reached.
fn reseal(bytes: &mut [u8]) {
    let at = HEADER_LEN - 8;
    let sum = fnv1a(&[&bytes[..at], &bytes[HEADER_LEN..]]);
    bytes[at..HEADER_LEN].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn a_book_round_trips_through_bytes_and_a_file() {
    let book = tiny8();
    assert!(book.len() >= 30);
    let bytes = book.to_bytes().expect("writes");
    let back = Book::from_bytes(&bytes).expect("reads back");
    assert_eq!(&back, book);
    assert_eq!(back.info(), book.info());
    let path = std::env::temp_dir().join(format!("checkersbot-book-{}.cbbk", std::process::id()));
    book.save(&path).expect("saves");
    let loaded = Book::load(&path);
    let sized = Book::load_for(&path, BoardSize::S10);
    std::fs::remove_file(&path).ok();
    assert_eq!(&loaded.expect("loads"), book);
    assert!(matches!(
        sized,
        Err(BookError::WrongSize {
            found: BoardSize::S8,
            expected: BoardSize::S10
        })
    ));
}

#[test]
fn damaged_truncated_and_foreign_files_are_refused_naming_the_fault() {
    let good = tiny8().to_bytes().expect("writes");
    // A flipped byte anywhere in the body or the build record: the checksum.
    for at in [HEADER_LEN + 3, good.len() - 1, 14] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        let e = Book::from_bytes(&bad).expect_err("damaged");
        assert!(matches!(e, BookError::Checksum { .. }), "byte {at}: {e}");
        assert!(e.to_string().contains("checksum mismatch"));
    }
    // Cut short, in the header or in the body.
    for len in [0, 5, HEADER_LEN - 1, HEADER_LEN, good.len() - 1] {
        let e = Book::from_bytes(&good[..len]).expect_err("truncated");
        if len < MAGIC.len() {
            assert!(matches!(e, BookError::Magic), "{len}: {e}");
        } else {
            assert!(matches!(e, BookError::Truncated { .. }), "{len}: {e}");
            assert!(e.to_string().starts_with("truncated"));
        }
    }
    // Too long.
    let mut long = good.clone();
    long.push(0);
    assert!(matches!(
        Book::from_bytes(&long),
        Err(BookError::Trailing(1))
    ));
    // Not a book at all.
    let e = Book::from_bytes(b"CBEVAL..........").expect_err("foreign");
    assert!(matches!(e, BookError::Magic));
    assert!(e.to_string().contains("no CBBOOK header"), "{e}");
    // Another version.
    let mut v = good.clone();
    v[8] = 9;
    reseal(&mut v);
    assert!(matches!(
        Book::from_bytes(&v),
        Err(BookError::Version { found: 9 })
    ));
    // A board size that does not exist.
    let mut s = good.clone();
    s[10] = 7;
    reseal(&mut s);
    let e = Book::from_bytes(&s).expect_err("bad size");
    assert!(matches!(e, BookError::BadSize(7)), "{e}");
    // A 6x6 book where 8x8 is wanted.
    let six = tiny(BoardSize::S6, 8);
    let six_bytes = six.to_bytes().expect("writes");
    let e = Book::from_bytes(&six_bytes)
        .and_then(|b| b.check_size(BoardSize::S8).map(|_| b))
        .expect_err("wrong size");
    assert!(e.to_string().contains("wrong board size"), "{e}");
}

#[test]
fn a_move_that_is_not_legal_is_refused() {
    let mut bytes = tiny8().to_bytes().expect("writes");
    // The first record is the start position (12 bytes of squares, value, depth, flags, the
    // search's node budget, the number of moves), then its first move: length, squares. Send it
    // from square 16 (empty).
    let first_square = HEADER_LEN + 12 + 2 + 1 + 1 + 8 + 1 + 1;
    assert_eq!(bytes[first_square - 1], 2, "a plain move of two squares");
    bytes[first_square] = 16;
    reseal(&mut bytes);
    let e = Book::from_bytes(&bytes).expect_err("illegal");
    assert!(matches!(e, BookError::IllegalMove { index: 0, .. }), "{e}");
    assert!(e.to_string().contains("is not legal"), "{e}");
}

#[test]
fn every_move_of_the_builtin_book_is_legal_and_it_is_small() {
    let book = builtin();
    assert_eq!(book.size(), BoardSize::S8);
    assert!(
        book.len() >= 100,
        "the built-in book has {} positions",
        book.len()
    );
    assert!(BookSpec::parse("builtin").load().is_ok());
    // Compiled into every binary and read whole by the daemon at its start: 56 ms at 32,160
    // positions (983 KB) on this project's machine (docs/performance.md), so 4 MiB keeps that
    // start within a quarter of a second; a one-position `search` reads only its root's record
    // whatever the size (`Book::from_bytes_for`).
    assert!(checkersbot::engine::book::BUILTIN_8X8.len() < 4 << 20);
    let start = AnyPosition::initial(BoardSize::S8, Side::Player);
    assert!(book.moves(&start).is_some(), "the start is in the book");
    for e in book.entries() {
        assert_eq!(e.position.side(), Side::Player);
        let legal = e.position.legal_moves();
        for m in &e.moves {
            assert!(legal.contains(&m.mv), "{}: {}", e.position, m.mv);
        }
    }
}

/// `Book::from_bytes_for` (what a one-position `search` reads of the built-in book): the records
/// of the positions asked for, in either colour, exactly as the whole book has them; nothing for
/// positions the book lacks or of another size; and a damaged file still refused.
#[test]
fn a_book_cut_down_to_its_roots_answers_them_as_the_whole_book_does() {
    let whole = builtin();
    let bytes = checkersbot::engine::book::BUILTIN_8X8;
    // Positions the book holds (the first, the last and some between, each in both colours),
    // and one it lacks.
    let n = whole.len();
    let held: Vec<AnyPosition> = [0, 1, n / 3, n / 2, n - 1]
        .iter()
        .map(|&i| whole.entries()[i].position)
        .collect();
    let turned = |p: &AnyPosition| {
        let mut grid = p.grid().rotated();
        for c in grid.clone().playable() {
            let q = grid.get(c).map(|mut q| {
                q.side = q.side.opponent();
                q
            });
            grid.set(c, q);
        }
        AnyPosition::from_grid(&grid, Side::Bot)
    };
    let lacking = AnyPosition::from_grid(
        &checkersbot::rules::board::Grid::parse_line(
            "_b_b_b__/b_______/________/________/________/________/_______p/p_p_p_p_",
        )
        .expect("a board"),
        Side::Player,
    );
    assert!(whole.moves(&lacking).is_none());
    for p in &held {
        for q in [*p, turned(p)] {
            let cut = Book::from_bytes_for(bytes, &[q, lacking], false).expect("reads");
            assert_eq!(cut.len(), 1, "{q}");
            assert_eq!(cut.moves(&q), whole.moves(&q), "{q}");
            assert_eq!(
                cut.moves_within(&q, 1 << 40),
                whole.moves_within(&q, 1 << 40)
            );
            assert_eq!(cut.info(), whole.info());
            let checked = Book::from_bytes_for(bytes, &[q], true).expect("reads");
            assert_eq!(checked.entries(), cut.entries());
        }
    }
    let all = Book::from_bytes_for(bytes, &held, true).expect("reads");
    assert_eq!(all.len(), held.len());
    assert!(Book::from_bytes_for(bytes, &[lacking], true)
        .expect("reads")
        .is_empty());
    let small = AnyPosition::initial(BoardSize::S6, Side::Player);
    assert!(Book::from_bytes_for(bytes, &[small], true)
        .expect("reads")
        .is_empty());
    // Through the spec: the built-in book for an 8x8 root, nothing on another size.
    let spec = BookSpec::parse("builtin");
    let cut = spec
        .load_for_root(&held[2])
        .expect("reads")
        .expect("a book");
    assert_eq!(cut.moves(&held[2]), whole.moves(&held[2]));
    assert!(spec.load_for_root(&small).expect("reads").is_none());
    // A damaged byte in another record: the checksum finds it when asked; a truncated body is
    // refused either way.
    let mut damaged = bytes.to_vec();
    let last = damaged.len() - 3;
    damaged[last] ^= 0x40;
    assert!(matches!(
        Book::from_bytes_for(&damaged, &[held[0]], true),
        Err(BookError::Checksum { .. })
    ));
    let short = &bytes[..bytes.len() - 5];
    assert!(Book::from_bytes_for(short, &[held[0]], false).is_err());
    assert!(Book::from_bytes_for(short, &[held[0]], true).is_err());
    assert!(matches!(
        Book::from_bytes_for(b"not a book", &[held[0]], false),
        Err(BookError::Magic)
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// From any built-in book position, in either colour, every book move the book gives is
    /// legal there, and a chosen move (at any margin and seed) is one of them.
    #[test]
    fn builtin_book_moves_are_legal(i in any::<prop::sample::Index>(), turned in any::<bool>(),
                                    margin in 0i32..200, seed in any::<u64>()) {
        let book = builtin();
        let e = &book.entries()[i.index(book.len())];
        // The same position with the bot to move: turned and colours swapped.
        let pos = if turned {
            let mut grid = e.position.grid().rotated();
            for c in grid.clone().playable() {
                let p = grid.get(c).map(|mut p| { p.side = p.side.opponent(); p });
                grid.set(c, p);
            }
            AnyPosition::from_grid(&grid, Side::Bot)
        } else {
            e.position
        };
        prop_assert_eq!(canonical(&pos).0, e.position);
        let legal = pos.legal_moves();
        if let Some(moves) = book.moves(&pos) {
            prop_assert_eq!(moves.len(), e.moves.len());
            for m in &moves {
                prop_assert!(legal.contains(&m.mv), "{} {}", pos, m.mv);
            }
            let pick = book.choose(&pos, margin, Some(&mut Rng::new(seed)));
            let pick = pick.expect("a move");
            let best = moves.iter().map(|m| m.value).max().unwrap_or(0);
            prop_assert!(moves.contains(&pick));
            prop_assert!(i32::from(pick.value) >= i32::from(best) - margin);
        } else {
            prop_assert!(e.moves.is_empty());
        }
    }
}

fn book_engine(book: &Book, margin: i32) -> Engine {
    Engine::new(EngineConfig {
        book: Some(Arc::new(book.clone())),
        book_margin: margin,
        ..EngineConfig::default()
    })
}

#[test]
fn the_engine_answers_from_the_book_only_on_its_size() {
    let book = tiny8();
    let mut engine = book_engine(book, 0);
    let limits = Limits {
        depth: Some(3),
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    for side in [Side::Player, Side::Bot] {
        let start = AnyPosition::initial(BoardSize::S8, side);
        let r = engine.search(&start, &[], &limits, &stop, &mut |_| {});
        assert_eq!(r.reason, StopReason::Book);
        assert!(r.info.book);
        let moves = book.moves(&start).expect("start in the book");
        assert_eq!(r.best.as_ref(), Some(&moves[0].mv), "margin 0: the best");
        assert!(start.legal_moves().contains(&moves[0].mv));
    }
    for size in [BoardSize::S6, BoardSize::S10] {
        let start = AnyPosition::initial(size, Side::Player);
        let r = engine.search(&start, &[], &limits, &stop, &mut |_| {});
        assert_ne!(r.reason, StopReason::Book, "{size}");
        assert!(!r.info.book);
    }
    // A position out of the book is searched.
    let out = AnyPosition::from_grid(
        &checkersbot::rules::board::Grid::parse_line(
            "________/__b_____/________/________/________/____p___/________/________",
        )
        .expect("board"),
        Side::Player,
    );
    let r = engine.search(&out, &[], &limits, &stop, &mut |_| {});
    assert_ne!(r.reason, StopReason::Book);
}

/// The first `plies` moves of a game where both sides choose as `level` does with the built-in
/// book (searching 2 plies out of it).
fn game(level: Level, seed: u64, plies: usize) -> Vec<String> {
    let mut engine = book_engine(builtin(), level.book_margin());
    let mut rng = Rng::new(seed);
    let stop = AtomicBool::new(false);
    // Out of the book, a quick search: what is tested is the choice among book moves.
    let limits = Limits {
        depth: Some(2),
        ..Limits::default()
    };
    let mut pos = AnyPosition::initial(BoardSize::S8, Side::Bot);
    let mut moves = Vec::new();
    for _ in 0..plies {
        let r = choose_move(
            &mut engine,
            &pos,
            &[],
            &limits,
            None,
            level.misstep(),
            &mut rng,
            &stop,
            &mut |_| {},
        );
        let Some(m) = r.best else { break };
        moves.push(m.notation());
        pos = pos.play(&m).expect("legal");
    }
    moves
}

#[test]
fn the_same_seed_gives_the_same_game_and_other_seeds_other_games_at_the_easy_level() {
    let a = game(Level::Easy, 7, 10);
    assert_eq!(a, game(Level::Easy, 7, 10));
    let games: std::collections::HashSet<Vec<String>> =
        (1..=6).map(|s| game(Level::Easy, s, 10)).collect();
    assert!(games.len() >= 3, "6 seeds gave {} games", games.len());
    // `max` plays the best line only, whatever the seed, as far as the book goes.
    let book = builtin();
    let max: Vec<Vec<String>> = (1..=3).map(|s| game(Level::Max, s, 4)).collect();
    let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
    let best = book.moves(&start).expect("start in the book");
    assert!(max.iter().all(|g| g[0] == best[0].mv.notation()));
    assert!(max.windows(2).all(|w| w[0] == w[1]));
}

fn bin(args: &[&str]) -> (String, String, bool) {
    common::run_binary(args)
}

#[test]
fn search_with_the_builtin_book_answers_from_it() {
    let (out, _, ok) = bin(&["search", "--book", "builtin", "--side", "b"]);
    assert!(ok);
    assert!(out.contains("stop book"), "{out}");
    let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
    let moves = builtin().moves(&start).expect("in the book");
    assert!(
        out.contains(&format!("move {}\n", moves[0].mv.notation())),
        "{out}"
    );
    // Without the book the same command searches.
    let (out, _, ok) = bin(&["search", "--book", "off", "--side", "b", "--depth", "3"]);
    assert!(ok && !out.contains("stop book"), "{out}");
}

#[test]
fn book_commands_and_bad_files() {
    let (out, _, ok) = bin(&["book", "info"]);
    assert!(ok);
    assert!(
        out.contains(&format!("positions {}\n", builtin().len())),
        "{out}"
    );
    let doubted = checkersbot::engine::book::build::contradicted(builtin(), 30, usize::MAX);
    assert!(
        out.contains(&format!("\ncontradicted {} (", doubted.len())),
        "{out}"
    );
    let (out, _, ok) = bin(&["book", "probe", "--side", "b"]);
    assert!(ok);
    let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
    let first = builtin().moves(&start).expect("in the book")[0].clone();
    assert!(
        out.starts_with(&format!(
            "move {} value {}\n",
            first.mv.notation(),
            first.value
        )),
        "{out}"
    );
    // Then what the moves rest on: the start is an expanded position.
    let record = builtin()
        .entry(
            builtin()
                .find_canonical(&canonical(&start).0)
                .expect("in the book"),
        )
        .clone();
    assert!(
        out.ends_with(&format!(
            "record expanded value {} depth {} nodes {}\n",
            record.value, record.depth, record.nodes
        )),
        "{out}"
    );
    let path = std::env::temp_dir().join(format!("checkersbot-bad-{}.cbbk", std::process::id()));
    let mut bytes = tiny8().to_bytes().expect("writes");
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&path, &bytes).expect("temp file");
    let p = path.display().to_string();
    let (_, err, ok) = bin(&["search", "--book", &p, "--depth", "2"]);
    let (_, err_info, ok_info) = bin(&["book", "info", "--book", &p]);
    std::fs::remove_file(&path).ok();
    assert!(!ok && err.contains("truncated"), "{err}");
    assert!(!ok_info && err_info.contains("truncated"), "{err_info}");
}

#[test]
fn book_build_writes_and_resumes_a_file() {
    let path = std::env::temp_dir().join(format!("checkersbot-build-{}.cbbk", std::process::id()));
    let p = path.display().to_string();
    let args = |max: &str| -> Vec<String> {
        [
            "book",
            "build",
            "--out",
            &p,
            "--size",
            "6",
            "--nodes",
            "2000",
            "--threads",
            "2",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain(["--max-positions".into(), max.into()])
        .collect()
    };
    let a: Vec<String> = args("10");
    let (_, err, ok) = bin(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok, "{err}");
    let first = Book::load(&path).expect("written");
    let b: Vec<String> = args("25");
    let (_, err, ok) = bin(&b.iter().map(String::as_str).collect::<Vec<_>>());
    let second = Book::load(&path);
    // A larger budget with no room to grow searches nothing, so `book info` counts the records
    // below it; a --deepen pass searches them again, and none is left below.
    let bigger = |extra: &[&str]| {
        let mut a = vec![
            "book", "build", "--out", &p, "--size", "6", "--nodes", "4000",
        ];
        a.extend(["--threads", "2", "--max-positions", "1"]);
        a.extend(extra);
        let (_, err, ok) = bin(&a);
        let (info, _, _) = bin(&["book", "info", "--book", &p]);
        (ok, err, info, Book::load(&path))
    };
    let (ok_more, err_more, info_more, more) = bigger(&[]);
    // (`--repair` alone takes its default margin; the position limit stops the build after
    // the deepen pass, before any repair.)
    let (ok_deep, err_deep, info_deep, deep) = bigger(&["--deepen", "--repair"]);
    std::fs::remove_file(&path).ok();
    assert!(ok_more && ok_deep, "{err_more}{err_deep}");
    let (more, deep) = (more.expect("rewritten"), deep.expect("rewritten"));
    let below = |info: &str| -> usize {
        info.lines()
            .find_map(|l| l.strip_prefix("below_budget "))
            .and_then(|l| l.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no below_budget line in {info}"))
    };
    assert_eq!(
        more.entries(),
        second.as_ref().expect("rewritten").entries()
    );
    let n = below(&info_more);
    assert!(n >= 10, "{info_more}");
    assert_eq!(below(&info_deep), 0, "{info_deep}");
    assert!(info_deep.contains("\ncontradicted "), "{info_deep}");
    assert_eq!(deep.len(), more.len());
    let deepened = deep.entries().iter().filter(|e| e.nodes == 4000).count();
    assert_eq!(deepened, n);
    assert!(ok && err.contains("resuming"), "{err}");
    let second = second.expect("rewritten");
    assert!(first.len() >= 10 && second.len() >= 25);
    assert_eq!(second.size(), BoardSize::S6);
    assert_eq!(second.info().nodes, 2000);
    // The first build's positions are still there, in the same order.
    assert_eq!(
        &second.entries()[..first.len()]
            .iter()
            .map(|e| e.position)
            .collect::<Vec<_>>(),
        &first
            .entries()
            .iter()
            .map(|e| e.position)
            .collect::<Vec<_>>()
    );
}

/// The book each `status` line names, in order.
fn status_books(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .filter(|l| l.starts_with("status "))
        .filter_map(|l| l.split(" book ").nth(1))
        .filter_map(|rest| rest.split(' ').next())
        .collect()
}

fn daemon(input: &str) -> Vec<String> {
    daemon_with(Settings::deterministic(), input)
}

fn daemon_with(settings: Settings, input: &str) -> Vec<String> {
    let sink = MemorySink::default();
    replay(
        settings,
        std::io::Cursor::new(input.as_bytes().to_vec()),
        Box::new(sink.clone()),
    )
    .expect("a 16 MiB table");
    let lines = sink.0.lock().map(|l| l.clone()).unwrap_or_default();
    lines
}

#[test]
fn the_daemon_sets_the_book_and_plays_from_it() {
    let start_b = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_ b";
    let lines = daemon(&format!(
        "set book builtin\nset info final\nposition {start_b}\nboard {start_b}\noptions\nstatus\nset book /no/such/book\nset book off\nstatus\n"
    ));
    let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
    let moves = builtin().moves(&start).expect("in the book");
    // Hard, the default level: within 10 of the best.
    let best = moves[0].value;
    let info = lines
        .iter()
        .find(|l| l.starts_with("info depth"))
        .expect("an info line");
    assert!(info.contains(" book pv "), "{lines:?}");
    let mv = lines
        .iter()
        .find(|l| l.starts_with("move "))
        .expect("a move");
    assert!(
        moves
            .iter()
            .any(|m| *mv == format!("move {}", m.mv.notation()) && m.value >= best - 10),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option book type string default builtin value builtin")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| *l
            == "error bad-option book: cannot use /no/such/book: not a readable regular file"),
        "{lines:?}"
    );
    // `status` names the book in use, and none once it is off.
    let books = status_books(&lines);
    assert_eq!(books, ["builtin", "none"], "{lines:?}");
}

/// The daemon's default book: the built-in one at `hard` (the default level) and `max`; `easy`
/// and `medium` play from their own search unless a book is chosen (`set book`).
#[test]
fn the_daemons_default_book_plays_at_hard_and_max_only() {
    let start_b = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_ b";
    let game = format!("position {start_b}\nboard {start_b}\nstatus\n");
    // `max` with a shallow search instead of its 5 s.
    let max = "set level max\nset movetime 0\nset depth 4\n";
    let input = format!(
        "set info final\n{game}set level easy\n{game}set level medium\n{game}{max}{game}\
         set level easy\nset book builtin\n{game}{max}set book off\n{game}"
    );
    // The daemon's own defaults (not replay's), with a shallow search so that the test is quick.
    let settings = Settings {
        movetime: None,
        depth: Some(4),
        timing: false,
        ..Settings::default()
    };
    let lines = daemon_with(settings, &input);
    let from_book: Vec<bool> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .map(|l| l.contains(" book pv "))
        .collect();
    assert_eq!(
        from_book,
        [true, false, false, true, true, false],
        "{lines:?}"
    );
    let books = status_books(&lines);
    assert_eq!(
        books,
        ["builtin", "none", "none", "builtin", "builtin", "none"],
        "{lines:?}"
    );
}

/// A build's settings for the growth tests: 8x8, the start and every ballot of the ACF deck as
/// roots, `nodes` a search, one thread, at most `max` positions.
fn deck_config(nodes: u64, max: usize) -> BuildConfig {
    let deck = Deck::acf3().expect("the deck");
    let mut roots = vec![(AnyPosition::initial(BoardSize::S8, Side::Bot), 0)];
    roots.extend(deck.ballots().iter().map(|b| (b.position, 0)));
    BuildConfig {
        engine: EngineConfig::default(),
        limits: Limits {
            nodes: Some(nodes),
            ..Limits::default()
        },
        penalty: 10,
        threads: 1,
        batch: 2,
        max_positions: Some(max),
        rounds: None,
        time: None,
        max_ply: 60,
        save_every: Duration::from_secs(3600),
        roots,
        deepen: false,
        repair: None,
    }
}

/// Growing the committed (built-in) book with the deck's ballots as roots keeps every record it
/// had, first and in order, with its own search (value, depth, budget); a record's moves change
/// only where it has been expanded since, and then to the values of the searches below it. Every
/// ballot is in the grown book, and the new records have the new budget.
#[test]
fn extending_the_committed_book_keeps_every_entry_and_its_value() {
    let old = builtin();
    let mut book = old.clone();
    let cfg = deck_config(800, old.len() + 120);
    let end = build(
        &mut book,
        &cfg,
        &AtomicBool::new(false),
        &mut |_| Ok(()),
        &mut |_| {},
    )
    .expect("no file to write");
    assert_eq!(end, BuildEnd::Positions);
    assert!(book.len() >= old.len() + 120);
    let mut expanded_since = 0;
    for (i, (was, now)) in old.entries().iter().zip(book.entries()).enumerate() {
        assert_eq!(was.position, now.position, "record {i}");
        assert_eq!(
            (was.value, was.depth, was.nodes),
            (now.value, now.depth, now.nodes),
            "record {i}: its own search is kept"
        );
        if was.expanded {
            assert!(now.expanded, "record {i}");
            let mut a: Vec<_> = was.moves.iter().map(|m| m.mv.clone()).collect();
            let mut b: Vec<_> = now.moves.iter().map(|m| m.mv.clone()).collect();
            a.sort_by_key(|m| m.notation());
            b.sort_by_key(|m| m.notation());
            assert_eq!(a, b, "record {i}: the same moves");
        } else if now.expanded {
            expanded_since += 1;
        } else {
            assert_eq!(
                was.moves, now.moves,
                "record {i}: an unexpanded leaf is unchanged"
            );
        }
    }
    assert!(expanded_since > 0, "some old leaves were expanded");
    assert!(book.entries()[old.len()..].iter().all(|e| e.nodes == 800));
    for b in Deck::acf3().expect("deck").ballots() {
        assert!(book.moves(&b.position).is_some(), "ballot {}", b.number);
    }
    // The values are minimax through the book: every expanded record's move values are minus the
    // best its child has.
    for e in book.entries().iter().filter(|e| e.expanded) {
        for m in &e.moves {
            let next = e.position.play(&m.mv).expect("legal");
            let j = book.find_canonical(&canonical(&next).0).expect("child in");
            let c = book.entry(j);
            let child = if c.expanded && !c.moves.is_empty() {
                c.moves.iter().map(|m| m.value).max().unwrap_or(c.value)
            } else {
                c.value
            };
            assert_eq!(m.value, -child, "{}", e.position);
        }
    }
}

/// A build stopped twice (in the middle of the ballots' first searches, then in the middle of an
/// expansion round), each time saved through the file format and resumed, gives the same book as
/// one built straight through at the same settings.
#[test]
fn an_interrupted_and_resumed_build_equals_an_uninterrupted_one() {
    let base = tiny8().clone();
    let target = base.len() + 190;
    let cfg = deck_config(600, target);
    let mut straight = base.clone();
    let end = build(
        &mut straight,
        &cfg,
        &AtomicBool::new(false),
        &mut |_| Ok(()),
        &mut |_| {},
    )
    .expect("builds");
    assert_eq!(end, BuildEnd::Positions);
    // Stops at the first progress report `when` accepts; returns the book as saved.
    let stopped = |book: Book, when: &dyn Fn(&Progress) -> bool| -> (Book, BuildEnd) {
        let mut book = book;
        let stop = AtomicBool::new(false);
        let mut saved = None;
        let end = build(
            &mut book,
            &cfg,
            &stop,
            &mut |b| {
                saved = Some(b.to_bytes().expect("writes"));
                Ok(())
            },
            &mut |p| {
                if when(p) {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            },
        )
        .expect("builds");
        let saved = Book::from_bytes(&saved.expect("saved at the end")).expect("reads");
        (saved, end)
    };
    // In the ballots' searches (most of the 157 are not in the tiny book).
    let (first, end) = stopped(base, &|p| p.round_done == 20);
    assert_eq!(end, BuildEnd::Stopped);
    assert!(first.len() < target);
    assert!(first.entries().iter().all(|e| !e.pending));
    // Then in the middle of the second expansion round (a round's list is a few dozen
    // positions, the ballots' more than a hundred): its leaves stay marked.
    let rounds = std::cell::Cell::new(0);
    let (second, end) = stopped(first, &|p| {
        if p.round_total < 60 && p.round_done == 1 {
            rounds.set(rounds.get() + 1);
        }
        rounds.get() == 2 && p.round_done == 3
    });
    assert_eq!(end, BuildEnd::Stopped);
    assert!(
        second.entries().iter().any(|e| e.pending),
        "stopped between rounds: pick another report"
    );
    let mut resumed = second;
    let end = build(
        &mut resumed,
        &cfg,
        &AtomicBool::new(false),
        &mut |_| Ok(()),
        &mut |_| {},
    )
    .expect("builds");
    assert_eq!(end, BuildEnd::Positions);
    assert_eq!(resumed.len(), straight.len());
    assert_eq!(resumed.entries(), straight.entries());
    assert_eq!(resumed.info().searches, straight.info().searches);
}

/// `book build` stops on SIGTERM with its file saved and readable, and the same command goes on
/// from it.
#[cfg(unix)]
#[test]
fn book_build_stops_on_sigterm_with_its_file_saved() {
    let path =
        std::env::temp_dir().join(format!("checkersbot-sigterm-{}.cbbk", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let p = path.display().to_string();
    let args = [
        "book",
        "build",
        "--out",
        &p,
        "--from",
        "builtin",
        "--nodes",
        "20000",
        "--threads",
        "1",
        "--save-every",
        "1",
    ];
    let child = Command::new(env!("CARGO_BIN_EXE_checkersbot"))
        .args(args)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Wait for the first periodic save, then stop it.
    let waited = std::time::Instant::now();
    while !path.exists() && waited.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    common::signal(&child, libc::SIGTERM);
    let out = child.wait_with_output().expect("it ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("done (stopped)"), "{err}");
    let book = Book::load(&path).expect("a consistent file");
    assert!(book.len() > builtin().len(), "{err}");
    // Going on: the file exists, so --from is refused; without it, it resumes.
    let (_, err, ok) = bin(&args);
    assert!(!ok && err.contains("exists and would be extended"), "{err}");
    let (_, err, ok) = bin(&[
        "book",
        "build",
        "--out",
        &p,
        "--nodes",
        "20000",
        "--threads",
        "1",
        "--max-positions",
        "1",
    ]);
    std::fs::remove_file(&path).ok();
    assert!(ok && err.contains("resuming"), "{err}");
}

/// `book lines` grows a copy of the built-in book along the deck's games: new leaves at its own
/// budget, the old records kept; run again, it replays the games from the book and adds nothing.
#[test]
fn book_lines_grows_a_book_along_the_games_and_goes_on_from_it() {
    let path = std::env::temp_dir().join(format!("checkersbot-lines-{}.cbbk", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let p = path.display().to_string();
    let args = |from: bool| -> Vec<String> {
        let mut a: Vec<String> = [
            "book",
            "lines",
            "--out",
            &p,
            "--deck",
            "acf3:2-3",
            "--nodes",
            "20000",
            "--opponent-nodes",
            "2000,5000",
            "--max-ply",
            "12",
            "--threads",
            "2",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if from {
            a.extend(["--from".to_string(), "builtin".to_string()]);
        }
        a
    };
    let run = |a: Vec<String>| bin(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let (_, err, ok) = run(args(true));
    assert!(ok, "{err}");
    assert!(err.contains("8 games to ply 12"), "{err}");
    let grown = Book::load(&path).expect("written");
    assert!(grown.len() > builtin().len(), "{err}");
    for e in builtin().entries() {
        let i = grown.find_canonical(&e.position).expect("kept");
        assert_eq!(grown.entry(i), e);
    }
    // New records: the searches at their budget, and the first plies of their variations at
    // half the budget a ply.
    let new: Vec<_> = grown
        .entries()
        .iter()
        .filter(|e| builtin().find_canonical(&e.position).is_none())
        .collect();
    assert!(new.iter().all(|e| !e.expanded
        && if e.pv {
            [10_000, 5_000, 2_500, 1_250].contains(&e.nodes)
        } else {
            e.nodes == 20_000
        }));
    assert!(new.iter().any(|e| e.pv));
    let variations = grown.entries().iter().filter(|e| e.pv).count();
    let (out, err, ok) = bin(&["book", "info", "--book", &p]);
    assert!(ok, "{err}");
    assert!(out.contains(&format!("variations {variations} ")), "{out}");
    // The games played are listed beside the book, one line each.
    let played = std::path::PathBuf::from(format!("{p}.lines"));
    let listed = |path: &std::path::Path| -> Vec<String> {
        std::fs::read_to_string(path)
            .expect("the played file")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(String::from)
            .collect()
    };
    let first = listed(&played);
    assert_eq!(first.len(), 8, "{first:?}");
    for ballot in [2, 3] {
        for side in ["p", "b"] {
            for opponent in [2000, 5000] {
                let n = first
                    .iter()
                    .filter(|l| {
                        l.contains(&format!(" ballot={ballot} "))
                            && l.contains(&format!(" book_side={side} "))
                            && l.contains(&format!(" opponent_nodes={opponent} "))
                            && l.starts_with("nodes=20000 max_ply=12 ")
                    })
                    .count();
                assert_eq!(n, 1, "ballot {ballot} {side} {opponent}: {first:?}");
            }
        }
    }
    // Run again, it plays none of them...
    let (_, err, ok) = run(args(false));
    assert!(ok && err.contains("resuming"), "{err}");
    assert!(
        err.contains("0 games to ply 12 (8 of 8 already played"),
        "{err}"
    );
    assert!(err.contains("every game played"), "{err}");
    assert_eq!(Book::load(&path).expect("kept").len(), grown.len());
    // ...over a wider deck, only the new ballot's...
    let mut wider = args(false);
    wider[5] = "acf3:2-4".to_string();
    let (_, err, ok) = run(wider);
    assert!(ok, "{err}");
    assert!(
        err.contains("4 games to ply 12 (8 of 12 already played"),
        "{err}"
    );
    let now = listed(&played);
    assert_eq!(now.len(), 12, "{now:?}");
    assert_eq!(now[..8], first[..]);
    assert_eq!(
        now.iter().filter(|l| l.contains(" ballot=4 ")).count(),
        4,
        "{now:?}"
    );
    let wider_book = Book::load(&path).expect("written").len();
    assert!(wider_book >= grown.len());
    // ...and without the list (`--played off`) it replays them all from the book, adding nothing.
    let mut all = args(false);
    all.extend(["--played".to_string(), "off".to_string()]);
    let (_, err, ok) = run(all);
    let again = Book::load(&path);
    std::fs::remove_file(&path).ok();
    std::fs::remove_file(&played).ok();
    assert!(ok && err.contains("resuming"), "{err}");
    assert!(err.contains("8 games to ply 12,"), "{err}");
    assert!(err.contains("(+0 this run"), "{err}");
    assert_eq!(again.expect("rewritten").len(), wider_book);
    // Bad budgets, and a list that would overwrite the book, are refused before anything is
    // written.
    let (_, err, ok) = bin(&["book", "lines", "--out", &p, "--opponent-nodes", "0"]);
    assert!(!ok && err.contains("--opponent-nodes"), "{err}");
    let (_, err, ok) = bin(&["book", "lines", "--out", &p, "--played", &p]);
    assert!(!ok && err.contains("the book itself"), "{err}");
    assert!(!path.exists());
}

/// A report command whose reader goes away ends quietly (no panic about a broken pipe).
#[cfg(unix)]
#[test]
fn a_command_whose_reader_goes_away_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let mut child = Command::new(env!("CARGO_BIN_EXE_checkersbot"))
        .args(["book", "info", "--ballots"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Close the reading end before the program writes (it loads the book first).
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("it ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        out.status.success() || out.status.signal() == Some(libc::SIGPIPE),
        "{:?} {err}",
        out.status
    );
}
