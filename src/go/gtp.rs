//! A GTP version 2 engine (the Go Text Protocol that GoGui, Sabaki and GNU
//! Go speak): the standard commands, GNU Go's `all_legal`, `is_legal`,
//! `countlib`, `captures` and `list_stones`, and `genmove` by flat Monte
//! Carlo over random playouts run by a [`PlayoutRunner`] (the GPU's, or the
//! CPU twin's). A command that fails gets a `?` reply and leaves the engine
//! as it was.

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use super::board::Color;
use super::playout::PlayoutResult;
pub use super::playout::{CpuPlayouts, PlayoutRunner};
use super::position::{GoError, MAX_SIZE, Move, Position, parse_color};

/// How `genmove` searches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchSettings {
    /// Playouts per `genmove`, shared evenly among the candidate moves.
    pub playouts: u32,
    /// When set, batches of `playouts` are repeated until this much time has passed.
    pub time: Option<Duration>,
    /// The first seed; each `genmove` takes the next.
    pub seed: u32,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings { playouts: 4096, time: None, seed: 1 }
    }
}

/// The commands this engine knows, as `list_commands` prints them.
pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "undo",
    "genmove",
    "showboard",
    "list_stones",
    "all_legal",
    "is_legal",
    "countlib",
    "captures",
    "final_score",
];

/// The engine's state: the position, its history for `undo`, komi and the search.
pub struct GtpEngine<R: PlayoutRunner> {
    position: Position,
    /// Positions before each move, with the move, for `undo`.
    history: Vec<(Position, Move)>,
    komi: f64,
    runner: R,
    settings: SearchSettings,
    searches: u32,
}

/// The longest command line the engine reads; longer ones are refused.
pub const MAX_LINE_BYTES: usize = 1 << 16;

/// Reads and drops the rest of a line, a buffer at a time.
fn skip_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|&byte| byte == b'\n') {
            Some(end) => {
                input.consume(end + 1);
                return Ok(());
            }
            None => {
                let length = buffer.len();
                input.consume(length);
            }
        }
    }
}

/// The reply to one command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The whole reply, `=` or `?` line included, ending in a blank line.
    pub text: String,
    /// The command was `quit`.
    pub quit: bool,
}

/// A failed command: the text after `?`.
type Failure = String;

impl<R: PlayoutRunner> GtpEngine<R> {
    /// A 19×19 board, komi 7.5.
    pub fn new(runner: R, settings: SearchSettings) -> GtpEngine<R> {
        GtpEngine {
            position: Position::new(MAX_SIZE).expect("19 is supported"),
            history: Vec::new(),
            komi: 7.5,
            runner,
            settings,
            searches: 0,
        }
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The playout runner, for a caller that wants what it measured.
    pub fn runner(&self) -> &R {
        &self.runner
    }

    /// Answers every command of `input` on `output` until `quit` or the end of input.
    /// Answers every command of `input` on `output` until `quit` or the end
    /// of the input. Any bytes are survived: a line that is not UTF-8 gets
    /// `? invalid UTF-8`, one longer than [`MAX_LINE_BYTES`] `? line too long`
    /// (read no further than the limit), and the engine goes on.
    pub fn serve(&mut self, mut input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            let limit = MAX_LINE_BYTES as u64 + 1;
            if std::io::Read::take(&mut input, limit).read_until(b'\n', &mut bytes)? == 0 {
                return Ok(());
            }
            let reply = if !bytes.ends_with(b"\n") && bytes.len() > MAX_LINE_BYTES {
                skip_line(&mut input)?;
                Some(Reply { text: "? line too long\n\n".to_owned(), quit: false })
            } else {
                match std::str::from_utf8(&bytes) {
                    Ok(line) => self.handle(line.trim_end_matches(['\n', '\r'])),
                    Err(_) => Some(Reply { text: "? invalid UTF-8\n\n".to_owned(), quit: false }),
                }
            };
            if let Some(reply) = reply {
                output.write_all(reply.text.as_bytes())?;
                output.flush()?;
                if reply.quit {
                    return Ok(());
                }
            }
        }
    }

    /// The reply to one line; `None` for a line with no command (empty or a comment).
    pub fn handle(&mut self, line: &str) -> Option<Reply> {
        // GTP: drop control characters but tab, tabs become spaces, '#' starts a comment.
        let cleaned: String = line
            .chars()
            .filter(|character| !character.is_control() || *character == '\t')
            .map(|character| if character == '\t' { ' ' } else { character })
            .collect();
        let command_text = cleaned.split('#').next().unwrap_or("").trim();
        let mut words: Vec<&str> = command_text.split_whitespace().collect();
        if words.is_empty() {
            return None;
        }
        let id = if words[0].bytes().all(|byte| byte.is_ascii_digit()) { Some(words.remove(0)) } else { None };
        let id = id.unwrap_or("");
        let Some((&command, arguments)) = words.split_first() else {
            return Some(Reply { text: format!("?{id} missing command\n\n"), quit: false });
        };
        let command = command.to_ascii_lowercase();
        let outcome = self.run(&command, arguments);
        // A blank line ends a reply, so none may stand inside one: results
        // keep their lines but lose empty ones, errors become one line.
        let text = match outcome {
            Ok(result) => {
                let lines: Vec<&str> = result.lines().filter(|line| !line.trim().is_empty()).collect();
                if lines.is_empty() { format!("={id}\n\n") } else { format!("={id} {}\n\n", lines.join("\n")) }
            }
            Err(message) => {
                let message: Vec<&str> = message.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
                format!("?{id} {}\n\n", message.join(" "))
            }
        };
        Some(Reply { text, quit: command == "quit" })
    }

    fn run(&mut self, command: &str, arguments: &[&str]) -> Result<String, Failure> {
        match command {
            "protocol_version" => Ok("2".into()),
            "name" => Ok("gpu-movegen".into()),
            "version" => Ok(env!("CARGO_PKG_VERSION").into()),
            "known_command" => {
                let [name] = arguments else { return Err("syntax error".into()) };
                Ok(COMMANDS.contains(&name.to_ascii_lowercase().as_str()).to_string())
            }
            "list_commands" => Ok(COMMANDS.join("\n")),
            "quit" => Ok(String::new()),
            "boardsize" => {
                let [size] = arguments else { return Err("syntax error".into()) };
                let size: u32 = size.parse().map_err(|_| "boardsize not an integer".to_string())?;
                self.position = Position::new(size).map_err(|_| "unacceptable size".to_string())?;
                self.history.clear();
                Ok(String::new())
            }
            "clear_board" => {
                self.position = Position::new(self.position.size()).expect("the current size");
                self.history.clear();
                Ok(String::new())
            }
            "komi" => {
                let [komi] = arguments else { return Err("syntax error".into()) };
                let komi: f64 = komi
                    .parse()
                    .ok()
                    .filter(|komi: &f64| komi.is_finite() && komi.abs() <= crate::go::playout::MAX_KOMI)
                    .ok_or("komi not a float from -1000 to 1000")?;
                self.komi = komi;
                Ok(String::new())
            }
            "play" => {
                let [color, vertex] = arguments else { return Err("syntax error".into()) };
                let color = color_argument(color)?;
                let point = self.position.parse_vertex(vertex).map_err(|error| vertex_failure(&error))?;
                self.play(Move { color, point }).map(|_| String::new())
            }
            "undo" => {
                let (previous, _) = self.history.pop().ok_or("cannot undo")?;
                self.position = previous;
                Ok(String::new())
            }
            "genmove" => {
                let [color] = arguments else { return Err("syntax error".into()) };
                let color = color_argument(color)?;
                let point = self.choose(color)?;
                self.play(Move { color, point })?;
                Ok(point.map_or("pass".into(), |point| point.to_string()))
            }
            "showboard" => Ok(format!("\n{}", self.position.diagram())),
            "list_stones" => {
                let [color] = arguments else { return Err("syntax error".into()) };
                Ok(join(self.position.stones(color_argument(color)?)))
            }
            "all_legal" => {
                let [color] = arguments else { return Err("syntax error".into()) };
                Ok(join(self.position.legal_points(color_argument(color)?)))
            }
            "is_legal" => {
                let [color, vertex] = arguments else { return Err("syntax error".into()) };
                let color = color_argument(color)?;
                let legal = match self.position.parse_vertex(vertex).map_err(|error| vertex_failure(&error))? {
                    Some(point) => self.position.is_legal(color, point),
                    None => true,
                };
                Ok(if legal { "1" } else { "0" }.into())
            }
            "countlib" => {
                let [vertex] = arguments else { return Err("syntax error".into()) };
                let point = self.position.parse_vertex(vertex).map_err(|error| vertex_failure(&error))?;
                let point = point.ok_or("invalid vertex")?;
                if self.position.stone(point).is_none() {
                    return Err("vertex must not be empty".into());
                }
                Ok(self.position.liberties(point).to_string())
            }
            "captures" => {
                let [color] = arguments else { return Err("syntax error".into()) };
                Ok(self.position.captures(color_argument(color)?).to_string())
            }
            "final_score" => {
                let score = f64::from(self.position.area_difference()) - self.komi;
                Ok(if score > 0.0 {
                    format!("B+{score}")
                } else if score < 0.0 {
                    format!("W+{}", -score)
                } else {
                    "0".into()
                })
            }
            _ => Err("unknown command".into()),
        }
    }

    fn play(&mut self, mv: Move) -> Result<(), Failure> {
        let before = self.position;
        match self.position.play_move(mv) {
            Ok(_) => {
                self.history.push((before, mv));
                Ok(())
            }
            Err(_) => {
                self.position = before;
                Err("illegal move".into())
            }
        }
    }

    /// Flat Monte Carlo: the candidate with the best share of won playouts
    /// (draws count half), the lowest point on ties; a pass when there is
    /// no candidate, or when the opponent has just passed and `color`
    /// already wins on the board as it stands.
    fn choose(&mut self, color: Color) -> Result<Option<crate::go::Point>, Failure> {
        let mut position = self.position;
        position.set_to_move(color);
        let opponent_passed =
            matches!(self.history.last(), Some((_, Move { color: mover, point: None })) if *mover != color);
        let sign = if color == Color::Black { 1 } else { -1 };
        let board_result = PlayoutResult { area_difference: position.area_difference(), moves: 0 };
        if opponent_passed && board_result.winner_sign(self.komi) == sign {
            return Ok(None);
        }
        let candidates = position.playout_points(color);
        if candidates.is_empty() {
            return Ok(None);
        }
        let children: Vec<Position> = candidates
            .iter()
            .map(|&point| {
                let mut child = position;
                child.play_move(Move { color, point: Some(point) }).expect("a playout point is legal");
                child
            })
            .collect();
        let per_child = (self.settings.playouts / children.len() as u32).max(1);
        let mut scores = vec![0i64; children.len()];
        let started = Instant::now();
        // Rounds of at most BATCH playouts in all, so memory stays bounded
        // whatever --playouts asks; round r uses streams after round r - 1's.
        const BATCH: u32 = 1 << 20;
        let round = per_child.min((BATCH / children.len() as u32).max(1));
        loop {
            let seed = self.settings.seed.wrapping_add(self.searches);
            self.searches += 1;
            let mut done = 0;
            while done < per_child {
                let part = (per_child - done).min(round);
                let first_stream = done.wrapping_mul(children.len() as u32);
                let results = self
                    .runner
                    .run(&children, part, seed, first_stream)
                    .map_err(|error| format!("playouts failed: {error}"))?;
                if results.len() != children.len() * part as usize {
                    return Err("playouts failed: a short batch came back".into());
                }
                for (index, chunk) in results.chunks(part as usize).enumerate() {
                    // Twice the share of wins: a win 2, a draw 1.
                    scores[index] +=
                        chunk.iter().map(|result| i64::from(1 + sign * result.winner_sign(self.komi))).sum::<i64>();
                }
                done += part;
            }
            match self.settings.time {
                Some(time) if started.elapsed() < time => continue,
                _ => break,
            }
        }
        let best =
            (0..children.len()).max_by_key(|&index| (scores[index], std::cmp::Reverse(index))).expect("candidates");
        Ok(Some(candidates[best]))
    }
}

fn color_argument(text: &str) -> Result<Color, Failure> {
    parse_color(text).map_err(|_| "invalid color".to_string())
}

fn vertex_failure(error: &GoError) -> Failure {
    match error {
        GoError::OffBoard { .. } => "invalid vertex: off the board".into(),
        _ => "invalid vertex".into(),
    }
}

fn join(points: Vec<crate::go::Point>) -> String {
    points.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")
}
