//! The operator page's content, made from a [`Snapshot`]: the HTML page, the live part of it that
//! server-sent events replace, `/status.json` and the game record. Pure functions of the snapshot
//! and the time it is shown at (`now`, for the ages of the camera's board and the link's last
//! line): the web threads of [`crate::operator::http`] call them, never the daemon. What the page
//! says (headline, explanation, who acts, the reply shown) is decided by
//! [`crate::operator::state::decide`] alone.
//!
//! Boards are drawn by [`crate::render`] and inlined as SVG. Every board is a
//! `<figure class="board" id="board-...">` whose picture carries the squares and pieces as data
//! attributes (`data-square="F2" data-piece="p"`, highlights `rect.highlight`), so that a browser
//! test, or a person with the developer tools, can read the page back.
//!
//! ```
//! use checkersbot::operator::page::{page, status_json};
//! use checkersbot::daemon::snapshot::Snapshot;
//! use std::time::Instant;
//!
//! let snap = Snapshot::default();
//! let now = Instant::now();
//! assert!(page(&snap, 1, now).contains(r#"<main id="live""#));
//! assert!(status_json(&snap, 1, now).starts_with(r#"{"version":1,"state":"nogame","#));
//! ```

use crate::daemon::protocol::{result_word, GameState};
use crate::daemon::protocol::{InfoLine, Reply, ScoreText, SearchInfo};
use crate::daemon::snapshot::{LinkKind, LinkView, SearchView, Snapshot};
use crate::operator::state::decide;
use crate::render::{board_svg, escape, piece_svg, Picture};
use crate::rules::board::Grid;
use crate::rules::game::Status;
use crate::rules::geometry::{BoardSize, Coord};
use crate::rules::pdn::{write_game, GameResult, RecordInfo};
use crate::rules::position::{Piece, Side};
use std::fmt::Write as _;
use std::time::Instant;

/// How many moves of the principal variation are drawn as arrows.
pub const PV_ARROWS: usize = 3;

/// The path of the game record on the page's server (8x8 games only).
pub const RECORD_PATH: &str = "/game.pdn";

/// A board line read back; a board the daemon kept cannot fail, but a picture is not worth a
/// panic.
fn grid(rows: Option<&str>) -> Option<Grid> {
    rows.and_then(|r| Grid::parse_line_allowing_uncrowned(r).ok())
}

/// The board the daemon waits to see: the position after the bot's move while the arm makes it,
/// else the game's position.
pub fn expected_rows(snap: &Snapshot) -> Option<&str> {
    snap.status
        .expect
        .as_deref()
        .or(snap.status.position.as_deref())
}

/// The squares where the camera's last board differs from the board the daemon waits for (empty
/// when either is missing or their sizes differ).
pub fn differing(snap: &Snapshot) -> Vec<Coord> {
    match (grid(expected_rows(snap)), grid(snap.status.seen.as_deref())) {
        (Some(expected), Some(seen)) => expected.diff(&seen),
        _ => Vec::new(),
    }
}

/// The squares the daemon's diagnosis says to check, when the last board is a misread (alone, in
/// the same frame as a move, or with several equally near explanations): the squares its
/// `error illegal-transition SQUARES: misread: ...` or `... ambiguous: ...` reply names. `None`
/// for any other reply.
pub fn squares_to_check(snap: &Snapshot) -> Option<Vec<Coord>> {
    let reply = snap.status.diagnosis.as_deref()?;
    let rest = reply.strip_prefix("error illegal-transition ")?;
    let (squares, words) = rest.split_once(": ")?;
    let class = words.split_once(": ")?.0;
    if class != "misread" && class != "ambiguous" {
        return None;
    }
    let n = grid(snap.status.seen.as_deref())?.size().n();
    squares
        .split(',')
        .map(|s| crate::rules::geometry::parse_coord(s, n).ok())
        .collect()
}

/// A score as a point on a bar from -1 (the bot loses) to 1 (the bot wins), from the searching
/// side's view: a man ahead (100) is about 0.4.
pub fn score_bar(score: ScoreText) -> f64 {
    match score {
        ScoreText::Cp(v) => {
            let v = f64::from(v);
            v / (v.abs() + 150.0)
        }
        ScoreText::Win(_) | ScoreText::DbWin(_) => 1.0,
        ScoreText::Loss(_) | ScoreText::DbLoss(_) => -1.0,
    }
}

/// A score in words, from the searching side's view.
fn score_words(score: ScoreText, side: Side) -> String {
    let who = match side {
        Side::Bot => "the bot",
        Side::Player => "the person",
    };
    match score {
        ScoreText::Cp(0) => "even".into(),
        ScoreText::Cp(v) if v > 0 => format!("{who} is ahead by {:.2} men", f64::from(v) / 100.0),
        ScoreText::Cp(v) => format!("{who} is behind by {:.2} men", f64::from(-v) / 100.0),
        ScoreText::Win(k) => format!("{who} wins by force in {k} plies"),
        ScoreText::Loss(k) => format!("{who} loses by force in {k} plies"),
        ScoreText::DbWin(k) => format!("{who} wins (endgame database, {k} plies to convert)"),
        ScoreText::DbLoss(k) => format!("{who} loses (endgame database, {k} plies to convert)"),
    }
}

/// The clock in words: the time control and the time left, or the move time.
fn clock_words(snap: &Snapshot) -> String {
    let mut s = match (&snap.status.clock, snap.status.left_ms) {
        (Some(tc), Some(left)) => format!("{tc}: {:.1} s left", left as f64 / 1000.0),
        (Some(tc), None) => tc.to_string(),
        (None, _) => match snap.movetime_ms {
            Some(ms) => format!("{ms} ms a move"),
            None => "no time limit".into(),
        },
    };
    if let Some(d) = snap.depth_limit {
        let _ = write!(s, ", depth {d} at most");
    }
    s
}

fn side_words(side: Option<Side>) -> &'static str {
    match side {
        Some(Side::Player) => "p (the person)",
        Some(Side::Bot) => "b (the bot)",
        None => "not known yet",
    }
}

/// The game record (PDN) of the game on 8x8; `None` without a game or on another size.
pub fn game_record(snap: &Snapshot) -> Option<String> {
    let start = snap.start.as_ref()?;
    if start.size() != BoardSize::S8 {
        return None;
    }
    let result = match snap.status.result {
        Some(Status::Win { winner }) => GameResult::Win(winner),
        Some(Status::DrawRepetition | Status::DrawNoProgress) => GameResult::Draw,
        _ => GameResult::Unfinished,
    };
    let mut info = RecordInfo::new("checkersbot serve", 1, "checkersbot", "person");
    info.comment = "the game so far, from the operator page".into();
    Some(write_game(&info, start, &snap.moves, result))
}

/// One board as a figure: its caption, and the SVG picture (or a note when there is none).
fn figure(out: &mut String, id: &str, caption: &str, rows: Option<&str>, pic: &Picture) {
    let rows_attr = rows.map(escape).unwrap_or_default();
    let _ = write!(
        out,
        r#"<figure class="board" id="board-{id}" data-rows="{rows_attr}"><figcaption>{}</figcaption>"#,
        escape(caption)
    );
    match grid(rows) {
        Some(g) => out.push_str(&board_svg(&g, pic)),
        None => out.push_str(r#"<p class="none">none</p>"#),
    }
    out.push_str("</figure>");
}

/// An age in words, as the page's script also writes it while no event comes.
pub fn age_words(ms: u64) -> String {
    match ms {
        0..=999 => "just now".into(),
        1_000..=59_999 => format!("{} s ago", ms / 1000),
        60_000..=3_599_999 => format!("{} min {} s ago", ms / 60_000, ms / 1000 % 60),
        _ => format!("{} h {} min ago", ms / 3_600_000, ms / 60_000 % 60),
    }
}

/// Milliseconds from `at` to `now`.
fn ms_since(at: Instant, now: Instant) -> u64 {
    now.saturating_duration_since(at).as_millis() as u64
}

/// An age the page's script keeps counting (`data-age-ms` is the age when the HTML was made).
fn age_html(at: Instant, now: Instant) -> String {
    let ms = ms_since(at, now);
    format!(
        r#"<span class="age" data-age-ms="{ms}">{}</span>"#,
        age_words(ms)
    )
}

/// The camera's last board: how old it is.
fn board_age_html(snap: &Snapshot, now: Instant) -> String {
    match (snap.seen_at, &snap.status.seen) {
        (Some(at), Some(_)) => format!("came {}", age_html(at, now)),
        (Some(at), None) => format!("could not be read (came {})", age_html(at, now)),
        (None, _) => "none yet in this game".into(),
    }
}

/// The link: which one, the TCP connection, when the last line came.
fn link_html(link: &LinkView, now: Instant) -> String {
    let last = match link.last_line_at {
        Some(at) => format!("last line {}", age_html(at, now)),
        None => "no line yet".into(),
    };
    match &link.kind {
        LinkKind::Stdin => format!("standard input; {last}"),
        LinkKind::Serial { path } => format!("serial device {}; {last}", escape(path)),
        LinkKind::Tcp { listen } => match (link.connection, link.connected_at) {
            (Some(n), Some(at)) => format!(
                "vision client on {}: connection {n} made {}; {last}",
                escape(listen),
                age_html(at, now)
            ),
            _ => format!(
                "listening on {}: no client has connected yet",
                escape(listen)
            ),
        },
    }
}

fn link_word(kind: &LinkKind) -> &'static str {
    match kind {
        LinkKind::Stdin => "stdin",
        LinkKind::Serial { .. } => "serial",
        LinkKind::Tcp { .. } => "tcp",
    }
}

/// The part of the page that server-sent events replace: everything that changes, as it stands
/// at `now` (the ages of the camera's board and of the link's last line).
pub fn live_html(snap: &Snapshot, now: Instant) -> String {
    let st = &snap.status;
    let said = decide(snap);
    // A misread marks the squares to check; anything else every square that differs.
    let check = squares_to_check(snap);
    let diffs = check.clone().unwrap_or_else(|| differing(snap));
    let mut out = String::with_capacity(24 * 1024);

    // What the page's state machine says: headline, explanation, who acts and what they do, and
    // the reply to the camera's board it speaks of.
    let _ = write!(
        out,
        concat!(
            r#"<div class="top"><section class="summary">"#,
            r#"<p class="state" id="state" data-state="{}" data-page-state="{}">{}</p>"#,
            r#"<p class="explanation" id="explanation">{}</p>"#,
            r#"<p class="action" id="action" data-actor="{}"><b>{}:</b> {}</p>"#
        ),
        st.state.word(),
        said.state.word(),
        escape(&said.headline),
        escape(&said.explanation),
        said.actor.word(),
        said.actor.words(),
        escape(&said.action),
    );
    if let Some(reply) = &said.reply {
        let _ = write!(
            out,
            r#"<p class="reply" id="last-reply" data-reply="{r}">Reply to the camera's board: <code>{r}</code></p>"#,
            r = escape(reply),
        );
    }
    let diff_names: Vec<String> = diffs.iter().map(Coord::to_string).collect();
    if snap.status.seen.is_some() {
        let _ = write!(
            out,
            r#"<p class="differ" id="differ" data-squares="{}">{}</p>"#,
            diff_names.join(" "),
            if check.is_some() {
                format!(
                    "Squares to check, where the camera misread the board (marked): {}",
                    diff_names.join(", ")
                )
            } else if diffs.is_empty() {
                "The camera's board is the board the daemon expects.".to_string()
            } else {
                format!(
                    "Squares where the camera's board differs from the expected one (marked): {}",
                    diff_names.join(", ")
                )
            }
        );
    }
    out.push_str("<dl>");
    let result = match st.result {
        Some(r) => r.to_string(),
        None => "none".into(),
    };
    let arm = st.state == GameState::Arm;
    let to_move = if arm {
        format!(
            "{}, once the arm has made the bot's move",
            side_words(st.side.map(Side::opponent))
        )
    } else {
        side_words(st.side).to_string()
    };
    let _ = write!(
        out,
        r#"<dt>camera's board</dt><dd id="board-age">{}</dd><dt>link</dt><dd id="link" data-link="{}" data-connection="{}">{}</dd>"#,
        board_age_html(snap, now),
        link_word(&snap.link.kind),
        snap.link
            .connection
            .map(|n| n.to_string())
            .unwrap_or_default(),
        link_html(&snap.link, now),
    );
    let rows = [
        ("side to move", to_move),
        ("level", format!("{} (style {})", st.level, st.style)),
        ("clock", clock_words(snap)),
        ("moves played", st.plies.to_string()),
        ("result", result),
        ("evaluation", st.eval.clone()),
        ("endgame database", egdb_words(st)),
    ];
    for (term, value) in rows {
        let _ = write!(out, "<dt>{term}</dt><dd>{}</dd>", escape(&value));
    }
    out.push_str("</dl></section>");
    search_html(&mut out, snap.search.as_ref());
    out.push_str("</div>");

    // The boards: expected and seen, the differing squares marked on both; the search's position
    // with its principal variation.
    out.push_str(r#"<section class="boards">"#);
    let expected_caption = if arm {
        "expected: after the bot's move"
    } else {
        "expected: the game as the daemon holds it"
    };
    let expected_pic = Picture {
        side: if arm {
            st.side.map(Side::opponent)
        } else {
            st.side
        },
        highlights: diffs.clone(),
        arrows: if arm {
            snap.moves
                .last()
                .map(|m| m.path.clone())
                .into_iter()
                .collect()
        } else {
            Vec::new()
        },
        ..Picture::default()
    };
    figure(
        &mut out,
        "expected",
        expected_caption,
        expected_rows(snap),
        &expected_pic,
    );
    let seen_pic = Picture {
        highlights: diffs,
        ..Picture::default()
    };
    figure(
        &mut out,
        "seen",
        "seen: the camera's last board",
        st.seen.as_deref(),
        &seen_pic,
    );
    if let Some(search) = &snap.search {
        let pic = Picture {
            side: Some(search.side),
            arrows: search.pv().iter().take(PV_ARROWS).cloned().collect(),
            ..Picture::default()
        };
        figure(
            &mut out,
            "search",
            "searched, with the principal variation",
            Some(&search.root),
            &pic,
        );
    }
    out.push_str("</section>");
    moves_html(&mut out, snap);
    out
}

/// The text of the `info` line a search view's figures come from.
pub fn info_line(info: &SearchInfo) -> String {
    Reply::Info(InfoLine::Search(info.clone())).to_string()
}

/// The search: depth, score as a bar, principal variation, nodes and time: the figures of the
/// client's last `info` line (see [`SearchView`]).
fn search_html(out: &mut String, search: Option<&SearchView>) {
    out.push_str(r#"<section class="search" id="search"><h2>The bot's last search</h2>"#);
    let Some(s) = search else {
        out.push_str("<p>None yet in this game.</p></section>");
        return;
    };
    let Some(info) = &s.info else {
        let _ = write!(
            out,
            r#"<p data-depth="0" data-done="{}">{}</p></section>"#,
            s.done,
            if s.done {
                "answered with no iteration reported"
            } else {
                "searching: no iteration completed yet"
            }
        );
        return;
    };
    let pv: Vec<String> = info.pv.iter().map(|p| path_text(p)).collect();
    let mut figures = format!("depth {}", info.depth);
    if let Some(nodes) = info.nodes {
        let _ = write!(figures, ", {nodes} nodes");
    }
    if let Some(ms) = info.time_ms {
        let _ = write!(figures, " in {ms} ms");
    }
    let _ = write!(
        out,
        r#"<p data-depth="{}" data-done="{}">{}{}{}</p>"#,
        info.depth,
        s.done,
        if s.done { "" } else { "searching: " },
        if s.book {
            "from the opening book; "
        } else {
            ""
        },
        figures,
    );
    let score = info.score;
    let bar = score_bar(score);
    // The bar: the bot's share (dark, as its men) from the right edge, the person's (light)
    // from the left; even is the middle line.
    let bot_view = if s.side == Side::Bot { bar } else { -bar };
    let fill = ((bot_view + 1.0) / 2.0 * 300.0).round().clamp(0.0, 300.0);
    let left = 300.0 - fill;
    let _ = write!(
        out,
        r##"<p class="score" data-score="{score}" data-bar="{bar:.3}">score {score}: {words}</p><svg class="bar" width="300" height="18" viewBox="0 0 300 18" role="img" aria-label="score bar"><rect width="300" height="18" fill="#fbfbf4" stroke="#888"/><rect x="{left}" width="{fill}" height="18" fill="#222"/><line x1="150" y1="0" x2="150" y2="18" stroke="#d33" stroke-width="2"/></svg><p class="bar-legend"><span>person</span><span>bot</span></p>"##,
        words = escape(&score_words(score, s.side)),
    );
    if !pv.is_empty() {
        out.push_str(r#"<p>principal variation:</p><ol class="pv" id="pv">"#);
        for (i, m) in pv.iter().enumerate() {
            let _ = write!(out, "<li><b>{}</b> {m}</li>", i + 1);
        }
        out.push_str("</ol>");
    }
    let line = info_line(info);
    let _ = write!(
        out,
        r#"<p class="info-line" id="info-line" data-written="{}" data-line="{l}">{}: <code>{l}</code></p>"#,
        s.written,
        if s.written {
            "the client's last info line"
        } else {
            "the info line (not written: set info is off, or final while searching)"
        },
        l = escape(&line),
    );
    if let Some(best) = &s.best {
        let _ = write!(
            out,
            r#"<p>answered: <code>{}</code></p>"#,
            escape(&best.described())
        );
    }
    out.push_str("</section>");
}

/// The move list and the link to the game record.
fn moves_html(out: &mut String, snap: &Snapshot) {
    out.push_str(r#"<section class="moves"><h2>Moves</h2>"#);
    let first = snap.start.map(|p| p.side());
    if snap.moves.is_empty() {
        out.push_str("<p>No moves yet.</p>");
    } else if let Some(first) = first {
        out.push_str(r#"<ol id="move-list">"#);
        let mut side = first;
        for m in &snap.moves {
            let _ = write!(
                out,
                r#"<li data-side="{side}"><span class="who">{}</span> {}</li>"#,
                if side == Side::Bot { "bot" } else { "person" },
                escape(&m.described())
            );
            side = side.opponent();
        }
        out.push_str("</ol>");
    }
    if snap.start.is_some_and(|s| s.size() == BoardSize::S8) {
        let _ = write!(
            out,
            r#"<p><a id="record" href="{RECORD_PATH}" download="game.pdn">The game record (PDN)</a></p>"#
        );
    } else if snap.start.is_some() {
        out.push_str("<p>Game records on the page are PDN, for 8x8 games only.</p>");
    }
    out.push_str("</section>");
}

const STYLE: &str = "
body{font-family:DejaVu Sans,Verdana,Arial,sans-serif;margin:0;background:#f4f1ea;color:#222}
header{display:flex;align-items:baseline;gap:1em;padding:.4em 1em;background:#3b2a1a;color:#fff}
header h1{font-size:1.2em;margin:0}
.conn{font-size:.9em;padding:.1em .5em;border-radius:.3em;background:#777}
.conn.on{background:#2e7d32}.conn.off{background:#c62828}
main{padding:.5em 1em}
.summary .state{font-size:1.2em;font-weight:bold;margin:.3em 0}
.summary dl{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;margin:.4em 0}
.summary dt{color:#555}.summary dd{margin:0}
.differ{color:#8a5a00}
.boards{display:flex;flex-wrap:wrap;gap:1em}
.boards figure{margin:0;background:#fff;padding:.3em;border:1px solid #ccc}
.boards figcaption{font-weight:bold;font-size:.95em}
.boards svg{width:320px;height:auto;display:block}
.top{display:flex;flex-wrap:wrap;gap:0 3em}
.summary{flex:1 1 30em;max-width:44em}.search{flex:0 1 26em}.moves{margin-top:.6em}
.pv{list-style:none;padding:0;margin:.2em 0;display:flex;flex-wrap:wrap;gap:.1em .9em;font-family:monospace}
.pv b{color:#888;font-weight:normal}
h2{font-size:1.05em;margin:.5em 0 .2em}
.bar-legend{display:flex;justify-content:space-between;width:300px;font-size:.8em;margin:0}
#move-list{columns:4 12em;font-family:monospace}
.who{color:#666}
.explanation{margin:.2em 0}.action{margin:.3em 0;padding:.2em .5em;background:#fff3c4;border-left:4px solid #c79100}
.reply code,.info-line code{font-size:.9em;word-break:break-word}
.info-line{font-size:.85em;color:#444}
footer{padding:0 1em 1em}
.legend ul{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.3em 1.5em}
.legend li{display:flex;align-items:center;gap:.4em}
.legend svg{width:28px;height:28px}
";

/// The page's script: the live part is replaced by each server-sent event; no reload, nothing
/// fetched but `/events`. Ages (`data-age-ms`, the age when the part was made) go on counting
/// between events, in the words of [`age_words`].
const SCRIPT: &str = "
(function () {
  var live = document.getElementById('live');
  var conn = document.getElementById('conn');
  var shown = Date.now();
  function say(text, cls) { conn.textContent = text; conn.className = 'conn ' + cls; }
  function ageWords(ms) {
    if (ms < 1000) { return 'just now'; }
    if (ms < 60000) { return Math.floor(ms / 1000) + ' s ago'; }
    if (ms < 3600000) { return Math.floor(ms / 60000) + ' min ' + Math.floor(ms / 1000) % 60 + ' s ago'; }
    return Math.floor(ms / 3600000) + ' h ' + Math.floor(ms / 60000) % 60 + ' min ago';
  }
  function tick() {
    var since = Date.now() - shown;
    live.querySelectorAll('.age').forEach(function (e) {
      e.textContent = ageWords(Number(e.getAttribute('data-age-ms')) + since);
    });
  }
  setInterval(tick, 1000);
  if (!window.EventSource) { say('this browser cannot update the page: reload it', 'off'); return; }
  var events = new EventSource('/events');
  events.addEventListener('update', function (e) {
    live.innerHTML = e.data;
    live.setAttribute('data-version', e.lastEventId);
    shown = Date.now();
    say('live', 'on');
  });
  events.onerror = function () { say('no connection to the daemon: retrying', 'off'); };
})();
";

/// The legend of the boards: the pieces as drawn, the marks and the arrows.
fn legend_html() -> String {
    let mut out = String::from(r#"<section class="legend" id="legend"><h2>Legend</h2><ul>"#);
    for (ch, words) in [
        ('p', "the person's man"),
        ('P', "the person's king"),
        ('b', "the bot's man"),
        ('B', "the bot's king"),
    ] {
        let side = if ch.eq_ignore_ascii_case(&'p') {
            Side::Player
        } else {
            Side::Bot
        };
        let piece = Piece {
            side,
            king: ch.is_ascii_uppercase(),
        };
        let _ = write!(
            out,
            r#"<li data-piece="{ch}">{} <code>{ch}</code> {words}</li>"#,
            piece_svg(piece)
        );
    }
    out.push_str(concat!(
        r##"<li><svg class="legend-mark" width="48" height="48" viewBox="0 0 48 48" role="img" aria-label="marked square"><rect width="48" height="48" fill="#8b5a2b"/><rect x="2" y="2" width="44" height="44" fill="#ffd400" fill-opacity="0.45" stroke="#ffd400" stroke-width="4"/></svg> a square where the camera's board differs from the expected one</li>"##,
        r##"<li><svg class="legend-mark" width="48" height="48" viewBox="0 0 48 48" role="img" aria-label="arrow"><line x1="8" y1="40" x2="34" y2="14" stroke="#1565c0" stroke-width="6" stroke-opacity="0.85" stroke-linecap="round"/><path d="M 40 8 L 38 24 L 24 10 z" fill="#1565c0"/></svg> a move: the bot's move for the arm, or the principal variation</li>"##,
        "</ul></section>"
    ));
    out
}

/// The whole page at `now`: the live part as it is, the legend, the style and the script, all
/// inline.
pub fn page(snap: &Snapshot, version: u64, now: Instant) -> String {
    format!(
        concat!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            "<title>checkersbot operator page</title><style>{style}</style></head>\n<body>",
            "<header><h1>checkersbot</h1><span class=\"conn\" id=\"conn\">connecting</span>",
            "<noscript>(without JavaScript: reload to refresh)</noscript></header>\n",
            "<main id=\"live\" data-version=\"{version}\">{live}</main>\n",
            "<footer>{legend}</footer>\n",
            "<script>{script}</script></body></html>\n"
        ),
        style = STYLE,
        version = version,
        live = live_html(snap, now),
        legend = legend_html(),
        script = SCRIPT,
    )
}

/// A JSON string literal.
fn json_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_opt_str(value: Option<&str>) -> String {
    value.map_or_else(|| "null".into(), json_str)
}

fn json_opt_num(value: Option<u64>) -> String {
    value.map_or_else(|| "null".into(), |v| v.to_string())
}

fn path_text(path: &[Coord]) -> String {
    path.iter()
        .map(Coord::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The endgame database in words: how many pieces it holds and what the background build does
/// (`up to 5 pieces; building up to 6 in the background`).
fn egdb_words(st: &crate::daemon::protocol::StatusReport) -> String {
    use crate::daemon::egdb_build::BuildState;
    let have = match (st.egdb_pieces, st.egdb.as_deref()) {
        (0, _) | (_, None) => "none".to_string(),
        (k, Some(dir)) => format!("up to {k} pieces ({dir})"),
    };
    match st.egdb_build {
        BuildState::Off => have,
        BuildState::Building(k) => format!("{have}; building up to {k} pieces in the background"),
        BuildState::Ready => format!("{have}; built"),
        BuildState::Failed(k) => format!("{have}; the build up to {k} pieces failed (see the log)"),
    }
}

/// `/status.json` at `now`: the `status` line's data and the page's (the fields are in
/// `docs/integration.md`, "Operator page").
pub fn status_json(snap: &Snapshot, version: u64, now: Instant) -> String {
    let st = &snap.status;
    let said = decide(snap);
    let mut out = String::with_capacity(4096);
    let differ: Vec<String> = differing(snap)
        .iter()
        .map(|c| json_str(&c.to_string()))
        .collect();
    let _ = write!(
        out,
        concat!(
            r#"{{"version":{},"state":{},"state_words":{},"page_state":{},"explanation":{},"#,
            r#""actor":{},"action":{},"size":{},"side":{},"#,
            r#""position":{},"expect":{},"seen":{},"seen_age_ms":{},"differ":[{}],"plies":{},"result":{},"#,
            r#""clock":{},"left_ms":{},"movetime_ms":{},"depth_limit":{},"level":{},"style":{},"#,
            r#""eval":{},"egdb":{},"egdb_pieces":{},"egdb_build":{},"book":{},"diagnosis":{},"last_reply":{},"#
        ),
        version,
        json_str(st.state.word()),
        json_str(&said.headline),
        json_str(said.state.word()),
        json_str(&said.explanation),
        json_str(said.actor.word()),
        json_str(&said.action),
        json_opt_num(st.size.map(|s| s.n() as u64)),
        json_opt_str(st.side.map(|s| s.to_string()).as_deref()),
        json_opt_str(st.position.as_deref()),
        json_opt_str(st.expect.as_deref()),
        json_opt_str(st.seen.as_deref()),
        json_opt_num(snap.seen_at.map(|at| ms_since(at, now))),
        differ.join(","),
        st.plies,
        match st.result {
            None => "null".to_string(),
            r => json_str(result_word(r)),
        },
        json_opt_str(st.clock.map(|tc| tc.to_string()).as_deref()),
        json_opt_num(st.left_ms),
        json_opt_num(snap.movetime_ms),
        json_opt_num(snap.depth_limit.map(u64::from)),
        json_str(st.level.name()),
        json_str(st.style.name()),
        json_str(&st.eval),
        json_opt_str(st.egdb.as_deref()),
        st.egdb_pieces,
        json_str(&st.egdb_build.word()),
        json_opt_str(st.book.as_deref()),
        json_opt_str(st.diagnosis.as_deref()),
        json_opt_str(snap.last_reply.as_deref()),
    );
    let link = &snap.link;
    let (address, path) = match &link.kind {
        LinkKind::Stdin => (None, None),
        LinkKind::Serial { path } => (None, Some(path.as_str())),
        LinkKind::Tcp { listen } => (Some(listen.as_str()), None),
    };
    let _ = write!(
        out,
        r#""link":{{"kind":{},"listen":{},"path":{},"connection":{},"connected_ms":{},"last_line_age_ms":{}}},"#,
        json_str(link_word(&link.kind)),
        json_opt_str(address),
        json_opt_str(path),
        json_opt_num(link.connection),
        json_opt_num(link.connected_at.map(|at| ms_since(at, now))),
        json_opt_num(link.last_line_at.map(|at| ms_since(at, now))),
    );
    match &snap.search {
        None => out.push_str(r#""search":null,"#),
        Some(s) => {
            let _ = write!(
                out,
                r#""search":{{"position":{},"side":{},"#,
                json_str(&s.root),
                json_str(&s.side.to_string()),
            );
            match &s.info {
                None => out.push_str(
                    r#""depth":0,"score":null,"score_bar":null,"nodes":null,"time_ms":null,"pv":[],"info":null,"#,
                ),
                Some(info) => {
                    let pv: Vec<String> = info.pv.iter().map(|p| json_str(&path_text(p))).collect();
                    let _ = write!(
                        out,
                        r#""depth":{},"score":{},"score_bar":{:.3},"nodes":{},"time_ms":{},"pv":[{}],"info":{},"#,
                        info.depth,
                        json_str(&info.score.to_string()),
                        score_bar(info.score),
                        json_opt_num(info.nodes),
                        json_opt_num(info.time_ms),
                        pv.join(","),
                        json_str(&info_line(info)),
                    );
                }
            }
            let _ = write!(
                out,
                r#""written":{},"best":{},"done":{},"book":{}}},"#,
                s.written,
                json_opt_str(s.best.as_ref().map(|m| m.described()).as_deref()),
                s.done,
                s.book,
            );
        }
    }
    out.push_str(r#""moves":["#);
    if let Some(start) = &snap.start {
        let mut side = start.side();
        for (i, m) in snap.moves.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(
                out,
                r#"{{"ply":{},"side":{},"move":{}}}"#,
                i + 1,
                json_str(&side.to_string()),
                json_str(&m.described())
            );
            side = side.opponent();
        }
    }
    let record = snap
        .start
        .is_some_and(|s| s.size() == BoardSize::S8)
        .then_some(RECORD_PATH);
    let _ = write!(out, r#"],"record":{}}}"#, json_opt_str(record));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::any_size::AnyPosition;
    use crate::rules::board::initial_grid;
    use std::time::Duration;

    fn mid_game() -> Snapshot {
        let start = AnyPosition::from_grid(&initial_grid(BoardSize::S8), Side::Player);
        let mut snap = Snapshot::default();
        snap.status.state = GameState::Person;
        snap.status.size = Some(BoardSize::S8);
        snap.status.side = Some(Side::Player);
        snap.status.position = Some(start.to_line());
        snap.status.result = Some(Status::Ongoing);
        // The camera missed the man on G3.
        snap.status.seen =
            Some("_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p___p_p/p_p_p_p_".into());
        snap.status.diagnosis =
            Some("error illegal-transition G3: misread: a piece vanished from G3 <\"&'>".into());
        snap.last_reply = snap.status.diagnosis.clone();
        snap.start = Some(start);
        snap
    }

    #[test]
    fn the_page_marks_the_differing_square_on_both_boards_and_escapes_text() {
        let snap = mid_game();
        assert_eq!(differing(&snap), vec![Coord::new(6, 3)]);
        let html = page(&snap, 7, Instant::now());
        assert_eq!(
            html.matches(r#"class="highlight" data-square="G3""#)
                .count(),
            2
        );
        assert!(html.contains(r#"data-square="G3" data-piece="p""#));
        assert!(html.contains("&lt;&quot;&amp;&apos;&gt;"));
        assert!(!html.contains("<\"&'>"));
        assert!(html.contains(r#"href="/game.pdn""#));
        // Nothing is fetched from elsewhere: no sources, no outside links.
        assert!(!html.contains(" src=") && !html.contains("href=\"http"));
    }

    #[test]
    fn a_misread_with_a_move_marks_only_the_squares_to_check() {
        let mut snap = mid_game();
        // The person played F2 E3 and the camera saw a phantom on D6 in the same frame.
        snap.status.seen =
            Some("_b_b_b_b/b_b_b_b_/_b_b_b_b/______p_/___p____/p___p_p_/_p_p_p_p/p_p_p_p_".into());
        snap.status.diagnosis = Some(
            "error illegal-transition D6: misread: the move F2 E3 explains every other square; \
             check the camera at D6 (a piece where the square should be empty)"
                .into(),
        );
        assert_eq!(differing(&snap).len(), 3);
        assert_eq!(squares_to_check(&snap), Some(vec![Coord::new(3, 6)]));
        let html = page(&snap, 7, Instant::now());
        assert_eq!(
            html.matches(r#"class="highlight""#).count(),
            2,
            "one a board"
        );
        assert!(html.contains(r#"class="highlight" data-square="D6""#));
        assert!(html.contains("Squares to check, where the camera misread the board (marked): D6"));
        // Another class marks every square that differs.
        snap.status.diagnosis = Some("error illegal-transition E3,F2,D6: unexplained: x".into());
        assert_eq!(squares_to_check(&snap), None);
    }

    #[test]
    fn json_strings_are_escaped_and_absent_values_are_null() {
        let snap = mid_game();
        let json = status_json(&snap, 3, Instant::now());
        assert!(json.contains(r#""state":"person""#), "{json}");
        assert!(json.contains(r#""differ":["G3"]"#), "{json}");
        assert!(json.contains(r#""expect":null"#), "{json}");
        assert!(json.contains(r#"<\"&'>"#), "{json}");
        assert!(json.contains(r#""record":"/game.pdn""#), "{json}");
        assert_eq!(json_str("a\u{1}\n"), r#""a\u0001\n""#);
    }

    #[test]
    fn the_record_is_pdn_on_8x8_only() {
        let snap = mid_game();
        assert!(game_record(&snap).is_some_and(|t| t.contains("[Result \"*\"]")));
        let small = Snapshot {
            start: Some(AnyPosition::from_grid(
                &initial_grid(BoardSize::S6),
                Side::Player,
            )),
            ..Snapshot::default()
        };
        assert_eq!(game_record(&small), None);
    }

    #[test]
    fn the_summary_is_the_state_machines_and_ages_are_counted_from_now() {
        let mut snap = mid_game();
        let now = Instant::now();
        snap.seen_at = Some(now - Duration::from_millis(2_500));
        snap.link.last_line_at = Some(now - Duration::from_millis(300));
        let html = live_html(&snap, now);
        let said = decide(&snap);
        assert!(html.contains(&format!(
            r#"data-page-state="{}">{}</p>"#,
            said.state.word(),
            escape(&said.headline)
        )));
        assert!(html.contains(&escape(&said.explanation)), "{html}");
        assert!(html.contains(r#"<span class="age" data-age-ms="2500">2 s ago</span>"#));
        assert!(html.contains(r#"data-link="stdin""#), "{html}");
        assert!(html.contains("last line <span class=\"age\" data-age-ms=\"300\">just now"));
        let json = status_json(&snap, 1, now);
        assert!(json.contains(r#""seen_age_ms":2500"#), "{json}");
        assert!(json.contains(r#""page_state":"check-camera""#), "{json}");
        assert!(json.contains(r#""last_line_age_ms":300"#), "{json}");
        assert_eq!(age_words(61_000), "1 min 1 s ago");
        assert_eq!(age_words(3_660_000), "1 h 1 min ago");
    }

    #[test]
    fn the_search_shows_the_figures_of_its_info_line() {
        let mut snap = mid_game();
        let mut view = SearchView::started(snap.start.as_ref().expect("a game"));
        let info = SearchInfo {
            depth: 9,
            score: ScoreText::Cp(12),
            nodes: Some(39_085),
            time_ms: Some(8),
            nps: Some(4_362_544),
            pv: vec![vec![Coord::new(5, 2), Coord::new(4, 3)]],
            egdb: 0,
            book: false,
        };
        view.show(&info, true);
        snap.search = Some(view);
        let line = "info depth 9 score cp 12 nodes 39085 time 8 nps 4362544 pv F2-E3";
        assert_eq!(info_line(&info), line);
        let html = live_html(&snap, Instant::now());
        assert!(html.contains("depth 9, 39085 nodes in 8 ms"), "{html}");
        assert!(html.contains(&format!(r#"data-line="{line}""#)), "{html}");
        let json = status_json(&snap, 1, Instant::now());
        assert!(
            json.contains(r#""depth":9,"score":"cp 12","score_bar":0.074,"nodes":39085,"time_ms":8,"pv":["F2 E3"]"#),
            "{json}"
        );
        assert!(
            json.contains(&format!(r#""info":"{line}","written":true"#)),
            "{json}"
        );
    }

    #[test]
    fn the_legend_shows_the_four_pieces_as_the_boards_draw_them() {
        let html = page(&Snapshot::default(), 1, Instant::now());
        for ch in ['p', 'P', 'b', 'B'] {
            assert!(html.contains(&format!(r#"<li data-piece="{ch}">"#)), "{ch}");
        }
        assert_eq!(html.matches(r#"class="crown""#).count(), 2);
    }

    #[test]
    fn a_score_bar_runs_from_loss_to_win() {
        assert_eq!(score_bar(ScoreText::Cp(0)), 0.0);
        assert!((score_bar(ScoreText::Cp(100)) - 0.4).abs() < 1e-9);
        assert!(score_bar(ScoreText::Cp(-100)) < 0.0);
        assert_eq!(score_bar(ScoreText::Win(3)), 1.0);
        assert_eq!(score_bar(ScoreText::DbLoss(3)), -1.0);
    }
}
