//! # gpu-movegen
//!
//! Chess move generation and perft for the GPU, with a full-rules CPU
//! reference that every GPU result is checked against.
//!
//! ```
//! use gpu_movegen::{perft, Position};
//!
//! let kiwipete = Position::from_fen(
//!     "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
//! )?;
//! assert_eq!(kiwipete.legal_moves().len(), 48);
//! assert_eq!(perft::perft(&kiwipete, 2), 2_039);
//! # Ok::<(), gpu_movegen::FenError>(())
//! ```

pub mod board;
pub mod error;
pub mod gpu;
pub mod movegen;
pub mod perft;
pub mod pseudo_legal;
pub mod random_play;
pub mod sliders;
pub mod suite;
pub mod tables;

pub use board::{Bitboard, CastlingRights, Color, Move, MoveKind, Piece, Position, START_FEN, Square};
pub use error::{Error, FenError, MoveError, SuiteError};
pub use movegen::{MAX_LEGAL_MOVES, MoveList, PieceMoves};
/// The wgpu this crate is built on, for callers that bring their own device.
pub use wgpu;

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
