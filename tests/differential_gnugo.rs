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
        let program = ["/usr/games/gnugo", "gnugo"]
            .into_iter()
            .find(|program| Command::new(program).arg("--version").output().is_ok())
            .expect("GNU Go is not installed: apt-get install gnugo (scripts/test does this as root)");
        let mut child = Command::new(program)
            .args(["--mode", "gtp", "--level", "0"])
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
