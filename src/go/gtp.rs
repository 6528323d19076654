//! A GTP version 2 engine (the Go Text Protocol that GoGui, Sabaki, KGS and
//! GNU Go speak): the standard commands with the clock (`time_settings`,
//! `time_left`), handicaps (`fixed_handicap`, `place_free_handicap`,
//! `set_free_handicap`), `loadsgf` and scoring with dead stones taken off
//! (`final_score`, `final_status_list`, one judgement from playouts and
//! the board, see [`super::ownership`]); GNU Go's
//! `all_legal`, `is_legal`, `countlib`, `captures` and `list_stones`;
//! `kgs-genmove_cleanup` and `gogui-analyze_commands`. `genmove` is flat
//! Monte Carlo over random playouts run by a [`PlayoutRunner`] (the GPU's,
//! or the CPU twin's), passing among the candidates, resigning when every
//! move loses. A command that fails gets a `?` reply and leaves the engine
//! as it was.

use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

use super::board::Color;
use super::handicap::{fixed_handicap, free_handicap};
use super::ownership::{Judgement, OWNERSHIP_PLAYOUTS, Ownership};
pub use super::playout::{CpuPlayouts, PlayoutBatch, PlayoutRunner};
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
    /// Whether `genmove` resigns a lost game (below [`RESIGN_SHARE`]).
    pub resign: bool,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings { playouts: 4096, time: None, seed: 1, resign: true }
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
    "final_status_list",
    "time_settings",
    "time_left",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "loadsgf",
    "kgs-genmove_cleanup",
    "gogui-analyze_commands",
];

/// `genmove` resigns when the best move wins less than this share of its playouts.
pub const RESIGN_SHARE: f64 = 0.05;

/// The largest SGF file `loadsgf` reads: the command line's limit, since
/// the streaming reader needs little more than the text.
pub const MAX_SGF_BYTES: u64 = crate::files::MAX_INPUT_BYTES;

/// What `genmove` decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Play(crate::go::Point),
    Pass,
    Resign,
}

/// The clock `time_settings` set up and `time_left` keeps current.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Clock {
    main: Duration,
    byo_yomi: Duration,
    /// Stones per byo-yomi period (Canadian); 0 with a byo-yomi time means no limit.
    stones: u32,
    /// Per colour: the time left and the stones left in the period (0 in main time).
    left: [Option<(Duration, u32)>; 2],
}

impl Clock {
    /// What one move of `color` may spend: in main time an even share of what
    /// is left over the moves the board still has room for, plus a period's
    /// share per stone; in byo-yomi the period's time over its stones left.
    /// A fifth is held back for the protocol's own delays.
    fn budget(&self, color: Color, empty_points: u32) -> Duration {
        let (left, stones) = self.left[color.index()].unwrap_or((self.main, 0));
        let share = if stones > 0 {
            left / stones
        } else {
            let moves = (empty_points / 3).max(10);
            let period = if self.stones > 0 { self.byo_yomi / self.stones } else { Duration::ZERO };
            left / moves + period
        };
        (share * 4 / 5).max(Duration::from_millis(20))
    }
}

/// The engine's state: the position, its history for `undo`, komi and the search.
pub struct GtpEngine<R: PlayoutRunner> {
    position: Position,
    /// Positions before each move, with the move, for `undo`.
    history: Vec<(Position, Move)>,
    komi: f64,
    runner: R,
    settings: SearchSettings,
    searches: u32,
    clock: Option<Clock>,
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
            clock: None,
        }
    }

    /// The position on the engine's board.
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
                // Adding 0 turns -0 into 0, which would otherwise print as "-0".
                self.komi = komi + 0.0;
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
            "genmove" | "kgs-genmove_cleanup" => {
                let [color] = arguments else { return Err("syntax error".into()) };
                let color = color_argument(color)?;
                // Cleanup: the opponent disputes the dead stones, so take them off
                // the board by play, never passing while a move remains.
                let point = match self.choose(color, command == "kgs-genmove_cleanup")? {
                    Choice::Resign => return Ok("resign".into()),
                    Choice::Pass => None,
                    Choice::Play(point) => Some(point),
                };
                self.play(Move { color, point })?;
                Ok(point.map_or("pass".into(), |point| point.to_string()))
            }
            "time_settings" => {
                let [main, byo_yomi, stones] = arguments else { return Err("syntax error".into()) };
                let (main, byo_yomi) = (seconds_argument(main)?, seconds_argument(byo_yomi)?);
                let stones: u32 = stones.parse().map_err(|_| "syntax error: stones not an integer".to_string())?;
                // GTP: a byo-yomi time with no stones means no time limit.
                self.clock =
                    (byo_yomi.is_zero() || stones > 0).then_some(Clock { main, byo_yomi, stones, left: [None, None] });
                Ok(String::new())
            }
            "time_left" => {
                let [color, time, stones] = arguments else { return Err("syntax error".into()) };
                let color = color_argument(color)?;
                let time = seconds_argument(time)?;
                let stones: u32 = stones.parse().map_err(|_| "syntax error: stones not an integer".to_string())?;
                if let Some(clock) = &mut self.clock {
                    clock.left[color.index()] = Some((time, stones));
                }
                Ok(String::new())
            }
            "fixed_handicap" | "place_free_handicap" => {
                let [stones] = arguments else { return Err("syntax error".into()) };
                let stones: u32 = stones.parse().map_err(|_| "invalid number of stones".to_string())?;
                let size = self.position.size();
                let points = if command == "fixed_handicap" {
                    fixed_handicap(size, stones)
                } else {
                    free_handicap(size, stones)
                }
                .map_err(|error| error.to_string())?;
                self.place_handicap(&points)?;
                Ok(join(points))
            }
            "set_free_handicap" => {
                let mut points = Vec::with_capacity(arguments.len());
                for vertex in arguments {
                    let point = self.position.parse_vertex(vertex).map_err(|error| vertex_failure(&error))?;
                    let point = point.ok_or("bad vertex list: pass is not a handicap stone")?;
                    if points.contains(&point) {
                        return Err(format!("bad vertex list: {point} twice"));
                    }
                    points.push(point);
                }
                let size = self.position.size();
                if points.len() < 2 || points.len() as u32 >= size * size {
                    return Err("invalid number of stones".into());
                }
                self.place_handicap(&points).map(|_| String::new())
            }
            "loadsgf" => {
                let (path, stop_before) = match arguments {
                    [path] => (*path, None),
                    [path, number] => {
                        let number: usize = number.parse().map_err(|_| "syntax error: move number".to_string())?;
                        (*path, Some(number))
                    }
                    _ => return Err("syntax error".into()),
                };
                let text = crate::files::read_text(std::path::Path::new(path), MAX_SGF_BYTES)
                    .map_err(|error| format!("cannot load file: {error}"))?;
                let game = super::sgf::read_sgf_until(&text, stop_before)
                    .map_err(|error| format!("cannot load file: {error}"))?;
                self.position = game.position;
                self.history.clear();
                if game.komi != 0.0 && game.komi.abs() <= crate::go::playout::MAX_KOMI {
                    self.komi = game.komi;
                }
                Ok(String::new())
            }
            "final_status_list" => {
                let [status] = arguments else { return Err("syntax error".into()) };
                let dead = self.judge().dead;
                match status.to_ascii_lowercase().as_str() {
                    "dead" => Ok(join(dead)),
                    "alive" => {
                        let mut alive: Vec<crate::go::Point> =
                            Color::ALL.into_iter().flat_map(|color| self.position.stones(color)).collect();
                        alive.retain(|point| !dead.contains(point));
                        alive.sort();
                        Ok(join(alive))
                    }
                    // Seki is not told apart: its stones count as alive.
                    "seki" => Ok(String::new()),
                    _ => Err("syntax error: status is alive, dead or seki".into()),
                }
            }
            "gogui-analyze_commands" => Ok([
                "plist/Dead Stones/final_status_list dead",
                "plist/Alive Stones/final_status_list alive",
                "string/Final Score/final_score",
            ]
            .join("\n")),
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
                // Area with the dead stones off: the judgement
                // final_status_list shows, and genmove passes on.
                let score = self.judge().score(self.komi);
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

    /// Puts Black's handicap stones on the empty board; White moves next.
    fn place_handicap(&mut self, points: &[crate::go::Point]) -> Result<(), Failure> {
        if Color::ALL.iter().any(|&color| !self.position.stones(color).is_empty()) {
            return Err("board not empty".into());
        }
        for &point in points {
            self.position.set_stone(point, Some(Color::Black));
        }
        self.position.set_to_move(Color::White);
        self.history.clear();
        Ok(())
    }

    /// The judgement of the position as it stands (dead stones, score).
    fn judge(&self) -> Judgement {
        self.judge_position(&self.position)
    }

    /// Judged by playouts from `position`: as many as a `genmove` spends,
    /// from 64 up to [`OWNERSHIP_PLAYOUTS`].
    fn judge_position(&self, position: &Position) -> Judgement {
        let playouts = self.settings.playouts.clamp(64, OWNERSHIP_PLAYOUTS);
        Ownership::estimate(position, playouts, self.settings.seed).judge()
    }

    /// Flat Monte Carlo over the playout points and a pass: the candidate
    /// with the best share of won playouts (draws count half), a pass on ties
    /// when winning (passing is as good as any move), else the lowest point
    /// of those tied. Before that,
    /// when the opponent has just passed and `color` wins with the dead
    /// stones taken off (by ownership), a pass ends the game. Resigns when
    /// the best candidate wins less than [`RESIGN_SHARE`] of its playouts.
    /// With `cleanup` (`kgs-genmove_cleanup`) it never passes while it has
    /// a move, so that disputed dead stones come off the board.
    fn choose(&mut self, color: Color, cleanup: bool) -> Result<Choice, Failure> {
        let mut position = self.position;
        position.set_to_move(color);
        let opponent_passed =
            matches!(self.history.last(), Some((_, Move { color: mover, point: None })) if *mover != color);
        let sign = if color == Color::Black { 1 } else { -1 };
        // Under area scoring taking a chain in atari never costs a point, and
        // leaving it on the board may lose the game: no pass while one can be
        // taken. Where the pass would win, the capture is played instead.
        let capture = position.capture_point(color);
        if opponent_passed && !cleanup {
            let score = self.judge_position(&position).score(self.komi);
            if score * f64::from(sign) > 0.0 {
                return Ok(capture.map_or(Choice::Pass, Choice::Play));
            }
        }
        let mut candidates: Vec<Option<crate::go::Point>> =
            position.playout_points(color).into_iter().map(Some).collect();
        if candidates.is_empty() {
            return Ok(Choice::Pass);
        }
        if !cleanup && capture.is_none() {
            // First, so that a tie goes to the pass.
            candidates.insert(0, None);
        }
        let children: Vec<Position> = candidates
            .iter()
            .map(|&point| {
                let mut child = position;
                child.play_move(Move { color, point }).expect("a playout point or a pass is legal");
                child
            })
            .collect();
        let per_child = (self.settings.playouts / children.len() as u32).max(1);
        let mut scores = vec![0i64; children.len()];
        let mut played = 0u64;
        let started = Instant::now();
        // The engine's own budget bounds every move: --time when set, else one
        // pass of --playouts. A clock only ever shortens it, so that no clock
        // setting (a byo-yomi of years) can hold a move past that budget.
        let clock = self.clock.map(|clock| clock.budget(color, position.empty_point_count()));
        let limit = match (clock, self.settings.time) {
            (Some(clock), Some(time)) => Some(clock.min(time)),
            (clock, time) => clock.or(time),
        };
        let repeat = self.settings.time.is_some();
        // Rounds of at most BATCH playouts in all, so memory stays bounded
        // whatever --playouts asks; round r uses streams after round r - 1's.
        const BATCH: u32 = 1 << 20;
        let round = per_child.min((BATCH / children.len() as u32).max(1));
        'rounds: loop {
            let seed = self.settings.seed.wrapping_add(self.searches);
            self.searches += 1;
            let mut done = 0;
            while done < per_child {
                let part = (per_child - done).min(round);
                let batch =
                    PlayoutBatch { per_position: part, seed, first_stream: done.wrapping_mul(children.len() as u32) };
                let results = self.runner.run(&children, batch).map_err(|error| format!("playouts failed: {error}"))?;
                if results.len() != children.len() * part as usize {
                    return Err("playouts failed: a short batch came back".into());
                }
                for (index, chunk) in results.chunks(part as usize).enumerate() {
                    // Twice the share of wins: a win 2, a draw 1.
                    scores[index] +=
                        chunk.iter().map(|result| i64::from(1 + sign * result.winner_sign(self.komi))).sum::<i64>();
                }
                done += part;
                played += u64::from(part);
                // Every child has had the same playouts at this point.
                if limit.is_some_and(|limit| started.elapsed() >= limit) {
                    break 'rounds;
                }
            }
            if !repeat {
                break;
            }
        }
        let best =
            (0..children.len()).max_by_key(|&index| (scores[index], std::cmp::Reverse(index))).expect("candidates");
        let share = scores[best] as f64 / (2.0 * played as f64);
        if share < RESIGN_SHARE && self.settings.resign && !cleanup {
            return Ok(Choice::Resign);
        }
        // Losing, a tie is no reason to pass: play the first tied move, so that
        // the game is fought out (and, when it ends, the borders are settled).
        let best = if candidates[best].is_none() && share < 0.5 {
            (1..children.len()).find(|&index| scores[index] == scores[best]).unwrap_or(best)
        } else {
            best
        };
        Ok(candidates[best].map_or(Choice::Pass, Choice::Play))
    }
}

/// The most seconds a clock value may hold: a day, as `--time` allows.
pub const MAX_CLOCK_SECONDS: f64 = 86_400.0;

fn seconds_argument(text: &str) -> Result<Duration, Failure> {
    let seconds = text.parse::<f64>().ok().filter(|seconds| seconds.is_finite());
    match seconds {
        None => Err("syntax error: time not a number of seconds".to_string()),
        Some(seconds) if !(0.0..=MAX_CLOCK_SECONDS).contains(&seconds) => {
            Err(format!("syntax error: time from 0 to {MAX_CLOCK_SECONDS} seconds"))
        }
        Some(seconds) => Ok(Duration::from_secs_f64(seconds)),
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
