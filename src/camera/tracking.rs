//! Game tracking: what a camera board means for the game in progress.
//!
//! A [`Tracker`] holds the game (its start, its moves, and the bot's last move while the arm is
//! still making it) and turns each board the camera sends into an [`Observation`]: the board shows
//! the expected position, the opponent made a legal move, an unexplained board was accepted as a
//! new start (lenient mode); or into a [`Rejection`]: the arm has not finished the bot's move, no
//! legal move explains the board, the game is over, the board does not fit the game. The rules are
//! those of `protocol/PROTOCOL.md`, "Game tracking".
//!
//! This is a pure state machine: no I/O, no threads, no clock. The daemon feeds it boards and the
//! bot's moves and turns what it answers into protocol replies.
//!
//! ```
//! use checkersbot::camera::tracking::{Next, Observation, Tracker, Reading};
//! use checkersbot::rules::board::{initial_grid, Grid};
//! use checkersbot::rules::geometry::BoardSize;
//! use checkersbot::rules::position::Side;
//!
//! let mut tracker = Tracker::default();
//! tracker.new_game(initial_grid(BoardSize::S4));
//! // The person moved first from the 4x4 start: C0 B1.
//! let board = Grid::parse_line("_b_b/____/_p__/__p_").unwrap();
//! let seen = tracker.observe(&board, Side::Bot, Reading::default()).unwrap();
//! assert!(matches!(seen, Observation::OpponentMoved(_, Next::BotToMove)));
//! ```

use crate::camera::diagnosis::{diagnose, differing, in_progress, nearest_diagnosis, on_the_way};
pub use crate::camera::diagnosis::{Diagnosis, Stage};
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::board::{BoardError, Grid};
use crate::rules::game::{Game, Status};
use crate::rules::geometry::{BoardSize, Coord};
use crate::rules::position::{Piece, Side};
use std::fmt;

/// How boards are read and compared: the daemon's `colouronly` and `strict` settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    /// Compare by colour only: the camera cannot tell kings from men; kings come from the game.
    pub colour_only: bool,
    /// Reject an unexplained board (else accept it as a new start).
    pub strict: bool,
}

impl Default for Reading {
    fn default() -> Self {
        Reading {
            colour_only: false,
            strict: true,
        }
    }
}

/// What follows a board that shows the game's current position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// The game is over.
    GameOver(Status),
    /// The person is to move: nothing to do until the board changes.
    PlayerToMove,
    /// The bot is to move: search [`Tracker::game`]'s current position.
    BotToMove,
}

/// A board that fits the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Observation {
    /// The board shows the expected position.
    Same(Next),
    /// The person played this legal move (now recorded in the game).
    OpponentMoved(MoveInfo, Next),
    /// A legal move of the person is under way (a piece lifted, a multi-jump half done, captured
    /// pieces not yet removed, a man not yet crowned): nothing changes, wait for the next board.
    MoveInProgress {
        /// The move that fits.
        mv: MoveInfo,
        /// How far it has got.
        stage: Stage,
    },
    /// Lenient mode: a board that nothing explains, taken as a new start with `side` to move.
    Accepted {
        /// The board, as read.
        board: Grid,
        /// The side to move in it.
        side: Side,
        /// What follows.
        next: Next,
    },
}

/// Why nothing follows this board: the tracker's state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// No `newgame` or `position` yet.
    NoGame,
    /// The board is not a position of this game: another size, or a man on its crowning row that
    /// no unfinished crowning explains.
    BadBoard(String),
    /// The board is on the way from the position before the bot's last move to the one after it.
    ArmIncomplete {
        /// Squares that differ from the position after the move.
        diffs: Vec<Coord>,
        /// The bot's move the arm is making.
        mv: MoveInfo,
    },
    /// The bot's last move crowns a man, but the arm crowned another man: the moved man stands
    /// uncrowned on its crowning square and a man elsewhere is a king.
    WrongPieceCrowned {
        /// Squares that differ from the position after the move (both of them).
        diffs: Vec<Coord>,
        /// The bot's move the arm is making.
        mv: MoveInfo,
        /// Where the man should have been crowned (the move's last square).
        should: Coord,
        /// The man that was crowned instead.
        crowned: Coord,
    },
    /// No legal move explains the board (strict mode).
    IllegalTransition {
        /// Squares that differ from the expected position.
        diffs: Vec<Coord>,
        /// Why the board cannot follow.
        why: Unexplained,
        /// What the person did, where it can be told (the person to move).
        diagnosis: Option<Box<Diagnosis>>,
    },
    /// The game is over and the board is not its final position.
    AfterGameOver {
        /// Squares that differ from the final position.
        diffs: Vec<Coord>,
        /// How the game ended.
        status: Status,
    },
}

/// Why a board is unexplained.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Unexplained {
    /// The first board of a game is neither the start nor the start plus a move of the person.
    NotFromStart,
    /// The person is to move and no legal move of theirs leads to the board.
    NoLegalMove,
    /// The bot is to move and the board changed.
    ChangedOnBotsTurn,
}

impl fmt::Display for Unexplained {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unexplained::NotFromStart => {
                "no legal move by p leads from the start position to this board"
            }
            Unexplained::NoLegalMove => {
                "no legal move by p leads from the expected position to this board"
            }
            Unexplained::ChangedOnBotsTurn => "the board changed while the bot is to move",
        })
    }
}

/// Where the game stands.
#[derive(Clone, Debug, Default)]
enum State {
    /// No `newgame` or `position` yet.
    #[default]
    NoGame,
    /// After `newgame`: the start is known, the side to move not yet.
    Fresh { start: Grid },
    /// A game in progress; `last_bot` is the position before the bot's last move and that move,
    /// until a board after it is seen.
    Playing {
        game: Game,
        last_bot: Option<(AnyPosition, MoveInfo)>,
    },
}

/// When a start position seen on the board begins a new game by itself (without `newgame`), so an
/// unattended robot plays game after game: `set autonewgame gameover|always|off`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AutoNewGame {
    /// After the game has ended (the default): the start position put back on the board is a new
    /// game.
    #[default]
    GameOver,
    /// At any time: a start position on the board abandons the game in progress.
    Always,
    /// Never: only `newgame` or `position` begin a game.
    Off,
}

impl AutoNewGame {
    /// Every policy, in the order `options` lists them.
    pub const ALL: [AutoNewGame; 3] =
        [AutoNewGame::GameOver, AutoNewGame::Always, AutoNewGame::Off];

    /// The protocol's word for the policy.
    pub fn word(self) -> &'static str {
        match self {
            AutoNewGame::GameOver => "gameover",
            AutoNewGame::Always => "always",
            AutoNewGame::Off => "off",
        }
    }

    /// The policy named `word` (case-insensitive), if any.
    pub fn from_word(word: &str) -> Option<AutoNewGame> {
        AutoNewGame::ALL
            .into_iter()
            .find(|p| p.word().eq_ignore_ascii_case(word))
    }
}

impl fmt::Display for AutoNewGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The game as the camera shows it.
#[derive(Clone, Debug, Default)]
pub struct Tracker {
    state: State,
}

impl Tracker {
    /// A new game from `start`; the first board tells who moves first.
    pub fn new_game(&mut self, start: Grid) {
        self.state = State::Fresh { start };
    }

    /// A game from `grid` with `side` to move.
    pub fn set_position(&mut self, grid: &Grid, side: Side) {
        self.state = State::Playing {
            game: Game::new(AnyPosition::from_grid(grid, side)),
            last_bot: None,
        };
    }

    /// A game with its history (set up by `position ... moves` or `position pdn`); the next board
    /// is compared with its current position.
    pub fn set_game(&mut self, game: Game) {
        self.state = State::Playing {
            game,
            last_bot: None,
        };
    }

    /// Takes back the person's last move and every move after it (the bot's reply); returns the
    /// position the board must be put back to. `None` (and no change) when the person has not
    /// moved in this game.
    pub fn take_back(&mut self) -> Option<AnyPosition> {
        let State::Playing { game, last_bot } = &mut self.state else {
            return None;
        };
        let positions = game.positions();
        // The person's last move: the last ply made from a position with `p` to move.
        let n = game.plies();
        let last_person = (0..n)
            .rev()
            .find(|&i| positions[i].side() == Side::Player)?;
        for _ in last_person..n {
            game.undo();
        }
        *last_bot = None;
        Some(*game.current())
    }

    /// The game in progress, if its first board has been seen (or it was set up by `position`).
    pub fn game(&self) -> Option<&Game> {
        match &self.state {
            State::Playing { game, .. } => Some(game),
            _ => None,
        }
    }

    /// Whether `board`, equal to the start position `start`, begins a new game under `policy`:
    /// there is a game (over, for [`AutoNewGame::GameOver`]) and the board is not simply its
    /// current position (a game still at its start goes on as it is).
    pub fn starts_new_game(
        &self,
        board: &Grid,
        start: &Grid,
        policy: AutoNewGame,
        colour_only: bool,
    ) -> bool {
        let State::Playing { game, .. } = &self.state else {
            return false;
        };
        let allowed = match policy {
            AutoNewGame::Off => false,
            AutoNewGame::GameOver => game.status().is_over(),
            AutoNewGame::Always => true,
        };
        allowed
            && board.size() == start.size()
            && same_board(board, start, colour_only)
            && !same_board(board, &game.current().grid(), colour_only)
    }

    /// The start layout after `newgame`, while the first board has not been seen.
    pub fn fresh_start(&self) -> Option<&Grid> {
        match &self.state {
            State::Fresh { start } => Some(start),
            _ => None,
        }
    }

    /// The position before the bot's last move while the arm makes it (no board after the move
    /// seen yet); the game's current position is the one after it.
    pub fn awaiting_arm(&self) -> Option<&AnyPosition> {
        match &self.state {
            State::Playing {
                last_bot: Some((before, _)),
                ..
            } => Some(before),
            _ => None,
        }
    }

    /// The board size of the game, if there is one.
    pub fn size(&self) -> Option<BoardSize> {
        match &self.state {
            State::NoGame => None,
            State::Fresh { start } => Some(start.size()),
            State::Playing { game, .. } => Some(game.current().size()),
        }
    }

    /// Records the bot's move: the game goes on from the position after it, and boards on the way
    /// there are the arm still working. Returns false (and changes nothing) if there is no game or
    /// the move is not legal in it.
    pub fn bot_moved(&mut self, mv: &MoveInfo) -> bool {
        let State::Playing { game, last_bot } = &mut self.state else {
            return false;
        };
        let before = *game.current();
        if game.play(mv).is_none() {
            return false;
        }
        *last_bot = Some((before, mv.clone()));
        true
    }

    /// What the camera's `board` means, `side` being the side to move it claims (used only when the
    /// game does not know: the first board after `newgame`, a board accepted in lenient mode).
    /// A board with a man on its crowning row is accepted here only as an unfinished crowning.
    pub fn observe(
        &mut self,
        board: &Grid,
        side: Side,
        reading: Reading,
    ) -> Result<Observation, Rejection> {
        let Some(size) = self.size() else {
            return Err(Rejection::NoGame);
        };
        if board.size() != size {
            return Err(Rejection::BadBoard(format!(
                "the board is {} but the game is {size}",
                board.size()
            )));
        }
        if let Some(e) = board.uncrowned_man() {
            if let Some(rejection) = self.wrong_piece_crowned(board, reading.colour_only) {
                return Err(rejection);
            }
            let crowning = self.crown_missing(board, reading.colour_only)
                || matches!(
                    self.person_in_progress(board, reading.colour_only),
                    Some(Diagnosis::InProgress {
                        stage: Stage::Crown(_),
                        ..
                    })
                );
            if !crowning {
                // A man that cannot stand there is often a misread (a crown not seen, a colour
                // taken for the other): name the squares when an explanation is that near.
                if let Some(rejection) = self.misread_rejection(board, reading.colour_only) {
                    return Err(rejection);
                }
                return Err(Rejection::BadBoard(e.to_string()));
            }
        }
        match &self.state {
            State::NoGame => Err(Rejection::NoGame),
            State::Fresh { start } => {
                let start = start.clone();
                self.first_board(&start, board, side, reading)
            }
            State::Playing { .. } => self.next_board(board, side, reading),
        }
    }

    /// The position after the bot's last crowning move but for the crown, put on another of the
    /// bot's men: the man on the crowning square is still a man and a man elsewhere is a king.
    fn wrong_piece_crowned(&self, board: &Grid, colour_only: bool) -> Option<Rejection> {
        let State::Playing {
            game,
            last_bot: Some((_, mv)),
        } = &self.state
        else {
            return None;
        };
        if colour_only || !mv.crowns {
            return None;
        }
        let after = game.current().grid();
        let should = *mv.path.last()?;
        let diffs = differing(board, &after, false);
        let crowned = match diffs.as_slice() {
            [a, b] if *a == should => *b,
            [a, b] if *b == should => *a,
            _ => return None,
        };
        let bot = |king| {
            Some(Piece {
                side: Side::Bot,
                king,
            })
        };
        let fits = board.get(should) == bot(false)
            && after.get(should) == bot(true)
            && board.get(crowned) == bot(true)
            && after.get(crowned) == bot(false);
        fits.then(|| Rejection::WrongPieceCrowned {
            diffs,
            mv: mv.clone(),
            should,
            crowned,
        })
    }

    /// Whether a board with a man on its crowning row is the position after the bot's last move,
    /// crowning, with the arm not finished (typically: the king not put on the man yet).
    fn crown_missing(&self, board: &Grid, colour_only: bool) -> bool {
        match &self.state {
            State::Playing {
                game,
                last_bot: Some((p0, mv)),
            } => {
                mv.crowns
                    && arm_incomplete(board, &p0.grid(), &game.current().grid(), mv, colour_only)
            }
            _ => false,
        }
    }

    /// The position the person is to move in (the start after `newgame`), if it is their turn in a
    /// game that is not over, and the game's last capture among its last two plies with the
    /// position before it.
    fn person_to_move(&self) -> Option<(AnyPosition, Option<(AnyPosition, MoveInfo)>)> {
        match &self.state {
            State::NoGame => None,
            State::Fresh { start } => Some((AnyPosition::from_grid(start, Side::Player), None)),
            State::Playing { game, .. } => {
                let cur = *game.current();
                if cur.side() != Side::Player || game.status().is_over() {
                    return None;
                }
                let plies = game.plies();
                let last_capture = (plies.saturating_sub(2)..plies)
                    .rev()
                    .find(|&i| !game.moves()[i].captured.is_empty())
                    .map(|i| (game.positions()[i], game.moves()[i].clone()));
                Some((cur, last_capture))
            }
        }
    }

    /// The person's legal move under way on `board`, if it is their turn.
    fn person_in_progress(&self, board: &Grid, colour_only: bool) -> Option<Diagnosis> {
        let (expected, _) = self.person_to_move()?;
        in_progress(&expected, board, colour_only)
    }

    /// The rejection of a board that a misread explains (alone or with a move), if one does and it
    /// is the person's turn.
    fn misread_rejection(&self, board: &Grid, colour_only: bool) -> Option<Rejection> {
        let (expected, _) = self.person_to_move()?;
        let diagnosis = nearest_diagnosis(&expected, self.arm_move(), board, colour_only);
        if diagnosis == Diagnosis::Unknown {
            return None;
        }
        Some(Rejection::IllegalTransition {
            diffs: differing(board, &expected.grid(), colour_only),
            why: Unexplained::NoLegalMove,
            diagnosis: Some(Box::new(diagnosis)),
        })
    }

    /// What the person did, for a board no legal move explains (`None` on the bot's turn).
    fn diagnosis(&self, board: &Grid, colour_only: bool) -> Option<Diagnosis> {
        let (expected, last) = self.person_to_move()?;
        Some(diagnose(
            &expected,
            last.as_ref().map(|(p, m)| (p, m)),
            self.arm_move(),
            board,
            colour_only,
        ))
    }

    /// The position before the bot's last move and that move, while the arm may not have made it.
    fn arm_move(&self) -> Option<(&AnyPosition, &MoveInfo)> {
        match &self.state {
            State::Playing {
                last_bot: Some((p0, mv)),
                ..
            } => Some((p0, mv)),
            _ => None,
        }
    }

    fn first_board(
        &mut self,
        start: &Grid,
        board: &Grid,
        side: Side,
        reading: Reading,
    ) -> Result<Observation, Rejection> {
        if same_board(board, start, reading.colour_only) {
            return Ok(Observation::Same(
                self.play_on(Game::new(AnyPosition::from_grid(start, side))),
            ));
        }
        let from = AnyPosition::from_grid(start, Side::Player);
        if let Some(mv) = infer(&from, board, reading.colour_only) {
            let mut game = Game::new(from);
            game.play(&mv);
            return Ok(Observation::OpponentMoved(mv, self.play_on(game)));
        }
        let diffs = differing(board, start, reading.colour_only);
        self.unexplained(board, side, diffs, Unexplained::NotFromStart, reading)
    }

    fn next_board(
        &mut self,
        board: &Grid,
        side: Side,
        reading: Reading,
    ) -> Result<Observation, Rejection> {
        let State::Playing { game, last_bot } = &self.state else {
            return Err(Rejection::NoGame);
        };
        let colour_only = reading.colour_only;
        let cur = *game.current();
        let cur_grid = cur.grid();
        let status = game.status();
        if status.is_over() {
            if same_board(board, &cur_grid, colour_only) {
                // The board after the bot's final move has been seen: the arm is done.
                if let State::Playing { last_bot, .. } = &mut self.state {
                    *last_bot = None;
                }
                return Ok(Observation::Same(Next::GameOver(status)));
            }
            return Err(Rejection::AfterGameOver {
                diffs: differing(board, &cur_grid, colour_only),
                status,
            });
        }
        if same_board(board, &cur_grid, colour_only) {
            let game = game.clone();
            return Ok(Observation::Same(self.play_on(game)));
        }
        if cur.side() == Side::Player {
            if let Some(mv) = infer(&cur, board, colour_only) {
                let mut game = game.clone();
                game.play(&mv);
                return Ok(Observation::OpponentMoved(mv, self.play_on(game)));
            }
        }
        let diffs = differing(board, &cur_grid, colour_only);
        if let Some((p0, mv)) = last_bot {
            if arm_incomplete(board, &p0.grid(), &cur_grid, mv, colour_only) {
                return Err(Rejection::ArmIncomplete {
                    diffs,
                    mv: mv.clone(),
                });
            }
        }
        let why = match cur.side() {
            Side::Player => Unexplained::NoLegalMove,
            Side::Bot => Unexplained::ChangedOnBotsTurn,
        };
        self.unexplained(board, side, diffs, why, reading)
    }

    /// A board that nothing explains: rejected in strict mode, a new start in lenient mode.
    fn unexplained(
        &mut self,
        board: &Grid,
        side: Side,
        diffs: Vec<Coord>,
        why: Unexplained,
        reading: Reading,
    ) -> Result<Observation, Rejection> {
        let diagnosis = self.diagnosis(board, reading.colour_only);
        if let Some(Diagnosis::InProgress { mv, stage }) = diagnosis {
            return Ok(Observation::MoveInProgress { mv, stage });
        }
        if reading.strict {
            return Err(Rejection::IllegalTransition {
                diffs,
                why,
                diagnosis: diagnosis.map(Box::new),
            });
        }
        let next = self.play_on(Game::new(AnyPosition::from_grid(board, side)));
        Ok(Observation::Accepted {
            board: board.clone(),
            side,
            next,
        })
    }

    /// The board shows `game`'s current position: it becomes the tracked game.
    fn play_on(&mut self, game: Game) -> Next {
        let status = game.status();
        let to_move = game.current().side();
        self.state = State::Playing {
            game,
            last_bot: None,
        };
        if status.is_over() {
            Next::GameOver(status)
        } else if to_move == Side::Player {
            Next::PlayerToMove
        } else {
            Next::BotToMove
        }
    }
}

/// Squares as a comma-separated list (`C2,D3`), as replies name them.
pub fn squares_list(coords: &[Coord]) -> String {
    coords
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads a camera board: rotated if asked (the one-line form reversed is the board turned 180
/// degrees), and in colour-only mode with men everywhere but on the crowning rows. A man on its
/// crowning row is let through: it may be an arm that has not crowned it yet, which
/// [`Tracker::observe`] decides.
pub fn camera_grid(rows: &str, rotated: bool, colour_only: bool) -> Result<Grid, BoardError> {
    let mut text: String = if rotated {
        rows.chars().rev().collect()
    } else {
        rows.to_string()
    };
    if colour_only {
        let n = text.split('/').count();
        text = text
            .split('/')
            .enumerate()
            .map(|(r, row)| {
                row.chars()
                    .map(|c| match c {
                        'p' | 'P' if r == 0 => 'P',
                        'p' | 'P' => 'p',
                        'b' | 'B' if r + 1 == n => 'B',
                        'b' | 'B' => 'b',
                        c => c,
                    })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/");
    }
    Grid::parse_line_allowing_uncrowned(&text)
}

fn same_board(a: &Grid, b: &Grid, colour_only: bool) -> bool {
    a.size() == b.size() && differing(a, b, colour_only).is_empty()
}

/// Whether `board` is the position before the bot's move `mv` (`p0`), or part way from it to the
/// position after it (`p1`): the arm has not finished (see [`on_the_way`]).
fn arm_incomplete(board: &Grid, p0: &Grid, p1: &Grid, mv: &MoveInfo, colour_only: bool) -> bool {
    on_the_way(board, p0, p1, mv, colour_only)
}

/// The legal move of `from`'s side that leads to `board`, if any (the first in generation order
/// when several do: they lead to the same position).
fn infer(from: &AnyPosition, board: &Grid, colour_only: bool) -> Option<MoveInfo> {
    from.successors()
        .into_iter()
        .find(|(_, p)| same_board(board, &p.grid(), colour_only))
        .map(|(m, _)| m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camera::diagnosis::StepFault;
    use crate::rules::board::initial_grid;

    fn grid(rows: &str) -> Grid {
        Grid::parse_line_allowing_uncrowned(rows).unwrap()
    }

    fn mv(rows: &str, side: Side, path: &str) -> MoveInfo {
        AnyPosition::from_grid(&grid(rows), side)
            .parse_move(path)
            .unwrap()
    }

    fn coords(list: &str) -> Vec<Coord> {
        list.split(',')
            .map(|c| crate::rules::geometry::parse_coord(c, 4).unwrap())
            .collect()
    }

    const START4: &str = "_b_b/____/____/p_p_";
    const LENIENT: Reading = Reading {
        colour_only: false,
        strict: false,
    };

    fn fresh() -> Tracker {
        let mut t = Tracker::default();
        t.new_game(initial_grid(BoardSize::S4));
        t
    }

    fn observe(t: &mut Tracker, rows: &str, side: Side) -> Result<Observation, Rejection> {
        t.observe(&grid(rows), side, Reading::default())
    }

    #[test]
    fn no_game_and_wrong_size_are_rejected() {
        let mut t = Tracker::default();
        assert_eq!(observe(&mut t, START4, Side::Bot), Err(Rejection::NoGame));
        let mut t = fresh();
        let board8 = initial_grid(BoardSize::S8);
        assert_eq!(
            t.observe(&board8, Side::Bot, Reading::default()),
            Err(Rejection::BadBoard(
                "the board is 8x8 but the game is 4x4".into()
            ))
        );
    }

    #[test]
    fn first_board_equal_to_the_start_says_who_moves_first() {
        let mut t = fresh();
        assert_eq!(
            observe(&mut t, START4, Side::Bot),
            Ok(Observation::Same(Next::BotToMove))
        );
        assert_eq!(t.game().unwrap().current().side(), Side::Bot);
        let mut t = fresh();
        assert_eq!(
            observe(&mut t, START4, Side::Player),
            Ok(Observation::Same(Next::PlayerToMove))
        );
        // Once the game knows whose turn it is, the claimed side no longer matters.
        assert_eq!(
            observe(&mut t, START4, Side::Bot),
            Ok(Observation::Same(Next::PlayerToMove))
        );
    }

    #[test]
    fn first_board_one_player_move_from_the_start() {
        let mut t = fresh();
        let after = "_b_b/____/_p__/__p_";
        assert_eq!(
            observe(&mut t, after, Side::Bot),
            Ok(Observation::OpponentMoved(
                mv(START4, Side::Player, "D0 C1"),
                Next::BotToMove
            ))
        );
        let game = t.game().unwrap();
        assert_eq!(game.plies(), 1);
        assert_eq!(game.current().to_line(), after);
    }

    #[test]
    fn first_board_unexplained_strict_and_lenient() {
        let mut t = fresh();
        let odd = "_b_b/____/_p_p/____";
        assert_eq!(
            observe(&mut t, odd, Side::Bot),
            Err(Rejection::IllegalTransition {
                diffs: coords("C1,C3,D0,D2"),
                why: Unexplained::NotFromStart,
                diagnosis: Some(Box::new(Diagnosis::TwoMoves {
                    first: mv(START4, Side::Player, "D0 C1"),
                    second: mv("_b_b/____/_p__/__p_", Side::Player, "D2 C3"),
                    second_side: Side::Player,
                })),
            })
        );
        // Nothing changed: the start is still expected.
        assert!(t.game().is_none());
        assert_eq!(
            t.observe(&grid(odd), Side::Player, LENIENT),
            Ok(Observation::Accepted {
                board: grid(odd),
                side: Side::Player,
                next: Next::PlayerToMove,
            })
        );
        assert_eq!(t.game().unwrap().current().to_line(), odd);
    }

    #[test]
    fn the_opponents_move_after_the_bots() {
        let mut t = fresh();
        observe(&mut t, START4, Side::Bot).unwrap();
        assert!(t.bot_moved(&mv(START4, Side::Bot, "A1 B0")));
        let after_bot = "___b/b___/____/p_p_";
        assert_eq!(
            observe(&mut t, after_bot, Side::Player),
            Ok(Observation::Same(Next::PlayerToMove))
        );
        let after_player = "___b/b___/___p/p___";
        assert_eq!(
            observe(&mut t, after_player, Side::Player),
            Ok(Observation::OpponentMoved(
                mv(after_bot, Side::Player, "D2 C3"),
                Next::BotToMove
            ))
        );
        // A board equal to the expected one with the bot to move: search again.
        assert_eq!(
            observe(&mut t, after_player, Side::Bot),
            Ok(Observation::Same(Next::BotToMove))
        );
    }

    #[test]
    fn the_arm_not_finished_is_told_from_a_misread() {
        let mut t = fresh();
        observe(&mut t, START4, Side::Bot).unwrap();
        let bot_move = mv(START4, Side::Bot, "A1 B0");
        t.bot_moved(&bot_move);
        // The board before the move: the arm has not started.
        assert_eq!(
            observe(&mut t, START4, Side::Player),
            Err(Rejection::ArmIncomplete {
                diffs: coords("A1,B0"),
                mv: bot_move.clone(),
            })
        );
        // The piece lifted and not yet put down.
        assert_eq!(
            observe(&mut t, "___b/____/____/p_p_", Side::Player),
            Err(Rejection::ArmIncomplete {
                diffs: coords("B0"),
                mv: bot_move.clone(),
            })
        );
        // A square the bot's move does not touch: not the arm. Here the person lifted a man.
        assert!(matches!(
            observe(&mut t, "___b/b___/____/p___", Side::Player),
            Ok(Observation::MoveInProgress { stage: Stage::Lifted(s), .. }) if s == coords("D2")[0]
        ));
        // A piece of the person's on C1, where D0 and D2 may step: a phantom, or either move with
        // its start square misread; the three are equally near, and all are named.
        let Err(Rejection::IllegalTransition {
            diagnosis: Some(d), ..
        }) = observe(&mut t, "___b/b___/_p__/p_p_", Side::Player)
        else {
            panic!("not an illegal transition");
        };
        assert_eq!(d.word(), "ambiguous");
        assert_eq!(d.squares_to_check(), Some(coords("C1,D0,D2")));
        // A phantom of the bot's on C3, which no move reaches: a misread.
        assert_eq!(
            observe(&mut t, "___b/b___/___b/p_p_", Side::Player),
            Err(Rejection::IllegalTransition {
                diffs: coords("C3"),
                why: Unexplained::NoLegalMove,
                diagnosis: Some(Box::new(Diagnosis::Misread {
                    appeared: coords("C3"),
                    vanished: vec![],
                    changed: vec![],
                })),
            })
        );
        // Still waiting for the same position.
        assert_eq!(
            observe(&mut t, "___b/b___/____/p_p_", Side::Player),
            Ok(Observation::Same(Next::PlayerToMove))
        );
        // Once the position after the move has been seen, the old board is no longer the arm.
        assert_eq!(
            observe(&mut t, START4, Side::Player),
            Err(Rejection::IllegalTransition {
                diffs: coords("A1,B0"),
                why: Unexplained::NoLegalMove,
                diagnosis: Some(Box::new(Diagnosis::IllegalStep {
                    from: coords("B0")[0],
                    to: coords("A1")[0],
                    fault: StepFault::BotsPiece,
                })),
            })
        );
    }

    #[test]
    fn an_uncrowned_man_is_the_arm_only_after_a_crowning_move() {
        let before = "___P/____/_b__/____";
        let mut t = Tracker::default();
        t.set_position(&grid(before), Side::Bot);
        assert_eq!(
            observe(&mut t, before, Side::Bot),
            Ok(Observation::Same(Next::BotToMove))
        );
        let crowning = mv(before, Side::Bot, "C1 D0");
        assert!(crowning.crowns);
        assert!(t.bot_moved(&crowning));
        assert_eq!(
            observe(&mut t, "___P/____/____/b___", Side::Player),
            Err(Rejection::ArmIncomplete {
                diffs: coords("D0"),
                mv: crowning,
            })
        );
        // A man on D2, where no crowning move ends: not the arm. The board before the move with a
        // phantom on D2 is the nearest explanation, so the squares to check are named.
        let Err(Rejection::IllegalTransition {
            diagnosis: Some(d), ..
        }) = observe(&mut t, "___P/____/_b__/__b_", Side::Player)
        else {
            panic!("not an illegal transition");
        };
        assert_eq!(d.squares_to_check(), Some(coords("D2")));
        assert!(
            d.to_string()
                .contains("the board before the bot's move C1 D0"),
            "{d}"
        );
        // Far from everything: the man on its crowning row is a bad board.
        assert!(matches!(
            observe(&mut t, "_b_P/____/____/b_b_", Side::Player),
            Err(Rejection::BadBoard(_))
        ));
        assert_eq!(
            observe(&mut t, "___P/____/____/B___", Side::Player),
            Ok(Observation::Same(Next::PlayerToMove))
        );
        // Once the crown was seen, the man on its crowning row is the king read as a man.
        assert_eq!(
            observe(&mut t, "___P/____/____/b___", Side::Player),
            Err(Rejection::IllegalTransition {
                diffs: coords("D0"),
                why: Unexplained::NoLegalMove,
                diagnosis: Some(Box::new(Diagnosis::Misread {
                    appeared: vec![],
                    vanished: vec![],
                    changed: coords("D0"),
                })),
            })
        );
    }

    #[test]
    fn a_crown_put_on_the_wrong_man_is_the_arm_naming_both_squares() {
        let before = "___P/b___/_b__/____";
        let mut t = Tracker::default();
        t.set_position(&grid(before), Side::Bot);
        let crowning = mv(before, Side::Bot, "C1 D0");
        assert!(t.bot_moved(&crowning));
        // D0 still a man, B0 made a king instead.
        assert_eq!(
            observe(&mut t, "___P/B___/____/b___", Side::Player),
            Err(Rejection::WrongPieceCrowned {
                diffs: coords("B0,D0"),
                mv: crowning.clone(),
                should: coords("D0")[0],
                crowned: coords("B0")[0],
            })
        );
        // A colour-only camera cannot see it: the board is the expected one.
        assert_eq!(
            t.observe(
                &camera_grid("___P/B___/____/b___", false, true).unwrap(),
                Side::Player,
                Reading {
                    colour_only: true,
                    strict: true
                }
            ),
            Ok(Observation::Same(Next::PlayerToMove))
        );
    }

    #[test]
    fn the_persons_move_under_way_is_waited_for_even_in_lenient_mode() {
        let pos = "____/p___/____/__B_";
        let mut t = Tracker::default();
        t.set_position(&grid(pos), Side::Player);
        // The man reached row A and is not crowned yet: not a bad board, a move under way.
        let uncrowned = grid("_p__/____/____/__B_");
        for reading in [Reading::default(), LENIENT] {
            assert_eq!(
                t.observe(&uncrowned, Side::Player, reading),
                Ok(Observation::MoveInProgress {
                    mv: mv(pos, Side::Player, "B0 A1"),
                    stage: Stage::Crown(coords("A1")[0]),
                })
            );
        }
        // Nothing changed meanwhile: the crowned man completes the move.
        assert!(matches!(
            observe(&mut t, "_P__/____/____/__B_", Side::Player),
            Ok(Observation::OpponentMoved(_, Next::BotToMove))
        ));
    }

    #[test]
    fn a_board_changed_on_the_bots_turn_is_unexplained() {
        let mut t = fresh();
        observe(&mut t, START4, Side::Bot).unwrap();
        assert_eq!(
            observe(&mut t, "_b_b/____/_p__/__p_", Side::Bot),
            Err(Rejection::IllegalTransition {
                diffs: coords("C1,D0"),
                why: Unexplained::ChangedOnBotsTurn,
                diagnosis: None,
            })
        );
    }

    #[test]
    fn a_game_ended_by_the_opponent_and_boards_after_it() {
        let before = "____/__b_/_p__/____";
        let mut t = Tracker::default();
        t.set_position(&grid(before), Side::Player);
        let over = Next::GameOver(Status::Win {
            winner: Side::Player,
        });
        let after = "___P/____/____/____";
        assert_eq!(
            observe(&mut t, after, Side::Player),
            Ok(Observation::OpponentMoved(
                mv(before, Side::Player, "C1 A3"),
                over.clone()
            ))
        );
        assert_eq!(
            observe(&mut t, after, Side::Player),
            Ok(Observation::Same(over))
        );
        assert_eq!(
            observe(&mut t, "____/____/____/P___", Side::Player),
            Err(Rejection::AfterGameOver {
                diffs: coords("A3,D0"),
                status: Status::Win {
                    winner: Side::Player
                },
            })
        );
    }

    #[test]
    fn colour_only_cameras_compare_colours_and_keep_kings_from_the_game() {
        let pos = "_b__/____/_P__/____";
        let mut t = Tracker::default();
        t.set_position(&grid(pos), Side::Player);
        let seen = "_b__/____/_p__/____";
        let colour_only = Reading {
            colour_only: true,
            strict: true,
        };
        assert_eq!(
            t.observe(&grid(seen), Side::Player, colour_only),
            Ok(Observation::Same(Next::PlayerToMove))
        );
        assert_eq!(
            observe(&mut t, seen, Side::Player),
            Err(Rejection::IllegalTransition {
                diffs: coords("C1"),
                why: Unexplained::NoLegalMove,
                diagnosis: Some(Box::new(Diagnosis::Misread {
                    appeared: vec![],
                    vanished: vec![],
                    changed: coords("C1"),
                })),
            })
        );
        // The king's move is inferred from colours alone, and it stays a king.
        let moved = grid("_b__/p___/____/____");
        assert!(matches!(
            t.observe(&moved, Side::Player, colour_only),
            Ok(Observation::OpponentMoved(_, Next::BotToMove))
        ));
        assert_eq!(t.game().unwrap().current().to_line(), "_b__/P___/____/____");
    }

    #[test]
    fn rotated_and_colour_only_camera_boards() {
        let g = camera_grid("_p_p/____/____/b_b_", true, false).unwrap();
        assert_eq!(g.to_line(), "_b_b/____/____/p_p_");
        // A colour-only camera sees a king as a man; on a crowning row it must be a king.
        let g = camera_grid("_p__/____/_b__/____", false, true).unwrap();
        assert_eq!(g.to_line(), "_P__/____/_b__/____");
        let g = camera_grid("_B__/____/____/b___", false, true).unwrap();
        assert_eq!(g.to_line(), "_b__/____/____/B___");
    }

    #[test]
    fn arm_failure_is_told_from_a_misread() {
        let p0 = grid(START4);
        let m = mv(START4, Side::Bot, "A1 B0");
        let p1 = AnyPosition::from_grid(&p0, Side::Bot)
            .play(&m)
            .unwrap()
            .grid();
        assert!(arm_incomplete(&p0, &p0, &p1, &m, false));
        assert!(arm_incomplete(
            &grid("___b/____/____/p_p_"),
            &p0,
            &p1,
            &m,
            false
        ));
        assert!(!arm_incomplete(
            &grid("___b/b___/____/p___"),
            &p0,
            &p1,
            &m,
            false
        ));
        assert!(!arm_incomplete(&p1, &p0, &p1, &m, false));
    }

    #[test]
    fn the_arm_is_awaited_until_the_board_after_the_bots_move_even_when_it_ends_the_game() {
        // The bot's man on B0 takes the person's last piece on C1 and crowns.
        let before = "____/b___/_p__/____";
        let mut t = Tracker::default();
        t.set_position(&grid(before), Side::Bot);
        assert_eq!(t.awaiting_arm(), None);
        assert!(t.bot_moved(&mv(before, Side::Bot, "B0 D2")));
        assert!(t.awaiting_arm().is_some());
        let after = t.game().unwrap().current().to_line();
        assert!(t.game().unwrap().status().is_over());
        assert!(matches!(
            observe(&mut t, &after, Side::Player),
            Ok(Observation::Same(Next::GameOver(_)))
        ));
        assert_eq!(t.awaiting_arm(), None);
        assert_eq!(t.fresh_start(), None);
        t.new_game(initial_grid(BoardSize::S4));
        assert_eq!(t.fresh_start(), Some(&initial_grid(BoardSize::S4)));
    }
}
