//! Board pictures: a board of any size as hand-written SVG text, with the coordinates as the
//! protocol names them (row letters from the top, column numbers from 0 from the left), the men and
//! kings of both sides, highlighted squares and moves drawn as arrows through every landing square.
//!
//! [`board_svg`] draws one board, [`compare_svg`] two side by side (the board expected and the
//! board seen, the squares that differ highlighted on both). Both are pure functions returning the
//! SVG document as a `String`; the `render` command writes it, and a web page can inline it.
//!
//! Every drawn thing carries what it shows, so that tools (and the tests) can read the picture
//! back: squares are `<rect class="square dark" data-square="G3">`, pieces
//! `<g class="piece" data-square="G3" data-piece="p">` around a circle centred on the square,
//! highlights `<rect class="highlight" data-square="E5">`, arrows
//! `<polyline class="arrow" data-path="G3 E5 C3">`.
//!
//! ```
//! use checkersbot::render::{board_svg, Picture};
//! use checkersbot::rules::board::Grid;
//!
//! let grid = Grid::parse_line("_b_b/____/____/p_p_").unwrap();
//! let svg = board_svg(&grid, &Picture::default());
//! assert!(svg.starts_with("<svg "));
//! assert!(svg.contains(r#"data-square="D0" data-piece="p""#));
//! ```

use crate::rules::board::Grid;
use crate::rules::geometry::Coord;
use crate::rules::position::{Piece, Side};
use std::fmt::Write as _;

/// Side of one square, in SVG user units (pixels at 100 %).
pub const SQUARE: u32 = 48;
/// Room left of and above the board for the coordinates.
pub const MARGIN: u32 = 28;
/// Room below the board for the caption.
const CAPTION: u32 = 30;
/// Room between two boards of a comparison.
const GAP: u32 = 36;

const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#8b5a2b";
const HIGHLIGHT: &str = "#ffd400";
const ARROW: &str = "#1565c0";
const BOT_FILL: &str = "#222222";
const BOT_MARK: &str = "#e0e0e0";
const PLAYER_FILL: &str = "#fbfbf4";
const PLAYER_MARK: &str = "#a01818";

/// What to draw on a board besides its pieces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Picture {
    /// The side to move, written under the board (nothing when `None`).
    pub side: Option<Side>,
    /// Squares to highlight.
    pub highlights: Vec<Coord>,
    /// Moves to draw as arrows: each the start square and every landing square.
    pub arrows: Vec<Vec<Coord>>,
    /// Write every dark square's name on it.
    pub labels: bool,
    /// A title written above the caption (e.g. `expected`, `seen`).
    pub title: Option<String>,
}

/// Text made safe for SVG (and HTML) content and attribute values; control characters dropped.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// The picture's width and height for a board of side `n`.
fn board_extent(n: u32) -> (u32, u32) {
    (MARGIN + n * SQUARE + 8, MARGIN + n * SQUARE + CAPTION)
}

/// The centre of a square, the board's top-left corner being at (`x0`, `y0`).
fn centre(x0: u32, y0: u32, c: Coord) -> (u32, u32) {
    (
        x0 + u32::from(c.col) * SQUARE + SQUARE / 2,
        y0 + u32::from(c.row) * SQUARE + SQUARE / 2,
    )
}

fn side_words(side: Side) -> &'static str {
    match side {
        Side::Player => "p (the person) to move",
        Side::Bot => "b (the bot) to move",
    }
}

/// One piece, centred on its square.
fn piece(out: &mut String, x: u32, y: u32, at: Coord, p: Piece) {
    let r = SQUARE * 38 / 100;
    let (fill, mark) = match p.side {
        Side::Bot => (BOT_FILL, BOT_MARK),
        Side::Player => (PLAYER_FILL, PLAYER_MARK),
    };
    let _ = write!(
        out,
        r##"<g class="piece" data-square="{at}" data-piece="{ch}"><circle cx="{x}" cy="{y}" r="{r}" fill="{fill}" stroke="#111" stroke-width="1.5"/><circle cx="{x}" cy="{y}" r="{r2}" fill="none" stroke="{mark}" stroke-width="1.2" stroke-opacity="0.6"/>"##,
        ch = p.to_char(),
        r2 = r * 7 / 10,
    );
    if p.king {
        // A second ring and a crown: kings stand out at a glance.
        let w = SQUARE as i32 / 4;
        let (cx, cy) = (x as i32, y as i32);
        let pts = [
            (cx - w, cy + w / 2),
            (cx - w, cy - w / 2),
            (cx - w / 2, cy),
            (cx, cy - w * 2 / 3),
            (cx + w / 2, cy),
            (cx + w, cy - w / 2),
            (cx + w, cy + w / 2),
        ];
        let points: Vec<String> = pts.iter().map(|(a, b)| format!("{a},{b}")).collect();
        let _ = write!(
            out,
            r#"<circle class="king-ring" cx="{x}" cy="{y}" r="{r3}" fill="none" stroke="{mark}" stroke-width="2.5"/><polygon class="crown" points="{}" fill="{mark}"/>"#,
            points.join(" "),
            r3 = r * 85 / 100,
        );
    }
    out.push_str("</g>");
}

/// The board's elements (squares, coordinates, highlights, pieces, labels, arrows, caption) with
/// the board's top-left corner at (`x0`, `y0`).
fn board_body(out: &mut String, grid: &Grid, pic: &Picture, x0: u32, y0: u32) {
    let n = grid.size().n() as u32;
    let font = "font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\"";
    // Column numbers above, row letters to the left.
    for c in 0..n {
        let x = x0 + c * SQUARE + SQUARE / 2;
        let _ = write!(
            out,
            r##"<text class="col-label" x="{x}" y="{y}" {font} font-size="14" text-anchor="middle" fill="#333">{c}</text>"##,
            y = y0 - 9,
        );
    }
    for r in 0..n {
        let y = y0 + r * SQUARE + SQUARE / 2 + 5;
        let letter = char::from(b'A' + r as u8);
        let _ = write!(
            out,
            r##"<text class="row-label" x="{x}" y="{y}" {font} font-size="14" text-anchor="middle" fill="#333">{letter}</text>"##,
            x = x0 - MARGIN / 2,
        );
    }
    for r in 0..n {
        for c in 0..n {
            let at = Coord::new(r as u8, c as u8);
            let dark = at.is_playable(n as usize);
            let _ = write!(
                out,
                r#"<rect class="square {kind}" data-square="{at}" x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" fill="{fill}"/>"#,
                kind = if dark { "dark" } else { "light" },
                x = x0 + c * SQUARE,
                y = y0 + r * SQUARE,
                fill = if dark { DARK } else { LIGHT },
            );
        }
    }
    let _ = write!(
        out,
        r##"<rect x="{x0}" y="{y0}" width="{w}" height="{w}" fill="none" stroke="#333" stroke-width="2"/>"##,
        w = n * SQUARE,
    );
    for &at in &pic.highlights {
        if u32::from(at.row) < n && u32::from(at.col) < n {
            let _ = write!(
                out,
                r#"<rect class="highlight" data-square="{at}" x="{x}" y="{y}" width="{w}" height="{w}" fill="{HIGHLIGHT}" fill-opacity="0.45" stroke="{HIGHLIGHT}" stroke-width="4"/>"#,
                x = x0 + u32::from(at.col) * SQUARE + 2,
                y = y0 + u32::from(at.row) * SQUARE + 2,
                w = SQUARE - 4,
            );
        }
    }
    for at in grid.playable() {
        if let Some(p) = grid.get(at) {
            let (x, y) = centre(x0, y0, at);
            piece(out, x, y, at, p);
        }
    }
    if pic.labels {
        for at in grid.playable() {
            // White on a dark tab in the square's corner: readable on the square and on pieces.
            let (x, y) = (
                x0 + u32::from(at.col) * SQUARE + 1,
                y0 + u32::from(at.row) * SQUARE + 1,
            );
            let w = 7 * at.to_string().len() as u32 + 4;
            let _ = write!(
                out,
                r##"<g class="square-label" data-square="{at}"><rect x="{x}" y="{y}" width="{w}" height="14" rx="3" fill="#000" fill-opacity="0.6"/><text x="{tx}" y="{ty}" {font} font-size="11" font-weight="bold" fill="#fff">{at}</text></g>"##,
                tx = x + 2,
                ty = y + 11,
            );
        }
    }
    for path in &pic.arrows {
        let on_board: Vec<Coord> = path
            .iter()
            .copied()
            .filter(|c| u32::from(c.row) < n && u32::from(c.col) < n)
            .collect();
        if on_board.len() < 2 {
            continue;
        }
        let points: Vec<String> = on_board
            .iter()
            .map(|&c| {
                let (x, y) = centre(x0, y0, c);
                format!("{x},{y}")
            })
            .collect();
        let names: Vec<String> = on_board.iter().map(|c| c.to_string()).collect();
        // A dot on every landing square on the way: a multi-jump in a straight line shows them.
        for &c in &on_board[1..on_board.len() - 1] {
            let (x, y) = centre(x0, y0, c);
            let _ = write!(
                out,
                r#"<circle class="arrow-stop" data-square="{c}" cx="{x}" cy="{y}" r="6" fill="{ARROW}" fill-opacity="0.85"/>"#
            );
        }
        let _ = write!(
            out,
            r#"<polyline class="arrow" data-path="{}" points="{}" fill="none" stroke="{ARROW}" stroke-width="6" stroke-opacity="0.85" stroke-linecap="round" stroke-linejoin="round" marker-end="url(#arrowhead)"/>"#,
            names.join(" "),
            points.join(" "),
        );
    }
    let mut caption = Vec::new();
    if let Some(t) = &pic.title {
        caption.push(escape(t));
    }
    if let Some(s) = pic.side {
        caption.push(side_words(s).to_string());
    }
    if !caption.is_empty() {
        let _ = write!(
            out,
            r##"<text class="caption" x="{x}" y="{y}" {font} font-size="15" text-anchor="middle" fill="#222">{}</text>"##,
            caption.join(": "),
            x = x0 + n * SQUARE / 2,
            y = y0 + n * SQUARE + 21,
        );
    }
}

/// The document around the bodies: the `<svg>` element, its size, the arrowhead marker.
fn document(width: u32, height: u32, title: &str, body: &str) -> String {
    format!(
        concat!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"#,
            "\n<title>{title}</title>\n",
            r#"<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="6" refY="5" markerWidth="3.2" markerHeight="3.2" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="{arrow}"/></marker></defs>"#,
            "\n",
            r##"<rect width="100%" height="100%" fill="#ffffff"/>"##,
            "\n{body}\n</svg>\n"
        ),
        w = width,
        h = height,
        title = escape(title),
        arrow = ARROW,
        body = body,
    )
}

/// A board as an SVG document.
pub fn board_svg(grid: &Grid, pic: &Picture) -> String {
    let n = grid.size().n() as u32;
    let (w, h) = board_extent(n);
    let mut body = String::new();
    board_body(&mut body, grid, pic, MARGIN, MARGIN);
    let title = format!("checkersbot board {}", grid.to_line());
    document(w, h, &title, &body)
}

/// One piece on a dark square, as the boards draw it: for a legend of the pieces.
pub fn piece_svg(p: Piece) -> String {
    let mut body =
        format!(r#"<rect x="0" y="0" width="{SQUARE}" height="{SQUARE}" fill="{DARK}"/>"#);
    piece(&mut body, SQUARE / 2, SQUARE / 2, Coord::new(0, 0), p);
    // No `data-square`: a legend's piece stands on no square of a board.
    let body = body.replace(r#" data-square="A0""#, "");
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="legend-piece" width="{SQUARE}" height="{SQUARE}" viewBox="0 0 {SQUARE} {SQUARE}" role="img" aria-label="{}">{body}</svg>"#,
        p.to_char()
    )
}

/// Two boards of the same size side by side, `expected` left and `seen` right, with the squares
/// where they differ highlighted on both (besides the highlights each picture asks for).
pub fn compare_svg(expected: &Grid, seen: &Grid, left: &Picture, right: &Picture) -> String {
    let diffs = expected.diff(seen);
    let n = expected.size().n().max(seen.size().n()) as u32;
    let (w, h) = board_extent(n);
    let mut body = String::new();
    for (i, (grid, pic)) in [(expected, left), (seen, right)].into_iter().enumerate() {
        let mut pic = pic.clone();
        pic.highlights.extend(diffs.iter().copied());
        let x0 = MARGIN + i as u32 * (w + GAP);
        let _ = write!(body, r#"<g class="board" data-board="{i}">"#);
        board_body(&mut body, grid, &pic, x0, MARGIN);
        body.push_str("</g>\n");
    }
    let title = format!(
        "checkersbot boards {} and {}",
        expected.to_line(),
        seen.to_line()
    );
    document(2 * w + GAP, h, &title, &body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::initial_grid;
    use crate::rules::geometry::BoardSize;

    #[test]
    fn every_square_and_piece_is_drawn_once() {
        for size in BoardSize::ALL {
            let g = initial_grid(size);
            let svg = board_svg(&g, &Picture::default());
            let n = size.n();
            assert_eq!(svg.matches(r#"class="square "#).count(), n * n);
            let (men, _) = g.count(Side::Bot);
            assert_eq!(svg.matches(r#"class="piece""#).count(), 2 * men);
            assert_eq!(svg.matches(r#"class="crown""#).count(), 0);
            assert!(svg.ends_with("</svg>\n"));
        }
    }

    #[test]
    fn kings_get_a_crown_and_text_is_escaped() {
        let g = Grid::parse_line("_B__/____/____/__P_").unwrap();
        let pic = Picture {
            title: Some("<seen> & \"told\"".into()),
            side: Some(Side::Bot),
            ..Picture::default()
        };
        let svg = board_svg(&g, &pic);
        assert_eq!(svg.matches(r#"class="crown""#).count(), 2);
        assert!(svg.contains("&lt;seen&gt; &amp; &quot;told&quot;: b (the bot) to move"));
    }

    #[test]
    fn a_comparison_highlights_the_differences_on_both_boards() {
        let a = Grid::parse_line("_b_b/____/____/p_p_").unwrap();
        let b = Grid::parse_line("_b_b/____/_p__/p___").unwrap();
        let svg = compare_svg(&a, &b, &Picture::default(), &Picture::default());
        assert_eq!(
            svg.matches(r#"class="highlight" data-square="C1""#).count(),
            2
        );
        assert_eq!(
            svg.matches(r#"class="highlight" data-square="D2""#).count(),
            2
        );
        assert_eq!(svg.matches(r#"class="highlight""#).count(), 4);
    }
}
