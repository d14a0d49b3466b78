//! What the daemon's event loop reacts to: input from the reader thread, progress and results
//! from the engine thread, files loaded on a thread of their own, signals.

use super::transport::Input;
use crate::engine::book::Book;
use crate::engine::egdb::Egdb;
use crate::engine::eval::LearnedSet;
use crate::engine::{Info, SearchResult};
use std::sync::Arc;

/// Everything the daemon reacts to, in the order it arrives.
#[derive(Debug)]
pub enum Event {
    /// From the reader thread.
    Input(Input),
    /// A termination signal (its number).
    Signal(i32),
    /// Progress of the running search (one completed iteration).
    Progress(Info),
    /// The running search's result.
    SearchDone(SearchResult),
    /// The lines of a depth an analysis without limits (`analyse N infinite`) has completed,
    /// best first.
    AnalysisProgress(Vec<Info>),
    /// The running analysis's lines (of `analyse` or `hint`), best first.
    AnalysisDone(Vec<SearchResult>),
    /// A file loaded on a thread of its own (`set eval PATH`, `set egdb DIR`, `set book PATH`).
    Loaded(Loaded),
    /// The output closed for good (a pipe whose reader has gone).
    OutputClosed,
    /// News of the endgame database built in the background (`serve --egdb-build`).
    EgdbBuild(super::egdb_build::BuildNews),
}

/// What a loader thread read, for `set eval PATH`, `set egdb DIR` and `set book PATH`.
#[derive(Debug)]
pub enum Loaded {
    /// Weights for `set eval`.
    Eval {
        /// The path as given.
        spec: String,
        /// The weights, or why not.
        result: Result<LearnedSet, String>,
    },
    /// A database for `set egdb`.
    Egdb {
        /// The directory as given.
        spec: String,
        /// The database, or why not.
        result: Result<Arc<Egdb>, String>,
    },
    /// An opening book for `set book` (`None`: `off`).
    Book {
        /// The book as given (`builtin`, `off` or a path).
        spec: String,
        /// The book, or why not.
        result: Result<Option<Book>, String>,
    },
}
