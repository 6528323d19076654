//! Writes the chess WGSL library for any WebGPU host (`scripts/web build`
//! puts it in the site's `wgsl/` folder; `web/site/embed.html` uses it).
//!
//! WebGPU has no 64-bit integers, so every module is built on u32 pairs: one
//! `chess-<sliders>-u32x2.wgsl` per slider algorithm, each the whole library
//! that `#import chess` brings in, with the attack tables at `@group(0)
//! @binding(0)`. Append your own kernels to one. `chess-tables.bin` is the
//! table buffer's contents (little-endian words; the magic sliders read all
//! of it, the others the part before the magic tables).
//!
//! Usage: `cargo run --example export_wgsl -- FOLDER`

use gpu_movegen::chess::gpu::embed::{self, EmbedOptions};
use gpu_movegen::chess::gpu::shaders::{ShaderBuild, attack_table_data};
use gpu_movegen::sliders::SliderAlgorithm;

fn main() -> std::process::ExitCode {
    let Some(folder) = std::env::args_os().nth(1).map(std::path::PathBuf::from) else {
        eprintln!("usage: export_wgsl FOLDER");
        return std::process::ExitCode::from(2);
    };
    match export(&folder) {
        Ok(count) => {
            println!("wrote {count} WGSL modules and chess-tables.bin to {}", folder.display());
            std::process::ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("export_wgsl: {message}");
            std::process::ExitCode::from(2)
        }
    }
}

fn export(folder: &std::path::Path) -> Result<usize, String> {
    std::fs::create_dir_all(folder).map_err(|error| format!("{}: {error}", folder.display()))?;
    let write =
        |name: &str, bytes: &[u8]| std::fs::write(folder.join(name), bytes).map_err(|error| format!("{name}: {error}"));
    for slider in SliderAlgorithm::ALL {
        let build = ShaderBuild { slider, native_u64: false };
        // The library alone: what `#import chess` resolves to, ready for a host's own kernels.
        let composed = embed::compose("#import chess\n", EmbedOptions { build, ..Default::default() })
            .map_err(|error| error.to_string())?;
        let header = format!(
            "// gpu-movegen {} chess library, {} sliders on u32 pairs, for WebGPU.\n\
             // Reads the attack tables at @group(0) @binding(0) (chess-tables.bin).\n\
             // Append compute kernels that call it; docs/wgsl-api.md lists its functions.\n",
            env!("CARGO_PKG_VERSION"),
            slider.name()
        );
        write(&format!("chess-{}-u32x2.wgsl", slider.name()), format!("{header}{}", composed.source).as_bytes())?;
    }
    write("chess-tables.bin", bytemuck_bytes(&attack_table_data()))?;
    Ok(SliderAlgorithm::ALL.len())
}

fn bytemuck_bytes(words: &[[u32; 2]]) -> &[u8] {
    gpu_movegen::bytemuck::cast_slice(words)
}
