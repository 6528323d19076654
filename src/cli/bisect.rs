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
use std::io::{BufRead, BufReader, Write as _};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use gpu_movegen::chess::pseudo_legal::seed_destinations;
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
    /// Seconds the engine may take for one answer.
    #[arg(long, value_name = "SECONDS", default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout: u64,
    #[command(flatten)]
    counting: CountingArgs,
}

/// One divide of the other engine: its move texts with their counts.
type Divide = Vec<(String, u64)>;

pub fn run_bisect(arguments: BisectArgs) -> Result<ExitCode, CliError> {
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
    let timeout = Duration::from_secs(arguments.timeout);
    let mut other = OtherEngine::start(&arguments.engine, arguments.protocol, chess960, timeout)?;
    let mut ours = Engine::open(arguments.counting, arguments.depth)?;
    let quiet = Progress::new(true);
    let root_fen = root.to_fen();
    let mut depth = arguments.depth;
    loop {
        let our_divide = ours.divide(&position, depth, &quiet)?;
        let uci_path: Vec<String> = path.iter().map(|mv| mv.uci(chess960).to_string()).collect();
        let their_divide = other.divide(&root_fen, &uci_path, depth)?;
        let (theirs, extra) = classify(&position, &their_divide)?;
        let missing: Vec<Move> = our_divide.iter().map(|(mv, _)| *mv).filter(|mv| !theirs.contains_key(mv)).collect();
        let report = |missing: &[Move], extra: &[String]| {
            let names = |moves: &[Move]| moves.iter().map(|mv| mv.uci(chess960).to_string()).collect::<Vec<_>>();
            println!("position: {}", position.to_fen());
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
            if depth == arguments.depth {
                println!(
                    "no difference: both engines count {total} at depth {depth} (ours on the {})",
                    ours.describe()
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
        position = position.make_move(mv);
        path.push(mv);
        depth -= 1;
    }
}

/// The engine's moves that are legal here, with their counts, and the texts
/// of those that are pseudo-legal but not legal; a move that is not even
/// pseudo-legal, or a count listed twice, is an error.
fn classify(position: &Position, divide: &Divide) -> Result<(HashMap<Move, u64>, Vec<String>), CliError> {
    let mut legal = HashMap::new();
    let mut extra = Vec::new();
    for (text, count) in divide {
        match position.parse_uci_move(text) {
            Ok(mv) => {
                if legal.insert(mv, *count).is_some() {
                    extra.push(format!("{text} (listed twice)"));
                }
            }
            Err(_) if is_pseudo_legal(position, text) => extra.push(text.clone()),
            Err(_) => {
                return Err(CliError::Usage(format!(
                    "the engine named the move '{}' in {}, which is not even pseudo-legal",
                    escape_controls(text),
                    position.to_fen()
                )));
            }
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

/// The other engine, running or ready to run.
enum OtherEngine {
    Uci { child: Child, input: ChildStdin, lines: Receiver<String>, timeout: Duration },
    Perftree { program: String, arguments: Vec<String>, timeout: Duration },
}

impl OtherEngine {
    fn start(command: &str, protocol: Protocol, chess960: bool, timeout: Duration) -> Result<OtherEngine, CliError> {
        let mut words = command.split_whitespace().map(str::to_owned);
        let program = words.next().ok_or_else(|| CliError::Usage("--engine: no program named".to_owned()))?;
        let arguments: Vec<String> = words.collect();
        if protocol == Protocol::Perftree {
            return Ok(OtherEngine::Perftree { program, arguments, timeout });
        }
        let mut child = Command::new(&program)
            .args(&arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| {
                CliError::Usage(format!("cannot start the engine '{}': {error}", escape_controls(&program)))
            })?;
        let input = child.stdin.take().expect("stdin was piped");
        let output = child.stdout.take().expect("stdout was piped");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = OtherEngine::Uci { child, input, lines, timeout };
        engine.send("uci")?;
        engine.read_until("uci", |line| line.trim() == "uciok")?;
        if chess960 {
            engine.send("setoption name UCI_Chess960 value true")?;
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

    /// Lines up to and including the one `last` accepts.
    fn read_until(&mut self, asked: &str, last: impl Fn(&str) -> bool) -> Result<Vec<String>, CliError> {
        let OtherEngine::Uci { lines, timeout, .. } = self else { return Ok(Vec::new()) };
        let deadline = Instant::now() + *timeout;
        let mut read = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) => {
                    let done = last(&line);
                    read.push(line);
                    if done {
                        return Ok(read);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(CliError::Usage(format!(
                        "the engine gave no complete answer to '{asked}' within {} s",
                        timeout.as_secs()
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(CliError::Usage(format!("the engine exited before it answered '{asked}'")));
                }
            }
        }
    }

    /// The engine's divide of the position `moves` reach from `fen`.
    fn divide(&mut self, fen: &str, moves: &[String], depth: u32) -> Result<Divide, CliError> {
        let joined = moves.join(" ");
        let text = match self {
            OtherEngine::Uci { .. } => {
                let position =
                    if moves.is_empty() { format!("fen {fen}") } else { format!("fen {fen} moves {joined}") };
                self.send(&format!("position {position}"))?;
                let asked = format!("go perft {depth}");
                self.send(&asked)?;
                self.read_until(&asked, |line| line.starts_with("Nodes searched"))?
            }
            OtherEngine::Perftree { program, arguments, timeout } => {
                run_once(program, arguments, &[depth.to_string(), fen.to_owned(), joined], *timeout)?
            }
        };
        parse_divide(&text, self.separator())
    }

    fn separator(&self) -> &'static str {
        match self {
            OtherEngine::Uci { .. } => ": ",
            OtherEngine::Perftree { .. } => " ",
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
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Runs a perftree-style engine once and returns its output lines.
fn run_once(program: &str, arguments: &[String], extra: &[String], timeout: Duration) -> Result<Vec<String>, CliError> {
    let mut child = Command::new(program)
        .args(arguments)
        .args(extra.iter().filter(|argument| !argument.is_empty()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|error| CliError::Usage(format!("cannot start the engine '{}': {error}", escape_controls(program))))?;
    let mut output = child.stdout.take().expect("stdout was piped");
    // Read whole, so that output cut short by a read error or bytes that
    // are not text is an error, never a shorter divide.
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut output, &mut bytes).map(|_| bytes)
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(CliError::Usage(format!("the engine gave no answer within {} s", timeout.as_secs())));
            }
            Err(error) => return Err(CliError::Usage(format!("cannot wait for the engine: {error}"))),
        }
    };
    if !status.success() {
        return Err(CliError::Usage(format!("the engine failed ({status}) on depth {}", extra[0])));
    }
    let bytes = reader
        .join()
        .ok()
        .and_then(Result::ok)
        .ok_or_else(|| CliError::Usage("the engine's output could not be read".to_owned()))?;
    let text =
        String::from_utf8(bytes).map_err(|_| CliError::Usage("the engine's output is not UTF-8 text".to_owned()))?;
    Ok(text.lines().map(str::to_owned).collect())
}

/// `move<separator>count` lines; blank lines, the total and any other
/// chatter (UCI `info` lines) are passed over, but a line that starts like
/// a move and does not end in a count is an error.
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
            CliError::Usage(format!(
                "cannot read the engine's line '{}': no count after the move",
                escape_controls(line)
            ))
        })?;
        moves.push((text.to_owned(), count));
    }
    Ok(moves)
}
