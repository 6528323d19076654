//! The Go CPU reference against GNU Go, a real peer: seeded random games
//! are played through both engines over GTP, and after every move the legal
//! points of the side to move (GNU Go's `all_legal`) must be the same, on
//! 9×9, 13×13 and 19×19. GNU Go comes from Debian's `gnugo` package, which
//! scripts/test and .ci/run install; without it this test fails.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use gpu_movegen::go::{Color, Move, Position};
use rand::{Rng, SeedableRng};

struct GnuGo {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl GnuGo {
    fn start() -> GnuGo {
        GnuGo::start_with(&["--level", "0"])
    }

    fn start_with(arguments: &[&str]) -> GnuGo {
        let program = ["/usr/games/gnugo", "gnugo"]
            .into_iter()
            .find(|program| Command::new(program).arg("--version").output().is_ok())
            .expect("GNU Go is not installed: apt-get install gnugo (scripts/test does this as root)");
        let mut child = Command::new(program)
            .args(["--mode", "gtp"])
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("GNU Go starts");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        GnuGo { child, input, output }
    }

    /// Sends one command; returns its reply after '= ', or panics on '?'.
    fn ask(&mut self, command: &str) -> String {
        writeln!(self.input, "{command}").unwrap();
        self.input.flush().unwrap();
        let mut reply = String::new();
        loop {
            let mut line = String::new();
            assert!(self.output.read_line(&mut line).unwrap() > 0, "GNU Go stopped at '{command}'");
            if line.trim().is_empty() {
                if reply.is_empty() {
                    continue;
                }
                break;
            }
            reply += &line;
        }
        assert!(reply.starts_with('='), "GNU Go refused '{command}': {reply}");
        reply[1..].trim().to_owned()
    }
}

impl Drop for GnuGo {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.child.wait();
    }
}

fn sorted(mut vertices: Vec<String>) -> Vec<String> {
    vertices.sort();
    vertices
}

/// Plays `games` seeded random games of `size` through both engines and
/// compares the legal points after every move; returns (positions, kos seen, captures seen).
fn compare(gnugo: &mut GnuGo, size: u32, games: u32, seed: u64) -> (u32, u32, u32) {
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let (mut positions, mut kos, mut captures) = (0, 0, 0);
    for game in 0..games {
        gnugo.ask(&format!("boardsize {size}"));
        gnugo.ask("clear_board");
        let mut position = Position::new(size).unwrap();
        let mut passes = 0;
        for _ in 0..3 * size * size {
            let color = position.to_move();
            let legal = position.legal_points(color);
            let point = if legal.is_empty() || random.random_range(0..4 * size) == 0 {
                None
            } else {
                Some(legal[random.random_range(0..legal.len())])
            };
            let mv = Move { color, point };
            captures += u32::from(position.play_move(mv).unwrap() > 0);
            kos += u32::from(position.ko().is_some());
            gnugo.ask(&format!("play {mv}"));
            let to_move = position.to_move();
            let ours = sorted(position.legal_points(to_move).iter().map(ToString::to_string).collect());
            let name = if to_move == Color::Black { "black" } else { "white" };
            let theirs =
                sorted(gnugo.ask(&format!("all_legal {name}")).split_whitespace().map(str::to_owned).collect());
            assert_eq!(ours, theirs, "{size}x{size} game {game}, after {mv}, {name} to move:\n{}", position.diagram());
            positions += 1;
            passes = if point.is_none() { passes + 1 } else { 0 };
            if passes == 2 {
                break;
            }
        }
    }
    (positions, kos, captures)
}

#[test]
fn legal_points_equal_gnu_go_in_random_games() {
    let mut gnugo = GnuGo::start();
    for (size, games, seed) in [(9, 20, 1), (13, 8, 2), (19, 4, 3)] {
        let (positions, kos, captures) = compare(&mut gnugo, size, games, seed);
        assert!(positions >= 300, "{size}x{size}: only {positions} positions compared");
        assert!(kos > 0 && captures > 0, "{size}x{size}: the games had {kos} kos and {captures} captures");
        eprintln!("{size}x{size}: {positions} positions equal, {kos} with a ko, {captures} moves capturing");
    }
}

/// A score as GTP writes it (`B+3.5`, `W+12`, `0`), as Black's margin.
fn margin(score: &str) -> f64 {
    match score.split_once('+') {
        Some(("B", points)) => points.parse().unwrap(),
        Some(("W", points)) => -points.parse::<f64>().unwrap(),
        _ if score == "0" => 0.0,
        _ => panic!("not a score: {score}"),
    }
}

/// Two 9×9 games against GNU Go over GTP, as a front end plays them (our
/// engine black in one, white in the other, komi 7.5, area rules): every
/// move ours is legal to GNU Go, every game ends by two passes or a
/// resignation, and when it ends by passes our `final_score`, dead stones
/// taken off by playout ownership, is within 15 points of GNU Go's. In the
/// second game ours plays on instead of resigning, so that one ends by
/// passes and its score is compared.
#[test]
fn games_against_gnu_go_end_by_passes_or_resignation_and_scores_agree() {
    use gpu_movegen::go::gtp::{CpuPlayouts, GtpEngine, SearchSettings};
    let mut compared = 0;
    for (game, ours_black) in [(1u32, true), (2, false)] {
        // A fixed seed: GNU Go plays the same game on every machine.
        let mut gnugo = GnuGo::start_with(&["--level", "1", "--chinese-rules", "--seed", "1"]);
        let settings = SearchSettings { playouts: 4096, time: None, seed: game, resign: game == 1 };
        let mut engine = GtpEngine::new(CpuPlayouts, settings);
        let mut ask_ours = |command: &str| {
            let reply = engine.handle(command).expect("a reply").text;
            assert!(reply.starts_with('='), "ours refused '{command}': {reply}");
            reply[1..].trim().to_owned()
        };
        for setup in ["boardsize 9", "clear_board", "komi 7.5"] {
            ask_ours(setup);
            gnugo.ask(setup);
        }
        let (mut passes, mut resigned, mut moves) = (0, false, 0);
        let mut black_to_move = true;
        while passes < 2 && moves < 300 {
            let color = if black_to_move { "b" } else { "w" };
            let ours_turn = black_to_move == ours_black;
            let vertex =
                if ours_turn { ask_ours(&format!("genmove {color}")) } else { gnugo.ask(&format!("genmove {color}")) };
            if vertex == "resign" {
                resigned = true;
                break;
            }
            if ours_turn {
                gnugo.ask(&format!("play {color} {vertex}"));
            } else {
                ask_ours(&format!("play {color} {vertex}"));
            }
            passes = if vertex.eq_ignore_ascii_case("pass") { passes + 1 } else { 0 };
            black_to_move = !black_to_move;
            moves += 1;
        }
        eprintln!("game {game}: {moves} moves, passes {passes}, resigned {resigned}");
        assert!(passes == 2 || resigned, "game {game} ran {moves} moves without ending");
        if passes == 2 {
            let (ours, theirs) = (margin(&ask_ours("final_score")), margin(&gnugo.ask("final_score")));
            eprintln!("game {game}: ours {ours}, GNU Go {theirs}");
            assert!((ours - theirs).abs() <= 15.0, "game {game}: ours {ours}, GNU Go {theirs}");
            compared += 1;
        }
    }
    assert!(compared >= 1, "no game ended by passes, so no score was compared");
}

/// A settled board of `size`: Black holds the columns up to `wall`, White
/// those from `wall + 1 + dame`; each side's area is its stones with single
/// eyes in a pattern no two of which touch (so every chain lives with two
/// eyes or more) and, with `territory`, an empty rectangle besides. The
/// `dame` columns between the walls are empty, or filled when
/// `filled_dame`. Returned as SGF setup (AB, AW) and as a [`Position`].
fn settled_board(
    size: u32,
    wall: u32,
    dame: u32,
    filled_dame: bool,
    territory: bool,
    shift: u32,
) -> (String, Position) {
    let mut position = Position::new(size).unwrap();
    let mut setup = [String::new(), String::new()];
    let white_wall = wall + 1 + dame;
    for x in 0..size {
        for y in 0..size {
            let color = if x <= wall {
                Color::Black
            } else if x >= white_wall {
                Color::White
            } else if filled_dame {
                // Dame stones: each joins the wall beside it.
                if (x + y) % 2 == 0 { Color::Black } else { Color::White }
            } else {
                continue;
            };
            let in_dame = x > wall && x < white_wall;
            let eye = !in_dame && x != wall && x != white_wall && (x + 2 * y + shift) % 5 == 0;
            let (left, right) = if color == Color::Black { (0, wall) } else { (white_wall, size) };
            let middle = (left + right) / 2;
            // Inside the region, never on its wall: a broken wall would let
            // the territory touch the dame, and the board would not be settled.
            let walls = x == wall || x == white_wall;
            let open = territory && !in_dame && !walls && x + 1 >= middle && x <= middle && (2..=4).contains(&y);
            if eye || open {
                continue;
            }
            let point = gpu_movegen::go::Point { x: x as u8, y: y as u8 };
            position.set_stone(point, Some(color));
            // SGF rows count from the top.
            let letter = |coordinate: u32| (b'a' + coordinate as u8) as char;
            setup[color.index()] += &format!("[{}{}]", letter(x), letter(size - 1 - y));
        }
    }
    assert_eq!(position.first_dead_stone(), None, "a settled board has no stone without a liberty");
    let sgf = format!("(;GM[1]FF[4]SZ[{size}]KM[7.5]AB{}AW{})", setup[0], setup[1]);
    (sgf, position)
}

/// Settled boards of 9×9, 13×13 and 19×19 (every chain alive with eyes;
/// dame empty, filled or absent; either side ahead): our `final_score` is
/// Tromp–Taylor's exactly, GNU Go's (Chinese rules) names the same winner
/// within two points, before and after a pass; nothing is listed dead; and
/// after the opponent's pass `genmove` passes when that score wins, and
/// plays on when it loses and has a move.
#[test]
fn final_score_on_settled_boards_equals_area_scoring_and_gnu_go() {
    use gpu_movegen::go::gtp::{CpuPlayouts, GtpEngine, SearchSettings};
    let folder = std::env::temp_dir().join(format!("gpu-movegen-settled-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let mut gnugo = GnuGo::start_with(&["--level", "1", "--chinese-rules"]);
    let mut boards = 0;
    for (size, wall, dame, filled_dame, territory) in [
        (9, 3, 1, false, false),
        (9, 4, 0, false, true),
        (9, 3, 1, true, false),
        (13, 5, 1, false, true),
        (13, 6, 2, false, false),
        (13, 5, 1, true, true),
        (13, 7, 1, false, false),
        (19, 8, 1, false, false),
        (19, 9, 0, false, true),
        (19, 10, 1, true, true),
    ] {
        let (sgf, position) = settled_board(size, wall, dame, filled_dame, territory, size % 5);
        let truth = f64::from(position.area_difference()) - 7.5;
        let path = folder.join(format!("settled-{size}-{wall}-{dame}.sgf"));
        std::fs::write(&path, &sgf).unwrap();
        let settings = SearchSettings { playouts: 1024, time: None, seed: 7, resign: false };
        let mut engine = GtpEngine::new(CpuPlayouts, settings);
        let mut ask_ours = |command: &str| {
            let reply = engine.handle(command).expect("a reply").text;
            assert!(reply.starts_with('='), "ours refused '{command}': {reply}");
            reply[1..].trim().to_owned()
        };
        let load = format!("loadsgf {}", path.display());
        ask_ours(&load);
        gnugo.ask(&load);
        for pass in [None, Some("b"), Some("w")] {
            if let Some(color) = pass {
                ask_ours(&format!("play {color} pass"));
                gnugo.ask(&format!("play {color} pass"));
            }
            let (ours, theirs) = (margin(&ask_ours("final_score")), margin(&gnugo.ask("final_score")));
            eprintln!("{size}x{size} wall {wall} dame {dame}: Tromp-Taylor {truth}, ours {ours}, GNU Go {theirs}");
            assert_eq!(ours, truth, "{size}x{size}, wall {wall}, after {pass:?}:\n{}", position.diagram());
            assert_eq!(ours > 0.0, theirs > 0.0, "{size}x{size}, wall {wall}: GNU Go names another winner");
            assert!((ours - theirs).abs() <= 2.0, "{size}x{size}, wall {wall}: ours {ours}, GNU Go {theirs}");
            assert_eq!(ask_ours("final_status_list dead"), "", "{size}x{size}, wall {wall}");
        }
        // White passed last: Black passes when the score wins, and plays on
        // when it loses while a move other than into its own eyes remains.
        let reply = ask_ours("genmove b");
        let could_play = dame > 0 && !filled_dame;
        if truth > 0.0 || could_play {
            assert_eq!(reply == "pass", truth > 0.0, "{size}x{size}, wall {wall}: genmove b gave {reply}");
        }
        boards += 1;
    }
    assert_eq!(boards, 10);
    std::fs::remove_dir_all(folder).unwrap();
}

/// A large chain in atari that can be taken: `genmove` does not pass,
/// even after the opponent's pass (under area scoring taking it never
/// costs a point, and leaving it may lose the game).
#[test]
fn genmove_does_not_pass_with_a_chain_in_atari_to_take() {
    use gpu_movegen::go::gtp::{CpuPlayouts, GtpEngine, SearchSettings};
    let settings = SearchSettings { playouts: 512, time: None, seed: 3, resign: false };
    let mut engine = GtpEngine::new(CpuPlayouts, settings);
    let mut ask = |command: &str| engine.handle(command).expect("a reply").text;
    // White's five stones on the second line have one liberty, at F2.
    for command in [
        "boardsize 9",
        "komi 0.5",
        "play b a1",
        "play b a2",
        "play b b3",
        "play b c3",
        "play b d3",
        "play b e3",
        "play b f1",
        "play w b2",
        "play w c2",
        "play w d2",
        "play w e2",
        "play w b1",
        "play w c1",
        "play w d1",
        "play w e1",
        "play w pass",
    ] {
        assert!(ask(command).starts_with('='), "{command}");
    }
    // Four searches, each with seeds of its own.
    for _ in 0..4 {
        let reply = ask("genmove b");
        assert!(reply.starts_with("= ") && reply.trim() != "= pass", "Black passed with eight stones to take: {reply}");
        assert!(ask("undo").starts_with('='));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Any settled board of the family above, whoever moves: `final_score`
    /// is Tromp–Taylor's area score and nothing is listed dead.
    #[test]
    fn final_score_of_any_settled_board_is_area_scoring(
        size in proptest::sample::select(vec![9u32, 13, 19]),
        wall_share in 0.3f64..0.7,
        dame in 0u32..3,
        filled in proptest::bool::ANY,
        territory in proptest::bool::ANY,
        shift in 0u32..5,
        white_to_move in proptest::bool::ANY,
    ) {
        use gpu_movegen::go::gtp::{CpuPlayouts, GtpEngine, SearchSettings};
        let wall = ((f64::from(size) * wall_share) as u32).clamp(3, size - 4 - dame);
        let (sgf, position) = settled_board(size, wall, dame, filled && dame == 1, territory, shift);
        let sgf = if white_to_move { sgf.replacen("KM[7.5]", "KM[7.5]PL[W]", 1) } else { sgf };
        let path = std::env::temp_dir().join(format!("gpu-movegen-settled-{}-{size}-{wall}-{dame}-{shift}.sgf", std::process::id()));
        std::fs::write(&path, &sgf).unwrap();
        let settings = SearchSettings { playouts: 256, time: None, seed: shift, resign: false };
        let mut engine = GtpEngine::new(CpuPlayouts, settings);
        let mut ask = |command: &str| engine.handle(command).expect("a reply").text;
        let loaded = ask(&format!("loadsgf {}", path.display()));
        proptest::prop_assert!(loaded.starts_with('='), "{}", loaded);
        std::fs::remove_file(&path).unwrap();
        let truth = f64::from(position.area_difference()) - 7.5;
        let score = margin(ask("final_score")[1..].trim());
        proptest::prop_assert_eq!(score, truth, "{}", position.diagram());
        let dead = ask("final_status_list dead");
        proptest::prop_assert_eq!(dead.trim(), "=");
    }
}
