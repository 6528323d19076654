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
