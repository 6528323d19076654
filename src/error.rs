//! The crate's error type: every error the library returns, by game and
//! by layer. Each message names what was wrong and what to do about it.

pub use crate::chess::error::{FenError, MoveError, SuiteError};

/// Every error the library returns.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A FEN string that does not describe a legal-looking position.
    #[error("invalid FEN: {0}")]
    Fen(#[from] FenError),
    /// A UCI move that does not read, or is not legal in its position.
    #[error(transparent)]
    Move(#[from] MoveError),
    /// A perft suite line that does not read.
    #[error("perft suite, {0}")]
    Suite(#[from] SuiteError),
    /// A work unit, manifest or result file that does not read or check.
    #[error(transparent)]
    Unit(#[from] crate::chess::units::UnitError),
    /// An SFEN string that does not describe a Shogi position.
    #[error("invalid SFEN: {0}")]
    Sfen(#[from] crate::shogi::SfenError),
    /// A USI move that does not read, or is not legal in its position.
    #[error(transparent)]
    UsiMove(#[from] crate::shogi::UsiMoveError),
    /// A Go move, vertex or board size the rules refuse.
    #[error(transparent)]
    Go(#[from] crate::go::GoError),
    /// An SGF file that does not read, or whose main line the rules refuse.
    #[error("SGF: {0}")]
    Sgf(#[from] crate::go::sgf::SgfError),
    /// A failure on the GPU side: no adapter, a lost device, out of memory,
    /// a stall, a failed self-test.
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
}
