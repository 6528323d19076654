//! The command line: output formats, exit codes and one-line errors.

use std::process::{Command, Output};

fn run(arguments: &[&str]) -> Output {
    run_with(arguments, &[])
}

fn run_with(arguments: &[&str], environment: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpu-movegen"))
        .args(arguments)
        .envs(environment.iter().copied())
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// stderr as printed: the binary turns off Mesa's device-select layer, whose
/// XDG_RUNTIME_DIR warning would otherwise appear on headless machines.
fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn perft_prints_nodes_searched_last() {
    let output = run(&["perft", "--depth", "4", "--threads", "2"]);
    assert!(output.status.success());
    assert_eq!(stdout(&output).lines().last(), Some("Nodes searched: 197281"));
}

#[test]
fn perft_divide_uses_stockfish_format() {
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let output = run(&["perft", "--fen", fen, "--depth", "2", "--divide"]);
    assert!(output.status.success());
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 48 + 2);
    assert!(lines.contains(&"e1g1: 43"), "castling is written as the king's move");
    assert_eq!(lines[48], "");
    assert_eq!(lines[49], "Nodes searched: 2039");
    let sum: u64 = lines[..48].iter().map(|line| line.split(": ").nth(1).unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(sum, 2039);
}

#[test]
fn perft_epd_reports_passes_and_failures() {
    let directory = std::env::temp_dir().join(format!("gpu-movegen-cli-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let good = directory.join("good.epd");
    std::fs::write(
        &good,
        "# comment\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D5 4865609\n",
    )
    .unwrap();
    let output = run(&["perft", "--epd", good.to_str().unwrap(), "--max-depth", "2"]);
    assert!(output.status.success());
    assert_eq!(stdout(&output).lines().last(), Some("1 passed, 0 failed"));

    let bad = directory.join("bad.epd");
    std::fs::write(&bad, "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 67\nK7/8/8/8/8/8/8/7k w - - 0 1 ;D1 3\n").unwrap();
    let output = run(&["perft", "--epd", bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(text.contains("4k3/8/8/8/8/8/8/4K2R w K - 0 1 depth 2: expected 67, got 66"), "{text}");
    assert_eq!(text.lines().last(), Some("1 passed, 1 failed"));

    let broken = directory.join("broken.epd");
    std::fs::write(&broken, "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15\n4k3/8/8/8/8/8/8/4K2Z w - - 0 1 ;D1 3\n").unwrap();
    let output = run(&["perft", "--epd", broken.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains("line 2") && message.contains("'Z'"), "{message}");
    std::fs::remove_dir_all(&directory).unwrap();
}

#[test]
fn perftree_applies_moves_and_prints_total_last() {
    let output = run(&["perftree", "3", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "e2e4 e7e5"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    let (total, moves) = lines.split_last().unwrap();
    assert_eq!(moves.last(), Some(&""));
    let sum: u64 =
        moves[..moves.len() - 1].iter().map(|line| line.split(' ').nth(1).unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(total.parse::<u64>().unwrap(), sum);
    assert_eq!(moves.len() - 1, 29, "white has 29 moves after 1. e4 e5");
    assert!(moves.iter().any(|line| line.starts_with("g1f3 ")));
}

#[test]
fn chess960_castling_is_king_takes_rook_on_both_backends() {
    // The king on g1 castles by moving the rook alone: king takes rook, always.
    let chess960 = "4k3/8/8/8/8/8/8/R5KR w KQ - 0 1";
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    for backend in ["cpu", "gpu"] {
        let output = run(&["perft", "--fen", chess960, "--depth", "2", "--divide", "--backend", backend]);
        assert!(output.status.success(), "{}", stderr(&output));
        let text = stdout(&output);
        assert!(
            text.lines().any(|line| line.starts_with("g1h1: ")) && text.lines().any(|line| line.starts_with("g1a1: "))
        );
        // Standard castling as the king's move, or as king takes rook when asked.
        let standard = stdout(&run(&["perft", "--fen", kiwipete, "--depth", "1", "--divide", "--backend", backend]));
        assert!(standard.contains("e1g1: 1") && standard.contains("e1c1: 1"), "{standard}");
        let asked = run(&["perft", "--fen", kiwipete, "--depth", "1", "--divide", "--chess960", "--backend", backend]);
        let asked = stdout(&asked);
        assert!(asked.contains("e1h1: 1") && asked.contains("e1a1: 1") && !asked.contains("e1g1"), "{asked}");
    }
    // perftree reads either form and answers in the root's notation.
    let by_rook = run(&["perftree", "2", chess960, "g1h1 e8d8"]);
    let by_king = run(&["perftree", "2", chess960, "g1g1 e8d8"]);
    assert!(by_rook.status.success(), "{}", stderr(&by_rook));
    assert_eq!(stdout(&by_rook), stdout(&by_king));
    let text = stdout(&run(&["perftree", "1", kiwipete, "", "--chess960"]));
    assert!(text.lines().any(|line| line == "e1h1 1"), "{text}");
    // A suite of Chess960 positions in Shredder-FEN.
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/chess960.perft");
    let output = run(&["perft", "--epd", suite, "--max-depth", "2", "--backend", "gpu"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().last(), Some("960 passed, 0 failed"));
    // A castling right with no rook to castle with is named.
    let message = stderr(&run(&["perft", "--fen", "4k3/8/8/8/8/8/8/4K2R w Q - 0 1"]));
    assert!(message.contains("castling right 'Q' needs a white rook"), "{message}");
}

#[test]
fn bad_input_is_one_line_on_stderr_with_exit_code_two() {
    let cases: &[&[&str]] = &[
        &["perft", "--fen", "not a fen"],
        &["perft", "--depth", "many"],
        &["perft", "--backend", "quantum"],
        &["perft", "--threads", "0"],
        &["perft", "--unknown-flag"],
        &["perft", "--epd", "/nonexistent/suite.epd"],
        &["perftree", "2", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "e2e5"],
        &["perftree", "2", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "e2"],
        &["perftree", "0", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"],
        &["frobnicate"],
    ];
    for arguments in cases {
        let output = run(arguments);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}");
        let message = stderr(&output);
        assert_eq!(message.lines().count(), 1, "{arguments:?}: {message}");
        assert!(stdout(&output).is_empty(), "{arguments:?}");
    }
    let message = stderr(&run(&["perft", "--fen", "4k3/8/8/8/8/8/8/4K3 x - - 0 1"]));
    assert!(message.contains("side to move is 'x'"), "{message}");
    let message = stderr(&run(&["perftree", "2", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "e1e3"]));
    assert!(message.contains("'e1e3' is not a legal move"), "{message}");
}

#[test]
fn verify_compares_gpu_and_cpu_on_a_suite_and_on_random_play() {
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/edge_cases.epd");
    let output = run(&["verify", "--epd", suite]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().last(), Some("40 passed, 0 failed"), "20 positions, 2 kernels");

    let output = run(&["verify", "--random", "300", "--seed", "9", "--kernel", "per-position"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().last(), Some("300 passed, 0 failed"));

    let output = run(&["verify", "--random", "500", "--seed", "9", "--chess960"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().last(), Some("1000 passed, 0 failed"), "500 positions, 2 kernels");

    for arguments in [
        &["verify"][..],
        &["verify", "--random", "10"],
        &["verify", "--epd", "suite.epd", "--chess960"],
        &["verify", "--kernel", "sideways", "--random", "1", "--seed", "1"],
    ] {
        let output = run(arguments);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}");
        assert_eq!(stderr(&output).lines().filter(|line| line.starts_with("error")).count(), 1, "{arguments:?}");
    }
}

#[test]
fn info_names_the_chosen_adapter_and_its_limits_and_runs_the_self_test_once() {
    // A cache folder of its own, so that every check runs here for real.
    let cache = std::env::temp_dir().join(format!("gpu-movegen-info-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let environment = [("GPU_MOVEGEN_CACHE_DIR", cache.to_str().unwrap())];
    let output = run_with(&["info"], &environment);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    for needle in [
        "cpu perft sliders: ",
        "chosen: ",
        "backend: ",
        "max_storage_buffer_binding_size: ",
        "SHADER_INT64: ",
        "\nself-test: passed\n",
    ] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
    let checks: Vec<&str> = text.lines().filter(|line| line.ends_with(" s)") || line.ends_with("(cached)")).collect();
    assert_eq!(checks.len(), 9, "{text}");
    assert!(checks.iter().all(|line| line.contains(": passed (") && !line.contains("cached")), "{text}");
    // A second process reads every verdict back.
    let again = stdout(&run_with(&["info"], &environment));
    let cached = again.lines().filter(|line| line.ends_with(": passed (cached)")).count();
    assert_eq!(cached, 9, "{again}");
    std::fs::remove_dir_all(cache).unwrap();
}

/// `info --kernels` says, per game, which kernels perft dispatches on this
/// device and why: on lavapipe, a software adapter, the last two plies one
/// invocation per position (Shogi's last level stored), each chess family
/// on the build the adapter table measured for it, and where to find the
/// registers.
#[test]
fn info_kernels_names_each_games_kernels_and_why() {
    let output = run(&["info", "--kernels"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let section = &text[text.find("kernels (perft").unwrap_or_else(|| panic!("no kernels section in:\n{text}"))..];
    for needle in [
        "  chess: build kogge-stone/u32x2 (measured on lavapipe",
        "  variants: build kogge-stone/u64 (measured on lavapipe",
        "  shogi: build full-words",
        "  go: build ",
        "count_leaves_looped",
        "software adapter",
        "scripts/gpu-shader-stats",
    ] {
        assert!(section.contains(needle), "{needle} missing from:\n{section}");
    }
    assert!(!section.contains("count_leaves_fused"), "{section}");
    // Without the flag the section is left out.
    assert!(!stdout(&run(&["info"])).contains("kernels (perft"));
}

/// GPU_MOVEGEN_CPU_SLIDERS chooses the CPU engine's slider path for a whole
/// process; every choice counts exactly and says which path it took, and
/// an unknown one falls back to the automatic choice.
#[test]
fn the_cpu_slider_path_can_be_chosen_for_a_process() {
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let automatic = gpu_movegen::chess::fast_perft::SliderLookup::selected().name();
    let has_pext = gpu_movegen::chess::fast_perft::SliderLookup::Pext.is_available();
    for (choice, expected) in
        [("magic", "magic"), ("pext", if has_pext { "pext" } else { "magic" }), ("neither", automatic)]
    {
        let output = run_with(
            &["perft", "--backend", "cpu", "--hash", "0", "--depth", "4", "--fen", kiwipete],
            &[("GPU_MOVEGEN_CPU_SLIDERS", choice)],
        );
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(stdout(&output).contains("Nodes searched: 4085603"), "{choice}: {}", stdout(&output));
        assert!(stderr(&output).contains(&format!("{expected} sliders")), "{choice}: {}", stderr(&output));
    }
}

#[test]
fn a_missing_adapter_is_one_clear_line_and_exit_code_three() {
    let output = run_with(&["verify", "--random", "1", "--seed", "1"], &[("WGPU_ADAPTER_NAME", "no such adapter 42")]);
    assert_eq!(output.status.code(), Some(3));
    let message = stderr(&output);
    let error_lines: Vec<&str> = message.lines().filter(|line| line.starts_with("error")).collect();
    assert_eq!(error_lines.len(), 1, "{message}");
    assert!(error_lines[0].contains("WGPU_ADAPTER_NAME='no such adapter 42' matches none"), "{message}");

    // No adapter on the named backend: the message says which driver to install.
    let output = run_with(&["info"], &[("WGPU_BACKEND", "dx12")]);
    assert_eq!(output.status.code(), Some(3));
    let message = stderr(&output);
    assert!(message.contains("no GPU adapter found") && message.contains("mesa-vulkan-drivers"), "{message}");
}

#[test]
fn gpu_and_cpu_backends_print_the_same_counts() {
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    for arguments in [
        &["perft", "--depth", "4"][..],
        &["perft", "--fen", kiwipete, "--depth", "3", "--divide"],
        &["perftree", "3", kiwipete, "e1g1 a6e2"],
    ] {
        let gpu = run(&[arguments, &["--backend", "gpu"]].concat());
        let cpu = run(&[arguments, &["--backend", "cpu"]].concat());
        assert!(gpu.status.success() && cpu.status.success(), "{arguments:?}: {}", stderr(&gpu));
        assert_eq!(stdout(&gpu), stdout(&cpu), "{arguments:?}");
    }
    let gpu = run(&["perft", "--depth", "4", "--backend", "gpu"]);
    assert_eq!(stdout(&gpu).lines().last(), Some("Nodes searched: 197281"));
    assert!(stderr(&gpu).contains("on the GPU"), "{}", stderr(&gpu));
}

#[test]
fn a_suite_runs_batched_on_the_gpu() {
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/edge_cases.epd");
    let output = run(&["perft", "--epd", suite, "--max-depth", "3", "--backend", "gpu"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().last(), Some("20 passed, 0 failed"));
}

#[test]
fn summary_line_on_stderr_unless_quiet() {
    let output = run(&["perft", "--depth", "3", "--backend", "cpu"]);
    let message = stderr(&output);
    assert!(message.contains("8902 nodes in") && message.contains("nodes/s) on the CPU"), "{message}");
    let output = run(&["perft", "--depth", "3", "--backend", "cpu", "--quiet"]);
    assert_eq!(stderr(&output), "");
    assert_eq!(stdout(&output), "Nodes searched: 8902\n");
}

#[test]
fn without_an_adapter_gpu_fails_and_auto_falls_back_to_the_cpu() {
    let no_adapter = [("WGPU_ADAPTER_NAME", "no such adapter 42")];
    let output = run_with(&["perft", "--depth", "3", "--backend", "gpu"], &no_adapter);
    assert_eq!(output.status.code(), Some(3));
    assert!(stdout(&output).is_empty());
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.starts_with("error: ") && message.contains("matches none of the adapters"), "{message}");

    let output = run_with(&["perft", "--depth", "3"], &no_adapter);
    assert!(output.status.success());
    assert_eq!(stdout(&output).lines().last(), Some("Nodes searched: 8902"));
    let message = stderr(&output);
    assert!(message.contains("running on the CPU instead"), "{message}");
}

#[test]
fn slider_and_int64_choices_reach_the_gpu_pipelines() {
    let output = run(&["perft", "--depth", "3", "--backend", "gpu", "--slider", "magic", "--int64", "off"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().last(), Some("Nodes searched: 8902"));
    assert!(stderr(&output).contains("magic/u32x2"), "{}", stderr(&output));

    let output = run(&["verify", "--random", "200", "--seed", "3", "--slider", "sbamg", "--int64", "on"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().last(), Some("400 passed, 0 failed"));
    assert!(stderr(&output).contains("sbamg/u64"), "{}", stderr(&output));

    let output = run(&["perft", "--slider", "bogus"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("bogus"), "{}", stderr(&output));
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

#[test]
fn impossible_material_is_refused_by_every_command_and_backend() {
    let fens = [
        // 263 legal moves, 27 white pieces: once a panic in the move list.
        "krQQQQQQ/rrQ4Q/QQ5Q/Q6Q/Q6Q/Q6Q/Q6Q/QQQQQQQK w - - 0 1",
        "4k3/pppppppp/pppppppp/8/8/PPPPPPPP/PPPPPPPP/4K3 w - - 0 1",
        "QQQQQQQQ/QQQQQQQQ/8/8/8/8/8/k6K w - - 0 1",
        "4k3/8/8/8/8/8/PPPPPPPP/QQQQ1QQK w - - 0 1",
    ];
    let suite = std::env::temp_dir().join(format!("gpu-movegen-material-{}.epd", std::process::id()));
    std::fs::write(&suite, format!("{} ;D1 20\n", fens[0])).unwrap();
    let suite = suite.to_str().unwrap().to_owned();
    for fen in fens {
        for backend in ["cpu", "gpu", "auto"] {
            for arguments in [
                &["perft", "--fen", fen, "--depth", "2", "--backend", backend][..],
                &["perft", "--fen", fen, "--depth", "1", "--divide", "--backend", backend],
                &["perftree", "2", fen, "--backend", backend],
                &["perftree", "1", fen, "a1a2", "--backend", backend],
                &["perft", "--epd", &suite, "--backend", backend],
            ] {
                let output = run(arguments);
                assert_eq!(output.status.code(), Some(2), "{arguments:?}: {}", stderr(&output));
                let message = stderr(&output);
                assert!(
                    message.contains("piece placement") && message.contains("white has"),
                    "{arguments:?}: {message}"
                );
                assert!(!message.contains("panicked"), "{message}");
                assert!(stdout(&output).is_empty(), "{arguments:?}");
            }
        }
        let output = run(&["verify", "--epd", &suite]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    }
}

#[test]
fn depth_0_is_one_node_and_cannot_be_divided() {
    for backend in ["cpu", "gpu"] {
        let output = run(&["perft", "--depth", "0", "--backend", backend]);
        assert_eq!(stdout(&output), "Nodes searched: 1\n", "{backend}");
        let output = run(&["perft", "--depth", "0", "--divide", "--backend", backend]);
        assert_eq!(output.status.code(), Some(2), "{backend}");
        assert!(stderr(&output).contains("--divide needs --depth 1 or more"), "{}", stderr(&output));
        for game in ["shogi", "go"] {
            let output = run(&[game, "perft", "--depth", "0", "--backend", backend, "-q"]);
            assert_eq!(stdout(&output), "Nodes searched: 1\n", "{game} on the {backend}");
        }
    }
}

#[test]
fn gpu_memory_caps_perft_without_changing_counts() {
    for mebibytes in ["1", "3"] {
        let output = run(&["perft", "--fen", KIWIPETE, "--depth", "5", "--backend", "gpu", "--gpu-memory", mebibytes]);
        assert!(output.status.success(), "{}", stderr(&output));
        assert_eq!(stdout(&output).lines().last(), Some("Nodes searched: 193690690"), "{mebibytes} MiB");
    }
    let output = run(&["verify", "--random", "100", "--seed", "5", "--gpu-memory", "2"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().last(), Some("200 passed, 0 failed"));
    for bad in ["0", "lots", "99999999"] {
        let output = run(&["perft", "--gpu-memory", bad]);
        assert_eq!(output.status.code(), Some(2), "{bad}");
        assert!(stderr(&output).contains("--gpu-memory"), "{}", stderr(&output));
    }
}

/// `auto` takes the CPU when the best adapter is a software one, and the
/// GPU when it is a real one; either way it says where it ran.
#[test]
fn auto_counts_on_the_cpu_when_the_only_adapter_is_software() {
    let info = stdout(&run(&["info"]));
    let chosen = info.lines().find(|line| line.starts_with("chosen: ")).expect("info names the adapter");
    let output = run(&["perft", "--depth", "4"]);
    assert!(output.status.success());
    assert_eq!(stdout(&output).lines().last(), Some("Nodes searched: 197281"));
    let message = stderr(&output);
    if chosen.contains(", Cpu") {
        assert!(message.contains("is a software one; counting on the CPU"), "{message}");
        assert!(message.contains("on the CPU, "), "{message}");
    } else {
        assert!(message.contains("on the GPU, "), "{message}");
    }
}

#[test]
fn successful_runs_print_no_error_lines() {
    for arguments in [
        &["perft", "--depth", "3", "--backend", "gpu"][..],
        &["perft", "--depth", "3"],
        &["verify", "--random", "20", "--seed", "1"],
        &["info"],
        &["perftree", "2", KIWIPETE, "--backend", "gpu"],
    ] {
        let output = run(arguments);
        assert!(output.status.success(), "{arguments:?}");
        let message = stderr(&output);
        assert!(!message.lines().any(|line| line.starts_with("error")), "{arguments:?}: {message}");
    }
}

#[test]
fn go_perft_counts_on_both_backends_and_divides() {
    for backend in ["cpu", "gpu"] {
        let output = run(&["go", "perft", "--size", "5", "--depth", "3", "--backend", backend, "--quiet"]);
        assert!(output.status.success(), "{}", stderr(&output));
        assert_eq!(stdout(&output).lines().last(), Some("Nodes searched: 13800"), "{backend}");
    }
    let output = run(&["go", "perft", "--size", "7", "--depth", "2", "--divide", "--moves", "B D4 W C3", "--quiet"]);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    let total: u64 = lines
        .iter()
        .filter_map(|line| line.split_once(": "))
        .filter(|(key, _)| *key != "Nodes searched")
        .map(|(_, count)| count.parse::<u64>().unwrap())
        .sum();
    assert_eq!(lines.last().copied(), Some(format!("Nodes searched: {total}").as_str()));
    assert_eq!(lines.iter().filter(|line| line.contains(": ")).count(), 47 + 1, "47 legal points, then the total");
}

#[test]
fn go_playouts_print_the_same_on_the_gpu_and_the_cpu() {
    let arguments = ["go", "playouts", "--size", "9", "--moves", "B E5 W C3", "--playouts", "300", "--seed", "11"];
    let cpu = run(&[&arguments[..], &["--backend", "cpu"]].concat());
    let gpu = run(&[&arguments[..], &["--backend", "gpu"]].concat());
    assert!(cpu.status.success() && gpu.status.success(), "{} {}", stderr(&cpu), stderr(&gpu));
    assert_eq!(stdout(&cpu), stdout(&gpu));
    let text = stdout(&cpu);
    let wins: u32 = text
        .lines()
        .filter_map(|line| {
            line.strip_prefix("Black wins: ")
                .or_else(|| line.strip_prefix("White wins: "))
                .or_else(|| line.strip_prefix("Draws: "))
        })
        .map(|count| count.parse::<u32>().unwrap())
        .sum();
    assert_eq!(wins, 300, "{text}");
}

#[test]
fn go_verify_ends_with_passed_and_failed() {
    let output = run(&["go", "verify", "--random", "150", "--seed", "4", "--size", "9"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().last(), Some("150 passed, 0 failed"));
}

#[test]
fn go_bad_input_is_one_line_with_exit_code_two() {
    let missing = std::env::temp_dir().join("gpu-movegen-no-such-file.sgf");
    let missing = missing.to_str().unwrap();
    for (arguments, words) in [
        (&["go", "perft", "--size", "20"][..], "--size: board size 20"),
        (&["go", "perft", "--moves", "B E5 W E5"], "E5 is occupied"),
        (&["go", "perft", "--moves", "B E5 W"], "no vertex after it"),
        (&["go", "perft", "--moves", "Q E5"], "not a colour"),
        (&["go", "perft", "--moves", "B Z5"], "not a vertex"),
        (&["go", "perft", "--sgf", missing], "gpu-movegen-no-such-file.sgf"),
        (&["go", "playouts", "--playouts", "0"], "--playouts"),
        (&["go", "perft", "--depth", "0", "--divide"], "--divide needs --depth 1"),
        (&["gtp", "--time=-1"], "not a number of seconds"),
        (&["gtp", "--time", "1e20"], "from 0 to 86400"),
        (&["gtp", "--time", "1e19"], "from 0 to 86400"),
        (&["go", "perft", "--moves", "B \u{1b}[2J"], "'\\u{1b}[2J' is not a vertex"),
    ] {
        let output = run(arguments);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {}", stderr(&output));
        let message = stderr(&output);
        assert!(message.contains(words), "{arguments:?}: {message}");
        assert_eq!(message.lines().filter(|line| line.starts_with("error")).count(), 1, "{message}");
    }
}

/// Runs the GTP engine over stdin and stdout, as GoGui and Sabaki drive it,
/// and returns its replies, each without its blank line.
fn gtp_session(commands: &[&str]) -> Vec<String> {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpu-movegen"))
        .args(["gtp", "--backend", "cpu", "--playouts", "300"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    for command in commands {
        writeln!(input, "{command}").unwrap();
    }
    drop(input);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.ends_with("\n\n"), "every reply ends with a blank line: {text:?}");
    text.trim_end().split("\n\n").map(str::to_owned).collect()
}

#[test]
fn gtp_answers_a_front_end_session() {
    // What GoGui sends when it attaches an engine and starts a game, then moves.
    let replies = gtp_session(&[
        "protocol_version",
        "name",
        "version",
        "list_commands",
        "boardsize 9",
        "clear_board",
        "komi 6.5",
        "play b E5",
        "genmove w",
        "showboard",
        "1 list_stones black",
        "2 final_score",
        "quit",
    ]);
    assert_eq!(replies.len(), 13, "{replies:?}");
    assert_eq!(replies[0], "= 2");
    assert_eq!(replies[1], "= gpu-movegen");
    assert!(replies[3].starts_with("= protocol_version\n") && replies[3].contains("\nall_legal\n"), "{}", replies[3]);
    for reply in &replies[4..8] {
        assert_eq!(reply, "=");
    }
    let vertex = replies[8].strip_prefix("= ").expect("genmove answers a vertex");
    assert!(vertex != "E5" && vertex.len() >= 2, "{vertex}");
    assert!(replies[9].contains(" X "), "{}", replies[9]);
    assert_eq!(replies[10], "=1 E5");
    assert!(replies[11].starts_with("=2 "), "{}", replies[11]);
    assert_eq!(replies[12], "=");
}

#[test]
fn gtp_refuses_bad_commands_and_keeps_its_state() {
    let replies = gtp_session(&[
        "boardsize 9",
        "play b e5",
        "play w e5",
        "play black j10",
        "play purple d4",
        "play b",
        "boardsize 40",
        "komi many",
        "frobnicate",
        "countlib a1",
        "undo",
        "undo",
        "undo",
        "list_stones b",
        "play w a1",
        "list_stones w",
        "is_legal b a1",
        "captures w",
    ]);
    assert_eq!(replies[0], "=");
    assert_eq!(replies[1], "=");
    for (index, reply) in replies[2..10].iter().enumerate() {
        assert!(reply.starts_with("? "), "command {}: {reply}", index + 2);
    }
    assert_eq!(replies[10], "=");
    assert_eq!(replies[11], "? cannot undo");
    assert_eq!(replies[12], "? cannot undo");
    assert_eq!(replies[13], "=", "the board is empty after undo");
    assert_eq!(replies[14], "=");
    assert_eq!(replies[15], "= A1");
    assert_eq!(replies[16], "= 0");
    assert_eq!(replies[17], "= 0");
}

#[test]
fn shogi_checks_lists_checking_moves_then_their_count() {
    // Black to move with a gold in hand and a rook that can reach the white king's rank.
    let sfen = "4k4/9/9/9/9/9/9/9/4K3R b G 1";
    let output = run(&["shogi", "checks", "--sfen", sfen]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&format!("Checks: {}", lines.len() - 1).as_str()), "{text}");
    assert_eq!(lines, ["1i1a", "1i1a+", "G*4a", "G*4b", "G*5b", "G*6a", "G*6b", "Checks: 7"], "{text}");
    let output = run(&["shogi", "checks", "--sfen", "nonsense"]);
    assert_eq!(output.status.code(), Some(2));
}

/// The kernels a profiled count names on stderr, one `kernel NAME ...` line each.
fn profiled_kernels(output: &Output) -> Vec<String> {
    stderr(output)
        .lines()
        .filter_map(|line| line.strip_prefix("kernel "))
        .filter_map(|rest| rest.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn shogi_and_go_perft_profile_their_kernels_and_shogi_picks_its_leaf_by_merging() {
    // Shogi on a software adapter (the summary's device type is "Cpu"): the
    // looped leaf without merging, stored leaves (the last level counted per
    // position) with a table. On a GPU, fused leaves one invocation a move.
    let looped = run(&["shogi", "perft", "--depth", "3", "--backend", "gpu", "--hash", "0", "--profile-kernels"]);
    assert!(looped.status.success(), "{}", stderr(&looped));
    assert_eq!(stdout(&looped), "Nodes searched: 25470\n");
    let software = stderr(&looped).contains(", Cpu, ");
    let stored = run(&["shogi", "perft", "--depth", "3", "--backend", "gpu", "--profile-kernels"]);
    assert!(stored.status.success(), "{}", stderr(&stored));
    assert_eq!(stdout(&stored), "Nodes searched: 25470\n");
    let (without_table, with_table) = (profiled_kernels(&looped), profiled_kernels(&stored));
    let has = |kernels: &[String], name: &str| kernels.iter().any(|kernel| kernel == name);
    if software {
        assert!(has(&without_table, "count_leaves_looped"), "{without_table:?}");
        assert!(!has(&without_table, "write_children"), "{without_table:?}");
        assert!(!has(&with_table, "count_leaves_looped"), "{with_table:?}");
        assert!(has(&with_table, "write_children"), "{with_table:?}");
    } else {
        assert!(has(&without_table, "count_leaves_fused"), "{without_table:?}");
        assert!(has(&with_table, "count_leaves_fused"), "{with_table:?}");
    }
    let go = run(&["go", "perft", "--size", "9", "--depth", "3", "--backend", "gpu", "--profile-kernels"]);
    assert!(go.status.success(), "{}", stderr(&go));
    assert!(!profiled_kernels(&go).is_empty(), "{}", stderr(&go));
    // The CPU has no kernels to profile.
    let cpu = run(&["shogi", "perft", "--depth", "2", "--backend", "cpu", "--profile-kernels"]);
    assert!(cpu.status.success(), "{}", stderr(&cpu));
    assert!(profiled_kernels(&cpu).is_empty(), "{}", stderr(&cpu));
}

#[test]
fn shogi_perft_prints_nodes_divides_and_checks_suites() {
    let output = run(&["shogi", "perft", "--depth", "3", "--backend", "cpu"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "Nodes searched: 25470\n");
    let output = run(&["shogi", "perft", "--depth", "2", "--divide", "--quiet"]);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 32, "{text}");
    assert!(lines.contains(&"7g7f: 30"), "{text}");
    assert_eq!(lines.last(), Some(&"Nodes searched: 900"));
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/shogi.epd");
    let output = run(&["shogi", "perft", "--epd", suite, "--max-depth", "2", "--quiet"]);
    assert_eq!(stdout(&output).lines().last(), Some("6 passed, 0 failed"));
    let bad = std::env::temp_dir().join(format!("gpu-movegen-shogi-{}.epd", std::process::id()));
    std::fs::write(&bad, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 ;D1 31\n").unwrap();
    let output = run(&["shogi", "perft", "--epd", bad.to_str().unwrap(), "--quiet"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("expected 31, got 30"), "{}", stdout(&output));
    for bad_sfen in ["9/9/9 b - 1", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 19P 1"] {
        let output = run(&["shogi", "perft", "--sfen", bad_sfen]);
        assert_eq!(output.status.code(), Some(2), "{bad_sfen}");
        assert!(stderr(&output).starts_with("error: --sfen: "), "{}", stderr(&output));
    }
}

#[test]
fn shogi_runs_on_the_gpu_and_verifies_against_the_cpu() {
    for arguments in [
        &["shogi", "perft", "--depth", "3", "--backend", "gpu"][..],
        &["shogi", "perft", "--depth", "3", "--backend", "gpu", "--gpu-memory", "1"],
        &["shogi", "perft", "--depth", "3", "--backend", "cpu"],
    ] {
        let output = run(arguments);
        assert!(output.status.success(), "{arguments:?}: {}", stderr(&output));
        assert_eq!(stdout(&output), "Nodes searched: 25470\n", "{arguments:?}");
    }
    let gpu = run(&["shogi", "perft", "--depth", "2", "--divide", "--backend", "gpu", "--quiet"]);
    let cpu = run(&["shogi", "perft", "--depth", "2", "--divide", "--backend", "cpu", "--quiet"]);
    assert_eq!(stdout(&gpu), stdout(&cpu));
    let output = run(&["shogi", "verify", "--random", "60", "--seed", "4"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().last(), Some("60 passed, 0 failed"));
    let output = run(&["shogi", "verify", "--random", "5"]);
    assert_eq!(output.status.code(), Some(2), "--random needs --seed");
}

#[test]
fn a_cross_check_recounts_random_subtrees_on_the_cpu() {
    let output = run(&["perft", "--depth", "4", "--backend", "gpu", "--cross-check", "6"]);
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    assert_eq!(stdout(&output).lines().last(), Some("Nodes searched: 197281"));
    assert!(message.contains("cross-check: 6 random subtrees counted equal on the GPU and the CPU"), "{message}");
    // The default at depth 5 and beyond.
    let output = run(&["perft", "--depth", "5", "--backend", "gpu"]);
    assert!(stderr(&output).contains("cross-check: 8 random subtrees"), "{}", stderr(&output));
    let output = run(&["perft", "--depth", "4", "--backend", "cpu", "--cross-check", "2"]);
    assert!(output.status.success() && stderr(&output).contains("there is none"), "{}", stderr(&output));
    for arguments in [
        &["perft", "--cross-check", "-1"][..],
        &["perft", "--cross-check", "many"],
        &["perft", "--epd", "x.epd", "--cross-check", "2"],
    ] {
        assert_eq!(run(arguments).status.code(), Some(2), "{arguments:?}");
    }
}

#[test]
fn errors_escape_control_characters() {
    let output = run(&["perft", "--fen", "8/8/8/8/8/8/8/8\u{1b}[2J w - - 0 1"]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(!message.chars().any(|character| character.is_control() && character != '\n'), "{message:?}");
    assert!(message.contains("\\u{1b}"), "{message:?}");
}

#[test]
fn a_suite_run_that_would_count_nothing_is_refused() {
    let chess = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perftsuite.epd");
    let shogi = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/shogi.epd");
    for arguments in [
        &["perft", "--epd", chess, "--max-depth", "0", "--backend", "cpu"][..],
        &["shogi", "perft", "--epd", shogi, "--max-depth", "0", "--backend", "cpu"],
    ] {
        let output = run(arguments);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}");
        assert!(stdout(&output).is_empty(), "no passes reported: {}", stdout(&output));
        assert!(stderr(&output).contains("nothing would be counted"), "{}", stderr(&output));
    }
    // A position with no counts is refused where it stands, never passed.
    let folder = std::env::temp_dir().join(format!("gpu-movegen-uncounted-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let perft = folder.join("uncounted.perft");
    std::fs::write(
        &perft,
        "id counted\nepd 8/8/8/8/8/8/8/k6K w - - 0 1\nperft 1 3\nid bare\nepd 8/8/8/8/8/8/8/K6k w - - 0 1\n",
    )
    .unwrap();
    let shogi_suite = folder.join("uncounted.epd");
    std::fs::write(&shogi_suite, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n").unwrap();
    for (arguments, problem) in [
        (
            vec!["perft", "--epd", perft.to_str().unwrap(), "--backend", "cpu"],
            "line 5: an 'epd' line with no 'perft <depth> <nodes>' lines after it",
        ),
        (
            vec!["shogi", "perft", "--epd", shogi_suite.to_str().unwrap(), "--backend", "cpu"],
            "line 1: no ';D<depth> <nodes>' counts after the SFEN",
        ),
    ] {
        let output = run(&arguments);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}");
        assert!(stdout(&output).is_empty(), "no passes reported: {}", stdout(&output));
        assert!(stderr(&output).contains(problem), "{}", stderr(&output));
    }
    std::fs::remove_dir_all(folder).unwrap();
}

#[test]
fn gtp_answers_past_a_line_that_is_not_utf8() {
    use std::io::Write as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpu-movegen"))
        .args(["gtp", "--backend", "cpu"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"name\nplay b \xe9\nname\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert_eq!(stdout(&output), "= gpu-movegen\n\n? invalid UTF-8\n\n= gpu-movegen\n\n");
}

#[test]
fn playouts_in_batches_equal_one_batch() {
    // 1,500,000 playouts run as two batches; the first million are one batch of their own.
    let many = run(&["go", "playouts", "--size", "3", "--playouts", "1500000", "--seed", "4", "--backend", "cpu"]);
    assert!(many.status.success(), "{}", stderr(&many));
    let text = stdout(&many);
    let black: u64 = text.lines().next().unwrap().trim_start_matches("Black wins: ").parse().unwrap();
    let white: u64 = text.lines().nth(1).unwrap().trim_start_matches("White wins: ").parse().unwrap();
    let draws: u64 = text.lines().nth(2).unwrap().trim_start_matches("Draws: ").parse().unwrap();
    assert_eq!(black + white + draws, 1_500_000, "{text}");
    // The same totals as the library's one-batch CPU playouts.
    let position = gpu_movegen::go::Position::new(3).unwrap();
    let results = gpu_movegen::go::playout::playouts(&position, 1_500_000, 4, 0);
    let one_batch_black = results.iter().filter(|result| result.winner_sign(7.5) == 1).count() as u64;
    assert_eq!(black, one_batch_black, "{text}");
}

#[test]
fn overlong_lines_and_bytes_that_are_not_text_are_refused_by_line() {
    let folder = std::env::temp_dir().join(format!("gpu-movegen-lines-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let long = folder.join("long.epd");
    std::fs::write(&long, format!("# a comment\n{}\n", "8".repeat(100 << 10))).unwrap();
    let binary = folder.join("binary.epd");
    std::fs::write(&binary, b"# fine\n\xff\xfe\n").unwrap();
    for (file, words) in [(&long, "line 2: longer than 64 KiB"), (&binary, "line 2: not UTF-8 text")] {
        for command in
            [&["perft", "--epd"][..], &["verify", "--epd"], &["shogi", "perft", "--epd"], &["shogi", "verify", "--epd"]]
        {
            let mut arguments = command.to_vec();
            arguments.push(file.to_str().unwrap());
            let output = run(&arguments);
            assert_eq!(output.status.code(), Some(2), "{arguments:?}: {}", stderr(&output));
            assert!(stderr(&output).contains(words), "{arguments:?}: {}", stderr(&output));
        }
    }
    std::fs::remove_dir_all(folder).unwrap();
}

#[test]
fn a_perft_no_machine_could_finish_says_so_as_it_starts() {
    use std::io::BufRead as _;
    for arguments in [
        &["perft", "--depth", "20", "--backend", "cpu"][..],
        &["shogi", "perft", "--depth", "16", "--backend", "cpu"],
        &["go", "perft", "--size", "19", "--depth", "24", "--backend", "cpu"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gpu-movegen"))
            .args(arguments)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stderr.take().unwrap()).read_line(&mut line).unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(
            line.starts_with("note: perft(") && line.contains("years at 10^12 nodes a second"),
            "{arguments:?}: {line}"
        );
    }
    // A depth that ends in reasonable time has no note.
    let output = run(&["perft", "--depth", "4", "--backend", "cpu"]);
    assert!(!stderr(&output).contains("note: perft("), "{}", stderr(&output));
}

#[test]
fn komi_minus_zero_is_printed_as_zero() {
    let output =
        run(&["go", "playouts", "--komi=-0", "--size", "5", "--playouts", "8", "--seed", "1", "--backend", "cpu"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("(black minus white, komi 0)"), "{}", stdout(&output));
}

#[test]
fn quiet_commands_write_nothing_on_stderr() {
    for arguments in [
        &["perft", "--depth", "3", "-q"][..],
        &["perft", "--depth", "3", "-q", "--backend", "gpu"],
        &["shogi", "perft", "--depth", "2", "-q"],
        &["go", "perft", "--depth", "2", "-q"],
        &["go", "playouts", "--playouts", "100", "-q"],
    ] {
        let output = run(arguments);
        assert_eq!(output.status.code(), Some(0), "{arguments:?}: {}", stderr(&output));
        assert_eq!(stderr(&output), "", "{arguments:?}");
        assert!(stdout(&output).contains(':'), "{arguments:?}: {}", stdout(&output));
    }
}

#[test]
fn completions_are_printed_for_each_shell() {
    for (shell, marker) in
        [("bash", "complete -F _gpu__movegen"), ("zsh", "#compdef gpu-movegen"), ("fish", "complete -c gpu-movegen")]
    {
        let output = run(&["completions", shell]);
        assert_eq!(output.status.code(), Some(0), "{shell}: {}", stderr(&output));
        let script = stdout(&output);
        assert!(script.contains(marker), "{shell}: {}", &script[..script.len().min(300)]);
        assert!(script.contains("perft") && script.contains("gtp") && script.contains("uci"), "{shell}");
    }
    assert_eq!(run(&["completions", "nosh"]).status.code(), Some(2));
}

#[test]
fn the_man_page_is_roff_naming_every_command() {
    let output = run(&["man"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let page = stdout(&output);
    assert!(page.starts_with(".ie") || page.starts_with(".TH"), "{}", &page[..page.len().min(200)]);
    assert!(page.contains(".TH gpu-movegen 1"), "the title line");
    for command in ["perft", "shogi", "gtp", "uci", "usi", "completions"] {
        assert!(page.contains(command), "{command} is missing from the man page");
    }
}

/// Compiled pipelines are kept between processes next to the verdicts, on
/// adapters that offer a pipeline cache (lavapipe does), and a damaged or
/// foreign cache file is ignored, replaced, and never changes a count.
#[test]
fn the_pipeline_cache_is_kept_and_a_damaged_one_is_ignored() {
    let cache = std::env::temp_dir().join(format!("gpu-movegen-pipelines-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let environment = [("GPU_MOVEGEN_CACHE_DIR", cache.to_str().unwrap())];
    let cache_line = |arguments: &[(&str, &str)]| {
        let output = run_with(&["info"], arguments);
        assert!(output.status.success(), "{}", stderr(&output));
        let text = stdout(&output);
        assert!(text.contains("  PIPELINE_CACHE: true"), "lavapipe offers a pipeline cache:\n{text}");
        text.lines()
            .find(|line| line.starts_with("pipeline cache: "))
            .map(str::to_owned)
            .expect("a pipeline cache line")
    };
    let first = cache_line(&environment);
    assert!(first.ends_with("(this process started it afresh)"), "{first}");
    let files: Vec<std::path::PathBuf> = std::fs::read_dir(cache.join("pipelines"))
        .expect("the cache folder holds the pipelines")
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "one file per adapter and driver: {files:?}");
    let file = &files[0];
    assert!(first.contains(&file.display().to_string()), "{first}");
    let written = std::fs::read(file).unwrap();
    assert!(written.starts_with(b"gpu-movegen pipeline cache 1\n"), "the file opens with its format line");

    let second = cache_line(&environment);
    assert!(second.contains("bytes of the driver's data"), "the next process loads it: {second}");

    let perft = ["perft", "--backend", "gpu", "--hash", "0", "--depth", "3", "-q"];
    let damaged: [Vec<u8>; 3] = [
        {
            let mut flipped = written.clone();
            *flipped.last_mut().unwrap() ^= 0x40;
            flipped
        },
        written[..written.len() / 2].to_vec(),
        (0..4096u32).map(|index| (index.wrapping_mul(2_654_435_761) >> 24) as u8).collect(),
    ];
    for bytes in damaged {
        std::fs::write(file, &bytes).unwrap();
        let line = cache_line(&environment);
        assert!(line.ends_with("(this process started it afresh)"), "a damaged file is ignored: {line}");
        std::fs::write(file, &bytes).unwrap();
        let output = run_with(&perft, &environment);
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(stdout(&output).contains("Nodes searched: 8902"), "{}", stdout(&output));
        let replaced = std::fs::read(file).unwrap();
        assert!(replaced.starts_with(b"gpu-movegen pipeline cache 1\n"), "the damaged file is replaced");
    }
    assert!(cache_line(&environment).contains("bytes of the driver's data"), "and loads again");

    let off = [environment[0], ("GPU_MOVEGEN_PIPELINE_CACHE", "off")];
    let output = run_with(&["info"], &off);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("pipeline cache: off (GPU_MOVEGEN_PIPELINE_CACHE)"), "{}", stdout(&output));
    std::fs::remove_dir_all(cache).unwrap();
}
