// tables.wgsl — the attack tables, uploaded from Rust (src/chess/tables/mod.rs).
//
// Reads: `attack_tables` (storage, read-only) at the table group and binding
// the host gives. Writes: nothing. Library of lookups only.
// The buffer concatenates the Rust tables; the generated TABLE_* constants
// are each table's first entry. Square 0 is a1.

#import bitboard

@group(0) @binding(0) var<storage, read> attack_tables: array<Bitboard>;

// Single and double steps; `color` 0 is white, 1 black.
fn table_pawn_pushes(color: u32, square: u32) -> Bitboard {
    return attack_tables[TABLE_PAWN_PUSHES + color * 64u + square];
}

fn table_pawn_attacks(color: u32, square: u32) -> Bitboard {
    return attack_tables[TABLE_PAWN_ATTACKS + color * 64u + square];
}

fn table_knight_attacks(square: u32) -> Bitboard {
    return attack_tables[TABLE_KNIGHT + square];
}

fn table_king_attacks(square: u32) -> Bitboard {
    return attack_tables[TABLE_KING + square];
}

fn table_bishop_rays(square: u32) -> Bitboard {
    return attack_tables[TABLE_BISHOP_RAYS + square];
}

fn table_rook_rays(square: u32) -> Bitboard {
    return attack_tables[TABLE_ROOK_RAYS + square];
}

fn table_queen_rays(square: u32) -> Bitboard {
    return attack_tables[TABLE_QUEEN_RAYS + square];
}

// Squares strictly between two aligned squares; empty otherwise.
fn table_between(from_square: u32, to_square: u32) -> Bitboard {
    return attack_tables[TABLE_BETWEEN + from_square * 64u + to_square];
}

// The whole line through two aligned squares; empty otherwise.
fn table_line(from_square: u32, to_square: u32) -> Bitboard {
    return attack_tables[TABLE_LINE + from_square * 64u + to_square];
}

// A line through `square` without the square: kind 0 rank, 1 file,
// 2 diagonal (a1-h8 direction), 3 anti-diagonal.
fn table_line_mask(kind: u32, square: u32) -> Bitboard {
    return attack_tables[TABLE_LINE_MASKS + kind * 64u + square];
}

// SBAMG's outer squares of a line (src/chess/tables/mod.rs explains which).
fn table_sbamg_outer(kind: u32, square: u32) -> Bitboard {
    return attack_tables[TABLE_SBAMG_OUTER + kind * 64u + square];
}

// The empty-board ray from `square`; directions 0..3 north, east,
// north-east, north-west (towards higher squares), 4..7 their opposites.
fn table_ray(direction: u32, square: u32) -> Bitboard {
    return attack_tables[TABLE_RAYS + direction * 64u + square];
}

// Magic entry words of a square: 0 the mask, 1 the multiplier, 2 the shift
// (low word) and the entry's first index in the shared table (high word).
// `bishop` selects the bishop entries.
fn table_magic_word(bishop: bool, square: u32, word: u32) -> Bitboard {
    return attack_tables[select(TABLE_ROOK_MAGICS, TABLE_BISHOP_MAGICS, bishop) + square * 3u + word];
}

fn table_magic_attacks(index: u32) -> Bitboard {
    return attack_tables[TABLE_MAGIC_ATTACKS + index];
}
