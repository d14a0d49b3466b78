//! The daemon's options as a list: name, type, range or choices, default and current value, for
//! the `options` request, and the `serve` flag that sets each one, so that a test can check that
//! `serve --help` and the list agree. Ranges come from [`crate::engine::bounds`], choices from the
//! types they name ([`Level`], [`Style`], [`InfoMode`], [`BoardSize`]).

use super::protocol::{InfoMode, OptionLine, OptionType};
use super::settings::Settings;
use crate::camera::tracking::AutoNewGame;
use crate::engine::bounds::{DEPTH, HASH_MB, MOVETIME_MS, NODES, THREADS, TIMELEFT_MS};
use crate::play::level::{Level, Style};
use crate::rules::geometry::BoardSize;
use std::time::Duration;

/// One option: its line in the `options` list and the `serve` flag that sets it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The line (with the value of the settings it was made from).
    pub line: OptionLine,
    /// The `serve` flag (`--movetime`), or `None` when only `set` changes it.
    pub flag: Option<&'static str>,
}

fn on_off(b: bool) -> String {
    if b { "on" } else { "off" }.to_string()
}

fn int<T: Into<u64> + Copy>(range: &std::ops::RangeInclusive<T>) -> OptionType {
    OptionType::Int {
        min: (*range.start()).into(),
        max: (*range.end()).into(),
    }
}

fn choice(words: impl IntoIterator<Item = &'static str>) -> OptionType {
    OptionType::Choice(words.into_iter().map(str::to_string).collect())
}

/// Every option with its value in `now`; defaults are those of [`Settings::default`] (`serve`
/// without flags).
pub fn specs(now: &Settings, clock_left: Duration) -> Vec<OptionSpec> {
    let d = Settings::default();
    let ms = |s: &Settings| s.movetime.map_or(0, |t| t.as_millis() as u64).to_string();
    let depth = |s: &Settings| s.depth.unwrap_or(0).to_string();
    let nodes = |s: &Settings| s.nodes.unwrap_or(0).to_string();
    let path = |p: &Option<std::path::PathBuf>| {
        p.as_ref()
            .map_or_else(|| "off".to_string(), |p| p.display().to_string())
    };
    let spec = |name: &str, kind: OptionType, default: String, value: String, flag| OptionSpec {
        line: OptionLine {
            name: name.to_string(),
            kind,
            default,
            value,
        },
        flag,
    };
    let usize_range = |r: &std::ops::RangeInclusive<usize>| OptionType::Int {
        min: *r.start() as u64,
        max: *r.end() as u64,
    };
    vec![
        spec(
            "level",
            choice(Level::ALL.map(Level::name)),
            d.level.name().into(),
            now.level.name().into(),
            Some("--level"),
        ),
        spec(
            "style",
            choice(Style::ALL.map(Style::name)),
            d.style.name().into(),
            now.style.name().into(),
            Some("--style"),
        ),
        spec(
            "movetime",
            int(&MOVETIME_MS),
            ms(&d),
            ms(now),
            Some("--movetime"),
        ),
        spec("depth", int(&DEPTH), depth(&d), depth(now), Some("--depth")),
        spec("nodes", int(&NODES), nodes(&d), nodes(now), Some("--nodes")),
        spec(
            "threads",
            usize_range(&THREADS),
            d.threads.to_string(),
            now.threads.to_string(),
            Some("--threads"),
        ),
        spec(
            "hash",
            usize_range(&HASH_MB),
            d.hash_mb.to_string(),
            now.hash_mb.to_string(),
            Some("--hash"),
        ),
        spec(
            "size",
            OptionType::Choice(BoardSize::ALL.iter().map(|s| s.n().to_string()).collect()),
            d.size.n().to_string(),
            now.size.n().to_string(),
            Some("--layout"),
        ),
        spec(
            "strict",
            OptionType::Bool,
            on_off(d.strict),
            on_off(now.strict),
            Some("--lenient"),
        ),
        spec(
            "colouronly",
            OptionType::Bool,
            on_off(d.colour_only),
            on_off(now.colour_only),
            Some("--colour-only"),
        ),
        spec(
            "rotated",
            OptionType::Bool,
            on_off(d.rotated),
            on_off(now.rotated),
            Some("--rotated"),
        ),
        spec(
            "autonewgame",
            choice(AutoNewGame::ALL.map(AutoNewGame::word)),
            d.auto_newgame.word().into(),
            now.auto_newgame.word().into(),
            Some("--auto-newgame"),
        ),
        spec(
            "info",
            choice([InfoMode::Iterations, InfoMode::Final, InfoMode::Off].map(InfoMode::word)),
            d.info.word().into(),
            now.info.word().into(),
            Some("--info"),
        ),
        spec(
            "eval",
            OptionType::Text,
            crate::engine::eval::DEFAULT_EVAL.into(),
            now.eval_name.clone(),
            Some("--eval"),
        ),
        spec(
            "egdb",
            OptionType::Text,
            "off".into(),
            path(&now.egdb_dir),
            Some("--egdb"),
        ),
        spec(
            "book",
            OptionType::Text,
            d.book_name.clone(),
            now.book_name.clone(),
            Some("--book"),
        ),
        spec(
            "record",
            OptionType::Text,
            "off".into(),
            path(&now.record),
            Some("--record"),
        ),
        spec(
            "clock",
            OptionType::Text,
            "off".into(),
            now.clock
                .map_or_else(|| "off".to_string(), |tc| tc.to_string()),
            Some("--clock"),
        ),
        // A correction of the daemon's own count during a game: no command-line form.
        spec(
            "timeleft",
            int(&TIMELEFT_MS),
            "0".into(),
            (clock_left.as_millis() as u64).to_string(),
            None,
        ),
        spec(
            "ponder",
            OptionType::Bool,
            on_off(d.ponder),
            on_off(now.ponder),
            Some("--ponder"),
        ),
    ]
}
