//! The streaming SGF reader against a tree-building one (the `sgf-parse`
//! crate, which the reader replaced) on thousands of generated games with
//! setup, variations, passes and comments; and the files that broke the
//! tree builder (deep sequences, deep variations, a 60 MiB file), read in
//! bounded time without a stack overflow.

use gpu_movegen::go::position::MAX_SIZE;
use gpu_movegen::go::sgf::{SgfError, SgfGame, read_sgf, read_sgf_until};
use gpu_movegen::go::{Color, Move, Point, Position};
use rand::{Rng, SeedableRng};
use sgf_parse::go::{Move as SgfMove, Point as SgfPoint, Prop};

/// The reader this crate used before, built on `sgf-parse`: the reference.
fn reference(text: &str, stop_before: Option<usize>) -> Result<SgfGame, SgfError> {
    let games = sgf_parse::go::parse(text).map_err(|error| SgfError::Parse { line: 0, problem: error.to_string() })?;
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

/// Whether two results agree: the same game, or the same kind of refusal.
fn agree(streaming: &Result<SgfGame, SgfError>, tree: &Result<SgfGame, SgfError>) -> bool {
    match (streaming, tree) {
        (Ok(first), Ok(second)) => first == second,
        (Err(first), Err(second)) => std::mem::discriminant(first) == std::mem::discriminant(second),
        _ => false,
    }
}

fn letter(coordinate: u8) -> char {
    (b'a' + coordinate) as char
}

/// A random Go game in SGF: a root with size, komi, maybe setup and a
/// player, a main line of legal moves and passes (some as "tt"), comments
/// with escapes, and variations hanging off the line.
fn random_game(random: &mut rand_chacha::ChaCha8Rng) -> String {
    let size = [5u32, 7, 9, 13, 19][random.random_range(0..5)];
    let mut text = format!("(;FF[4]GM[1]SZ[{size}]KM[{}.5]", random.random_range(-3i32..8));
    let mut position = Position::new(size).unwrap();
    if random.random_bool(0.3) {
        let x = random.random_range(1..size as u8 - 1);
        let y = random.random_range(1..size as u8 - 1);
        text += &format!("AB[{}{}]", letter(x), letter(y));
        position.set_stone(Point { x, y: (size - 1) as u8 - y }, Some(Color::Black));
        if random.random_bool(0.5) {
            text += &format!("AW[{}{}:{}{}]", letter(0), letter(0), letter(1), letter(0));
            for column in 0..2 {
                position.set_stone(Point { x: column, y: (size - 1) as u8 }, Some(Color::White));
            }
        }
    }
    if random.random_bool(0.2) {
        text += "PL[W]";
        position.set_to_move(Color::White);
    }
    text += "C[a comment with \\] and ( ; brackets]";
    let moves = random.random_range(0..60);
    let mut open = 0;
    for _ in 0..moves {
        if random.random_bool(0.1) {
            // A variation starts here; the main line continues in it.
            text += "\n(";
            open += 1;
        }
        let color = position.to_move();
        let points = position.legal_points(color);
        let name = if color == Color::Black { "B" } else { "W" };
        if points.is_empty() || random.random_bool(0.05) {
            let pass = if size <= 19 && random.random_bool(0.5) { "tt" } else { "" };
            text += &format!(";{name}[{pass}]");
            position.play_move(Move { color, point: None }).unwrap();
        } else {
            let point = points[random.random_range(0..points.len())];
            text += &format!(";{name}[{}{}]", letter(point.x), letter((size - 1) as u8 - point.y));
            position.play_move(Move { color, point: Some(point) }).unwrap();
        }
    }
    for _ in 0..open {
        text += ")(;B[aa];W[bb](;B[])(;B[tt]))";
    }
    text + ")"
}

#[test]
fn the_streaming_reader_reads_what_the_tree_builder_reads() {
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(35);
    for game in 0..3000 {
        let text = random_game(&mut random);
        let streaming = read_sgf(&text);
        assert!(streaming.is_ok(), "game {game}: {streaming:?}\n{text}");
        assert!(agree(&streaming, &reference(&text, None)), "game {game}:\n{text}");
        let stop = random.random_range(1..40);
        assert!(agree(&read_sgf_until(&text, Some(stop)), &reference(&text, Some(stop))), "game {game}, stop {stop}");
        // A cut or a changed byte: both refuse, or both read the same game.
        let bytes = text.as_bytes();
        let cut = random.random_range(0..bytes.len());
        let mut mutated = bytes[..cut].to_vec();
        mutated.push(b"[];()ABWtz:"[random.random_range(0..11)]);
        mutated.extend_from_slice(&bytes[cut + random.random_range(0..2).min(bytes.len() - cut)..]);
        let mutated = String::from_utf8(mutated).unwrap();
        let (streaming, tree) = (read_sgf(&mutated), reference(&mutated, None));
        // The tree builder reads a few things more leniently (a value left
        // open at the end); both must at least never give different games.
        if let (Ok(first), Ok(second)) = (&streaming, &tree) {
            assert_eq!(first, second, "game {game} mutated:\n{mutated}");
        }
    }
}

#[test]
fn refusals_name_the_problem() {
    let error = |text: &str| read_sgf(text).unwrap_err().to_string();
    assert_eq!(error(""), "not SGF: line 1: no game tree: SGF starts with '('");
    assert_eq!(error("not sgf"), "not SGF: line 1: a property where '(' was expected");
    assert_eq!(error("(;SZ[9]\n;B[aa"), "not SGF: line 2: a value is never closed with ']'");
    assert_eq!(
        error("(;SZ[9](;B[aa]);W[bb])"),
        "not SGF: line 1: ';' where '(' or ')' (nodes come before variations) was expected"
    );
    assert_eq!(error("(;SZ[9];B[aa]"), "not SGF: line 1: the file ends inside a game tree");
    assert_eq!(error("(;GM[3]SZ[9])"), "GM[3]: the first game is not Go (GM[1])");
    assert_eq!(error("(;SZ[9]KM[six])"), "node 1: property KM has an invalid value");
    assert_eq!(error("(;SZ[9];B[aa][bb])"), "node 2: property B has an invalid value");
    assert_eq!(error("(;SZ[9]AB[tt])"), "node 1: point 19,19 is off the 9x9 board");
    assert_eq!(error("(;SZ[9] \u{7f})"), "not SGF: line 1: \\u{7f} where SGF has no place for it");
    // Setup past the rectangle's corner, and a rectangle set row by row.
    let game = read_sgf("(;SZ[5]AddBlack[aa:ec]AE[bb:db];B[ae])").unwrap();
    // 15 set, 3 cleared, 1 played.
    assert_eq!(game.position.stones(Color::Black).len(), 13);
    assert_eq!(read_sgf("(;SZ[9]KM[-0])").unwrap().komi.to_string(), "0");
}

#[test]
fn deep_and_large_files_are_read_without_overflow() {
    // 140,000 passes in one sequence, and 140,000 nested variations.
    let sequence = format!("(;SZ[19]{})", ";B[]".repeat(140_000));
    assert_eq!(read_sgf(&sequence).unwrap().moves, 140_000);
    let nested = format!("(;SZ[9]{}{}", "(;".repeat(140_000), ")".repeat(140_001));
    assert_eq!(read_sgf(&nested).unwrap().moves, 0);
    // 60 MiB of empty properties in one root node, and as many setup
    // rectangles: read in one pass, each value a few steps.
    let empty = format!("(;SZ[19]C{})", "[]".repeat(30 << 20));
    assert_eq!(read_sgf(&empty).unwrap().moves, 0);
    let setup = format!("(;SZ[19]AE{})", "[aa:ss]".repeat(8 << 20));
    assert_eq!(read_sgf(&setup).unwrap().position.empty_point_count(), 361);
}
