//! The attack tables against the values printed in the vectorised Kogge-Stone article, and the three
//! slider implementations (Kogge-Stone twin, magic, classical ray walk)
//! against each other.

use gpu_movegen::sliders::{classical, kogge_stone, magic};
use gpu_movegen::tables;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEED_TABLES: &str = include_str!("data/kogge_stone_tables.txt");

/// The values under `[name]` in tests/data/kogge_stone_tables.txt.
fn seed_section(name: &str) -> Vec<u64> {
    let header = format!("[{name}]");
    let start = SEED_TABLES.find(&header).unwrap_or_else(|| panic!("no section {header}")) + header.len();
    SEED_TABLES[start..]
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with('['))
        .flat_map(|line| line.split_whitespace())
        .map(|value| u64::from_str_radix(value.trim_start_matches("0x"), 16).expect("hex value"))
        .collect()
}

#[test]
fn pawn_push_tables_match_the_seed() {
    assert_eq!(seed_section("AttackTablesPawnPushes: white pawn pushes"), tables::PAWN_PUSHES[0]);
    assert_eq!(seed_section("AttackTablesPawnPushes: black pawn pushes"), tables::PAWN_PUSHES[1]);
}

#[test]
fn piece_attack_tables_match_the_seed() {
    assert_eq!(seed_section("AttackTables: white pawn"), tables::PAWN_ATTACKS[0]);
    assert_eq!(seed_section("AttackTables: black pawn"), tables::PAWN_ATTACKS[1]);
    assert_eq!(seed_section("AttackTables: knight"), tables::KNIGHT_ATTACKS);
    assert_eq!(seed_section("AttackTables: king"), tables::KING_ATTACKS);
    assert_eq!(seed_section("AttackTables: bishop"), tables::BISHOP_RAYS);
    assert_eq!(seed_section("AttackTables: rook"), tables::ROOK_RAYS);
    assert_eq!(seed_section("AttackTables: queen"), tables::QUEEN_RAYS);
}

#[test]
fn kogge_stone_wrap_masks_match_the_seed() {
    assert_eq!(seed_section("wraps4: shift left <<9 <<1 <<7 <<8"), kogge_stone::LEFT_WRAPS);
    assert_eq!(seed_section("wraps4: shift right >>9 >>1 >>7 >>8"), kogge_stone::RIGHT_WRAPS);
    assert_eq!(kogge_stone::SHIFTS, [9, 1, 7, 8]);
}

#[test]
fn between_and_line_tables_are_consistent() {
    for from in 0..64usize {
        for to in 0..64usize {
            let between = tables::BETWEEN[from][to];
            let line = tables::LINE[from][to];
            assert_eq!(between, tables::BETWEEN[to][from]);
            assert_eq!(line, tables::LINE[to][from]);
            if line == 0 {
                assert_eq!(between, 0);
                continue;
            }
            assert_ne!(from, to);
            assert!(line >> from & 1 == 1 && line >> to & 1 == 1);
            assert_eq!(between & !line, 0);
            // The squares between are what a slider on `from` sees up to `to`.
            let blockers = 1u64 << to;
            let rays = classical::queen_attacks(from as u8, blockers) & classical::queen_attacks(to as u8, 1 << from);
            assert_eq!(between, rays & line & !(1 << from) & !(1 << to), "{from} {to}");
        }
    }
    assert_eq!(tables::LINE[0][63].count_ones(), 8);
    assert_eq!(tables::BETWEEN[0][63].count_ones(), 6);
    assert_eq!(tables::LINE[0][10], 0, "a1 and c2 are not aligned");
}

/// Occupancies from empty to nearly full: the density varies with how many
/// random words are combined.
fn random_occupancies(count: usize, seed: u64) -> Vec<u64> {
    let mut random = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|index| match index % 4 {
            0 => random.random::<u64>() & random.random::<u64>() & random.random::<u64>(),
            1 => random.random::<u64>() & random.random::<u64>(),
            2 => random.random::<u64>(),
            _ => random.random::<u64>() | random.random::<u64>(),
        })
        .chain([0, u64::MAX])
        .collect()
}

#[test]
fn kogge_stone_and_magic_equal_the_ray_walk_on_every_square() {
    let occupancies = random_occupancies(4_000, 2021);
    for square in 0..64u8 {
        for &occupancy in &occupancies {
            // The slider's own square is occupied in a real position; test both ways.
            for occupied in [occupancy, occupancy | 1 << square, occupancy & !(1 << square)] {
                let rook = classical::rook_attacks(square, occupied);
                let bishop = classical::bishop_attacks(square, occupied);
                assert_eq!(
                    kogge_stone::rook_attacks(square, occupied),
                    rook,
                    "kogge-stone rook {square} {occupied:#x}"
                );
                assert_eq!(
                    kogge_stone::bishop_attacks(square, occupied),
                    bishop,
                    "kogge-stone bishop {square} {occupied:#x}"
                );
                assert_eq!(kogge_stone::queen_attacks(square, occupied), rook | bishop, "kogge-stone queen {square}");
                assert_eq!(magic::rook_attacks(square, occupied), rook, "magic rook {square} {occupied:#x}");
                assert_eq!(magic::bishop_attacks(square, occupied), bishop, "magic bishop {square} {occupied:#x}");
            }
        }
    }
}

#[test]
fn kogge_stone_set_wise_fill_is_the_union_of_single_fills() {
    let mut random = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..2_000 {
        let occupied = random.random::<u64>() & random.random::<u64>();
        let sliders = random.random::<u64>() & random.random::<u64>() & random.random::<u64>() & occupied;
        let expected = (0..64u8)
            .filter(|square| sliders >> square & 1 == 1)
            .fold(0, |union, square| union | classical::queen_attacks(square, occupied));
        assert_eq!(kogge_stone::queen_attacks_setwise(sliders, !occupied), expected);
    }
}

#[test]
fn ray_walk_spot_checks() {
    // Rook on d4 with blockers on d6 and b4: the blockers are included, nothing beyond.
    let d4 = 27;
    let occupied = 1 << 43 | 1 << 25;
    let expected = [19u8, 11, 3, 35, 43, 28, 29, 30, 31, 26, 25].iter().fold(0u64, |set, square| set | 1 << square);
    assert_eq!(classical::rook_attacks(d4, occupied), expected);
    assert_eq!(classical::bishop_attacks(0, 0), 0x8040_2010_0804_0200);
}

#[test]
fn every_cpu_slider_algorithm_equals_the_ray_walk_on_every_square() {
    use gpu_movegen::sliders::SliderAlgorithm;
    let occupancies = random_occupancies(3_000, 5);
    for algorithm in SliderAlgorithm::ALL {
        for square in 0..64u8 {
            for &occupancy in &occupancies {
                for occupied in [occupancy | 1 << square, occupancy & !(1 << square)] {
                    assert_eq!(
                        algorithm.rook_attacks(square, occupied),
                        classical::rook_attacks(square, occupied),
                        "{algorithm:?} rook {square} {occupied:#x}"
                    );
                    assert_eq!(
                        algorithm.bishop_attacks(square, occupied),
                        classical::bishop_attacks(square, occupied),
                        "{algorithm:?} bishop {square} {occupied:#x}"
                    );
                }
            }
        }
    }
}

#[test]
fn set_wise_fills_equal_the_union_of_single_attacks() {
    use gpu_movegen::sliders::{dumb7fill, subtraction};
    let mut random = ChaCha8Rng::seed_from_u64(8);
    for _ in 0..3_000 {
        let occupied = random.random::<u64>() & random.random::<u64>();
        let sliders = random.random::<u64>() & random.random::<u64>() & random.random::<u64>() & occupied;
        let queens = (0..64u8)
            .filter(|square| sliders >> square & 1 == 1)
            .fold(0, |union, square| union | classical::queen_attacks(square, occupied));
        assert_eq!(dumb7fill::queen_attacks_setwise(sliders, !occupied), queens);
        let east = (0..64u8)
            .filter(|square| sliders >> square & 1 == 1)
            .fold(0, |union, square| union | classical::ray_attacks(square, occupied, 1, 0));
        assert_eq!(subtraction::east_attacks_setwise(sliders, !occupied), east, "{sliders:#x} {occupied:#x}");
    }
}
