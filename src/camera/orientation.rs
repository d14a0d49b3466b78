//! Camera orientation help: when a board fails as it stands, whether it would read right turned by
//! 180 degrees, mirrored left to right or flipped top to bottom, and what to do about it.
//!
//! The board's rows are turned as text (before the daemon reads them with its camera settings), and
//! each turned board is tried against a copy of the game tracker. A turn under which the board fits
//! the game (the start, the position expected, a legal move from it, a move under way) is named
//! with its fix; otherwise, for a board whose pieces all stand on light squares, a turn under which
//! it would be a valid board is named as a question.
//! The turns and the hint's words are in [`super::turn`].

use crate::camera::tracking::{camera_grid, Observation, Reading, Rejection, Tracker};
use crate::camera::turn::{reorient, Fit, Hint, Turn};
use crate::rules::position::Side;

/// What `tracker` would make of `rows` (the text as sent) turned by `turn`, read with the camera
/// settings; `None` when it still does not read or fit.
fn try_turn(
    tracker: &Tracker,
    rows: &str,
    turn: Turn,
    side: Side,
    rotated: bool,
    reading: Reading,
) -> Option<Fit> {
    let grid = camera_grid(&reorient(rows, turn), rotated, reading.colour_only).ok()?;
    if tracker.size().is_some_and(|s| s != grid.size()) {
        return None;
    }
    let fresh = tracker.fresh_start().is_some();
    let mut copy = tracker.clone();
    match copy.observe(&grid, side, reading) {
        Ok(Observation::Same(_)) if fresh => Some(Fit::Start),
        Ok(Observation::Same(_)) => Some(Fit::Expected),
        Ok(Observation::OpponentMoved(..)) => Some(Fit::LegalMove),
        Ok(Observation::MoveInProgress { .. })
        | Err(Rejection::ArmIncomplete { .. } | Rejection::WrongPieceCrowned { .. }) => {
            Some(Fit::UnderWay)
        }
        // Lenient mode takes any valid board: that says nothing about the camera.
        Ok(Observation::Accepted { .. }) => Some(Fit::ValidBoard),
        Err(_) => grid.uncrowned_man().is_none().then_some(Fit::ValidBoard),
    }
}

/// Whether every piece of the one-line board stands on a light square (row + column even), and
/// there is at least one.
fn all_on_light_squares(rows: &str) -> bool {
    let mut pieces = 0;
    for (r, row) in rows.split('/').enumerate() {
        for (c, ch) in row.chars().enumerate() {
            if !matches!(ch, '_' | '.') {
                if (r + c) % 2 == 1 {
                    return false;
                }
                pieces += 1;
            }
        }
    }
    pieces > 0
}

/// The orientation help for a board that failed as it stands: `rows` as sent, `side` as sent,
/// the daemon's `rotated` setting and reading. `could_read`: whether the board could be read as
/// it stands (a valid board that does not fit the game); then only a turn under which it fits the
/// game is named, not one under which it would merely be valid.
pub fn hint(
    tracker: &Tracker,
    rows: &str,
    side: Side,
    rotated: bool,
    reading: Reading,
    could_read: bool,
) -> Option<Hint> {
    let tried: Vec<(Turn, Fit)> = Turn::ALL
        .into_iter()
        .filter_map(|t| try_turn(tracker, rows, t, side, rotated, reading).map(|f| (t, f)))
        .collect();
    if let Some(&(turn, fit)) = tried.iter().find(|(_, f)| *f != Fit::ValidBoard) {
        return Some(Hint {
            turns: vec![turn],
            fit,
            rotated,
        });
    }
    // A board that fits nothing turned is named only when every piece stands on a light square:
    // the whole picture is off, not one piece misread or one man not crowned yet.
    if could_read || tried.is_empty() || !all_on_light_squares(rows) {
        return None;
    }
    Some(Hint {
        turns: tried.into_iter().map(|(t, _)| t).collect(),
        fit: Fit::ValidBoard,
        rotated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::{initial_grid, Grid};
    use crate::rules::geometry::BoardSize;

    const START8: &str = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_";

    fn fresh8() -> Tracker {
        let mut t = Tracker::default();
        t.new_game(initial_grid(BoardSize::S8));
        t
    }

    #[test]
    fn turning_twice_gives_the_board_back() {
        for turn in Turn::ALL {
            assert_eq!(reorient(&reorient(START8, turn), turn), START8);
        }
        assert_eq!(
            reorient(&reorient(START8, Turn::Mirrored), Turn::Flipped),
            reorient(START8, Turn::Rotated)
        );
    }

    #[test]
    fn a_start_seen_from_the_bots_side_is_named_with_its_option() {
        let t = fresh8();
        let seen = reorient(START8, Turn::Rotated);
        let h = hint(&t, &seen, Side::Player, false, Reading::default(), false).unwrap();
        assert_eq!(
            (h.turns.as_slice(), h.fit),
            ([Turn::Rotated].as_slice(), Fit::Start)
        );
        let text = h.to_string();
        assert!(text.starts_with("turned by 180 degrees the board is the start position"));
        assert!(text.contains("set rotated on"), "{text}");
        // With rotated on, the same board sent as it stands is the fault.
        let h = hint(&t, START8, Side::Player, true, Reading::default(), false).unwrap();
        assert!(h.to_string().contains("set rotated off"), "{h}");
    }

    #[test]
    fn mirrored_and_upside_down_pictures_are_told_apart_by_the_game() {
        let t = fresh8();
        for turn in [Turn::Mirrored, Turn::Flipped] {
            let seen = reorient(START8, turn);
            let h = hint(&t, &seen, Side::Player, false, Reading::default(), false).unwrap();
            assert_eq!(h.turns, vec![turn]);
            assert_eq!(h.fit, Fit::Start);
        }
        // A person's move seen mirrored: a legal move once mirrored back.
        let moved = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/_p______/p___p_p_/_p_p_p_p/p_p_p_p_";
        let seen = reorient(moved, Turn::Mirrored);
        let h = hint(&t, &seen, Side::Bot, false, Reading::default(), false).unwrap();
        assert_eq!((h.turns, h.fit), (vec![Turn::Mirrored], Fit::LegalMove));
    }

    #[test]
    fn a_board_that_fits_nothing_gets_a_question_or_nothing() {
        // No game: a mirrored board would be valid mirrored or flipped; nothing fits.
        let t = Tracker::default();
        let seen = reorient("____/b___/___p/____", Turn::Mirrored);
        let h = hint(&t, &seen, Side::Player, false, Reading::default(), false).unwrap();
        assert_eq!(h.turns, vec![Turn::Mirrored, Turn::Flipped]);
        assert_eq!(h.fit, Fit::ValidBoard);
        assert!(
            h.to_string().contains("it would be a valid board: if "),
            "{h}"
        );
        // One piece on a light square, or a man not crowned yet: a misread, not the camera.
        assert_eq!(
            hint(
                &t,
                "_b_b/____/____/p__p",
                Side::Player,
                false,
                Reading::default(),
                false
            ),
            None
        );
        let mut t = fresh8();
        let uncrowned = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/b_p_p_p_";
        assert_eq!(
            hint(
                &t,
                uncrowned,
                Side::Player,
                false,
                Reading::default(),
                false
            ),
            None
        );
        // A readable board that fits nothing turned either: no hint.
        let odd = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p___/_p_p_p_p/p_p_p_p_";
        assert!(Grid::parse_line(odd).is_ok());
        assert_eq!(
            hint(&t, odd, Side::Bot, false, Reading::default(), true),
            None
        );
        // The tracker itself is not changed by the tries.
        let seen = reorient(START8, Turn::Rotated);
        hint(&t, &seen, Side::Player, false, Reading::default(), false);
        assert!(t.fresh_start().is_some());
        assert!(t
            .observe(
                &initial_grid(BoardSize::S8),
                Side::Player,
                Reading::default()
            )
            .is_ok());
    }
}
