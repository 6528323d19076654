//! Chess: the board types, attack tables, the slider algorithms, the
//! position and its FEN, legal move generation, perft, and (with the `gpu`
//! feature) the GPU kernels' host side. The modules depend on each other in
//! that order only (tests/layers.rs checks it).

pub mod board;
pub mod cpu_perft;
pub mod cross_check;
pub mod env;
pub mod error;
pub mod fast_perft;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod movegen;
pub mod perft;
pub mod position;
pub mod pseudo_legal;
pub mod random_play;
pub mod sliders;
pub mod stats;
pub mod suite;
pub mod tables;
pub mod transposition;
pub mod unique;
pub mod units;
pub mod variant;

pub use perft::Chess;
