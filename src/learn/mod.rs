//! Learning the evaluation from games: the layer above the engine and the games it plays.
//!
//! - [`data`]: the training-data file format (positions, outcomes, search scores);
//! - [`games`]: self-play games kept as PDN with their search scores, read back as records;
//! - [`selfplay`]: the engine against itself from random openings, writing training data;
//! - [`relabel`]: chosen positions searched again far deeper, for better scores;
//! - [`deep`]: deep labels from the opening book's searches;
//! - [`parallel`]: numbered work on several threads, results in order;
//! - [`train`]: fitting the learned evaluation's weights to the data.

pub mod data;
pub mod deep;
pub mod games;
pub mod net;
pub mod parallel;
pub mod relabel;
pub mod selfplay;
pub mod train;
