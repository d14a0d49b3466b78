//! Relabelling: the search scores of chosen records searched again, far deeper than a self-play
//! game's budget, so the evaluation learns from a stronger judge where its own games taught it
//! least (the first plies of the game, or the middle game past the book).
//!
//! The records chosen are those from one ply up to (not including) another, thinned to one in
//! `every` by the seed. Each is searched from a cleared table (a position's score does not depend
//! on the order or the thread that searched it), and a position met again takes the score already
//! found. The output records keep their game's result and ply; only the score changes. The run is
//! deterministic for its settings whatever the number of threads, and resumable: a run appending
//! to a file that already holds `m` records skips the first `m` chosen ones (SIGINT or SIGTERM
//! stops `checkersbot relabel` after the searches under way, every finished record written).

use crate::engine::{Engine, EngineConfig, Limits};
use crate::learn::data::{DataError, Record, Writer};
use crate::learn::parallel::in_order;
use crate::rng::Rng;
use crate::rules::board::Grid;
use crate::rules::position::Side;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

/// A relabelling run.
#[derive(Clone, Debug)]
pub struct Relabel {
    /// Nodes searched for each position.
    pub nodes: u64,
    /// Only records at or after this ply are chosen (0: from the first).
    pub from_ply: u16,
    /// Only records before this ply are chosen.
    pub before_ply: u16,
    /// One in this many of those is chosen (1: all), at random with the seed.
    pub every: u32,
    /// Seed of the thinning.
    pub seed: u64,
    /// Worker threads (each with its own engine).
    pub threads: usize,
    /// The judge's configuration (evaluation, table size); no book.
    pub engine: EngineConfig,
}

impl Relabel {
    /// The indices of the records this run relabels, in file order.
    pub fn choose(&self, records: &[Record]) -> Vec<usize> {
        let mut rng = Rng::new(self.seed);
        let every = self.every.max(1);
        records
            .iter()
            .enumerate()
            .filter(|(_, r)| r.ply >= self.from_ply && r.ply < self.before_ply)
            // One draw per eligible record, so the choice of one does not depend on the others.
            .filter(|_| rng.chance(1, every))
            .map(|(i, _)| i)
            .collect()
    }
}

/// Progress of a run, reported after each record written.
#[derive(Clone, Debug)]
pub struct Progress {
    /// Records of the run done (those of an earlier run it resumes included).
    pub done: usize,
    /// Records the run relabels in all.
    pub total: usize,
    /// Positions searched by this run (the others were met before).
    pub searched: usize,
}

/// Searches `pos`'s record from a cleared table and returns the record with the new score.
fn judge(engine: &mut Engine, nodes: u64, r: &Record) -> Record {
    engine.new_game();
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let stop = AtomicBool::new(false);
    let pos = r.position();
    let result = engine.search(&pos, &[], &limits, &stop, &mut |_| {});
    Record::new(&pos, r.outcome, result.info.score.0, usize::from(r.ply))
}

/// Relabels the chosen records of `records` (see [`Relabel::choose`]) that `out` does not hold
/// yet and appends them to `out` in order. `stop` ends the run after the searches in progress.
pub fn run(
    cfg: &Relabel,
    records: &[Record],
    out: &mut Writer,
    stop: &AtomicBool,
    on_progress: &mut dyn FnMut(&Progress),
) -> Result<Progress, DataError> {
    let chosen = cfg.choose(records);
    let skip = usize::try_from(out.existing())
        .unwrap_or(usize::MAX)
        .min(chosen.len());
    let todo = &chosen[skip..];
    let known: Mutex<HashMap<(Grid, Side), i16>> = Mutex::new(HashMap::new());
    let mut progress = Progress {
        done: skip,
        total: chosen.len(),
        searched: 0,
    };
    in_order(
        todo.len(),
        cfg.threads,
        stop,
        || Engine::new(cfg.engine.clone()),
        |engine, i| {
            let r = &records[todo[i]];
            let key = (r.grid.clone(), r.side);
            let seen = known.lock().ok().and_then(|k| k.get(&key).copied());
            match seen {
                Some(score) => (Record { score, ..r.clone() }, false),
                None => {
                    let new = judge(engine, cfg.nodes, r);
                    if let Ok(mut k) = known.lock() {
                        k.insert(key, new.score);
                    }
                    (new, true)
                }
            }
        },
        &mut |_, (record, searched): (Record, bool)| {
            out.write(std::slice::from_ref(&record))?;
            progress.done += 1;
            progress.searched += usize::from(searched);
            on_progress(&progress);
            Ok(())
        },
    )?;
    Ok(progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::data::read_all;
    use crate::learn::selfplay::{self, SelfPlay};
    use crate::rules::geometry::BoardSize;

    fn engine() -> EngineConfig {
        EngineConfig {
            hash_mb: 1,
            ..EngineConfig::default()
        }
    }

    /// A few short 6x6 self-play games at a tiny budget.
    fn games() -> Vec<Record> {
        let run = SelfPlay {
            size: BoardSize::S6,
            games: 6,
            shard: (0, 1),
            seed: 11,
            nodes: 200,
            opening_plies: 2,
            ballots: Vec::new(),
            book: None,
            book_margin: 0,
            vary_plies: 0,
            vary_margin: 0,
            max_plies: 80,
            adjudicate: None,
            threads: 2,
            engine: engine(),
        };
        let mut e = Engine::new(run.engine.clone());
        (0..run.games)
            .flat_map(|g| selfplay::play_game(&run, &mut e, g).records)
            .collect()
    }

    fn cfg(threads: usize) -> Relabel {
        Relabel {
            nodes: 20_000,
            from_ply: 0,
            before_ply: 12,
            every: 2,
            seed: 3,
            threads,
            engine: engine(),
        }
    }

    fn relabel(path: &std::path::Path, cfg: &Relabel, records: &[Record]) -> Vec<Record> {
        let mut w = Writer::append(path, BoardSize::S6).unwrap();
        run(cfg, records, &mut w, &AtomicBool::new(false), &mut |_| {}).unwrap();
        read_all(path).unwrap().1
    }

    #[test]
    fn the_chosen_records_come_out_in_order_with_their_result_and_a_deeper_score() {
        let records = games();
        let c = cfg(2);
        let chosen = c.choose(&records);
        let eligible = records.iter().filter(|r| r.ply < 12).count();
        assert!(chosen.iter().all(|&i| records[i].ply < 12));
        assert!(
            chosen.len() > eligible / 4 && chosen.len() < eligible * 3 / 4,
            "about one in two of {eligible} chosen, got {}",
            chosen.len()
        );
        let dir = std::env::temp_dir().join(format!("cb-relabel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a");
        let _ = std::fs::remove_file(&path);
        let out = relabel(&path, &c, &records);
        assert_eq!(out.len(), chosen.len());
        let mut changed = 0;
        let mut e = Engine::new(engine());
        for (new, &i) in out.iter().zip(&chosen) {
            let old = &records[i];
            assert_eq!(
                (&new.grid, new.side, new.outcome, new.ply),
                (&old.grid, old.side, old.outcome, old.ply)
            );
            // The score is the deep search's, whichever thread found it.
            assert_eq!(new.score, judge(&mut e, c.nodes, old).score);
            changed += usize::from(new.score != old.score);
        }
        assert!(changed > 0, "a deeper search changes some scores");

        // One thread writes the same file; a different seed chooses differently.
        let one = dir.join("one");
        let _ = std::fs::remove_file(&one);
        assert_eq!(relabel(&one, &cfg(1), &records), out);
        let other = Relabel { seed: 4, ..cfg(2) };
        assert_ne!(other.choose(&records), chosen);
        // A window of plies (the middle game) chooses every record inside it and none outside.
        let window = Relabel {
            from_ply: 6,
            before_ply: 12,
            every: 1,
            ..cfg(2)
        };
        let mid = window.choose(&records);
        assert!(!mid.is_empty());
        assert!(mid.iter().all(|&i| (6..12).contains(&records[i].ply)));
        assert_eq!(
            mid.len(),
            records.iter().filter(|r| (6..12).contains(&r.ply)).count()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_run_resumes_after_the_records_already_written() {
        let records = games();
        let c = cfg(2);
        let dir = std::env::temp_dir().join(format!("cb-relabel-resume-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let whole = dir.join("whole");
        let part = dir.join("part");
        let _ = std::fs::remove_file(&whole);
        let _ = std::fs::remove_file(&part);
        let all = relabel(&whole, &c, &records);
        // An interrupted run: its first five records and half of the sixth.
        let mut w = Writer::append(&part, BoardSize::S6).unwrap();
        w.write(&all[..5]).unwrap();
        drop(w);
        let mut bytes = Vec::new();
        all[5].encode(&mut bytes);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&part)
            .unwrap();
        std::io::Write::write_all(&mut f, &bytes[..bytes.len() / 2]).unwrap();
        drop(f);
        assert_eq!(relabel(&part, &c, &records), all);
        // Run again when done: nothing to add.
        assert_eq!(relabel(&part, &c, &records), all);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
