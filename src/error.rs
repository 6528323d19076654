//! The crate's error type: every error the library returns, by game and
//! by layer. Each message names what was wrong and what to do about it.

pub use crate::chess::error::{FenError, MoveError, SuiteError};

/// Every error the library returns.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("invalid FEN: {0}")]
    Fen(#[from] FenError),
    #[error(transparent)]
    Move(#[from] MoveError),
    #[error("perft suite, {0}")]
    Suite(#[from] SuiteError),
    #[error(transparent)]
    Unit(#[from] crate::chess::units::UnitError),
    #[error("invalid SFEN: {0}")]
    Sfen(#[from] crate::shogi::SfenError),
    #[error(transparent)]
    UsiMove(#[from] crate::shogi::UsiMoveError),
    #[error(transparent)]
    Go(#[from] crate::go::GoError),
    #[error("SGF: {0}")]
    Sgf(#[from] crate::go::sgf::SgfError),
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
}
