// tables.wgsl — the attack tables, uploaded from Rust (src/tables.rs).
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
