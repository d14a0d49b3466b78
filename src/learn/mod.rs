//! Learning the evaluation from games: the layer above the engine and the games it plays.
//!
//! - [`data`]: the training-data file format (positions, outcomes, search scores);
//! - [`selfplay`]: the engine against itself from random openings, writing training data;
//! - [`train`]: fitting the learned evaluation's weights to the data.

pub mod data;
pub mod net;
pub mod selfplay;
pub mod train;
