//! Generates the magic-bitboard tables for the CPU sliders from the same
//! code the crate uses (src/chess/tables/ray_walk.rs and src/chess/sliders/magic_search.rs),
//! and a build id: a hash of every source and shader file, so that the GPU
//! self-test's cached verdicts (src/gpu/self_test.rs) never outlive the code
//! they vouched for.

use std::fmt::Write as _;
use std::path::PathBuf;

#[path = "src/chess/tables/ray_walk.rs"]
#[allow(dead_code)]
mod classical;
#[path = "src/chess/sliders/magic_search.rs"]
mod magic_search;

/// FNV-1a over the paths and contents of every file under `folders`, in path order.
fn build_id(folders: &[&str]) -> String {
    fn collect(folder: &std::path::Path, files: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(folder) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                collect(&path, files);
            } else {
                files.push(path);
            }
        }
    }
    let mut files = Vec::new();
    for folder in folders {
        collect(std::path::Path::new(folder), &mut files);
    }
    files.sort();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for file in &files {
        let contents = std::fs::read(file).unwrap_or_default();
        for byte in file.to_string_lossy().as_bytes().iter().chain(&contents) {
            hash = (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

/// A `u64` static named `name` holding `parts` one after another, eight a line.
fn write_table(source: &mut String, name: &str, parts: &[&[u64]]) {
    let total: usize = parts.iter().map(|part| part.len()).sum();
    writeln!(source, "pub(crate) static {name}: [u64; {total}] = [").unwrap();
    for chunk in parts.concat().chunks(8) {
        let line: Vec<String> = chunk.iter().map(|value| format!("{value:#x}")).collect();
        writeln!(source, "    {},", line.join(", ")).unwrap();
    }
    writeln!(source, "];").unwrap();
}

/// The PEXT slider tables: rooks first, then bishops, in one array.
fn pext_source() -> String {
    let (rook_entries, rook_table) = magic_search::pext_tables(true);
    let (bishop_entries, bishop_table) = magic_search::pext_tables(false);
    let mut source = String::new();
    for (name, entries, base) in [("ROOK_PEXT", &rook_entries, 0), ("BISHOP_PEXT", &bishop_entries, rook_table.len())] {
        writeln!(source, "pub(crate) static {name}: [PextEntry; 64] = [").unwrap();
        for entry in entries {
            writeln!(source, "    PextEntry {{ mask: {:#x}, offset: {} }},", entry.mask, entry.offset as usize + base)
                .unwrap();
        }
        writeln!(source, "];").unwrap();
    }
    write_table(&mut source, "PEXT_TABLE", &[&rook_table, &bishop_table]);
    source
}

fn main() {
    println!("cargo::rerun-if-changed=src");
    println!("cargo::rerun-if-changed=shaders");
    println!("cargo::rustc-env=GPU_MOVEGEN_BUILD_ID={}", build_id(&["src", "shaders"]));

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

    write_table(&mut source, "SLIDER_TABLE", &[&rook_table, &bishop_table]);

    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("magic_tables.rs"), source).expect("write magic_tables.rs");
    std::fs::write(out.join("pext_tables.rs"), pext_source()).expect("write pext_tables.rs");
    // One table per folder of shaders/, found rather than listed, so that a
    // new game's folder needs no edit here. A game's modules are imported as
    // `<folder>_<name>`; the engine's common modules and chess, the first
    // game, keep their bare names.
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(root.join("shaders")).expect("the shaders folder").flatten() {
        if !entry.path().is_dir() {
            continue;
        }
        let folder = entry.file_name().into_string().expect("shader folder names are UTF-8");
        let prefix = if matches!(folder.as_str(), "common" | "chess") { String::new() } else { format!("{folder}_") };
        let table = shader_modules(&folder, &prefix);
        std::fs::write(out.join(format!("shaders_{folder}.rs")), table).expect("write a shader module table");
    }
}

/// The module table of `shaders/<folder>/`, generated so that it never
/// falls out of step with the tree: every `.wgsl` file, its import name
/// (`prefix`, then the subfolder and `_` for any subfolder but `kernels/`,
/// then the file's stem: `go_bitmap`, `sliders_magic`, `perft`), its path,
/// its kind (the files under `kernels/` hold the entry points the host
/// dispatches) and its text, included at compile time.
fn shader_modules(folder: &str, prefix: &str) -> String {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let base = root.join("shaders").join(folder);
    let mut files = Vec::new();
    let mut folders = vec![base.clone()];
    while let Some(current) = folders.pop() {
        for entry in std::fs::read_dir(&current).expect("a shader folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|extension| extension == "wgsl") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut table = String::from("&[\n");
    for file in files {
        let relative = file.strip_prefix(&base).expect("under the folder");
        let stem = relative.file_stem().expect("a file name").to_string_lossy();
        let subfolder = relative.parent().map(|parent| parent.to_string_lossy().into_owned()).unwrap_or_default();
        let (kind, name) = match subfolder.as_str() {
            "" => ("Library", format!("{prefix}{stem}")),
            "kernels" => ("Kernels", format!("{prefix}{stem}")),
            other => ("Library", format!("{prefix}{}_{stem}", other.replace('/', "_"))),
        };
        let path = format!("{folder}/{}", relative.to_string_lossy());
        writeln!(
            table,
            "    Module {{ name: {name:?}, path: {path:?}, kind: ModuleKind::{kind}, source: include_str!({:?}) }},",
            file.to_string_lossy()
        )
        .unwrap();
    }
    table.push(']');
    table
}
