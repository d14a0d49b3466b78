//! Deep labels: positions whose score comes from a search far deeper than any game's, for
//! `train --deep` (the score is the whole target, [`crate::learn::train::TrainConfig::score_only`]).
//!
//! The deepest searches the project owns are the opening book's: each record was searched at
//! millions of nodes (30 M for most of today's book), and an expanded record's best move holds the
//! minimax of its children's searches, deeper still. [`book_records`] turns a book into training
//! records: one a quiet record (no capture pending for the side to move, as the games' records
//! are), scored by the book's value for the side to move. A book position has no game, so the
//! record's outcome is written as a draw and its ply is the book's distance from the start
//! position (0 for a record the start's lines do not reach); neither is used as a target.

use crate::engine::book::Book;
use crate::learn::data::{Outcome, Record};

/// One record per quiet position of `book`, in the book's order, scored by the book's value for
/// the side to move ([`crate::engine::book::Entry::standing`]).
pub fn book_records(book: &Book) -> Vec<Record> {
    let depths = book.depths();
    book.entries()
        .iter()
        .zip(depths)
        .filter(|(e, _)| !e.position.has_capture())
        .map(|(e, d)| {
            Record::new(
                &e.position,
                Outcome::Draw,
                i32::from(e.standing()),
                d.unwrap_or(0) as usize,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::book::{canonical, BookMove, BuildInfo, Entry};
    use crate::rules::any_size::AnyPosition;
    use crate::rules::board::Grid;
    use crate::rules::geometry::BoardSize;
    use crate::rules::position::Side;

    fn entry(position: AnyPosition, value: i16, moves: Vec<BookMove>) -> Entry {
        Entry {
            position,
            value,
            depth: 20,
            nodes: 30_000_000,
            expanded: !moves.is_empty(),
            pending: false,
            pv: false,
            moves,
        }
    }

    #[test]
    fn book_records_take_the_minimax_value_and_skip_positions_with_a_capture() {
        let size = BoardSize::S8;
        let start = canonical(&AnyPosition::initial(size, Side::Player)).0;
        let moves = start.legal_moves();
        let mut book = Book::new(size, BuildInfo::default());
        // The start, expanded: its best move is worth 12 (the list is not sorted here, so the
        // value is the largest, not the first).
        let book_moves: Vec<BookMove> = moves
            .iter()
            .take(2)
            .zip([5i16, 12])
            .map(|(m, v)| BookMove {
                mv: m.clone(),
                value: v,
            })
            .collect();
        book.insert(entry(start, -40, book_moves)).unwrap();
        // A child, a leaf of its own search (value 33), reached at ply 1.
        let child = canonical(&start.play(&moves[0]).unwrap()).0;
        book.insert(entry(child, 33, Vec::new())).unwrap();
        // A position with a capture pending for the side to move: left out.
        let line = "________/________/________/__b_____/___p____/________/________/________";
        let capture = AnyPosition::from_grid(&Grid::parse_line(line).unwrap(), Side::Player);
        assert!(capture.has_capture());
        book.insert(entry(canonical(&capture).0, 90, Vec::new()))
            .unwrap();

        let records = book_records(&book);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].position(), start);
        assert_eq!((records[0].score, records[0].ply), (12, 0));
        assert_eq!(records[1].position(), child);
        assert_eq!((records[1].score, records[1].ply), (33, 1));
        assert!(records.iter().all(|r| r.outcome == Outcome::Draw));
    }

    #[test]
    fn the_built_in_book_gives_thousands_of_deep_records() {
        let book = Book::builtin().unwrap();
        let records = book_records(&book);
        assert!(records.len() > 1000, "{} records", records.len());
        assert!(records.len() <= book.len());
        assert!(records.iter().all(|r| !r.position().has_capture()));
    }
}
