//! Go on bitmaps: boards from 2×2 to 19×19 (9×9 in one 128-bit value, 19×19
//! in six 64-bit words, one code path for all), exact legality with simple
//! ko and suicide forbidden, the rule-2/4 eye test that keeps playouts from
//! filling their own eyes, seeded random playouts scored by area, perft,
//! SGF input and a GTP engine. The GPU twins (`gpu`) run the same bitmaps in
//! WGSL: legal-point and playout bitmaps per position, perft through the
//! shared engine, and playouts that end exactly as the CPU's.

pub mod bitmap;
pub mod board;
pub mod chains;
pub mod env;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod gtp;
pub mod handicap;
pub mod outcome;
pub mod ownership;
pub mod perft;
pub mod playout;
pub mod position;
pub mod sgf;

pub use board::Color;
pub use perft::GoGame;
pub use playout::PlayoutResult;
pub use position::{GoError, MAX_SIZE, Move, Point, Position, parse_color};
