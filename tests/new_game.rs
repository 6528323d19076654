//! The "Adding a game" checklist of docs/architecture.md stays true: every
//! place it names exists, and every game the crate has is in each of them,
//! so a place a game no longer needs (or a new one it does) shows here.

use std::path::Path;

const ARCHITECTURE: &str = include_str!("../docs/architecture.md");

/// The games besides chess: every folder of shaders/ but the engine's own
/// and chess's, each of which the checklist stands `<game>` in for.
fn games() -> Vec<String> {
    let mut games: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders"))
        .expect("the shaders folder")
        .flatten()
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().into_string().expect("a UTF-8 folder name"))
        .filter(|name| name != "common" && name != "chess")
        .collect();
    games.sort();
    games
}

/// The checklist's numbered items.
fn items() -> Vec<String> {
    let section = ARCHITECTURE.split("\n## Adding a game\n").nth(1).expect("docs/architecture.md has 'Adding a game'");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut items: Vec<String> = Vec::new();
    for line in section.lines() {
        let numbered = line.split_once(". ").is_some_and(|(number, _)| number.parse::<u32>().is_ok());
        if numbered {
            items.push(line.to_owned());
        } else if line.starts_with("   ") && !items.is_empty() {
            items.last_mut().expect("an item").push_str(line);
        } else if !line.trim().is_empty() && !items.is_empty() {
            break;
        }
    }
    items
}

/// The paths in backticks of an item: those under the tree's top folders.
fn paths(item: &str) -> Vec<String> {
    item.split('`')
        .skip(1)
        .step_by(2)
        .filter(|token| ["src/", "shaders/", "python/", "web/"].iter().any(|top| token.starts_with(top)))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_place_the_checklist_names_exists_and_holds_every_game() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let games = games();
    assert!(games.contains(&"shogi".to_owned()) && games.contains(&"go".to_owned()), "games: {games:?}");
    let items = items();
    assert!(items.len() >= 5, "the checklist has {} items", items.len());
    let mut problems = Vec::new();
    for item in &items {
        let named = paths(item);
        if named.is_empty() {
            problems.push(format!("names no place: {item}"));
        }
        for path in named {
            if path.contains("<game>") {
                for game in &games {
                    let concrete = path.replace("<game>", game);
                    if !root.join(&concrete).exists() {
                        problems.push(format!("{concrete} (from {path}) does not exist"));
                    }
                }
                continue;
            }
            let Ok(text) = std::fs::read_to_string(root.join(&path)) else {
                problems.push(format!("{path} does not exist"));
                continue;
            };
            for game in &games {
                if !text.contains(&format!("{game}::")) && !text.contains(&format!("mod {game};")) {
                    problems.push(format!("{path} has nothing of {game}: no place for a game there"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "docs/architecture.md's 'Adding a game':\n{}", problems.join("\n"));
}

#[test]
fn the_checklist_says_how_many_places_it_names() {
    let count = items().len();
    let words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    let word = words.get(count).expect("a count in words");
    let capitalised = format!("{}{} places", word[..1].to_uppercase(), &word[1..]);
    assert!(
        ARCHITECTURE.contains(&capitalised),
        "the checklist has {count} items but does not say '{capitalised}': a place was added or removed without its count"
    );
}

/// The front ends that count through the registry (Python's perft, the
/// browser's request and counts, the kernel catalog) name no game but
/// chess, whose Python count does more than every game's (the CPU's table,
/// the GPU's cross-check): a new game reaches them through the registry alone.
#[test]
fn the_registry_front_ends_name_no_game_of_their_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut problems = Vec::new();
    for path in ["python/src/perft.rs", "web/src/request.rs", "web/src/runs.rs", "src/catalog.rs"] {
        let text = std::fs::read_to_string(root.join(path)).unwrap_or_else(|error| panic!("{path}: {error}"));
        for game in games() {
            for mention in [format!("{game}::"), format!("{}Game", game[..1].to_uppercase() + &game[1..])] {
                if text.contains(&mention) {
                    problems.push(format!("{path} names {mention}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
