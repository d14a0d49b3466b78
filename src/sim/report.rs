//! What the simulator's judge counted: per game, then added up over a run, printed as a table or
//! written as JSON.

use super::faults::Fault;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How the daemon answered one kind of fault.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FaultStats {
    /// Frames with this fault.
    pub frames: u64,
    /// Those answered without a move (an `error` or `wait`).
    pub refused: u64,
    /// Those whose reply named exactly the squares the fault touched.
    pub named_exactly: u64,
    /// Those whose reply named them among others.
    pub named_among: u64,
    /// Misreads whose nearest explanation was unique (the daemon could name the squares).
    pub unique: u64,
    /// Of those, the ones named exactly.
    pub unique_named_exactly: u64,
}

impl FaultStats {
    fn add(&mut self, o: &FaultStats) {
        self.frames += o.frames;
        self.refused += o.refused;
        self.named_exactly += o.named_exactly;
        self.named_among += o.named_among;
        self.unique += o.unique;
        self.unique_named_exactly += o.unique_named_exactly;
    }
}

/// The judge's counts for a game or a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// Games played.
    pub games: u64,
    /// Games that reached their end (the daemon's `gameover`, agreeing with the true board) or
    /// the ply limit.
    pub finished: u64,
    /// Of those, the ones stopped at the ply limit.
    pub capped: u64,
    /// Plies played.
    pub plies: u64,
    /// Frames sent.
    pub frames: u64,
    /// Move commands received.
    pub commands: u64,
    /// Move commands that were wrong: not legal on the true board, or an answer to a frame that
    /// did not show the true board.
    pub wrong_commands: u64,
    /// Clean frames the daemon refused (or answered otherwise than the true board requires).
    pub clean_refused: u64,
    /// Faults by kind.
    pub faults: BTreeMap<Fault, FaultStats>,
    /// Repeated frames, and those answered as the first copy was.
    pub repeated: (u64, u64),
    /// Frames from each fault until the game went on (the reply to the first frame that moved it
    /// forward included).
    pub recovery: Vec<u64>,
    /// Link faults made (cable pulled or connection dropped while the bot searched), and those
    /// skipped because the reply had come already.
    pub link_faults: u64,
    /// Link faults skipped: the reply came before the link could be broken.
    pub link_skipped: u64,
    /// Replies that came only after `repeat` once the link was back.
    pub recovered_by_repeat: u64,
    /// Slow-reader pauses.
    pub slow_reads: u64,
    /// Replies that never came (within the patience), link faults or not.
    pub replies_lost: u64,
    /// What went wrong, one line each (the first 50): game, frame, what was sent and answered.
    pub problems: Vec<String>,
}

impl Report {
    /// Adds another report's counts.
    pub fn add(&mut self, o: &Report) {
        self.games += o.games;
        self.finished += o.finished;
        self.capped += o.capped;
        self.plies += o.plies;
        self.frames += o.frames;
        self.commands += o.commands;
        self.wrong_commands += o.wrong_commands;
        self.clean_refused += o.clean_refused;
        for (k, v) in &o.faults {
            self.faults.entry(*k).or_default().add(v);
        }
        self.repeated.0 += o.repeated.0;
        self.repeated.1 += o.repeated.1;
        self.recovery.extend_from_slice(&o.recovery);
        self.link_faults += o.link_faults;
        self.link_skipped += o.link_skipped;
        self.recovered_by_repeat += o.recovered_by_repeat;
        self.slow_reads += o.slow_reads;
        self.replies_lost += o.replies_lost;
        for p in &o.problems {
            if self.problems.len() < 50 {
                self.problems.push(p.clone());
            }
        }
    }

    /// Records a problem line.
    pub fn problem(&mut self, text: String) {
        if self.problems.len() < 50 {
            self.problems.push(text);
        }
    }

    /// Whether the run passed: no wrong command, no reply lost, no clean frame refused, every
    /// game finished.
    pub fn passed(&self) -> bool {
        self.wrong_commands == 0
            && self.replies_lost == 0
            && self.clean_refused == 0
            && self.finished == self.games
    }

    /// Fault frames in all, and those refused.
    pub fn fault_totals(&self) -> (u64, u64) {
        self.faults
            .values()
            .fold((0, 0), |(f, r), s| (f + s.frames, r + s.refused))
    }

    /// Faults whose reply should name squares, and those named exactly.
    pub fn naming_totals(&self) -> (u64, u64) {
        self.faults
            .iter()
            .filter(|(k, _)| k.names_squares())
            .fold((0, 0), |(f, n), (_, s)| (f + s.frames, n + s.named_exactly))
    }

    /// The `q`-quantile (0 to 1) of the recovery frames, 0 when there are none.
    pub fn recovery_quantile(&self, q: f64) -> u64 {
        quantile(&self.recovery, q)
    }

    /// The summary table.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let pct = |a: u64, b: u64| {
            if b == 0 {
                "-".to_string()
            } else {
                format!("{:.1}%", 100.0 * a as f64 / b as f64)
            }
        };
        let (ff, fr) = self.fault_totals();
        let (nf, nn) = self.naming_totals();
        let rows: Vec<(String, String)> = vec![
            (
                "wrong commands executed".into(),
                format!("{} (of {} commands)", self.wrong_commands, self.commands),
            ),
            (
                "games finished".into(),
                format!(
                    "{} of {} ({}; {} at the ply limit)",
                    self.finished,
                    self.games,
                    pct(self.finished, self.games),
                    self.capped
                ),
            ),
            (
                "fault frames refused".into(),
                format!("{fr} of {ff} ({})", pct(fr, ff)),
            ),
            (
                "faults named exactly".into(),
                format!("{nn} of {nf} ({})", pct(nn, nf)),
            ),
            (
                "clean frames refused".into(),
                format!("{} of {}", self.clean_refused, self.frames - ff),
            ),
            (
                "frames until the game goes on".into(),
                format!(
                    "median {}, p99 {}, max {} ({} faults)",
                    self.recovery_quantile(0.5),
                    self.recovery_quantile(0.99),
                    self.recovery.iter().max().copied().unwrap_or(0),
                    self.recovery.len()
                ),
            ),
            (
                "link faults".into(),
                format!(
                    "{} made, {} skipped (reply already there), {} replies after repeat, {} slow reads",
                    self.link_faults, self.link_skipped, self.recovered_by_repeat, self.slow_reads
                ),
            ),
            ("replies lost".into(), self.replies_lost.to_string()),
            (
                "repeated frames answered alike".into(),
                format!("{} of {}", self.repeated.1, self.repeated.0),
            ),
            (
                "games, plies, frames".into(),
                format!("{}, {}, {}", self.games, self.plies, self.frames),
            ),
        ];
        let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        for (k, v) in &rows {
            let _ = writeln!(out, "{k:<width$}  {v}");
        }
        let _ = writeln!(
            out,
            "\n{:<18} {:>7} {:>9} {:>9} {:>9} {:>15}",
            "fault", "frames", "refused", "named", "among", "unique: named"
        );
        for (k, s) in &self.faults {
            let named = if k.names_squares() {
                pct(s.named_exactly, s.frames)
            } else {
                "-".into()
            };
            let among = if k.names_squares() {
                pct(s.named_among, s.frames)
            } else {
                "-".into()
            };
            let unique = if s.unique > 0 {
                format!(
                    "{} of {} ({})",
                    s.unique_named_exactly,
                    s.unique,
                    pct(s.unique_named_exactly, s.unique)
                )
            } else {
                "-".into()
            };
            let _ = writeln!(
                out,
                "{:<18} {:>7} {:>9} {:>9} {:>9} {:>15}",
                k.word(),
                s.frames,
                pct(s.refused, s.frames),
                named,
                among,
                unique
            );
        }
        if !self.problems.is_empty() {
            let _ = writeln!(out, "\nproblems (the first {}):", self.problems.len());
            for p in &self.problems {
                let _ = writeln!(out, "  {p}");
            }
        }
        let _ = writeln!(out, "\n{}", if self.passed() { "PASSED" } else { "FAILED" });
        out
    }

    /// The report as JSON (`settings` is an object written by the caller).
    pub fn json(&self, settings: &str) -> String {
        let mut faults = Vec::new();
        for (k, s) in &self.faults {
            faults.push(format!(
                r#""{}":{{"frames":{},"refused":{},"named_exactly":{},"named_among":{},"unique":{},"unique_named_exactly":{}}}"#,
                k.word(),
                s.frames,
                s.refused,
                s.named_exactly,
                s.named_among,
                s.unique,
                s.unique_named_exactly
            ));
        }
        let problems: Vec<String> = self.problems.iter().map(|p| json_string(p)).collect();
        let (ff, fr) = self.fault_totals();
        let (nf, nn) = self.naming_totals();
        format!(
            concat!(
                r#"{{"settings":{},"passed":{},"games":{},"finished":{},"capped":{},"plies":{},"#,
                r#""frames":{},"commands":{},"wrong_commands":{},"clean_refused":{},"#,
                r#""fault_frames":{},"fault_frames_refused":{},"faults_to_name":{},"faults_named_exactly":{},"#,
                r#""recovery_frames":{{"median":{},"p99":{},"max":{},"count":{}}},"#,
                r#""repeated":{},"repeated_alike":{},"link_faults":{},"link_skipped":{},"#,
                r#""recovered_by_repeat":{},"slow_reads":{},"replies_lost":{},"#,
                r#""faults":{{{}}},"problems":[{}]}}"#
            ),
            settings,
            self.passed(),
            self.games,
            self.finished,
            self.capped,
            self.plies,
            self.frames,
            self.commands,
            self.wrong_commands,
            self.clean_refused,
            ff,
            fr,
            nf,
            nn,
            self.recovery_quantile(0.5),
            self.recovery_quantile(0.99),
            self.recovery.iter().max().copied().unwrap_or(0),
            self.recovery.len(),
            self.repeated.0,
            self.repeated.1,
            self.link_faults,
            self.link_skipped,
            self.recovered_by_repeat,
            self.slow_reads,
            self.replies_lost,
            faults.join(","),
            problems.join(",")
        )
    }
}

/// The `q`-quantile of `values` (nearest rank), 0 when empty.
fn quantile(values: &[u64], q: f64) -> u64 {
    if values.is_empty() {
        return 0;
    }
    let mut v = values.to_vec();
    v.sort_unstable();
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// `text` as a JSON string.
pub fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        assert_eq!(quantile(&[], 0.5), 0);
        assert_eq!(quantile(&[3, 1, 2], 0.5), 2);
        let hundred: Vec<u64> = (1..=100).collect();
        assert_eq!(quantile(&hundred, 0.99), 99);
        assert_eq!(quantile(&hundred, 1.0), 100);
    }

    #[test]
    fn a_run_passes_only_with_nothing_wrong() {
        let mut r = Report {
            games: 2,
            finished: 2,
            ..Report::default()
        };
        assert!(r.passed());
        let mut wrong = Report {
            games: 1,
            finished: 1,
            wrong_commands: 1,
            ..Report::default()
        };
        wrong.problem("game 3: move C1 D0 on a misread frame".into());
        r.add(&wrong);
        assert!(!r.passed());
        assert!(r.table().contains("FAILED"));
        assert!(r.table().contains("game 3: move C1 D0"));
        assert!(r.json("{}").contains(r#""wrong_commands":1"#));
        assert_eq!(json_string("a\"b\\c\n"), r#""a\"b\\c\u000a""#);
    }
}
