//! Engine-against-engine matches: two players (engine configurations or a random-move player) play
//! a number of games from one starting position, with colours alternating and seeded random opening
//! moves so that the games differ; the statistics add up to a table with wins, losses, draws, an Elo
//! difference with its 95% error margin, and the engines' search figures.
//!
//! Games are played in pairs: games 1 and 2 start with the same opening, and in game 1 player A
//! moves first, in game 2 player B does. The opening is either random plies or the next ballot of a
//! deck ([`MatchOptions::ballots`], e.g. the ACF 3-move deck of [`crate::rules::openings`]); with a
//! deck the table also counts each player's losses with the side that made the ballot's first move
//! and with the other. Games are adjudicated by [`Game::status`] (no legal move loses, threefold
//! repetition and the no-progress rule draw) and drawn at a ply cap.
//!
//! ```
//! use checkersbot::play::arena::{run_match, MatchOptions, PlayerKind, PlayerSpec};
//! use checkersbot::rules::any_size::AnyPosition;
//! use checkersbot::engine::{EngineConfig, Limits};
//! use checkersbot::rules::geometry::BoardSize;
//! use checkersbot::rules::position::Side;
//!
//! let engine = PlayerSpec {
//!     name: "depth 3".into(),
//!     kind: PlayerKind::Engine {
//!         config: EngineConfig::default(),
//!         limits: Limits { depth: Some(3), ..Limits::default() },
//!         misstep: None,
//!     },
//! };
//! let random = PlayerSpec { name: "random".into(), kind: PlayerKind::Random };
//! let opts = MatchOptions {
//!     games: 2,
//!     ..MatchOptions::new(AnyPosition::initial(BoardSize::S6, Side::Bot))
//! };
//! let (stats, games) = run_match(&engine, &random, &opts, &mut |_, _| true);
//! assert_eq!(stats.a_wins, 2);
//! assert_eq!(games.len(), 2);
//! ```

use crate::engine::clock::{AfterBook, Budget, TimeControl};
use crate::engine::egdb::Egdb;
use crate::engine::{Engine, EngineConfig, Limits};
use crate::play::level::{choose_move, Misstep};
use crate::play::student::Student;
use crate::rng::Rng;
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::game::{Game, Status};
use crate::rules::openings::Ballot;
use crate::rules::position::Side;
use std::fmt;
use std::fmt::Write as _;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What kind of player takes part in a match.
// Built once per match: the engine's settings are kept inline rather than boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerKind {
    /// The engine with these settings and limits for every move.
    Engine {
        /// Settings (weights, threads, table size, seed).
        config: EngineConfig,
        /// Limits for each move.
        limits: Limits,
        /// Occasional second-best moves (a level's, see [`crate::play::level`]), or none.
        misstep: Option<Misstep>,
    },
    /// A player that picks a uniformly random legal move (seeded by the match seed).
    Random,
    /// The re-created student engine ([`crate::play::student`]) with this table size and these limits.
    Student {
        /// Transposition table size in MiB.
        hash_mb: usize,
        /// Limits for each move (move time, depth, nodes).
        limits: Limits,
    },
}

/// A named player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSpec {
    /// Name for the tables and the game records.
    pub name: String,
    /// What plays.
    pub kind: PlayerKind,
}

/// How a match is played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchOptions {
    /// Number of games.
    pub games: usize,
    /// The starting position, with the side that moves first.
    pub start: AnyPosition,
    /// Random plies played from the start before the players take over (0 = every game pair
    /// starts from `start`); not used when `ballots` is not empty.
    pub opening_plies: usize,
    /// Fixed openings, e.g. a deck's ballots: when not empty, game pair `k` (games `2k+1` and
    /// `2k+2`) opens with `ballots[k]` (cycling when there are more pairs), whose moves are played
    /// from `start` (the deck's start).
    pub ballots: Vec<Ballot>,
    /// Seed for the openings and the random player.
    pub seed: u64,
    /// A game still going after this many plies (openings included) is drawn.
    pub max_plies: usize,
    /// Player A (an engine) ponders: while B searches its move, A searches the position B faces
    /// (all of B's replies) on a thread of its own, without a time limit, until B has moved; A's
    /// own search then finds the table warm. A's time per move is unchanged.
    pub ponder_a: bool,
    /// Game clocks of A and B (engines only; `None`: the player's move limits apply). With a
    /// clock, each move's budget comes from the time left ([`TimeControl::budget`]: its hard limit
    /// is the move time, its soft limit the search's), the time a move took is taken off and the
    /// increment added; a player whose clock runs out loses ([`Ending::Time`]).
    pub clocks: [Option<TimeControl>; 2],
    /// Adjudication by an endgame database: a game ends at the first position it holds (after
    /// the opening), with the database's exact result ([`Ending::Database`]). Both players still
    /// search with their own databases, if any; this only spares the plies of an ending whose
    /// result is already known.
    pub adjudicate: Option<Arc<Egdb>>,
    /// More time early in the game for A and B (engines without a clock): while the game is
    /// before the ply, the player's move comes from a search of this time, made by a second
    /// engine of the same settings with a table of its own, so that the rest of the game is
    /// played as it would be after a book's moves. It measures what deeper opening play, such as
    /// a deep book's, is worth.
    pub early: [Option<EarlyTime>; 2],
    /// More time for A's and B's first moves out of the book ([`AfterBook`]): under a clock,
    /// taken from the later moves; with a time per move, from what the game's book moves left
    /// unspent.
    pub after_book: [Option<AfterBook>; 2],
}

/// A time per move for the first plies of a game ([`MatchOptions::early`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EarlyTime {
    /// The time per move.
    pub movetime: Duration,
    /// It applies to moves made at game plies (the opening's included) below this one.
    pub before_ply: usize,
}

impl std::str::FromStr for EarlyTime {
    type Err = String;

    /// `MS:PLY`, e.g. `2000:23`.
    fn from_str(text: &str) -> Result<EarlyTime, String> {
        let bad = || {
            format!("early time must be MS:PLY (e.g. 2000:23: 2 s a move before ply 23), MS from 1 to 3600000 and PLY from 1 to 1000, not '{text}'")
        };
        let (ms, ply) = text.split_once(':').ok_or_else(bad)?;
        let ms: u64 = ms.trim().parse().map_err(|_| bad())?;
        let ply: usize = ply.trim().parse().map_err(|_| bad())?;
        if !(1..=3_600_000).contains(&ms) || !(1..=1000).contains(&ply) {
            return Err(bad());
        }
        Ok(EarlyTime {
            movetime: Duration::from_millis(ms),
            before_ply: ply,
        })
    }
}

impl fmt::Display for EarlyTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.movetime.as_millis(), self.before_ply)
    }
}

impl MatchOptions {
    /// Options for one game pair from `start`: 2 games, no random opening, seed 1, 300 plies.
    pub fn new(start: AnyPosition) -> MatchOptions {
        MatchOptions {
            games: 2,
            start,
            opening_plies: 0,
            ballots: Vec::new(),
            seed: 1,
            max_plies: 300,
            ponder_a: false,
            clocks: [None, None],
            adjudicate: None,
            early: [None, None],
            after_book: [None, None],
        }
    }
}

/// Why a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The loser had no legal move (no pieces left, or all blocked).
    NoMoves,
    /// The same position for the third time.
    Repetition,
    /// 40 moves each without a capture or a man's move.
    NoProgress,
    /// The ply cap of the match.
    MaxPlies,
    /// The loser's game clock ran out.
    Time,
    /// The endgame database of [`MatchOptions::adjudicate`] holds the position: its result.
    Database,
}

impl Ending {
    /// A short description.
    pub fn describe(self) -> &'static str {
        match self {
            Ending::NoMoves => "no legal moves",
            Ending::Repetition => "threefold repetition",
            Ending::NoProgress => "no-progress rule",
            Ending::MaxPlies => "ply cap",
            Ending::Time => "out of time",
            Ending::Database => "endgame database",
        }
    }
}

/// The result of one game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The side that won, or `None` for a draw.
    pub winner: Option<Side>,
    /// Why the game ended.
    pub ending: Ending,
}

/// One finished game of a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Game number, from 1.
    pub number: usize,
    /// The position the game started from (before the opening plies).
    pub start: AnyPosition,
    /// How many of `moves` were the opening (random plies or a ballot).
    pub opening_plies: usize,
    /// The number of the ballot the game opened with ([`MatchOptions::ballots`]), if any.
    pub ballot: Option<usize>,
    /// Every ply of the game, the opening included.
    pub moves: Vec<MoveInfo>,
    /// The side player A played.
    pub a_side: Side,
    /// The result.
    pub outcome: Outcome,
}

impl GameRecord {
    /// Player A's score: 1 for a win, 0.5 for a draw, 0 for a loss.
    pub fn score_a(&self) -> f64 {
        match self.outcome.winner {
            None => 0.5,
            Some(w) if w == self.a_side => 1.0,
            Some(_) => 0.0,
        }
    }
}

/// Search figures of one player over a match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerStats {
    /// Moves the player chose (opening plies excluded).
    pub moves: u64,
    /// Nodes searched.
    pub nodes: u64,
    /// Beta cut-offs.
    pub beta_cutoffs: u64,
    /// Transposition-table hits.
    pub tt_hits: u64,
    /// Deepest completed iteration of any move.
    pub max_depth: u32,
    /// Sum of the completed depths (for the average).
    pub depth_sum: u64,
    /// Time spent choosing moves.
    pub time: Duration,
    /// The longest a move took.
    pub max_time: Duration,
    /// Moves played from the opening book (no search).
    pub book_moves: u64,
}

impl PlayerStats {
    /// Adds one search's figures.
    fn record(&mut self, nodes: u64, beta_cutoffs: u64, tt_hits: u64, depth: u32, time: Duration) {
        self.nodes += nodes;
        self.beta_cutoffs += beta_cutoffs;
        self.tt_hits += tt_hits;
        self.max_depth = self.max_depth.max(depth);
        self.depth_sum += u64::from(depth);
        self.time += time;
        self.max_time = self.max_time.max(time);
    }

    /// Moves the player searched for: its moves but those from the book (which take no time and
    /// no nodes, and would pull every average per move down by the book's share).
    pub fn searched(&self) -> u64 {
        self.moves.saturating_sub(self.book_moves)
    }

    /// Average time per searched move ([`Self::searched`]).
    pub fn time_per_move(&self) -> Duration {
        match self.searched() {
            0 => Duration::ZERO,
            n => self.time.div_f64(n as f64),
        }
    }

    /// Average completed depth per searched move ([`Self::searched`]).
    pub fn avg_depth(&self) -> f64 {
        match self.searched() {
            0 => 0.0,
            n => self.depth_sum as f64 / n as f64,
        }
    }

    /// Average nodes per searched move ([`Self::searched`]).
    pub fn nodes_per_move(&self) -> u64 {
        self.nodes.checked_div(self.searched()).unwrap_or(0)
    }
}

/// An Elo difference estimated from game scores, with its 95% error margin.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EloEstimate {
    /// Mean score of the first player (0..1).
    pub score: f64,
    /// Elo difference (positive: the first player is stronger); infinite at a score of 0 or 1.
    pub diff: f64,
    /// Half the width of the 95% confidence interval, in Elo; infinite when the interval reaches a
    /// score of 0 or 1.
    pub margin: f64,
}

impl fmt::Display for EloEstimate {
    /// E.g. `+35.2 +/- 40.1`, `+inf`, `-inf`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.diff.is_infinite() {
            return write!(f, "{}inf", if self.diff > 0.0 { "+" } else { "-" });
        }
        if self.margin.is_infinite() {
            write!(f, "{:+.1} +/- inf", self.diff)
        } else {
            write!(f, "{:+.1} +/- {:.1}", self.diff, self.margin)
        }
    }
}

/// The Elo difference that makes `score` (0..1) the expected score: `-400 log10(1/score - 1)`.
/// Infinite at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// Estimates the Elo difference from per-game scores (1, 0.5, 0) of the first player. The margin
/// comes from the standard deviation of the scores: the mean score plus or minus 1.96 standard
/// errors, turned into Elo, half the distance between the two. `None` without games.
pub fn elo_estimate(scores: &[f64]) -> Option<EloEstimate> {
    if scores.is_empty() {
        return None;
    }
    let n = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let var = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n;
    let se = (var / n).sqrt();
    let lo = mean - 1.96 * se;
    let hi = mean + 1.96 * se;
    let margin = if scores.len() < 2 || lo <= 0.0 || hi >= 1.0 {
        f64::INFINITY
    } else {
        (elo_from_score(hi) - elo_from_score(lo)) / 2.0
    };
    Some(EloEstimate {
        score: mean,
        // Adding zero turns -0.0 into 0.0, so an even score prints as +0.0.
        diff: elo_from_score(mean) + 0.0,
        margin,
    })
}

/// The running totals of a match.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchStats {
    /// Games finished.
    pub games: usize,
    /// Games player A won.
    pub a_wins: usize,
    /// Games player B won.
    pub b_wins: usize,
    /// Drawn games.
    pub draws: usize,
    /// Plies of all games (openings included).
    pub plies: u64,
    /// Player A's scores, game by game.
    pub scores: Vec<f64>,
    /// Player A's search figures.
    pub a: PlayerStats,
    /// Player B's search figures.
    pub b: PlayerStats,
    /// Nodes player A searched while pondering ([`MatchOptions::ponder_a`]).
    pub a_ponder_nodes: u64,
    /// Whether the games opened with fixed openings (a deck's ballots): the table then shows the
    /// losses by opening side.
    pub ballots: bool,
    /// Losses of A and B with the side that made the opening's first move (the side to move at
    /// the start: a ballot's first mover).
    pub losses_as_opener: [usize; 2],
    /// Losses of A and B with the other side.
    pub losses_as_replier: [usize; 2],
}

impl MatchStats {
    /// Player A's Elo difference over B.
    pub fn elo(&self) -> Option<EloEstimate> {
        elo_estimate(&self.scores)
    }

    /// Average plies per game.
    pub fn plies_per_game(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.plies as f64 / self.games as f64
        }
    }

    /// Player A's points (wins plus half the draws).
    pub fn a_points(&self) -> f64 {
        self.a_wins as f64 + self.draws as f64 / 2.0
    }

    fn add(&mut self, record: &GameRecord) {
        self.games += 1;
        self.plies += record.moves.len() as u64;
        let s = record.score_a();
        self.scores.push(s);
        if s == 1.0 {
            self.a_wins += 1;
        } else if s == 0.0 {
            self.b_wins += 1;
        } else {
            self.draws += 1;
        }
        if let Some(winner) = record.outcome.winner {
            let loser = winner.opponent();
            let who = usize::from(loser != record.a_side);
            if loser == record.start.side() {
                self.losses_as_opener[who] += 1;
            } else {
                self.losses_as_replier[who] += 1;
            }
        }
    }

    /// The final table, with the players' names.
    pub fn table(&self, a_name: &str, b_name: &str) -> String {
        let mut out = String::new();
        let elo = self
            .elo()
            .map_or_else(|| "n/a".to_string(), |e| e.to_string());
        let _ = writeln!(
            out,
            "{} games: {a_name} {}-{}-{} {b_name} (wins-losses-draws), score {:.1}/{} ({:.1}%), Elo {elo}",
            self.games,
            self.a_wins,
            self.b_wins,
            self.draws,
            self.a_points(),
            self.games,
            if self.games == 0 { 0.0 } else { 100.0 * self.a_points() / self.games as f64 },
        );
        let _ = writeln!(
            out,
            "average {:.1} plies ({:.1} moves each) per game",
            self.plies_per_game(),
            self.plies_per_game() / 2.0
        );
        let width = a_name.len().max(b_name.len()).max(6);
        let _ = writeln!(
            out,
            "{:<width$} {:>6} {:>12} {:>12} {:>11} {:>11} {:>9} {:>9} {:>10} {:>8}",
            "player",
            "moves",
            "nodes",
            "nodes/move",
            "betacuts",
            "tthits",
            "maxdepth",
            "avgdepth",
            "ms/move",
            "max ms"
        );
        for (name, s) in [(a_name, &self.a), (b_name, &self.b)] {
            let _ = writeln!(
                out,
                "{:<width$} {:>6} {:>12} {:>12} {:>11} {:>11} {:>9} {:>9.1} {:>10.1} {:>8}",
                name,
                s.moves,
                s.nodes,
                s.nodes_per_move(),
                s.beta_cutoffs,
                s.tt_hits,
                s.max_depth,
                s.avg_depth(),
                s.time_per_move().as_secs_f64() * 1000.0,
                s.max_time.as_millis()
            );
        }
        if self.ballots {
            let decisive = self.a_wins + self.b_wins;
            let opener_lost = self.losses_as_opener[0] + self.losses_as_opener[1];
            let _ = writeln!(
                out,
                "losses by opening side: {a_name} {} with the side that made the ballot's first move, {} with the other; \
                 {b_name} {} and {}; the first mover won {} of {decisive} decisive games",
                self.losses_as_opener[0],
                self.losses_as_replier[0],
                self.losses_as_opener[1],
                self.losses_as_replier[1],
                decisive - opener_lost,
            );
        }
        if self.a.book_moves + self.b.book_moves > 0 {
            let per_game = |n: u64| n as f64 / self.games.max(1) as f64;
            let _ = writeln!(
                out,
                "moves from the book: {a_name} {} ({:.1} a game), {b_name} {} ({:.1} a game); \
                 the figures a move above are of the searched moves",
                self.a.book_moves,
                per_game(self.a.book_moves),
                self.b.book_moves,
                per_game(self.b.book_moves),
            );
        }
        if self.a_ponder_nodes > 0 {
            let _ = writeln!(
                out,
                "{a_name} pondered {} nodes ({} per move of {b_name})",
                self.a_ponder_nodes,
                self.a_ponder_nodes.checked_div(self.b.moves).unwrap_or(0)
            );
        }
        out
    }
}

/// The progress line printed after each game.
pub fn progress_line(
    record: &GameRecord,
    stats: &MatchStats,
    a_name: &str,
    b_name: &str,
    total: usize,
) -> String {
    let (first, second) = if record.a_side == record.start.side() {
        (a_name, b_name)
    } else {
        (b_name, a_name)
    };
    let result = match record.outcome.winner {
        None => "draw".to_string(),
        Some(w) if w == record.a_side => format!("{a_name} wins as {w}"),
        Some(w) => format!("{b_name} wins as {w}"),
    };
    let ballot = record
        .ballot
        .map_or_else(String::new, |b| format!(" (ballot {b})"));
    format!(
        "game {}/{}{ballot}: {first} first vs {second}: {result} ({}, {} plies); {a_name} {}-{}-{} {b_name}",
        record.number,
        total,
        record.outcome.ending.describe(),
        record.moves.len(),
        stats.a_wins,
        stats.b_wins,
        stats.draws
    )
}

/// How long a player's move may take.
#[derive(Copy, Clone, Debug)]
enum MoveTime {
    /// Its own limits.
    Own,
    /// A game clock's budget.
    Clock(Budget),
    /// An early move's time, searched by the second engine ([`MatchOptions::early`]).
    Early(Duration),
    /// A longer time per move for a move out of the book ([`MatchOptions::after_book`]).
    Longer(Duration),
}

enum Player {
    /// The engine, its limits, its missteps, and a second engine of the same settings for
    /// [`MatchOptions::early`] moves.
    Engine(Box<Engine>, Limits, Option<Misstep>, Option<Box<Engine>>),
    Random,
    Student(Box<Student>, Limits),
}

impl Player {
    /// The player of `spec`; `early`: an engine gets its second engine for early moves.
    fn of(spec: &PlayerSpec, early: bool) -> Player {
        match &spec.kind {
            PlayerKind::Engine {
                config,
                limits,
                misstep,
            } => Player::Engine(
                Box::new(Engine::new(config.clone())),
                limits.clone(),
                *misstep,
                early.then(|| Box::new(Engine::new(config.clone()))),
            ),
            PlayerKind::Random => Player::Random,
            PlayerKind::Student { hash_mb, limits } => {
                Player::Student(Box::new(Student::new(*hash_mb)), limits.clone())
            }
        }
    }

    fn new_game(&mut self) {
        match self {
            Player::Engine(e, _, _, early) => {
                e.new_game();
                if let Some(e) = early {
                    e.new_game();
                }
            }
            Player::Student(s, _) => s.new_game(),
            Player::Random => {}
        }
    }

    /// Searches the position the opponent faces until `stop` is set (an engine only; depth
    /// limited like its own moves). Returns the nodes searched.
    fn ponder(&mut self, game: &Game, stop: &AtomicBool) -> u64 {
        match self {
            Player::Engine(engine, limits, _, _) => {
                let ponder_limits = Limits {
                    movetime: None,
                    depth: limits.depth,
                    nodes: None,
                };
                let r = engine.search(
                    game.current(),
                    &game.history_keys(),
                    &ponder_limits,
                    stop,
                    &mut |_| {},
                );
                r.info.nodes
            }
            Player::Random | Player::Student(..) => 0,
        }
    }

    /// The player's time per move, if it has one (an engine with a move time).
    fn movetime(&self) -> Option<Duration> {
        match self {
            Player::Engine(_, limits, _, _) => limits.movetime,
            Player::Random | Player::Student(..) => None,
        }
    }

    /// The player's move, in the time `time` gives (engines only; the others use their own).
    fn choose(
        &mut self,
        game: &Game,
        rng: &mut Rng,
        stats: &mut PlayerStats,
        time: MoveTime,
    ) -> Option<MoveInfo> {
        stats.moves += 1;
        match self {
            Player::Random => {
                let moves = game.current().legal_moves();
                let i = rng.below(moves.len());
                moves.into_iter().nth(i)
            }
            Player::Engine(main, limits, misstep, early_engine) => {
                let stop = AtomicBool::new(false);
                // Early moves come from the second engine, so that its long searches leave
                // nothing in the table of the engine that plays the rest of the game.
                let (engine, movetime, soft) = match time {
                    MoveTime::Clock(b) => (main, Some(b.hard), Some(b.soft)),
                    MoveTime::Early(t) => (early_engine.as_mut().unwrap_or(main), Some(t), None),
                    MoveTime::Longer(t) => (main, Some(t), None),
                    MoveTime::Own => (main, None, None),
                };
                let timed;
                let limits = match movetime {
                    Some(t) => {
                        timed = Limits {
                            movetime: Some(t),
                            ..limits.clone()
                        };
                        &timed
                    }
                    None => &*limits,
                };
                let r = choose_move(
                    engine,
                    game.current(),
                    &game.history_keys(),
                    limits,
                    soft,
                    *misstep,
                    rng,
                    &stop,
                    &mut |_| {},
                );
                let i = &r.info;
                stats.record(i.nodes, i.beta_cutoffs, i.tt_hits, i.depth, i.time);
                stats.book_moves += u64::from(i.book);
                r.best
            }
            Player::Student(student, limits) => {
                let r = student.search(game.current(), limits);
                stats.record(r.nodes, r.beta_cutoffs, r.tt_hits, r.depth, r.time);
                r.best
            }
        }
    }
}

/// Random opening plies from `start`, avoiding openings that end the game. Fewer plies when the
/// position runs out of moves.
pub fn random_opening(start: &AnyPosition, plies: usize, rng: &mut Rng) -> Vec<MoveInfo> {
    let mut best = Vec::new();
    for _attempt in 0..20 {
        let mut game = Game::new(*start);
        let mut moves = Vec::new();
        while moves.len() < plies && game.status() == Status::Ongoing {
            let legal = game.current().legal_moves();
            let m = legal[rng.below(legal.len())].clone();
            game.play(&m);
            moves.push(m);
        }
        if game.status() == Status::Ongoing {
            return moves;
        }
        if moves.len() > best.len() {
            best = moves;
        }
    }
    // Every attempt ended the game: keep the opening one ply short of its end.
    best.pop();
    best
}

fn outcome_of(status: Status) -> Option<Outcome> {
    match status {
        Status::Ongoing => None,
        Status::Win { winner } => Some(Outcome {
            winner: Some(winner),
            ending: Ending::NoMoves,
        }),
        Status::DrawRepetition => Some(Outcome {
            winner: None,
            ending: Ending::Repetition,
        }),
        Status::DrawNoProgress => Some(Outcome {
            winner: None,
            ending: Ending::NoProgress,
        }),
    }
}

/// The database's result for the game's position, if it holds it.
fn adjudicated(db: &Egdb, game: &Game) -> Option<Outcome> {
    let pos = game.current();
    Some(Outcome {
        winner: db.probe_any(pos)?.winner(pos.side()),
        ending: Ending::Database,
    })
}

/// Plays the match. `on_game` is called after each game with its record and the totals so far,
/// and returns whether to go on: `false` ends the match there (e.g. when the operator stops it),
/// with the games played so far. Returns the totals and every game played.
pub fn run_match(
    a: &PlayerSpec,
    b: &PlayerSpec,
    opts: &MatchOptions,
    on_game: &mut dyn FnMut(&GameRecord, &MatchStats) -> bool,
) -> (MatchStats, Vec<GameRecord>) {
    let mut players = [
        Player::of(a, opts.early[0].is_some()),
        Player::of(b, opts.early[1].is_some()),
    ];
    let mut stats = MatchStats {
        ballots: !opts.ballots.is_empty(),
        ..MatchStats::default()
    };
    let mut records = Vec::with_capacity(opts.games);
    let mut opening_rng = Rng::new(opts.seed);
    let mut play_rng = Rng::new(opts.seed ^ 0xA5A5_5A5A_0F0F_F0F0);
    let mut opening = Vec::new();
    let mut ballot = None;
    for g in 0..opts.games {
        if g % 2 == 0 {
            if opts.ballots.is_empty() {
                opening = random_opening(&opts.start, opts.opening_plies, &mut opening_rng);
            } else {
                let b = &opts.ballots[(g / 2) % opts.ballots.len()];
                opening = b.moves.clone();
                ballot = Some(b.number);
            }
        }
        let first = opts.start.side();
        let a_side = if g % 2 == 0 { first } else { first.opponent() };
        let mut game = Game::new(opts.start);
        for m in &opening {
            game.play(m);
        }
        for p in players.iter_mut() {
            p.new_game();
        }
        // Each clocked player's time left and moves played this game.
        let mut clock_left = opts.clocks.map(|c| c.map_or(Duration::ZERO, |tc| tc.base));
        let mut clock_moves = [0u32; 2];
        // Each player's moves out of the book this game, and the time its book moves left.
        let mut out_of_book = [0u32; 2];
        let mut bank = [Duration::ZERO; 2];
        let outcome = loop {
            if let Some(o) = outcome_of(game.status()) {
                break o;
            }
            if let Some(o) = opts
                .adjudicate
                .as_ref()
                .and_then(|db| adjudicated(db, &game))
            {
                break o;
            }
            if game.plies() >= opts.max_plies {
                break Outcome {
                    winner: None,
                    ending: Ending::MaxPlies,
                };
            }
            let side = game.current().side();
            let who = usize::from(side != a_side);
            let after_book = opts.after_book[who];
            let own_movetime = players[who].movetime();
            let time = match (opts.clocks[who], after_book) {
                (Some(tc), Some(ab)) => MoveTime::Clock(ab.budget(
                    &tc,
                    clock_left[who],
                    clock_moves[who],
                    out_of_book[who],
                )),
                (Some(tc), None) => MoveTime::Clock(tc.budget(clock_left[who], clock_moves[who])),
                (None, _) => match opts.early[who].filter(|e| game.plies() < e.before_ply) {
                    Some(e) => MoveTime::Early(e.movetime),
                    None => match (after_book, own_movetime) {
                        (Some(ab), Some(t)) if ab.applies(out_of_book[who]) => {
                            MoveTime::Longer(ab.movetime(t, bank[who], out_of_book[who]))
                        }
                        _ => MoveTime::Own,
                    },
                },
            };
            let book_moves_before = [stats.a.book_moves, stats.b.book_moves][who];
            let started = Instant::now();
            let chosen = if side == a_side {
                players[0].choose(&game, &mut play_rng, &mut stats.a, time)
            } else if opts.ponder_a {
                // B searches while A ponders on the same position, each on its own thread.
                let [pa, pb] = &mut players;
                let stop = AtomicBool::new(false);
                let (stop_ref, game_ref) = (&stop, &game);
                std::thread::scope(|scope| {
                    let pondering = scope.spawn(move || pa.ponder(game_ref, stop_ref));
                    let m = pb.choose(&game, &mut play_rng, &mut stats.b, time);
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    if let Ok(nodes) = pondering.join() {
                        stats.a_ponder_nodes += nodes;
                    }
                    m
                })
            } else {
                players[1].choose(&game, &mut play_rng, &mut stats.b, time)
            };
            let took = started.elapsed();
            let from_book = [stats.a.book_moves, stats.b.book_moves][who] > book_moves_before;
            if let Some(t) = own_movetime {
                if from_book {
                    bank[who] += t.saturating_sub(took);
                } else {
                    bank[who] = bank[who].saturating_sub(took.saturating_sub(t));
                }
            }
            if !from_book {
                out_of_book[who] += 1;
            }
            if let Some(tc) = opts.clocks[who] {
                clock_moves[who] += 1;
                match tc.after_move(clock_left[who], took, clock_moves[who]) {
                    Some(left) => clock_left[who] = left,
                    None => {
                        break Outcome {
                            winner: Some(side.opponent()),
                            ending: Ending::Time,
                        }
                    }
                }
            }
            match chosen {
                Some(m) if game.play(&m).is_some() => {}
                // No move, or a move the rules refuse: the mover loses.
                _ => {
                    break Outcome {
                        winner: Some(side.opponent()),
                        ending: Ending::NoMoves,
                    }
                }
            }
        };
        let record = GameRecord {
            number: g + 1,
            start: opts.start,
            opening_plies: opening.len(),
            ballot,
            moves: game.moves().to_vec(),
            a_side,
            outcome,
        };
        stats.add(&record);
        let go_on = on_game(&record, &stats);
        records.push(record);
        if !go_on {
            break;
        }
    }
    (stats, records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::geometry::BoardSize;

    fn random_player() -> PlayerSpec {
        PlayerSpec {
            name: "r".into(),
            kind: PlayerKind::Random,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 0.05
    }

    #[test]
    fn early_time_reads_ms_and_ply_and_refuses_the_rest() {
        let e: EarlyTime = "2000:23".parse().unwrap();
        assert_eq!(e.movetime, Duration::from_millis(2000));
        assert_eq!(e.before_ply, 23);
        assert_eq!(e.to_string(), "2000:23");
        for bad in [
            "",
            "2000",
            "2000:",
            ":23",
            "0:23",
            "2000:0",
            "x:1",
            "3600001:5",
            "5:1001",
        ] {
            let err = bad.parse::<EarlyTime>().unwrap_err();
            assert!(err.contains("MS:PLY") && err.contains(bad), "{bad}: {err}");
        }
    }

    #[test]
    fn elo_of_scores() {
        assert_eq!(elo_from_score(0.5), 0.0);
        // 75% is about +190.8 Elo, 25% the same below.
        assert!(close(elo_from_score(0.75), 190.85));
        assert!(close(elo_from_score(0.25), -190.85));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn elo_estimate_and_margin() {
        assert!(elo_estimate(&[]).is_none());
        // 30 wins, 10 losses: score 0.75, sd 0.433, se 0.0685, interval 0.616..0.884, +/- 135.6.
        let mut scores = vec![1.0; 30];
        scores.extend([0.0; 10]);
        let e = elo_estimate(&scores).unwrap();
        assert!(close(e.score, 0.75));
        assert!(close(e.diff, 190.85));
        let expect = (elo_from_score(0.75 + 1.96 * 0.068_465)
            - elo_from_score(0.75 - 1.96 * 0.068_465))
            / 2.0;
        assert!(
            (e.margin - expect).abs() < 0.5,
            "{} vs {}",
            e.margin,
            expect
        );
        assert!((e.margin - 135.6).abs() < 0.1, "{}", e.margin);
        assert_eq!(e.to_string(), format!("+190.8 +/- {:.1}", e.margin));
        // All draws: no difference, no spread.
        let d = elo_estimate(&[0.5; 10]).unwrap();
        assert_eq!((d.diff, d.margin), (0.0, 0.0));
        assert_eq!(
            elo_estimate(&[1.0, 0.0]).unwrap().to_string(),
            "+0.0 +/- inf"
        );
        // All wins: infinite.
        let w = elo_estimate(&[1.0; 10]).unwrap();
        assert_eq!(w.to_string(), "+inf");
        // Symmetric: B's view is the negation.
        let mut flipped = vec![0.0; 30];
        flipped.extend([1.0; 10]);
        let f = elo_estimate(&flipped).unwrap();
        assert!(close(f.diff, -e.diff) && close(f.margin, e.margin));
    }

    #[test]
    fn openings_are_seeded_and_colours_alternate() {
        let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
        let o1 = random_opening(&start, 6, &mut Rng::new(3));
        let o2 = random_opening(&start, 6, &mut Rng::new(3));
        assert_eq!(o1, o2);
        assert_eq!(o1.len(), 6);
        let random = random_player();
        let opts = MatchOptions {
            games: 4,
            opening_plies: 4,
            max_plies: 40,
            ..MatchOptions::new(start)
        };
        let (stats, games) = run_match(&random, &random.clone(), &opts, &mut |_, _| true);
        assert_eq!(stats.games, 4);
        assert_eq!(stats.a_wins + stats.b_wins + stats.draws, 4);
        let sides: Vec<Side> = games.iter().map(|g| g.a_side).collect();
        assert_eq!(sides, [Side::Bot, Side::Player, Side::Bot, Side::Player]);
        // Pairs share their opening; the two pairs differ.
        assert_eq!(games[0].moves[..4], games[1].moves[..4]);
        assert_ne!(games[0].moves[..4], games[2].moves[..4]);
        assert!(games.iter().all(|g| g.moves.len() <= 40));
    }

    /// `on_game` returning false ends the match after that game: the totals and records hold
    /// the games played, and they are the same games as the longer match's first ones.
    #[test]
    fn a_match_stops_after_the_game_its_caller_refuses_to_go_on_from() {
        let random = random_player();
        let opts = MatchOptions {
            games: 6,
            opening_plies: 2,
            max_plies: 60,
            seed: 5,
            ..MatchOptions::new(AnyPosition::initial(BoardSize::S8, Side::Bot))
        };
        let mut seen = 0;
        let (stats, games) = run_match(&random, &random.clone(), &opts, &mut |r, s| {
            seen += 1;
            assert_eq!((r.number, s.games), (seen, seen));
            seen < 3
        });
        assert_eq!(seen, 3);
        assert_eq!(stats.games, 3);
        assert_eq!(stats.a_wins + stats.b_wins + stats.draws, 3);
        let (_, all) = run_match(&random, &random.clone(), &opts, &mut |_, _| true);
        assert_eq!(all.len(), 6);
        let moves = |g: &[GameRecord]| g.iter().map(|r| r.moves.clone()).collect::<Vec<_>>();
        assert_eq!(moves(&games), moves(&all[..3]));
    }

    /// A range of the ACF deck plays each ballot twice, colours swapped, in order; the table
    /// counts every loss once, by the side the loser had.
    #[test]
    fn a_deck_range_plays_each_ballot_twice_with_colours_swapped() {
        let spec: crate::rules::openings::DeckSpec = "acf3:5-7".parse().expect("spec");
        let deck = spec.deck().expect("deck");
        let ballots = spec.ballots().expect("ballots");
        let random = random_player();
        let opts = MatchOptions {
            games: 2 * ballots.len(),
            ballots: ballots.clone(),
            opening_plies: 4,
            max_plies: 200,
            seed: 3,
            ..MatchOptions::new(deck.start())
        };
        let (stats, games) = run_match(&random, &random.clone(), &opts, &mut |_, _| true);
        assert_eq!(games.len(), 6);
        let numbers: Vec<Option<usize>> = games.iter().map(|g| g.ballot).collect();
        assert_eq!(numbers, [5, 5, 6, 6, 7, 7].map(Some));
        for (g, record) in games.iter().enumerate() {
            let b = &ballots[g / 2];
            assert_eq!(record.opening_plies, 3);
            assert_eq!(record.moves[..3], b.moves[..], "game {}", g + 1);
            let a_first = record.a_side == Side::Bot;
            assert_eq!(a_first, g % 2 == 0);
        }
        assert!(stats.ballots);
        let losses: usize = stats.losses_as_opener.iter().sum::<usize>()
            + stats.losses_as_replier.iter().sum::<usize>();
        assert_eq!(losses, stats.a_wins + stats.b_wins);
        let a_losses = stats.losses_as_opener[0] + stats.losses_as_replier[0];
        assert_eq!(a_losses, stats.b_wins);
        let table = stats.table("r1", "r2");
        assert!(table.contains("losses by opening side: r1 "), "{table}");
        let line = progress_line(&games[2], &stats, "r1", "r2", 6);
        assert!(
            line.starts_with("game 3/6 (ballot 6): r1 first vs r2"),
            "{line}"
        );
    }

    #[test]
    fn engine_beats_the_random_player_every_game() {
        let engine = PlayerSpec {
            name: "engine".into(),
            kind: PlayerKind::Engine {
                config: EngineConfig::default(),
                limits: Limits {
                    depth: Some(4),
                    ..Limits::default()
                },
                misstep: None,
            },
        };
        let random = PlayerSpec {
            name: "random".into(),
            kind: PlayerKind::Random,
        };
        let opts = MatchOptions {
            games: 6,
            opening_plies: 2,
            seed: 11,
            ..MatchOptions::new(AnyPosition::initial(BoardSize::S8, Side::Bot))
        };
        let mut lines = Vec::new();
        let (stats, _) = run_match(&engine, &random, &opts, &mut |r, s| {
            lines.push(progress_line(r, s, "engine", "random", 6));
            true
        });
        assert_eq!(stats.a_wins, 6, "{lines:#?}");
        assert!(stats.a.nodes > 0 && stats.a.max_depth >= 4);
        assert_eq!(stats.b.nodes, 0);
        assert_eq!(lines.len(), 6);
        assert!(
            lines[5].starts_with("game 6/6: random first vs engine: engine wins"),
            "{}",
            lines[5]
        );
        let table = stats.table("engine", "random");
        assert!(table.contains("6 games: engine 6-0-0 random"), "{table}");
        assert!(table.contains("Elo +inf"), "{table}");
    }

    /// Moves the engine takes from its book are counted, and the table says how many.
    #[test]
    fn book_moves_are_counted() {
        let book = crate::engine::book::Book::builtin().expect("the built-in book reads");
        let engine = PlayerSpec {
            name: "booked".into(),
            kind: PlayerKind::Engine {
                config: EngineConfig {
                    book: Some(Arc::new(book)),
                    ..EngineConfig::default()
                },
                limits: Limits {
                    depth: Some(2),
                    ..Limits::default()
                },
                misstep: None,
            },
        };
        let random = PlayerSpec {
            name: "random".into(),
            kind: PlayerKind::Random,
        };
        let opts = MatchOptions {
            games: 2,
            opening_plies: 0,
            max_plies: 6,
            seed: 5,
            ..MatchOptions::new(AnyPosition::initial(BoardSize::S8, Side::Bot))
        };
        let (stats, _) = run_match(&engine, &random, &opts, &mut |_, _| true);
        // The game where the engine moves first starts in the book.
        assert!(stats.a.book_moves >= 1, "{:?}", stats.a);
        assert!(stats.a.book_moves <= stats.a.moves);
        assert_eq!(stats.b.book_moves, 0);
        let table = stats.table("booked", "random");
        assert!(table.contains("moves from the book: booked "), "{table}");
        // The averages a move are over the searched moves (depth 2 at most, an only move 0).
        let a = &stats.a;
        assert!(
            a.searched() >= 1 && a.searched() + a.book_moves == a.moves,
            "{a:?}"
        );
        assert!(a.avg_depth() > 0.0 && a.avg_depth() <= 2.0, "{a:?}");
    }

    /// A player's averages a move leave its book moves out; with no searched move they are 0.
    #[test]
    fn averages_a_move_are_over_the_searched_moves() {
        let mut s = PlayerStats::default();
        s.record(1_000, 0, 0, 10, Duration::from_millis(90));
        s.record(3_000, 0, 0, 14, Duration::from_millis(110));
        s.moves = 2;
        assert_eq!((s.avg_depth(), s.nodes_per_move()), (12.0, 2_000));
        assert_eq!(s.time_per_move(), Duration::from_millis(100));
        // Two book moves: no nodes, depth 0, no time to speak of.
        s.record(0, 0, 0, 0, Duration::ZERO);
        s.record(0, 0, 0, 0, Duration::ZERO);
        s.moves += 2;
        s.book_moves = 2;
        assert_eq!(s.searched(), 2);
        assert_eq!((s.avg_depth(), s.nodes_per_move()), (12.0, 2_000));
        assert_eq!(s.time_per_move(), Duration::from_millis(100));
        let only_book = PlayerStats {
            moves: 3,
            book_moves: 3,
            ..PlayerStats::default()
        };
        assert_eq!(only_book.time_per_move(), Duration::ZERO);
        assert_eq!(
            (only_book.avg_depth(), only_book.nodes_per_move()),
            (0.0, 0)
        );
    }

    /// With an endgame database adjudicating, a game ends at the first position the database
    /// holds, with the database's result; before it, no position of the game is one it holds.
    #[test]
    fn a_database_adjudicates_at_the_first_position_it_holds() {
        use crate::engine::egdb::Value;
        let (dir, db) = crate::engine::egdb::build::small_test_db("arena");
        let opts = MatchOptions {
            games: 20,
            opening_plies: 2,
            seed: 9,
            adjudicate: Some(Arc::clone(&db)),
            ..MatchOptions::new(AnyPosition::initial(BoardSize::S6, Side::Bot))
        };
        let (stats, games) = run_match(&random_player(), &random_player(), &opts, &mut |_, _| true);
        assert_eq!(stats.games, 20);
        let mut adjudicated = 0;
        for g in &games {
            let mut game = Game::new(g.start);
            for (i, m) in g.moves.iter().enumerate() {
                if i >= g.opening_plies {
                    assert_eq!(
                        db.probe_any(game.current()),
                        None,
                        "game {}, ply {i}",
                        g.number
                    );
                }
                game.play(m);
            }
            let last = game.current();
            if g.outcome.ending == Ending::Database {
                adjudicated += 1;
                let winner = match db.probe_any(last) {
                    Some(Value::Win(_)) => Some(last.side()),
                    Some(Value::Loss(_)) => Some(last.side().opponent()),
                    Some(Value::Draw) => None,
                    None => panic!("game {}: adjudicated outside the database", g.number),
                };
                assert_eq!(g.outcome.winner, winner, "game {}", g.number);
            }
        }
        assert!(
            adjudicated >= 10,
            "most random games reach 4 pieces: {adjudicated}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// An engine on a game clock (no move time, no depth) takes its budgets from the time left:
    /// it wins every game against the random player without running out, each move well inside
    /// what a clock of 2 s and 0.1 s a move allows.
    #[test]
    fn an_engine_on_a_clock_plays_within_it() {
        let engine = PlayerSpec {
            name: "engine".into(),
            kind: PlayerKind::Engine {
                config: EngineConfig::default(),
                limits: Limits::default(),
                misstep: None,
            },
        };
        let random = PlayerSpec {
            name: "random".into(),
            kind: PlayerKind::Random,
        };
        let clock: TimeControl = "2+0.1".parse().unwrap();
        let opts = MatchOptions {
            games: 2,
            opening_plies: 2,
            seed: 5,
            clocks: [Some(clock), None],
            ..MatchOptions::new(AnyPosition::initial(BoardSize::S6, Side::Bot))
        };
        let (stats, games) = run_match(&engine, &random, &opts, &mut |_, _| true);
        assert_eq!(stats.a_wins, 2);
        assert!(games.iter().all(|g| g.outcome.ending == Ending::NoMoves));
        // Searched by time, not a depth limit: deeper than the 6 plies of the default depth.
        assert!(stats.a.max_depth > 6, "{:?}", stats.a);
        // No move can take more than 4/5 of the 2.1 s the clock can hold after the first.
        let most = Duration::from_millis(1680) * u32::try_from(stats.a.moves).unwrap();
        assert!(stats.a.time < most, "{:?}", stats.a);
    }

    #[test]
    fn student_beats_the_random_player_and_plays_the_engine() {
        let student = PlayerSpec {
            name: "student".into(),
            kind: PlayerKind::Student {
                hash_mb: 1,
                limits: Limits {
                    depth: Some(4),
                    ..Limits::default()
                },
            },
        };
        let random = PlayerSpec {
            name: "random".into(),
            kind: PlayerKind::Random,
        };
        let opts = MatchOptions {
            games: 4,
            opening_plies: 2,
            seed: 5,
            ..MatchOptions::new(AnyPosition::initial(BoardSize::S8, Side::Bot))
        };
        let (stats, _) = run_match(&student, &random, &opts, &mut |_, _| true);
        assert_eq!(stats.a_wins, 4, "{}", stats.table("student", "random"));
        assert!(stats.a.nodes > 0 && stats.a.max_depth == 4 && stats.a.moves > 0);
        assert!(stats.a.depth_sum > 0 && stats.a.tt_hits > 0);
        // Against the engine on 6x6: the games finish and every move was legal (a refused move
        // would end the game as a loss with fewer plies than the games really had).
        let engine = PlayerSpec {
            name: "engine".into(),
            kind: PlayerKind::Engine {
                config: EngineConfig::default(),
                limits: Limits {
                    depth: Some(3),
                    ..Limits::default()
                },
                misstep: None,
            },
        };
        let opts = MatchOptions {
            games: 2,
            opening_plies: 2,
            max_plies: 120,
            ..MatchOptions::new(AnyPosition::initial(BoardSize::S6, Side::Bot))
        };
        let (stats, games) = run_match(&engine, &student, &opts, &mut |_, _| true);
        assert_eq!(stats.games, 2);
        for g in &games {
            let mut game = Game::new(g.start);
            for m in &g.moves {
                assert!(game.play(m).is_some(), "illegal move {m}");
            }
            let ended = outcome_of(game.status());
            assert!(
                ended == Some(g.outcome) || g.outcome.ending == Ending::MaxPlies,
                "{:?} vs {:?}",
                g.outcome,
                game.status()
            );
        }
        assert!(stats.b.nodes > 0 && stats.b.max_depth >= 3);
    }
}
