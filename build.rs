//! Generates the magic-bitboard tables for the CPU sliders from the same
//! code the crate uses (src/chess/tables/ray_walk.rs and src/chess/sliders/magic_search.rs).

use std::fmt::Write as _;
use std::path::PathBuf;

#[path = "src/chess/tables/ray_walk.rs"]
#[allow(dead_code)]
mod classical;
#[path = "src/chess/sliders/magic_search.rs"]
mod magic_search;

fn main() {
    println!("cargo::rerun-if-changed=src/chess/tables/ray_walk.rs");
    println!("cargo::rerun-if-changed=src/chess/sliders/magic_search.rs");

    let (rook_entries, rook_table) = magic_search::find_magics(true);
    let (bishop_entries, bishop_table) = magic_search::find_magics(false);

    let mut source = String::new();
    let mut write_entries = |name: &str, entries: &[magic_search::MagicEntry; 64], base: usize| {
        writeln!(source, "pub(crate) static {name}: [MagicEntry; 64] = [").unwrap();
        for entry in entries {
            writeln!(
                source,
                "    MagicEntry {{ mask: {:#x}, magic: {:#x}, shift: {}, offset: {} }},",
                entry.mask,
                entry.magic,
                entry.shift,
                entry.offset as usize + base
            )
            .unwrap();
        }
        writeln!(source, "];").unwrap();
    };
    write_entries("ROOK_MAGICS", &rook_entries, 0);
    write_entries("BISHOP_MAGICS", &bishop_entries, rook_table.len());

    let total = rook_table.len() + bishop_table.len();
    writeln!(source, "pub(crate) static SLIDER_TABLE: [u64; {total}] = [").unwrap();
    for chunk in rook_table.iter().chain(&bishop_table).collect::<Vec<_>>().chunks(8) {
        let line: Vec<String> = chunk.iter().map(|value| format!("{value:#x}")).collect();
        writeln!(source, "    {},", line.join(", ")).unwrap();
    }
    writeln!(source, "];").unwrap();

    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("magic_tables.rs"), source).expect("write magic_tables.rs");
}
