//! Self-play: the engine plays itself from seeded random openings (or a deck's ballots, then the
//! book's lines) at a node budget per move, and
//! every quiet position of every game (no capture pending for the side to move) becomes a training
//! [`Record`] with the game's result and the search score.
//!
//! With an endgame database in the engine's configuration, a game ends as soon as it reaches a
//! position the database holds, with the database's exact result: the games' endings are then
//! labelled by perfect play rather than by how well the engine converts or defends them.
//!
//! Game `g` of a run depends only on the seed and `g`, so a run is deterministic for its seed
//! whatever the number of threads, and `--shard K/N` (games with `g % N == K`) splits the same run
//! over machines with no overlap. Records are written game by game in game order.

use crate::engine::book::Book;
use crate::engine::egdb::Value;
use crate::engine::{Engine, EngineConfig, Limits};
use crate::learn::data::{DataError, Outcome, Record, Writer};
use crate::learn::parallel::in_order;
use crate::rng::Rng;
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::game::{Game, Status};
use crate::rules::geometry::BoardSize;
use crate::rules::openings::Ballot;
use crate::rules::position::Side;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A self-play run.
#[derive(Clone, Debug)]
pub struct SelfPlay {
    /// Board size.
    pub size: BoardSize,
    /// Games in the whole run (over all shards).
    pub games: usize,
    /// This shard (`k` of `n`): the games with `g % n == k`.
    pub shard: (usize, usize),
    /// Seed of the run.
    pub seed: u64,
    /// Nodes per move.
    pub nodes: u64,
    /// Random plies at the start of each game (after the book's, if there is a book).
    pub opening_plies: usize,
    /// Fixed openings (a deck's ballots, 8x8): when not empty, game `g` starts with
    /// `ballots[g % len]` from the 8x8 start (b to move), then follows the book (if any), then
    /// the random plies. Each ballot is played once in every `len` games; with a node budget the
    /// engine is deterministic, so games beyond the first `len` differ only through the book's
    /// random choices (`book` with a margin) or random plies.
    pub ballots: Vec<Ballot>,
    /// A book whose lines start the games: from the start position each game follows the book,
    /// choosing at random (with the game's seed) among the moves within [`SelfPlay::book_margin`]
    /// of the best, until it leaves the book; the random plies come after. The data then holds
    /// the openings a strong opponent plays, varied, rather than only random ones.
    pub book: Option<Arc<Book>>,
    /// Margin of the book's choices in hundredths of a man (0: always the best line).
    pub book_margin: i32,
    /// Varied plies after the opening (ballot, book line and random plies): at each, every legal
    /// move is searched with a tenth of [`SelfPlay::nodes`] and one is chosen at random (with the
    /// game's seed) among those within [`SelfPlay::vary_margin`] of the best. At a node budget
    /// the engine is deterministic, so a deck's ballot otherwise gives the same game every time;
    /// these plies make the games from one ballot differ while staying near the best play.
    pub vary_plies: usize,
    /// Margin of the varied plies' choices, hundredths of a man.
    pub vary_margin: i32,
    /// A game still going after this many plies is a draw.
    pub max_plies: usize,
    /// Win adjudication: a game ends as a win for a side once the searches of both sides have
    /// scored it at least this many hundredths of a man ahead for [`ADJUDICATE_PLIES`] plies in a
    /// row. `None` plays every game out. On large boards the engine converts a won ending slowly,
    /// so games played out to `max_plies` or a draw rule label won positions as draws.
    pub adjudicate: Option<i32>,
    /// Worker threads (each with its own engine).
    pub threads: usize,
    /// The engine's configuration (evaluation, table size).
    pub engine: EngineConfig,
}

/// One finished game's records.
#[derive(Debug)]
pub struct GameData {
    /// The game's index in the run.
    pub index: usize,
    /// Its quiet positions.
    pub records: Vec<Record>,
    /// Plies played.
    pub plies: usize,
    /// Whether the game was adjudicated (see [`SelfPlay::adjudicate`]).
    pub adjudicated: bool,
    /// The database's value of the position the game ended on ([`GameData::last`]), for its side
    /// to move, when the game ended there because the engine's endgame database holds it.
    pub database: Option<Value>,
    /// The position the game ended on.
    pub last: AnyPosition,
    /// The position the game started from (before its opening).
    pub start: AnyPosition,
    /// Every move of the game, the opening included.
    pub moves: Vec<MoveInfo>,
    /// The winner every record is labelled by (`None`: a draw).
    pub winner: Option<Side>,
}

impl GameData {
    /// The game as text ([`crate::learn::games`]): its moves, each recorded position's score,
    /// and its result; read back, it gives [`GameData::records`].
    pub fn text(&self, event: &str) -> String {
        let scored: Vec<(usize, i32)> = self
            .records
            .iter()
            .map(|r| (usize::from(r.ply), i32::from(r.score)))
            .collect();
        crate::learn::games::write_game(
            event,
            self.index + 1,
            &self.start,
            &self.moves,
            &scored,
            self.winner,
        )
    }
}

/// Consecutive plies a side must be scored ahead by the adjudication margin for the game to be
/// adjudicated to it (four moves of each side).
pub const ADJUDICATE_PLIES: usize = 8;

fn game_seed(seed: u64, index: usize) -> u64 {
    seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The game's start: the ballot (when the run has a deck), the book's line (when it has a
/// book), then the random plies.
fn opening(run: &SelfPlay, index: usize, first: Side, rng: &mut Rng) -> Game {
    let mut game = if run.ballots.is_empty() {
        Game::new(AnyPosition::initial(run.size, first))
    } else {
        let ballot = &run.ballots[index % run.ballots.len()];
        let mut game = Game::new(AnyPosition::initial(BoardSize::S8, Side::Bot));
        for m in &ballot.moves {
            game.play(m);
        }
        game
    };
    if let Some(book) = &run.book {
        while !game.status().is_over() {
            let Some(pick) = book.choose(game.current(), run.book_margin, Some(&mut *rng)) else {
                break;
            };
            game.play(&pick.mv);
        }
    }
    // The random opening: uniform legal moves, replayed if it ends the game.
    for _ in 0..run.opening_plies {
        let moves = game.current().legal_moves();
        if moves.is_empty() || game.status().is_over() {
            break;
        }
        let mv = moves[rng.below(moves.len())].clone();
        game.play(&mv);
    }
    game
}

/// Every move of the game's position with its score for the side to move: the engine's
/// analysis of as many lines as there are moves, each line searched with `nodes`.
fn scored_moves(
    engine: &mut Engine,
    game: &Game,
    nodes: u64,
) -> Vec<(crate::rules::any_size::MoveInfo, i32)> {
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let pos = game.current();
    let lines = pos.legal_moves().len();
    let stop = AtomicBool::new(false);
    engine
        .analyse(pos, &game.history_keys(), &limits, lines, &stop)
        .into_iter()
        .filter_map(|r| Some((r.best?, r.info.score.0)))
        .collect()
}

/// The varied plies (see [`SelfPlay::vary_plies`]).
fn vary(run: &SelfPlay, engine: &mut Engine, game: &mut Game, rng: &mut Rng) {
    for _ in 0..run.vary_plies {
        if game.status().is_over() {
            break;
        }
        let scored = scored_moves(engine, game, (run.nodes / 10).max(1));
        let Some(best) = scored.iter().map(|&(_, s)| s).max() else {
            break;
        };
        let near: Vec<_> = scored
            .iter()
            .filter(|&&(_, s)| s >= best - run.vary_margin.max(0))
            .collect();
        let mv = near[rng.below(near.len())].0.clone();
        game.play(&mv);
    }
}

/// Plays game `index` of a run with `engine` (cleared first).
pub fn play_game(run: &SelfPlay, engine: &mut Engine, index: usize) -> GameData {
    let mut rng = Rng::new(game_seed(run.seed, index));
    engine.new_game();
    let first = if rng.chance(1, 2) {
        Side::Bot
    } else {
        Side::Player
    };
    let mut game = opening(run, index, first, &mut rng);
    vary(run, engine, &mut game, &mut rng);
    let limits = Limits {
        nodes: Some(run.nodes),
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    let mut pending: Vec<(AnyPosition, i32, usize)> = Vec::new();
    // The side every search has scored ahead by the margin, and for how many plies in a row.
    let mut ahead: Option<(Side, usize)> = None;
    let mut adjudicated = None;
    let mut database = None;
    while !game.status().is_over() && game.plies() < run.max_plies {
        let pos = *game.current();
        if let Some(v) = run.engine.egdb.as_ref().and_then(|db| db.probe_any(&pos)) {
            database = Some(v);
            break;
        }
        let result = engine.search(&pos, &game.history_keys(), &limits, &stop, &mut |_| {});
        let Some(mv) = result.best else { break };
        let score = result.info.score.0;
        if !pos.has_capture() {
            pending.push((pos, score, game.plies()));
        }
        if let Some(margin) = run.adjudicate {
            let leader = if score >= margin {
                Some(pos.side())
            } else if score <= -margin {
                Some(pos.side().opponent())
            } else {
                None
            };
            ahead = match (leader, ahead) {
                (Some(l), Some((a, n))) if l == a => Some((l, n + 1)),
                (Some(l), _) => Some((l, 1)),
                (None, _) => None,
            };
            if let Some((l, n)) = ahead {
                if n >= ADJUDICATE_PLIES {
                    adjudicated = Some(l);
                    break;
                }
            }
        }
        game.play(&mv);
    }
    let last = *game.current();
    let winner = match (adjudicated, database, game.status()) {
        (Some(side), _, _) => Some(side),
        (None, Some(value), _) => value.winner(last.side()),
        (None, None, Status::Win { winner }) => Some(winner),
        _ => None,
    };
    let records = pending
        .into_iter()
        .map(|(pos, score, ply)| {
            Record::new(&pos, Outcome::for_side(winner, pos.side()), score, ply)
        })
        .collect();
    GameData {
        index,
        records,
        plies: game.plies(),
        adjudicated: adjudicated.is_some(),
        database,
        last,
        start: *game.start(),
        moves: game.moves().to_vec(),
        winner,
    }
}

/// Progress of a run, reported after each game written.
#[derive(Clone, Debug)]
pub struct Progress {
    /// Games of this shard done.
    pub games: usize,
    /// Games of this shard in all.
    pub total: usize,
    /// Records written.
    pub records: u64,
    /// Games ended by the endgame database.
    pub database_ends: usize,
}

/// Plays this shard's games on `run.threads` threads and appends their records to `out` in game
/// order. `stop` ends the run after the games in progress (whatever is written stays valid).
pub fn run(
    run: &SelfPlay,
    out: &mut Writer,
    mut games: Option<&mut dyn std::io::Write>,
    stop: &AtomicBool,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Progress, DataError> {
    let (k, n) = run.shard;
    let mine: Vec<usize> = (0..run.games).filter(|g| g % n.max(1) == k).collect();
    let mut progress = Progress {
        games: 0,
        total: mine.len(),
        records: 0,
        database_ends: 0,
    };
    let event = format!(
        "checkersbot selfplay, seed {}, {} nodes",
        run.seed, run.nodes
    );
    in_order(
        mine.len(),
        run.threads,
        stop,
        || Engine::new(run.engine.clone()),
        |engine, i| play_game(run, engine, mine[i]),
        &mut |_, data: GameData| {
            out.write(&data.records)?;
            if let Some(w) = games.as_mut() {
                w.write_all(data.text(&event).as_bytes())
                    .and_then(|()| w.flush())
                    .map_err(|source| DataError::Io {
                        path: "the games file".into(),
                        source,
                    })?;
            }
            progress.games += 1;
            progress.records += data.records.len() as u64;
            progress.database_ends += usize::from(data.database.is_some());
            on_progress(&progress);
            Ok(())
        },
    )?;
    Ok(progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::book::turn_move;
    use crate::rules::any_size::MoveInfo;

    fn small() -> SelfPlay {
        SelfPlay {
            size: BoardSize::S6,
            games: 4,
            shard: (0, 1),
            seed: 5,
            nodes: 300,
            opening_plies: 2,
            ballots: Vec::new(),
            book: None,
            book_margin: 0,
            vary_plies: 0,
            vary_margin: 0,
            max_plies: 120,
            adjudicate: None,
            threads: 2,
            engine: EngineConfig {
                hash_mb: 1,
                ..EngineConfig::default()
            },
        }
    }

    /// An adjudicated game is the same game cut where both searches have scored one side ahead
    /// by the margin for `ADJUDICATE_PLIES` plies in a row, and that side is recorded as the
    /// winner: its last positions' scores show the lead, and every record is labelled from it.
    #[test]
    fn adjudication_cuts_a_game_where_the_searches_agree_and_names_the_leader() {
        let margin = 150;
        let full = small();
        let adj = SelfPlay {
            adjudicate: Some(margin),
            ..small()
        };
        let mut e1 = Engine::new(full.engine.clone());
        let mut e2 = Engine::new(adj.engine.clone());
        let mut seen = 0;
        for g in 0..12 {
            let a = play_game(&full, &mut e1, g);
            let b = play_game(&adj, &mut e2, g);
            assert!(!a.adjudicated);
            if !b.adjudicated {
                assert_eq!(
                    a.records, b.records,
                    "game {g}: no lead, the game is played out"
                );
                continue;
            }
            seen += 1;
            assert!(b.plies < a.plies, "game {g}: cut before its end");
            assert!(b.records.len() <= a.records.len());
            for (x, y) in a.records.iter().zip(&b.records) {
                assert_eq!((&x.grid, x.side, x.score), (&y.grid, y.side, y.score));
            }
            // Every record is labelled from the winner, and the last one (searched within the
            // final plies) was scored at least the margin in the winner's favour.
            let last = b.records.last().expect("records");
            let winner = match last.outcome {
                Outcome::Win => last.side,
                Outcome::Loss => last.side.opponent(),
                Outcome::Draw => panic!("game {g}: an adjudicated game is not a draw"),
            };
            let for_winner = if last.side == winner {
                i32::from(last.score)
            } else {
                -i32::from(last.score)
            };
            assert!(for_winner >= margin, "game {g}: {last:?}");
            for r in &b.records {
                let expect = if r.side == winner {
                    Outcome::Win
                } else {
                    Outcome::Loss
                };
                assert_eq!(r.outcome, expect, "game {g}");
            }
        }
        assert!(seen > 0, "no game was adjudicated at a margin of {margin}");
    }

    #[test]
    fn games_are_deterministic_and_records_are_quiet() {
        let run = small();
        let mut e1 = Engine::new(run.engine.clone());
        let mut e2 = Engine::new(run.engine.clone());
        let a = play_game(&run, &mut e1, 3);
        let b = play_game(&run, &mut e2, 3);
        assert_eq!(a.records, b.records);
        assert!(!a.records.is_empty());
        for r in &a.records {
            assert!(!r.position().has_capture());
            assert!(usize::from(r.ply) < a.plies);
        }
        // The outcome is the same game's result seen from each side to move.
        let wins = a
            .records
            .iter()
            .filter(|r| r.outcome == Outcome::Win)
            .count();
        let losses = a
            .records
            .iter()
            .filter(|r| r.outcome == Outcome::Loss)
            .count();
        assert!(
            (wins == 0) == (losses == 0),
            "one side's win is the other's loss"
        );
    }

    /// The games written as text beside the data file give back exactly the data file's
    /// records: from the deck's ballots, varied plies, adjudicated endings included.
    #[test]
    fn kept_games_give_back_the_data_files_records() {
        let run = SelfPlay {
            size: BoardSize::S8,
            games: 6,
            nodes: 400,
            ballots: "acf3:5-7"
                .parse::<crate::rules::openings::DeckSpec>()
                .unwrap()
                .ballots()
                .unwrap(),
            opening_plies: 0,
            vary_plies: 2,
            vary_margin: 40,
            adjudicate: Some(150),
            max_plies: 160,
            ..small()
        };
        let path = std::env::temp_dir().join(format!("cb-selfplay-kept-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut w = Writer::append(&path, run.size).unwrap();
        let mut text = Vec::new();
        let stop = AtomicBool::new(false);
        super::run(&run, &mut w, Some(&mut text), &stop, &mut |_| {}).unwrap();
        drop(w);
        let data = crate::learn::data::read_all(&path).unwrap().1;
        let text = String::from_utf8(text).unwrap();
        assert_eq!(text.matches("[Event").count(), 6);
        let kept = crate::learn::games::read_games(&text).unwrap();
        assert!(data.len() > 100);
        assert_eq!(kept, data, "{text}");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn shards_split_a_run_and_threads_do_not_change_it() {
        let dir = std::env::temp_dir().join(format!("cb-selfplay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stop = AtomicBool::new(false);
        let write = |name: &str, run: &SelfPlay| {
            let path = dir.join(name);
            let _ = std::fs::remove_file(&path);
            let mut w = Writer::append(&path, run.size).unwrap();
            super::run(run, &mut w, None, &stop, &mut |_| {}).unwrap();
            crate::learn::data::read_all(&path).unwrap().1
        };
        let whole = write("whole", &small());
        let one_thread = write(
            "one",
            &SelfPlay {
                threads: 1,
                ..small()
            },
        );
        assert_eq!(whole, one_thread);
        let a = write(
            "a",
            &SelfPlay {
                shard: (0, 2),
                ..small()
            },
        );
        let b = write(
            "b",
            &SelfPlay {
                shard: (1, 2),
                ..small()
            },
        );
        assert_eq!(a.len() + b.len(), whole.len());
        assert!(a.iter().all(|r| whole.contains(r)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// With a book, a game starts on the book's line: every move of it is a book move within the
    /// margin of the best (the best itself with a margin of 0, so every game has the same line),
    /// it goes on until the position leaves the book, and the random plies follow; with a margin,
    /// the games' seeds give different lines.
    #[test]
    fn games_start_on_the_books_lines_then_the_random_plies() {
        let book = Arc::new(Book::builtin().expect("the built-in book"));
        let run = |margin: i32, random: usize| SelfPlay {
            size: BoardSize::S8,
            opening_plies: random,
            book: Some(Arc::clone(&book)),
            book_margin: margin,
            ..small()
        };
        let check = |run: &SelfPlay, g: usize| -> Vec<MoveInfo> {
            let mut rng = Rng::new(game_seed(run.seed, g));
            let first = if g.is_multiple_of(2) {
                Side::Bot
            } else {
                Side::Player
            };
            let game = opening(run, g, first, &mut rng);
            let mut replay = Game::new(AnyPosition::initial(run.size, first));
            let mut in_book = 0;
            for mv in game.moves() {
                match book.moves(replay.current()) {
                    Some(moves) => {
                        let best = moves.iter().map(|m| m.value).max().expect("moves");
                        let mine = moves.iter().find(|m| m.mv == *mv);
                        let mine = mine.expect("a move played in the book is a book move");
                        assert!(i32::from(mine.value) >= i32::from(best) - run.book_margin);
                        in_book += 1;
                    }
                    None => break,
                }
                replay.play(mv);
            }
            assert!(in_book >= 2, "game {g}: the line starts in the book");
            assert_eq!(game.plies(), in_book + run.opening_plies, "game {g}");
            game.moves()[..in_book].to_vec()
        };
        let best = run(0, 0);
        let lines: Vec<_> = (0..6).map(|g| check(&best, g)).collect();
        let turned = |line: &[MoveInfo]| -> Vec<MoveInfo> {
            line.iter().map(|m| turn_move(m, BoardSize::S8)).collect()
        };
        for (g, line) in lines.iter().enumerate() {
            assert!(
                line == &lines[0] || turned(line) == lines[0],
                "game {g}: margin 0 follows the best line"
            );
        }
        let varied = run(60, 3);
        let mut distinct: Vec<Vec<MoveInfo>> = Vec::new();
        for g in 0..12 {
            let line = check(&varied, g);
            if !distinct.contains(&line) && !distinct.contains(&turned(&line)) {
                distinct.push(line);
            }
        }
        assert!(distinct.len() >= 3, "{} distinct lines", distinct.len());
    }

    /// With a deck, game `g` starts with ballot `g % len` from the 8x8 start (b to move), and
    /// the random plies follow it.
    #[test]
    fn games_start_from_the_decks_ballots_in_turn() {
        let spec: crate::rules::openings::DeckSpec = "acf3:10-12".parse().expect("spec");
        let ballots = spec.ballots().expect("ballots");
        let run = SelfPlay {
            size: BoardSize::S8,
            ballots: ballots.clone(),
            opening_plies: 1,
            ..small()
        };
        for g in 0..5 {
            let mut rng = Rng::new(game_seed(run.seed, g));
            let game = opening(&run, g, Side::Player, &mut rng);
            let b = &ballots[g % 3];
            assert_eq!(game.moves()[..3], b.moves[..], "game {g}");
            assert_eq!(game.plies(), 4, "the ballot, then one random ply");
        }
        let mut engine = Engine::new(run.engine.clone());
        let data = play_game(&run, &mut engine, 1);
        assert!(data.plies > 4 && !data.records.is_empty());
    }

    /// With an endgame database, a game ends on the first position the database holds and every
    /// record is labelled with the database's exact result; no recorded position is one the
    /// database holds.
    #[test]
    fn a_database_ends_the_game_with_its_exact_result() {
        let (dir, db) = crate::engine::egdb::build::small_test_db("selfplay");
        let run = SelfPlay {
            engine: EngineConfig {
                egdb: Some(Arc::clone(&db)),
                ..small().engine
            },
            ..small()
        };
        let mut engine = Engine::new(run.engine.clone());
        let mut ended = [0usize; 3];
        for g in 0..10 {
            let data = play_game(&run, &mut engine, g);
            for r in &data.records {
                assert_eq!(
                    db.probe_any(&r.position()),
                    None,
                    "game {g}: a recorded position is outside the database"
                );
            }
            let Some(value) = data.database else {
                continue;
            };
            let side = data.last.side();
            assert_eq!(db.probe_any(&data.last), Some(value), "game {g}");
            let winner = match value {
                Value::Win(_) => Some(side),
                Value::Loss(_) => Some(side.opponent()),
                Value::Draw => None,
            };
            ended[match winner {
                None => 0,
                Some(Side::Bot) => 1,
                Some(Side::Player) => 2,
            }] += 1;
            assert!(!data.records.is_empty(), "game {g}");
            for r in &data.records {
                let expect = match winner {
                    None => Outcome::Draw,
                    Some(w) if w == r.side => Outcome::Win,
                    Some(_) => Outcome::Loss,
                };
                assert_eq!(r.outcome, expect, "game {g}");
            }
        }
        assert!(
            ended.iter().sum::<usize>() >= 5,
            "most games reach the database: {ended:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The varied plies after a ballot: each is a move within the margin of the best by the
    /// search of every move, the same search replayed on a fresh engine gives the same scores,
    /// and the games' seeds give one ballot different continuations.
    #[test]
    fn varied_plies_stay_within_the_margin_and_vary_a_ballots_games() {
        let spec: crate::rules::openings::DeckSpec = "acf3:10-10".parse().expect("spec");
        let run = SelfPlay {
            size: BoardSize::S8,
            ballots: spec.ballots().expect("ballots"),
            opening_plies: 0,
            nodes: 3000,
            vary_plies: 4,
            vary_margin: 30,
            ..small()
        };
        let mut lines: Vec<Vec<MoveInfo>> = Vec::new();
        for g in 0..8 {
            let mut rng = Rng::new(game_seed(run.seed, g));
            let mut game = opening(&run, g, Side::Bot, &mut rng);
            assert_eq!(game.plies(), 3, "the ballot");
            let mut engine = Engine::new(run.engine.clone());
            vary(&run, &mut engine, &mut game, &mut rng);
            assert_eq!(game.plies(), 7, "game {g}: four varied plies");
            let mut replay = Game::new(AnyPosition::initial(BoardSize::S8, Side::Bot));
            for mv in &game.moves()[..3] {
                replay.play(mv);
            }
            let mut fresh = Engine::new(run.engine.clone());
            for mv in &game.moves()[3..] {
                let scored = scored_moves(&mut fresh, &replay, run.nodes / 10);
                let best = scored.iter().map(|&(_, s)| s).max().expect("moves");
                let mine = scored.iter().find(|(m, _)| m == mv).expect("a legal move");
                assert!(
                    mine.1 >= best - run.vary_margin,
                    "game {g}: {mine:?}, best {best}"
                );
                replay.play(mv);
            }
            let line = game.moves()[3..].to_vec();
            if !lines.contains(&line) {
                lines.push(line);
            }
        }
        assert!(lines.len() >= 2, "{} distinct continuations", lines.len());
    }
}
