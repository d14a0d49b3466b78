//! `checkersbot egdb audit FILE...`: what recorded games did once they reached the endgame
//! database, by player (see [`checkersbot::engine::egdb::audit`]).

use anyhow::{anyhow, Context, Result};
use checkersbot::engine::egdb::audit::{audit, score_for, GameAudit};
use checkersbot::engine::egdb::Egdb;
use checkersbot::rules::game::Status;
use checkersbot::rules::pdn::{read_games, PdnGame};
use checkersbot::rules::position::Side;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One player's figures over the games read.
#[derive(Default)]
struct Tally {
    games: usize,
    /// Games that came into the database.
    came_in: usize,
    /// Those by the value they came in with for this player: won, drawn, lost.
    came_in_as: [usize; 3],
    /// Those by their result for this player: won, drawn, lost (unfinished games not counted).
    ended: [usize; 3],
    /// Those whose result is not the value they came in with.
    unlike_entry: usize,
    /// This player's moves that changed the database's value: a win to a draw, a win to a loss,
    /// a draw to a loss (not those the no-progress rule overtook).
    changes: [usize; 3],
    /// This player's changes that the no-progress rule overtook (they cost nothing).
    ruled_out: usize,
    /// Games this player had won in the database's last position but did not win, the no-progress
    /// rule apart.
    wins_not_taken: usize,
}

/// The index in a won/drawn/lost triple of a score (1, 0, -1).
fn wdl(score: i32) -> usize {
    (1 - score) as usize
}

/// The text of a winner for `side`: `win`, `draw` or `loss`.
fn word(side: Side, w: Option<Side>) -> &'static str {
    ["win", "draw", "loss"][wdl(score_for(side, w))]
}

/// Who played `side`: its PDN tag (`Black` or `White`), else the colour's name.
fn name(game: &PdnGame, side: Side) -> String {
    game.tag(colour(side))
        .filter(|v| !v.is_empty() && *v != "?")
        .unwrap_or(colour(side))
        .to_string()
}

fn colour(side: Side) -> &'static str {
    match side {
        Side::Bot => "Black",
        Side::Player => "White",
    }
}

/// The line of a game worth a look: one where a move changed the database's value, or whose
/// result is not its last database value. `None` for a game that kept its value throughout.
fn game_line(file: &str, number: usize, game: &PdnGame, a: &GameAudit) -> Option<String> {
    let entry = a.entry?;
    let result = game.result.winner();
    if a.changes.is_empty() && result == a.last {
        return None;
    }
    let mut line = format!(
        "{file} game {number} ({} - {}): in at ply {} ({} pieces), {} for Black",
        name(game, Side::Bot),
        name(game, Side::Player),
        entry.ply,
        entry.pieces,
        word(Side::Bot, entry.winner)
    );
    for c in &a.changes {
        line.push_str(&format!(
            "; ply {} {} ({}) {} -> {} ({} plies without progress{})",
            c.ply,
            colour(c.mover),
            name(game, c.mover),
            word(c.mover, c.before),
            word(c.mover, c.after),
            c.quiet,
            if c.ruled_out {
                "; the no-progress rule drew the game first"
            } else {
                ""
            }
        ));
    }
    line.push_str(&format!("; result {}", game.result.pdn()));
    Some(line)
}

/// Reads every game of `files`, prints a line for each game worth a look and a table by player.
pub fn run(files: &[PathBuf], db: &Egdb) -> Result<()> {
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let (mut games, mut never) = (0usize, 0usize);
    for path in files {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let read =
            read_games(&text).map_err(|(n, e)| anyhow!("{}: game {n}: {e}", path.display()))?;
        for (i, game) in read.iter().enumerate() {
            games += 1;
            let a = audit(db, &game.start, &game.moves);
            if let Some(line) = game_line(&path.display().to_string(), i + 1, game, &a) {
                println!("{line}");
            }
            let Some(entry) = a.entry else {
                never += 1;
                for side in [Side::Bot, Side::Player] {
                    tallies.entry(name(game, side)).or_default().games += 1;
                }
                continue;
            };
            let result = game.result.winner();
            for side in [Side::Bot, Side::Player] {
                let t = tallies.entry(name(game, side)).or_default();
                t.games += 1;
                t.came_in += 1;
                t.came_in_as[wdl(score_for(side, entry.winner))] += 1;
                if let Some(r) = result {
                    t.ended[wdl(score_for(side, r))] += 1;
                    t.unlike_entry += usize::from(r != entry.winner);
                    let won_last = a.last.is_some_and(|w| score_for(side, w) == 1);
                    let by_rule = a.end == Status::DrawNoProgress;
                    t.wins_not_taken += usize::from(won_last && score_for(side, r) < 1 && !by_rule);
                }
                for c in a.changes.iter().filter(|c| c.mover == side) {
                    if c.ruled_out {
                        t.ruled_out += 1;
                        continue;
                    }
                    let kind = match (score_for(side, c.before), score_for(side, c.after)) {
                        (1, 0) => 0,
                        (1, -1) => 1,
                        _ => 2,
                    };
                    t.changes[kind] += 1;
                }
            }
        }
    }
    println!(
        "{games} games read, {} came into the database ({never} never did); by player:",
        games - never
    );
    let width = tallies.keys().map(String::len).max().unwrap_or(6).max(6);
    let heads = [
        "games",
        "came in",
        "came in w-d-l",
        "ended w-d-l",
        "result moved",
        "own moves w>d w>l d>l",
        "overtaken by the rule",
        "wins not taken",
    ];
    let mut head = format!("{:width$}", "player");
    for h in heads {
        head.push_str(&format!("  {h}"));
    }
    println!("{head}");
    for (name, t) in &tallies {
        let triple = |v: &[usize; 3]| format!("{}-{}-{}", v[0], v[1], v[2]);
        let cells = [
            t.games.to_string(),
            t.came_in.to_string(),
            triple(&t.came_in_as),
            triple(&t.ended),
            t.unlike_entry.to_string(),
            format!("{} {} {}", t.changes[0], t.changes[1], t.changes[2]),
            t.ruled_out.to_string(),
            t.wins_not_taken.to_string(),
        ];
        let mut row = format!("{name:width$}");
        for (h, c) in heads.iter().zip(cells) {
            row.push_str(&format!("  {c:>w$}", w = h.len()));
        }
        println!("{row}");
    }
    Ok(())
}
