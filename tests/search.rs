//! Engine tests through the public API: tactics, won endgames converted in self-play, draws by
//! repetition, determinism, deadlines and the special cases (no move, only move).

mod common;

use checkersbot::engine::{
    Engine, EngineConfig, Limits, Score, SearchParams, SearchResult, StopReason,
};
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::board::Grid;
use checkersbot::rules::game::{Game, Status};
use checkersbot::rules::geometry::BoardSize;
use checkersbot::rules::position::Side;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

fn pos(line: &str, side: Side) -> AnyPosition {
    AnyPosition::from_grid(&Grid::parse_line(line).expect("test board"), side)
}

fn engine() -> Engine {
    Engine::new(EngineConfig {
        hash_mb: 8,
        ..EngineConfig::default()
    })
}

fn search(e: &mut Engine, p: &AnyPosition, history: &[u64], limits: &Limits) -> SearchResult {
    e.search(p, history, limits, &AtomicBool::new(false), &mut |_| {})
}

fn movetime(ms: u64) -> Limits {
    Limits {
        movetime: Some(Duration::from_millis(ms)),
        ..Limits::default()
    }
}

fn nodes(n: u64) -> Limits {
    Limits {
        nodes: Some(n),
        ..Limits::default()
    }
}

/// The same position seen from the other side: the board turned 180 degrees, colours swapped.
fn mirror(line: &str) -> String {
    line.chars()
        .rev()
        .map(|c| match c {
            'p' => 'b',
            'b' => 'p',
            'P' => 'B',
            'B' => 'P',
            c => c,
        })
        .collect()
}

/// Pieces of `side` less pieces of the opponent (men and kings alike).
fn material(p: &AnyPosition, side: Side) -> i32 {
    let g = p.grid();
    let (m, k) = g.count(side);
    let (om, ok) = g.count(side.opponent());
    (m + k) as i32 - (om + ok) as i32
}

/// Plays a result's principal variation from `p` and returns the last position on it where no
/// capture is pending (so that its material is settled).
fn play_pv(p: &AnyPosition, r: &SearchResult) -> AnyPosition {
    let mut cur = *p;
    let mut quiet = *p;
    for m in &r.info.pv {
        cur = cur.play(m).expect("the PV is legal");
        if !cur.has_capture() {
            quiet = cur;
        }
    }
    quiet
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

#[test]
#[ignore]
fn print_positions() {
    for (size, plies, seed) in [
        (BoardSize::S8, 8, 1u64),
        (BoardSize::S8, 12, 2),
        (BoardSize::S8, 16, 3),
        (BoardSize::S8, 20, 4),
        (BoardSize::S8, 24, 5),
        (BoardSize::S8, 30, 6),
        (BoardSize::S8, 44, 7),
        (BoardSize::S8, 60, 11),
        (BoardSize::S10, 16, 8),
        (BoardSize::S12, 20, 9),
        (BoardSize::S12, 36, 10),
    ] {
        let mut e = Engine::new(EngineConfig {
            seed: Some(seed),
            ..EngineConfig::default()
        });
        let mut g = Game::new(AnyPosition::initial(size, Side::Player));
        let mut n = 0;
        while n < plies || g.current().has_capture() || g.current().legal_moves().len() < 6 {
            let r = search(&mut e, g.current(), &g.history_keys(), &depth(6));
            let Some(m) = r.best else { break };
            g.play(&m);
            n += 1;
        }
        println!("{}", g.current());
    }
}

/// Plays one game between two engines from `start`; `engines[0]` plays the player, `[1]` the bot.
/// Returns the final status (a game still going after `max_plies` counts as unfinished).
fn play_game(
    start: AnyPosition,
    engines: &mut [&mut Engine; 2],
    limits: &Limits,
    max_plies: usize,
) -> (Game, Status) {
    let mut g = Game::new(start);
    for e in engines.iter_mut() {
        e.new_game();
    }
    while g.plies() < max_plies {
        let st = g.status();
        if st.is_over() {
            return (g, st);
        }
        let side = g.current().side();
        let e = &mut engines[if side == Side::Player { 0 } else { 1 }];
        let r = search(e, g.current(), &g.history_keys(), limits);
        let m = r.best.expect("a move while the game goes on");
        g.play(&m).expect("a legal move");
    }
    let st = g.status();
    (g, st)
}

/// Openings: `count` positions a few random plies from the start of a size.
fn openings(size: BoardSize, count: usize, plies: usize, seed: u64) -> Vec<AnyPosition> {
    let mut rng = seed | 1;
    let mut out = Vec::new();
    while out.len() < count {
        let mut p = AnyPosition::initial(size, Side::Player);
        for _ in 0..plies {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            p = p.play(&moves[(rng % moves.len() as u64) as usize]).unwrap();
        }
        if !p.legal_moves().is_empty() && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// A search/evaluation variant from knobs like `lmr=0,advance=3` (for the tuning experiments).
fn tune_variant(
    name: &str,
) -> (
    checkersbot::engine::SearchParams,
    checkersbot::engine::eval::Weights,
) {
    use checkersbot::engine::eval::Weights;
    use checkersbot::engine::SearchParams;
    let mut p = SearchParams::default();
    let mut w = Weights::default();
    for part in name.split(',').filter(|s| !s.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, "1"));
        let v: i64 = v.parse().unwrap();
        match k {
            "man" => w.man = v as i32,
            "king" => w.king = v as i32,
            "advance" => w.advance = v as i32,
            "backrank" => w.back_rank = v as i32,
            "centre" => w.centre = v as i32,
            "mobility" => w.mobility = v as i32,
            "runaway" => w.runaway = v as i32,
            "trade" => w.trade = v as i32,
            "endgame" => w.endgame = v as i32,
            // Search knobs: the short names of the README's older commands, or
            // `SearchParams::with_knobs`'s own names.
            _ => {
                let knob = match k {
                    "min" => "lmr_min_index",
                    "depth" => "lmr_min_depth",
                    "threat" => "lmr_threat_guard",
                    "asp" => "aspiration",
                    "text" => "threat_extension",
                    "razor" => "razor_margin",
                    "razord" => "razor_depth",
                    "pc" => "probcut",
                    "pcd" => "probcut_depth",
                    "pcr" => "probcut_reduction",
                    other => other,
                };
                p = p.with_knobs(&format!("{knob}={v}")).unwrap();
            }
        }
    }
    (p, w)
}

/// The evaluation named by the environment variable `var` as `--eval` names one (`hand`,
/// `learned` or a `checkersbot train` file); unset, the default evaluation.
fn tune_learned(var: &str) -> checkersbot::engine::eval::LearnedSet {
    use checkersbot::engine::eval::{load_eval, DEFAULT_EVAL};
    let spec = std::env::var(var).unwrap_or_else(|_| DEFAULT_EVAL.to_string());
    load_eval(&spec).unwrap()
}

/// A match between two search settings (environment: CB_A and CB_B name variants, CB_NODES the
/// node budget per move or CB_MS the time per move, CB_GAMES the number of openings, CB_PLIES the
/// random plies of each opening (default 4), CB_SEED the openings' seed; each opening is played with
/// both colours; CB_EVAL_A and CB_EVAL_B name the evaluations as `--eval` does, default `learned`). Prints A's wins, losses and draws and the Elo of A over B with its 95% margin.
#[test]
#[ignore]
fn tune_match() {
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let a = tune_variant(&env("CB_A", ""));
    let b = tune_variant(&env("CB_B", "lmr=0"));
    let nodes: u64 = env("CB_NODES", "50000").parse().unwrap();
    let games: usize = env("CB_GAMES", "16").parse().unwrap();
    let size = match env("CB_SIZE", "8").as_str() {
        "10" => BoardSize::S10,
        "12" => BoardSize::S12,
        _ => BoardSize::S8,
    };
    // CB_MS, when set, gives a time per move instead of the node budget.
    let limits = match std::env::var("CB_MS") {
        Ok(ms) => movetime(ms.parse().unwrap()),
        Err(_) => Limits {
            nodes: Some(nodes),
            ..Limits::default()
        },
    };
    let mut ea = engine();
    ea.set_search_params(a.0);
    ea.set_weights(a.1.clone());
    ea.set_learned(tune_learned("CB_EVAL_A"));
    let mut eb = engine();
    eb.set_search_params(b.0);
    eb.set_weights(b.1.clone());
    eb.set_learned(tune_learned("CB_EVAL_B"));
    let (mut wa, mut wb, mut d) = (0, 0, 0);
    let seed: u64 = env("CB_SEED", "12345").parse().unwrap();
    let plies: usize = env("CB_PLIES", "4").parse().unwrap();
    let mut scores = Vec::new();
    for start in openings(size, games, plies, seed) {
        for a_plays in [Side::Player, Side::Bot] {
            let mut es = if a_plays == Side::Player {
                [&mut ea, &mut eb]
            } else {
                [&mut eb, &mut ea]
            };
            let (_, st) = play_game(start, &mut es, &limits, 300);
            match st {
                Status::Win { winner } if winner == a_plays => {
                    wa += 1;
                    scores.push(1.0)
                }
                Status::Win { .. } => {
                    wb += 1;
                    scores.push(0.0)
                }
                _ => {
                    d += 1;
                    scores.push(0.5)
                }
            }
        }
    }
    println!("A {a:?}\nB {b:?}\nA wins {wa}, B wins {wb}, draws {d}");
    if let Some(e) = checkersbot::play::arena::elo_estimate(&scores) {
        println!("Elo of A over B: {e}");
    }
}

/// Search-variant experiments: nodes to a fixed depth over a few 8x8 positions, and the depth
/// reached in a fixed time from the start, for the variant `CB_A` (same knobs as `tune_match`;
/// CB_EVAL_A names the evaluation as `--eval` does).
#[test]
#[ignore]
fn tune_depth() {
    let lines = [
        "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_ b",
        "_b_b___b/b_b_____/_b_b___b/____b_b_/________/p_p_p_p_/_p_____p/p_p_p_p_ p",
        "_b_b_b_b/b_______/_____b_b/__b_b___/________/p_p_p_p_/_p______/p_p_p_p_ p",
        "_b_b___b/____b_b_/_____b_b/b_p_____/_____p_p/p_p_____/_______p/p___p_p_ b",
        "_b_____b/______b_/_______b/b___b_b_/________/p_p_p_p_/________/p___p_p_ p",
    ];
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let (p, w) = tune_variant(&env("CB_A", ""));
    let depth: u32 = env("CB_DEPTH", "12").parse().unwrap();
    let mut total = 0;
    let started = Instant::now();
    for text in lines {
        let (line, side) = text.split_once(' ').unwrap();
        let side = Side::from_letter(side).unwrap();
        let mut e = engine();
        e.set_search_params(p);
        e.set_weights(w.clone());
        e.set_learned(tune_learned("CB_EVAL_A"));
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let r = search(&mut e, &pos(line, side), &[], &limits);
        print!("{} ", r.info.nodes);
        total += r.info.nodes;
    }
    println!("\ntotal {total} nodes in {:?}", started.elapsed());
    let mut e = engine();
    e.set_search_params(p);
    e.set_weights(w);
    e.set_learned(tune_learned("CB_EVAL_A"));
    let start = pos(lines[0].split_once(' ').unwrap().0, Side::Bot);
    let r = search(&mut e, &start, &[], &movetime(1000));
    println!("depth in 1 s: {} ({} nodes)", r.info.depth, r.info.nodes);
}

// ---------------------------------------------------------------------------------------------
// Tactics

/// A two-for-one shot on 8x8 for the player: F4-E3 gives a man, D2xF4 is forced (D4 cannot take
/// because F2 blocks, and the bot man stops on F4 because H6 is occupied), then G5xE3xC5 takes two.
const SHOT_8: &str = "_b_b____/b_______/________/__b_b___/________/__p_p___/_____p__/p_____p_";

fn check_shot(line: &str, side: Side, expect: &str) {
    let p = pos(line, side);
    // The position is what the comment says: no capture now, and the shot forces the reply.
    assert!(!p.has_capture());
    let shot = p.parse_move(expect).unwrap();
    let after = p.play(&shot).unwrap();
    assert_eq!(after.legal_moves().len(), 1, "the reply is forced");
    let mut e = engine();
    let r = search(&mut e, &p, &[], &depth(10));
    let best = r.best.clone().unwrap();
    assert_eq!(best.notation(), expect, "{:?}", r.info);
    assert!(r.info.score.0 >= 60, "score {}", r.info.score);
    // The principal variation wins material: at least one man net.
    assert!(r.info.pv.len() >= 3);
    let end = play_pv(&p, &r);
    assert!(
        material(&end, side) > material(&p, side),
        "PV ends in {end}"
    );
}

#[test]
fn finds_two_for_one_shot_8x8() {
    check_shot(SHOT_8, Side::Player, "F4 E3");
}

#[test]
fn finds_two_for_one_shot_for_the_bot() {
    // The same shot turned around: C3-D4, E5xC3 forced, B2xD4xF2.
    check_shot(&mirror(SHOT_8), Side::Bot, "C3 D4");
}

#[test]
fn finds_two_for_one_shot_10x10() {
    // The 8x8 shot in the corner of a 10x10 board, with two more men a side far away.
    let rows: Vec<String> = SHOT_8
        .split('/')
        .map(|r| format!("{r}__"))
        .chain(["_______p_p".to_string(), "__________".to_string()])
        .collect();
    let mut line = rows.join("/");
    // Bot men on A7 and A9.
    line.replace_range(7..10, "b_b");
    check_shot(&line, Side::Player, "F4 E3");
}

#[test]
fn avoids_the_capture_that_is_taken_back() {
    // The player man on E3 must capture: E3xC1 is answered by B0xC1 (an even trade), E3xC5 wins a
    // man clean.
    let line = "_____b_b/b_______/________/__b_b___/___p____/________/_______p/p_p_____";
    let p = pos(line, Side::Player);
    let moves: Vec<String> = p.legal_moves().iter().map(|m| m.notation()).collect();
    assert_eq!(moves.len(), 2, "{moves:?}");
    let trade = p.play(&p.parse_move("E3 C1").unwrap()).unwrap();
    assert_eq!(trade.legal_moves().len(), 1, "the recapture is forced");
    let mut e = engine();
    let r = search(&mut e, &p, &[], &depth(10));
    assert_eq!(r.best.clone().unwrap().notation(), "E3 C5");
    let end = play_pv(&p, &r);
    assert!(
        material(&end, Side::Player) > material(&p, Side::Player),
        "PV {:?} ends in {end}",
        r.info.pv.iter().map(|m| m.notation()).collect::<Vec<_>>()
    );
}

// ---------------------------------------------------------------------------------------------
// Won endgames, converted by the engine playing both sides

fn convert(line: &str, side: Side, strong: Side, budget: u64, max_plies: usize) {
    let start = pos(line, side);
    let mut a = engine();
    let mut b = engine();
    let (g, st) = play_game(start, &mut [&mut a, &mut b], &nodes(budget), max_plies);
    eprintln!(
        "{start}: {st} after {} plies: {}",
        g.plies(),
        g.moves()
            .iter()
            .map(|m| m.notation())
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert_eq!(
        st,
        Status::Win { winner: strong },
        "from {start} after {} plies: {} ({})",
        g.plies(),
        g.current(),
        g.moves()
            .iter()
            .map(|m| m.notation())
            .collect::<Vec<_>>()
            .join(", ")
    );
}

#[test]
fn converts_two_kings_against_one_in_the_double_corner_8x8() {
    convert(
        "________/B_______/________/________/________/________/_______P/______P_",
        Side::Player,
        Side::Player,
        200_000,
        100,
    );
}

#[test]
fn converts_two_kings_against_one_for_the_bot_8x8() {
    convert(
        &mirror("________/B_______/________/________/________/________/_______P/______P_"),
        Side::Bot,
        Side::Bot,
        200_000,
        100,
    );
}

#[test]
fn converts_three_kings_against_two_8x8() {
    convert(
        "________/B_______/________/____P___/___P____/____P___/_______B/________",
        Side::Player,
        Side::Player,
        300_000,
        120,
    );
}

#[test]
fn converts_king_and_man_against_king_8x8() {
    convert(
        "_B______/________/________/____P___/________/__p_____/________/________",
        Side::Player,
        Side::Player,
        200_000,
        120,
    );
}

#[test]
fn converts_two_kings_against_one_6x6() {
    convert(
        "______/B_____/______/______/_____P/____P_",
        Side::Player,
        Side::Player,
        100_000,
        80,
    );
}

#[test]
fn converts_two_kings_against_one_10x10() {
    convert(
        "__________/B_________/__________/__________/__________/__________/__________/__________/_________P/________P_",
        Side::Player,
        Side::Player,
        300_000,
        120,
    );
}

#[test]
fn converts_three_kings_against_one_12x12() {
    convert(
        "____________/B___________/____________/____________/____________/____________/____________/____________/____________/__________P_/___________P/__________P_",
        Side::Player,
        Side::Player,
        300_000,
        150,
    );
}

// ---------------------------------------------------------------------------------------------
// Draws

/// Plays `moves` from `start` and returns the game.
fn game_after(start: AnyPosition, moves: &[&str]) -> Game {
    let mut g = Game::new(start);
    for m in moves {
        let mv = g.current().parse_move(m).unwrap();
        g.play(&mv).unwrap();
    }
    g
}

/// Three player kings against one bot king: after F4-G5, A1-B0, G5-F4 the bot can repeat the
/// first position with B0-A1.
fn lost_repetition() -> Game {
    game_after(
        pos(
            "_B______/________/________/________/___P_P__/____P___/________/________",
            Side::Player,
        ),
        &["F4 G5", "A1 B0", "G5 F4"],
    )
}

#[test]
fn losing_side_seeks_a_repetition() {
    // The bot, lost, repeats the first position with B0-A1, which the search scores as a draw.
    let g = lost_repetition();
    let mut e = engine();
    let r = search(&mut e, g.current(), &g.history_keys(), &depth(10));
    assert_eq!(r.best.unwrap().notation(), "B0 A1");
    assert_eq!(r.info.score, Score(0));
    // Without the history the same position is simply lost.
    let r = search(&mut e, g.current(), &[], &depth(10));
    assert!(r.info.score.0 < -100, "{}", r.info.score);
}

#[test]
fn winning_side_avoids_a_repetition() {
    // Three bot kings against one player king: after H6-G7, C3-B4, G7-H6 the move B4-C3 would
    // repeat the first position; the bot plays something else and keeps its winning score.
    let g = game_after(
        pos(
            "________/________/___B____/__B_B___/________/________/________/______P_",
            Side::Player,
        ),
        &["H6 G7", "C3 B4", "G7 H6"],
    );
    let mut e = engine();
    let r = search(&mut e, g.current(), &g.history_keys(), &depth(10));
    assert_ne!(r.best.unwrap().notation(), "B4 C3");
    assert!(r.info.score.0 > 100, "{}", r.info.score);
}

/// An engine whose search scores a rule draw `c` below level for the side to move at the root.
fn engine_with_contempt(c: i32) -> Engine {
    Engine::new(EngineConfig {
        hash_mb: 8,
        search: SearchParams::default()
            .with_knobs(&format!("contempt={c}"))
            .expect("contempt knob"),
        ..EngineConfig::default()
    })
}

#[test]
fn contempt_moves_the_draw_score_and_decides_a_level_repetition() {
    // The lost repetition above is still sought with contempt (a draw beats a loss), but it now
    // scores the contempt below level.
    let lost = lost_repetition();
    let r = search(
        &mut engine_with_contempt(30),
        lost.current(),
        &lost.history_keys(),
        &depth(10),
    );
    assert_eq!(r.best.unwrap().notation(), "B0 A1");
    assert_eq!(r.info.score, Score(-30));
    // A king each: B2-C3 repeats the first position, and every other move leaves the bot's king
    // a little worse placed. Searched 3 plies, so that no other repetition lies within reach.
    // With draws level (contempt 0) the repetition is the bot's best; an engine that counts a
    // draw as half a man lost (contempt 50) plays on and scores above the draw it declined; one
    // that prefers draws (contempt -50) repeats and scores the draw at +50.
    let level = game_after(
        pos(
            "________/________/___B____/________/________/____P___/________/________",
            Side::Player,
        ),
        &["F4 G5", "C3 B2", "G5 F4"],
    );
    let keys = level.history_keys();
    for (contempt, repeats, score) in [(0, true, 0), (50, false, 0), (-50, true, 50)] {
        let r = search(
            &mut engine_with_contempt(contempt),
            level.current(),
            &keys,
            &depth(3),
        );
        let best = r.best.unwrap().notation();
        assert_eq!(best == "B2 C3", repeats, "contempt {contempt}: {best}");
        if repeats {
            assert_eq!(r.info.score, Score(score), "contempt {contempt}");
        } else {
            assert!(
                (-contempt..score).contains(&r.info.score.0),
                "contempt {contempt}: {}",
                r.info.score
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Determinism, deadlines, special cases

const BUSY_12: &str = "_b_b_b_b_b_b/b_____b_b_b_/___b_b_b_b_b/__b_b_b_b_b_/___b___b___b/____________/___p_____p_b/p_____p_p___/_p_p___p_p_p/p_p_p_p_p_p_/_________p_p/p_p_p_p_p_p_";

#[test]
fn depth_limited_search_is_reproducible() {
    for (p, d) in [
        (AnyPosition::initial(BoardSize::S8, Side::Player), 11),
        (pos(BUSY_12, Side::Player), 7),
    ] {
        let r1 = search(&mut engine(), &p, &[], &depth(d));
        let r2 = search(&mut engine(), &p, &[], &depth(d));
        assert_eq!(r1.best, r2.best);
        assert_eq!(r1.info.nodes, r2.info.nodes);
        assert_eq!(r1.info.score, r2.info.score);
        assert_eq!(r1.info.pv, r2.info.pv);
        assert_eq!(r1.reason, StopReason::Depth);
    }
}

#[test]
fn answers_within_the_deadline_on_a_busy_12x12_board() {
    let p = pos(BUSY_12, Side::Player);
    for threads in [1, 2] {
        let mut e = Engine::new(EngineConfig {
            hash_mb: 64,
            threads,
            ..EngineConfig::default()
        });
        for ms in [50, 200] {
            let what = format!("{threads} threads, movetime {ms} ms");
            common::within_on_some_try(&what, Duration::from_millis(ms + 25), || {
                let start = Instant::now();
                let r = search(&mut e, &p, &[], &movetime(ms));
                assert!(r.best.is_some());
                start.elapsed()
            });
        }
    }
}

#[test]
fn stop_flag_ends_an_unlimited_search() {
    let p = pos(BUSY_12, Side::Player);
    let stop = AtomicBool::new(false);
    let mut e = engine();
    common::within_on_some_try("stopped 100 ms in", Duration::from_millis(400), || {
        stop.store(false, std::sync::atomic::Ordering::Relaxed);
        let start = Instant::now();
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(100));
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            });
            let r = e.search(&p, &[], &Limits::default(), &stop, &mut |_| {});
            assert_eq!(r.reason, StopReason::Stopped);
            assert!(r.best.is_some());
        });
        start.elapsed()
    });
}

#[test]
fn no_moves_and_only_move() {
    let mut e = engine();
    let lost = pos("____/__b_/_b__/p___", Side::Player);
    let r = search(&mut e, &lost, &[], &movetime(1000));
    assert_eq!(r.best, None);
    assert_eq!(r.reason, StopReason::NoMoves);
    assert!(r.info.score.0 < 0);
    // A single legal move (a forced capture) is answered at once.
    let only = pos(
        "_b______/________/________/________/___b____/__p_____/________/________",
        Side::Player,
    );
    common::within_on_some_try("only move", Duration::from_millis(100), || {
        let start = Instant::now();
        let r = search(&mut e, &only, &[], &movetime(5000));
        assert_eq!(r.reason, StopReason::OnlyMove);
        assert_eq!(r.best.unwrap().notation(), "F2 D4");
        start.elapsed()
    });
}

#[test]
fn stops_when_the_result_is_proven() {
    // Either king takes the last bot man and wins at once.
    let p = pos(
        "________/________/________/____b___/___P_P__/________/________/________",
        Side::Player,
    );
    let mut e = engine();
    common::within_on_some_try("proven win", Duration::from_millis(500), || {
        let start = Instant::now();
        let r = search(&mut e, &p, &[], &movetime(5000));
        assert_eq!(r.reason, StopReason::Proven);
        assert_eq!(r.info.score.to_string(), "win 1");
        start.elapsed()
    });
}

#[test]
fn two_threads_find_the_shot_and_reach_the_depth() {
    let p = pos(SHOT_8, Side::Player);
    let mut e = Engine::new(EngineConfig {
        hash_mb: 8,
        threads: 2,
        ..EngineConfig::default()
    });
    let r = search(&mut e, &p, &[], &depth(10));
    assert_eq!(r.best.unwrap().notation(), "F4 E3");
    assert_eq!(r.reason, StopReason::Depth);
    assert_eq!(r.info.depth, 10);
    let start = AnyPosition::initial(BoardSize::S10, Side::Bot);
    let r = search(&mut e, &start, &[], &depth(8));
    assert!(r.best.is_some());
    assert_eq!(r.info.depth, 8);
}
