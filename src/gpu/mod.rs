//! The GPU side: context and errors, the WGSL twins of the data layouts,
//! the shader sources, and batched move generation.

pub mod context;
pub mod embed;
pub mod layout;
pub mod movegen;
pub mod perft;
mod resources;
pub mod shaders;

pub use context::{GpuContext, GpuError, list_adapters};
pub use movegen::{GeneratorOptions, Kernel, MoveGenerator, PieceMode, PositionMoves, Timings};
pub use perft::{GpuPerft, PerftOptions, PerftStatistics};
pub use shaders::{Int64Mode, ShaderVariant};
