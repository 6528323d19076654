//! # gpu-movegen
//!
//! Legal move generation and perft for chess, Shogi and Go on the GPU,
//! written as WGSL compute shaders driven from Rust through wgpu, with a
//! full-rules CPU reference that every GPU result is checked against.
//!
//! The crate is layered one way: each game's CPU core (`chess`: board →
//! tables → sliders → movegen → perft; `shogi`; `go`) builds without the GPU;
//! `gpu` is the game-independent runtime (context, WGSL composer, buffers,
//! the self-test, the breadth-first perft engine); each game's `gpu` module
//! plugs its kernels into that runtime; the command line sits on top. The
//! `gpu` feature (on by default) brings in wgpu and naga, the `cli` feature
//! the command line's crates.
//!
//! ## On the CPU
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
//!
//! Shogi and Go have the same shape: `shogi::position::Position::from_sfen`
//! with `shogi::perft`, `go::Position::from_moves` with `go::perft` and
//! `go::playout`.
//!
//! ## On the GPU
//!
//! A [`gpu::GpuContext`] opens the best adapter (or wraps your own device);
//! engines are built on it once the device has passed the self-test of
//! their kernels, and every count is exact in fixed GPU memory.
//!
//! ```
//! # #[cfg(feature = "gpu")] {
//! use gpu_movegen::chess::gpu::perft::{GpuPerft, PerftOptions};
//! use gpu_movegen::gpu::GpuContext;
//! use gpu_movegen::Position;
//!
//! let context = GpuContext::new()?;
//! let mut engine = GpuPerft::with_options(&context, PerftOptions::default())?;
//! let counts = engine.perft(&[Position::start()], 3, &mut |_nodes| {})?;
//! assert_eq!(counts, [8_902]);
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Every GPU call is async underneath (`perft_async`, `GpuContext::new_async`
//! and so on), which is how the browser build runs it; the blocking names
//! above wait on the same code.
//!
//! ## In your own shaders
//!
//! [`chess::gpu::embed`] joins WGSL that says `#import chess` with the
//! library and reports its bindings, so your kernels can generate and play
//! legal moves on your own `wgpu::Device`; docs/library.md has a whole
//! program and docs/wgsl-api.md the functions.

#![warn(missing_docs)]

#[cfg(feature = "gpu")]
pub mod catalog;
pub mod chess;
pub mod env;
pub mod error;
pub mod files;
pub mod game;
pub mod go;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod machine;
pub mod random;
#[cfg(feature = "gpu")]
pub mod registry;
pub mod shogi;
pub mod threads;

// Chess, the first game, keeps its short paths at the crate root.
/// The crate whose `Pod` and `cast_slice` the GPU API's signatures use,
/// re-exported so that a caller needs no dependency of its own to match.
#[cfg(feature = "gpu")]
pub use bytemuck;
pub use chess::board::{
    Bitboard, CastlingNotation, CastlingRights, CastlingSide, Color, Move, MoveKind, Piece, Square, UciMove,
};
pub use chess::movegen::{MAX_LEGAL_MOVES, MoveList, PieceMoves, SpecialSquares};
pub use chess::position::{Position, PositionIdentity, START_FEN};
pub use chess::{board, movegen, perft, position, pseudo_legal, random_play, sliders, suite, tables};
pub use error::{Error, FenError, MoveError, SuiteError};
/// The wgpu this crate is built on, for callers that bring their own device.
#[cfg(feature = "gpu")]
pub use wgpu;

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(all(doctest, feature = "gpu"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The library guide's Rust examples (docs/library.md), compiled and run as doc tests.
#[cfg(all(doctest, feature = "gpu"))]
#[doc = include_str!("../docs/library.md")]
pub struct LibraryGuideDoctests;

/// The chess variants guide's Rust examples (docs/variants.md), compiled and run as doc tests.
#[cfg(all(doctest, feature = "gpu"))]
#[doc = include_str!("../docs/variants.md")]
pub struct VariantsGuideDoctests;
