//! The simulated world's faults: how often the camera, the person, the arm and the link go wrong,
//! and the boards each fault makes. Pure functions of the true position and a seeded generator.

use crate::camera::diagnosis::differing;
use crate::camera::nearest::nearest;
use crate::rng::Rng;
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::board::Grid;
use crate::rules::geometry::Coord;
use crate::rules::position::{Piece, Side};
use std::fmt;

/// How often each fault happens: probabilities from 0 to 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Rates {
    /// A camera frame misreads one square (a piece appears, vanishes or changes colour).
    pub misread: f64,
    /// Of those misreads, the share that misread a second square too.
    pub misread_two: f64,
    /// A camera frame reads one king as a man, or one man as a king.
    pub kings: f64,
    /// The camera sends a frame while the person's piece is in the hand.
    pub lifted: f64,
    /// The camera sends the same frame twice.
    pub repeat: f64,
    /// The camera sends an old frame (the board before the bot's move) after the arm is done.
    pub stale: f64,
    /// The person plays a step while a capture is mandatory (when one is).
    pub forget_capture: f64,
    /// The person moves twice before the camera's frame.
    pub two_moves: f64,
    /// The arm leaves a piece it captured on the board (when its move captures).
    pub arm_leaves: f64,
    /// The arm forgets the crown (when its move crowns).
    pub arm_crown: f64,
    /// The link is broken while the bot searches (cable pulled, connection dropped), then
    /// restored.
    pub pull: f64,
    /// The reader stops reading for a while after a frame.
    pub slow: f64,
}

impl Rates {
    /// The default rates: a noisy camera at a fair (see docs/integration.md).
    pub fn fair() -> Rates {
        Rates {
            misread: 0.05,
            misread_two: 0.2,
            kings: 0.02,
            lifted: 0.1,
            repeat: 0.05,
            stale: 0.02,
            forget_capture: 0.2,
            two_moves: 0.02,
            arm_leaves: 0.1,
            arm_crown: 0.3,
            pull: 0.01,
            slow: 0.02,
        }
    }

    /// No faults at all.
    pub fn none() -> Rates {
        Rates {
            misread: 0.0,
            misread_two: 0.0,
            kings: 0.0,
            lifted: 0.0,
            repeat: 0.0,
            stale: 0.0,
            forget_capture: 0.0,
            two_moves: 0.0,
            arm_leaves: 0.0,
            arm_crown: 0.0,
            pull: 0.0,
            slow: 0.0,
        }
    }

    /// The rates by name, for `--rate NAME=P` and the report.
    pub fn fields_mut(&mut self) -> [(&'static str, &mut f64); 12] {
        [
            ("misread", &mut self.misread),
            ("misread-two", &mut self.misread_two),
            ("kings", &mut self.kings),
            ("lifted", &mut self.lifted),
            ("repeat", &mut self.repeat),
            ("stale", &mut self.stale),
            ("forget-capture", &mut self.forget_capture),
            ("two-moves", &mut self.two_moves),
            ("arm-leaves", &mut self.arm_leaves),
            ("arm-crown", &mut self.arm_crown),
            ("pull", &mut self.pull),
            ("slow", &mut self.slow),
        ]
    }

    /// Sets one rate from `NAME=P`.
    pub fn set(&mut self, text: &str) -> Result<(), String> {
        let (name, value) = text
            .split_once('=')
            .ok_or_else(|| format!("a rate is NAME=P (e.g. misread=0.05), got '{text}'"))?;
        let p: f64 = value
            .parse()
            .ok()
            .filter(|p: &f64| (0.0..=1.0).contains(p))
            .ok_or_else(|| format!("the rate {name} must be from 0 to 1, got '{value}'"))?;
        let mut names = Vec::new();
        for (n, slot) in self.fields_mut() {
            if n == name {
                *slot = p;
                return Ok(());
            }
            names.push(n);
        }
        Err(format!(
            "unknown rate '{name}'; the rates are {}",
            names.join(", ")
        ))
    }
}

/// A uniform draw: true with probability `p`.
pub fn happens(rng: &mut Rng, p: f64) -> bool {
    p > 0.0 && ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
}

/// The kinds of fault a frame can carry, as the report counts them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fault {
    /// One or two squares misread on the board after the person's move.
    MisreadWithMove,
    /// One or two squares misread on a board where nothing moved.
    Misread,
    /// A king read as a man or a man as a king, after the person's move.
    KingsWithMove,
    /// A king read as a man or a man as a king, where nothing moved.
    Kings,
    /// The person's piece in the hand.
    Lifted,
    /// A step while a capture is mandatory.
    ForgotCapture,
    /// Two moves of the person.
    TwoMoves,
    /// The arm left a captured piece.
    ArmLeftCaptured,
    /// The arm forgot the crown.
    ArmForgotCrown,
    /// An old frame.
    Stale,
}

impl Fault {
    /// Every kind, in the report's order.
    pub const ALL: [Fault; 10] = [
        Fault::MisreadWithMove,
        Fault::Misread,
        Fault::KingsWithMove,
        Fault::Kings,
        Fault::Lifted,
        Fault::ForgotCapture,
        Fault::TwoMoves,
        Fault::ArmLeftCaptured,
        Fault::ArmForgotCrown,
        Fault::Stale,
    ];

    /// The report's word for it.
    pub fn word(self) -> &'static str {
        match self {
            Fault::MisreadWithMove => "misread+move",
            Fault::Misread => "misread",
            Fault::KingsWithMove => "kings+move",
            Fault::Kings => "kings",
            Fault::Lifted => "lifted",
            Fault::ForgotCapture => "forgot-capture",
            Fault::TwoMoves => "two-moves",
            Fault::ArmLeftCaptured => "arm-left-captured",
            Fault::ArmForgotCrown => "arm-forgot-crown",
            Fault::Stale => "stale",
        }
    }

    /// Whether the daemon's reply should name exactly the squares the fault touched (the
    /// misread squares, the piece left, the man not crowned).
    pub fn names_squares(self) -> bool {
        matches!(
            self,
            Fault::MisreadWithMove
                | Fault::Misread
                | Fault::KingsWithMove
                | Fault::Kings
                | Fault::ArmLeftCaptured
                | Fault::ArmForgotCrown
        )
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// A frame the camera sends: the board it shows, and what is wrong with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// The board as the camera sends it (in the daemon's orientation).
    pub grid: Grid,
    /// The fault, if any.
    pub fault: Option<Fault>,
    /// The squares the fault touched, for the faults whose reply should name them.
    pub squares: Vec<Coord>,
    /// For a misread: whether one explanation is nearer the frame than every other (the daemon
    /// can then name exactly the squares).
    pub unique: bool,
}

impl Frame {
    /// A frame showing `grid` as it is.
    pub fn clean(grid: Grid) -> Frame {
        Frame {
            grid,
            fault: None,
            squares: Vec::new(),
            unique: false,
        }
    }
}

fn piece(side: Side, king: bool) -> Option<Piece> {
    Some(Piece { side, king })
}

/// The boards that would be a legal explanation of a frame the daemon might accept: the expected
/// position and every legal move of the person from it (compared by colour only if asked).
pub fn accepted_boards(expected: &AnyPosition) -> Vec<Grid> {
    let mut boards = vec![expected.grid()];
    if expected.side() == Side::Player {
        boards.extend(expected.successors().into_iter().map(|(_, p)| p.grid()));
    }
    boards
}

/// One or two squares of `truth` misread: a piece appears on an empty square, vanishes, or turns
/// to the other colour. Draws again (up to 50 times) when the result is a board the daemon would
/// rightly accept (`expected` or a legal move from it, by colour only if `colour_only`): nobody
/// could see that misread. `None` when no draw works.
pub fn misread(
    rng: &mut Rng,
    truth: &Grid,
    expected: &AnyPosition,
    two: bool,
    colour_only: bool,
) -> Option<(Grid, Vec<Coord>)> {
    let squares: Vec<Coord> = truth.playable().collect();
    let accepted = accepted_boards(expected);
    for _ in 0..50 {
        let mut g = truth.clone();
        let mut changed = Vec::new();
        let count = if two { 2 } else { 1 };
        while changed.len() < count {
            let at = squares[rng.below(squares.len())];
            if changed.contains(&at) {
                continue;
            }
            let new = match g.get(at) {
                None => {
                    let side = if rng.chance(1, 2) {
                        Side::Player
                    } else {
                        Side::Bot
                    };
                    piece(side, false)
                }
                Some(p) if rng.chance(1, 2) => Some(Piece {
                    side: p.side.opponent(),
                    ..p
                }),
                Some(_) => None,
            };
            g.set(at, new);
            changed.push(at);
        }
        if accepted
            .iter()
            .all(|a| !differing(a, &g, colour_only).is_empty())
        {
            changed.sort();
            return Some((g, changed));
        }
    }
    None
}

/// One piece of `truth` read as the other kind: a king as a man, or a man as a king, on a square
/// where that kind may stand (not a man on its crowning row). `None` when no piece can be.
pub fn kings_confused(rng: &mut Rng, truth: &Grid) -> Option<(Grid, Vec<Coord>)> {
    let n = truth.size().n();
    let candidates: Vec<Coord> = truth
        .playable()
        .filter(|&c| match truth.get(c) {
            Some(p) if p.king => {
                let crowning = match p.side {
                    Side::Player => 0,
                    Side::Bot => n - 1,
                };
                usize::from(c.row) != crowning
            }
            Some(_) => true,
            None => false,
        })
        .collect();
    // Kings first: they are the rarer and the harder for a camera.
    let kings: Vec<Coord> = candidates
        .iter()
        .copied()
        .filter(|&c| truth.get(c).is_some_and(|p| p.king))
        .collect();
    let pool = if !kings.is_empty() && rng.chance(3, 4) {
        kings
    } else {
        candidates
    };
    if pool.is_empty() {
        return None;
    }
    let at = pool[rng.below(pool.len())];
    let mut g = truth.clone();
    let p = truth.get(at)?;
    g.set(at, piece(p.side, !p.king));
    Some((g, vec![at]))
}

/// Whether one explanation is nearer `frame` than every other, `expected` being the position the
/// person is to move in (with the bot's last move while the arm may not have made it).
pub fn unique_nearest(
    expected: &AnyPosition,
    arm: Option<(&AnyPosition, &MoveInfo)>,
    frame: &Grid,
    colour_only: bool,
) -> bool {
    expected.side() == Side::Player && nearest(expected, arm, frame, colour_only).len() == 1
}

/// The board with the person's moving piece in the hand: its start square empty, nothing else
/// changed.
pub fn lifted(before: &Grid, mv: &MoveInfo) -> Grid {
    let mut g = before.clone();
    if let Some(&from) = mv.path.first() {
        g.set(from, None);
    }
    g
}

/// A step of one of the person's men (or kings) to an empty square one diagonal away, as if no
/// capture were mandatory; `None` when no piece can step.
pub fn forgotten_capture(rng: &mut Rng, pos: &AnyPosition) -> Option<Grid> {
    let g = pos.grid();
    let n = g.size().n() as i32;
    let mut steps = Vec::new();
    for from in g.playable() {
        let Some(p) = g.get(from).filter(|p| p.side == Side::Player) else {
            continue;
        };
        let dirs: &[(i32, i32)] = if p.king {
            &[(-1, -1), (-1, 1), (1, -1), (1, 1)]
        } else {
            &[(-1, -1), (-1, 1)]
        };
        for (dr, dc) in dirs {
            let (r, c) = (i32::from(from.row) + dr, i32::from(from.col) + dc);
            if (0..n).contains(&r) && (0..n).contains(&c) {
                let to = Coord::new(r as u8, c as u8);
                if g.get(to).is_none() {
                    steps.push((from, to, p));
                }
            }
        }
    }
    if steps.is_empty() {
        return None;
    }
    let (from, to, p) = steps[rng.below(steps.len())];
    let mut out = g.clone();
    out.set(from, None);
    let king = p.king || to.row == 0;
    out.set(to, piece(Side::Player, king));
    Some(out)
}

/// The board after the arm's move with a captured piece left on its square.
pub fn arm_left_captured(
    rng: &mut Rng,
    before: &Grid,
    after: &Grid,
    mv: &MoveInfo,
) -> Option<(Grid, Vec<Coord>)> {
    if mv.captured.is_empty() {
        return None;
    }
    let at = mv.captured[rng.below(mv.captured.len())];
    let mut g = after.clone();
    g.set(at, before.get(at));
    Some((g, vec![at]))
}

/// The board after the arm's crowning move with the man not crowned.
pub fn arm_forgot_crown(after: &Grid, mv: &MoveInfo) -> Option<(Grid, Vec<Coord>)> {
    if !mv.crowns {
        return None;
    }
    let at = *mv.path.last()?;
    let mut g = after.clone();
    g.set(at, piece(Side::Bot, false));
    Some((g, vec![at]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::geometry::BoardSize;

    #[test]
    fn rates_are_set_by_name_and_checked() {
        let mut r = Rates::none();
        r.set("misread=0.5").unwrap();
        assert_eq!(r.misread, 0.5);
        assert!(r.set("misread=2").unwrap_err().contains("from 0 to 1"));
        assert!(r
            .set("glare=0.1")
            .unwrap_err()
            .contains("unknown rate 'glare'"));
        assert!(r.set("misread").unwrap_err().contains("NAME=P"));
    }

    #[test]
    fn misreads_are_never_a_board_the_daemon_would_accept() {
        let start = AnyPosition::initial(BoardSize::S8, Side::Player);
        let truth = start.grid();
        let accepted = accepted_boards(&start);
        let mut rng = Rng::new(7);
        for i in 0..500 {
            let (g, squares) = misread(&mut rng, &truth, &start, i % 2 == 0, false).unwrap();
            assert!(!accepted.contains(&g));
            assert_eq!(squares.len(), if i % 2 == 0 { 2 } else { 1 });
            assert_eq!(
                crate::camera::diagnosis::differing(&g, &truth, false),
                squares
            );
        }
    }

    #[test]
    fn kings_confusion_changes_one_square_and_no_man_lands_on_its_crowning_row() {
        let pos = AnyPosition::from_grid(
            &Grid::parse_line(
                "_P______/________/________/________/________/________/________/______B_",
            )
            .unwrap(),
            Side::Player,
        );
        let mut rng = Rng::new(1);
        for _ in 0..50 {
            assert!(kings_confused(&mut rng, &pos.grid()).is_none());
        }
        let pos = AnyPosition::from_grid(
            &Grid::parse_line(
                "________/________/___P____/________/________/__b_____/________/________",
            )
            .unwrap(),
            Side::Player,
        );
        for _ in 0..50 {
            let (g, sq) = kings_confused(&mut rng, &pos.grid()).unwrap();
            assert_eq!(sq.len(), 1);
            assert!(g.uncrowned_man().is_none());
            assert_eq!(
                crate::camera::diagnosis::differing(&g, &pos.grid(), false),
                sq
            );
            assert_eq!(
                crate::camera::diagnosis::differing(&g, &pos.grid(), true),
                vec![]
            );
        }
    }

    #[test]
    fn the_arm_faults_leave_what_they_say() {
        let before = AnyPosition::from_grid(
            &Grid::parse_line(
                "________/________/________/________/________/__b_____/___p____/________",
            )
            .unwrap(),
            Side::Bot,
        );
        let mv = before.parse_move("F2 H4").unwrap();
        let after = before.play(&mv).unwrap();
        let mut rng = Rng::new(3);
        let (g, sq) = arm_left_captured(&mut rng, &before.grid(), &after.grid(), &mv).unwrap();
        assert_eq!(sq, vec![Coord::new(6, 3)]);
        assert!(g.get(Coord::new(6, 3)).is_some());
        let (g, sq) = arm_forgot_crown(&after.grid(), &mv).unwrap();
        assert_eq!(sq, vec![Coord::new(7, 4)]);
        assert!(g.uncrowned_man().is_some());
    }
}
