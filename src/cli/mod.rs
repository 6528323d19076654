//! The command line's parts: what every command shares, the chess, Shogi
//! and Go commands (Go's GTP engine included), and adapter information.

pub mod bisect;
pub mod chess;
pub mod common;
pub mod engine;
pub mod go;
pub mod info;
pub mod protocol;
pub mod shogi;
pub mod stats;
pub mod unique;
pub mod units;
pub mod variant;
