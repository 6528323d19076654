//! Every path that code, comments and docs name (`src/…`, `shaders/…`,
//! `tests/…`, `docs/…` and the like) exists, so a reader who follows one
//! never lands on nothing. Globs, placeholders and paths inside another
//! path (a build output such as `target/release/examples/…`) are skipped.

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// Where the named paths start.
const PREFIXES: [&str; 9] =
    ["src/", "shaders/", "tests/", "examples/", "benches/", "docs/", "scripts/", ".ci/", "build.rs"];
/// The folders and files read for names.
const READ: [&str; 13] = [
    "src",
    "shaders",
    "tests",
    "examples",
    "benches",
    "docs",
    "scripts",
    ".ci",
    "README.md",
    "BENCHMARKS.md",
    "Cargo.toml",
    "build.rs",
    "CHANGELOG.md",
];

fn files(path: &Path, found: &mut Vec<PathBuf>) {
    if path.is_dir() {
        // Suites and other data name no paths of the tree; installed npm
        // packages (tests/tint/node_modules) are not the project's.
        if path.ends_with("tests/data") || path.ends_with("node_modules") {
            return;
        }
        for entry in std::fs::read_dir(path).unwrap() {
            files(&entry.unwrap().path(), found);
        }
    } else if path.is_file() {
        found.push(path.to_owned());
    }
}

fn is_path_character(character: char) -> bool {
    character.is_ascii_alphanumeric() || "_./-".contains(character)
}

/// The paths `text` names.
fn named_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for prefix in PREFIXES {
        for (at, _) in text.match_indices(prefix) {
            // Inside a longer word or path (`target/release/examples/x`, `$bin/src/`).
            if text[..at].chars().next_back().is_some_and(|before| is_path_character(before) || "$~".contains(before)) {
                continue;
            }
            let rest = &text[at..];
            let end = rest.find(|character: char| !is_path_character(character)).unwrap_or(rest.len());
            let path = rest[..end].trim_end_matches(['.', '-', '/']);
            // A glob, a placeholder or a pattern built around the prefix.
            let next = rest[end..].chars().next();
            if path.len() <= prefix.len() || matches!(next, Some('*' | '{' | '<' | '$')) || path.contains("XXXX") {
                continue;
            }
            paths.push(path.to_owned());
        }
    }
    paths
}

#[test]
fn every_path_named_in_the_tree_exists() {
    let root = Path::new(ROOT);
    let mut found = Vec::new();
    for name in READ {
        files(&root.join(name), &mut found);
    }
    assert!(found.len() > 100, "only {} files read", found.len());
    let mut missing = Vec::new();
    let mut checked = 0;
    for file in &found {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        for path in named_paths(&text) {
            checked += 1;
            if !root.join(&path).exists() {
                missing.push(format!("{}: {path}", file.strip_prefix(root).unwrap().display()));
            }
        }
    }
    assert!(checked > 100, "only {checked} paths named?");
    assert!(missing.is_empty(), "paths named but missing:\n{}", missing.join("\n"));
}

#[test]
fn the_scanner_finds_paths_and_skips_globs_and_outputs() {
    let text = "see src/chess/perft.rs. and `shaders/chess/*.wgsl`, target/release/examples/throughput, \
                $bin/src/x, docs/architecture.md:";
    assert_eq!(named_paths(text), ["src/chess/perft.rs", "docs/architecture.md"]);
}
