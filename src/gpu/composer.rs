//! The WGSL composer: `#import name` lines pull in other modules, each once,
//! dependencies first, after a prelude of generated constants.
//!
//! It is deliberately tiny. The shaders need only whole-file inclusion plus
//! substitution (a game picks which file stands in for `bitboard` or
//! `sliders`), which keeps every composed module plain WGSL that naga and
//! any other WGSL tool reads as is. An established composer such as
//! naga_oil would tie this crate's wgpu upgrades to its own naga versions.

use std::collections::HashSet;
use std::fmt::Write as _;

/// Whether a module is a library (functions and types to import) or holds
/// kernels (compute entry points the host dispatches).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModuleKind {
    Library,
    Kernels,
}

/// One WGSL file: its import name, its path under shaders/, what it is, and its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Module {
    pub name: &'static str,
    pub path: &'static str,
    pub kind: ModuleKind,
    pub source: &'static str,
}

/// The game-independent modules in shaders/common/.
pub const COMMON_MODULES: &[Module] = &[
    Module {
        name: "bitboard64",
        path: "common/bitboard64.wgsl",
        kind: ModuleKind::Library,
        source: include_str!("../../shaders/common/bitboard64.wgsl"),
    },
    Module {
        name: "bitboard64_native",
        path: "common/bitboard64_native.wgsl",
        kind: ModuleKind::Library,
        source: include_str!("../../shaders/common/bitboard64_native.wgsl"),
    },
    Module {
        name: "bitboard81",
        path: "common/bitboard81.wgsl",
        kind: ModuleKind::Library,
        source: include_str!("../../shaders/common/bitboard81.wgsl"),
    },
    Module {
        name: "wide_counter",
        path: "common/wide_counter.wgsl",
        kind: ModuleKind::Library,
        source: include_str!("../../shaders/common/wide_counter.wgsl"),
    },
    Module {
        name: "scan",
        path: "common/scan.wgsl",
        kind: ModuleKind::Library,
        source: include_str!("../../shaders/common/scan.wgsl"),
    },
    Module {
        name: "perft_engine",
        path: "common/perft_engine.wgsl",
        kind: ModuleKind::Library,
        source: include_str!("../../shaders/common/perft_engine.wgsl"),
    },
    Module {
        name: "random",
        path: "common/random.wgsl",
        kind: ModuleKind::Library,
        source: include_str!("../../shaders/common/random.wgsl"),
    },
];

/// Why a module could not be composed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ComposeError {
    #[error("unknown WGSL module '{name}' (imported by '{importer}')")]
    UnknownModule { name: String, importer: String },
    #[error("WGSL modules import each other in a cycle through '{0}'")]
    Cycle(String),
}

/// The module `root` with everything it imports, after `prelude`. Names are
/// looked up in `modules` in order, so earlier entries override later ones
/// (that is how substitutions and callers' own modules work).
pub fn compose(root: &str, modules: &[(&str, &str)], prelude: &str) -> Result<String, ComposeError> {
    fn visit(
        name: &str,
        importer: &str,
        modules: &[(&str, &str)],
        done: &mut HashSet<String>,
        in_progress: &mut Vec<String>,
        output: &mut String,
    ) -> Result<(), ComposeError> {
        if done.contains(name) {
            return Ok(());
        }
        if in_progress.iter().any(|module| module == name) {
            return Err(ComposeError::Cycle(name.to_owned()));
        }
        let source = modules
            .iter()
            .find(|(module, _)| *module == name)
            .map(|(_, source)| *source)
            .ok_or_else(|| ComposeError::UnknownModule { name: name.to_owned(), importer: importer.to_owned() })?;
        in_progress.push(name.to_owned());
        for line in source.lines() {
            if let Some(import) = line.trim().strip_prefix("#import") {
                visit(import.trim(), name, modules, done, in_progress, output)?;
            }
        }
        in_progress.pop();
        writeln!(output, "// ---- module {name} ----").unwrap();
        for line in source.lines().filter(|line| !line.trim().starts_with("#import")) {
            output.push_str(line);
            output.push('\n');
        }
        done.insert(name.to_owned());
        Ok(())
    }

    let mut output = prelude.to_owned();
    visit(root, "(root)", modules, &mut HashSet::new(), &mut Vec::new(), &mut output)?;
    Ok(output)
}

/// WGSL `const` declarations for `(name, value)` pairs: how Rust constants
/// (fault bits, workgroup sizes, table offsets) reach the shaders.
pub fn constants(values: &[(&str, u32)]) -> String {
    let mut text = String::new();
    for (name, value) in values {
        writeln!(text, "const {name}: u32 = {value}u;").unwrap();
    }
    text
}
