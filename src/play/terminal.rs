//! The terminal game: a person against the bot, on any board size.
//!
//! [`play`] runs the whole game over any input (`impl BufRead`) and output (`impl Write`), so tests
//! drive it with text. The person types moves as paths (`G3 F4`, `E5 C3 A1`, also `G3-F4` or
//! `E5xC3xA1`; a multi-jump may be given by its first and last squares when that is unambiguous) or a
//! command:
//!
//! - `moves`: the legal moves; `hint`: the engine's suggestion; `board`: draw the board again;
//! - `undo`: take back the person's last move and the bot's reply;
//! - `help`; `quit` (end of input also quits).
//!
//! A refused move is answered with the reason and the legal moves; when a capture is available the
//! person is told that capturing is mandatory. After each move the bot shows what it thought: depth,
//! score (from its own point of view) and time. When the game ends the reason is announced; `undo`
//! still works then.
//!
//! Levels and styles are those of [`crate::play::level`] (shared with the daemon): **easy** searches 2
//! plies and sometimes plays another of its best moves; **medium** 6 plies; **hard** 1 s a move;
//! **max** 5 s. The aggressive style rewards closing in on the enemy's pieces.

use crate::engine::{Engine, EngineConfig, Info, Limits, StopReason};
use crate::play::level::{choose_move, Level, Misstep};
use crate::rng::Rng;
use crate::rules::any_size::{AnyPosition, MoveInfo};
use crate::rules::board::Grid;
use crate::rules::game::{Game, Status};
use crate::rules::notation::MoveError;
use crate::rules::position::Side;
use std::fmt::Write as _;
use std::io::{self, BufRead, Write};
use std::sync::atomic::AtomicBool;

/// Who makes the first move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum First {
    /// The bot moves first.
    Bot,
    /// The person moves first.
    Player,
}

/// Settings of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayOptions {
    /// The side the bot plays (`Side::Bot`, the top, by default).
    pub bot_side: Side,
    /// Who moves first.
    pub first: First,
    /// Limits of the bot's (and the hint's) searches.
    pub limits: Limits,
    /// Percentage of the bot's moves chosen at random (0 at every level; for tests).
    pub random_percent: u32,
    /// The level's missteps (occasional second-best moves), if any.
    pub misstep: Option<Misstep>,
    /// Engine settings (weights for the style, threads, table size, seed).
    pub config: EngineConfig,
    /// Seed of the random moves.
    pub seed: u64,
    /// Draw with ANSI colours.
    pub colour: bool,
    /// A label for the level in the greeting (e.g. `medium`).
    pub level: String,
}

impl PlayOptions {
    /// Options for a level, with the bot on top, the person moving first, default weights, no colour.
    pub fn new(level: Level) -> PlayOptions {
        PlayOptions {
            bot_side: Side::Bot,
            first: First::Player,
            limits: level.limits(),
            random_percent: 0,
            misstep: level.misstep(),
            config: EngineConfig::default(),
            seed: 1,
            colour: false,
            level: level.name().to_string(),
        }
    }
}

/// Whether to draw in colour: only on a terminal, and only when `NO_COLOR` is unset (pass
/// `std::io::stdout().is_terminal()` and `std::env::var_os("NO_COLOR")`).
pub fn want_colour(is_terminal: bool, no_color: Option<std::ffi::OsString>) -> bool {
    is_terminal && no_color.is_none()
}

/// How a game session ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PlayEnd {
    /// The person quit (or the input ended) with the game in this state.
    Quit(Status),
    /// The game ended with this result, then the input ended or the person quit.
    Over(Status),
}

/// What a session leaves behind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlaySummary {
    /// The position the game started from.
    pub start: AnyPosition,
    /// How it ended.
    pub end: PlayEnd,
    /// The final position.
    pub position: AnyPosition,
    /// The moves played (after any undo).
    pub moves: Vec<MoveInfo>,
}

impl PlaySummary {
    /// The summary of a session leaving `game` at `position` with `status`.
    fn of(game: &Game, position: AnyPosition, status: Status) -> PlaySummary {
        let end = if status.is_over() {
            PlayEnd::Over(status)
        } else {
            PlayEnd::Quit(status)
        };
        PlaySummary {
            start: *game.start(),
            end,
            position,
            moves: game.moves().to_vec(),
        }
    }
}

const RESET: &str = "\x1b[0m";
const DARK: &str = "\x1b[48;5;236m";
const LIGHT: &str = "\x1b[48;5;250m";
const LAST: &str = "\x1b[48;5;58m";
const BOT_FG: &str = "\x1b[1;38;5;203m";
const YOU_FG: &str = "\x1b[1;38;5;231m";

/// Draws a board with its coordinates: row letters on both sides, column numbers above and below.
/// Pieces keep their board letters (`b`/`B` for the top side's men and kings, `p`/`P` for the
/// bottom side's); with `colour` the bot's pieces are red and the person's white on dark squares,
/// and the squares of the last move are highlighted; without colour, dark squares show `.` and the
/// last move's squares are bracketed (`[p]`).
pub fn draw_board(
    pos: &AnyPosition,
    bot_side: Side,
    last: Option<&MoveInfo>,
    colour: bool,
) -> String {
    let grid: Grid = pos.grid();
    let n = pos.size().n();
    let mut out = String::new();
    let header: String = (0..n).map(|c| format!("{c:^3}")).collect();
    let _ = writeln!(out, "    {header}");
    for r in 0..n {
        let letter = (b'A' + r as u8) as char;
        let _ = write!(out, "  {letter} ");
        for c in 0..n {
            let coord = crate::rules::geometry::Coord::new(r as u8, c as u8);
            let dark = coord.is_playable(n);
            let in_last = last.is_some_and(|m| m.path.contains(&coord));
            let piece = grid.get(coord);
            let ch = match piece {
                Some(p) => p.to_char(),
                None if dark && !colour => '.',
                None => ' ',
            };
            if colour {
                let bg = if !dark {
                    LIGHT
                } else if in_last {
                    LAST
                } else {
                    DARK
                };
                let fg = match piece {
                    Some(p) if p.side == bot_side => BOT_FG,
                    Some(_) => YOU_FG,
                    None => "",
                };
                let _ = write!(out, "{bg}{fg} {ch} {RESET}");
            } else if in_last {
                let _ = write!(out, "[{ch}]");
            } else {
                let _ = write!(out, " {ch} ");
            }
        }
        let _ = writeln!(out, " {letter}");
    }
    let _ = writeln!(out, "    {header}");
    let you = bot_side.opponent();
    let (bm, bk) = grid.count(bot_side);
    let (ym, yk) = grid.count(you);
    let bl = bot_side.letter();
    let yl = you.letter();
    let _ = writeln!(
        out,
        "  bot {bl}/{}: {bm} men, {bk} kings    you {yl}/{}: {ym} men, {yk} kings",
        bl.to_ascii_uppercase(),
        yl.to_ascii_uppercase()
    );
    out
}

/// The legal moves in reading order (by square, top to bottom).
fn sorted_moves(pos: &AnyPosition) -> Vec<MoveInfo> {
    let mut moves = pos.legal_moves();
    moves.sort_by(|a, b| a.path.cmp(&b.path));
    moves
}

fn legal_list(pos: &AnyPosition) -> String {
    sorted_moves(pos)
        .iter()
        .map(|m| m.notation())
        .collect::<Vec<_>>()
        .join(", ")
}

fn thought(info: &Info, reason: StopReason, whose: &str) -> String {
    if reason == StopReason::OnlyMove {
        return "only move".to_string();
    }
    let mut text = format!(
        "depth {}, score {} for {whose}, {:.2} s, {} nodes",
        info.depth,
        info.score,
        info.time.as_secs_f64(),
        info.nodes
    );
    // The reply the search expects, from its principal variation.
    if let Some(reply) = info.pv.get(1) {
        let _ = write!(text, "; expects {}", reply.notation());
    }
    text
}

fn announce(status: Status, pos: &AnyPosition, bot_side: Side) -> String {
    match status {
        Status::Ongoing => String::new(),
        Status::Win { winner } => {
            let loser = winner.opponent();
            let (men, kings) = pos.grid().count(loser);
            let why = if men + kings == 0 { "no pieces left" } else { "no legal move (every piece is blocked)" };
            if winner == bot_side {
                format!("Game over: the bot wins. You have {why}.")
            } else {
                format!("Game over: you win! The bot has {why}.")
            }
        }
        Status::DrawRepetition => "Game over: draw by repetition (the same position occurred three times).".to_string(),
        Status::DrawNoProgress => {
            "Game over: draw by the no-progress rule (40 moves each without a capture or a man's move).".to_string()
        }
    }
}

/// How to type a move and the commands, with examples that exist on `pos`'s board: the first of
/// the legal moves of whoever is to move (so a 6x6 board is never shown a square it lacks).
fn help_text(pos: &AnyPosition) -> String {
    let example = sorted_moves(pos)
        .first()
        .map_or_else(|| "C1 D2".to_string(), MoveInfo::notation);
    format!(
        "Type a move as its path of squares, e.g. {example} (row letter from the top, column number \
from the left; a multi-jump lists every landing square).\n\
Commands: moves (legal moves), hint (the engine's suggestion), undo (take back your last move\n\
and the bot's reply), board (draw again), help, quit."
    )
}

/// Plays a game from `start` (the pieces; who moves first comes from `opts`), reading the person's
/// lines from `input` and writing everything to `output`. Returns when the person quits or the input
/// ends.
pub fn play<R: BufRead, W: Write>(
    start: &Grid,
    opts: &PlayOptions,
    mut input: R,
    mut out: W,
) -> io::Result<PlaySummary> {
    let you = opts.bot_side.opponent();
    let first_side = match opts.first {
        First::Bot => opts.bot_side,
        First::Player => you,
    };
    let mut game = Game::new(AnyPosition::from_grid(start, first_side));
    let mut engine = Engine::new(opts.config.clone());
    let mut rng = Rng::new(opts.seed);
    let stop = AtomicBool::new(false);
    let n = start.size().n();
    let where_ = |s: Side| {
        if s == Side::Bot {
            "top, moving down"
        } else {
            "bottom, moving up"
        }
    };
    writeln!(
        out,
        "checkersbot: {n}x{n} checkers, level {}{}.\nYou play {} ({}); the bot plays {} ({}).",
        opts.level,
        if opts.config.weights.aggression > 0 {
            ", aggressive style"
        } else {
            ""
        },
        you.letter(),
        where_(you),
        opts.bot_side.letter(),
        where_(opts.bot_side),
    )?;
    writeln!(out, "{}", help_text(game.current()))?;
    let mut redraw = true;
    let mut announced = false;
    let mut explained_at: Option<u64> = None;
    let mut line = String::new();
    loop {
        let status = game.status();
        let pos = *game.current();
        if status.is_over() {
            if !announced {
                write!(
                    out,
                    "\n{}",
                    draw_board(&pos, opts.bot_side, game.moves().last(), opts.colour)
                )?;
                writeln!(out, "{}", announce(status, &pos, opts.bot_side))?;
                writeln!(out, "Type undo to take back your last move, or quit.")?;
                announced = true;
            }
        } else if pos.side() == opts.bot_side {
            let m = bot_move(&mut engine, &game, opts, &mut rng, &stop, &mut out)?;
            game.play(&m);
            redraw = true;
            continue;
        } else {
            announced = false;
            if redraw {
                write!(
                    out,
                    "\n{}",
                    draw_board(&pos, opts.bot_side, game.moves().last(), opts.colour)
                )?;
                redraw = false;
            }
            if pos.has_capture() && explained_at != Some(pos.hash_key()) {
                writeln!(
                    out,
                    "You have a capture, and capturing is mandatory: {}",
                    legal_list(&pos)
                )?;
                explained_at = Some(pos.hash_key());
            }
        }
        write!(
            out,
            "{}> ",
            if status.is_over() {
                "game over"
            } else {
                "your move"
            }
        )?;
        out.flush()?;
        line.clear();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(PlaySummary::of(&game, pos, status));
        }
        let text = line.trim();
        match text.to_ascii_lowercase().as_str() {
            "" => {}
            "quit" | "q" | "exit" => {
                writeln!(out, "Bye.")?;
                return Ok(PlaySummary::of(&game, pos, status));
            }
            "help" | "?" => writeln!(out, "{}", help_text(game.current()))?,
            "board" => {
                write!(
                    out,
                    "{}",
                    draw_board(&pos, opts.bot_side, game.moves().last(), opts.colour)
                )?;
            }
            "undo" | "u" => {
                if undo(&mut game, you, &mut out)? {
                    redraw = true;
                    announced = false;
                }
            }
            _ if status.is_over() => writeln!(out, "The game is over: type undo or quit.")?,
            "moves" | "m" => {
                writeln!(out, "Legal moves:")?;
                for m in sorted_moves(&pos) {
                    writeln!(out, "  {}", m.described())?;
                }
                if pos.has_capture() {
                    writeln!(
                        out,
                        "(captures are mandatory, and a multi-jump must be completed)"
                    )?;
                }
            }
            "hint" | "h" => {
                let r = engine.search(&pos, &game.history_keys(), &opts.limits, &stop, &mut |_| {});
                match r.best {
                    Some(m) => writeln!(
                        out,
                        "Hint: {} ({})",
                        m.described(),
                        thought(&r.info, r.reason, "you")
                    )?,
                    None => writeln!(out, "No legal move.")?,
                }
            }
            _ => match pos.parse_move(text) {
                Ok(m) => {
                    writeln!(out, "You: {}", m.described())?;
                    game.play(&m);
                    redraw = true;
                }
                Err(e) => refuse(&e, &pos, &mut out)?,
            },
        }
    }
}

fn refuse<W: Write>(e: &MoveError, pos: &AnyPosition, out: &mut W) -> io::Result<()> {
    writeln!(out, "Refused: {e}.")?;
    match e {
        MoveError::CaptureMandatory { .. } => writeln!(
            out,
            "In checkers a capture must be taken whenever one is available (you may choose which)."
        )?,
        MoveError::MustContinue { .. } => writeln!(
            out,
            "A multi-jump must be completed: type the whole path, every landing square."
        )?,
        MoveError::Illegal { .. } | MoveError::Ambiguous { .. } => {}
        _ => writeln!(out, "Legal moves: {}", legal_list(pos))?,
    }
    Ok(())
}

fn bot_move<W: Write>(
    engine: &mut Engine,
    game: &Game,
    opts: &PlayOptions,
    rng: &mut Rng,
    stop: &AtomicBool,
    out: &mut W,
) -> io::Result<MoveInfo> {
    let pos = game.current();
    let legal = pos.legal_moves();
    if legal.len() > 1 && rng.chance(opts.random_percent, 100) {
        let m = legal[rng.below(legal.len())].clone();
        writeln!(out, "Bot: {} (a casual move)", m.described())?;
        return Ok(m);
    }
    writeln!(out, "Bot is thinking...")?;
    out.flush()?;
    let r = choose_move(
        engine,
        pos,
        &game.history_keys(),
        &opts.limits,
        None,
        opts.misstep,
        rng,
        stop,
        &mut |_| {},
    );
    // The game loop only asks for a move when one exists; fall back to the first legal move.
    let m = r.best.unwrap_or_else(|| legal[0].clone());
    writeln!(
        out,
        "Bot: {}   [{}]",
        m.described(),
        thought(&r.info, r.reason, "the bot")
    )?;
    Ok(m)
}

/// Takes back the person's last move and the bot's reply after it; says what it did.
fn undo<W: Write>(game: &mut Game, you: Side, out: &mut W) -> io::Result<bool> {
    // Moves alternate sides, so the person has moved if the game has a ply made from a position
    // with the person to move.
    let plies = game.plies();
    let start_side = game.start().side();
    let person_moved = plies >= 2 || (plies == 1 && start_side == you);
    if !person_moved {
        writeln!(out, "Nothing to undo: you have not moved yet.")?;
        return Ok(false);
    }
    let mut taken = Vec::new();
    while let Some(m) = game.undo() {
        let mover = game.current().side();
        taken.push(format!(
            "{} {}",
            if mover == you { "your" } else { "the bot's" },
            m.notation()
        ));
        if mover == you {
            break;
        }
    }
    taken.reverse();
    writeln!(out, "Took back {}.", taken.join(" and "))?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(line: &str) -> Grid {
        Grid::parse_line(line).unwrap()
    }

    fn opts() -> PlayOptions {
        let mut o = PlayOptions::new(Level::Easy);
        o.misstep = None;
        o
    }

    fn run(start: &Grid, o: &PlayOptions, input: &str) -> (PlaySummary, String) {
        let mut out = Vec::new();
        let s = play(start, o, input.as_bytes(), &mut out).unwrap();
        (s, String::from_utf8(out).unwrap())
    }

    fn start8() -> Grid {
        crate::rules::board::initial_grid(crate::rules::geometry::BoardSize::S8)
    }

    #[test]
    fn help_shows_an_example_move_that_exists_on_the_board() {
        use crate::rules::geometry::BoardSize;
        for size in [BoardSize::S4, BoardSize::S6, BoardSize::S8, BoardSize::S12] {
            let start = crate::rules::board::initial_grid(size);
            let (_, out) = run(&start, &opts(), "help\nquit\n");
            let pos = AnyPosition::from_grid(&start, Side::Player);
            let first = sorted_moves(&pos)[0].notation();
            let wanted = format!("e.g. {first} (row letter");
            assert_eq!(out.matches(&wanted).count(), 2, "{size}: {out}");
        }
    }

    #[test]
    fn illegal_and_mistyped_moves_are_refused_with_reason_and_legal_moves() {
        let (s, out) = run(&start8(), &opts(), "G1 F2\nZ9 A1\nE1 D2\nG1\nB2 C3\nquit\n");
        assert!(out.contains("Refused: G1 F2 is not a legal move; legal moves: F2 E1, F4 E3, F6 E5, F0 E1, F2 E3, F4 E5, F6 E7."), "{out}");
        assert!(out.contains("Refused: square Z9 is off a 8x8 board.\nLegal moves: F0 E1, F2 E1, F2 E3, F4 E3, F4 E5, F6 E5, F6 E7\n"), "{out}");
        assert!(
            out.contains("Refused: there is no piece on E1.\nLegal moves: F0 E1, F2 E1"),
            "{out}"
        );
        assert!(
            out.contains("Refused: a move needs at least two squares"),
            "{out}"
        );
        assert!(
            out.contains("Refused: the piece on B2 is not yours (p is to move)."),
            "{out}"
        );
        assert_eq!(s.end, PlayEnd::Quit(Status::Ongoing));
        assert!(s.moves.is_empty());
    }

    // The person's man on F2 can take E3 and then C3 (F2 D4 B2); the bot has a man on A7 as well.
    const DOUBLE: &str = "_______b/________/___b____/________/___b____/__p_____/________/________";

    #[test]
    fn forced_capture_is_explained_and_multi_jump_accepted() {
        let (s, out) = run(&grid(DOUBLE), &opts(), "F2 E1\nF2 D4\nF2 D4 B2\nquit\n");
        assert!(
            out.contains("You have a capture, and capturing is mandatory: F2 D4 B2"),
            "{out}"
        );
        assert!(out.contains("Refused: a capture is mandatory here; legal moves: F2 D4 B2.\nIn checkers a capture must be taken"), "{out}");
        assert!(
            out.contains(
                "Refused: the jump must continue: F2 D4 B2.\nA multi-jump must be completed"
            ),
            "{out}"
        );
        assert!(out.contains("You: F2 D4 B2 captures E3 C3"), "{out}");
        // The bot answers with its only man, and says what it thought.
        assert!(out.contains("Bot: A7 B6"), "{out}");
        assert_eq!(s.moves.len(), 2);
        assert_eq!(s.position.grid().count(Side::Bot), (1, 0));
    }

    #[test]
    fn undo_restores_the_position_before_the_persons_move() {
        let start = start8();
        let (s, out) = run(&start, &opts(), "undo\nF2 E3\nundo\nquit\n");
        assert!(
            out.contains("Nothing to undo: you have not moved yet."),
            "{out}"
        );
        assert!(out.contains("You: F2 E3"), "{out}");
        assert!(out.contains("Bot: "), "{out}");
        assert!(out.contains("Took back your F2 E3 and the bot's "), "{out}");
        assert_eq!(s.position, AnyPosition::from_grid(&start, Side::Player));
        assert!(s.moves.is_empty());
        // With the bot moving first, an undo keeps the bot's first move.
        let mut o = opts();
        o.first = First::Bot;
        let (s, out) = run(&start, &o, "F2 E3\nundo\nquit\n");
        assert!(out.contains("Took back your F2 E3 and the bot's "), "{out}");
        assert_eq!(s.moves.len(), 1);
        assert_eq!(s.position.side(), Side::Player);
    }

    #[test]
    fn hint_and_moves_list() {
        let (_, out) = run(&grid(DOUBLE), &opts(), "hint\nmoves\nquit\n");
        assert!(
            out.contains("Hint: F2 D4 B2 captures E3 C3 (only move"),
            "{out}"
        );
        assert!(
            out.contains("Legal moves:\n  F2 D4 B2 captures E3 C3\n(captures are mandatory"),
            "{out}"
        );
        let (_, out) = run(&start8(), &opts(), "hint\nquit\n");
        assert!(out.contains("Hint: F"), "{out}");
        assert!(out.contains("depth 2, score cp"), "{out}");
        assert!(out.contains(" for you, "), "{out}");
        assert!(out.contains("; expects "), "{out}");
    }

    #[test]
    fn game_over_is_announced() {
        // The person takes the bot's last piece.
        let last = "________/________/________/________/________/__b_____/___p____/________";
        let (s, out) = run(&grid(last), &opts(), "G3 E1\nF0 E1\nquit\n");
        assert!(
            out.contains("Game over: you win! The bot has no pieces left."),
            "{out}"
        );
        assert!(
            out.contains("The game is over: type undo or quit."),
            "{out}"
        );
        assert_eq!(
            s.end,
            PlayEnd::Over(Status::Win {
                winner: Side::Player
            })
        );
        // The bot, moving first, takes the person's last piece.
        let mut o = opts();
        o.first = First::Bot;
        let (s, out) = run(&grid(last), &o, "");
        assert!(out.contains("Bot: F2 H4 captures G3"), "{out}");
        assert!(
            out.contains("Game over: the bot wins. You have no pieces left."),
            "{out}"
        );
        assert_eq!(s.end, PlayEnd::Over(Status::Win { winner: Side::Bot }));
        // Undo after the end takes back the winning move and play goes on.
        let (s, out) = run(&grid(last), &opts(), "G3 E1\nundo\nquit\n");
        assert!(out.contains("Took back your G3 E1."), "{out}");
        assert_eq!(s.end, PlayEnd::Quit(Status::Ongoing));
    }

    #[test]
    fn easy_level_plays_casual_moves_and_draws_are_announced() {
        let mut o = opts();
        o.random_percent = 100;
        o.first = First::Bot;
        let (s, out) = run(&start8(), &o, "");
        assert!(out.contains("(a casual move)"), "{out}");
        assert_eq!(s.moves.len(), 1);
        let pos = AnyPosition::initial(crate::rules::geometry::BoardSize::S8, Side::Player);
        assert!(announce(Status::DrawRepetition, &pos, Side::Bot).contains("draw by repetition"));
        assert!(announce(Status::DrawNoProgress, &pos, Side::Bot).contains("no-progress rule"));
        // A blocked side loses with its pieces still on the board.
        let blocked = AnyPosition::from_grid(&grid("____/__b_/_b__/p___"), Side::Player);
        let text = announce(Status::Win { winner: Side::Bot }, &blocked, Side::Bot);
        assert_eq!(
            text,
            "Game over: the bot wins. You have no legal move (every piece is blocked)."
        );
    }

    #[test]
    fn bot_can_play_the_bottom_side_and_boards_of_every_size_draw() {
        let mut o = opts();
        o.bot_side = Side::Player;
        o.first = First::Bot;
        let start = crate::rules::board::initial_grid(crate::rules::geometry::BoardSize::S10);
        let (s, out) = run(&start, &o, "quit\n");
        assert!(
            out.contains("You play b (top, moving down); the bot plays p (bottom, moving up)"),
            "{out}"
        );
        assert!(out.starts_with("checkersbot: 10x10"), "{out}");
        assert_eq!(s.moves.len(), 1);
        assert!(
            out.contains("     0  1  2  3  4  5  6  7  8  9 \n"),
            "{out}"
        );
        assert!(
            out.contains(&format!("  J {} J\n", " p    ".repeat(5))),
            "{out}"
        );
        assert!(!out.contains('\x1b'));
        for size in crate::rules::geometry::BoardSize::ALL {
            let pos = AnyPosition::initial(size, Side::Player);
            let plain = draw_board(&pos, Side::Bot, None, false);
            assert_eq!(plain.lines().count(), size.n() + 3);
            let coloured = draw_board(&pos, Side::Bot, None, true);
            assert!(coloured.contains(BOT_FG) && coloured.contains(YOU_FG));
        }
        assert!(want_colour(true, None));
        assert!(!want_colour(true, Some("1".into())));
        assert!(!want_colour(false, None));
    }
}
