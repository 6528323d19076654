//! The Go CPU reference: published perft counts, the eye rule in corners,
//! on edges and in the centre, ko, suicide, captures, scoring, SGF input,
//! playouts, and bad input.

use gpu_movegen::go::perft::{divide, perft, perft_parallel};
use gpu_movegen::go::playout::{playouts, random_positions};
use gpu_movegen::go::sgf::{SgfError, read_sgf};
use gpu_movegen::go::{Color, GoError, Move, Point, Position};

fn published() -> Vec<(u32, u32, u64)> {
    include_str!("data/go_perft.txt")
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<u64> = line.split_whitespace().map(|field| field.parse().unwrap()).collect();
            (fields[0] as u32, fields[1] as u32, fields[2])
        })
        .collect()
}

#[test]
fn empty_board_perft_matches_the_published_counts() {
    let counts = published();
    assert_eq!(counts.len(), 15);
    for (size, depth, expected) in counts {
        let empty = Position::new(size).unwrap();
        assert_eq!(perft_parallel(&empty, depth), expected, "{size}x{size} perft({depth})");
    }
}

#[test]
fn perft_zero_is_the_root_alone_on_every_path() {
    // perft_parallel once counted 0 here: it summed a divide, which has no moves at depth 0.
    for size in [2, 5, 9, 19] {
        let empty = Position::new(size).unwrap();
        assert_eq!(perft(&empty, 0), 1, "{size}x{size}");
        assert_eq!(perft_parallel(&empty, 0), 1, "{size}x{size}");
    }
}

#[test]
fn perft_and_divide_agree_after_moves() {
    let position = Position::from_moves(5, "B C3 W C2 B B2 W D3 B D2 W C4 B B3").unwrap();
    let divided = divide(&position, 3);
    assert_eq!(divided.iter().map(|(_, count)| count).sum::<u64>(), perft(&position, 3));
    assert_eq!(divided.len() as u64, perft(&position, 1));
}

/// A position from a diagram: rows top first, `X` black, `O` white, `.` empty.
fn diagram(rows: &[&str], to_move: Color) -> Position {
    let size = rows.len() as u32;
    let mut position = Position::new(size).unwrap();
    for (row, text) in rows.iter().enumerate() {
        for (x, mark) in text.chars().filter(|mark| !mark.is_whitespace()).enumerate() {
            let point = Point { x: x as u8, y: (size as usize - 1 - row) as u8 };
            match mark {
                'X' => position.set_stone(point, Some(Color::Black)),
                'O' => position.set_stone(point, Some(Color::White)),
                _ => {}
            }
        }
    }
    position.set_to_move(to_move);
    position
}

fn vertices(points: &[Point]) -> Vec<String> {
    points.iter().map(ToString::to_string).collect()
}

#[test]
fn eyes_in_the_corner_need_the_inner_diagonal() {
    // A1 is surrounded by black on A2 and B1; B2 decides.
    let with = diagram(&[".....", ".....", ".....", "XX...", ".XX.."], Color::Black);
    assert_eq!(vertices(&with.eye_points(Color::Black)), ["A1"]);
    assert!(!with.playout_points(Color::Black).contains(&Point { x: 0, y: 0 }));
    assert!(with.legal_points(Color::Black).contains(&Point { x: 0, y: 0 }), "filling an eye is legal");
    let without = diagram(&[".....", ".....", ".....", "X....", ".X..."], Color::Black);
    assert!(without.eye_points(Color::Black).is_empty());
    let enemy_diagonal = diagram(&[".....", ".....", ".....", "XO...", ".X..."], Color::Black);
    assert!(enemy_diagonal.eye_points(Color::Black).is_empty());
}

#[test]
fn eyes_on_the_edge_need_both_diagonals() {
    // C1 with black on B1, D1, C2; diagonals B2 and D2.
    let both = diagram(&[".....", ".....", ".....", ".XXX.", ".X.X."], Color::Black);
    assert_eq!(vertices(&both.eye_points(Color::Black)), ["C1"]);
    let one = diagram(&[".....", ".....", ".....", ".XXO.", ".X.X."], Color::Black);
    assert!(one.eye_points(Color::Black).is_empty());
    let one_empty = diagram(&[".....", ".....", ".....", "..XX.", ".X.X."], Color::Black);
    assert!(one_empty.eye_points(Color::Black).is_empty());
}

#[test]
fn eyes_in_the_centre_need_two_of_four_diagonals() {
    let two = diagram(&[".....", ".XXX.", ".X.X.", "..X..", "....."], Color::Black);
    assert_eq!(vertices(&two.eye_points(Color::Black)), ["C3"]);
    let one = diagram(&[".....", "..X..", ".X.X.", "..X..", "...X."], Color::Black);
    assert_eq!(vertices(&one.eye_points(Color::Black)), Vec::<String>::new());
    let white_diagonals = diagram(&[".....", ".XXX.", ".X.X.", ".OXO.", "....."], Color::Black);
    assert_eq!(vertices(&white_diagonals.eye_points(Color::Black)), ["C3"]);
    // The eye is black's, not white's.
    assert!(two.eye_points(Color::White).is_empty());
}

#[test]
fn suicide_is_illegal_unless_it_captures() {
    let position = diagram(&[".....", ".....", ".....", "O....", ".O..."], Color::Black);
    let corner = Point { x: 0, y: 0 };
    assert_eq!(position.check_move(Color::Black, corner), Err(GoError::Suicide(corner)));
    assert!(position.is_legal(Color::White, corner));
    // Black A1 captures the white stone on A2 that is in atari.
    let capture = diagram(&[".....", ".....", "X....", "OX...", ".O..."], Color::Black);
    assert!(capture.is_legal(Color::Black, corner));
    let mut played = capture;
    assert_eq!(played.play_move(Move { color: Color::Black, point: Some(corner) }), Ok(1));
    assert_eq!(played.stone(Point { x: 0, y: 1 }), None);
    assert_eq!(played.captures(Color::Black), 1);
}

#[test]
fn ko_forbids_the_immediate_recapture_only() {
    // Black D3 takes the white stone on C3 and is left in atari on C3 alone.
    let mut position = Position::from_moves(5, "B B3 W D4 B C4 W D2 B C2 W E3 B pass W C3 B D3").unwrap();
    assert_eq!(position.stone(Point { x: 2, y: 2 }), None, "black D3 captured C3");
    let ko = Point { x: 2, y: 2 };
    assert_eq!(position.ko(), Some(ko));
    assert_eq!(position.check_move(Color::White, ko), Err(GoError::Ko(ko)));
    assert!(!position.legal_points(Color::White).contains(&ko));
    position.play_move(Move { color: Color::White, point: Some(Point { x: 4, y: 4 }) }).unwrap();
    position.play_move(Move { color: Color::Black, point: Some(Point { x: 0, y: 0 }) }).unwrap();
    assert!(position.is_legal(Color::White, ko), "after a move elsewhere the ko may be taken");
}

#[test]
fn area_scoring_counts_stones_and_surrounded_points() {
    let position = diagram(&["..X..", "..XO.", "..XO.", "..XO.", "..XO."], Color::Black);
    // Black: 5 stones and the 10 points on the left; white: 4 stones, and
    // the region on the right reaches C5 through D5, so it is nobody's.
    assert_eq!(position.area_difference(), 15 - 4);
    let split = diagram(&["..XO.", "..XO.", "..XO.", "..XO.", "..XO."], Color::Black);
    assert_eq!(split.area_difference(), 15 - 10);
}

#[test]
fn playouts_are_reproducible_and_end_by_the_rules() {
    let position = Position::new(9).unwrap();
    let first = playouts(&position, 200, 7, 0);
    assert_eq!(first, playouts(&position, 200, 7, 0));
    assert_ne!(first, playouts(&position, 200, 8, 0));
    for result in &first {
        assert!(result.moves <= 3 * 81);
        assert!(result.area_difference.abs() <= 81);
    }
    // Light playouts from the empty board end with both sides' eyes, not a full board.
    assert!(first.iter().all(|result| result.moves >= 40));
}

#[test]
fn random_positions_contain_captures_and_kos() {
    for size in [9, 13, 19] {
        let positions = random_positions(size, 600, 3).unwrap();
        assert!(positions.iter().any(|position| position.ko().is_some()), "{size}: a ko");
        assert!(positions.iter().any(|position| position.captures(Color::Black) + position.captures(Color::White) > 0));
        for position in &positions {
            assert_eq!(position.first_dead_stone(), None);
        }
    }
}

#[test]
fn bad_input_is_named() {
    assert_eq!(Position::new(20), Err(GoError::Size(20)));
    assert_eq!(Position::new(1), Err(GoError::Size(1)));
    let board = Position::new(9).unwrap();
    assert!(matches!(board.parse_vertex("J10"), Err(GoError::OffBoard { .. })));
    assert!(matches!(board.parse_vertex("I5"), Err(GoError::Vertex(_))));
    assert!(matches!(board.parse_vertex("E+5"), Err(GoError::Vertex(_))));
    assert!(matches!(board.parse_vertex(""), Err(GoError::Vertex(_))));
    assert_eq!(board.parse_vertex("j9"), Ok(Some(Point { x: 8, y: 8 })));
    let error = Position::from_moves(9, "B E5 W E5").unwrap_err();
    assert_eq!(error.to_string(), "move 2 (W E5): E5 is occupied");
    assert!(matches!(Position::from_moves(9, "B E5 W"), Err(GoError::UnpairedMove(_))));
    assert!(matches!(Position::from_moves(9, "R E5"), Err(GoError::InMoves { .. })));
}

#[test]
fn sgf_main_line_setup_and_komi() {
    let game = read_sgf("(;FF[4]GM[1]SZ[9]KM[6.5]AB[aa][bb]AW[cc];W[ee];B[]C[pass](;W[de])(;W[ff]))").unwrap();
    assert_eq!(game.komi, 6.5);
    assert_eq!(game.moves, 3);
    let position = game.position;
    assert_eq!(position.size(), 9);
    // SGF "aa" is the top-left corner, A9.
    assert_eq!(position.stone(Point { x: 0, y: 8 }), Some(Color::Black));
    assert_eq!(position.stone(Point { x: 4, y: 4 }), Some(Color::White));
    assert_eq!(position.stone(Point { x: 3, y: 4 }), Some(Color::White), "the main line is the first variation");
    assert_eq!(position.to_move(), Color::Black);
    let played = read_sgf("(;SZ[5]PL[W])").unwrap();
    assert_eq!(played.position.to_move(), Color::White);
    assert!(matches!(read_sgf("(;SZ[9:7])"), Err(SgfError::Size(9, 7))));
    assert!(matches!(read_sgf("not sgf"), Err(SgfError::Parse { .. })));
    assert!(matches!(read_sgf("(;SZ[5];B[cc];W[cc])"), Err(SgfError::IllegalMove { node: 3, .. })));
    assert!(matches!(read_sgf("(;SZ[5];B[zz])"), Err(SgfError::OffBoard { .. })));
    assert!(matches!(read_sgf("(;SZ[5]AB[ab][ba]AW[aa])"), Err(SgfError::DeadSetup { .. })));
}

#[test]
fn the_fast_playout_plays_the_bitmap_playout() {
    use gpu_movegen::go::bitmap::{Geometry, words_for};
    use gpu_movegen::go::board::Board;
    use gpu_movegen::go::chains::{Chains, fast_playout};
    use gpu_movegen::go::playout::playout;
    use gpu_movegen::random::ShaderRandom;

    fn check<const W: usize>(size: u32) {
        assert_eq!(words_for(size), W);
        let geometry = Geometry::<W>::new(size);
        let mut starts = vec![Board::<W>::EMPTY];
        starts.extend(random_positions(size, 200, 9).unwrap().iter().step_by(7).map(|position| {
            let words = |color: Color| {
                let all = position.stone_words(color);
                gpu_movegen::go::bitmap::Bitmap::<W>(std::array::from_fn(|index| all[index]))
            };
            Board {
                stones: [words(Color::Black), words(Color::White)],
                ko: position.ko_bit().map_or(gpu_movegen::go::board::NO_KO, |bit| bit as u16),
                to_move: position.to_move(),
            }
        }));
        let mut chains = Chains::default();
        for (index, start) in starts.iter().enumerate() {
            for stream in 0..20 {
                let reference = playout(&geometry, *start, &mut ShaderRandom::new(1, stream));
                let fast = fast_playout(&geometry, *start, &mut chains, &mut ShaderRandom::new(1, stream));
                assert_eq!(fast, reference, "{size}x{size}, start {index}, stream {stream}");
            }
        }
    }
    check::<1>(5);
    check::<2>(9);
    check::<3>(13);
    check::<6>(19);
}
