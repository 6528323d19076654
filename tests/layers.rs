//! The layers point one way. Every module's references to other modules of
//! the crate (`use` lines and paths, `crate::…` and `super::…`) form a
//! graph whose nodes are the modules two levels down (`chess::board`,
//! `go::gtp`, `gpu::perft`; a folder module such as `chess::gpu` is one
//! node). The graph has no cycle, the GPU runtime knows no game, a game's
//! GPU layer knows no protocol, and the library knows nothing of the
//! command line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// Short paths at the crate root that stand for chess's modules.
const CHESS_ALIASES: [&str; 10] =
    ["board", "movegen", "perft", "position", "pseudo_legal", "random_play", "sliders", "suite", "tables", "error"];

/// The module path of a source file under src/, as path components.
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
    let file = parts.pop().unwrap();
    let stem = file.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_owned());
    }
    parts
}

/// The node a module path belongs to: its first two components.
fn node(path: &[String]) -> String {
    path.iter().take(2).cloned().collect::<Vec<_>>().join("::")
}

fn identifier(text: &str) -> String {
    text.chars().take_while(|character| character.is_ascii_alphanumeric() || *character == '_').collect()
}

/// The module paths `code` refers to from module `here`.
fn references(here: &[String], code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        for (at, _) in line.match_indices("crate::") {
            if line[..at].ends_with(|character: char| character.is_ascii_alphanumeric() || character == '_') {
                continue;
            }
            let rest = &line[at + "crate::".len()..];
            let first = identifier(rest);
            let second = rest[first.len()..].strip_prefix("::").map(identifier).unwrap_or_default();
            let path = if CHESS_ALIASES.contains(&first.as_str()) {
                vec!["chess".to_owned(), first]
            } else {
                vec![first, second]
            };
            found.push(path);
        }
        for (at, _) in line.match_indices("super::") {
            if line[..at].ends_with("super::")
                || line[..at].ends_with(|character: char| character.is_ascii_alphanumeric() || character == '_')
            {
                continue;
            }
            let mut base = here.to_vec();
            let mut rest = &line[at..];
            while let Some(after) = rest.strip_prefix("super::") {
                base.pop();
                rest = after;
            }
            // `super::{a, b::c}` names several modules.
            let names: Vec<String> = match rest.strip_prefix('{') {
                Some(group) => group.split(',').map(|name| identifier(name.trim())).collect(),
                None => vec![identifier(rest)],
            };
            for name in names.into_iter().filter(|name| !name.is_empty()) {
                let mut path = base.clone();
                path.push(name);
                found.push(path);
            }
        }
    }
    found
}

fn source_files(folder: &Path, found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_files(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            found.push(path);
        }
    }
}

/// node → the nodes it refers to.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(ROOT).join("src");
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let nodes: BTreeSet<String> = files.iter().map(|file| node(&module_of(file.strip_prefix(&src).unwrap()))).collect();
    for file in &files {
        let here = module_of(file.strip_prefix(&src).unwrap());
        let from = node(&here);
        let code = std::fs::read_to_string(file).unwrap();
        // Unit tests inside a file may reach anywhere.
        let code = code.split("#[cfg(test)]").next().unwrap();
        for path in references(&here, code) {
            let to = node(&path);
            if to != from && nodes.contains(&to) {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
        edges.entry(from).or_default();
    }
    edges
}

/// A cycle of the graph, if there is one.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_owned(), 1);
        stack.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = stack.iter().position(|entry| entry == next).unwrap();
                    let mut found = stack[start..].to_vec();
                    found.push(next.clone());
                    return Some(found);
                }
                0 => {
                    if let Some(found) = visit(next, edges, state, stack) {
                        return Some(found);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.to_owned(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in edges.keys() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(found) = visit(node, edges, &mut state, &mut Vec::new()) {
                return Some(found);
            }
        }
    }
    None
}

#[test]
fn the_module_graph_has_no_cycle() {
    let edges = graph();
    assert!(edges.len() > 30, "only {} modules found", edges.len());
    assert!(edges["chess::movegen"].contains("chess::position"), "the scanner misses references: {edges:?}");
    if let Some(found) = cycle(&edges) {
        panic!("a cycle: {}", found.join(" → "));
    }
}

#[test]
fn lower_layers_know_nothing_of_higher_ones() {
    let edges = graph();
    for (from, to) in &edges {
        for target in to {
            let game = |name: &str| ["chess", "shogi", "go"].iter().any(|game| name.starts_with(&format!("{game}::")));
            assert!(!(from.starts_with("gpu::") && game(target)), "the GPU runtime {from} refers to {target}");
            assert!(
                from.starts_with("cli") || !target.starts_with("cli"),
                "{from} refers to the command line ({target})"
            );
            assert!(!(from.ends_with("::gpu") && target.ends_with("::gtp")), "{from} refers to the protocol {target}");
        }
    }
    // The board types are at the bottom: they refer to nothing but errors.
    for bottom in ["chess::board", "shogi::board", "go::bitmap"] {
        let below: Vec<&String> = edges[bottom].iter().filter(|target| !target.ends_with("::error")).collect();
        assert!(below.is_empty(), "{bottom} refers to {below:?}");
    }
}
