//! Playing levels and styles, one definition for the terminal game (`play`), the daemon (`serve`,
//! `set level`, `set style`) and matches (`match --level-a`).
//!
//! | level | search | missteps |
//! |---|---|---|
//! | `easy` | 2 plies | one move in three is another of the 3 best moves, if within 0.6 of a man of the best |
//! | `medium` | 6 plies, at most 300 ms | none |
//! | `hard` | 1000 ms | none |
//! | `max` | 5000 ms | none |
//!
//! A misstep ([`Misstep`]) is how a beginner goes wrong: not a random move, but a plausible one
//! that is a little worse than the best: the easy level lists its best few moves by score
//! ([`Engine::analyse`]) and sometimes plays one of the others, if it is within a margin of the best
//! (so it never throws away a piece its own search sees, and never misses a win it has found). With
//! its shallow search it still walks into two-move combinations, which is how it loses.
//!
//! ```
//! use checkersbot::play::level::{Level, Style};
//! assert_eq!(Level::from_name("easy"), Some(Level::Easy));
//! assert_eq!(Level::Medium.limits().depth, Some(6));
//! assert!(Level::Easy.misstep().is_some() && Level::Hard.misstep().is_none());
//! assert_eq!(Style::from_name("aggressive").map(|s| s.name()), Some("aggressive"));
//! ```

use crate::engine::eval::Weights;
use crate::engine::{Engine, Info, Limits, SearchResult};
use crate::rng::Rng;
use crate::rules::any_size::AnyPosition;
use std::fmt;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// How strong the bot plays (by default `hard`, the daemon's level unless told).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Level {
    /// 2 plies, with missteps: for children and beginners.
    Easy,
    /// 6 plies (at most 300 ms): for casual players.
    Medium,
    /// 1 s a move: for club players.
    #[default]
    Hard,
    /// 5 s a move.
    Max,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [Level::Easy, Level::Medium, Level::Hard, Level::Max];

    /// Reads `easy`, `medium`, `hard` or `max`.
    pub fn from_name(name: &str) -> Option<Level> {
        Self::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name))
    }

    /// The level's name.
    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
            Level::Max => "max",
        }
    }

    /// The search limits of each move.
    pub fn limits(self) -> Limits {
        let ms = |t| Some(Duration::from_millis(t));
        match self {
            Level::Easy => Limits {
                depth: Some(2),
                ..Limits::default()
            },
            Level::Medium => Limits {
                depth: Some(6),
                movetime: ms(300),
                ..Limits::default()
            },
            Level::Hard => Limits {
                movetime: ms(1000),
                ..Limits::default()
            },
            Level::Max => Limits {
                movetime: ms(5000),
                ..Limits::default()
            },
        }
    }

    /// How far below the best book move, in hundredths of a man, a book move may be and still be
    /// chosen (at random, see [`crate::engine::book::Book::choose`]): wide at the easy level for
    /// variety, none at `max`, which plays the book's best line.
    pub fn book_margin(self) -> i32 {
        match self {
            Level::Easy => 60,
            Level::Medium => 25,
            Level::Hard => 10,
            Level::Max => 0,
        }
    }

    /// The level's missteps, if it makes any.
    pub fn misstep(self) -> Option<Misstep> {
        match self {
            Level::Easy => Some(Misstep {
                percent: 33,
                candidates: 3,
                margin: 60,
            }),
            Level::Medium | Level::Hard | Level::Max => None,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the bot likes to play: the evaluation weights.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Style {
    /// The engine's own weights.
    #[default]
    Default,
    /// Rewards closing in on the enemy's pieces ([`Weights::aggressive`]).
    Aggressive,
}

impl Style {
    /// Every style.
    pub const ALL: [Style; 2] = [Style::Default, Style::Aggressive];

    /// Reads `default` or `aggressive`.
    pub fn from_name(name: &str) -> Option<Style> {
        Self::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }

    /// The style's name.
    pub fn name(self) -> &'static str {
        match self {
            Style::Default => "default",
            Style::Aggressive => "aggressive",
        }
    }

    /// The evaluation weights of the style.
    pub fn weights(self) -> Weights {
        match self {
            Style::Default => Weights::default(),
            Style::Aggressive => Weights::aggressive(),
        }
    }
}

impl fmt::Display for Style {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Occasional second-best moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Misstep {
    /// Percentage of moves (with a choice) where a misstep is considered.
    pub percent: u32,
    /// How many of the best moves are looked at (the best included).
    pub candidates: usize,
    /// How far below the best, in hundredths of a man, a misstep may score.
    pub margin: i32,
}

/// Chooses a move: the engine's book move if its book holds the position
/// ([`Engine::book_move`]), else a search with `limits`, or, with `misstep` and when the dice say so, one of the
/// other best moves within its margin (the best when there is none). `on_info` gets the search's
/// iterations (only for the plain search). Deterministic for a given `rng` state, one thread and a
/// depth limit.
#[allow(clippy::too_many_arguments)]
pub fn choose_move(
    engine: &mut Engine,
    pos: &AnyPosition,
    history: &[u64],
    limits: &Limits,
    soft: Option<Duration>,
    misstep: Option<Misstep>,
    rng: &mut Rng,
    stop: &AtomicBool,
    on_info: &mut dyn FnMut(&Info),
) -> SearchResult {
    // The book first: its moves are chosen within the engine's book margin, with `rng`.
    if let Some(r) = engine.book_move(pos, limits, soft, Some(rng)) {
        on_info(&r.info);
        return r;
    }
    if let Some(m) = misstep {
        if m.candidates > 1 && pos.legal_moves().len() > 1 && rng.chance(m.percent, 100) {
            let lines = engine.analyse(pos, history, limits, m.candidates, stop);
            if let Some(best) = lines.first() {
                let floor = best.info.score.0.saturating_sub(m.margin);
                let others: Vec<&SearchResult> = lines[1..]
                    .iter()
                    .filter(|r| r.info.score.0 >= floor)
                    .collect();
                // A proven win is never given away; the margin keeps losses out.
                let proven = best.info.score.plies_to_end().is_some()
                    || best.info.score.egdb_plies().is_some();
                if !others.is_empty() && !proven {
                    let pick = others[rng.below(others.len())].clone();
                    tracing::debug!(
                        "misstep: {} ({}) instead of {} ({})",
                        pick.best.as_ref().map_or(String::new(), |m| m.notation()),
                        pick.info.score,
                        best.best.as_ref().map_or(String::new(), |m| m.notation()),
                        best.info.score
                    );
                    on_info(&pick.info);
                    return pick;
                }
                let first = best.clone();
                on_info(&first.info);
                return first;
            }
        }
    }
    engine.search_soft(pos, history, limits, soft, stop, on_info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineConfig;
    use crate::rules::geometry::BoardSize;
    use crate::rules::position::Side;

    #[test]
    fn names_round_trip() {
        for l in Level::ALL {
            assert_eq!(Level::from_name(l.name()), Some(l));
        }
        for s in Style::ALL {
            assert_eq!(Style::from_name(s.name()), Some(s));
        }
        assert_eq!(Level::from_name("MAX"), Some(Level::Max));
        assert_eq!(Level::from_name("expert"), None);
    }

    #[test]
    fn missteps_stay_within_the_margin() {
        let mut engine = Engine::new(EngineConfig::default());
        let start = AnyPosition::initial(BoardSize::S8, Side::Bot);
        let limits = Level::Easy.limits();
        let stop = AtomicBool::new(false);
        let lines = engine.analyse(&start, &[], &limits, 7, &stop);
        let best = lines[0].info.score.0;
        let always = Misstep {
            percent: 100,
            candidates: 3,
            margin: 60,
        };
        let mut rng = Rng::new(3);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..20 {
            let r = choose_move(
                &mut engine,
                &start,
                &[],
                &limits,
                None,
                Some(always),
                &mut rng,
                &stop,
                &mut |_| {},
            );
            let mv = r.best.clone().expect("a move");
            let line = lines.iter().find(|l| l.best.as_ref() == Some(&mv));
            assert!(line.is_some_and(|l| l.info.score.0 >= best - 60));
            seen.insert(mv);
        }
        assert!(seen.len() >= 2, "missteps vary: {seen:?}");
    }
}
