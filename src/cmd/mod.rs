//! One module per subcommand. Each reads its own arguments and writes its own output.

pub mod bench_search;
pub mod common;
pub mod moves;
pub mod perft;
pub mod search;
