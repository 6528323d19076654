//! `gpu-movegen bisect`: runs another engine's perft divide beside ours,
//! level by level, descending into the first root move whose count
//! differs, until it reaches the position whose move list differs.
//!
//! Two protocols: UCI (`go perft N`, as Stockfish answers it, one process
//! for the whole bisection) and perftree's (`CMD DEPTH FEN MOVES`, one
//! process a call). Every answer has a time limit; an engine that does not
//! start, dies, times out, answers in a form this cannot read or names a
//! move that is not even pseudo-legal is an error (exit code 2).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read as _, Write as _};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::{Duration, Instant};

use gpu_movegen::chess::Chess;
use gpu_movegen::chess::pseudo_legal::seed_destinations;
use gpu_movegen::chess::variant::{ChessVariants, Variant, VariantPosition};
use gpu_movegen::game::Game as _;
use gpu_movegen::registry::ListedGame;
use gpu_movegen::{Move, Piece, Position, Square};

use super::chess::{CountingArgs, Engine};
use super::common::{CliError, Progress, escape_controls};

/// How to talk to the other engine.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    /// UCI's `position fen … moves …` and `go perft N` (Stockfish).
    Uci,
    /// perftree's: `CMD DEPTH FEN MOVES`, `move count` lines, a blank line, the total.
    Perftree,
}

#[derive(clap::Args)]
pub struct BisectArgs {
    /// The other engine: a program and its arguments, separated by spaces.
    #[arg(long)]
    engine: String,
    #[arg(long, value_enum, default_value_t = Protocol::Uci)]
    protocol: Protocol,
    /// Root position (default: the start position).
    #[arg(long)]
    fen: Option<String>,
    /// UCI moves to play from the root first (one argument each, or one
    /// argument separated by spaces).
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    /// Depth of the first divide (1 to 64).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=gpu_movegen::perft::MAX_DEPTH as i64))]
    depth: u32,
    /// Castling as king takes rook, and UCI_Chess960 set in the engine.
    #[arg(long)]
    chess960: bool,
    /// A chess variant (see `perft --variant`): the root is the variant's
    /// position (--fen its FEN) and the engine is told `setoption name
    /// UCI_Variant value NAME` (UCI only; Fairy-Stockfish takes it).
    #[arg(long, value_name = "NAME", value_parser = super::variant::parse_build)]
    variant: Option<Variant>,
    /// Seconds the engine may take for one answer.
    #[arg(long, value_name = "SECONDS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout: u64,
    #[command(flatten)]
    counting: CountingArgs,
}

/// One divide of the other engine: its move texts with their counts.
type Divide = Vec<(String, u64)>;

pub fn run_bisect(arguments: BisectArgs) -> Result<ExitCode, CliError> {
    let timeout = Duration::from_secs(arguments.timeout);
    if let Some(variant) = arguments.variant.filter(|variant| *variant != Variant::Chess) {
        if arguments.protocol == Protocol::Perftree {
            return Err(CliError::Usage(
                "--variant needs --protocol uci: perftree's protocol has no way to name a variant".to_owned(),
            ));
        }
        let root = match &arguments.fen {
            Some(fen) => super::variant::parse_variant_fen(variant, fen, "--fen")?,
            None => VariantPosition::start(variant),
        };
        let chess960 = arguments.chess960 || root.board().is_chess960();
        let mut position = root;
        let mut path = Vec::new();
        for text in arguments.moves.iter().flat_map(|text| text.split_whitespace()) {
            let mv = position.parse_uci_move(text).map_err(|error| CliError::Usage(format!("--moves: {error}")))?;
            position = position.make_move(mv);
            path.push(mv);
        }
        let mut other = OtherEngine::start(&arguments.engine, arguments.protocol, chess960, Some(variant), timeout)?;
        let mut ours = super::variant::VariantEngine::open(variant, arguments.counting, arguments.depth)?;
        let quiet = Progress::new(true);
        let describe = ours.describe();
        let divide = |position: &VariantPosition, depth: u32| ours.divide(position, depth, &quiet);
        let bisection = Bisection { root_fen: root.to_fen(), chess960, depth: arguments.depth, describe };
        return bisection.run(position, path, &mut other, divide);
    }
    let root = match &arguments.fen {
        Some(fen) => Position::from_fen(fen).map_err(|error| CliError::Usage(format!("--fen: {error}")))?,
        None => Position::start(),
    };
    let chess960 = arguments.chess960 || root.is_chess960();
    let mut position = root;
    let mut path: Vec<Move> = Vec::new();
    for text in arguments.moves.iter().flat_map(|text| text.split_whitespace()) {
        let mv = position.parse_uci_move(text).map_err(|error| CliError::Usage(format!("--moves: {error}")))?;
        position = position.make_move(mv);
        path.push(mv);
    }
    let mut other = OtherEngine::start(&arguments.engine, arguments.protocol, chess960, None, timeout)?;
    let mut ours = Engine::open(arguments.counting, arguments.depth)?;
    let quiet = Progress::new(true);
    let describe = ours.describe();
    let divide = |position: &Position, depth: u32| ours.divide(position, depth, &quiet);
    let bisection = Bisection { root_fen: root.to_fen(), chess960, depth: arguments.depth, describe };
    bisection.run(position, path, &mut other, divide)
}

/// A position bisection descends through: chess or a variant's.
trait Bisected: Copy {
    /// Its game, which writes its FEN and plays its moves.
    type Game: ListedGame<Position = Self, Move = Move>;
    /// The engine's moves that are legal here, with their counts, and the
    /// texts of those that are not (see [`classify`]).
    fn classify(&self, divide: &Divide) -> Result<(HashMap<Move, u64>, Vec<String>), CliError>;
}

impl Bisected for Position {
    type Game = Chess;

    fn classify(&self, divide: &Divide) -> Result<(HashMap<Move, u64>, Vec<String>), CliError> {
        classify(self, divide)
    }
}

impl Bisected for VariantPosition {
    type Game = ChessVariants;

    /// A move text that is not a legal move here is extra when it reads as
    /// a move at all (squares, or a drop), and an error otherwise.
    fn classify(&self, divide: &Divide) -> Result<(HashMap<Move, u64>, Vec<String>), CliError> {
        sort_moves(
            divide,
            |text| self.parse_uci_move(text),
            |_, error| matches!(error, gpu_movegen::MoveError::Illegal { .. }),
            |text| format!("the engine named '{text}' in {}, which is not a move", self.to_fen()),
        )
    }
}

/// One bisection's fixed parts.
struct Bisection {
    root_fen: String,
    chess960: bool,
    depth: u32,
    describe: String,
}

impl Bisection {
    /// Divides beside the other engine from `position` (reached from the
    /// root by `path`), descending into the first move whose count differs.
    fn run<P: Bisected>(
        self,
        mut position: P,
        mut path: Vec<Move>,
        other: &mut OtherEngine,
        mut ours: impl FnMut(&P, u32) -> Result<Vec<(Move, u64)>, CliError>,
    ) -> Result<ExitCode, CliError> {
        let chess960 = self.chess960;
        let mut depth = self.depth;
        loop {
            let our_divide = ours(&position, depth)?;
            let uci_path: Vec<String> = path.iter().map(|mv| mv.uci(chess960).to_string()).collect();
            let (their_divide, their_total) = other.divide(&self.root_fen, &uci_path, depth)?;
            let their_sum = their_divide.iter().try_fold(0u64, |sum, (_, count)| sum.checked_add(*count));
            if their_sum != Some(their_total) {
                // The engine contradicts itself: wrong, whatever ours say.
                let sum = their_sum.map_or("more than 2^64".to_owned(), |sum| sum.to_string());
                eprintln!(
                    "bisect: depth {depth}: the engine's total {their_total} is not the sum of its moves' counts ({sum})"
                );
                println!("position: {}", P::Game::position_text(&position));
                println!("moves: {}", uci_path.join(" "));
                return Ok(ExitCode::from(1));
            }
            let (theirs, extra) = position.classify(&their_divide)?;
            let missing: Vec<Move> =
                our_divide.iter().map(|(mv, _)| *mv).filter(|mv| !theirs.contains_key(mv)).collect();
            let report = |missing: &[Move], extra: &[String]| {
                let names = |moves: &[Move]| moves.iter().map(|mv| mv.uci(chess960).to_string()).collect::<Vec<_>>();
                println!("position: {}", P::Game::position_text(&position));
                println!("moves: {}", uci_path.join(" "));
                println!("missing: {}", names(missing).join(" "));
                println!("extra: {}", extra.join(" "));
            };
            if !missing.is_empty() || !extra.is_empty() {
                eprintln!("bisect: depth {depth}: the move lists differ here");
                report(&missing, &extra);
                return Ok(ExitCode::from(1));
            }
            let differing = our_divide.iter().find(|(mv, nodes)| theirs.get(mv) != Some(nodes));
            let Some(&(mv, nodes)) = differing else {
                let total: u64 = our_divide.iter().map(|(_, nodes)| nodes).sum();
                if depth == self.depth {
                    println!(
                        "no difference: both engines count {total} at depth {depth} (ours on the {})",
                        self.describe
                    );
                    return Ok(ExitCode::SUCCESS);
                }
                eprintln!(
                    "bisect: depth {depth}: every move counts the same here, though the engine's count of the move \
                     that led here did not; its counts are not consistent with one another"
                );
                report(&[], &[]);
                return Ok(ExitCode::from(1));
            };
            let theirs_count = theirs[&mv];
            eprintln!("bisect: depth {depth}: {} differs: ours {nodes}, the engine's {theirs_count}", mv.uci(chess960));
            if depth == 1 {
                // The same moves, yet the engine counts one of them as more than one leaf.
                report(&[], &[]);
                return Ok(ExitCode::from(1));
            }
            position = P::Game::play(&position, mv);
            path.push(mv);
            depth -= 1;
        }
    }
}

/// The engine's moves that are legal here, with their counts, and the texts
/// of those that are pseudo-legal but not legal; a move that is not even
/// pseudo-legal, or a count listed twice, is an error.
fn classify(position: &Position, divide: &Divide) -> Result<(HashMap<Move, u64>, Vec<String>), CliError> {
    sort_moves(
        divide,
        |text| position.parse_uci_move(text),
        |text, _| is_pseudo_legal(position, text),
        |text| format!("the engine named the move '{text}' in {}, which is not even pseudo-legal", position.to_fen()),
    )
}

/// The engine's moves that `parse` reads as legal, with their counts, and
/// the texts of those it refuses that `is_extra` takes for moves all the
/// same (a move listed twice is extra too); any other text is an error,
/// worded by `refusal` from the text as shown.
fn sort_moves<E>(
    divide: &Divide,
    parse: impl Fn(&str) -> Result<Move, E>,
    is_extra: impl Fn(&str, &E) -> bool,
    refusal: impl Fn(&str) -> String,
) -> Result<(HashMap<Move, u64>, Vec<String>), CliError> {
    let mut legal = HashMap::new();
    let mut extra = Vec::new();
    for (text, count) in divide {
        match parse(text) {
            Ok(mv) => {
                if legal.insert(mv, *count).is_some() {
                    extra.push(format!("{text} (listed twice)"));
                }
            }
            Err(error) if is_extra(text, &error) => extra.push(text.clone()),
            Err(_) => return Err(CliError::Usage(refusal(&shown(text)))),
        }
    }
    Ok((legal, extra))
}

/// Whether a UCI move text could come from a generator that forgets the
/// legality test: a piece of the side to move going where it attacks or
/// pushes, a pawn taking en passant, or the king castling (out of, through
/// or into check), with a promotion letter exactly when a pawn reaches the
/// last rank.
fn is_pseudo_legal(position: &Position, text: &str) -> bool {
    if !(text.len() == 4 || text.len() == 5) || !text.is_ascii() {
        return false;
    }
    let (Ok(from), Ok(to)) = (text[0..2].parse::<Square>(), text[2..4].parse::<Square>()) else { return false };
    let us = position.side_to_move();
    let Some((color, piece)) = position.piece_on(from) else { return false };
    if color != us {
        return false;
    }
    let promotes = piece == Piece::Pawn && to.rank() == us.promotion_rank();
    let letter = text.as_bytes().get(4).copied();
    if promotes != letter.is_some_and(|letter| b"qrbn".contains(&letter)) || (!promotes && letter.is_some()) {
        return false;
    }
    if seed_destinations(position, from).contains(to) {
        return true;
    }
    match piece {
        Piece::Pawn => position.en_passant() == Some(to) && gpu_movegen::tables::pawn_attacks(us, from).contains(to),
        Piece::King => {
            let rooks = position.castling_rights().rook_squares(us);
            let king_destination = to.rank() == from.rank() && (to.file() == 2 || to.file() == 6);
            rooks.contains(to) || (king_destination && !rooks.is_empty())
        }
        _ => false,
    }
}

/// The longest line read from the other engine: a divide line is a move
/// and a count, and a UCI `info` line a few hundred bytes.
const MAX_ENGINE_LINE_BYTES: usize = 4 << 10;

/// The most lines one answer may take: a divide has at most 218 moves, and
/// engines add a little chatter.
const MAX_ANSWER_LINES: usize = 10_000;

/// Lines waiting between the reading thread and the bisection: the engine
/// blocks on its writes past this, so a flood takes no memory.
const LINES_IN_FLIGHT: usize = 256;

/// One event of the other engine's output.
enum EngineOutput {
    Line(String),
    /// A line that is not UTF-8 text.
    NotText,
    /// A line past [`MAX_ENGINE_LINE_BYTES`].
    TooLong,
    /// The output ended (the engine exited, or closed it).
    Closed,
}

/// Reads `stream` line by line on a thread of its own, each line bounded,
/// into a bounded channel; stops at the first event that is not a line.
fn read_lines(stream: impl std::io::Read + Send + 'static) -> Receiver<EngineOutput> {
    let (sender, receiver) = sync_channel(LINES_IN_FLIGHT);
    std::thread::spawn(move || {
        let mut reader = BufReader::new(stream);
        loop {
            let mut bytes = Vec::new();
            let limit = MAX_ENGINE_LINE_BYTES as u64 + 1;
            let event = match (&mut reader).take(limit).read_until(b'\n', &mut bytes) {
                Ok(0) | Err(_) => EngineOutput::Closed,
                Ok(_) if bytes.len() > MAX_ENGINE_LINE_BYTES => EngineOutput::TooLong,
                Ok(_) => {
                    while bytes.last().is_some_and(|byte| *byte == b'\n' || *byte == b'\r') {
                        bytes.pop();
                    }
                    String::from_utf8(bytes).map_or(EngineOutput::NotText, EngineOutput::Line)
                }
            };
            let last = !matches!(event, EngineOutput::Line(_));
            if sender.send(event).is_err() || last {
                break;
            }
        }
    });
    receiver
}

/// Why an answer was not read, and whether it was because the output closed
/// (where the engine's exit status, if a failure, says more).
struct Unanswered {
    error: CliError,
    closed: bool,
}

/// The lines of one answer, up to and including the one `done` accepts,
/// read by `deadline`; every way of not answering is an error naming
/// `asked`. `perftree`: the output closing is the answer cut short, unless
/// nothing came (UCI engines that close have exited).
fn read_answer(
    lines: &Receiver<EngineOutput>,
    asked: &str,
    mut done: impl FnMut(&str) -> bool,
    perftree: bool,
    deadline: Instant,
    timeout: Duration,
) -> Result<Vec<String>, Unanswered> {
    let failed = |message: String, closed: bool| Unanswered { error: CliError::Usage(message), closed };
    let mut read: Vec<String> = Vec::new();
    loop {
        // Checked before every line, so that a flood of queued lines
        // cannot carry the wait past the deadline.
        let left = deadline.saturating_duration_since(Instant::now());
        let event = if left.is_zero() { Err(RecvTimeoutError::Timeout) } else { lines.recv_timeout(left) };
        let line = match event {
            Ok(EngineOutput::Line(line)) => line,
            Ok(EngineOutput::NotText) => {
                return Err(failed(
                    format!("the engine's answer to '{asked}' has a line that is not UTF-8 text"),
                    false,
                ));
            }
            Ok(EngineOutput::TooLong) => {
                let most = MAX_ENGINE_LINE_BYTES >> 10;
                return Err(failed(
                    format!("the engine's answer to '{asked}' has a line longer than {most} KiB"),
                    false,
                ));
            }
            Ok(EngineOutput::Closed) | Err(RecvTimeoutError::Disconnected) => {
                let problem = if perftree && !read.is_empty() {
                    format!("the engine's answer to '{asked}' is cut short: no blank line and total after its moves")
                } else {
                    format!("the engine exited before it answered '{asked}'")
                };
                return Err(failed(problem, true));
            }
            Err(RecvTimeoutError::Timeout) => {
                let seconds = timeout.as_secs();
                return Err(failed(
                    format!("the engine gave no complete answer to '{asked}' within {seconds} s"),
                    false,
                ));
            }
        };
        let last = done(&line);
        read.push(line);
        if last {
            return Ok(read);
        }
        if read.len() >= MAX_ANSWER_LINES {
            return Err(failed(
                format!("the engine's answer to '{asked}' passed {MAX_ANSWER_LINES} lines without ending"),
                false,
            ));
        }
    }
}

/// Starts `program` in a process group of its own, so that ending the
/// group ends whatever it started too.
fn spawn_engine(program: &str, arguments: &[String], input: Stdio) -> Result<Child, CliError> {
    use std::os::unix::process::CommandExt as _;
    Command::new(program)
        .args(arguments)
        .stdin(input)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|error| CliError::Usage(format!("cannot start the engine '{}': {error}", shown(program))))
}

/// Kills the engine's process group (its children too) and reaps the engine.
fn end_engine(child: &mut Child) {
    if let Ok(group) = i32::try_from(child.id()) {
        // SAFETY: killpg only sends a signal; the group is the engine's own
        // (process_group(0) made its pid the group id), not this process's.
        unsafe {
            libc::killpg(group, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// At most 60 characters of an engine's text, control characters escaped:
/// an error message stays one short line whatever the engine wrote.
fn shown(text: &str) -> String {
    const MOST: usize = 60;
    let mut cut: String = text.chars().take(MOST).collect();
    if text.chars().nth(MOST).is_some() {
        cut.push('…');
    }
    escape_controls(&cut)
}

/// The other engine, running or ready to run.
enum OtherEngine {
    Uci { child: Child, input: ChildStdin, lines: Receiver<EngineOutput>, timeout: Duration },
    Perftree { program: String, arguments: Vec<String>, timeout: Duration },
}

impl OtherEngine {
    fn start(
        command: &str,
        protocol: Protocol,
        chess960: bool,
        variant: Option<Variant>,
        timeout: Duration,
    ) -> Result<OtherEngine, CliError> {
        let mut words = command.split_whitespace().map(str::to_owned);
        let program = words.next().ok_or_else(|| CliError::Usage("--engine: no program named".to_owned()))?;
        let arguments: Vec<String> = words.collect();
        if protocol == Protocol::Perftree {
            return Ok(OtherEngine::Perftree { program, arguments, timeout });
        }
        let mut child = spawn_engine(&program, &arguments, Stdio::piped())?;
        let input = child.stdin.take().expect("stdin was piped");
        let lines = read_lines(child.stdout.take().expect("stdout was piped"));
        let mut engine = OtherEngine::Uci { child, input, lines, timeout };
        engine.send("uci")?;
        engine.read_until("uci", |line| line.trim() == "uciok")?;
        if chess960 {
            engine.send("setoption name UCI_Chess960 value true")?;
        }
        if let Some(variant) = variant {
            engine.send(&format!("setoption name UCI_Variant value {}", variant.uci_name()))?;
        }
        engine.send("isready")?;
        engine.read_until("isready", |line| line.trim() == "readyok")?;
        Ok(engine)
    }

    fn send(&mut self, command: &str) -> Result<(), CliError> {
        let OtherEngine::Uci { input, .. } = self else { return Ok(()) };
        writeln!(input, "{command}")
            .and_then(|()| input.flush())
            .map_err(|error| CliError::Usage(format!("the engine stopped reading its input ('{command}'): {error}")))
    }

    /// UCI lines up to and including the one `last` accepts.
    fn read_until(&mut self, asked: &str, last: impl Fn(&str) -> bool) -> Result<Vec<String>, CliError> {
        let OtherEngine::Uci { lines, timeout, .. } = self else { return Ok(Vec::new()) };
        read_answer(lines, asked, |line| last(line), false, Instant::now() + *timeout, *timeout)
            .map_err(|unanswered| unanswered.error)
    }

    /// The engine's divide of the position `moves` reach from `fen`, and
    /// the total it gave with it.
    fn divide(&mut self, fen: &str, moves: &[String], depth: u32) -> Result<(Divide, u64), CliError> {
        let joined = moves.join(" ");
        match self {
            OtherEngine::Uci { .. } => {
                let position =
                    if moves.is_empty() { format!("fen {fen}") } else { format!("fen {fen} moves {joined}") };
                self.send(&format!("position {position}"))?;
                let asked = format!("go perft {depth}");
                self.send(&asked)?;
                let mut text = self.read_until(&asked, |line| line.starts_with("Nodes searched"))?;
                let total_line = text.pop().expect("the answer ends with its total");
                let total = total_line
                    .strip_prefix("Nodes searched")
                    .map(|rest| rest.trim_start_matches(':').trim())
                    .and_then(|count| count.parse::<u64>().ok())
                    .ok_or_else(|| {
                        CliError::Usage(format!("cannot read the engine's total '{}'", shown(&total_line)))
                    })?;
                Ok((parse_divide(&text, ": ")?, total))
            }
            OtherEngine::Perftree { program, arguments, timeout } => {
                let mut text = run_once(program, arguments, &[depth.to_string(), fen.to_owned(), joined], *timeout)?;
                let total_line = text.pop().expect("the answer ends with its total");
                let total = total_line.trim().parse::<u64>().map_err(|_| {
                    CliError::Usage(format!(
                        "cannot read the engine's total '{}' (perftree's answer ends with a blank line and the total)",
                        shown(&total_line)
                    ))
                })?;
                Ok((parse_divide(&text, " ")?, total))
            }
        }
    }
}

impl Drop for OtherEngine {
    fn drop(&mut self) {
        if let OtherEngine::Uci { child, input, .. } = self {
            let _ = writeln!(input, "quit");
            let _ = input.flush();
            let deadline = Instant::now() + Duration::from_millis(500);
            while Instant::now() < deadline {
                if matches!(child.try_wait(), Ok(Some(_))) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            end_engine(child);
        }
    }
}

/// Runs a perftree-style engine once: its answer's lines, up to the total
/// after the blank line. The answer and the engine's exit share one deadline;
/// at it, the engine's process group is ended, children that hold its
/// output included.
fn run_once(program: &str, arguments: &[String], extra: &[String], timeout: Duration) -> Result<Vec<String>, CliError> {
    let arguments: Vec<String> =
        arguments.iter().chain(extra.iter().filter(|argument| !argument.is_empty())).cloned().collect();
    let mut child = spawn_engine(program, &arguments, Stdio::null())?;
    let lines = read_lines(child.stdout.take().expect("stdout was piped"));
    let deadline = Instant::now() + timeout;
    let asked = format!("perft {} of the position", extra[0]);
    let mut blank_seen = false;
    let answer = read_answer(
        &lines,
        &asked,
        |line| std::mem::replace(&mut blank_seen, line.trim().is_empty()) && !line.trim().is_empty(),
        true,
        deadline,
        timeout,
    );
    let answer = match answer {
        Ok(answer) => answer,
        Err(Unanswered { error, closed }) => {
            // An engine whose output closed may have failed, and its exit
            // status says so: the output closes a moment before it can be
            // reaped, so wait that moment.
            let reaped_by = deadline.min(Instant::now() + Duration::from_secs(1));
            let mut status = child.try_wait().ok().flatten();
            while closed && status.is_none() && Instant::now() < reaped_by {
                std::thread::sleep(Duration::from_millis(5));
                status = child.try_wait().ok().flatten();
            }
            end_engine(&mut child);
            return match status {
                Some(status) if closed && !status.success() => {
                    Err(CliError::Usage(format!("the engine failed ({status}) on depth {}", extra[0])))
                }
                _ => Err(error),
            };
        }
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                end_engine(&mut child);
                return Err(CliError::Usage(format!(
                    "the engine answered but did not exit within {} s",
                    timeout.as_secs()
                )));
            }
            Err(error) => return Err(CliError::Usage(format!("cannot wait for the engine: {error}"))),
        }
    };
    // Whatever it left running with its output goes with it.
    end_engine(&mut child);
    if !status.success() {
        return Err(CliError::Usage(format!("the engine failed ({status}) on depth {}", extra[0])));
    }
    Ok(answer)
}

/// `move<separator>count` lines; blank lines and any other chatter (UCI
/// `info` lines) are passed over, but a line that starts like a move and
/// does not end in a count is an error.
fn parse_divide(lines: &[String], separator: &str) -> Result<Divide, CliError> {
    let mut moves = Vec::new();
    for line in lines {
        let line = line.trim();
        let Some((text, count)) = line.split_once(separator) else { continue };
        let looks_like_move = text.len() >= 4
            && text.len() <= 5
            && text.as_bytes()[0].is_ascii_lowercase()
            && text.as_bytes()[1].is_ascii_digit()
            && !text.contains(' ');
        if !looks_like_move {
            continue;
        }
        let count: u64 = count.trim().parse().map_err(|_| {
            CliError::Usage(format!("cannot read the engine's line '{}': no count after the move", shown(line)))
        })?;
        moves.push((text.to_owned(), count));
    }
    Ok(moves)
}
