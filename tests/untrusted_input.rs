//! Input from outside never panics: random bytes and mutated valid input
//! fed to the GTP engine, the SGF reader, Go move lists and vertices, and
//! the work-unit, manifest and result files (also with a valid checksum, so
//! that the parsers behind it are reached).

use gpu_movegen::chess::units;
use gpu_movegen::go::Position;
use gpu_movegen::go::gtp::{COMMANDS, CpuPlayouts, GtpEngine, PlayoutBatch, SearchSettings};
use gpu_movegen::go::sgf::read_sgf;
use proptest::prelude::*;
use sha2::{Digest, Sha256};

fn engine() -> GtpEngine<CpuPlayouts> {
    GtpEngine::new(CpuPlayouts, SearchSettings { playouts: 8, time: None, seed: 1, resign: true })
}

/// A GTP line: a known command with arbitrary words, or anything at all.
fn gtp_line() -> impl Strategy<Value = String> {
    // Every command the engine knows (quit would end the session), and one it does not.
    let mut names: Vec<&str> = COMMANDS.iter().copied().filter(|name| *name != "quit").collect();
    names.push("frobnicate");
    let commands = prop::sample::select(names);
    let word = prop::sample::select(vec![
        "b", "w", "black", "WHITE", "x", "pass", "A1", "e5", "T19", "J10", "Z99", "I3", "5", "0", "19", "25", "-1",
        "6.5", "nan", "inf", "1e400", "", "#", "\t", "\u{7}", "é",
    ]);
    prop_oneof![
        (prop::option::of(0u32..100), commands, prop::collection::vec(word, 0..4)).prop_map(|(id, command, words)| {
            let id = id.map_or(String::new(), |id| format!("{id} "));
            format!("{id}{command} {}", words.join(" "))
        }),
        any::<String>(),
    ]
}

fn with_checksum(body: &str) -> String {
    let digest: String = Sha256::digest(body.as_bytes()).iter().map(|byte| format!("{byte:02x}")).collect();
    format!("{body}checksum {digest}\n")
}

fn temporary(name: &str) -> std::path::PathBuf {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-untrusted-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

/// The replies of a session, split at the blank line that ends each.
fn served(input: &[u8]) -> Vec<String> {
    let mut output = Vec::new();
    engine().serve(input, &mut output).expect("in-memory streams do not fail");
    let text = String::from_utf8(output).expect("replies are UTF-8");
    assert!(text.is_empty() || text.ends_with("\n\n"), "{text:?}");
    text.split_terminator("\n\n").map(str::to_owned).collect()
}

#[test]
fn gtp_survives_bytes_that_are_not_utf8_and_overlong_lines() {
    let replies = served(b"name\nplay b \xe9\n\xff\xfe\n2 name\n");
    assert_eq!(replies, ["= gpu-movegen", "? invalid UTF-8", "? invalid UTF-8", "=2 gpu-movegen"]);
    let mut long = b"name\n".to_vec();
    long.extend(std::iter::repeat_n(b'a', 3 * gpu_movegen::go::gtp::MAX_LINE_BYTES));
    long.extend(b"\nversion\n");
    let replies = served(&long);
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!(replies[1], "? line too long");
    assert!(replies[2].starts_with("= "), "{replies:?}");
    // An overlong last line without its newline ends the session cleanly.
    assert_eq!(served(&vec![b'x'; 2 * gpu_movegen::go::gtp::MAX_LINE_BYTES]), ["? line too long"]);
}

/// A runner whose failure message spans lines with blank ones between.
struct FailingRunner;

impl gpu_movegen::go::gtp::PlayoutRunner for FailingRunner {
    fn run(&mut self, _: &[Position], _: PlayoutBatch) -> Result<Vec<gpu_movegen::go::PlayoutResult>, String> {
        Err("the device failed\n\nsee above\n".to_owned())
    }
}

#[test]
fn a_reply_is_one_block_whatever_the_error_says() {
    let mut engine = GtpEngine::new(FailingRunner, SearchSettings { playouts: 8, time: None, seed: 1, resign: true });
    let mut output = Vec::new();
    engine.serve(&b"boardsize 9\n7 genmove b\nname\n"[..], &mut output).unwrap();
    let text = String::from_utf8(output).unwrap();
    let replies: Vec<&str> = text.split_terminator("\n\n").collect();
    assert_eq!(replies.len(), 3, "{text:?}");
    assert!(replies[1].starts_with("?7 ") && !replies[1].contains('\n'), "{text:?}");
    assert!(replies[1].contains("the device failed") && replies[1].contains("see above"), "{text:?}");
    assert_eq!(replies[2], "= gpu-movegen");
}

/// A runner that records each call's size and stream range, and answers
/// with draws-free dummy results.
#[derive(Default)]
struct CountingRunner {
    calls: Vec<(usize, u32, u32)>,
}

impl gpu_movegen::go::gtp::PlayoutRunner for CountingRunner {
    fn run(
        &mut self,
        positions: &[Position],
        batch: PlayoutBatch,
    ) -> Result<Vec<gpu_movegen::go::PlayoutResult>, String> {
        let PlayoutBatch { per_position, first_stream, .. } = batch;
        self.calls.push((positions.len(), per_position, first_stream));
        Ok(vec![
            gpu_movegen::go::PlayoutResult { area_difference: 1, moves: 1 };
            positions.len() * per_position as usize
        ])
    }
}

#[test]
fn genmove_runs_the_largest_playout_count_in_bounded_rounds() {
    let mut engine = GtpEngine::new(
        CountingRunner::default(),
        SearchSettings { playouts: 100_000_000, time: None, seed: 1, resign: true },
    );
    let mut output = Vec::new();
    engine.serve(&b"boardsize 9\ngenmove b\n"[..], &mut output).unwrap();
    assert!(String::from_utf8(output).unwrap().ends_with("\n\n"));
    let calls = &engine.runner().calls;
    // 82 candidates (81 points and the pass) of 1,219,512 playouts each, in
    // rounds of at most 2^20 in all.
    assert!(calls.len() > 90, "{} rounds", calls.len());
    let mut streams_seen = 0u64;
    for (at, (positions, per_position, first_stream)) in calls.iter().enumerate() {
        assert_eq!(*positions, 82);
        assert!(positions * (*per_position as usize) <= 1 << 20, "round {at}: {positions} × {per_position}");
        // Each round's streams follow the last round's: no playout repeats another.
        assert_eq!(u64::from(*first_stream), streams_seen, "round {at}");
        streams_seen += (*positions as u64) * u64::from(*per_position);
    }
    assert_eq!(streams_seen, 82 * (100_000_000 / 82));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn gtp_survives_any_bytes_and_answers_the_next_command(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        // Without a quit among them, the command after the bytes is answered.
        let quits = String::from_utf8_lossy(&bytes).to_ascii_lowercase().contains("quit");
        let mut input = bytes;
        input.extend_from_slice(b"\nname\n");
        let replies = served(&input);
        for reply in &replies {
            prop_assert!(reply.starts_with('=') || reply.starts_with('?'), "{replies:?}");
        }
        if !quits {
            prop_assert_eq!(replies.last().map(String::as_str), Some("= gpu-movegen"));
        }
    }

    #[test]
    fn gtp_answers_every_line_and_keeps_answering(lines in prop::collection::vec(gtp_line(), 1..12)) {
        let mut engine = engine();
        for line in &lines {
            if let Some(reply) = engine.handle(line) {
                prop_assert!(reply.text.starts_with('=') || reply.text.starts_with('?'), "{line:?}: {:?}", reply.text);
                prop_assert!(reply.text.ends_with("\n\n"), "{line:?}: {:?}", reply.text);
            }
        }
        prop_assert!(engine.handle("protocol_version").unwrap().text == "= 2\n\n");
    }

    #[test]
    fn sgf_of_random_text_is_refused_or_read(text in any::<String>()) {
        let _ = read_sgf(&text);
    }

    #[test]
    fn mutated_sgf_is_refused_or_read(cut in 0usize..80, insert in "[A-Za-z\\[\\]\\(\\);:0-9]{0,6}") {
        let valid = "(;FF[4]GM[1]SZ[9]KM[6.5]AB[aa][bb]AW[cc]PL[W];W[ee];B[];W[dd](;B[ff])(;B[gg]))";
        let at = cut.min(valid.len());
        let text = format!("{}{insert}{}", &valid[..at], &valid[at..]);
        let _ = read_sgf(&text);
    }

    #[test]
    fn go_moves_and_vertices_of_random_text(size in 0u32..30, text in any::<String>(), vertex in any::<String>()) {
        let _ = Position::from_moves(size, &text);
        if let Ok(position) = Position::new(size) {
            let _ = position.parse_vertex(&vertex);
        }
    }

    #[test]
    fn unit_files_of_random_bytes_are_refused(bytes in prop::collection::vec(any::<u8>(), 0..400), checksummed in any::<bool>()) {
        let folder = temporary("bytes");
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let contents = if checksummed { with_checksum(&text) } else { text };
        let unit = folder.join("unit-0000");
        std::fs::write(&unit, &contents).unwrap();
        std::fs::write(folder.join(units::MANIFEST), &contents).unwrap();
        std::fs::write(units::result_path(&unit), &contents).unwrap();
        let _ = units::read_unit(&unit);
        let _ = units::read_manifest(&folder);
        let _ = units::read_result(&units::result_path(&unit), "0");
        let _ = units::merge(&folder);
    }

    #[test]
    fn checksummed_headers_with_any_numbers_are_refused_or_read(
        count in any::<u64>(), depth in any::<u32>(), split in any::<u32>(), nodes in any::<u128>(),
    ) {
        let folder = temporary("headers");
        let unit = folder.join("unit-0000");
        let body = format!(
            "gpu-movegen perft unit 1\nroot x\ndepth {depth}\nsplit-depth {split}\nunit 0 of 1\npositions {count}\n\
             rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 {count}\n"
        );
        std::fs::write(&unit, with_checksum(&body)).unwrap();
        let _ = units::read_unit(&unit);
        let manifest = format!(
            "gpu-movegen perft manifest 1\nroot x\ndepth {depth}\nsplit-depth {split}\nunits {count}\npositions {count}\n\
             sequences {nodes}\nunit unit-0000 ab\n"
        );
        std::fs::write(folder.join(units::MANIFEST), with_checksum(&manifest)).unwrap();
        let _ = units::read_manifest(&folder);
        let result = format!("gpu-movegen perft result 1\nunit unit-0000 ab\nnodes {nodes}\n");
        std::fs::write(units::result_path(&unit), with_checksum(&result)).unwrap();
        let _ = units::read_result(&units::result_path(&unit), "ab");
        let _ = units::merge(&folder);
    }
}
