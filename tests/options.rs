//! The `options` list and `serve --help` agree: every option has its flag, with the same range
//! (from `engine::bounds`) or the same choices; every `serve` flag that sets a daemon setting is an
//! option; and the daemon's `options` reply is that list.

mod common;

use checkersbot::daemon::options::specs;
use checkersbot::daemon::protocol::{OptionLine, OptionType, Reply};
use checkersbot::daemon::transport::MemorySink;
use checkersbot::daemon::{replay, Settings};
use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

/// `serve --help` split into each flag's text (the flag line and its continuation lines).
fn help_by_flag() -> BTreeMap<String, String> {
    let out = common::without_colours(&mut Command::new(env!("CARGO_BIN_EXE_checkersbot")))
        .args(["serve", "--help"])
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut flags = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("--").or_else(|| {
            t.strip_prefix("-h, --")
                .or_else(|| t.get(4..).and_then(|r| r.strip_prefix("--")))
        }) {
            let name = rest.split([' ', '<']).next().unwrap_or("").to_string();
            flags.insert(name.clone(), t.to_string());
            current = Some(name);
        } else if let Some(c) = &current {
            if let Some(v) = flags.get_mut(c) {
                v.push(' ');
                v.push_str(t);
            }
        }
    }
    flags
}

#[test]
fn serve_help_and_the_option_list_agree() {
    let help = help_by_flag();
    let list = specs(&Settings::default(), Duration::ZERO);
    // Flags of the process, not options of a game: the transport, the operator page, logging,
    // seeds, the endgame database's memory cap (which `set egdb` also uses) and its background
    // build (into the cache, at the start) and that build's priority.
    let mut covered = vec![
        "help",
        "log-level",
        "serial",
        "listen",
        "baud",
        "tcp-timeout",
        "token-file",
        "http",
        "allow-paths",
        "seed",
        "strict",
        "egdb-cache",
        "egdb-build",
        "egdb-priority",
    ];
    for spec in &list {
        // `timeleft` corrects the clock during a game: the one option with no flag.
        if spec.line.name == "timeleft" {
            assert_eq!(spec.flag, None);
            continue;
        }
        let flag = spec.flag.expect("every option has a serve flag");
        let name = flag.trim_start_matches("--");
        covered.push(name);
        let text = help
            .get(name)
            .unwrap_or_else(|| panic!("serve --help has no {flag} (option {})", spec.line.name));
        match &spec.line.kind {
            OptionType::Int { min, max } => assert!(
                text.contains(&format!("({min} to {max}")),
                "{flag}: the help does not give the range {min} to {max}: {text}"
            ),
            OptionType::Choice(words) => {
                for w in words {
                    assert!(text.contains(w.as_str()), "{flag}: '{w}' missing: {text}");
                }
            }
            OptionType::Bool | OptionType::Text => {}
        }
    }
    for flag in help.keys() {
        assert!(
            covered.contains(&flag.as_str()),
            "serve --{flag} sets no option of the options list"
        );
    }
}

#[test]
fn the_options_reply_is_the_list() {
    let sink = MemorySink::default();
    replay(
        Settings::deterministic(),
        std::io::Cursor::new(b"set level easy\noptions\n".to_vec()),
        Box::new(sink.clone()),
    )
    .expect("a 16 MiB table");
    let lines = sink.0.lock().map(|l| l.clone()).unwrap_or_default();
    let mut now = Settings::deterministic();
    now.set_level(checkersbot::play::level::Level::Easy);
    let want: Vec<String> = specs(&now, Duration::ZERO)
        .iter()
        .map(|s| s.line.to_string())
        .collect();
    assert_eq!(lines[0], "ok");
    assert_eq!(&lines[1..=want.len()], want.as_slice());
    assert_eq!(lines[want.len() + 1], "ok");
    for l in &want {
        let parsed = OptionLine::parse(l).expect("an option line reads back");
        assert_eq!(parsed.to_string(), *l);
        assert!(matches!(Reply::parse(l), Ok(Reply::Option(_))));
    }
}
