//! The command line's parts: what every command shares, the chess and
//! Shogi commands, adapter information, and the game still to come.

pub mod chess;
pub mod common;
pub mod info;
pub mod shogi;
pub mod unbuilt;
