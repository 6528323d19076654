//! Every composed kernel through a second WGSL compiler: Tint, the one
//! Chromium's WebGPU uses, written apart from naga, through Dawn for Node
//! (the npm package `webgpu`, pinned in tests/tint/package-lock.json;
//! scripts/test installs it with `npm ci`). Each module must compile with no
//! error and no warning, and each entry point must give a compute pipeline.
//! WebGPU has no 64-bit integers, so the chess kernels go in their portable
//! two-word representation, every slider algorithm, and the seven chess
//! variants' perft kernels; Shogi in both board
//! layouts; Go on every size; and the embedding library with a user kernel.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpu_movegen::chess::gpu::embed::{self, EmbedOptions};
use gpu_movegen::chess::gpu::variant::variant_selected_module;
use gpu_movegen::chess::gpu::{ShaderBuild, shaders as chess};
use gpu_movegen::chess::variant::Variant;
use gpu_movegen::go::gpu::shaders as go;
use gpu_movegen::gpu::composer::ModuleKind;
use gpu_movegen::shogi::gpu::layout::BoardWords;
use gpu_movegen::shogi::gpu::shaders as shogi;
use gpu_movegen::sliders::SliderAlgorithm;

/// Every module the crate composes for a WebGPU device, by file name.
fn composed_modules() -> Vec<(String, String)> {
    let mut modules = Vec::new();
    for slider in SliderAlgorithm::ALL {
        let build = ShaderBuild { slider, native_u64: false };
        for module in chess::modules().filter(|module| module.kind == ModuleKind::Kernels) {
            let source = chess::compose_build(module.name, build, &[]).expect("composes");
            modules.push((format!("chess-{}-{}.wgsl", module.name, build.name().replace('/', "-")), source));
        }
        let user = "#import chess\n@group(1) @binding(0) var<storage, read_write> output: array<u32>;\n\
                    @compute @workgroup_size(64)\nfn user_kernel(@builtin(global_invocation_id) id: vec3<u32>) {\n    \
                    output[id.x] = bitboard_count(table_knight_attacks(id.x % 64u));\n}\n";
        let options = EmbedOptions { build, ..Default::default() };
        let composed = embed::compose(user, options).expect("the embedding library composes");
        modules.push((format!("embedded-{}.wgsl", build.name().replace('/', "-")), composed.source));
    }
    // The chess variants' perft kernels, one module a variant (the variant
    // is a constant of the module), in the portable representation.
    for variant in Variant::VARIANTS {
        let selected = variant_selected_module(variant);
        let source = chess::compose_build("variant_perft", ShaderBuild::default(), &[("variant_selected", &selected)])
            .expect("composes");
        modules.push((format!("chess-variant_perft-{variant}.wgsl"), source));
    }
    for layout in [BoardWords::Full, BoardWords::ThreeRanks] {
        for module in shogi::modules().filter(|module| module.kind == ModuleKind::Kernels) {
            let source = shogi::compose_build(module.name, layout, &[]).expect("composes");
            modules.push((format!("shogi-{}-{layout:?}.wgsl", module.name), source));
        }
    }
    for size in 2..=19 {
        for root in ["go_perft", "go_legal", "go_playouts"] {
            modules.push((format!("{root}-{size}.wgsl"), go::compose(root, size, &[]).expect("composes")));
        }
    }
    modules
}

fn tint_folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("tint")
}

#[test]
fn every_composed_kernel_compiles_with_tint_without_a_warning() {
    let installed = tint_folder().join("node_modules").join("webgpu");
    assert!(
        installed.exists(),
        "Dawn for Node is not installed: run `npm ci --prefix tests/tint` (scripts/test does it; it needs Node.js)"
    );
    let folder = std::env::temp_dir().join(format!("gpu-movegen-tint-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let modules = composed_modules();
    for (name, source) in &modules {
        std::fs::write(folder.join(name), source).unwrap();
    }
    let output = Command::new("node")
        .arg(tint_folder().join("compile.mjs"))
        .arg(&folder)
        .env("NODEVICE_SELECT", "1")
        .output()
        .expect("Node.js runs (Debian: apt-get install nodejs npm)");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    let summary = stdout.lines().last().expect("a summary line");
    let problems: Vec<&str> = stdout.lines().filter(|line| line.contains("\"type\"")).collect();
    assert!(problems.is_empty(), "Tint reported {} problems:\n{}", problems.len(), problems.join("\n"));
    assert!(summary.contains(&format!("\"files\":{}", modules.len())), "{summary}");
    assert!(summary.contains("\"problems\":0"), "{summary}");
    std::fs::remove_dir_all(&folder).unwrap();
}
