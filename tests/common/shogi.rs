//! Shogi positions the tests share.

use gpu_movegen::shogi::Position;
use rand::{Rng, SeedableRng};

/// `count` sparse positions built around White's king, with a pawn in
/// Black's hand and the square in front of the king open to a pawn drop:
/// Black's pieces close by make that drop mate (uchifuzume, illegal) in a
/// few percent of them, White's may take the pawn.
pub fn pawn_drop_positions(count: usize, seed: u64) -> Vec<Position> {
    let mut random = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let attackers = ["G", "S", "N", "L", "R", "B", "+R", "+B", "G", "S"];
    let defenders = ["g", "s", "n", "l", "r", "b", "p", "+p"];
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let mut board: Vec<Option<&str>> = vec![None; 81];
        // White's king on one of the first three ranks; Black's far away.
        let king = random.random_range(0..27);
        board[king] = Some("k");
        board[random.random_range(63..81)] = Some("K");
        let (rank, column) = ((king / 9) as i32, (king % 9) as i32);
        let near = |random: &mut rand_chacha::ChaCha8Rng| {
            let near_rank = (rank + random.random_range(-1..4)).clamp(0, 8);
            (near_rank * 9 + (column + random.random_range(-2..3)).clamp(0, 8)) as usize
        };
        for (pieces, most) in [(&attackers[..], 5), (&defenders[..], 3)] {
            for _ in 0..random.random_range(usize::from(most == 5)..most) {
                let square = near(&mut random);
                if board[square].is_none() {
                    board[square] = Some(pieces[random.random_range(0..pieces.len())]);
                }
            }
        }
        if board[king + 9].is_some() {
            continue;
        }
        if let Ok(position) = Position::from_sfen(&format!("{} b P 1", board_sfen(&board))) {
            positions.push(position);
        }
    }
    positions
}

/// Whether the pawn drop in front of White's king is illegal (it mates), by
/// the reference generator.
pub fn pawn_drop_mates(position: &Position) -> bool {
    let front = position.king(gpu_movegen::shogi::Color::White).expect("a king") + 9;
    !position.legal_moves().iter().any(|mv| mv.from.is_none() && mv.to == front)
}

/// The board part of an SFEN from one entry per square (rank a first).
fn board_sfen(board: &[Option<&str>]) -> String {
    let ranks: Vec<String> = board
        .chunks(9)
        .map(|rank| {
            let mut text = String::new();
            let mut empty = 0;
            for square in rank {
                match square {
                    None => empty += 1,
                    Some(piece) => {
                        if empty > 0 {
                            text += &empty.to_string();
                            empty = 0;
                        }
                        text += piece;
                    }
                }
            }
            if empty > 0 {
                text += &empty.to_string();
            }
            text
        })
        .collect();
    ranks.join("/")
}
