//! The register budgets on a real GPU compiler: every kernel the engines can
//! dispatch, compiled by ACO on RADV's null navi31 and gfx1201 devices, keeps
//! the VGPR budget shaders/budgets.toml gives it, and none spills. The
//! checks themselves are shown to fail: a kernel over a budget, a kernel
//! that spills, a budget that names no kernel. Without RADV (Mesa's
//! mesa-vulkan-drivers; scripts/setup-vulkan installs it) these tests fail,
//! never skip.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..")
}

fn run(arguments: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpu-shader-stats")).args(arguments).output().expect("the program starts")
}

fn describe(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn temporary(name: &str, text: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("gpu-shader-stats-test-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn every_kernel_keeps_its_budget_and_none_spills() {
    let budgets = repository().join("shaders").join("budgets.toml");
    let output = run(&["--worst", "--budgets", budgets.to_str().unwrap()]);
    assert!(output.status.success(), "{}", describe(&output));
    let table = String::from_utf8_lossy(&output.stdout);
    // Both chips were compiled, and the table names the hot kernels.
    for expected in ["# navi31:", "# gfx1201:", "chess/perft/count_leaves_fused", "go/go_playouts/playout_games"] {
        assert!(table.contains(expected), "no '{expected}' in the table:\n{table}");
    }
}

#[test]
fn a_kernel_over_its_budget_fails_with_its_name() {
    let budgets = temporary("over.toml", "[navi31]\n\"chess/perft/count_moves\" = 8\n");
    let output =
        run(&["--chip", "navi31", "--filter", "chess/perft/count_moves", "--budgets", budgets.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("chess/perft/count_moves") && stderr.contains("over its budget of 8"), "{stderr}");
}

#[test]
fn a_configuration_key_sets_the_budget_of_the_configurations_it_names() {
    let budgets = temporary(
        "configuration.toml",
        "[navi31]\n\"chess/perft/count_moves\" = 8\n\"chess/perft/count_moves kogge-stone/\" = 200\n",
    );
    let path = budgets.to_str().unwrap();
    // Kogge-Stone's builds take the larger budget and pass.
    let output = run(&["--chip", "navi31", "--filter", "count_moves kogge-stone/", "--budgets", path]);
    assert_eq!(output.status.code(), Some(0), "{}", describe(&output));
    // The other builds keep the kernel's own budget, and fail it.
    let output = run(&["--chip", "navi31", "--filter", "count_moves magic/", "--budgets", path]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert!(String::from_utf8_lossy(&output.stderr).contains("(magic/"), "{}", describe(&output));
}

/// A kernel that keeps 400 values alive at once: more than any chip's
/// registers, so the compiler must spill.
fn spilling_kernel() -> String {
    let values = 400;
    let mut text = String::from(
        "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n@compute @workgroup_size(64)\n\
         fn pressure(@builtin(global_invocation_id) id: vec3<u32>) {\n    let h0 = data[id.x];\n",
    );
    for index in 1..values {
        let previous = index - 1;
        text += &format!("    let h{index} = (h{previous} ^ (h{previous} >> 15u)) * 0x2c1b3c6du + {index}u;\n");
    }
    // Combined from the last one back, mixing * and +: none can be folded early.
    text += &format!("    var combined = h{};\n", values - 1);
    for index in (0..values - 1).rev() {
        let operator = if index % 2 == 0 { "*" } else { "+" };
        text += &format!("    combined = h{index} {operator} combined;\n");
    }
    text + "    data[id.x] = combined;\n}\n"
}

#[test]
fn a_kernel_that_spills_fails() {
    let kernel = temporary("pressure.wgsl", &spilling_kernel());
    let output = run(&["--chip", "navi31", "--wgsl", kernel.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", describe(&output));
    assert!(String::from_utf8_lossy(&output.stderr).contains("spills"), "{}", describe(&output));
}

#[test]
fn a_budget_naming_no_kernel_is_refused() {
    let budgets = temporary("misspelt.toml", "[navi31]\n\"chess/perft/count_leaves_fusde\" = 64\n");
    // Only a run over every kernel can tell a misspelt name from one its filter left out.
    let output = run(&["--chip", "navi31", "--budgets", budgets.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
    assert!(String::from_utf8_lossy(&output.stderr).contains("count_leaves_fusde"), "{}", describe(&output));
}

#[test]
fn bad_input_is_refused_by_name() {
    let not_toml = temporary("broken.toml", "[navi31\n");
    let output = run(&["--chip", "navi31", "--budgets", not_toml.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));
    assert!(String::from_utf8_lossy(&output.stderr).contains("broken.toml"), "{}", describe(&output));

    let bad_wgsl = temporary("broken.wgsl", "fn (");
    let output = run(&["--chip", "navi31", "--wgsl", bad_wgsl.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));

    let output = run(&["--chip", "navi/31"]);
    assert_eq!(output.status.code(), Some(2), "{}", describe(&output));

    // A chip Mesa does not know is the driver's refusal, named.
    let output = run(&["--chip", "navi99"]);
    assert_eq!(output.status.code(), Some(3), "{}", describe(&output));
    assert!(String::from_utf8_lossy(&output.stderr).contains("navi99"), "{}", describe(&output));
}
