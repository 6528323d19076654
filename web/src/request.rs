//! A perft request as JavaScript gives it, read and checked before any work.

use gpu_movegen::chess::variant::Variant;
use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// The games a request may name, as the library's registry lists them.
pub use gpu_movegen::registry::GameKind as Game;

/// The most plies the page counts to: the library's bound for each game,
/// and 20 for chess, as the command line bounds its counts.
fn max_depth(game: Game, variant: Variant) -> u32 {
    struct Deepest;
    impl gpu_movegen::registry::Visit for Deepest {
        type Output = u32;
        fn visit<G: gpu_movegen::registry::ListedGame>(self, _: Variant) -> u32 {
            G::MAX_DEPTH
        }
    }
    let deepest = gpu_movegen::registry::visit(game, variant, Deepest);
    if game == Game::Chess { deepest.min(20) } else { deepest }
}

/// Where a request counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// WebGPU, after the self-test.
    Gpu,
    /// The library's CPU engine, compiled to WebAssembly, on the page's thread.
    Cpu,
}

impl Backend {
    /// The name the API uses.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Gpu => "gpu",
            Backend::Cpu => "cpu",
        }
    }
}

/// `{game, variant, position, size, depth, backend, divide}`, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct PerftRequest {
    /// The game.
    pub game: Game,
    /// The chess variant (`variant:` in the request, a `UCI_Variant` or
    /// lichess name); [`Variant::Chess`] when none is named.
    pub variant: Variant,
    /// FEN or SFEN; for Go the moves played from the empty board.
    pub position: String,
    /// Go's board size (ignored by the other games).
    pub size: u32,
    /// Plies to count.
    pub depth: u32,
    /// Where to count.
    pub backend: Backend,
    /// Whether to count each root move apart.
    pub divide: bool,
}

fn field(object: &JsValue, name: &str) -> Option<JsValue> {
    Reflect::get(object, &JsValue::from_str(name)).ok().filter(|value| !value.is_undefined() && !value.is_null())
}

/// A whole number from a number or a decimal string.
fn whole_number(value: &JsValue, name: &str, low: u32, high: u32) -> Result<u32, String> {
    let number = match (value.as_f64(), value.as_string()) {
        (Some(number), _) => number,
        (None, Some(text)) => {
            text.trim().parse::<f64>().map_err(|_| format!("{name} must be a number, not '{text}'"))?
        }
        _ => return Err(format!("{name} must be a number")),
    };
    if number.fract() != 0.0 || number < f64::from(low) || number > f64::from(high) {
        return Err(format!("{name} must be a whole number from {low} to {high}, not {number}"));
    }
    Ok(number as u32)
}

impl PerftRequest {
    /// Reads a request object; the message says what is wrong with it.
    pub fn from_js(object: &JsValue) -> Result<PerftRequest, String> {
        if !object.is_object() {
            return Err("perft takes an object: {game, variant, position, depth, backend, divide}".to_owned());
        }
        let game = match field(object, "game").and_then(|value| value.as_string()).as_deref() {
            None => Game::Chess,
            Some(name) => {
                Game::from_name(name).ok_or_else(|| format!("game must be {}, not \"{name}\"", Game::choices('"')))?
            }
        };
        let variant = match field(object, "variant") {
            None => Variant::Chess,
            Some(value) => {
                let name = value.as_string().ok_or("variant must be a string")?;
                let variant = name.parse::<Variant>().map_err(|error| error.to_string())?;
                if game != Game::Chess && variant != Variant::Chess {
                    return Err(format!("variant {variant} is a chess variant; game must be \"chess\""));
                }
                variant
            }
        };
        let position = match field(object, "position") {
            None => String::new(),
            Some(value) => value.as_string().ok_or("position must be a string")?,
        };
        let size = match field(object, "size") {
            None => 19,
            Some(value) => whole_number(&value, "size", 2, 19)?,
        };
        let most = max_depth(game, variant);
        let depth = match field(object, "depth") {
            None => return Err("depth is missing".to_owned()),
            Some(value) => whole_number(&value, "depth", 0, most)?,
        };
        let backend = match field(object, "backend").and_then(|value| value.as_string()).as_deref() {
            None | Some("gpu") => Backend::Gpu,
            Some("cpu") => Backend::Cpu,
            Some(other) => return Err(format!("backend must be \"gpu\" or \"cpu\", not \"{other}\"")),
        };
        let divide = field(object, "divide").is_some_and(|value| value.is_truthy());
        Ok(PerftRequest { game, variant, position, size, depth, backend, divide })
    }
}
