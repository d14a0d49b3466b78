//! The documentation cannot drift from the program:
//!
//! - `docs/cli.md` holds the `--help` text of every command and subcommand, each under a marker
//!   `<!-- help: checkersbot SUB -->`, compared with what the binary prints (a command without its
//!   block fails the test; `CHECKERSBOT_BLESS=1 cargo test --release --test docs` rewrites the
//!   blocks and adds the missing ones, keeping the prose around them);
//! - every command line shown in README.md, `docs/` and `protocol/` parses with the real command
//!   line definitions (`src/cli/`, included below): a complete command (no placeholders) must parse
//!   as it stands, and a synopsis (`--movetime MS`, `[--depth N]`, `a|b`) must name only flags that
//!   exist for its subcommand. The research log (`docs/experiments/`) is exempt: it records commands
//!   as they ran at the commit it names;
//! - every transcript in those files (a fenced block whose lines all start `> ` or `< `) replays
//!   through the daemon in deterministic mode (depth 6, one thread, `info off` unless the block sets
//!   it) with the replies shown; a reply line ending in `...` matches any line that starts with the
//!   text before it.

#[allow(dead_code, unused_imports)]
#[path = "../src/cli/mod.rs"]
mod cli;
mod common;

use clap::{CommandFactory, Parser};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bless() -> bool {
    std::env::var_os("CHECKERSBOT_BLESS").is_some_and(|v| v != "0")
}

/// The markdown files whose commands and transcripts are checked, relative to the root.
fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md")];
    for dir in ["docs", "protocol", "protocol/client", "contrib"] {
        let Ok(rd) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        let mut v: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .filter_map(|p| p.strip_prefix(root()).ok().map(Path::to_path_buf))
            .collect();
        v.sort();
        files.extend(v);
    }
    files
}

/// A fenced code block: its info string, its lines and the line number of its first line.
struct Block {
    lang: String,
    lines: Vec<String>,
    first_line: usize,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().starts_with("```");
        match (&mut current, fence) {
            (None, true) => {
                current = Some(Block {
                    lang: line.trim_start().trim_start_matches('`').trim().to_string(),
                    lines: Vec::new(),
                    first_line: i + 2,
                })
            }
            (Some(_), true) => out.extend(current.take()),
            (Some(b), false) => b.lines.push(line.to_string()),
            (None, false) => {}
        }
    }
    out
}

/// Splits a shell line into words, honouring single and double quotes and dropping a trailing
/// `# comment`.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c == '#' && !in_word => break,
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The arguments after the program name, if `words` (one command of a pipeline) runs checkersbot.
fn checkersbot_args(words: &[String]) -> Option<Vec<String>> {
    let mut w = words;
    // Prefixes that run the next word: environment assignments, sudo, nohup, time.
    while let Some(first) = w.first() {
        let f = first.as_str();
        if f.contains('=') && !f.starts_with('-') && !f.contains('/') || f == "sudo" || f == "nohup"
        {
            w = &w[1..];
        } else if f == "/usr/bin/time" {
            w = &w[1..];
            while w.first().is_some_and(|x| x.starts_with('-')) {
                w = &w[1..];
            }
        } else {
            break;
        }
    }
    let first = w.first()?;
    let program = first.strip_prefix("ExecStart=").unwrap_or(first);
    if program == "cargo" && w.get(1).is_some_and(|x| x == "run") {
        let dashes = w.iter().position(|x| x == "--")?;
        return Some(w[dashes + 1..].to_vec());
    }
    if program == "checkersbot" || program.ends_with("/checkersbot") {
        return Some(w[1..].to_vec());
    }
    None
}

/// Whether `arg` is a placeholder or synopsis notation rather than a real value.
fn is_placeholder(arg: &str) -> bool {
    let letters: String = arg.chars().filter(|c| c.is_ascii_alphabetic()).collect();
    arg.contains('[')
        || arg.contains(']')
        || arg.contains('|')
        || arg.contains("...")
        || arg.contains("/--")
        || (!letters.is_empty()
            && letters.chars().all(|c| c.is_ascii_uppercase())
            && !arg.contains('/')
            && !arg.contains('_'))
}

/// Checks one command line; returns a description of the fault.
fn check_command(args: &[String], inline: bool) -> Result<(), String> {
    let synopsis = args.iter().any(|a| is_placeholder(a));
    // A mention of a command (`checkersbot egdb build` in a sentence or a title): the command
    // must exist.
    let mention = inline && !args.is_empty() && args.iter().all(|a| !a.starts_with('-'));
    if mention && !synopsis {
        let mut cmd = cli::Cli::command();
        for name in args {
            match cmd.find_subcommand(name) {
                Some(sub) => cmd = sub.clone(),
                None => return Err(format!("no command `{name}`")),
            }
        }
        return Ok(());
    }
    if !synopsis {
        let mut full = vec!["checkersbot".to_string()];
        full.extend(args.iter().cloned());
        return cli::Cli::try_parse_from(&full)
            .map(|_| ())
            .map_err(|e| e.to_string().lines().next().unwrap_or("").to_string());
    }
    // A synopsis: find the subcommand, then check each flag exists for it.
    let mut cmd = cli::Cli::command();
    cmd.build();
    let mut globals: Vec<String> = cmd
        .get_arguments()
        .filter_map(|a| a.get_long().map(str::to_string))
        .collect();
    globals.push("help".into());
    let mut current = cmd;
    let mut rest = args;
    while let Some(first) = rest.first() {
        match current.find_subcommand(first) {
            Some(sub) => {
                current = sub.clone();
                rest = &rest[1..];
            }
            None => break,
        }
    }
    let known: Vec<String> = current
        .get_arguments()
        .flat_map(|a| {
            let mut names: Vec<String> = a.get_long().map(str::to_string).into_iter().collect();
            names.extend(
                a.get_all_aliases()
                    .unwrap_or_default()
                    .into_iter()
                    .map(str::to_string),
            );
            names
        })
        .chain(globals)
        .collect();
    for arg in rest {
        for part in arg.split(['[', ']', '|', '/']) {
            let Some(flag) = part.strip_prefix("--") else {
                continue;
            };
            let flag = flag.split('=').next().unwrap_or(flag);
            if !flag.is_empty() && !known.iter().any(|k| k == flag) {
                return Err(format!("no flag --{flag} for `{}`", current.get_name()));
            }
        }
    }
    Ok(())
}

/// Every checkersbot command line of a markdown text: from shell code blocks (whole lines, split
/// at pipes and `&&`), and from inline code spans that start with `checkersbot `.
fn command_lines(text: &str) -> Vec<(usize, Vec<String>, bool)> {
    let mut found = Vec::new();
    for b in blocks(text) {
        if !matches!(
            b.lang.as_str(),
            "" | "sh" | "bash" | "console" | "ini" | "text"
        ) {
            continue;
        }
        let mut joined = String::new();
        let mut start = b.first_line;
        for (i, line) in b.lines.iter().enumerate() {
            if joined.is_empty() {
                start = b.first_line + i;
            }
            let line = line.trim_start_matches("$ ");
            if let Some(cont) = line.strip_suffix('\\') {
                joined.push_str(cont);
                joined.push(' ');
                continue;
            }
            joined.push_str(line);
            let words = shell_words(&joined);
            for segment in words.split(|w| w == "|" || w == "&&" || w == ";") {
                if let Some(args) = checkersbot_args(segment) {
                    found.push((start, args, false));
                }
            }
            joined.clear();
        }
    }
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        for (j, span) in line.split('`').enumerate() {
            if j % 2 == 1 && span.starts_with("checkersbot ") {
                let words = shell_words(span);
                if let Some(args) = checkersbot_args(&words) {
                    found.push((i + 1, args, true));
                }
            }
        }
    }
    found
}

#[test]
fn every_command_line_in_the_docs_parses() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for file in doc_files() {
        let text = std::fs::read_to_string(root().join(&file)).unwrap_or_default();
        for (line, args, inline) in command_lines(&text) {
            checked += 1;
            if let Err(e) = check_command(&args, inline) {
                failures.push(format!(
                    "{}:{line}: checkersbot {}: {e}",
                    file.display(),
                    args.join(" ")
                ));
            }
        }
    }
    assert!(checked > 40, "only {checked} command lines found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_checker_tells_real_commands_from_wrong_ones() {
    let args = |s: &str| shell_words(s);
    assert!(check_command(&args("serve --level easy --movetime 500"), true).is_ok());
    assert!(check_command(&args("serve --levle easy"), true).is_err());
    assert!(check_command(&args("serve --level impossible"), true).is_err());
    assert!(check_command(&args("search --movetime MS [--depth N]"), true).is_ok());
    assert!(check_command(&args("search --movetime MS [--deep N]"), true).is_err());
    assert!(check_command(&args("egdb probe [--board ROWS --side p|b]"), true).is_ok());
    assert!(check_command(&args("frobnicate"), true).is_err());
    assert!(check_command(&args("egdb build"), true).is_ok());
    assert!(check_command(&args("egdb build"), false).is_err());
    assert!(check_command(&args("egdb rebuild"), true).is_err());
    assert!(check_command(&args("match --level-a/--level-b"), true).is_ok());
    assert!(check_command(&args("match --games N"), true).is_ok());
    let found = command_lines("```sh\necho x | checkersbot egdb probe   # note\ncargo run --release -- play --size 6\n```\nand `checkersbot moves --board ROWS --side p`.\n");
    let found: Vec<Vec<String>> = found.into_iter().map(|(_, a, _)| a).collect();
    assert_eq!(
        found,
        vec![
            args("egdb probe"),
            args("play --size 6"),
            args("moves --board ROWS --side p")
        ]
    );
}

/// Every command path (`["egdb", "build"]`) of the command line, depth first.
fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands() {
            if sub.get_name() == "help" {
                continue;
            }
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_string());
            out.push(path.clone());
            walk(sub, &path, out);
        }
    }
    let mut cmd = cli::Cli::command();
    cmd.build();
    let mut out = vec![Vec::new()];
    walk(&cmd, &[], &mut out);
    out
}

fn help_of(path: &[String]) -> String {
    let out = common::without_colours(&mut Command::new(env!("CARGO_BIN_EXE_checkersbot")))
        .args(path)
        .arg("--help")
        .output()
        .expect("run checkersbot --help");
    assert!(out.status.success(), "{path:?} --help failed");
    String::from_utf8_lossy(&out.stdout).trim_end().to_string()
}

fn marker(path: &[String]) -> String {
    let mut name = String::from("checkersbot");
    for p in path {
        name.push(' ');
        name.push_str(p);
    }
    format!("<!-- help: {name} -->")
}

#[test]
fn the_cli_reference_holds_every_commands_help() {
    let file = root().join("docs/cli.md");
    let mut text = std::fs::read_to_string(&file).unwrap_or_default();
    let mut failures = Vec::new();
    for path in command_paths() {
        let help = help_of(&path);
        let mark = marker(&path);
        let block = format!("{mark}\n```text\n{help}\n```");
        match text.find(&mark) {
            Some(at) => {
                // The block runs from the marker to the closing fence after its opening one.
                let after = &text[at..];
                let open = after.find("```text\n").map(|i| i + "```text\n".len());
                // An empty block (a new command's, to be blessed) closes at once.
                let close = open.and_then(|o| match after[o..].starts_with("```") {
                    true => Some(o + 3),
                    false => after[o..].find("\n```").map(|c| o + c + 4),
                });
                let Some(end) = close else {
                    failures.push(format!("{mark}: no ```text block after it"));
                    continue;
                };
                if after[..end] != block {
                    if bless() {
                        text.replace_range(at..at + end, &block);
                    } else {
                        failures.push(format!(
                            "{mark}: the help text differs from `checkersbot {} --help`",
                            path.join(" ")
                        ));
                    }
                }
            }
            None if bless() => {
                let title = if path.is_empty() {
                    "checkersbot".to_string()
                } else {
                    format!("checkersbot {}", path.join(" "))
                };
                text.push_str(&format!("\n## `{title}`\n\n{block}\n"));
            }
            None => failures.push(format!("{mark}: missing from docs/cli.md")),
        }
    }
    if bless() {
        std::fs::write(&file, text).expect("write docs/cli.md");
        return;
    }
    assert!(
        failures.is_empty(),
        "{}\n(CHECKERSBOT_BLESS=1 cargo test --release --test docs rewrites the blocks)",
        failures.join("\n")
    );
}

/// A transcript block's lines, if every non-blank line starts `> ` or `< `.
fn transcript(b: &Block) -> Option<&[String]> {
    let lines: Vec<&String> = b.lines.iter().filter(|l| !l.trim().is_empty()).collect();
    let is = !lines.is_empty()
        && lines.iter().any(|l| l.starts_with("< "))
        && lines
            .iter()
            .all(|l| l.starts_with("> ") || l.starts_with("< ") || *l == ">" || *l == "<");
    is.then_some(&b.lines[..])
}

#[test]
fn every_transcript_in_the_docs_replays() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for file in doc_files() {
        let text = std::fs::read_to_string(root().join(&file)).unwrap_or_default();
        let all = blocks(&text);
        for (i, b) in all.iter().enumerate() {
            let Some(lines) = transcript(b) else {
                continue;
            };
            replayed += 1;
            let requests: Vec<&str> = lines
                .iter()
                .filter(|l| l.starts_with('>'))
                .map(|l| l.trim_start_matches('>').trim_start())
                .collect();
            // After a `serve` command, what that command answers; else the deterministic replay
            // with `set info off`.
            let got: Vec<String> = match i.checked_sub(1).and_then(|j| serve_command(&all[j])) {
                Some(flags) => requests
                    .iter()
                    .zip(serve_answers(&flags, &requests))
                    .flat_map(|(r, replies)| {
                        std::iter::once(format!("> {r}"))
                            .chain(replies.into_iter().map(|l| format!("< {l}")))
                    })
                    .collect(),
                None => {
                    let mut input = String::from("set info off\n");
                    for r in &requests {
                        input.push_str(r);
                        input.push('\n');
                    }
                    common::replay_transcript(input.into_bytes())
                        .into_iter()
                        .skip(2) // the `set info off` line and its `ok`
                        .collect()
                }
            };
            let want: Vec<&String> = lines.iter().filter(|l| !l.trim().is_empty()).collect();
            let place = format!("{}:{}", file.display(), b.first_line);
            for (i, w) in want.iter().enumerate() {
                let Some(g) = got.get(i) else {
                    failures.push(format!("{place}: the daemon wrote no line for `{w}`"));
                    break;
                };
                let ok = match w.strip_suffix("...") {
                    Some(prefix) => g.starts_with(prefix.trim_end()),
                    None => g == *w,
                };
                if !ok {
                    failures.push(format!(
                        "{place}: line {}:\n  doc:    {w}\n  daemon: {g}",
                        i + 1
                    ));
                    break;
                }
            }
            if got.len() > want.len() {
                failures.push(format!(
                    "{place}: the daemon wrote more lines than the doc shows, from `{}`",
                    got[want.len()]
                ));
            }
        }
    }
    assert!(replayed >= 3, "only {replayed} transcripts found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What `serve FLAGS` answers to `requests`, typed one at a time as a person would: each sent
/// once the one before has its final reply (a line other than `info ...`), and `quit` after the
/// last if the requests do not end with it (a `quit` that arrives during the search ends the easy
/// level's deliberate slip early). The lines the daemon writes to each request, in order.
fn serve_answers(flags: &[String], requests: &[&str]) -> Vec<Vec<String>> {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_checkersbot"))
        .arg("serve")
        .args(flags)
        .args(["--log-level", "off"])
        .env("XDG_CACHE_HOME", common::NO_CACHE)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("serve starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let lines = common::line_channel(child.stdout.take().expect("stdout"));
    let mut got = Vec::new();
    for line in requests {
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .expect("write");
        stdin.flush().expect("flush");
        let mut replies = Vec::new();
        loop {
            let Ok(reply) = lines.recv_timeout(common::WAIT) else {
                replies.push(format!("(no reply to `{line}` in {:?})", common::WAIT));
                break;
            };
            let last = !reply.starts_with("info ");
            replies.push(reply);
            if last {
                break;
            }
        }
        got.push(replies);
    }
    if requests.last() != Some(&"quit") {
        let _ = stdin.write_all(b"quit\n");
    }
    drop(stdin);
    child.wait().expect("serve ends");
    got
}

/// The flags of the `serve` command a shell block ends with (`... checkersbot serve FLAGS`), if
/// it does: the transcript after such a block is what that command answers.
fn serve_command(b: &Block) -> Option<Vec<String>> {
    if b.lang != "sh" {
        return None;
    }
    let last = b.lines.iter().rev().find(|l| !l.trim().is_empty())?;
    let words = shell_words(last);
    let at = words.iter().position(|w| w.ends_with("checkersbot"))?;
    (words.get(at + 1)? == "serve").then(|| words[at + 2..].to_vec())
}

/// The README's opening picture: the exchange it shows, every request and every reply, is what
/// `serve`, started with the flags it names, answers, line for line.
#[test]
fn the_readmes_opening_example_is_what_serve_answers() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap_or_default();
    let first = blocks(&text)
        .into_iter()
        .next()
        .expect("a first code block");
    let flags: Vec<String> = first
        .lines
        .iter()
        .find_map(|l| l.split_once("(checkersbot serve"))
        .and_then(|(_, f)| f.split_once(')'))
        .map(|(f, _)| f.split_whitespace().map(str::to_string).collect())
        .expect("the picture names the serve command: (checkersbot serve FLAGS)");
    // The exchange is drawn beside the board: `> request` and `< reply` after the board art.
    let exchange: Vec<&str> = first
        .lines
        .iter()
        .filter_map(|l| {
            l.find(" > ")
                .or_else(|| l.find(" < "))
                .map(|i| l[i..].trim())
        })
        .collect();
    let sent: Vec<&str> = exchange
        .iter()
        .filter_map(|l| l.strip_prefix("> "))
        .collect();
    let want: Vec<&str> = exchange
        .iter()
        .filter_map(|l| l.strip_prefix("< "))
        .collect();
    assert!(
        sent.first() == Some(&"newgame") && want.last().is_some_and(|l| l.starts_with("move ")),
        "the picture shows a whole exchange, from newgame to the move: {exchange:?}"
    );
    let got: Vec<String> = serve_answers(&flags, &sent).concat();
    assert_eq!(
        got,
        want,
        "README.md's opening picture against `serve {}`",
        flags.join(" ")
    );
}

/// `contrib/`: the systemd unit and the udev rule that docs/integration.md shows are the files
/// themselves; the unit's `ExecStart` is a command line that parses, and `systemd-analyze verify`
/// accepts the unit (with the binary just built in place of `/usr/local/bin/checkersbot`) where
/// systemd is installed (CI's machines have it; elsewhere that part is skipped with a note); each
/// udev rule is `KEY=="value"`, `KEY+="value"` or `KEY="value"` items separated by commas.
#[test]
fn contrib_files_are_valid_and_the_ones_documented() {
    let guide = std::fs::read_to_string(root().join("docs/integration.md")).expect("guide");
    let unit = std::fs::read_to_string(root().join("contrib/checkersbot.service")).expect("unit");
    let rules =
        std::fs::read_to_string(root().join("contrib/99-checkersbot.rules")).expect("rules");
    assert!(
        guide.contains(&format!("```ini\n{unit}```")),
        "docs/integration.md shows another unit"
    );
    for section in ["[Unit]", "[Service]", "[Install]"] {
        assert!(unit.lines().any(|l| l == section), "{section} missing");
    }
    let exec = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("ExecStart");
    let words = shell_words(exec);
    let args = checkersbot_args(&words).expect("ExecStart runs checkersbot");
    assert_eq!(check_command(&args, false), Ok(()));
    let mut rule_lines = 0;
    for line in rules
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        rule_lines += 1;
        assert!(
            guide.contains(line),
            "docs/integration.md shows another rule than {line}"
        );
        for item in line.split(", ") {
            let (key, value) = item
                .split_once("==")
                .or_else(|| item.split_once("+="))
                .or_else(|| item.split_once('='))
                .unwrap_or_else(|| panic!("not KEY=VALUE: {item}"));
            let key_ok = key
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_lowercase() || "{}_".contains(c));
            assert!(key_ok && !key.is_empty(), "bad key in {item}");
            assert!(
                value.len() >= 2 && value.starts_with('"') && value.ends_with('"'),
                "value not quoted in {item}"
            );
        }
    }
    assert_eq!(rule_lines, 1);
    let dir = std::env::temp_dir().join(format!("checkersbot-unit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let copy = dir.join("checkersbot.service");
    std::fs::write(
        &copy,
        unit.replace(
            "/usr/local/bin/checkersbot",
            env!("CARGO_BIN_EXE_checkersbot"),
        ),
    )
    .expect("write the unit");
    match Command::new("systemd-analyze")
        .arg("verify")
        .arg(&copy)
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "systemd-analyze verify: {}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("systemd-analyze verify skipped: {e}")
        }
        Err(e) => panic!("systemd-analyze is needed in CI: {e}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
