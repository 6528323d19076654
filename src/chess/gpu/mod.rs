//! Chess on the GPU: the Rust twins of the chess WGSL structs (`layout`), the
//! chess shaders and their variants (`shaders`), batched move generation
//! (`movegen`), chess as a game of the generic perft engine (`perft`), and
//! the WGSL library for users' own shaders (`embed`), the known-answer
//! checks of the GPU self-test (`self_test`), and the chess variants as a
//! game of the perft engine (`variant`).

pub mod embed;
pub mod env;
pub mod layout;
pub mod movegen;
pub mod perft;
pub mod self_test;
pub mod shaders;
pub mod variant;

pub use movegen::{ACTION_MASK_WORDS, GeneratorOptions, Kernel, MoveGenerator, PieceMode, PositionMoves, Timings};
pub use perft::{Chess, GpuPerft, PerftOptions};
pub use shaders::{ADAPTER_DEFAULTS, AdapterDefault, Int64Mode, KernelFamily, ShaderBuild, adapter_default};
pub use variant::{ChessVariants, VariantGpuPerft, VariantKernels, VariantPerftOptions};
