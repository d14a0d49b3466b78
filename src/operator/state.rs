//! What the operator page says, decided in one place: a pure function from a [`Snapshot`] to a
//! [`Said`]: the page's state, its headline, the explanation under it, who should act and what
//! they should do, and which reply to a board the page shows word for word. The page's summary
//! and `/status.json` print a `Said` and nothing else, so the headline and the text below it come
//! from the same decision and cannot disagree (the page once said "The bot is thinking." over
//! "Last reply to a board: unchanged ... the person is to move").
//!
//! The decision, in order (the first that holds):
//!
//! | state | when | who acts |
//! |---|---|---|
//! | [`PageState::NoClient`] | `--listen` and no client is connected (none yet, or it has gone) | the vision client |
//! | [`PageState::Thinking`] | the bot searches (the reply to the board comes with the move) | nobody: everyone waits |
//! | [`PageState::NoGame`] | no `newgame` or `position` yet | the vision client |
//! | [`PageState::GameOver`] | the game has ended | the person (or the vision client) |
//! | [`PageState::CheckCamera`] | the last board was refused as a misread, a turned picture or an unreadable board | the operator |
//! | [`PageState::ArmIncomplete`] | the last board showed the bot's move unfinished | the arm |
//! | [`PageState::NotAllowed`] | the last board showed a move the rules do not allow, or nothing the rules explain, or was refused otherwise | the person (the arm, for the bot's own piece during its move; the operator, for another refusal) |
//! | [`PageState::MoveUnderWay`] | the last board showed a move being made (`wait`) | the person |
//! | [`PageState::ArmToMove`] | the daemon waits for the board after the bot's move | the arm |
//! | [`PageState::SetUp`] | a new game before its first board | the person |
//! | [`PageState::BotToMove`] | the bot is to move and waits for the board that shows it | the vision client |
//! | [`PageState::PersonToMove`] | the person is to move | the person |
//!
//! A refused board is judged before the daemon's own state because it is news the daemon's state
//! does not carry: after a misread while the arm makes the bot's move, the daemon still waits for
//! the arm (`state arm`), but the camera's board may show the move made; the page then says to
//! check the camera, and whether the move looks made.
//!
//! ```
//! use checkersbot::daemon::snapshot::Snapshot;
//! use checkersbot::operator::state::{decide, PageState};
//!
//! let said = decide(&Snapshot::default());
//! assert_eq!(said.state, PageState::NoGame);
//! assert_eq!(said.headline, "No game yet");
//! ```

use crate::daemon::protocol::GameState;
use crate::daemon::snapshot::{LinkKind, Snapshot};
use crate::rules::board::Grid;
use crate::rules::game::Status;
use crate::rules::position::Side;

/// The page's states (see the module's table for when each holds).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PageState {
    /// `no-client`: the daemon listens for the vision client; none is connected (none has come
    /// yet, or the last one has gone).
    NoClient,
    /// `no-game`: no game yet.
    NoGame,
    /// `set-up`: a new game; its first board tells who moves first.
    SetUp,
    /// `bot-to-move`: the bot is to move; a board showing the position starts its search.
    BotToMove,
    /// `thinking`: the bot searches its move.
    Thinking,
    /// `arm-to-move`: the bot has answered its move; the arm is to make it.
    ArmToMove,
    /// `arm-incomplete`: the camera's board shows the bot's move unfinished.
    ArmIncomplete,
    /// `check-camera`: the camera's board does not fit, and no move explains it (a misread, a
    /// turned picture, a board that cannot be read).
    CheckCamera,
    /// `not-allowed`: the camera's board shows a move the rules do not allow.
    NotAllowed,
    /// `move-under-way`: the camera's board shows a move being made.
    MoveUnderWay,
    /// `person-to-move`: the person is to move.
    PersonToMove,
    /// `game-over`: the game has ended.
    GameOver,
}

impl PageState {
    /// Every state, in the order of the module's table.
    pub const ALL: [PageState; 12] = [
        PageState::NoClient,
        PageState::Thinking,
        PageState::NoGame,
        PageState::GameOver,
        PageState::CheckCamera,
        PageState::ArmIncomplete,
        PageState::NotAllowed,
        PageState::MoveUnderWay,
        PageState::ArmToMove,
        PageState::SetUp,
        PageState::BotToMove,
        PageState::PersonToMove,
    ];

    /// The state's word on the page (`data-page-state`) and in `/status.json` (`page_state`).
    pub fn word(self) -> &'static str {
        match self {
            PageState::NoClient => "no-client",
            PageState::NoGame => "no-game",
            PageState::SetUp => "set-up",
            PageState::BotToMove => "bot-to-move",
            PageState::Thinking => "thinking",
            PageState::ArmToMove => "arm-to-move",
            PageState::ArmIncomplete => "arm-incomplete",
            PageState::CheckCamera => "check-camera",
            PageState::NotAllowed => "not-allowed",
            PageState::MoveUnderWay => "move-under-way",
            PageState::PersonToMove => "person-to-move",
            PageState::GameOver => "game-over",
        }
    }
}

/// Who should act next.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Actor {
    /// The person playing.
    Person,
    /// The robot's arm (or whoever helps it).
    Arm,
    /// The operator: the camera, its settings and the board.
    Operator,
    /// The vision system's program (the daemon's client).
    VisionClient,
    /// Nobody: everyone waits.
    Nobody,
}

impl Actor {
    /// The actor's word (`data-actor`, `actor` in `/status.json`).
    pub fn word(self) -> &'static str {
        match self {
            Actor::Person => "person",
            Actor::Arm => "arm",
            Actor::Operator => "operator",
            Actor::VisionClient => "vision-client",
            Actor::Nobody => "nobody",
        }
    }

    /// Who, in words, before the action.
    pub fn words(self) -> &'static str {
        match self {
            Actor::Person => "The person",
            Actor::Arm => "The arm",
            Actor::Operator => "The operator",
            Actor::VisionClient => "The vision client",
            Actor::Nobody => "Everyone",
        }
    }
}

/// What the page says: one decision for the headline, the explanation, the action and the reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Said {
    /// The state.
    pub state: PageState,
    /// The headline (no final full stop).
    pub headline: String,
    /// Why, in one or two sentences.
    pub explanation: String,
    /// Who should act.
    pub actor: Actor,
    /// What they should do (a sentence).
    pub action: String,
    /// The reply to the camera's board the page shows, word for word; `None` when there is none
    /// yet, or while the bot searches (the board's reply is the move, still to come).
    pub reply: Option<String>,
}

/// What the daemon's diagnosis of the last board says, read from its `error` or `wait` reply
/// (`error CODE SQUARES: [CLASS: ]what; what to do`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Trouble {
    kind: TroubleKind,
    /// The squares named (`G3`, `D4 H0`), if any.
    squares: String,
    /// What happened, in words.
    what: String,
    /// What to do, in words, when the reply says it.
    todo: Option<String>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum TroubleKind {
    /// `error arm-incomplete`.
    ArmIncomplete,
    /// A misread, a turned picture, a board that cannot be read.
    Camera,
    /// The bot's piece moved (during the person's turn, or by the arm to a wrong square).
    BotsPiece,
    /// No legal move leads to the board.
    Unexplained,
    /// The person's move breaks a rule.
    Rule,
    /// `wait`: a move under way.
    UnderWay,
    /// `error game-over`, `error no-game`, or anything else.
    Other,
}

/// A sentence: the first letter a capital, a full stop at the end.
fn sentence(text: &str) -> String {
    let text = text.trim().trim_end_matches('.');
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => format!("{}{}.", c.to_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

impl Trouble {
    /// Reads a diagnosis (an `error` or `wait` reply); `None` for anything else.
    fn read(reply: &str) -> Option<Trouble> {
        let (head, rest) = reply.split_once(' ')?;
        let (code, rest) = match head {
            "error" => rest.split_once(' ').unwrap_or((rest, "")),
            "wait" => ("wait", rest.split_once(' ').map_or("", |(_, r)| r)),
            _ => return None,
        };
        // The squares come first, then a colon, for the codes that name squares.
        let named = |text: &str| -> Option<(String, String)> {
            let (squares, words) = text.split_once(": ")?;
            let ok = !squares.is_empty()
                && squares
                    .split(',')
                    .all(|s| s.len() >= 2 && s.as_bytes()[0].is_ascii_uppercase());
            ok.then(|| (squares.replace(',', " "), words.to_string()))
        };
        let (squares, words) = named(rest).unwrap_or_else(|| (String::new(), rest.to_string()));
        let (kind, words) = match code {
            "wait" => (TroubleKind::UnderWay, words),
            "arm-incomplete" => (TroubleKind::ArmIncomplete, words),
            "bad-board" => (TroubleKind::Camera, words),
            "illegal-transition" => {
                let (class, said) = words.split_once(": ").unwrap_or(("", words.as_str()));
                let kind = match class {
                    "misread" | "orientation" => TroubleKind::Camera,
                    "bots-piece" => TroubleKind::BotsPiece,
                    "unexplained" | "" => TroubleKind::Unexplained,
                    _ => TroubleKind::Rule,
                };
                (kind, said.to_string())
            }
            _ => (TroubleKind::Other, words),
        };
        let (what, todo) = match words.rsplit_once("; ") {
            Some((what, todo)) => (what.to_string(), Some(todo.to_string())),
            None => (words, None),
        };
        Some(Trouble {
            kind,
            squares,
            what,
            todo,
        })
    }
}

/// Who made the game's last move: `None` before any move.
fn last_mover(snap: &Snapshot) -> Option<Side> {
    let start = snap.start.as_ref()?;
    let n = snap.moves.len();
    (n > 0).then(|| {
        if n % 2 == 1 {
            start.side()
        } else {
            start.side().opponent()
        }
    })
}

/// The bot's move the arm is to make (the game's last move while the daemon waits for the arm).
fn arm_move(snap: &Snapshot) -> String {
    snap.moves
        .last()
        .map_or_else(|| "its move".to_string(), |m| m.described())
}

/// While the arm makes the bot's move: whether the camera's board is nearer the board after it
/// than the board before it (the move looks made, whatever else is wrong).
fn move_looks_made(snap: &Snapshot) -> bool {
    let grid = |rows: Option<&str>| rows.and_then(|r| Grid::parse_line_allowing_uncrowned(r).ok());
    let (Some(before), Some(after), Some(seen)) = (
        grid(snap.status.position.as_deref()),
        grid(snap.status.expect.as_deref()),
        grid(snap.status.seen.as_deref()),
    ) else {
        return false;
    };
    if before.size() != seen.size() || after.size() != seen.size() {
        return false;
    }
    seen.diff(&after).len() < seen.diff(&before).len()
}

fn result_words(result: Option<Status>) -> (String, String) {
    match result {
        Some(Status::Win { winner: Side::Bot }) => (
            "Game over: the bot wins".into(),
            "The person has no move left.".into(),
        ),
        Some(Status::Win {
            winner: Side::Player,
        }) => (
            "Game over: the person wins".into(),
            "The bot has no move left.".into(),
        ),
        Some(Status::DrawRepetition) => (
            "Game over: a draw".into(),
            "The same position came three times with the same side to move.".into(),
        ),
        Some(Status::DrawNoProgress) => (
            "Game over: a draw".into(),
            "Forty moves each with no capture and no man moved.".into(),
        ),
        _ => ("Game over".into(), String::new()),
    }
}

/// What the page says about `snap` (see the module's table).
pub fn decide(snap: &Snapshot) -> Said {
    let st = &snap.status;
    let trouble = st.diagnosis.as_deref().and_then(Trouble::read);
    let reply = snap.last_reply.clone();
    let said = |state, headline: String, explanation: String, actor, action: String| Said {
        state,
        headline,
        explanation: explanation.trim().to_string(),
        actor,
        action,
        reply: reply.clone(),
    };

    if let (LinkKind::Tcp { listen }, None) = (&snap.link.kind, snap.link.connection) {
        return said(
            PageState::NoClient,
            "No vision client is connected".into(),
            format!(
                "The daemon listens for the vision system on {listen}; nothing is connected now \
                 (none has come yet, or the last one has gone)."
            ),
            Actor::VisionClient,
            format!("Start the vision client and connect it to {listen}."),
        );
    }

    if st.state == GameState::Search {
        let read = match last_mover(snap) {
            Some(Side::Player) => format!(
                "It read the person's move {} from the camera's board and searches its reply.",
                snap.moves.last().map(|m| m.described()).unwrap_or_default()
            ),
            _ => "It searches its move in the position the camera's board shows.".into(),
        };
        return Said {
            reply: None,
            ..said(
                PageState::Thinking,
                "The bot is thinking".into(),
                format!("{read} The reply to this board is the move, when the search ends."),
                Actor::Nobody,
                "Wait for the bot's move; leave the board as it is.".into(),
            )
        };
    }

    if st.state == GameState::NoGame {
        let refused = if trouble.is_some() {
            " The last board was refused: there is no game to fit it in."
        } else {
            ""
        };
        return said(
            PageState::NoGame,
            "No game yet".into(),
            format!(
                "The daemon waits for a game: newgame (the start position) or position.{refused}"
            ),
            Actor::VisionClient,
            "Send newgame, or position with the board to play from.".into(),
        );
    }

    if st.state == GameState::Over {
        let (headline, why) = result_words(st.result);
        let action = if snap.new_game_from_board {
            "Set up the start position on the board for the next game, or send newgame."
        } else {
            "Send newgame (or position) for the next game."
        };
        let (actor, refused) = match &trouble {
            Some(t) if t.kind == TroubleKind::Camera => (
                Actor::Person,
                format!(" The last board could not be read: {}", sentence(&t.what)),
            ),
            Some(_) => (
                Actor::Person,
                " The last board was not the game's last position nor a new game's start.".into(),
            ),
            None => (Actor::Person, String::new()),
        };
        return said(
            PageState::GameOver,
            headline,
            format!("{why}{refused}"),
            actor,
            action.into(),
        );
    }

    let arm = st.state == GameState::Arm;
    if let Some(t) = &trouble {
        match t.kind {
            TroubleKind::Camera => {
                let game = if arm {
                    if move_looks_made(snap) {
                        format!(
                            " The bot's move {} looks made on the board; the daemon waits for a board it can read.",
                            arm_move(snap)
                        )
                    } else {
                        format!(
                            " The arm is still to make the bot's move {}.",
                            arm_move(snap)
                        )
                    }
                } else {
                    " The game is as it was; the board is read again when the camera sends the next one."
                        .to_string()
                };
                let headline = if t.squares.is_empty() {
                    "Check the camera: its board cannot be read".to_string()
                } else {
                    format!("Check the camera: its board does not fit on {}", t.squares)
                };
                let todo = t
                    .todo
                    .as_deref()
                    .unwrap_or("check the camera and the board");
                return said(
                    PageState::CheckCamera,
                    headline,
                    format!("{}{game}", sentence(&t.what)),
                    Actor::Operator,
                    sentence(todo),
                );
            }
            TroubleKind::ArmIncomplete => {
                let todo = t
                    .todo
                    .clone()
                    .unwrap_or_else(|| format!("finish the move {}", arm_move(snap)));
                return said(
                    PageState::ArmIncomplete,
                    format!("The arm has not finished the bot's move {}", arm_move(snap)),
                    format!(
                        "{} The squares where the board differs are marked.",
                        sentence(&t.what)
                    ),
                    Actor::Arm,
                    sentence(&todo),
                );
            }
            TroubleKind::BotsPiece | TroubleKind::Unexplained | TroubleKind::Rule => {
                let headline = match t.kind {
                    TroubleKind::BotsPiece => "A piece of the bot's was moved",
                    TroubleKind::Unexplained => "The board does not fit the game",
                    _ => "Not a legal move",
                };
                // During the bot's move a wrong piece is the arm's doing; else the person's.
                let actor = if arm { Actor::Arm } else { Actor::Person };
                let todo = t.todo.clone().unwrap_or_else(|| {
                    "set the board back to the expected one (the marked squares differ), or check the camera"
                        .into()
                });
                return said(
                    PageState::NotAllowed,
                    headline.into(),
                    sentence(&t.what),
                    actor,
                    sentence(&todo),
                );
            }
            TroubleKind::UnderWay => {
                let todo = t.todo.as_deref().unwrap_or("finish the move");
                return said(
                    PageState::MoveUnderWay,
                    "A move is being made".into(),
                    sentence(&t.what),
                    Actor::Person,
                    sentence(todo),
                );
            }
            TroubleKind::Other => {
                // A refusal of another kind (none is expected here: `game-over` and `no-game`
                // come with their own daemon states); said as the daemon said it.
                let todo = t
                    .todo
                    .as_deref()
                    .unwrap_or("look at the reply and the board");
                return said(
                    PageState::NotAllowed,
                    "The camera's board was refused".into(),
                    sentence(&t.what),
                    Actor::Operator,
                    sentence(todo),
                );
            }
        }
    }

    match st.state {
        GameState::Arm => {
            let mv = arm_move(snap);
            said(
                PageState::ArmToMove,
                format!("The arm is to make the bot's move {mv}"),
                "The bot has answered its move; the daemon waits for a board that shows it made (the expected board, the move drawn as an arrow).".into(),
                Actor::Arm,
                format!("Make the move {mv}."),
            )
        }
        GameState::Start => said(
            PageState::SetUp,
            "A new game: set up the start position".into(),
            "The first board the camera sends tells who moves first: the side written after it (p the person, b the bot).".into(),
            Actor::Person,
            "Set up the start position, then make the first move or let the bot begin.".into(),
        ),
        GameState::Bot => said(
            PageState::BotToMove,
            "The bot is to move".into(),
            "A board showing the position (the expected board) starts the bot's search.".into(),
            Actor::VisionClient,
            "Send the camera's board.".into(),
        ),
        _ => {
            let explanation = match (last_mover(snap), snap.moves.last()) {
                (Some(Side::Bot), Some(mv)) => format!(
                    "The bot played {}; the camera's board shows it made.",
                    mv.described()
                ),
                _ => "The camera's board shows the game as the daemon holds it.".into(),
            };
            said(
                PageState::PersonToMove,
                "The person is to move".into(),
                explanation,
                Actor::Person,
                "Make your move on the board.".into(),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::any_size::AnyPosition;
    use crate::rules::board::initial_grid;
    use crate::rules::geometry::{BoardSize, Coord};
    use std::collections::HashSet;

    const START: &str = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_";
    /// After the bot's C5 D4 from the start.
    const AFTER: &str = "_b_b_b_b/b_b_b_b_/_b_b___b/____b___/________/p_p_p_p_/_p_p_p_p/p_p_p_p_";

    /// A game from the 8x8 start with `first` to move, the daemon in `state`.
    fn game(state: GameState, first: Side) -> Snapshot {
        let start = AnyPosition::from_grid(&initial_grid(BoardSize::S8), first);
        let mut snap = Snapshot::default();
        snap.status.state = state;
        snap.status.size = Some(BoardSize::S8);
        snap.status.side = Some(first);
        snap.status.position = Some(START.into());
        snap.status.seen = Some(START.into());
        snap.status.result = Some(Status::Ongoing);
        snap.start = Some(start);
        snap.new_game_from_board = true;
        snap
    }

    /// The bot has answered C5 D4 from the start; the arm is to make it.
    fn arm() -> Snapshot {
        let mut snap = game(GameState::Arm, Side::Bot);
        snap.status.expect = Some(AFTER.into());
        snap.status.plies = 1;
        snap.moves = vec![crate::rules::any_size::MoveInfo {
            path: vec![Coord::new(2, 5), Coord::new(3, 4)],
            captured: Vec::new(),
            crowns: false,
        }];
        snap.last_reply = Some("move C5 D4".into());
        snap
    }

    fn refused(mut snap: Snapshot, seen: &str, reply: &str) -> Snapshot {
        snap.status.seen = Some(seen.into());
        snap.status.diagnosis = Some(reply.into());
        snap.last_reply = Some(reply.into());
        snap
    }

    /// Headline, explanation and action together, for "does it say X" checks.
    fn text(s: &Said) -> String {
        format!("{} | {} | {}", s.headline, s.explanation, s.action)
    }

    #[test]
    fn no_client_before_the_first_tcp_connection() {
        let mut snap = Snapshot::default();
        snap.link.kind = LinkKind::Tcp {
            listen: "127.0.0.1:5555".into(),
        };
        let s = decide(&snap);
        assert_eq!(s.state, PageState::NoClient);
        assert_eq!(s.actor, Actor::VisionClient);
        assert!(s.action.contains("127.0.0.1:5555"), "{s:?}");
        snap.link.connection = Some(1);
        assert_eq!(decide(&snap).state, PageState::NoGame);
    }

    #[test]
    fn no_game() {
        let s = decide(&Snapshot::default());
        assert_eq!(s.state, PageState::NoGame);
        assert_eq!(s.actor, Actor::VisionClient);
        assert_eq!(s.reply, None);
        let mut snap = Snapshot::default();
        snap.status.diagnosis =
            Some("error no-game no game: send newgame or position first".into());
        snap.last_reply = snap.status.diagnosis.clone();
        let s = decide(&snap);
        assert_eq!(s.state, PageState::NoGame);
        assert!(s.explanation.contains("refused"), "{s:?}");
    }

    #[test]
    fn set_up_after_newgame() {
        let mut snap = game(GameState::Start, Side::Player);
        snap.status.side = None;
        snap.status.seen = None;
        let s = decide(&snap);
        assert_eq!(s.state, PageState::SetUp);
        assert_eq!(s.actor, Actor::Person);
    }

    #[test]
    fn bot_to_move_waits_for_the_board() {
        let s = decide(&game(GameState::Bot, Side::Bot));
        assert_eq!(s.state, PageState::BotToMove);
        assert_eq!(s.actor, Actor::VisionClient);
    }

    #[test]
    fn thinking_shows_no_earlier_reply_and_names_the_move_read() {
        // The person played F2 E3; the board before it got `unchanged`.
        let mut snap = game(GameState::Search, Side::Player);
        snap.moves = vec![crate::rules::any_size::MoveInfo {
            path: vec![Coord::new(5, 2), Coord::new(4, 3)],
            captured: Vec::new(),
            crowns: false,
        }];
        snap.last_reply = Some("unchanged".into());
        let s = decide(&snap);
        assert_eq!(s.state, PageState::Thinking);
        assert_eq!(
            s.reply, None,
            "the earlier board's reply is not this board's"
        );
        assert_eq!(s.actor, Actor::Nobody);
        assert!(s.explanation.contains("F2 E3"), "{s:?}");
        assert!(!text(&s).contains("person is to move"), "{s:?}");
        // The bot moving first: no person's move to name.
        let s = decide(&game(GameState::Search, Side::Bot));
        assert_eq!(s.state, PageState::Thinking);
        assert!(!s.explanation.contains("person's move"), "{s:?}");
    }

    #[test]
    fn arm_to_move_names_the_move() {
        let s = decide(&arm());
        assert_eq!(s.state, PageState::ArmToMove);
        assert_eq!(s.actor, Actor::Arm);
        assert!(
            s.headline.contains("C5 D4") && s.action.contains("C5 D4"),
            "{s:?}"
        );
        assert_eq!(s.reply.as_deref(), Some("move C5 D4"));
    }

    #[test]
    fn arm_incomplete_says_the_arm_must_finish() {
        let reply = "error arm-incomplete C5,D4: the arm has not completed move C5 D4 (the board differs from the position after it)";
        let s = decide(&refused(arm(), START, reply));
        assert_eq!(s.state, PageState::ArmIncomplete);
        assert_eq!(s.actor, Actor::Arm);
        assert!(s.action.contains("C5 D4"), "{s:?}");
        assert_eq!(s.reply.as_deref(), Some(reply));
        // The wrong man crowned: the reply's own instruction.
        let reply = "error arm-incomplete A1,A3: the arm has not completed move B2 A1 crown: the man on A1 is not crowned and the man on A3 was crowned instead; make A3 a man again and crown A1";
        let s = decide(&refused(arm(), START, reply));
        assert_eq!(s.action, "Make A3 a man again and crown A1.");
    }

    #[test]
    fn a_misread_after_the_bots_move_is_the_cameras_not_the_arms() {
        // The arm made C5 D4, but the camera lost the man on H0 (issue 53).
        let lost = "_b_b_b_b/b_b_b_b_/_b_b___b/____b___/________/p_p_p_p_/_p_p_p_p/__p_p_p_";
        let reply = "error illegal-transition H0: misread: a piece vanished from H0 with no move to explain it; check the camera and the board";
        let s = decide(&refused(arm(), lost, reply));
        assert_eq!(s.state, PageState::CheckCamera);
        assert_eq!(s.actor, Actor::Operator);
        assert!(s.headline.contains("H0"), "{s:?}");
        assert!(s.explanation.contains("looks made"), "{s:?}");
        assert!(!text(&s).contains("must make"), "{s:?}");
        assert_eq!(s.action, "Check the camera and the board.");
        // The same misread before the arm moved: the move is still to make.
        let lost_before = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/__p_p_p_";
        let s = decide(&refused(arm(), lost_before, reply));
        assert_eq!(s.state, PageState::CheckCamera);
        assert!(s.explanation.contains("still to make"), "{s:?}");
    }

    #[test]
    fn a_misread_or_an_unreadable_board_in_the_persons_turn_is_the_cameras() {
        let seen = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p___p_p/p_p_p_p_";
        let reply = "error illegal-transition G3: misread: a piece vanished from G3 with no move to explain it; check the camera and the board";
        let s = decide(&refused(game(GameState::Person, Side::Player), seen, reply));
        assert_eq!(s.state, PageState::CheckCamera);
        assert!(s.headline.ends_with("on G3"), "{s:?}");
        assert!(s.explanation.contains("as it was"), "{s:?}");
        let reply = "error bad-board the board is 4x4 but the game is 8x8";
        let s = decide(&refused(game(GameState::Person, Side::Player), seen, reply));
        assert_eq!(s.state, PageState::CheckCamera);
        assert_eq!(s.headline, "Check the camera: its board cannot be read");
        assert_eq!(
            s.explanation.split(". ").next(),
            Some("The board is 4x4 but the game is 8x8")
        );
    }

    #[test]
    fn a_move_against_the_rules_is_for_the_person_to_put_back() {
        let reply = "error illegal-transition D2,F2: not-diagonal: the piece on F2 moved to D2, which is not along a diagonal; put it back";
        let s = decide(&refused(
            game(GameState::Person, Side::Player),
            START,
            reply,
        ));
        assert_eq!(s.state, PageState::NotAllowed);
        assert_eq!(s.actor, Actor::Person);
        assert_eq!(s.action, "Put it back.");
        assert_eq!(
            s.explanation,
            "The piece on F2 moved to D2, which is not along a diagonal."
        );
        // The bot's piece moved by the arm to a wrong square: the arm's to put back.
        let reply = "error illegal-transition E3,E5: bots-piece: the bot's piece moved from E5 to E3; put it back";
        let s = decide(&refused(arm(), START, reply));
        assert_eq!((s.state, s.actor), (PageState::NotAllowed, Actor::Arm));
        // Nothing explains the board.
        let reply = "error illegal-transition B0,E5,F6: unexplained: no legal move by p leads from the expected position to this board";
        let s = decide(&refused(
            game(GameState::Person, Side::Player),
            START,
            reply,
        ));
        assert_eq!(s.state, PageState::NotAllowed);
        assert_eq!(s.headline, "The board does not fit the game");
    }

    #[test]
    fn a_move_under_way() {
        let reply = "wait lifted E3: the piece from E3 is in the air; put it down";
        let s = decide(&refused(
            game(GameState::Person, Side::Player),
            START,
            reply,
        ));
        assert_eq!(s.state, PageState::MoveUnderWay);
        assert_eq!(s.explanation, "The piece from E3 is in the air.");
        assert_eq!(s.action, "Put it down.");
    }

    #[test]
    fn the_person_to_move_after_the_bots_move() {
        let mut snap = arm();
        snap.status.state = GameState::Person;
        snap.status.expect = None;
        snap.status.position = Some(AFTER.into());
        snap.status.seen = Some(AFTER.into());
        snap.last_reply = Some("unchanged".into());
        let s = decide(&snap);
        assert_eq!(s.state, PageState::PersonToMove);
        assert!(s.explanation.contains("The bot played C5 D4"), "{s:?}");
        assert_eq!(s.reply.as_deref(), Some("unchanged"));
    }

    #[test]
    fn game_over_says_who_won_and_how_to_go_on() {
        let mut snap = game(GameState::Over, Side::Player);
        snap.status.result = Some(Status::Win { winner: Side::Bot });
        let s = decide(&snap);
        assert_eq!(s.state, PageState::GameOver);
        assert_eq!(s.headline, "Game over: the bot wins");
        assert!(s.action.contains("start position"), "{s:?}");
        snap.new_game_from_board = false;
        snap.status.result = Some(Status::DrawRepetition);
        let s = decide(&snap);
        assert_eq!(s.headline, "Game over: a draw");
        assert!(!s.action.contains("start position"), "{s:?}");
    }

    /// Every daemon state with every kind of diagnosis: the headline and the text below it never
    /// disagree on who acts, and every page state is reached.
    #[test]
    fn headline_and_explanation_agree_in_every_combination() {
        let replies = [
            None,
            Some("wait lifted E3: the piece from E3 is in the air; put it down"),
            Some("error arm-incomplete C5,D4: the arm has not completed move C5 D4 (the board differs from the position after it)"),
            Some("error illegal-transition H0: misread: a piece vanished from H0 with no move to explain it; check the camera and the board"),
            Some("error illegal-transition D2,F2: not-diagonal: the piece on F2 moved to D2, which is not along a diagonal; put it back"),
            Some("error illegal-transition E3,E5: bots-piece: the bot's piece moved from E5 to E3; put it back"),
            Some("error illegal-transition B0: unexplained: no legal move by p leads from the expected position to this board"),
            Some("error bad-board the board is 4x4 but the game is 8x8"),
            Some("error game-over G1,H0: the game is over (win p nomoves); set up the start position on the board, or send newgame or position"),
            Some("error no-game no game: send newgame or position first"),
        ];
        let mut reached = HashSet::new();
        for state in GameState::ALL {
            for reply in replies {
                for tcp in [None, Some(1)] {
                    let mut snap = arm();
                    snap.status.state = state;
                    if state == GameState::Over {
                        snap.status.result = Some(Status::Win {
                            winner: Side::Player,
                        });
                    }
                    snap.status.diagnosis = reply.map(str::to_string);
                    if let Some(r) = reply {
                        snap.last_reply = Some(r.into());
                    }
                    snap.link.kind = LinkKind::Tcp {
                        listen: "127.0.0.1:5555".into(),
                    };
                    snap.link.connection = tcp;
                    let s = decide(&snap);
                    reached.insert(s.state);
                    let all = text(&s);
                    let what = format!("{state:?} {reply:?}: {s:?}");
                    assert!(!s.headline.is_empty() && !s.action.is_empty(), "{what}");
                    assert!(!s.headline.ends_with('.'), "{what}");
                    assert!(s.action.ends_with('.'), "{what}");
                    // The bot thinking never shows an earlier board's reply or a person to move.
                    if s.state == PageState::Thinking {
                        assert_eq!(s.reply, None, "{what}");
                        assert!(!all.contains("person is to move"), "{what}");
                    }
                    // Only the arm's states tell the arm to make the move.
                    if all.contains("arm is to make") || all.contains("Make the move") {
                        assert_eq!(s.actor, Actor::Arm, "{what}");
                    }
                    // A board the daemon refused is never shown as the game going on as usual.
                    if reply.is_some_and(|r| r.starts_with("error ") && !r.contains("no-game"))
                        && state != GameState::Search
                        && tcp.is_some()
                    {
                        assert!(
                            !matches!(
                                s.state,
                                PageState::ArmToMove
                                    | PageState::PersonToMove
                                    | PageState::BotToMove
                                    | PageState::SetUp
                            ),
                            "{what}"
                        );
                    }
                    // The state is the first of the table that holds: the daemon's search
                    // and a missing client come before anything a board said.
                    match (tcp, state) {
                        (None, _) => assert_eq!(s.state, PageState::NoClient, "{what}"),
                        (_, GameState::Search) => {
                            assert_eq!(s.state, PageState::Thinking, "{what}")
                        }
                        (_, GameState::NoGame) => assert_eq!(s.state, PageState::NoGame, "{what}"),
                        (_, GameState::Over) => assert_eq!(s.state, PageState::GameOver, "{what}"),
                        _ => {}
                    }
                }
            }
        }
        let all: HashSet<PageState> = PageState::ALL.into_iter().collect();
        assert_eq!(reached, all);
    }

    #[test]
    fn state_words_are_distinct() {
        let words: HashSet<&str> = PageState::ALL.iter().map(|s| s.word()).collect();
        assert_eq!(words.len(), PageState::ALL.len());
    }
}
