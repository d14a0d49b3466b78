//! A deliberately simple reference move generator, written from the rules and nothing else: the
//! board is a 2-D array of characters, capture sequences are found by plain recursion, and the
//! position is copied for every move. It shares no code with `src/rules/movegen.rs` (it does not even use
//! the library's board parser), so that comparing the two finds mistakes in either.
//!
//! Rules: rows lettered from the top, columns numbered from 0; `b` men start at the top and move
//! down, `p` men start at the bottom and move up; kings (`B`, `P`) move one square in any diagonal
//! direction. Capturing is mandatory but any sequence may be chosen; a sequence goes on while the
//! piece can jump again; a piece is never jumped twice; a man reaching the far row is crowned and
//! its move ends there. Men capture forward only. The jumping piece's start square counts as empty
//! during its sequence. A side with no move has lost (zero moves).

#![allow(dead_code)]

/// A board: `cells[row][col]` is one of `_ b p B P`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefBoard {
    pub n: usize,
    pub cells: Vec<Vec<char>>,
}

/// A move: squares visited (start first), squares of the captured pieces in jump order, crowning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefMove {
    pub path: Vec<(usize, usize)>,
    pub captured: Vec<(usize, usize)>,
    pub crowns: bool,
}

/// A square's name: row letter then column number, like `G3`.
pub fn square_name(sq: (usize, usize)) -> String {
    format!("{}{}", (b'A' + sq.0 as u8) as char, sq.1)
}

impl RefMove {
    /// The path as text, e.g. `E5 C3 A1`.
    pub fn path_text(&self) -> String {
        self.path
            .iter()
            .map(|&s| square_name(s))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Path, captured squares (sorted) and crowning, as one comparable string.
    pub fn describe(&self) -> String {
        let mut caps: Vec<String> = self.captured.iter().map(|&s| square_name(s)).collect();
        caps.sort();
        format!(
            "{} x[{}]{}",
            self.path_text(),
            caps.join(" "),
            if self.crowns { " crowns" } else { "" }
        )
    }
}

fn owner(piece: char) -> Option<char> {
    match piece {
        'p' | 'P' => Some('p'),
        'b' | 'B' => Some('b'),
        _ => None,
    }
}

fn is_king(piece: char) -> bool {
    piece == 'P' || piece == 'B'
}

fn other(side: char) -> char {
    if side == 'p' {
        'b'
    } else {
        'p'
    }
}

impl RefBoard {
    /// Reads the one-line form (rows top to bottom joined by `/`).
    pub fn parse(line: &str) -> RefBoard {
        let cells: Vec<Vec<char>> = line
            .trim()
            .split('/')
            .map(|r| r.chars().collect())
            .collect();
        let n = cells.len();
        for row in &cells {
            assert_eq!(row.len(), n, "row length in {line}");
        }
        RefBoard { n, cells }
    }

    /// The one-line form.
    pub fn line(&self) -> String {
        self.cells
            .iter()
            .map(|r| r.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The standard starting position: `n/2 - 1` rows of men each.
    pub fn initial(n: usize) -> RefBoard {
        let rows = n / 2 - 1;
        let mut cells = vec![vec!['_'; n]; n];
        for (r, row) in cells.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                if (r + c) % 2 == 1 {
                    if r < rows {
                        *cell = 'b';
                    } else if r >= n - rows {
                        *cell = 'p';
                    }
                }
            }
        }
        RefBoard { n, cells }
    }

    fn at(&self, r: i32, c: i32) -> Option<char> {
        if r < 0 || c < 0 || r >= self.n as i32 || c >= self.n as i32 {
            None
        } else {
            Some(self.cells[r as usize][c as usize])
        }
    }

    /// The row where `side`'s men are crowned.
    fn crown_row(&self, side: char) -> usize {
        if side == 'p' {
            0
        } else {
            self.n - 1
        }
    }

    /// Directions (row, column) a piece may move or capture in.
    fn directions(piece: char) -> Vec<(i32, i32)> {
        match piece {
            'p' => vec![(-1, -1), (-1, 1)],
            'b' => vec![(1, -1), (1, 1)],
            _ => vec![(-1, -1), (-1, 1), (1, -1), (1, 1)],
        }
    }

    /// Every legal move of `side`.
    pub fn moves(&self, side: char) -> Vec<RefMove> {
        let mut captures = Vec::new();
        for r in 0..self.n {
            for c in 0..self.n {
                let piece = self.cells[r][c];
                if owner(piece) == Some(side) {
                    // The piece is lifted off its square for the whole sequence.
                    let mut lifted = self.clone();
                    lifted.cells[r][c] = '_';
                    let mut path = vec![(r, c)];
                    let mut taken = Vec::new();
                    lifted.jumps(piece, side, &mut path, &mut taken, &mut captures);
                }
            }
        }
        if !captures.is_empty() {
            return captures;
        }
        let mut steps = Vec::new();
        for r in 0..self.n {
            for c in 0..self.n {
                let piece = self.cells[r][c];
                if owner(piece) != Some(side) {
                    continue;
                }
                for (dr, dc) in Self::directions(piece) {
                    let (tr, tc) = (r as i32 + dr, c as i32 + dc);
                    if self.at(tr, tc) == Some('_') {
                        let to = (tr as usize, tc as usize);
                        steps.push(RefMove {
                            path: vec![(r, c), to],
                            captured: Vec::new(),
                            crowns: !is_king(piece) && to.0 == self.crown_row(side),
                        });
                    }
                }
            }
        }
        steps
    }

    /// Extends a capture sequence standing at the end of `path`, adding every finished one to `out`.
    fn jumps(
        &self,
        piece: char,
        side: char,
        path: &mut Vec<(usize, usize)>,
        taken: &mut Vec<(usize, usize)>,
        out: &mut Vec<RefMove>,
    ) {
        let (r, c) = *path.last().unwrap();
        let mut went_on = false;
        for (dr, dc) in Self::directions(piece) {
            let (mr, mc) = (r as i32 + dr, c as i32 + dc);
            let (lr, lc) = (r as i32 + 2 * dr, c as i32 + 2 * dc);
            let Some(mid) = self.at(mr, mc) else { continue };
            if owner(mid) != Some(other(side)) {
                continue;
            }
            let mid_sq = (mr as usize, mc as usize);
            if taken.contains(&mid_sq) {
                continue;
            }
            if self.at(lr, lc) != Some('_') {
                continue;
            }
            let land = (lr as usize, lc as usize);
            went_on = true;
            path.push(land);
            taken.push(mid_sq);
            if !is_king(piece) && land.0 == self.crown_row(side) {
                out.push(RefMove {
                    path: path.clone(),
                    captured: taken.clone(),
                    crowns: true,
                });
            } else {
                self.jumps(piece, side, path, taken, out);
            }
            path.pop();
            taken.pop();
        }
        if !went_on && !taken.is_empty() {
            out.push(RefMove {
                path: path.clone(),
                captured: taken.clone(),
                crowns: false,
            });
        }
    }

    /// The board after a move.
    pub fn play(&self, mv: &RefMove) -> RefBoard {
        let mut b = self.clone();
        let from = mv.path[0];
        let to = *mv.path.last().unwrap();
        let mut piece = b.cells[from.0][from.1];
        b.cells[from.0][from.1] = '_';
        for &(r, c) in &mv.captured {
            b.cells[r][c] = '_';
        }
        if mv.crowns {
            piece = piece.to_ascii_uppercase();
        }
        b.cells[to.0][to.1] = piece;
        b
    }

    /// Leaf count of the move tree to `depth` plies.
    pub fn perft(&self, side: char, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves(side);
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|m| self.play(m).perft(other(side), depth - 1))
            .sum()
    }
}
