//! The command line's parts: what every command shares, the chess
//! commands, adapter information, and the games still to come.

pub mod chess;
pub mod common;
pub mod info;
pub mod unbuilt;
