//! Property tests of the learned evaluation: a position and its colour-mirrored twin (the board
//! turned 180 degrees, the colours swapped, the other side to move) score exact negatives from a
//! fixed side's point of view, on every board size, with weights that are all different; and the
//! region indices the search updates move by move equal those computed from scratch, along random
//! games from random boards, and so do the network's sums. Both with the sparse regions and with
//! the staggered ones (on the sizes that can hold them), with a network and without.

use checkersbot::engine::eval::{
    net_inputs, params_per_phase, EvalState, Evaluator, FloatNet, LearnedSet, LearnedWeights,
    Tiling, Weights, HIDDEN,
};
use checkersbot::learn::train::learned_score;
use checkersbot::rules::any_size::AnyPosition;
use checkersbot::rules::board::Grid;
use checkersbot::rules::geometry::{BoardSize, Geometry, G10, G12, G4, G6, G8};
use checkersbot::rules::position::{Piece, Position, Side};
use proptest::prelude::*;

/// Weights that are all different, with the staggered regions if asked and the size holds them,
/// and a network if asked (its weights all different too, some units clipped at 0 or 1; phased
/// with the staggered regions).
fn weights(size: BoardSize, staggered: bool, net: bool) -> LearnedWeights {
    let tiling = if staggered && Tiling::Staggered.fits(size) {
        Tiling::Staggered
    } else {
        Tiling::Sparse
    };
    let per = params_per_phase(size, tiling);
    let open: Vec<f32> = (0..per).map(|i| ((i * 7919) % 61) as f32 - 30.0).collect();
    let end: Vec<f32> = (0..per)
        .map(|i| ((i * 104_729) % 53) as f32 - 26.0)
        .collect();
    let mut w = LearnedWeights::from_cp(size, tiling, 100.0, &open, &end);
    if net {
        let inputs = net_inputs(size);
        let f = |i: usize, m: usize, scale: f32| {
            ((i * 7907) % m) as f32 / m as f32 * 2.0 * scale - scale
        };
        w.net = Some(
            FloatNet {
                inputs,
                w: (0..inputs * HIDDEN).map(|i| f(i, 101, 0.4)).collect(),
                b: (0..HIDDEN).map(|i| 0.5 + f(i, 13, 0.5)).collect(),
                v: (0..2 * HIDDEN).map(|i| f(i + 3, 29, 60.0)).collect(),
                c: 7.0,
                // With the staggered regions the network is phased as well, so that both
                // kinds of output layer are checked.
                end: staggered
                    .then(|| ((0..2 * HIDDEN).map(|i| f(i + 11, 31, 50.0)).collect(), -5.0)),
            }
            .quantize(),
        );
    }
    w
}

/// A board from one choice per playable square (most squares empty); men never on their
/// crowning row.
fn board(size: BoardSize, cells: &[u8]) -> Grid {
    let mut g = Grid::empty(size);
    let n = size.n();
    let coords: Vec<_> = g.playable().collect();
    for (c, &x) in coords.iter().zip(cells) {
        let piece = match x % 9 {
            0 => Some((Side::Player, false)),
            1 => Some((Side::Player, true)),
            2 => Some((Side::Bot, false)),
            3 => Some((Side::Bot, true)),
            _ => None,
        };
        if let Some((side, king)) = piece {
            let crowning = match side {
                Side::Player => c.row == 0,
                Side::Bot => usize::from(c.row) == n - 1,
            };
            g.set(
                *c,
                Some(Piece {
                    side,
                    king: king || crowning,
                }),
            );
        }
    }
    g
}

fn twin(g: &Grid) -> Grid {
    let mut t = g.rotated();
    let coords: Vec<_> = t.playable().collect();
    for c in coords {
        let swapped = t.get(c).map(|p| Piece {
            side: p.side.opponent(),
            king: p.king,
        });
        t.set(c, swapped);
    }
    t
}

fn check(
    size: BoardSize,
    cells: &[u8],
    bot: bool,
    staggered: bool,
    net: bool,
) -> Result<(), TestCaseError> {
    let w = weights(size, staggered, net);
    let g = board(size, cells);
    let side = if bot { Side::Bot } else { Side::Player };
    let pos = AnyPosition::from_grid(&g, side);
    let mirrored = AnyPosition::from_grid(&twin(&g), side.opponent());
    // Each from its own side to move: equal. From a fixed side: exact negatives.
    let (a, b) = (learned_score(&w, &pos), learned_score(&w, &mirrored));
    let fixed = |s: i32, side: Side| if side == Side::Player { s } else { -s };
    prop_assert_eq!(
        fixed(a, side),
        -fixed(b, side.opponent()),
        "{} vs {}",
        g.to_line(),
        twin(&g).to_line()
    );
    Ok(())
}

/// Plays random moves (chosen by `picks`) from the board `cells` describes, updating the region
/// indices and the network's sums move by move as the search does, and checks them and the score
/// they give against those computed from scratch after every move.
fn check_incremental<G: Geometry>(
    cells: &[u8],
    picks: &[u16],
    staggered: bool,
    net: bool,
) -> Result<(), TestCaseError> {
    let w = weights(G::SIZE, staggered, net);
    let tiling = w.tiling;
    let set = LearnedSet::single(w);
    let ev = Evaluator::<G>::with_learned(Weights::default(), &set);
    prop_assert_eq!(ev.tiling(), tiling);
    let mut pos: Position<G> = board(G::SIZE, cells).to_position(Side::Player);
    let slots = ev.index_slots();
    let mut st = EvalState::default();
    ev.start_state(&pos, &mut st);
    for &pick in picks {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let next = pos.play(&moves[usize::from(pick) % moves.len()]);
        let parent = st;
        ev.child_state(&parent, &pos, &next, &mut st);
        pos = next;
        let mut scratch = EvalState::default();
        ev.start_state(&pos, &mut scratch);
        prop_assert_eq!(
            &st.idx[..slots],
            &scratch.idx[..slots],
            "after {}",
            Grid::from_position(&pos).to_line()
        );
        if net {
            prop_assert_eq!(st.acc, scratch.acc);
        }
        prop_assert_eq!(ev.evaluate_with(&pos, &st), ev.evaluate(&pos));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn incremental_region_indices_equal_scratch_8x8(cells in prop::collection::vec(any::<u8>(), 32), picks in prop::collection::vec(any::<u16>(), 1..80), staggered: bool, net: bool) {
        check_incremental::<G8>(&cells, &picks, staggered, net)?;
    }

    #[test]
    fn incremental_region_indices_equal_scratch_other_sizes(cells in prop::collection::vec(any::<u8>(), 72), picks in prop::collection::vec(any::<u16>(), 1..80), which in 0usize..4, staggered: bool, net: bool) {
        match which {
            0 => check_incremental::<G4>(&cells, &picks, staggered, net)?,
            1 => check_incremental::<G6>(&cells, &picks, staggered, net)?,
            2 => check_incremental::<G10>(&cells, &picks, staggered, net)?,
            _ => check_incremental::<G12>(&cells, &picks, staggered, net)?,
        }
    }

    #[test]
    fn mirrored_twins_score_exact_negatives_8x8(cells in prop::collection::vec(any::<u8>(), 32), bot: bool, staggered: bool, net: bool) {
        check(BoardSize::S8, &cells, bot, staggered, net)?;
    }

    #[test]
    fn mirrored_twins_score_exact_negatives_other_sizes(cells in prop::collection::vec(any::<u8>(), 72), bot: bool, which in 0usize..4, staggered: bool, net: bool) {
        let size = [BoardSize::S4, BoardSize::S6, BoardSize::S10, BoardSize::S12][which];
        check(size, &cells, bot, staggered, net)?;
    }
}

/// The committed weights load, are for 8x8, and play: a search with them finds a legal move.
#[test]
fn committed_weights_load_and_play() {
    use checkersbot::engine::{Engine, EngineConfig, Limits};
    use std::sync::atomic::AtomicBool;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/weights/8x8-gen1x.cbev");
    let set = checkersbot::engine::eval::load_eval(path).expect("committed weights load");
    assert_eq!(set.sizes(), vec![BoardSize::S8]);
    let mut engine = Engine::new(EngineConfig {
        learned: set,
        ..EngineConfig::default()
    });
    let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
    let limits = Limits {
        depth: Some(6),
        ..Limits::default()
    };
    let r = engine.search(&start, &[], &limits, &AtomicBool::new(false), &mut |_| {});
    let best = r.best.expect("a move");
    assert!(start.legal_moves().contains(&best));
}

/// `learned` names the weights built into the program: for each size in `BUILT_IN`, the shipped
/// file `weights/NxN.cbev`, checked like any file (header, size, checksum); 8x8 is among them, and
/// a size without a file has no learned weights; `hand` names none.
#[test]
fn built_in_weights_are_the_shipped_files() {
    use checkersbot::engine::eval::{load_eval, BUILT_IN};
    let set = load_eval("learned").expect("the built-in weights load");
    assert!(set.for_size(BoardSize::S8).is_some());
    for size in BoardSize::ALL {
        let n = size.n();
        let path = format!("{}/weights/{n}x{n}.cbev", env!("CARGO_MANIFEST_DIR"));
        match BUILT_IN.iter().find(|(s, _)| *s == size) {
            Some((_, bytes)) => {
                let shipped = std::fs::read(&path).expect("the shipped weights file");
                assert_eq!(*bytes, shipped.as_slice(), "{size}");
                let w = set.for_size(size).expect("weights for a built-in size");
                assert_eq!(w.size, size);
                assert_eq!(
                    **w,
                    LearnedWeights::from_bytes(&shipped).expect("the file loads")
                );
            }
            None => assert!(set.for_size(size).is_none(), "{size}"),
        }
    }
    assert_eq!(set.sizes().len(), BUILT_IN.len());
    assert!(load_eval("hand").expect("hand").is_hand());
}

/// The daemon's `set eval`: `learned` and `hand` are taken and shown by `options`; a missing file
/// and a damaged one are refused with a reason, and the evaluation stays as it was.
#[test]
fn the_daemon_sets_the_built_in_weights_and_refuses_bad_files() {
    use checkersbot::daemon::transport::MemorySink;
    use checkersbot::daemon::{replay, Settings};
    let dir = std::env::temp_dir().join(format!("cb-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let damaged = dir.join("damaged.cbev");
    let mut bytes = checkersbot::engine::eval::BUILT_IN[0].1.to_vec();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&damaged, &bytes).expect("write");
    let script = format!(
        "set eval learned\noptions\nset eval {}\nset eval {}\noptions\nset eval hand\noptions\n",
        dir.join("missing.cbev").display(),
        damaged.display()
    );
    let sink = MemorySink::default();
    replay(
        Settings::deterministic(),
        std::io::Cursor::new(script.into_bytes()),
        Box::new(sink.clone()),
    )
    .expect("a 16 MiB table");
    let lines = sink.0.lock().map(|l| l.clone()).unwrap_or_default();
    let eval_lines: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("option eval "))
        .collect();
    assert_eq!(eval_lines.len(), 3, "{lines:?}");
    assert!(
        eval_lines[0].ends_with("value learned"),
        "{}",
        eval_lines[0]
    );
    assert!(
        eval_lines[1].ends_with("value learned"),
        "{}",
        eval_lines[1]
    );
    assert!(eval_lines[2].ends_with("value hand"), "{}", eval_lines[2]);
    let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 2, "{lines:?}");
    assert!(
        errors[0].starts_with("error bad-option eval: cannot use ")
            && errors[0].ends_with("not a readable regular file"),
        "{}",
        errors[0]
    );
    assert!(
        errors[1].starts_with("error bad-option") && errors[1].contains("corrupt"),
        "{}",
        errors[1]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
