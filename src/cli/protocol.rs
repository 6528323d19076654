//! `gpu-movegen uci` and `gpu-movegen usi`: this crate's perft behind the
//! protocols chess and Shogi tools speak, so that their scripts can use it
//! as the reference engine. `go perft N` answers as Stockfish does (UCI) and
//! as YaneuraOu does (USI): a `move: count` line per root move, a blank
//! line, `Nodes searched: N`, a blank line. The engine only counts: a plain
//! `go` gets an `info string` saying so and a `bestmove` that ends the
//! search at once (`0000` in UCI, `resign` in USI), so no GUI waits. Bad
//! input gets an `info string error: …` line, and the engine keeps serving.
//!
//! Commands are read while a `go perft` counts. Those that arrive while it
//! counts are heard at once: `isready` is answered, `stop` ends the count
//! without a total (an `info string` line says it stopped), `quit` exits;
//! any other waits for the count, then runs in order. Commands that had
//! already arrived with the `go perft` (a script piped in whole, `go perft
//! 6` then `quit`) run after it in order, as Stockfish's synchronous perft
//! runs them. The end of input lets the count finish.

use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use gpu_movegen::chess::variant::{Variant, VariantPosition};
use gpu_movegen::{Position, START_FEN};

use super::common::{Backend, CliError, GpuTableArgs, Int64Arg, Progress, ShaderArgs, SliderArg, escape_controls};
use super::engine::{CountingArgs, Engine, HashArgs};

/// The longest command line read: a FEN or SFEN with a long game's moves.
const MAX_LINE_BYTES: usize = 64 << 10;

/// The deepest `go perft` either front end counts.
const MAX_PERFT_DEPTH: u32 = 64;

/// Where the front end counts, before any `setoption`.
#[derive(clap::Args)]
pub struct FrontEndArgs {
    /// Where to run (also `setoption name Backend value auto|gpu|cpu`).
    #[arg(long, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// Worker threads of the CPU backend (also `setoption name Threads`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
}

/// What `uci` and `usi` share: their settings and how to open an engine.
#[derive(Clone, Copy, PartialEq)]
struct Settings {
    backend: Backend,
    threads: Option<u32>,
    /// Hash in MiB; `None` sizes the table for the depth.
    hash: Option<u64>,
}

impl Settings {
    /// `setoption name NAME value VALUE` for the options both share.
    fn set(&mut self, name: &str, value: &str) -> Result<bool, String> {
        match name.to_ascii_lowercase().as_str() {
            "backend" => {
                self.backend = match value.to_ascii_lowercase().as_str() {
                    "auto" => Backend::Auto,
                    "gpu" => Backend::Gpu,
                    "cpu" => Backend::Cpu,
                    _ => return Err(format!("Backend is auto, gpu or cpu, not '{}'", escape_controls(value))),
                };
            }
            "threads" => {
                let threads = value.parse::<u32>().ok().filter(|threads| (1..=1024).contains(threads));
                self.threads = Some(threads.ok_or_else(|| "Threads is a whole number from 1 to 1024".to_owned())?);
            }
            "hash" | "usi_hash" => {
                let hash = value.parse::<u64>().ok().filter(|hash| *hash <= 1 << 22);
                let hash = hash.ok_or_else(|| "Hash is a number of MiB from 0 to 4194304".to_owned())?;
                // 0 sizes the table for the depth, as the command line's default.
                self.hash = (hash > 0).then_some(hash);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A divide's rows in the protocol's notation; `None` where `stop` ended it.
type Divided = Result<Option<Vec<(String, u64)>>, String>;

/// One game's side of a front end.
trait Game {
    /// `uci` or `usi`.
    const PROTOCOL: &'static str;
    /// The `bestmove` a plain `go` gets.
    const NO_MOVE: &'static str;
    /// The game-specific options, as `option` lines.
    fn options(&self) -> Vec<String>;
    /// A game-specific `setoption`; `Ok(false)` when the name is unknown.
    fn set_option(&mut self, name: &str, value: &str) -> Result<bool, String>;
    /// `position …` (the words after `position`).
    fn set_position(&mut self, words: &[&str]) -> Result<(), String>;
    /// The divide of the position at `depth` (1 or more), in the protocol's
    /// notation; `None` when `stop` was set before it ended.
    fn divide(&mut self, settings: Settings, depth: u32, stop: &Arc<AtomicBool>) -> Divided;
    /// `d`: the position, for people.
    fn show(&self) -> String;
    /// `ucinewgame` / `usinewgame`.
    fn new_game(&mut self);
}

/// What the reader thread and a count send the loop that serves.
enum Event {
    /// A line of input, or why it could not be read as one, and whether more
    /// input had already arrived with it (part of the same write).
    Line(Result<String, &'static str>, bool),
    /// The input ended.
    End,
    /// Reading the input failed.
    Failed(CliError),
    /// The count under way ended.
    Counted,
}

/// Reads `input` line by line on a thread of its own, so that commands are
/// heard while a count runs; each line is sent to `events`.
fn read_lines(input: impl std::io::Read + Send + 'static, events: mpsc::Sender<Event>) {
    std::thread::spawn(move || {
        let mut lines = LineReader { input: std::io::BufReader::with_capacity(MAX_LINE_BYTES, input) };
        loop {
            let event = match lines.next_line() {
                Ok(Some(line)) => Event::Line(line, !lines.input.buffer().is_empty()),
                Ok(None) => Event::End,
                Err(error) => Event::Failed(error),
            };
            let last = !matches!(event, Event::Line(..));
            if events.send(event).is_err() || last {
                return;
            }
        }
    });
}

/// Serves `game` on `input` and `output` until `quit` or the end of input.
fn serve<G: Game + Send>(
    mut game: G,
    arguments: FrontEndArgs,
    input: impl std::io::Read + Send + 'static,
    mut output: impl Write,
) -> Result<(), CliError> {
    let mut settings = Settings { backend: arguments.backend, threads: arguments.threads, hash: None };
    let (sender, events) = mpsc::channel();
    read_lines(input, sender.clone());
    // Lines that came while a count ran, to be served after it.
    let mut waiting: VecDeque<Event> = VecDeque::new();
    let mut ended = false;
    loop {
        let event = match waiting.pop_front() {
            Some(event) => event,
            None if ended => break,
            None => events.recv().unwrap_or(Event::End),
        };
        let (line, followed) = match event {
            Event::Line(line, followed) => (line, followed),
            Event::End => break,
            Event::Failed(error) => return Err(error),
            Event::Counted => continue,
        };
        let reply = match line {
            Ok(line) => {
                let words: Vec<&str> = line.split_whitespace().collect();
                match handle(&mut game, &mut settings, &words) {
                    Some(Ok(Action::Reply(reply))) => reply,
                    Some(Ok(Action::Count(depth))) => {
                        // What arrived with the go perft is a script: it runs after the count, in order.
                        // (Its rest is in `waiting` when the go perft came from there.)
                        let mut burst = match waiting.back() {
                            Some(last) => matches!(last, Event::Line(_, true)),
                            None => followed,
                        };
                        while burst {
                            let event = events.recv().unwrap_or(Event::End);
                            burst = matches!(event, Event::Line(_, true));
                            waiting.push_back(event);
                        }
                        let stop = Arc::new(AtomicBool::new(false));
                        let counted = std::thread::scope(|scope| -> Result<_, CliError> {
                            let (game, sender, stop_flag) = (&mut game, sender.clone(), Arc::clone(&stop));
                            let count = scope.spawn(move || {
                                let divided = game.divide(settings, depth, &stop_flag);
                                let _ = sender.send(Event::Counted);
                                divided
                            });
                            // Commands heard while counting.
                            loop {
                                match events.recv().unwrap_or(Event::End) {
                                    Event::Counted => break,
                                    Event::Line(Ok(line), followed) => match line.split_whitespace().next() {
                                        Some("isready") => {
                                            output.write_all(b"readyok\n")?;
                                            output.flush()?;
                                        }
                                        Some("stop") => stop.store(true, Ordering::Relaxed),
                                        Some("quit") => {
                                            output.flush()?;
                                            std::process::exit(0);
                                        }
                                        _ => waiting.push_back(Event::Line(Ok(line), followed)),
                                    },
                                    Event::End => ended = true,
                                    other => waiting.push_back(other),
                                }
                            }
                            Ok(count.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                        })?;
                        match counted {
                            Ok(Some(divided)) => perft_reply(&divided),
                            Ok(None) => "info string go perft stopped before its end: no count\n".to_owned(),
                            Err(problem) => format!("info string error: {}\n", escape_controls(&problem)),
                        }
                    }
                    Some(Err(problem)) => format!("info string error: {}\n", escape_controls(&problem)),
                    None => break,
                }
            }
            Err(problem) => format!("info string error: {problem}\n"),
        };
        output.write_all(reply.as_bytes())?;
        output.flush()?;
    }
    Ok(())
}

/// `go perft`'s reply: a `move: count` line per root move, then the total.
fn perft_reply(divided: &[(String, u64)]) -> String {
    let total: u128 = divided.iter().map(|(_, count)| u128::from(*count)).sum();
    let mut reply: String = divided.iter().map(|(mv, count)| format!("{mv}: {count}\n")).collect();
    reply += &format!("\nNodes searched: {total}\n\n");
    reply
}

/// What a command asks of the loop that serves.
enum Action {
    /// Write this reply.
    Reply(String),
    /// Count `go perft` to this depth (1 or more), hearing commands meanwhile.
    Count(u32),
}

/// What one command asks for; `None` for `quit`.
fn handle<G: Game>(game: &mut G, settings: &mut Settings, words: &[&str]) -> Option<Result<Action, String>> {
    let Some((&command, arguments)) = words.split_first() else {
        return Some(Ok(Action::Reply(String::new())));
    };
    let reply = match command {
        "quit" => return None,
        _ if command == G::PROTOCOL => {
            let mut reply =
                format!("id name gpu-movegen {}\nid author the gpu-movegen developers\n", env!("CARGO_PKG_VERSION"));
            reply += "option name Backend type combo default auto var auto var gpu var cpu\n";
            reply += "option name Threads type spin default 0 min 0 max 1024\n";
            reply += "option name Hash type spin default 0 min 0 max 4194304\n";
            for option in game.options() {
                reply += &option;
                reply.push('\n');
            }
            reply + &format!("{}ok\n", G::PROTOCOL)
        }
        "isready" => "readyok\n".to_owned(),
        "ucinewgame" | "usinewgame" => {
            game.new_game();
            String::new()
        }
        "setoption" => {
            // setoption name NAME [value VALUE]
            let (name, value) = match arguments {
                ["name", rest @ ..] => match rest.iter().position(|word| *word == "value") {
                    Some(at) => (rest[..at].join(" "), rest[at + 1..].join(" ")),
                    None => (rest.join(" "), String::new()),
                },
                _ => return Some(Err("setoption name NAME value VALUE".to_owned())),
            };
            if name.eq_ignore_ascii_case("threads") && value == "0" {
                // 0: every core, as the command line's default.
                settings.threads = None;
                return Some(Ok(Action::Reply(String::new())));
            }
            match settings
                .set(&name, &value)
                .and_then(|known| if known { Ok(true) } else { game.set_option(&name, &value) })
            {
                Ok(true) => String::new(),
                Ok(false) => return Some(Err(format!("no option named '{}'", escape_controls(&name)))),
                Err(problem) => return Some(Err(problem)),
            }
        }
        "position" => match game.set_position(arguments) {
            Ok(()) => String::new(),
            Err(problem) => return Some(Err(problem)),
        },
        "go" => match arguments {
            ["perft", depth] => {
                let depth = match depth.parse::<u32>() {
                    Ok(depth) if depth <= MAX_PERFT_DEPTH => depth,
                    _ => return Some(Err(format!("go perft takes a depth from 0 to {MAX_PERFT_DEPTH}"))),
                };
                if depth == 0 {
                    "\nNodes searched: 1\n\n".to_owned()
                } else {
                    return Some(Ok(Action::Count(depth)));
                }
            }
            _ => format!("info string gpu-movegen only counts: go perft N\nbestmove {}\n", G::NO_MOVE),
        },
        "stop" | "ponderhit" | "gameover" => String::new(),
        "d" => game.show(),
        _ => return Some(Err(format!("unknown command '{}'", escape_controls(command)))),
    };
    Some(Ok(Action::Reply(reply)))
}

/// Lines of at most [`MAX_LINE_BYTES`]; a longer one, or one that is not
/// UTF-8, is a problem to report, and the reading goes on.
struct LineReader<R> {
    input: R,
}

impl<R: BufRead> LineReader<R> {
    fn next_line(&mut self) -> Result<Option<Result<String, &'static str>>, CliError> {
        let mut bytes = Vec::new();
        let read = std::io::Read::take(&mut self.input, MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut bytes)?;
        if read == 0 {
            return Ok(None);
        }
        if bytes.len() > MAX_LINE_BYTES && !bytes.ends_with(b"\n") {
            // Drop the rest of the line.
            let mut rest = Vec::new();
            while std::io::Read::take(&mut self.input, MAX_LINE_BYTES as u64).read_until(b'\n', &mut rest)? > 0 {
                if rest.ends_with(b"\n") {
                    break;
                }
                rest.clear();
            }
            return Ok(Some(Err("line too long")));
        }
        Ok(Some(String::from_utf8(bytes).map(|line| line.trim().to_owned()).map_err(|_| "not UTF-8 text")))
    }
}

/// `position startpos|KEYWORD TEXT [moves MOVE...]`, as both protocols
/// write it: the start position or `KEYWORD`'s (`fen`, `sfen`) text read by
/// `read`, then each move applied by `play`; every error names its part.
fn read_position<P, M, E: std::fmt::Display, F: std::fmt::Display>(
    words: &[&str],
    keyword: &str,
    start: P,
    read: impl FnOnce(&str) -> Result<P, E>,
    parse_move: impl Fn(&P, &str) -> Result<M, F>,
    play: impl Fn(&P, M) -> P,
) -> Result<P, String> {
    let split = words.iter().position(|word| *word == "moves").unwrap_or(words.len());
    let mut position = match &words[..split] {
        ["startpos"] => start,
        [named, text @ ..] if *named == keyword && !text.is_empty() => {
            read(&text.join(" ")).map_err(|error| format!("position {keyword}: {error}"))?
        }
        _ => return Err(format!("position startpos|{keyword} {} [moves MOVE...]", keyword.to_uppercase())),
    };
    for text in words.get(split + 1..).unwrap_or(&[]) {
        let mv = parse_move(&position, text).map_err(|error| format!("position moves: {error}"))?;
        position = play(&position, mv);
    }
    Ok(position)
}

/// The engine in `slot`, opened anew by `open` for `depth` when the
/// settings changed since it was opened, or the count is deeper than the one
/// it was opened for (its table is sized by depth), or it never was.
fn engine_for<E>(
    slot: &mut Option<(Settings, u32, E)>,
    settings: Settings,
    depth: u32,
    open: impl FnOnce(u32) -> Result<E, CliError>,
) -> Result<&mut E, String> {
    if slot.as_ref().is_none_or(|(opened, deepest, _)| *opened != settings || depth > *deepest) {
        // At least depth 6, whose table is small, so that a script counting
        // depth 1, 2, 3 ... does not open an engine for each.
        let deepest = depth.max(6);
        *slot = Some((settings, deepest, open(deepest).map_err(|error| error.message().to_owned())?));
    }
    Ok(&mut slot.as_mut().expect("opened").2)
}

/// A chess divide's rows named in UCI (castling as king takes rook with
/// `chess960`), or None where it was stopped.
fn uci_rows(divided: Result<Option<Vec<(gpu_movegen::Move, u64)>>, CliError>, chess960: bool) -> Divided {
    let divided = divided.map_err(|error| error.message().to_owned())?;
    Ok(divided.map(|rows| rows.into_iter().map(|(mv, count)| (mv.uci(chess960).to_string(), count)).collect()))
}

/// How the UCI front end counts: `settings` as the command line's options.
fn counting_of(settings: Settings) -> CountingArgs {
    CountingArgs {
        threads: settings.threads,
        backend: settings.backend,
        hash: HashArgs { mebibytes: settings.hash },
        quiet: true,
        shaders: ShaderArgs {
            slider: SliderArg::Auto,
            int64: Int64Arg::Auto,
            gpu_memory: None,
            profile_kernels: false,
        },
        devices: None,
    }
}

/// Chess (and its variants, `UCI_Variant`) behind UCI.
struct Chess {
    position: Position,
    /// `UCI_Chess960`: castling written as king takes rook.
    chess960: bool,
    engine: Option<(Settings, u32, Engine)>,
    /// `UCI_Variant`; standard chess counts on `position` and `engine`.
    variant: Variant,
    /// The position when a variant is set.
    variant_position: VariantPosition,
    variant_engine: Option<(Settings, u32, super::variant::VariantEngine)>,
}

impl Game for Chess {
    const PROTOCOL: &'static str = "uci";
    const NO_MOVE: &'static str = "0000";

    fn options(&self) -> Vec<String> {
        let variants: String = Variant::ALL.iter().map(|variant| format!(" var {}", variant.uci_name())).collect();
        vec![
            "option name UCI_Chess960 type check default false".to_owned(),
            format!("option name UCI_Variant type combo default chess{variants}"),
        ]
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<bool, String> {
        if name.eq_ignore_ascii_case("UCI_Variant") {
            let variant = value.parse::<Variant>().map_err(|error| error.to_string())?;
            if variant != self.variant {
                self.variant = variant;
                self.variant_engine = None;
            }
            // A new variant starts from its own start position.
            self.variant_position = VariantPosition::start(variant);
            self.position = Position::start();
            return Ok(true);
        }
        if !name.eq_ignore_ascii_case("UCI_Chess960") {
            return Ok(false);
        }
        self.chess960 = match value.to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => return Err("UCI_Chess960 is true or false".to_owned()),
        };
        Ok(true)
    }

    fn set_position(&mut self, words: &[&str]) -> Result<(), String> {
        if self.variant != Variant::Chess {
            let variant = self.variant;
            self.variant_position = read_position(
                words,
                "fen",
                VariantPosition::start(variant),
                |fen| VariantPosition::from_fen(variant, fen).map_err(|error| format!("{variant}: {error}")),
                VariantPosition::parse_uci_move,
                VariantPosition::make_move,
            )?;
            return Ok(());
        }
        let start = Position::from_fen(START_FEN).expect("the start position");
        self.position =
            read_position(words, "fen", start, Position::from_fen, Position::parse_uci_move, Position::make_move)?;
        Ok(())
    }

    fn divide(&mut self, settings: Settings, depth: u32, stop: &Arc<AtomicBool>) -> Divided {
        if self.variant != Variant::Chess {
            let variant = self.variant;
            let engine = engine_for(&mut self.variant_engine, settings, depth, |deepest| {
                super::variant::VariantEngine::open(variant, counting_of(settings), deepest)
            })?;
            let divided = engine.divide_until(&self.variant_position, depth, &Progress::new(true), stop);
            return uci_rows(divided, self.chess960 || self.variant_position.board().is_chess960());
        }
        let engine =
            engine_for(&mut self.engine, settings, depth, |deepest| Engine::open(counting_of(settings), deepest))?;
        let divided = engine.divide_until(&self.position, depth, &Progress::new(true), stop);
        uci_rows(divided, self.chess960 || self.position.is_chess960())
    }

    fn show(&self) -> String {
        let fen = if self.variant == Variant::Chess { self.position.to_fen() } else { self.variant_position.to_fen() };
        let placement = fen.split(' ').next().unwrap_or("");
        let rule = " +---+---+---+---+---+---+---+---+\n";
        let mut board = format!("\n{rule}");
        for (rank, row) in placement.split('/').enumerate() {
            let mut cells = Vec::with_capacity(8);
            for character in row.chars() {
                match character.to_digit(10) {
                    Some(empty) => cells.extend(std::iter::repeat_n(' ', empty as usize)),
                    None => cells.push(character),
                }
            }
            let squares: String = cells.iter().map(|cell| format!(" | {cell}")).collect();
            board += &format!("{squares} | {}\n{rule}", 8 - rank);
        }
        board += "   a   b   c   d   e   f   g   h\n\n";
        if self.variant != Variant::Chess {
            board += &format!("Variant: {}\n", self.variant);
        }
        board + &format!("Fen: {fen}\n")
    }

    fn new_game(&mut self) {
        if let Some((_, _, engine)) = &mut self.engine {
            let _ = engine.clear_table();
        }
    }
}

/// Shogi behind USI.
struct Shogi {
    position: gpu_movegen::shogi::Position,
    engine: Option<(Settings, u32, super::shogi::Engine)>,
}

impl Game for Shogi {
    const PROTOCOL: &'static str = "usi";
    const NO_MOVE: &'static str = "resign";

    fn options(&self) -> Vec<String> {
        Vec::new()
    }

    fn set_option(&mut self, _name: &str, _value: &str) -> Result<bool, String> {
        Ok(false)
    }

    fn set_position(&mut self, words: &[&str]) -> Result<(), String> {
        use gpu_movegen::shogi::Position;
        self.position = read_position(
            words,
            "sfen",
            Position::start(),
            Position::from_sfen,
            Position::parse_usi_move,
            Position::make_move,
        )?;
        Ok(())
    }

    fn divide(&mut self, settings: Settings, depth: u32, stop: &Arc<AtomicBool>) -> Divided {
        let engine = engine_for(&mut self.engine, settings, depth, |deepest| {
            let hash = GpuTableArgs { mebibytes: settings.hash };
            super::shogi::open_engine(settings.backend, settings.threads, None, hash, deepest, true, false)
        })?;
        let divided = engine
            .divide_until(&self.position, depth, &|_| {}, stop)
            .map_err(|error| CliError::from(error).message().to_owned())?;
        Ok(divided.map(|divided| divided.into_iter().map(|(mv, count)| (mv.to_string(), count)).collect()))
    }

    fn show(&self) -> String {
        format!("sfen {}\n", self.position.to_sfen())
    }

    fn new_game(&mut self) {}
}

/// `gpu-movegen uci`.
pub fn run_uci(arguments: FrontEndArgs) -> Result<std::process::ExitCode, CliError> {
    let chess = Chess {
        position: Position::from_fen(START_FEN).expect("the start position"),
        chess960: false,
        engine: None,
        variant: Variant::Chess,
        variant_position: VariantPosition::start(Variant::Chess),
        variant_engine: None,
    };
    serve(chess, arguments, std::io::stdin(), std::io::stdout().lock())?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// `gpu-movegen usi`.
pub fn run_usi(arguments: FrontEndArgs) -> Result<std::process::ExitCode, CliError> {
    let shogi = Shogi { position: gpu_movegen::shogi::Position::start(), engine: None };
    serve(shogi, arguments, std::io::stdin(), std::io::stdout().lock())?;
    Ok(std::process::ExitCode::SUCCESS)
}
