//! SGF input (FF[4], read by the `sgf-parse` crate): the main line of the
//! first game, with its setup (AB, AW, AE, PL), size (SZ) and komi (KM),
//! played on a [`Position`] under this crate's rules.

use sgf_parse::go::{Move as SgfMove, Point as SgfPoint, Prop};

use super::board::Color;
use super::position::{GoError, MAX_SIZE, Move, Point, Position};

/// The position at the end of an SGF game's main line, and its komi.
#[derive(Debug, Clone, PartialEq)]
pub struct SgfGame {
    pub position: Position,
    /// KM, or 0 when the file has none.
    pub komi: f64,
    /// Moves played along the main line, passes included.
    pub moves: usize,
}

/// Why an SGF file was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SgfError {
    #[error("not SGF: {0}")]
    Parse(String),
    #[error("the SGF collection holds no Go game")]
    NoGame,
    #[error("SZ[{0}:{1}]: only square boards from 2x2 to 19x19 are supported")]
    Size(u8, u8),
    #[error("node {node}: property {property} has an invalid value")]
    InvalidProperty { node: usize, property: String },
    #[error("node {node}: point {x},{y} is off the {size}x{size} board")]
    OffBoard { node: usize, x: u8, y: u8, size: u32 },
    #[error("node {node}: the setup leaves the stone on {point} without a liberty")]
    DeadSetup { node: usize, point: Point },
    #[error("node {node}: {colour} {error}", colour = if *color == Color::Black { "B" } else { "W" })]
    IllegalMove { node: usize, color: Color, error: GoError },
}

/// Reads `text` as SGF and plays its first game's main line.
pub fn read_sgf(text: &str) -> Result<SgfGame, SgfError> {
    read_sgf_until(text, None)
}

/// [`read_sgf`], stopping before move number `stop_before` (counting the
/// main line's moves from 1, passes included) when given: the position GTP's
/// `loadsgf FILE N` sets up.
pub fn read_sgf_until(text: &str, stop_before: Option<usize>) -> Result<SgfGame, SgfError> {
    let games = sgf_parse::go::parse(text).map_err(|error| SgfError::Parse(error.to_string()))?;
    let root = games.first().ok_or(SgfError::NoGame)?;
    let size = match root.get_property("SZ") {
        Some(Prop::SZ((width, height))) => {
            if width != height || u32::from(*width) > MAX_SIZE || *width < 2 {
                return Err(SgfError::Size(*width, *height));
            }
            u32::from(*width)
        }
        _ => 19,
    };
    let mut game = SgfGame { position: Position::new(size).expect("a checked size"), komi: 0.0, moves: 0 };
    for (index, node) in root.main_variation().enumerate() {
        let number = index + 1;
        let point = |point: &SgfPoint| -> Result<Point, SgfError> {
            if u32::from(point.x) >= size || u32::from(point.y) >= size {
                return Err(SgfError::OffBoard { node: number, x: point.x, y: point.y, size });
            }
            // SGF counts rows from the top, GTP from the bottom.
            Ok(Point { x: point.x, y: (size - 1) as u8 - point.y })
        };
        let mut setup = false;
        for property in node.properties() {
            match property {
                Prop::KM(komi) => game.komi = *komi,
                Prop::AB(points) | Prop::AW(points) | Prop::AE(points) => {
                    let stone = match property {
                        Prop::AB(_) => Some(Color::Black),
                        Prop::AW(_) => Some(Color::White),
                        _ => None,
                    };
                    let mut sorted: Vec<&SgfPoint> = points.iter().collect();
                    sorted.sort_by_key(|point| (point.y, point.x));
                    for sgf_point in sorted {
                        game.position.set_stone(point(sgf_point)?, stone);
                    }
                    setup = true;
                }
                Prop::PL(color) => game.position.set_to_move(match color {
                    sgf_parse::Color::Black => Color::Black,
                    sgf_parse::Color::White => Color::White,
                }),
                Prop::B(_) | Prop::W(_) if stop_before.is_some_and(|stop| game.moves + 1 >= stop) => {
                    return Ok(game);
                }
                Prop::B(mv) | Prop::W(mv) => {
                    let color = if matches!(property, Prop::B(_)) { Color::Black } else { Color::White };
                    let target = match mv {
                        SgfMove::Pass => None,
                        // "tt" is the old pass on boards up to 19x19.
                        SgfMove::Move(SgfPoint { x: 19, y: 19 }) if size <= 19 => None,
                        SgfMove::Move(sgf_point) => Some(point(sgf_point)?),
                    };
                    game.position.play_move(Move { color, point: target }).map_err(|error| SgfError::IllegalMove {
                        node: number,
                        color,
                        error,
                    })?;
                    game.moves += 1;
                }
                Prop::Invalid(identifier, _) => {
                    return Err(SgfError::InvalidProperty { node: number, property: identifier.clone() });
                }
                _ => {}
            }
        }
        if let Some(point) = game.position.first_dead_stone().filter(|_| setup) {
            return Err(SgfError::DeadSetup { node: number, point });
        }
    }
    Ok(game)
}
