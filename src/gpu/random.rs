//! The shaders' random generator's CPU twin lives at the crate root
//! ([`crate::random`]) so that CPU-only builds (Go playouts) replay it too.

pub use crate::random::ShaderRandom;
