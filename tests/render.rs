//! Board pictures (`checkersbot::render` and `checkersbot render`): golden SVG files, XML
//! well-formedness, and the picture read back as a viewer reads it: each piece, highlight and
//! arrow point is named by the row letter and column number drawn nearest to it, and must be on
//! the square the notation says.
//!
//! To regenerate the golden files after an intended change, run
//! `CHECKERSBOT_BLESS=1 cargo test --release --test render`, then look at them (e.g. converted with
//! `rsvg-convert`) and read the diff before committing.

use checkersbot::render::{board_svg, compare_svg, Picture};
use checkersbot::rules::board::{initial_grid, Grid};
use checkersbot::rules::fen::parse_fen;
use checkersbot::rules::geometry::{parse_coord, BoardSize, Coord};
use checkersbot::rules::position::Side;
use std::path::Path;
use std::process::Command;

/// A parsed XML element: name, attributes, child elements and text.
#[derive(Debug, Default)]
struct Element {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Element>,
    text: String,
}

impl Element {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn num(&self, name: &str) -> f64 {
        self.attr(name)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("<{}> has no number {name}: {:?}", self.name, self.attrs))
    }

    fn has_class(&self, class: &str) -> bool {
        self.attr("class")
            .is_some_and(|c| c.split(' ').any(|w| w == class))
    }

    /// Every element below this one (and itself), depth first.
    fn all(&self) -> Vec<&Element> {
        let mut out = vec![self];
        for c in &self.children {
            out.extend(c.all());
        }
        out
    }
}

/// Text with its entities checked and replaced.
fn unescape(text: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let end = rest[i..]
            .find(';')
            .ok_or_else(|| format!("'&' without ';' in {text:?}"))?;
        let entity = &rest[i + 1..i + end];
        out.push(match entity {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            e if e.starts_with('#') => e[1..]
                .parse::<u32>()
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| format!("bad character reference &{e};"))?,
            e => return Err(format!("unknown entity &{e};")),
        });
        rest = &rest[i + end + 1..];
    }
    out.push_str(rest);
    if out.contains('<') && !text.contains("&lt;") {
        return Err(format!("'<' in text {text:?}"));
    }
    Ok(out)
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.')
}

/// A small XML reader, strict enough to tell a well-formed document: one root element, matching
/// end tags, quoted attribute values without `<` or a bare `&`, known entities, no duplicate
/// attributes; comments, an XML declaration and blank text between elements are allowed.
fn parse_xml(doc: &str) -> Result<Element, String> {
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let mut rest = doc;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("<?xml") {
            let end = r.find("?>").ok_or("unclosed XML declaration")?;
            rest = &r[end + 2..];
        } else if let Some(r) = rest.strip_prefix("<!--") {
            let end = r.find("-->").ok_or("unclosed comment")?;
            rest = &r[end + 3..];
        } else if let Some(r) = rest.strip_prefix("</") {
            let end = r.find('>').ok_or("unclosed end tag")?;
            let name = r[..end].trim();
            let el = stack
                .pop()
                .ok_or(format!("</{name}> without a start tag"))?;
            if el.name != name {
                return Err(format!("</{name}> closes <{}>", el.name));
            }
            match stack.last_mut() {
                Some(parent) => parent.children.push(el),
                None if root.is_none() => root = Some(el),
                None => return Err("a second root element".into()),
            }
            rest = &r[end + 1..];
        } else if let Some(r) = rest.strip_prefix('<') {
            let name_end = r.find(|c: char| !is_name_char(c)).unwrap_or(r.len());
            if name_end == 0 {
                return Err(format!("bad tag at {:?}", &rest[..rest.len().min(20)]));
            }
            let mut el = Element {
                name: r[..name_end].to_string(),
                ..Element::default()
            };
            let mut t = &r[name_end..];
            let closed;
            loop {
                t = t.trim_start();
                if let Some(after) = t.strip_prefix("/>") {
                    t = after;
                    closed = true;
                    break;
                }
                if let Some(after) = t.strip_prefix('>') {
                    t = after;
                    closed = false;
                    break;
                }
                let k_end = t.find(|c: char| !is_name_char(c)).unwrap_or(t.len());
                if k_end == 0 {
                    return Err(format!("bad attribute in <{}>", el.name));
                }
                let key = t[..k_end].to_string();
                let after = t[k_end..].trim_start();
                let after = after
                    .strip_prefix('=')
                    .ok_or(format!("attribute {key} without a value"))?
                    .trim_start();
                let quote = after
                    .chars()
                    .next()
                    .filter(|q| *q == '"' || *q == '\'')
                    .ok_or(format!("attribute {key} not quoted"))?;
                let v_end = after[1..]
                    .find(quote)
                    .ok_or(format!("attribute {key} not closed"))?;
                let raw = &after[1..1 + v_end];
                if raw.contains('<') {
                    return Err(format!("'<' in attribute {key}"));
                }
                if el.attrs.iter().any(|(k, _)| *k == key) {
                    return Err(format!("attribute {key} twice in <{}>", el.name));
                }
                el.attrs.push((key, unescape(raw)?));
                t = &after[v_end + 2..];
            }
            if closed {
                match stack.last_mut() {
                    Some(parent) => parent.children.push(el),
                    None if root.is_none() => root = Some(el),
                    None => return Err("a second root element".into()),
                }
            } else {
                stack.push(el);
            }
            rest = t;
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            let text = unescape(&rest[..end])?;
            match stack.last_mut() {
                Some(el) => el.text.push_str(&text),
                None if text.trim().is_empty() => {}
                None => return Err(format!("text outside the root: {text:?}")),
            }
            rest = &rest[end..];
        }
    }
    if let Some(open) = stack.last() {
        return Err(format!("<{}> not closed", open.name));
    }
    root.ok_or_else(|| "no root element".into())
}

/// The picture as a viewer reads it: the square whose drawn column number and row letter are
/// nearest to a point. `board` picks one board of a comparison (`None`: the whole picture).
struct Reader<'a> {
    cols: Vec<(f64, u8)>,
    rows: Vec<(f64, u8)>,
    root: &'a Element,
}

impl<'a> Reader<'a> {
    fn new(root: &'a Element) -> Reader<'a> {
        let mut cols = Vec::new();
        let mut rows = Vec::new();
        for el in root.all() {
            if el.has_class("col-label") {
                cols.push((el.num("x"), el.text.parse().expect("a column number")));
            }
            if el.has_class("row-label") {
                let letter = el.text.bytes().next().expect("a row letter");
                rows.push((el.num("y") - 5.0, letter - b'A'));
            }
        }
        assert!(!cols.is_empty() && cols.len() == rows.len());
        Reader { cols, rows, root }
    }

    fn square_at(&self, x: f64, y: f64) -> Coord {
        let nearest = |v: &[(f64, u8)], p: f64| {
            v.iter()
                .min_by(|a, b| (a.0 - p).abs().total_cmp(&(b.0 - p).abs()))
                .map(|(_, i)| *i)
                .expect("labels")
        };
        Coord::new(nearest(&self.rows, y), nearest(&self.cols, x))
    }

    /// (square, piece letter) of every piece, read from the circles' centres.
    fn pieces(&self) -> Vec<(Coord, char)> {
        let mut out: Vec<(Coord, char)> = self
            .root
            .all()
            .into_iter()
            .filter(|e| e.has_class("piece"))
            .map(|g| {
                let disc = g
                    .children
                    .iter()
                    .find(|c| c.name == "circle")
                    .expect("a piece's disc");
                let at = self.square_at(disc.num("cx"), disc.num("cy"));
                let ch = g.attr("data-piece").and_then(|p| p.chars().next());
                let king = g.children.iter().any(|c| c.has_class("crown"));
                let ch = ch.expect("a piece letter");
                assert_eq!(
                    king,
                    ch.is_ascii_uppercase(),
                    "{ch} on {at}: crown drawn {king}"
                );
                (at, ch)
            })
            .collect();
        out.sort();
        out
    }

    fn highlights(&self) -> Vec<Coord> {
        let mut out: Vec<Coord> = self
            .root
            .all()
            .into_iter()
            .filter(|e| e.has_class("highlight"))
            .map(|r| {
                self.square_at(
                    r.num("x") + r.num("width") / 2.0,
                    r.num("y") + r.num("height") / 2.0,
                )
            })
            .collect();
        out.sort();
        out
    }

    fn arrows(&self) -> Vec<Vec<Coord>> {
        self.root
            .all()
            .into_iter()
            .filter(|e| e.has_class("arrow"))
            .map(|p| {
                p.attr("points")
                    .expect("points")
                    .split(' ')
                    .map(|xy| {
                        let (x, y) = xy.split_once(',').expect("x,y");
                        self.square_at(x.parse().expect("x"), y.parse().expect("y"))
                    })
                    .collect()
            })
            .collect()
    }
}

/// (square, letter) of every piece of a grid, as the notation names them.
fn notation_pieces(grid: &Grid) -> Vec<(Coord, char)> {
    let mut out: Vec<(Coord, char)> = grid
        .playable()
        .filter_map(|c| grid.get(c).map(|p| (c, p.to_char())))
        .collect();
    out.sort();
    out
}

fn sq(name: &str, n: usize) -> Coord {
    parse_coord(name, n).expect("a square name")
}

fn bless() -> bool {
    std::env::var_os("CHECKERSBOT_BLESS").is_some_and(|v| v != "0")
}

/// The pictures kept as golden files: (file name, SVG).
fn golden_pictures() -> Vec<(&'static str, String)> {
    let start8 = initial_grid(BoardSize::S8);
    let kings = Grid::parse_line("____/B___/_p__/P___").expect("a board");
    let (fen10, side10) = parse_fen("W:WK10,29-30,46:B5,K27,33", BoardSize::S10).expect("a FEN");
    let seen =
        Grid::parse_line("_b_b_b_b/b_b_b_b_/_b_b___b/____b___/___p____/p___p_p_/_p_p_p_p/p_p_p_p_")
            .expect("a board");
    let expected =
        Grid::parse_line("_b_b_b_b/b_b_b_b_/_b_b___b/____b___/_p______/p___p_p_/_p_p_p_p/p_p_p_p_")
            .expect("a board");
    vec![
        (
            "start8_labels.svg",
            board_svg(
                &start8,
                &Picture {
                    labels: true,
                    ..Picture::default()
                },
            ),
        ),
        (
            "kings4_move.svg",
            board_svg(
                &kings,
                &Picture {
                    side: Some(Side::Bot),
                    highlights: vec![sq("C1", 4)],
                    arrows: vec![vec![sq("B0", 4), sq("D2", 4)]],
                    ..Picture::default()
                },
            ),
        ),
        (
            "fen10_jump.svg",
            board_svg(
                &fen10,
                &Picture {
                    side: Some(side10),
                    arrows: vec![vec![sq("E9", 10), sq("C7", 10), sq("E5", 10)]],
                    ..Picture::default()
                },
            ),
        ),
        (
            "start12.svg",
            board_svg(&initial_grid(BoardSize::S12), &Picture::default()),
        ),
        (
            "compare8.svg",
            compare_svg(
                &expected,
                &seen,
                &Picture {
                    title: Some("expected".into()),
                    ..Picture::default()
                },
                &Picture {
                    title: Some("seen".into()),
                    ..Picture::default()
                },
            ),
        ),
    ]
}

#[test]
fn pictures_match_their_golden_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/render");
    let mut failures = Vec::new();
    for (name, svg) in golden_pictures() {
        let path = dir.join(name);
        if bless() {
            std::fs::create_dir_all(&dir).expect("tests/render");
            std::fs::write(&path, &svg).expect("a golden file");
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if want != svg {
            let line = want
                .lines()
                .zip(svg.lines())
                .position(|(a, b)| a != b)
                .map_or(want.lines().count().min(svg.lines().count()), |i| i);
            failures.push(format!(
                "{}: differs from line {} (CHECKERSBOT_BLESS=1 to regenerate)",
                path.display(),
                line + 1
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn pictures_are_well_formed_xml() {
    for (name, svg) in golden_pictures() {
        let root = parse_xml(&svg).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(root.name, "svg", "{name}");
        assert_eq!(root.attr("xmlns"), Some("http://www.w3.org/2000/svg"));
    }
    // The checker itself refuses what is not well formed.
    for bad in [
        "<svg><g></svg>",
        "<svg a=\"1\" a=\"2\"/>",
        "<svg>a & b</svg>",
        "<svg><text>1 < 2</text></svg>",
        "<svg x=1/>",
        "<svg/><svg/>",
        "<svg>",
    ] {
        assert!(parse_xml(bad).is_err(), "{bad}");
    }
}

#[test]
fn pieces_highlights_and_arrows_are_where_the_notation_says_on_every_size() {
    for size in BoardSize::ALL {
        let n = size.n();
        let mut grid = initial_grid(size);
        // A king of each side on the free rows in the middle.
        for (row, king) in [(n / 2 - 1, 'B'), (n / 2, 'P')] {
            let at = Coord::new(row as u8, ((row + 1) % 2) as u8);
            grid.set(at, checkersbot::rules::position::Piece::from_char(king));
        }
        let highlights = vec![sq("A1", n), Coord::new(n as u8 - 1, 0)];
        let arrow = vec![
            Coord::new(n as u8 - 1, 0),
            Coord::new(n as u8 - 3, 2),
            Coord::new(n as u8 - 2, 3),
        ];
        let svg = board_svg(
            &grid,
            &Picture {
                side: Some(Side::Player),
                highlights: highlights.clone(),
                arrows: vec![arrow.clone()],
                labels: true,
                title: None,
            },
        );
        let root = parse_xml(&svg).unwrap_or_else(|e| panic!("{size}: {e}"));
        let read = Reader::new(&root);
        assert_eq!(read.cols.len(), n);
        assert_eq!(read.pieces(), notation_pieces(&grid), "{size}");
        let mut want = highlights.clone();
        want.sort();
        assert_eq!(read.highlights(), want, "{size}");
        assert_eq!(read.arrows(), vec![arrow], "{size}");
        // Every dark square's label names the square it is drawn on.
        for el in root
            .all()
            .into_iter()
            .filter(|e| e.has_class("square-label"))
        {
            let text = el.children.iter().find(|c| c.name == "text").expect("text");
            let at = read.square_at(text.num("x") + 10.0, text.num("y") + 10.0);
            assert_eq!(text.text, at.to_string(), "{size}");
        }
    }
}

fn cli(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_checkersbot"))
        .arg("render")
        .args(args)
        .output()
        .expect("checkersbot runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_render_command_draws_boards_from_every_source() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // A session step: rotated.in turns its boards round (set rotated on), as the daemon reads them.
    let session = root.join("tests/sessions/rotated.in");
    let text = std::fs::read_to_string(&session).expect("rotated.in");
    let second: String = text
        .lines()
        .filter(|l| l.starts_with("board "))
        .nth(1)
        .and_then(|l| l.split(' ').nth(1))
        .expect("a second board")
        .chars()
        .rev()
        .collect();
    let (ok, svg, err) = cli(&[
        "--session",
        &session.to_string_lossy(),
        "--step",
        "2",
        "--highlight",
        "F2,E1",
        "--arrow",
        "F2-E1",
    ]);
    assert!(ok, "{err}");
    let doc = parse_xml(&svg).expect("well formed");
    let read = Reader::new(&doc);
    let grid = Grid::parse_line(&second).expect("a board");
    assert_eq!(read.pieces(), notation_pieces(&grid));
    assert_eq!(read.highlights(), vec![sq("E1", 8), sq("F2", 8)]);
    assert_eq!(read.arrows(), vec![vec![sq("F2", 8), sq("E1", 8)]]);
    assert!(svg.contains("b (the bot) to move"));

    // A PDN game's position after two moves, written to a file.
    let pdn = std::env::temp_dir().join(format!("render-{}.pdn", std::process::id()));
    std::fs::write(&pdn, "[Event \"t\"]\n1. 11-15 23-19 2. 8-11 *\n").expect("a temp file");
    let (ok, svg, err) = cli(&["--pdn", &pdn.to_string_lossy(), "--ply", "2"]);
    let (too_far, _, said) = cli(&["--pdn", &pdn.to_string_lossy(), "--ply", "4"]);
    std::fs::remove_file(&pdn).ok();
    assert!(ok, "{err}");
    let doc = parse_xml(&svg).expect("well formed");
    let read = Reader::new(&doc);
    let pieces = read.pieces();
    assert!(pieces.contains(&(sq("D4", 8), 'b')) && pieces.contains(&(sq("E5", 8), 'p')));
    assert!(!pieces
        .iter()
        .any(|(c, _)| *c == sq("C5", 8) || *c == sq("F4", 8)));
    assert!(
        !too_far && said.contains("the game has 3 moves, not 4"),
        "{said}"
    );

    // A FEN on 6x6, to a file.
    let out = std::env::temp_dir().join(format!("render-{}.svg", std::process::id()));
    let (ok, stdout, err) = cli(&[
        "--fen",
        "W:WK7,14:B1",
        "--size",
        "6",
        "--out",
        &out.to_string_lossy(),
    ]);
    let svg = std::fs::read_to_string(&out).unwrap_or_default();
    std::fs::remove_file(&out).ok();
    assert!(ok && stdout.is_empty(), "{err}");
    let doc = parse_xml(&svg).expect("well formed");
    let (fen_grid, _) = parse_fen("W:WK7,14:B1", BoardSize::S6).expect("a FEN");
    assert_eq!(Reader::new(&doc).pieces(), notation_pieces(&fen_grid));

    // Errors say what is wrong and exit with a failure.
    for (args, says) in [
        (vec!["--board", "b__b/____/____/p_p_"], "light square"),
        (
            vec!["--board", "_b_b/____/____/p_p_", "--arrow", "A1"],
            "at least two",
        ),
        (
            vec!["--board", "_b_b/____/____/p_p_", "--highlight", "Z9"],
            "--highlight",
        ),
        (
            vec!["--session", "/nonexistent.in", "--step", "1"],
            "cannot read",
        ),
        (vec![], "give a board"),
    ] {
        let (ok, _, err) = cli(&args);
        assert!(!ok && err.contains(says), "{args:?}: {err}");
    }
}

/// The pictures in `docs/images/` are what the commands given in the docs draw.
#[test]
fn the_documentation_pictures_are_what_render_draws() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let start = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p_p_p_p/p_p_p_p_";
    let seen = "_b_b_b_b/b_b_b_b_/_b_b_b_b/________/________/p_p_p_p_/_p___p_p/p_p_p_p_";
    let pictures: [(&str, Vec<&str>); 2] = [
        ("coordinates.svg", vec!["--labels", "--board", start]),
        (
            "misread.svg",
            vec![
                "--compare",
                start,
                "--board",
                seen,
                "--side",
                "p",
                "--title",
                "seen",
            ],
        ),
    ];
    for (name, args) in pictures {
        let (ok, svg, err) = cli(&args);
        assert!(ok, "{name}: {err}");
        let path = root.join("docs/images").join(name);
        if bless() {
            std::fs::write(&path, &svg).expect("docs/images");
            continue;
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            kept == svg,
            "{} is not what render draws now (CHECKERSBOT_BLESS=1 to regenerate)",
            path.display()
        );
    }
    // The misread picture highlights the one square the daemon names, on both boards.
    let svg = std::fs::read_to_string(root.join("docs/images/misread.svg")).unwrap_or_default();
    let doc = parse_xml(&svg).expect("well formed");
    let read = Reader::new(&doc);
    assert_eq!(read.highlights(), vec![sq("G3", 8), sq("G3", 8)]);
}
