//! The game abstraction (`gpu_movegen::game`): one divide for every game and
//! engine. The CPU's divide adds up to each game's own perft and lists its
//! rows in the game's order; a stop flag ends it; every GPU engine's divide
//! equals the CPU's row for row.

mod common;

use std::sync::atomic::AtomicBool;

use gpu_movegen::chess::Chess;
use gpu_movegen::chess::variant::{ChessVariants, Variant, VariantPosition};
use gpu_movegen::game::{self, Game};
use gpu_movegen::go::GoGame;
use gpu_movegen::gpu::perft::{PerftEngine, PerftGame, PerftOptions};
use gpu_movegen::shogi::ShogiGame;
use gpu_movegen::{Position, go, shogi};

/// A few positions of each game from seeded random play.
fn chess_positions() -> Vec<Position> {
    common::random_positions(&[Position::start()], 6, 40, 53)
}

fn variant_positions() -> Vec<VariantPosition> {
    [Variant::Atomic, Variant::Crazyhouse, Variant::Horde]
        .into_iter()
        .flat_map(|variant| gpu_movegen::chess::variant::random_positions(variant, 2, 30, 53))
        .collect()
}

fn shogi_positions() -> Vec<shogi::Position> {
    shogi::perft::random_positions(4, 53)
}

fn go_positions() -> Vec<go::Position> {
    go::playout::random_positions(5, 4, 53).expect("5×5 positions")
}

/// The rows of a divide add up to the game's perft, each row is the perft
/// of its move's child, and the rows come by their moves' text (`by_text`)
/// or in the generator's order, as the game's tools list them.
fn check_divide<G: Game>(
    positions: &[G::Position],
    depth: u32,
    by_text: bool,
    perft: impl Fn(&G::Position, u32) -> u64,
) {
    for (index, position) in positions.iter().enumerate() {
        let rows = game::divide::<G>(position, depth);
        let moves = G::legal_moves(position);
        assert_eq!(rows.len(), moves.len(), "{} position {index}: a row per legal move", G::NAME);
        let total: u64 = rows.iter().map(|(_, nodes)| nodes).sum();
        assert_eq!(total, perft(position, depth), "{} position {index}: the rows add up to perft({depth})", G::NAME);
        for (mv, nodes) in &rows {
            assert_eq!(*nodes, perft(&G::play(position, *mv), depth - 1), "{} position {index}, {mv}", G::NAME);
        }
        let names: Vec<String> = rows.iter().map(|(mv, _)| mv.to_string()).collect();
        let mut expected: Vec<String> = moves.iter().map(ToString::to_string).collect();
        if by_text {
            expected.sort();
        }
        assert_eq!(names, expected, "{} position {index}: the divide's order", G::NAME);
        assert!(game::divide::<G>(position, 0).is_empty(), "depth 0 has no rows");
    }
}

#[test]
fn every_games_divide_adds_up_to_its_perft_in_its_order() {
    check_divide::<Chess>(&chess_positions(), 3, true, gpu_movegen::chess::perft::perft);
    check_divide::<ChessVariants>(&variant_positions(), 3, true, gpu_movegen::chess::variant::perft_by_rules);
    check_divide::<ShogiGame>(&shogi_positions(), 2, true, shogi::perft::reference_perft);
    check_divide::<GoGame>(&go_positions(), 2, false, go::perft::perft);
}

#[test]
fn a_divide_gives_up_when_its_stop_flag_is_set_and_counts_whole_when_not() {
    let pool = gpu_movegen::threads::pool(Some(2)).expect("a pool");
    let position = Position::start();
    let stop = AtomicBool::new(true);
    assert_eq!(game::divide_until::<Chess>(&pool, &position, 4, &stop), None);
    let go_start = go::Position::new(9).expect("a 9×9 board");
    assert_eq!(game::divide_until::<GoGame>(&pool, &go_start, 3, &stop), None);
    let running = AtomicBool::new(false);
    assert_eq!(game::divide_until::<Chess>(&pool, &position, 4, &running), Some(game::divide::<Chess>(&position, 4)));
    assert_eq!(game::divide_until::<GoGame>(&pool, &go_start, 2, &running), Some(game::divide::<GoGame>(&go_start, 2)));
}

/// `G`'s GPU engine's divide against the CPU's, row for row.
fn check_gpu_divide<G: PerftGame>(options: PerftOptions<G::Build>, positions: &[G::Position], depth: u32)
where
    G::Move: PartialEq + std::fmt::Debug,
{
    let context = common::gpu::context();
    let mut engine = PerftEngine::<G>::with_options(&context, options).expect("the engine");
    for (index, position) in positions.iter().enumerate() {
        let gpu = engine.divide(position, depth, &mut |_| {}).expect("the GPU divides");
        assert_eq!(gpu, game::divide::<G>(position, depth), "{} position {index}", G::NAME);
    }
}

#[test]
fn every_gpu_engines_divide_equals_the_cpus() {
    check_gpu_divide::<Chess>(Default::default(), &chess_positions(), 3);
    for variant in [Variant::Atomic, Variant::Crazyhouse] {
        let options = PerftOptions {
            build: gpu_movegen::chess::gpu::VariantKernels { variant, ..Default::default() },
            ..Default::default()
        };
        let positions = gpu_movegen::chess::variant::random_positions(variant, 2, 30, 53);
        check_gpu_divide::<ChessVariants>(options, &positions, 3);
    }
    check_gpu_divide::<ShogiGame>(Default::default(), &shogi_positions(), 2);
    let options = PerftOptions { build: gpu_movegen::go::gpu::BoardSize(5), ..Default::default() };
    check_gpu_divide::<GoGame>(options, &go_positions(), 2);
}
