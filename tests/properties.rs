//! Property tests over random playouts on every board size: after every move the position is
//! consistent (its incremental hash equals the hash computed from scratch), the piece counts change
//! by exactly what the move captures and crowns, every legal move's printed path reads back to the
//! same move, and the board's one-line form round-trips through `Grid`.

use checkersbot::rules::bitboard::Bits;
use checkersbot::rules::board::Grid;
use checkersbot::rules::geometry::{Geometry, G10, G12, G4, G6, G8};
use checkersbot::rules::movegen::perft_by_moves;
use checkersbot::rules::notation::parse_move;
use checkersbot::rules::position::{Position, Side};
use proptest::prelude::*;

/// Checks the one-line form and the parse of every legal move of `pos`.
fn check_position<G: Geometry>(pos: &Position<G>) -> Result<(), TestCaseError> {
    prop_assert!(pos.is_consistent());
    let grid = Grid::from_position(pos);
    let line = grid.to_line();
    let back = Grid::parse_line(&line).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&back, &grid);
    let again = back.to_position::<G>(pos.side);
    prop_assert_eq!(
        (again.pieces, again.kings, again.side, again.hash),
        (pos.pieces, pos.kings, pos.side, pos.hash)
    );
    for mv in pos.legal_moves() {
        let text = mv.notation::<G>();
        let parsed =
            parse_move(pos, &text).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(parsed, mv, "{} on {}", text, line);
    }
    Ok(())
}

/// Plays the moves picked by `choices` from the start position (or until the game ends).
fn playout<G: Geometry>(bot_first: bool, choices: &[u16]) -> Result<(), TestCaseError> {
    let side = if bot_first { Side::Bot } else { Side::Player };
    let mut pos = Position::<G>::initial(side);
    check_position(&pos)?;
    for &c in choices {
        let moves = pos.legal_moves();
        prop_assert_eq!(pos.count_moves(), moves.len() as u64);
        if moves.is_empty() {
            prop_assert!(!pos.has_capture());
            break;
        }
        let mv = moves[c as usize % moves.len()];
        let me = pos.side;
        let opp = me.opponent();
        let next = pos.play(&mv);
        check_position(&next)?;
        prop_assert_eq!(next.side, opp);
        // Counts: the mover keeps every piece, the opponent loses exactly the captured ones.
        let (my_men, my_kings) = pos.material(me);
        let (op_men, op_kings) = pos.material(opp);
        let (my_men2, my_kings2) = next.material(me);
        let (op_men2, op_kings2) = next.material(opp);
        let taken = mv.captured.popcount();
        prop_assert_eq!(taken, mv.jumps as u32);
        prop_assert_eq!(my_men + my_kings, my_men2 + my_kings2);
        prop_assert_eq!(my_kings2, my_kings + mv.crowns as u32);
        prop_assert_eq!(op_men + op_kings - taken, op_men2 + op_kings2);
        let kings_taken = (mv.captured & pos.kings).popcount();
        prop_assert_eq!(op_kings - kings_taken, op_kings2);
        prop_assert_eq!(mv.captured & pos.pieces[opp.index()], mv.captured);
        pos = next;
    }
    // The fast perft agrees with counting through generate and play.
    prop_assert_eq!(
        checkersbot::rules::movegen::perft(&pos, 2),
        perft_by_moves(&pos, 2)
    );
    Ok(())
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: if cfg!(debug_assertions) { 32 } else { 256 },
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn playouts_4x4(bot_first: bool, choices in prop::collection::vec(any::<u16>(), 0..80)) {
        playout::<G4>(bot_first, &choices)?;
    }

    #[test]
    fn playouts_6x6(bot_first: bool, choices in prop::collection::vec(any::<u16>(), 0..150)) {
        playout::<G6>(bot_first, &choices)?;
    }

    #[test]
    fn playouts_8x8(bot_first: bool, choices in prop::collection::vec(any::<u16>(), 0..200)) {
        playout::<G8>(bot_first, &choices)?;
    }

    #[test]
    fn playouts_10x10(bot_first: bool, choices in prop::collection::vec(any::<u16>(), 0..250)) {
        playout::<G10>(bot_first, &choices)?;
    }

    #[test]
    fn playouts_12x12(bot_first: bool, choices in prop::collection::vec(any::<u16>(), 0..300)) {
        playout::<G12>(bot_first, &choices)?;
    }
}
