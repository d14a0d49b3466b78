//! The game family of requests: `newgame`, `position`, `board` (the camera game: tracking,
//! diagnosis, orientation help, and the errors worded for the person or the arm), `takeback`
//! and `moves` (the legal moves of a position: the rules stay in one place for clients);
//! and the game records written when a game ends or is abandoned.

use super::event_loop::Daemon;
use super::protocol::{ErrorCode, InfoLine, Layout, ProtocolError, Reply, Setup};
use super::status::Observed;
use crate::camera::orientation;
use crate::camera::tracking::{
    camera_grid, squares_list, AutoNewGame, Diagnosis, Next, Observation, Reading, Rejection,
};
use crate::camera::turn::Hint;
use crate::files::write_atomically;
use crate::rules::any_size::AnyPosition;
use crate::rules::board::{initial_grid, Grid};
use crate::rules::fen::parse_fen;
use crate::rules::game::{Game, Status};
use crate::rules::geometry::BoardSize;
use crate::rules::pdn::{play_moves, read_game, write_game, GameResult, PdnError, RecordInfo};
use crate::rules::position::Side;

impl Daemon {
    /// `board ROWS SIDE`, and what the daemon keeps of it for `status` and the operator page.
    pub(super) fn board_request(&mut self, rows: &str, side: Side) {
        self.board(rows, side);
        // A search started: the board fit the game.
        let reply = self.pending.is_none().then_some(self.last_final.as_deref());
        self.observed.note(rows, &self.settings, reply.flatten());
        self.observed.at = Some(self.received);
        if self.pending.is_none() && self.feed.is_some() {
            self.board_reply = self.last_final.clone();
        }
    }

    /// A new game: the operator page forgets the last search and reply.
    pub(super) fn forget_page_state(&mut self) {
        self.search_view = None;
        self.board_reply = None;
    }

    pub(super) fn newgame(&mut self, layout: Option<Layout>) {
        let start = match layout {
            None => self.start_grid(),
            Some(Layout::Size(size)) => initial_grid(size),
            Some(Layout::Rows(rows)) => match Grid::parse_line(&rows) {
                Ok(g) => g,
                Err(e) => return self.error(ErrorCode::BadBoard, e.to_string()),
            },
        };
        self.record_abandoned("abandoned at newgame");
        self.recorded = false;
        self.settings.size = start.size();
        self.tracker.new_game(start);
        self.observed = Observed::default();
        self.forget_page_state();
        self.reset_clock();
        self.clear_table();
        self.send(&Reply::Ok);
    }

    pub(super) fn position(&mut self, setup: Setup) {
        let game = match self.setup_game(setup) {
            Ok(g) => g,
            Err(e) => return self.send(&e.reply()),
        };
        self.record_abandoned("abandoned at position");
        self.recorded = false;
        self.settings.size = game.current().size();
        self.tracker.set_game(game);
        self.observed = Observed::default();
        self.forget_page_state();
        self.reset_clock();
        self.clear_table();
        self.send(&Reply::Ok);
    }

    /// The start position of `newgame` without arguments: the configured layout or the standard
    /// start of the board size.
    pub(super) fn start_grid(&self) -> Grid {
        self.settings
            .layout
            .clone()
            .unwrap_or_else(|| initial_grid(self.settings.size))
    }

    pub(super) fn board(&mut self, rows: &str, side: Side) {
        let reading = Reading {
            colour_only: self.settings.colour_only,
            strict: self.settings.strict,
        };
        let board = match camera_grid(rows, self.settings.rotated, reading.colour_only) {
            Ok(g) => g,
            Err(e) => {
                let message = match self.orientation_hint(rows, side, reading, false) {
                    Some(hint) => format!("{e}; {hint}"),
                    None => e.to_string(),
                };
                return self.error(ErrorCode::BadBoard, message);
            }
        };
        let start = self.start_grid();
        if self.tracker.starts_new_game(
            &board,
            &start,
            self.settings.auto_newgame,
            reading.colour_only,
        ) {
            tracing::info!(
                "the start position is on the board: a new game ({})",
                self.settings.auto_newgame
            );
            self.record_abandoned("abandoned: the start position was set up on the board");
            self.recorded = false;
            self.tracker.new_game(start);
            self.forget_page_state();
            self.reset_clock();
            self.clear_table();
            self.send(&Reply::Info(InfoLine::NewGame));
        }
        match self.tracker.observe(&board, side, reading) {
            Ok(Observation::Same(next)) => self.next(next),
            Ok(Observation::OpponentMoved(mv, next)) => {
                tracing::info!("opponent played {}", mv.notation());
                self.send(&Reply::Info(InfoLine::Opponent(mv)));
                self.next(next);
            }
            Ok(Observation::MoveInProgress { mv, stage }) => {
                let message = Diagnosis::InProgress {
                    mv,
                    stage: stage.clone(),
                }
                .to_string();
                self.send(&Reply::Wait { stage, message });
            }
            Ok(Observation::Accepted { board, side, next }) => {
                tracing::warn!("lenient mode: accepting an unexplained board as a new position");
                self.send(&Reply::Info(InfoLine::Accepted {
                    rows: board.to_line(),
                    side,
                }));
                self.new_game = true;
                self.next(next);
            }
            Err(rejection) => {
                let rejection = self.with_orientation_hint(rejection, rows, side, reading);
                self.rejected(rejection)
            }
        }
    }

    /// Whether a board that failed as it stands reads right turned, mirrored or flipped.
    pub(super) fn orientation_hint(
        &self,
        rows: &str,
        side: Side,
        reading: Reading,
        could_read: bool,
    ) -> Option<Hint> {
        orientation::hint(
            &self.tracker,
            rows,
            side,
            self.settings.rotated,
            reading,
            could_read,
        )
    }

    /// A rejected board with the camera orientation help, where a turn makes it fit.
    pub(super) fn with_orientation_hint(
        &self,
        rejection: Rejection,
        rows: &str,
        side: Side,
        reading: Reading,
    ) -> Rejection {
        match rejection {
            Rejection::BadBoard(message) => match self.orientation_hint(rows, side, reading, false)
            {
                Some(hint) => Rejection::BadBoard(format!("{message}; {hint}")),
                None => Rejection::BadBoard(message),
            },
            Rejection::IllegalTransition {
                diffs,
                why,
                diagnosis,
            } => {
                let diagnosis = match self.orientation_hint(rows, side, reading, true) {
                    Some(hint) if hint.fits() => Some(Box::new(Diagnosis::Orientation(hint))),
                    _ => diagnosis,
                };
                Rejection::IllegalTransition {
                    diffs,
                    why,
                    diagnosis,
                }
            }
            other => other,
        }
    }

    /// The error reply for a board the tracker rejects.
    pub(super) fn rejected(&mut self, rejection: Rejection) {
        match rejection {
            Rejection::NoGame => {
                self.error(ErrorCode::NoGame, "no game: send newgame or position first")
            }
            Rejection::BadBoard(message) => self.error(ErrorCode::BadBoard, message),
            Rejection::ArmIncomplete { diffs, mv } => self.error(
                ErrorCode::ArmIncomplete,
                format!(
                    "{}: the arm has not completed move {} (the board differs from the position after it)",
                    squares_list(&diffs),
                    Reply::Move(mv).to_string().trim_start_matches("move ")
                ),
            ),
            Rejection::WrongPieceCrowned {
                diffs,
                mv,
                should,
                crowned,
            } => self.error(
                ErrorCode::ArmIncomplete,
                format!(
                    "{}: the arm has not completed move {}: the man on {should} is not crowned \
                     and the man on {crowned} was crowned instead; make {crowned} a man again \
                     and crown {should}",
                    squares_list(&diffs),
                    Reply::Move(mv).to_string().trim_start_matches("move ")
                ),
            ),
            Rejection::IllegalTransition {
                diffs,
                why,
                diagnosis,
            } => {
                // A misread in the same frame as a move names the squares to check, not every
                // square that differs from the expected position.
                let squares = diagnosis
                    .as_ref()
                    .and_then(|d| d.squares_to_check())
                    .unwrap_or(diffs);
                let said = match diagnosis {
                    Some(d) if *d != Diagnosis::Unknown => format!("{}: {d}", d.word()),
                    _ => format!("unexplained: {why}"),
                };
                self.error(
                    ErrorCode::IllegalTransition,
                    format!("{}: {said}", squares_list(&squares)),
                )
            }
            Rejection::AfterGameOver { diffs, status } => {
                let next = match self.settings.auto_newgame {
                    AutoNewGame::Off => "send newgame or position",
                    _ => "set up the start position on the board, or send newgame or position",
                };
                self.error(
                    ErrorCode::GameOver,
                    format!(
                        "{}: the game is over ({status}); {next}",
                        squares_list(&diffs)
                    ),
                )
            }
        }
    }

    /// The board shows the game's current position: game over, the person's turn (unchanged) or
    /// the bot's (search).
    pub(super) fn next(&mut self, next: Next) {
        match next {
            Next::GameOver(status) => self.game_over(status),
            Next::PlayerToMove => self.send(&Reply::Unchanged),
            Next::BotToMove => match self.tracker.game() {
                Some(game) => {
                    let (pos, history) = (*game.current(), game.history_keys());
                    self.start_search(pos, history, self.received);
                }
                None => self.error(ErrorCode::Internal, "no game to search"),
            },
        }
    }

    /// `takeback`: the person's last move and the bot's reply are taken back.
    pub(super) fn take_back(&mut self) {
        if self.tracker.game().is_none() {
            return self.error(
                ErrorCode::NoGame,
                "no game in progress: send newgame and the first board, or position",
            );
        }
        // The position being pondered is no longer the person's.
        self.stop_pondering();
        match self.tracker.take_back() {
            Some(pos) => {
                self.recorded = false;
                self.send(&Reply::Expect {
                    rows: pos.to_line(),
                    side: pos.side(),
                });
            }
            None => self.error(
                ErrorCode::NothingToTakeBack,
                "the person has not moved in this game",
            ),
        }
    }

    /// `moves [SETUP]`: every legal move of the position `SETUP` describes (after its moves, if
    /// it has some) or of the game's current position, as `legal` lines, then `ok`. Reads only:
    /// the game is not touched, and the engine is not needed (answered at once while it works).
    pub(super) fn legal_moves(&mut self, setup: Option<Setup>) {
        let pos = match setup {
            None => match self.tracker.game() {
                Some(game) => *game.current(),
                None => {
                    return self.error(
                        ErrorCode::NoGame,
                        "no game in progress: give a position (moves ROWS SIDE), or send \
                         newgame and the first board, or position",
                    )
                }
            },
            Some(setup) => match self.setup_game(setup) {
                Ok(game) => *game.current(),
                Err(e) => return self.send(&e.reply()),
            },
        };
        for mv in pos.legal_moves() {
            self.send(&Reply::Legal(mv));
        }
        self.send(&Reply::Ok);
    }

    /// The game a `position` (or `analyse`, or `moves`) setup describes, with its history.
    pub(super) fn setup_game(&self, setup: Setup) -> Result<Game, ProtocolError> {
        let base = |setup: &Setup| -> Result<AnyPosition, ProtocolError> {
            let (grid, side) = match setup {
                Setup::Rows { rows, side } => (
                    Grid::parse_line(rows)
                        .map_err(|e| ProtocolError::new(ErrorCode::BadBoard, e.to_string()))?,
                    *side,
                ),
                Setup::Fen(fen) => parse_fen(fen, self.settings.size)
                    .map_err(|e| ProtocolError::new(ErrorCode::BadFen, e.to_string()))?,
                Setup::Start(side) => (initial_grid(self.settings.size), *side),
                Setup::Pdn(_) | Setup::Moves { .. } => {
                    return Err(ProtocolError::new(
                        ErrorCode::Syntax,
                        "a move list follows a position",
                    ))
                }
            };
            Ok(AnyPosition::from_grid(&grid, side))
        };
        let pdn_error = |e: PdnError| match e {
            PdnError::Illegal { .. } => ProtocolError::new(ErrorCode::IllegalMove, e.to_string()),
            PdnError::Fen(_) => ProtocolError::new(ErrorCode::BadFen, e.to_string()),
            _ => ProtocolError::new(ErrorCode::BadPdn, e.to_string()),
        };
        let (start, moves) = match &setup {
            Setup::Pdn(text) => read_game(text).map_err(pdn_error)?,
            Setup::Moves { start, moves } => {
                let start = base(start)?;
                let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
                let moves = play_moves(&start, &texts).map_err(pdn_error)?;
                (start, moves)
            }
            other => (base(other)?, Vec::new()),
        };
        let mut game = Game::new(start);
        for m in &moves {
            if game.play(m).is_none() {
                return Err(ProtocolError::new(
                    ErrorCode::Internal,
                    "a move list did not replay",
                ));
            }
        }
        Ok(game)
    }

    /// Answers `gameover` and writes the record of the game.
    pub(super) fn game_over(&mut self, status: Status) {
        self.record_result(status);
        self.send(&Reply::GameOver(status));
    }

    /// Writes the current game to the record directory, if one is set and the game was not
    /// written yet: `why` says how it ended.
    pub(super) fn write_record(&mut self, result: GameResult, why: &str) {
        let (Some(dir), Some(game)) = (self.settings.record.clone(), self.tracker.game()) else {
            return;
        };
        if self.recorded || (game.plies() == 0 && result == GameResult::Unfinished) {
            return;
        }
        self.recorded = true;
        self.records += 1;
        let mut info = RecordInfo::new("checkersbot serve", self.records, "checkersbot", "person");
        info.comment = format!("{why}; level {}", self.settings.level);
        let text = write_game(&info, game.start(), game.moves(), result);
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let ext = if game.start().size() == BoardSize::S8 {
            "pdn"
        } else {
            "txt"
        };
        let path = dir.join(format!("game-{secs}-{:03}.{ext}", self.records));
        match write_atomically(&path, text.as_bytes()) {
            Ok(()) => tracing::info!("game record written to {}", path.display()),
            Err(e) => tracing::warn!("cannot write the game record {}: {e}", path.display()),
        }
    }

    /// Writes the current game before it is replaced or the daemon ends: unfinished, or with its
    /// result if the bot's last move ended it (its board not seen yet).
    pub(super) fn record_abandoned(&mut self, why: &str) {
        match self.tracker.game().map(Game::status) {
            Some(status) if status.is_over() => self.record_result(status),
            _ => self.write_record(GameResult::Unfinished, why),
        }
    }

    pub(super) fn record_result(&mut self, status: Status) {
        let result = match status {
            Status::Win { winner } => GameResult::Win(winner),
            _ => GameResult::Draw,
        };
        self.write_record(result, &format!("gameover {status}"));
    }
}
