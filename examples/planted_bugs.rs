//! A perft engine with a bug planted on purpose, for testing
//! `gpu-movegen bisect` (tests/bisect.rs): it speaks UCI (`--uci`) or
//! perftree's protocol (`planted_bugs DEPTH FEN [MOVES]`), and the
//! `PLANTED_BUG` environment variable chooses the bug:
//!
//! - `castle-out-of-check`: castling is allowed while in check;
//! - `no-en-passant`: en passant captures are never generated;
//! - `no-knight-promotion`: a pawn never promotes to a knight;
//! - `nonsense-move`: the start position also lists `e2e5`;
//! - `garbage-count`: the first move's count is the word `many`;
//! - `die`: the engine exits when asked to count;
//! - `hang`: the engine never answers a count;
//! - `binary`: the answer ends in bytes that are not UTF-8;
//! - `wrong-total`: the total is one more than the moves' counts add up to;
//! - `flood`: the engine writes `info` lines for ever instead of counting;
//! - `huge-count`: the first move's count has 100 million digits;
//! - `truncated`: the perftree answer stops after its moves (no blank line
//!   and no total), and the engine exits;
//! - `orphan`: the perftree engine leaves a child holding its output
//!   (after its whole answer with `orphan`; with `orphan-silent` it exits
//!   without answering);
//! - `zh-no-pawn-drops` (with `UCI_Variant` crazyhouse): pawns are never dropped;
//! - `atomic-king-captures` (with `UCI_Variant` atomic): a king may capture,
//!   exploding itself;
//! - anything else (or unset): no bug, the crate's own counts.
//!
//! In UCI mode `setoption name UCI_Variant value NAME` switches to a chess
//! variant (the crate's own rules, with the variant bugs above).
//!
//! ```text
//! PLANTED_BUG=no-en-passant cargo run --release --example planted_bugs -- 3 "<FEN>"
//! ```

use std::io::{BufRead, Write};

use gpu_movegen::chess::variant::{Variant, VariantPosition};
use gpu_movegen::{Move, MoveKind, Piece, Position};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bug {
    CastleOutOfCheck,
    NoEnPassant,
    NoKnightPromotion,
    NonsenseMove,
    GarbageCount,
    Die,
    Hang,
    Binary,
    WrongTotal,
    Flood,
    HugeCount,
    Truncated,
    Orphan,
    OrphanSilent,
    CrazyhouseNoPawnDrops,
    AtomicKingCaptures,
    None,
}

impl Bug {
    fn from_environment() -> Bug {
        match std::env::var("PLANTED_BUG").as_deref() {
            Ok("castle-out-of-check") => Bug::CastleOutOfCheck,
            Ok("no-en-passant") => Bug::NoEnPassant,
            Ok("no-knight-promotion") => Bug::NoKnightPromotion,
            Ok("nonsense-move") => Bug::NonsenseMove,
            Ok("garbage-count") => Bug::GarbageCount,
            Ok("die") => Bug::Die,
            Ok("hang") => Bug::Hang,
            Ok("binary") => Bug::Binary,
            Ok("wrong-total") => Bug::WrongTotal,
            Ok("flood") => Bug::Flood,
            Ok("huge-count") => Bug::HugeCount,
            Ok("truncated") => Bug::Truncated,
            Ok("orphan") => Bug::Orphan,
            Ok("orphan-silent") => Bug::OrphanSilent,
            Ok("zh-no-pawn-drops") => Bug::CrazyhouseNoPawnDrops,
            Ok("atomic-king-captures") => Bug::AtomicKingCaptures,
            _ => Bug::None,
        }
    }
}

/// The legal moves, with the bug's change.
fn moves(position: &Position, bug: Bug) -> Vec<Move> {
    let mut list: Vec<Move> = position.legal_moves().to_vec();
    match bug {
        Bug::NoEnPassant => list.retain(|mv| mv.kind() != MoveKind::EnPassant),
        Bug::NoKnightPromotion => list.retain(|mv| mv.promotion() != Some(Piece::Knight)),
        Bug::CastleOutOfCheck if position.in_check() => list.extend(castlings_ignoring_attacks(position)),
        _ => {}
    }
    list
}

/// Castlings whose squares are empty, whatever attacks them.
fn castlings_ignoring_attacks(position: &Position) -> Vec<Move> {
    let us = position.side_to_move();
    let king = position.king(us);
    let occupied = position.occupied();
    position
        .castling_rights()
        .rook_squares(us)
        .squares()
        .filter(|rook| {
            let side = gpu_movegen::CastlingSide::of(king.file(), rook.file());
            let (king_file, rook_file) = side.destination_files();
            let files = [king.file(), rook.file(), king_file, rook_file];
            let (low, high) = (*files.iter().min().unwrap(), *files.iter().max().unwrap());
            (low..=high).all(|file| {
                let square = gpu_movegen::Square::new(file, king.rank());
                square == king || square == *rook || !occupied.contains(square)
            })
        })
        .map(|rook| Move::new(king, rook, MoveKind::Castling))
        .collect()
}

/// A variant position's legal moves, with the variant bugs' changes.
fn variant_moves(position: &VariantPosition, bug: Bug) -> Vec<Move> {
    let mut list: Vec<Move> = position.legal_moves().to_vec();
    match bug {
        Bug::CrazyhouseNoPawnDrops => list.retain(|mv| mv.dropped() != Some(Piece::Pawn)),
        Bug::AtomicKingCaptures if position.variant() == Variant::Atomic => {
            let board = position.board();
            let us = board.side_to_move();
            for king in board.pieces_of(us, Piece::King) {
                for target in gpu_movegen::tables::king_attacks(king) & board.colored(!us) {
                    list.push(Move::new(king, target, MoveKind::Normal));
                }
            }
        }
        _ => {}
    }
    list
}

fn variant_perft(position: &VariantPosition, depth: u32, bug: Bug) -> u64 {
    if depth == 0 {
        return 1;
    }
    variant_moves(position, bug).iter().map(|mv| variant_perft(&position.make_move(*mv), depth - 1, bug)).sum()
}

fn perft(position: &Position, depth: u32, bug: Bug) -> u64 {
    if depth == 0 {
        return 1;
    }
    moves(position, bug).iter().map(|mv| perft(&position.make_move(*mv), depth - 1, bug)).sum()
}

/// The divide as (move text, count) lines, with the bug's change.
fn divide(position: &Position, depth: u32, bug: Bug, chess960: bool) -> Vec<(String, String)> {
    let mut lines: Vec<(String, String)> = moves(position, bug)
        .iter()
        .map(|mv| (mv.uci(chess960).to_string(), perft(&position.make_move(*mv), depth - 1, bug).to_string()))
        .collect();
    if bug == Bug::NonsenseMove && *position == Position::start() {
        lines.push(("e2e5".to_owned(), "1".to_owned()));
    }
    if bug == Bug::GarbageCount
        && let Some(first) = lines.first_mut()
    {
        first.1 = "many".to_owned();
    }
    if bug == Bug::HugeCount
        && let Some(first) = lines.first_mut()
    {
        first.1 = "9".repeat(100_000_000);
    }
    lines.sort();
    lines
}

fn play(fen: &str, moves: &[&str]) -> Position {
    let mut position = Position::from_fen(fen).expect("a valid FEN");
    for text in moves {
        let mv = position.parse_uci_move(text).expect("a legal move");
        position = position.make_move(mv);
    }
    position
}

/// What a bug does before an answer: exit, hang, flood, or leave a child
/// behind that holds the engine's output.
fn counted(bug: Bug) {
    match bug {
        Bug::Die => std::process::exit(3),
        Bug::Hang => std::thread::sleep(std::time::Duration::from_secs(3600)),
        Bug::Flood => {
            let mut stdout = std::io::stdout();
            while writeln!(stdout, "info string still thinking").is_ok() {}
            std::process::exit(0);
        }
        Bug::OrphanSilent => {
            leave_orphan();
            std::process::exit(0);
        }
        _ => {}
    }
}

/// Starts a child that inherits stdout and outlives this process.
fn leave_orphan() {
    // Never waited for, on purpose: it is meant to outlive this process.
    #[allow(clippy::zombie_processes)]
    std::process::Command::new("sleep").arg("3600").spawn().expect("sleep starts");
}

/// The total the engine reports for `lines`, with the bug's change.
fn total(lines: &[(String, String)], bug: Bug) -> u64 {
    let sum: u64 = lines.iter().map(|(_, count)| count.parse::<u64>().unwrap_or(0)).sum();
    if bug == Bug::WrongTotal { sum + 1 } else { sum }
}

fn uci(bug: Bug) {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    let mut position = Position::start();
    let mut chess960 = false;
    let mut variant = Variant::Chess;
    let mut variant_position = VariantPosition::start(Variant::Chess);
    for line in stdin.lock().lines() {
        let line = line.expect("stdin is text");
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["uci"] => writeln!(stdout, "id name planted-bugs\nuciok").unwrap(),
            ["isready"] => writeln!(stdout, "readyok").unwrap(),
            ["setoption", "name", "UCI_Chess960", "value", value] => chess960 = *value == "true",
            ["setoption", "name", "UCI_Variant", "value", value] => {
                variant = value.parse().expect("a variant");
                variant_position = VariantPosition::start(variant);
            }
            ["position", "startpos", rest @ ..] if variant != Variant::Chess => {
                variant_position =
                    play_variant(variant, variant.start_fen(), rest.strip_prefix(&["moves"]).unwrap_or(&[]));
            }
            ["position", "fen", rest @ ..] if variant != Variant::Chess => {
                let split = rest.iter().position(|word| *word == "moves").unwrap_or(rest.len());
                let moves = if split < rest.len() { &rest[split + 1..] } else { &[][..] };
                variant_position = play_variant(variant, &rest[..split].join(" "), moves);
            }
            ["position", "startpos", rest @ ..] => {
                position = play(gpu_movegen::START_FEN, rest.strip_prefix(&["moves"]).unwrap_or(&[]));
            }
            ["position", "fen", rest @ ..] => {
                let split = rest.iter().position(|word| *word == "moves").unwrap_or(rest.len());
                let moves = if split < rest.len() { &rest[split + 1..] } else { &[][..] };
                position = play(&rest[..split].join(" "), moves);
            }
            ["go", "perft", depth] if variant != Variant::Chess => {
                let depth: u32 = depth.parse().expect("a depth");
                counted(bug);
                let mut lines: Vec<(String, u64)> = variant_moves(&variant_position, bug)
                    .iter()
                    .map(|mv| {
                        (mv.uci(chess960).to_string(), variant_perft(&variant_position.make_move(*mv), depth - 1, bug))
                    })
                    .collect();
                lines.sort();
                for (mv, count) in &lines {
                    writeln!(stdout, "{mv}: {count}").unwrap();
                }
                writeln!(stdout, "\nNodes searched: {}\n", lines.iter().map(|(_, count)| count).sum::<u64>()).unwrap();
            }
            ["go", "perft", depth] => {
                let depth: u32 = depth.parse().expect("a depth");
                counted(bug);
                let lines = divide(&position, depth, bug, chess960 || position.is_chess960());
                let total = total(&lines, bug);
                for (mv, count) in lines {
                    writeln!(stdout, "{mv}: {count}").unwrap();
                }
                if bug == Bug::Binary {
                    stdout.write_all(b"e2e4: \xff\xfe\n").unwrap();
                }
                writeln!(stdout, "\nNodes searched: {total}\n").unwrap();
            }
            ["quit"] => return,
            _ => {}
        }
        stdout.flush().unwrap();
    }
}

fn play_variant(variant: Variant, fen: &str, moves: &[&str]) -> VariantPosition {
    let mut position = VariantPosition::from_fen(variant, fen).expect("a valid FEN");
    for text in moves {
        let mv = position.parse_uci_move(text).expect("a legal move");
        position = position.make_move(mv);
    }
    position
}

fn main() {
    let bug = Bug::from_environment();
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    if arguments.first().map(String::as_str) == Some("--uci") {
        return uci(bug);
    }
    let [depth, fen, rest @ ..] = arguments.as_slice() else {
        eprintln!("usage: planted_bugs --uci | planted_bugs DEPTH FEN [MOVES]");
        std::process::exit(2);
    };
    let depth: u32 = depth.parse().expect("a depth");
    let moves: Vec<&str> = rest.iter().flat_map(|moves| moves.split_whitespace()).collect();
    let position = play(fen, &moves);
    counted(bug);
    let lines = divide(&position, depth, bug, position.is_chess960());
    let total = total(&lines, bug);
    let mut stdout = std::io::stdout();
    for (mv, count) in &lines {
        writeln!(stdout, "{mv} {count}").unwrap();
    }
    if bug == Bug::Binary {
        stdout.write_all(b"e2e4 \xff\xfe\n").unwrap();
    }
    if bug != Bug::Truncated {
        writeln!(stdout, "\n{total}").unwrap();
    }
    stdout.flush().unwrap();
    if bug == Bug::Orphan {
        leave_orphan();
    }
}
