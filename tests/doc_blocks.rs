//! Every code block of README.md and docs/ is compiled by a test: Rust
//! blocks are doc tests (src/lib.rs includes each file that has one), and
//! WGSL, whether a ```wgsl block or a shader string inside a Rust block, is
//! composed with the library for every slider and both bitboard layouts and
//! validated by naga.

use gpu_movegen::chess::gpu::ShaderBuild;
use gpu_movegen::chess::gpu::embed::{self, EmbedOptions};
use gpu_movegen::sliders::SliderAlgorithm;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// README.md, BENCHMARKS.md and every Markdown file of docs/, with their text.
fn documents() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_owned(), "BENCHMARKS.md".to_owned()];
    for entry in std::fs::read_dir(format!("{ROOT}/docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            names.push(format!("docs/{name}"));
        }
    }
    names
        .into_iter()
        .map(|name| (std::fs::read_to_string(format!("{ROOT}/{name}")).unwrap(), name))
        .map(|(text, name)| (name, text))
        .collect()
}

/// (language, body) of each fenced block.
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut open: Option<(String, Vec<&str>)> = None;
    for line in text.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(language)) => open = Some((language.trim().to_owned(), Vec::new())),
            (Some(_), Some(rest)) if rest.trim().is_empty() => {
                let (language, lines) = open.take().unwrap();
                found.push((language, lines.join("\n")));
            }
            (Some((_, lines)), _) => lines.push(line),
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a fence is left open");
    found
}

/// The shader strings (`r#"…"#` holding `#import`) inside a Rust block.
fn shader_strings(rust: &str) -> Vec<String> {
    rust.split("r#\"")
        .skip(1)
        .filter_map(|rest| rest.split_once("\"#"))
        .map(|(shader, _)| shader.to_owned())
        .filter(|shader| shader.contains("#import"))
        .collect()
}

fn validate(name: &str, wgsl: &str) {
    for slider in SliderAlgorithm::ALL {
        for native_u64 in [false, true] {
            let build = ShaderBuild { slider, native_u64 };
            let options = EmbedOptions { table_group: 1, build, ..Default::default() };
            let composed =
                embed::compose(wgsl, options).unwrap_or_else(|error| panic!("{name} ({}): {error}", build.name()));
            let module = naga::front::wgsl::parse_str(&composed.source).unwrap();
            let capabilities =
                if native_u64 { naga::valid::Capabilities::SHADER_INT64 } else { naga::valid::Capabilities::empty() };
            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
                .validate(&module)
                .unwrap_or_else(|error| panic!("{name} ({}) does not validate: {error:?}", build.name()));
            assert!(!composed.entry_points.is_empty(), "{name}: no entry point");
        }
    }
}

#[test]
fn every_wgsl_block_and_shader_string_composes_and_validates() {
    let mut validated = 0;
    for (name, text) in documents() {
        for (index, (language, body)) in blocks(&text).into_iter().enumerate() {
            let shaders = match language.split(',').next().unwrap() {
                "wgsl" => vec![body],
                "rust" => shader_strings(&body),
                _ => continue,
            };
            for shader in shaders {
                validate(&format!("{name} block {}", index + 1), &shader);
                validated += 1;
            }
        }
    }
    // README's embedding example and docs/wgsl-api.md's kernel at least.
    assert!(validated >= 2, "only {validated} shaders found");
}

#[test]
fn every_document_with_rust_blocks_is_a_doc_test_and_none_skips_running() {
    let library = std::fs::read_to_string(format!("{ROOT}/src/lib.rs")).unwrap();
    for (name, text) in documents() {
        let blocks = blocks(&text);
        let rust: Vec<&(String, String)> = blocks
            .iter()
            .filter(|(language, _)| language.split(',').next() == Some("rust") || language.is_empty())
            .collect();
        if rust.is_empty() {
            continue;
        }
        assert!(
            library.contains(&format!("include_str!(\"../{name}\")")),
            "{name} has Rust blocks but is not a doc test"
        );
        for (language, body) in rust {
            // Every block runs: one that only compiles proves nothing of what it prints.
            assert!(
                !language.contains("no_run") && !language.contains("ignore"),
                "{name}: a block marked {language}:\n{body}"
            );
        }
    }
}
