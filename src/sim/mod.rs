//! A software robot: whole games against a real daemon through its real transports, with a
//! simulated camera, person and arm whose faults come at set rates, judged against the true board.
//!
//! The simulator knows the board as it really is (the true game, kept with the rules' own
//! [`Game`]); the camera sends that board, or a faulty frame ([`faults`]); the daemon's reply to
//! every frame is judged against the truth: a move command must be legal on the true board and
//! answer a frame that showed it; a faulty frame must be refused, and its reply should name the
//! squares the fault touched; a clean frame must be answered as the true board requires. The
//! counts ([`report::Report`]) make the summary table and the JSON report of `checkersbot
//! simulate`. Each game has its own seed (the run's seed and the game's number), which also seeds
//! the daemon's own dice, and by default its own daemon, so a failure reproduces alone with
//! `--seed S --first-game G --games 1` (given a depth limit and no move time).
//!
//! - [`faults`]: the fault rates and the faulty boards (pure);
//! - [`link`]: the daemon as a child process, on a pipe, a pseudo-terminal serial link or TCP;
//! - [`report`]: the judge's counts, the table and the JSON.
//!
//! May import: [`crate::rules`], [`crate::camera`] (the nearest explanation, to tell whether a
//! misread frame has a unique one), [`crate::daemon::protocol`] (to read replies) and
//! [`crate::rng`].

pub mod faults;
pub mod link;
pub mod report;

use crate::daemon::protocol::Reply;
use crate::rng::Rng;
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::board::Grid;
use crate::rules::game::Game;
use crate::rules::geometry::{parse_coord, BoardSize, Coord};
use crate::rules::position::Side;
use faults::{happens, Fault, Frame, Rates};
use link::{Daemon, Transport};
use report::Report;
use std::path::PathBuf;
use std::time::Duration;

/// A simulation run's settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// Games to play.
    pub games: u64,
    /// The number of the first game (its seed follows from it).
    pub first_game: u64,
    /// The run's seed.
    pub seed: u64,
    /// The board size.
    pub size: BoardSize,
    /// The daemon's transport.
    pub transport: Transport,
    /// The fault rates.
    pub rates: Rates,
    /// The daemon's program (`PROGRAM serve ARGS`).
    pub program: PathBuf,
    /// The daemon's arguments after `serve` (the search limits, then the caller's own).
    pub daemon_args: Vec<String>,
    /// The `set` requests that give the daemon back its search limits after a link fault's long
    /// search.
    pub restore: Vec<String>,
    /// Daemons playing at once.
    pub jobs: usize,
    /// Each job plays all its games on one daemon, game after game (as at a fair); else every
    /// game has a daemon of its own, so that it replays alone.
    pub one_daemon: bool,
    /// The camera looks from the other side: frames are sent rotated (and the daemon is told so).
    pub rotated: bool,
    /// The camera tells colours only (the daemon runs with `--colour-only`): frames show men
    /// everywhere but on the crowning rows, and faults only a crown would show are not made.
    pub colour_only: bool,
    /// How long a reply may take.
    pub patience: Duration,
    /// Plies after which a game counts as finished without an end.
    pub max_plies: usize,
    /// Working directory for the serial links' names.
    pub dir: PathBuf,
}

/// The search time a link fault's move is given, so that the link can break while it runs.
const PULL_SEARCH_MS: u64 = 500;
/// When the link breaks after the frame was sent, and how long it stays broken.
const PULL_AFTER: Duration = Duration::from_millis(100);
const PULL_FOR: Duration = Duration::from_millis(150);
/// How long a slow reader pauses before it reads.
const SLOW_PAUSE: Duration = Duration::from_millis(300);

/// Plays the run's games (in `jobs` threads, each with its own daemon) and adds up the reports.
pub fn run(cfg: &Config) -> Report {
    let jobs = cfg.jobs.max(1);
    let reports: Vec<Report> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs)
            .map(|j| s.spawn(move || run_job(cfg, j, jobs)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    let mut r = Report::default();
                    r.problem("a simulation thread failed".into());
                    r.replies_lost += 1;
                    r
                })
            })
            .collect()
    });
    let mut total = Report::default();
    for r in &reports {
        total.add(r);
    }
    total
}

/// The games `first_game + j, + j + jobs, ...` on one daemon (started again after a game that
/// left it in doubt).
fn run_job(cfg: &Config, j: usize, jobs: usize) -> Report {
    let mut total = Report::default();
    let mut daemon: Option<Daemon> = None;
    let mut g = cfg.first_game + j as u64;
    let dir = cfg.dir.join(format!("job{j}"));
    while g < cfg.first_game + cfg.games {
        if daemon.is_none() {
            // The daemon's own dice (the easy level's slips, the book's choice among near-equal
            // moves) follow from the game's seed, or the job's first game's with --one-daemon.
            let mut args = cfg.daemon_args.clone();
            if !args
                .iter()
                .any(|a| a == "--seed" || a.starts_with("--seed="))
            {
                args.push("--seed".into());
                args.push(game_seed(cfg.seed, g).to_string());
            }
            match Daemon::start(&cfg.program, &args, cfg.transport, &dir) {
                Ok(d) => daemon = Some(d),
                Err(e) => {
                    total.games += 1;
                    total.replies_lost += 1;
                    total.problem(format!("game {g}: the daemon did not start: {e}"));
                    g += jobs as u64;
                    continue;
                }
            }
        }
        let Some(d) = daemon.as_mut() else { continue };
        let mut sim = Sim {
            d,
            cfg,
            rng: Rng::new(game_seed(cfg.seed, g)),
            r: Report::default(),
            game: g,
            last_final: String::new(),
            pending: Vec::new(),
        };
        let clean = sim.play();
        total.add(&sim.r);
        if !clean || !cfg.one_daemon {
            if let Some(d) = daemon.take() {
                d.stop();
            }
        }
        g += jobs as u64;
    }
    if let Some(d) = daemon {
        d.stop();
    }
    total
}

/// The seed of game `g` of a run seeded `seed`.
fn game_seed(seed: u64, g: u64) -> u64 {
    seed ^ g.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Why a game stopped before its end.
#[derive(Debug)]
struct Abort;

/// One game's simulation.
struct Sim<'a> {
    d: &'a mut Daemon,
    cfg: &'a Config,
    rng: Rng,
    r: Report,
    game: u64,
    /// The daemon's last final reply, as a `repeat` would give it.
    last_final: String,
    /// Frame numbers of the faults not yet recovered from.
    pending: Vec<u64>,
}

/// The squares a reply names: the comma-separated list after its code (or stage), or else every
/// square named in its words.
fn named_squares(reply: &str, n: usize) -> Vec<Coord> {
    let words: Vec<&str> = reply.split(' ').collect();
    if words.len() > 2 {
        let list = words[2].trim_end_matches(':');
        if words[2].ends_with(':') {
            let parsed: Option<Vec<Coord>> =
                list.split(',').map(|s| parse_coord(s, n).ok()).collect();
            if let Some(mut v) = parsed {
                v.sort();
                v.dedup();
                return v;
            }
        }
    }
    let mut v: Vec<Coord> = reply
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 2 && w.as_bytes()[0].is_ascii_uppercase())
        .filter_map(|w| parse_coord(w, n).ok())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Whether a move is the same as one of `legal` (path and captures).
fn is_legal(mv: &MoveInfo, legal: &[MoveInfo]) -> bool {
    legal
        .iter()
        .any(|m| m.path == mv.path && m.captured == mv.captured)
}

impl Sim<'_> {
    /// Plays the game; false when it stopped in a way that leaves the daemon in doubt (it is
    /// started again for the next game).
    fn play(&mut self) -> bool {
        self.r.games = 1;
        let ok = self.play_inner().is_ok();
        if ok {
            self.r.finished = 1;
        }
        ok
    }

    fn play_inner(&mut self) -> Result<(), Abort> {
        let size = self.cfg.size;
        let reply = self.request(&format!("newgame {}", size.n()))?;
        if reply != "ok" {
            self.r
                .problem(format!("game {}: newgame answered '{reply}'", self.game));
            self.r.clean_refused += 1;
            return Err(Abort);
        }
        let bot_first = self.game % 2 == 1;
        let mut truth = Game::new(AnyPosition::initial(
            size,
            if bot_first { Side::Bot } else { Side::Player },
        ));
        if bot_first {
            let start = truth.current().grid();
            let reply = self.clean_frame(&start, Side::Bot)?;
            self.bot_moved(&mut truth, &reply)?;
        } else {
            // The person's turn from the start: the camera sees the start.
            let start = truth.current().grid();
            let reply = self.clean_frame(&start, Side::Player)?;
            self.expect(&reply, "unchanged", "the start with the person to move")?;
        }
        loop {
            if truth.status().is_over() {
                return Ok(());
            }
            if truth.plies() >= self.cfg.max_plies {
                self.r.capped = 1;
                return Ok(());
            }
            self.person_turn(&mut truth)?;
        }
    }

    /// Sends one line and reads its final reply.
    fn request(&mut self, line: &str) -> Result<String, Abort> {
        self.d
            .send(line)
            .map_err(|e| self.lost(line, &e.to_string()))?;
        let reply = self.d.final_reply(self.cfg.patience);
        match reply {
            Some(r) => {
                self.last_final = r.clone();
                Ok(r)
            }
            None => Err(self.lost(line, "no reply")),
        }
    }

    fn lost(&mut self, sent: &str, why: &str) -> Abort {
        self.r.replies_lost += 1;
        self.r.problem(format!(
            "game {}: '{sent}' got {why} within {:?} ({})",
            self.game,
            self.cfg.patience,
            self.d.transport().word()
        ));
        Abort
    }

    fn board_line(&self, grid: &Grid, side: Side) -> String {
        let mut g = grid.clone();
        if self.cfg.colour_only {
            // What a camera that sees colours only sends: men, and kings on the crowning rows.
            let n = g.size().n();
            let squares: Vec<Coord> = g.playable().collect();
            for c in squares {
                if let Some(p) = g.get(c) {
                    let crowning = match p.side {
                        Side::Player => 0,
                        Side::Bot => n - 1,
                    };
                    g.set(
                        c,
                        Some(crate::rules::position::Piece {
                            side: p.side,
                            king: usize::from(c.row) == crowning,
                        }),
                    );
                }
            }
        }
        if self.cfg.rotated {
            g = g.rotated();
        }
        format!("board {} {}", g.to_line(), side.letter())
    }

    /// Sends a frame and reads the reply, pausing first when the reader is slow.
    fn send_frame(&mut self, grid: &Grid, side: Side) -> Result<String, Abort> {
        self.r.frames += 1;
        let line = self.board_line(grid, side);
        if happens(&mut self.rng, self.cfg.rates.slow) {
            self.r.slow_reads += 1;
            self.d
                .send(&line)
                .map_err(|e| self.lost(&line, &e.to_string()))?;
            std::thread::sleep(SLOW_PAUSE);
            return match self.d.final_reply(self.cfg.patience) {
                Some(r) => {
                    self.last_final = r.clone();
                    Ok(r)
                }
                None => Err(self.lost(&line, "no reply")),
            };
        }
        self.request(&line)
    }

    /// A clean frame whose reply moves the game on: the faults before it are recovered.
    fn clean_frame(&mut self, grid: &Grid, side: Side) -> Result<String, Abort> {
        let reply = self.send_frame(grid, side)?;
        self.recovered();
        Ok(reply)
    }

    fn recovered(&mut self) {
        let now = self.r.frames;
        for f in self.pending.drain(..) {
            self.r.recovery.push(now - f);
        }
    }

    /// A clean frame's reply must be `want` (its first word).
    fn expect(&mut self, reply: &str, want: &str, what: &str) -> Result<(), Abort> {
        if reply.split(' ').next() == Some(want) {
            return Ok(());
        }
        if reply.starts_with("move ") {
            self.r.commands += 1;
            self.r.wrong_commands += 1;
            self.r.problem(format!(
                "game {}: a move commanded on {what}: '{reply}'",
                self.game
            ));
        } else {
            self.r.clean_refused += 1;
            self.r.problem(format!(
                "game {}: {what} answered '{reply}', not {want}",
                self.game
            ));
        }
        Err(Abort)
    }

    /// A faulty frame: sent, and its reply judged (a move in answer is a wrong command).
    fn fault_frame(&mut self, frame: &Frame, side: Side) -> Result<(), Abort> {
        let Some(fault) = frame.fault else {
            return Ok(());
        };
        let reply = self.send_frame(&frame.grid, side)?;
        self.pending.push(self.r.frames);
        let s = self.r.faults.entry(fault).or_default();
        s.frames += 1;
        if frame.unique {
            s.unique += 1;
        }
        let refused = reply.starts_with("error ") || reply.starts_with("wait ");
        if refused {
            s.refused += 1;
        }
        if fault.names_squares() {
            let named = named_squares(&reply, self.cfg.size.n());
            if named == frame.squares {
                s.named_exactly += 1;
                if frame.unique {
                    s.unique_named_exactly += 1;
                }
            } else {
                if frame.squares.iter().all(|c| named.contains(c)) {
                    s.named_among += 1;
                }
                if frame.unique {
                    let line = format!(
                        "game {}: a {fault} frame with one nearest explanation ({}) was answered '{reply}' ({})",
                        self.game,
                        crate::rules::any_size::join(&frame.squares),
                        self.board_line(&frame.grid, side)
                    );
                    self.r.problem(line);
                }
            }
        }
        if reply.starts_with("move ") || reply.starts_with("gameover") {
            self.r.commands += u64::from(reply.starts_with("move "));
            self.r.wrong_commands += 1;
            self.r.problem(format!(
                "game {}: a {fault} frame was answered '{reply}' ({})",
                self.game,
                self.board_line(&frame.grid, side)
            ));
            return Err(Abort);
        }
        if !refused && self.r.problems.len() < 50 {
            // Not a wrong command, but worth seeing: a fault frame taken as the expected board.
            self.r.problem(format!(
                "game {}: a {fault} frame was answered '{reply}'",
                self.game
            ));
        }
        Ok(())
    }

    /// What the camera sends for the true board `truth`, the daemon expecting `expected` (the
    /// person to move, before their move when `moved`), with the bot's last move while the arm may
    /// not have made it; `over` when the game has ended (the daemon then diagnoses nothing, so no
    /// misread counts as having a unique explanation).
    fn camera(
        &mut self,
        truth: &Grid,
        expected: &AnyPosition,
        arm: Option<(&AnyPosition, &MoveInfo)>,
        moved: bool,
        over: bool,
    ) -> Frame {
        let rates = self.cfg.rates.clone();
        if happens(&mut self.rng, rates.misread) {
            let two = happens(&mut self.rng, rates.misread_two);
            let colour_only = self.cfg.colour_only;
            if let Some((grid, squares)) =
                faults::misread(&mut self.rng, truth, expected, two, colour_only)
            {
                let unique = !over && faults::unique_nearest(expected, arm, &grid, colour_only);
                return Frame {
                    grid,
                    fault: Some(if moved {
                        Fault::MisreadWithMove
                    } else {
                        Fault::Misread
                    }),
                    squares,
                    unique,
                };
            }
        }
        if !self.cfg.colour_only && happens(&mut self.rng, rates.kings) {
            if let Some((grid, squares)) = faults::kings_confused(&mut self.rng, truth) {
                let unique = !over && faults::unique_nearest(expected, arm, &grid, false);
                return Frame {
                    grid,
                    fault: Some(if moved {
                        Fault::KingsWithMove
                    } else {
                        Fault::Kings
                    }),
                    squares,
                    unique,
                };
            }
        }
        Frame::clean(truth.clone())
    }

    /// The person's turn: their faults, their move, the camera's frames until one is clean, and
    /// the bot's reply.
    fn person_turn(&mut self, truth: &mut Game) -> Result<(), Abort> {
        let pos = *truth.current();
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Ok(());
        }
        let mv = moves[self.rng.below(moves.len())].clone();
        let rates = self.cfg.rates.clone();
        let grid = pos.grid();
        if pos.has_capture() && happens(&mut self.rng, rates.forget_capture) {
            if let Some(g) = faults::forgotten_capture(&mut self.rng, &pos) {
                let frame = Frame {
                    grid: g,
                    fault: Some(Fault::ForgotCapture),
                    squares: Vec::new(),
                    unique: false,
                };
                self.fault_frame(&frame, Side::Bot)?;
            }
        }
        let Some(after) = pos.play(&mv) else {
            return Ok(());
        };
        if happens(&mut self.rng, rates.two_moves) {
            // Not a second move that undoes the first or makes a board one move explains.
            let accepted = faults::accepted_boards(&pos);
            let again: Vec<AnyPosition> = after
                .with_side(Side::Player)
                .successors()
                .into_iter()
                .map(|(_, p)| p)
                .filter(|p| !accepted.contains(&p.grid()))
                .collect();
            if !again.is_empty() {
                let twice = &again[self.rng.below(again.len())];
                let frame = Frame {
                    grid: twice.grid(),
                    fault: Some(Fault::TwoMoves),
                    squares: Vec::new(),
                    unique: false,
                };
                self.fault_frame(&frame, Side::Bot)?;
            }
        }
        if happens(&mut self.rng, rates.lifted) {
            let frame = Frame {
                grid: faults::lifted(&grid, &mv),
                fault: Some(Fault::Lifted),
                squares: Vec::new(),
                unique: false,
            };
            self.fault_frame(&frame, Side::Bot)?;
        }
        let after_grid = after.grid();
        loop {
            let frame = self.camera(&after_grid, &pos, None, true, false);
            if frame.fault.is_none() {
                break;
            }
            self.fault_frame(&frame, Side::Bot)?;
        }
        truth.play(&mv);
        let over = truth.status().is_over();
        let reply =
            if !over && self.d.transport() != Transport::Pipe && happens(&mut self.rng, rates.pull)
            {
                self.with_link_fault(&after_grid)?
            } else {
                self.clean_frame(&after_grid, Side::Bot)?
            };
        if over {
            return self.expect(&reply, "gameover", "the person's move that ends the game");
        }
        self.bot_moved(truth, &reply)
    }

    /// The person's move frame with the link broken while the bot searches: a long search is
    /// asked for, the link breaks after [`PULL_AFTER`] (unless the reply has come already) and
    /// comes back after [`PULL_FOR`]; the move must arrive, by itself on a serial link or by
    /// `repeat` over TCP.
    fn with_link_fault(&mut self, grid: &Grid) -> Result<String, Abort> {
        for line in [
            "set depth 0".to_string(),
            format!("set movetime {PULL_SEARCH_MS}"),
        ] {
            let r = self.request(&line)?;
            self.expect(&r, "ok", &line)?;
        }
        let line = self.board_line(grid, Side::Bot);
        self.r.frames += 1;
        let before = self.last_final.clone();
        self.d
            .send(&line)
            .map_err(|e| self.lost(&line, &e.to_string()))?;
        std::thread::sleep(PULL_AFTER);
        let reply = if self.d.has_reply() {
            self.r.link_skipped += 1;
            self.d.final_reply(self.cfg.patience)
        } else {
            self.r.link_faults += 1;
            self.d.pull();
            std::thread::sleep(PULL_FOR);
            self.d
                .replug()
                .map_err(|e| self.lost(&line, &format!("no link back: {e}")))?;
            match self.d.transport() {
                Transport::Serial => match self.d.final_reply(self.cfg.patience) {
                    Some(r) => Some(r),
                    None => self.repeat_until_new(&before),
                },
                _ => self.repeat_until_new(&before),
            }
        };
        let Some(reply) = reply else {
            return Err(self.lost(&line, "no reply after the link came back"));
        };
        self.last_final = reply.clone();
        self.recovered();
        for line in self.cfg.restore.clone() {
            let r = self.request(&line)?;
            self.expect(&r, "ok", &line)?;
        }
        Ok(reply)
    }

    /// `repeat` until the daemon's last final reply is no longer `before` (the search may still
    /// run when the link comes back).
    fn repeat_until_new(&mut self, before: &str) -> Option<String> {
        let end = std::time::Instant::now() + self.cfg.patience;
        while std::time::Instant::now() < end {
            if self.d.send("repeat").is_err() {
                return None;
            }
            if let Some(r) = self.d.final_reply(self.cfg.patience) {
                if r != before {
                    self.r.recovered_by_repeat += 1;
                    return Some(r);
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        None
    }

    /// The daemon answered the person's move with `reply`: it must be a legal move on the true
    /// board; the arm makes it (with its faults), and the camera sends frames until one is clean.
    fn bot_moved(&mut self, truth: &mut Game, reply: &str) -> Result<(), Abort> {
        let Ok(Reply::Move(mv)) = Reply::parse(reply) else {
            self.r.clean_refused += 1;
            self.r.problem(format!(
                "game {}: the bot to move, answered '{reply}'",
                self.game
            ));
            return Err(Abort);
        };
        self.r.commands += 1;
        let before_pos = *truth.current();
        if !is_legal(&mv, &before_pos.legal_moves()) {
            self.r.wrong_commands += 1;
            self.r.problem(format!(
                "game {}: '{reply}' is not legal on the true board {}",
                self.game,
                before_pos.to_line()
            ));
            return Err(Abort);
        }
        let before = before_pos.grid();
        truth.play(&mv);
        self.r.plies = truth.plies() as u64;
        let after_pos = *truth.current();
        let after = after_pos.grid();
        let rates = self.cfg.rates.clone();
        if happens(&mut self.rng, rates.arm_leaves) {
            if let Some((grid, squares)) =
                faults::arm_left_captured(&mut self.rng, &before, &after, &mv)
            {
                let frame = Frame {
                    grid,
                    fault: Some(Fault::ArmLeftCaptured),
                    squares,
                    unique: false,
                };
                self.fault_frame(&frame, Side::Player)?;
            }
        }
        if !self.cfg.colour_only && happens(&mut self.rng, rates.arm_crown) {
            if let Some((grid, squares)) = faults::arm_forgot_crown(&after, &mv) {
                let frame = Frame {
                    grid,
                    fault: Some(Fault::ArmForgotCrown),
                    squares,
                    unique: false,
                };
                self.fault_frame(&frame, Side::Player)?;
            }
        }
        let arm = Some((&before_pos, &mv));
        let over = truth.status().is_over();
        loop {
            let frame = self.camera(&after, &after_pos, arm, false, over);
            if frame.fault.is_none() {
                break;
            }
            self.fault_frame(&frame, Side::Player)?;
        }
        let want = if over { "gameover" } else { "unchanged" };
        let reply = self.clean_frame(&after, Side::Player)?;
        self.expect(&reply, want, "the board after the arm's move")?;
        if happens(&mut self.rng, rates.repeat) {
            self.r.repeated.0 += 1;
            let again = self.send_frame(&after, Side::Player)?;
            if again == reply {
                self.r.repeated.1 += 1;
            } else {
                self.expect(&again, want, "a repeated frame")?;
            }
        }
        if !over && happens(&mut self.rng, rates.stale) {
            let frame = Frame {
                grid: before,
                fault: Some(Fault::Stale),
                squares: Vec::new(),
                unique: false,
            };
            self.fault_frame(&frame, Side::Player)?;
            let reply = self.clean_frame(&after, Side::Player)?;
            self.expect(&reply, "unchanged", "the board after a stale frame")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_squares_a_reply_names() {
        let n = 8;
        let c = |s: &str| parse_coord(s, n).unwrap();
        assert_eq!(
            named_squares(
                "error illegal-transition E5,A3: misread: the move F4 E5 explains every other square; check the camera at A3 (...)",
                n
            ),
            vec![c("A3"), c("E5")]
        );
        assert_eq!(
            named_squares(
                "wait lifted F2: the piece from F2 is in the air; put it down",
                n
            ),
            vec![c("F2")]
        );
        assert_eq!(
            named_squares("error bad-board man 'p' at A1 stands on its crowning row and would already be a king ('P')", n),
            vec![c("A1")]
        );
        assert_eq!(named_squares("unchanged", n), vec![]);
    }
}
