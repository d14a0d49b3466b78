//! One module per subcommand. Each reads its own arguments and writes its own output.

pub mod bench;
pub mod bench_search;
pub mod book;
pub mod common;
pub mod egdb;
pub mod matches;
pub mod moves;
pub mod perft;
pub mod play;
pub mod replay;
pub mod search;
pub mod selfplay;
pub mod serve;
pub mod train;
