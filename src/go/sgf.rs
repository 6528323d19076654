//! SGF input (`FF[4]`, and `FF[3]`'s lower-case identifiers): the main line of
//! the first game, with its setup (AB, AW, AE, PL), size (SZ) and komi (KM),
//! played on a [`Position`] under this crate's rules.
//!
//! The reader streams: it walks the text once, applies the main line's
//! properties as it meets them and checks the syntax of the rest without
//! building a tree. Memory is the text and a few words, and no depth of
//! nesting or length of line reaches a stack, so every file the size limit
//! accepts is read in bounded memory. (A tree-building parser took about
//! 110 times the file's size and overflowed its stack dropping 130,000
//! nested nodes; only the main line is ever played here.)

use super::board::Color;
use super::position::{GoError, MAX_SIZE, Move, Point, Position};

/// The position at the end of an SGF game's main line, and its komi.
#[derive(Debug, Clone, PartialEq)]
pub struct SgfGame {
    /// The position the main line reaches.
    pub position: Position,
    /// KM, or 0 when the file has none.
    pub komi: f64,
    /// Moves played along the main line, passes included.
    pub moves: usize,
}

/// Why an SGF file was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SgfError {
    /// The text is not SGF: the line and what was expected there.
    #[error("not SGF: line {line}: {problem}")]
    Parse {
        /// The line, from 1, where the syntax broke.
        line: usize,
        /// What was found, and what was expected.
        problem: String,
    },
    /// The collection is empty.
    #[error("the SGF collection holds no game")]
    NoGame,
    /// The first game is not Go (GM other than 1).
    #[error("GM[{0}]: the first game is not Go (GM[1])")]
    NotGo(String),
    /// A board this crate does not play.
    #[error("SZ[{0}:{1}]: only square boards from 2x2 to 19x19 are supported")]
    Size(u8, u8),
    /// A property of the main line whose value does not read.
    #[error("node {node}: property {property} has an invalid value")]
    InvalidProperty {
        /// The node along the main line, the root being 1.
        node: usize,
        /// The property's identifier.
        property: String,
    },
    /// A point outside the board.
    #[error("node {node}: point {x},{y} is off the {size}x{size} board")]
    OffBoard {
        /// The node along the main line, the root being 1.
        node: usize,
        /// The column, from 0 at the left.
        x: u8,
        /// The row, from 0 at the top (SGF's order).
        y: u8,
        /// The board's size.
        size: u32,
    },
    /// Setup stones that have no liberty.
    #[error("node {node}: the setup leaves the stone on {point} without a liberty")]
    DeadSetup {
        /// The node along the main line, the root being 1.
        node: usize,
        /// A stone without a liberty.
        point: Point,
    },
    /// A move of the main line that the rules refuse.
    #[error("node {node}: {colour} {error}", colour = if *color == Color::Black { "B" } else { "W" })]
    IllegalMove {
        /// The node along the main line, the root being 1.
        node: usize,
        /// Who played it.
        color: Color,
        /// Why it is illegal.
        error: GoError,
    },
}

/// Reads `text` as SGF and plays its first game's main line.
pub fn read_sgf(text: &str) -> Result<SgfGame, SgfError> {
    read_sgf_until(text, None)
}

/// [`read_sgf`], stopping before move number `stop_before` (counting the
/// main line's moves from 1, passes included) when given: the position GTP's
/// `loadsgf FILE N` sets up.
pub fn read_sgf_until(text: &str, stop_before: Option<usize>) -> Result<SgfGame, SgfError> {
    let mut lexer = Lexer { text, at: 0 };
    let mut syntax = Syntax::default();
    // The main line runs from the first '(' until the first ')': each tree on
    // it continues into its first variation, so the first ')' closes the
    // deepest tree on the line, and everything after is another variation.
    let mut main_line = true;
    let mut stopped = false;
    let mut game: Option<SgfGame> = None;
    let mut node = 0usize;
    let mut setup = false;
    let mut property = Known::Other;
    let mut identifier = "";
    // AB, AW or AE being read: its stone, and its points as one mask a row.
    let mut pending_setup: Option<(Option<Color>, [u32; MAX_SIZE as usize])> = None;
    loop {
        let start = lexer.at;
        let token = lexer.next()?;
        syntax.accept(&token).map_err(|problem| lexer.error_at(start, problem))?;
        if let Some((stone, rows)) = pending_setup.take_if(|_| !matches!(token, Token::Value(_))) {
            let game = game.as_mut().expect("setup follows a node");
            let size = game.position.size();
            for (y, row) in rows.into_iter().enumerate() {
                for x in (0..size as u8).filter(|x| row & 1 << x != 0) {
                    game.position.set_stone(to_gtp(Point { x, y: y as u8 }, size), stone);
                }
            }
        }
        if !main_line || stopped {
            if token == Token::End {
                break;
            }
            continue;
        }
        match token {
            Token::Node | Token::Open | Token::Close | Token::End => {
                if let Some(game) = &game
                    && setup
                    && let Some(point) = game.position.first_dead_stone()
                {
                    return Err(SgfError::DeadSetup { node, point });
                }
                setup = false;
                match token {
                    Token::Node => {
                        node += 1;
                        if node == 1 {
                            game = Some(root_game(lexer.clone())?);
                        }
                    }
                    Token::Close => main_line = false,
                    Token::End => break,
                    _ => {}
                }
            }
            Token::Identifier(raw) => {
                identifier = raw;
                property = Known::of(raw);
            }
            Token::Value(value) => {
                let game = game.as_mut().expect("a value follows a node");
                let invalid = || SgfError::InvalidProperty { node, property: upper_case(identifier) };
                match property {
                    Known::Komi => game.komi = read_real(value).ok_or_else(invalid)?,
                    Known::AddBlack | Known::AddWhite | Known::AddEmpty => {
                        let stone = match property {
                            Known::AddBlack => Some(Color::Black),
                            Known::AddWhite => Some(Color::White),
                            _ => None,
                        };
                        let size = game.position.size();
                        let (first, last) = match value.split_once(':') {
                            Some((first, last)) => {
                                (read_point(first, node, size, false)?, read_point(last, node, size, false)?)
                            }
                            None => {
                                let point = read_point(value, node, size, false)?;
                                (point, point)
                            }
                        };
                        let (first, last) = (first.ok_or_else(invalid)?, last.ok_or_else(invalid)?);
                        // Rows of a rectangle, in one mask per row: at most 19
                        // steps a value, however many values a file repeats.
                        let columns = (first.x.min(last.x)..=first.x.max(last.x)).fold(0u32, |mask, x| mask | 1 << x);
                        let pending = pending_setup.get_or_insert((stone, [0; MAX_SIZE as usize]));
                        for y in first.y.min(last.y)..=first.y.max(last.y) {
                            pending.1[usize::from(y)] |= columns;
                        }
                        setup = true;
                    }
                    Known::Player => game.position.set_to_move(match value.trim() {
                        "B" | "b" => Color::Black,
                        "W" | "w" => Color::White,
                        _ => return Err(invalid()),
                    }),
                    Known::Black | Known::White if stop_before.is_some_and(|stop| game.moves + 1 >= stop) => {
                        stopped = true;
                    }
                    Known::Black | Known::White => {
                        let color = if property == Known::Black { Color::Black } else { Color::White };
                        let size = game.position.size();
                        let target = match read_point(value, node, size, true)? {
                            None if value.trim().is_empty() => None,
                            None => return Err(invalid()),
                            // "tt" is the old pass on boards up to 19x19.
                            Some(Point { x: 19, y: 19 }) => None,
                            Some(point) => Some(to_gtp(point, size)),
                        };
                        game.position
                            .play_move(Move { color, point: target })
                            .map_err(|error| SgfError::IllegalMove { node, color, error })?;
                        game.moves += 1;
                        // One value per move: a second reads as invalid.
                        property = Known::Played;
                    }
                    Known::Played => return Err(invalid()),
                    Known::Size | Known::Game | Known::Other => {}
                }
            }
        }
    }
    game.ok_or(SgfError::NoGame)
}

/// The root node's size and game type, read ahead (SZ may follow the setup
/// it sizes), as an empty game of that size. `lexer` stands after the root's ';'.
fn root_game(mut lexer: Lexer<'_>) -> Result<SgfGame, SgfError> {
    let mut property = Known::Other;
    let mut size = 19;
    while let Ok(token) = lexer.next() {
        match token {
            Token::Identifier(raw) => property = Known::of(raw),
            Token::Value(value) if property == Known::Size => {
                let (width, height) = value.split_once(':').unwrap_or((value, value));
                let read = |side: &str| side.trim().parse::<u8>().ok();
                let (Some(width), Some(height)) = (read(width), read(height)) else {
                    return Err(SgfError::InvalidProperty { node: 1, property: "SZ".into() });
                };
                if width != height || u32::from(width) > MAX_SIZE || width < 2 {
                    return Err(SgfError::Size(width, height));
                }
                size = u32::from(width);
                property = Known::Other;
            }
            Token::Value(value) if property == Known::Game && value.trim() != "1" => {
                let shown: String = value.chars().take(8).filter(|character| !character.is_control()).collect();
                return Err(SgfError::NotGo(shown));
            }
            Token::Value(_) => {}
            // Syntax errors are reported by the main walk.
            _ => break,
        }
    }
    let position = Position::new(size).expect("a checked size");
    Ok(SgfGame { position, komi: 0.0, moves: 0 })
}

/// The properties the main line acts on.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Known {
    Size,
    Game,
    Komi,
    AddBlack,
    AddWhite,
    AddEmpty,
    Player,
    Black,
    White,
    /// A move whose value has been read: a second value is invalid.
    Played,
    Other,
}

impl Known {
    /// The property an identifier names; FF[3] allowed lower-case letters
    /// within identifiers ("AddBlack"), which FF[4] readers drop.
    fn of(raw: &str) -> Self {
        let mut letters = raw.bytes().filter(u8::is_ascii_uppercase);
        let name = [letters.next(), letters.next(), letters.next()];
        match name {
            [Some(b'S'), Some(b'Z'), None] => Known::Size,
            [Some(b'G'), Some(b'M'), None] => Known::Game,
            [Some(b'K'), Some(b'M'), None] => Known::Komi,
            [Some(b'A'), Some(b'B'), None] => Known::AddBlack,
            [Some(b'A'), Some(b'W'), None] => Known::AddWhite,
            [Some(b'A'), Some(b'E'), None] => Known::AddEmpty,
            [Some(b'P'), Some(b'L'), None] => Known::Player,
            [Some(b'B'), None, None] => Known::Black,
            [Some(b'W'), None, None] => Known::White,
            _ => Known::Other,
        }
    }
}

fn upper_case(raw: &str) -> String {
    raw.chars().filter(char::is_ascii_uppercase).take(8).collect()
}

/// An SGF Real: digits with an optional sign and fraction, nothing else.
fn read_real(value: &str) -> Option<f64> {
    let value = value.trim();
    let digits = value.strip_prefix(['+', '-']).unwrap_or(value);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let valid = !(whole.is_empty() && fraction.is_empty())
        && whole.bytes().chain(fraction.bytes()).all(|byte| byte.is_ascii_digit());
    let komi = value.parse::<f64>().ok().filter(|_| valid)?;
    // "-0" is plain 0: GTP would print it as "-0".
    Some(if komi == 0.0 { 0.0 } else { komi })
}

/// An SGF point ("cd": column, then row from the top), `None` when the value
/// is not two letters; a point past the board is an error, except "tt", the
/// old pass, returned as (19, 19) when `pass` allows it.
fn read_point(value: &str, node: usize, size: u32, pass: bool) -> Result<Option<Point>, SgfError> {
    let coordinate = |byte: u8| match byte {
        b'a'..=b'z' => Some(byte - b'a'),
        b'A'..=b'Z' => Some(byte - b'A' + 26),
        _ => None,
    };
    let &[x, y] = value.trim().as_bytes() else {
        return Ok(None);
    };
    let (Some(x), Some(y)) = (coordinate(x), coordinate(y)) else {
        return Ok(None);
    };
    if pass && (x, y) == (19, 19) && size <= 19 {
        return Ok(Some(Point { x, y }));
    }
    if u32::from(x) >= size || u32::from(y) >= size {
        return Err(SgfError::OffBoard { node, x, y, size });
    }
    Ok(Some(Point { x, y }))
}

/// SGF counts rows from the top, GTP from the bottom.
fn to_gtp(point: Point, size: u32) -> Point {
    Point { x: point.x, y: (size - 1) as u8 - point.y }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Token<'a> {
    Open,
    Close,
    Node,
    /// A property's identifier, as written.
    Identifier(&'a str),
    /// One value, between its brackets, escapes left in.
    Value(&'a str),
    End,
}

#[derive(Clone)]
struct Lexer<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Lexer<'a> {
    fn next(&mut self) -> Result<Token<'a>, SgfError> {
        let bytes = self.text.as_bytes();
        while self.at < bytes.len() && bytes[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        let Some(&byte) = bytes.get(self.at) else {
            return Ok(Token::End);
        };
        let start = self.at;
        self.at += 1;
        Ok(match byte {
            b'(' => Token::Open,
            b')' => Token::Close,
            b';' => Token::Node,
            b'[' => {
                let mut escaped = false;
                loop {
                    let Some(&byte) = bytes.get(self.at) else {
                        return Err(self.error_at(start, "a value is never closed with ']'".into()));
                    };
                    self.at += 1;
                    match byte {
                        _ if escaped => escaped = false,
                        b'\\' => escaped = true,
                        b']' => break,
                        _ => {}
                    }
                }
                Token::Value(&self.text[start + 1..self.at - 1])
            }
            byte if byte.is_ascii_alphabetic() => {
                while self.at < bytes.len() && bytes[self.at].is_ascii_alphabetic() {
                    self.at += 1;
                }
                Token::Identifier(&self.text[start..self.at])
            }
            _ => {
                let character = self.text[start..].chars().next().expect("a byte starts here");
                return Err(self.error_at(start, format!("{} where SGF has no place for it", character.escape_debug())));
            }
        })
    }

    fn error_at(&self, at: usize, problem: String) -> SgfError {
        let line = self.text.as_bytes()[..at].iter().filter(|byte| **byte == b'\n').count() + 1;
        SgfError::Parse { line, problem }
    }
}

/// What may come next, by SGF's grammar: a collection of game trees, each
/// '(' then a sequence of nodes (';' then properties, each an identifier
/// and one value or more), then its variations, then ')'.
#[derive(Debug, Default)]
struct Syntax {
    /// Open game trees.
    depth: usize,
    state: State,
    /// Whether a game tree has been read.
    any_game: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum State {
    /// Between game trees, or before the first.
    #[default]
    Between,
    /// After '(': a node must open the tree.
    Opened,
    /// Inside a node: a property, a node, a variation or ')'.
    InNode,
    /// After an identifier: its value.
    Identifier,
    /// After a value: another, or what may follow a node.
    Values,
    /// After a tree's variations started: only '(' or ')'.
    Variations,
}

impl Syntax {
    fn accept(&mut self, token: &Token<'_>) -> Result<(), String> {
        use State::*;
        let next = match (self.state, token) {
            (Between | InNode | Values | Variations, Token::Open) => {
                self.depth += 1;
                Opened
            }
            (Opened | InNode | Values, Token::Node) => InNode,
            (InNode | Values, Token::Identifier(_)) => Identifier,
            (Identifier | Values, Token::Value(_)) => Values,
            (InNode | Values | Variations, Token::Close) => {
                self.depth -= 1;
                if self.depth == 0 {
                    self.any_game = true;
                    Between
                } else {
                    Variations
                }
            }
            (Between, Token::End) if self.any_game => Between,
            (Between, Token::End) => return Err("no game tree: SGF starts with '('".into()),
            (_, Token::End) => return Err("the file ends inside a game tree".into()),
            (state, token) => {
                let found = match token {
                    Token::Open => "'('",
                    Token::Close => "')'",
                    Token::Node => "';'",
                    Token::Identifier(_) => "a property",
                    Token::Value(_) => "a value",
                    Token::End => "the end",
                };
                let expected = match state {
                    Between => "'('",
                    Opened => "';' (a tree starts with a node)",
                    InNode => "a property, ';', '(' or ')'",
                    Values => "a value, a property, ';', '(' or ')'",
                    Identifier => "the property's value in '[' ']'",
                    Variations => "'(' or ')' (nodes come before variations)",
                };
                return Err(format!("{found} where {expected} was expected"));
            }
        };
        self.state = next;
        Ok(())
    }
}
