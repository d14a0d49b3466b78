//! What a recorded game did once it reached the endgame database: where it came in, with which
//! value, and every move after that changed the value (a win let go, a draw lost). With a
//! complete database such a move is always a mistake of the side that made it: a move can only
//! keep its mover's value or make it worse. `checkersbot egdb audit` reads match games with it,
//! to tell whether games were decided before the database's endings or inside them.
//!
//! Values are kept as the side that wins (`None` for a draw), so that positions with either side
//! to move compare directly.

use super::Egdb;
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::game::{Game, Status};
use crate::rules::position::Side;

/// The first position of a game that the database holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Plies played before it (0: the game's start).
    pub ply: usize,
    /// Pieces on the board there.
    pub pieces: usize,
    /// The side that wins it with best play (`None`: drawn).
    pub winner: Option<Side>,
}

/// A move, inside the database, after which the database's winner is not the one before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    /// The move's ply number (1: the game's first move).
    pub ply: usize,
    /// Who made it.
    pub mover: Side,
    /// The winner before the move.
    pub before: Option<Side>,
    /// The winner after it.
    pub after: Option<Side>,
    /// Plies without a capture or a man's move before it: the database knows no move counts, so
    /// a win it gives late in the no-progress rule's 80 plies may not be one in the game.
    pub quiet: u32,
    /// The game was drawn by the no-progress rule before any capture or man's move followed
    /// this move: the value it gave away could not have been played out, so it cost nothing.
    pub ruled_out: bool,
}

/// What the database says about one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameAudit {
    /// Where the game came into the database (`None`: never).
    pub entry: Option<Entry>,
    /// Each move that changed the database's winner, in order.
    pub changes: Vec<Change>,
    /// The winner of the last position the database holds.
    pub last: Option<Option<Side>>,
    /// How the moves ended the game by the rules (`Ongoing` when a match stopped it: a ply cap,
    /// an adjudication, or a record that stops early).
    pub end: Status,
}

/// How a side fares under a winner: 1 won, 0 drawn, -1 lost.
pub fn score_for(side: Side, winner: Option<Side>) -> i32 {
    match winner {
        None => 0,
        Some(w) if w == side => 1,
        Some(_) => -1,
    }
}

/// The audit of the game played by `moves` from `start` (as far as they are legal). A position
/// where the game is already over is not asked: a draw by repetition or by the no-progress rule
/// ends the game whatever the database says of the position (which knows no move counts), and a
/// side with no move has lost. A position the database does not hold between two it does is
/// skipped (a partly built database); a change is counted between consecutive positions it
/// holds.
pub fn audit(db: &Egdb, start: &AnyPosition, moves: &[MoveInfo]) -> GameAudit {
    audit_game(db, Game::new(*start), moves)
}

/// [`audit`] of `moves` played on in `game`, whose positions are taken as the game's.
fn audit_game(db: &Egdb, mut game: Game, moves: &[MoveInfo]) -> GameAudit {
    // Plies without a capture or a man's move before each position.
    let mut quiet = vec![game.quiet_plies()];
    for m in moves {
        if game.status().is_over() || game.play(m).is_none() {
            break;
        }
        quiet.push(game.quiet_plies());
    }
    let positions = game.positions();
    let plies = if game.status().is_over() {
        positions.len() - 1
    } else {
        positions.len()
    };
    let mut out = GameAudit {
        entry: None,
        changes: Vec::new(),
        last: None,
        end: game.status(),
    };
    let mut prev: Option<(usize, Option<Side>)> = None;
    for (ply, pos) in positions.iter().enumerate().take(plies) {
        let Some(value) = db.probe_any(pos) else {
            continue;
        };
        let winner = value.winner(pos.side());
        if out.entry.is_none() {
            out.entry = Some(Entry {
                ply,
                pieces: pieces(pos),
                winner,
            });
        }
        if let Some((at, before)) = prev {
            if before != winner {
                out.changes.push(Change {
                    ply: at + 1,
                    mover: positions[at].side(),
                    before,
                    after: winner,
                    quiet: quiet[at],
                    ruled_out: false,
                });
            }
        }
        prev = Some((ply, winner));
    }
    out.last = prev.map(|(_, w)| w);
    if game.status() == Status::DrawNoProgress {
        // The last position after a capture or a man's move: every move after it was quiet,
        // and the rule ended the game before the next such move.
        let reset = quiet.iter().rposition(|&q| q == 0).unwrap_or(0);
        for c in &mut out.changes {
            c.ruled_out = c.ply > reset;
        }
    }
    out
}

fn pieces(pos: &AnyPosition) -> usize {
    let grid = pos.grid();
    grid.playable().filter(|&c| grid.get(c).is_some()).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::egdb::build::{build, BuildOptions};
    use crate::rules::board::Grid;
    use crate::rules::geometry::BoardSize;
    use crate::rules::position::Piece;

    /// A 3-piece 8x8 database in a directory of its own, removed when dropped.
    struct TempDb {
        db: Egdb,
        dir: std::path::PathBuf,
    }

    impl Drop for TempDb {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    fn db(name: &str) -> TempDb {
        let dir = std::env::temp_dir().join(format!("cb-audit-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let opts = BuildOptions {
            size: BoardSize::S8,
            pieces: 3,
            dir: dir.clone(),
            threads: 1,
            dtc_pieces: 3,
            store_captures: false,
        };
        build(&opts, &mut |_| {}).expect("a 3-piece database builds");
        let db = Egdb::open(&dir, 16).expect("and opens");
        TempDb { db, dir }
    }

    fn pos(rows: &str, side: char) -> AnyPosition {
        let g = Grid::parse_line(rows).expect("rows");
        let side = if side == 'b' { Side::Bot } else { Side::Player };
        AnyPosition::from_grid(&g, side)
    }

    /// The moves (coordinate notation) played from `start`.
    fn line(start: AnyPosition, moves: &[&str]) -> Vec<MoveInfo> {
        let mut out = Vec::new();
        let mut p = start;
        for m in moves {
            let mv = p.parse_move(m).expect("legal");
            p = p.play(&mv).expect("plays");
            out.push(mv);
        }
        out
    }

    // Two player kings (F2, H0) against the bot's king on D4: the player wins.
    const TWO_KINGS: &str =
        "________/________/________/____B___/________/__P_____/________/P_______";

    #[test]
    fn a_king_given_away_is_the_mover_s_change() {
        let t = db("given");
        let db = &t.db;
        let start = pos(TWO_KINGS, 'p');
        assert_eq!(
            db.probe_any(&start).map(|v| v.winner(Side::Player)),
            Some(Some(Side::Player)),
            "two kings beat one"
        );
        // F2-E3 puts the king next to D4, which must take it, landing on F2 beside the other king
        // shut in on H0: its only move, H0-G1, is taken. A win turned into a loss.
        let moves = line(start, &["F2 E3", "D4 F2"]);
        let a = audit(db, &start, &moves);
        assert_eq!(
            a.entry,
            Some(Entry {
                ply: 0,
                pieces: 3,
                winner: Some(Side::Player)
            })
        );
        assert_eq!(
            a.changes,
            vec![Change {
                ply: 1,
                mover: Side::Player,
                before: Some(Side::Player),
                after: Some(Side::Bot),
                quiet: 0,
                ruled_out: false
            }]
        );
        assert_eq!(a.last, Some(Some(Side::Bot)));
        assert_eq!(score_for(Side::Player, Some(Side::Player)), 1);
        assert_eq!(score_for(Side::Bot, Some(Side::Player)), -1);
        assert_eq!(score_for(Side::Bot, None), 0);
    }

    #[test]
    fn the_entry_is_the_first_position_the_database_holds() {
        let t = db("entry");
        let db = &t.db;
        // The same with a bot man on E1 as well: four pieces, more than the database holds,
        // until the king on F2 takes it (F2xD0).
        let start = pos(
            "________/________/________/____B___/_b______/__P_____/________/P_______",
            'p',
        );
        assert!(db.probe_any(&start).is_none());
        let moves = line(start, &["F2 D0", "D4 C5"]);
        let a = audit(db, &start, &moves);
        assert_eq!(
            a.entry,
            Some(Entry {
                ply: 1,
                pieces: 3,
                winner: Some(Side::Player)
            })
        );
        // The king's flight changes nothing: two kings still beat one.
        assert_eq!(a.changes, vec![]);
        assert_eq!(a.last, Some(Some(Side::Player)));
        // A game that never comes in.
        let a = audit(db, &start, &[]);
        assert_eq!((a.entry, a.changes, a.last), (None, vec![], None));
        assert_eq!(a.end, Status::Ongoing);
    }

    #[test]
    fn a_position_after_the_game_ended_is_not_asked() {
        let t = db("over");
        let db = &t.db;
        let start = pos(TWO_KINGS, 'p');
        let moves = line(start, &["F2 E3", "D4 F2"]);
        // 79 plies without a capture or a man's move before the start: F2-E3 is the 80th and
        // the game is drawn by the no-progress rule before the bot can take the king.
        let a = audit_game(db, Game::with_quiet(start, 79), &moves);
        assert_eq!(a.end, Status::DrawNoProgress);
        assert_eq!(a.changes, vec![]);
        assert_eq!(a.last, Some(Some(Side::Player)));
        assert_eq!(
            a.entry.map(|e| (e.ply, e.winner)),
            Some((0, Some(Side::Player)))
        );
    }

    /// A king against a king, either side to move, and two quiet moves after it: the first
    /// changes the database's value, the second keeps it. The first found,
    /// squares in order, so the test is the same every run.
    fn quiet_change(db: &Egdb) -> (AnyPosition, Vec<MoveInfo>) {
        let blank = Grid::empty(BoardSize::S8);
        let squares: Vec<_> = blank.playable().collect();
        for &a in &squares {
            for &b in &squares {
                if a == b {
                    continue;
                }
                for side in [Side::Player, Side::Bot] {
                    let mut g = blank.clone();
                    g.set(
                        a,
                        Some(Piece {
                            side: Side::Player,
                            king: true,
                        }),
                    );
                    g.set(
                        b,
                        Some(Piece {
                            side: Side::Bot,
                            king: true,
                        }),
                    );
                    let p = AnyPosition::from_grid(&g, side);
                    let Some(v) = db.probe_any(&p) else { continue };
                    if p.has_capture() {
                        continue;
                    }
                    for m1 in p.legal_moves() {
                        let Some(q) = p.play(&m1) else { continue };
                        let changed = db.probe_any(&q).map(|w| w.winner(q.side()));
                        if q.has_capture() || changed == Some(v.winner(side)) {
                            continue;
                        }
                        let keeps = |m: &MoveInfo| {
                            q.play(m).is_some_and(|r| {
                                db.probe_any(&r).map(|w| w.winner(r.side())) == changed
                            })
                        };
                        if let Some(m2) = q.legal_moves().into_iter().find(keeps) {
                            return (p, vec![m1, m2]);
                        }
                    }
                }
            }
        }
        panic!("no king-against-king position loses by a quiet move");
    }

    #[test]
    fn a_change_the_no_progress_rule_overtook_is_marked() {
        let t = db("ruled");
        let db = &t.db;
        let (start, moves) = quiet_change(db);
        // From the start of a game: a change that counts.
        let a = audit(db, &start, &moves);
        assert_eq!(a.changes.len(), 1, "{a:?}");
        assert_eq!((a.changes[0].ply, a.changes[0].quiet), (1, 0));
        assert!(!a.changes[0].ruled_out);
        // 78 quiet plies before it: the reply is the 80th and the rule draws the game.
        let a = audit_game(db, Game::with_quiet(start, 78), &moves);
        assert_eq!(a.changes.len(), 1, "{a:?}");
        assert_eq!(a.changes[0].quiet, 78);
        assert!(a.changes[0].ruled_out);
        assert_eq!(a.end, Status::DrawNoProgress);
    }
}
