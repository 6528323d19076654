//! The library in a real browser: headless Chromium, whose WebGPU is Dawn
//! compiling WGSL with Tint and running on SwiftShader, a compiler and a
//! driver written apart from naga and lavapipe. `scripts/web test` runs these
//! through wasm-bindgen-test-runner and chromedriver (`web/webdriver.json`).
//! Every GPU count is compared with the published count and the CPU's.
#![cfg(target_arch = "wasm32")]

use gpu_movegen::chess::variant::Variant;
use gpu_movegen_web::{Backend, Game, PerftRequest, perft_outcome};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn request(game: Game, position: &str, size: u32, depth: u32, backend: Backend, divide: bool) -> PerftRequest {
    PerftRequest { game, variant: Variant::Chess, position: position.to_owned(), size, depth, backend, divide }
}

async fn both(game: Game, position: &str, size: u32, depth: u32, published: u128) {
    both_in(Variant::Chess, game, position, size, depth, published).await;
}

async fn both_in(variant: Variant, game: Game, position: &str, size: u32, depth: u32, published: u128) {
    let gpu = PerftRequest { variant, ..request(game, position, size, depth, Backend::Gpu, true) };
    let gpu = perft_outcome(&gpu, &|_| {}).await.expect("GPU count");
    assert_eq!(gpu.backend, Backend::Gpu, "the GPU must count here, not fall back: {:?}", gpu.note);
    let cpu = PerftRequest { variant, ..request(game, position, size, depth, Backend::Cpu, true) };
    let cpu = perft_outcome(&cpu, &|_| {}).await.expect("CPU count");
    assert_eq!(gpu.nodes, published, "{game:?} {position} perft({depth}) on {}", gpu.adapter);
    assert_eq!(cpu.nodes, published, "{game:?} {position} perft({depth}) on the wasm CPU");
    assert_eq!(gpu.divide, cpu.divide, "the divides differ");
}

#[wasm_bindgen_test]
async fn the_browser_adapter_passes_the_self_test() {
    let context = gpu_movegen_web::context().await.expect("a WebGPU adapter (Chromium with --enable-unsafe-webgpu)");
    let checks = [gpu_movegen::chess::gpu::self_test::perft_check(Default::default())];
    for verdict in context.self_test_async(&checks).await {
        assert_eq!(verdict.outcome, Ok(()), "{} on {}", verdict.check, context.adapter_description());
    }
}

#[wasm_bindgen_test]
async fn chess_counts_match_published_counts_and_the_cpu() {
    both(Game::Chess, "", 0, 3, 8_902).await;
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    both(Game::Chess, kiwipete, 0, 3, 97_862).await;
    // Chess960 in Shredder-FEN (the Chess960 suite's first position, perft(3)).
    both(Game::Chess, "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 0, 3, 12_189).await;
}

/// Two variants whose rules reach furthest from chess's (published counts,
/// tests/data/variants): no king and a first-rank double push, and no move
/// that gives check.
#[wasm_bindgen_test]
async fn variant_counts_match_published_counts_and_the_cpu() {
    both_in(Variant::Horde, Game::Chess, "", 0, 3, 1_274).await;
    both_in(Variant::RacingKings, Game::Chess, "", 0, 2, 421).await;
}

#[wasm_bindgen_test]
async fn shogi_counts_match_published_counts_and_the_cpu() {
    both(Game::Shogi, "", 0, 2, 900).await;
}

#[wasm_bindgen_test]
async fn go_counts_match_the_cpu() {
    // 5x5 empty board: 25, then 25 * 24 sequences.
    both(Game::Go, "", 5, 2, 600).await;
}

#[wasm_bindgen_test]
async fn bad_input_is_refused_with_the_command_lines_message() {
    let error = perft_outcome(&request(Game::Chess, "8/8/8 w", 0, 2, Backend::Gpu, false), &|_| {}).await.unwrap_err();
    assert!(error.starts_with("FEN: "), "{error}");
    let error =
        perft_outcome(&request(Game::Shogi, "not an sfen", 0, 2, Backend::Cpu, false), &|_| {}).await.unwrap_err();
    assert!(error.starts_with("SFEN: "), "{error}");
    let error = perft_outcome(&request(Game::Go, "B zz", 9, 1, Backend::Cpu, false), &|_| {}).await.unwrap_err();
    assert!(error.starts_with("--moves: "), "{error}");
}

#[wasm_bindgen_test]
async fn go_playouts_agree_between_the_gpu_and_the_cpu() {
    let gpu = gpu_movegen_web::playouts(9, String::new(), 64, 7, 7.5, "gpu".into()).await.expect("GPU playouts");
    let cpu = gpu_movegen_web::playouts(9, String::new(), 64, 7, 7.5, "cpu".into()).await.expect("CPU playouts");
    let field = |report: &wasm_bindgen::JsValue, name: &str| {
        js_sys::Reflect::get(report, &name.into()).expect("a field").as_f64().expect("a number")
    };
    for name in ["playouts", "blackWins", "whiteWins", "draws"] {
        assert_eq!(field(&gpu, name), field(&cpu, name), "{name}: the same seeded playouts on both");
    }
}

#[wasm_bindgen_test]
async fn a_lost_device_gives_an_error_and_the_next_count_a_new_device() {
    let request = request(Game::Chess, "", 0, 3, Backend::Gpu, false);
    let before = perft_outcome(&request, &|_| {}).await.expect("a count on a working device");
    assert_eq!(before.nodes, 8_902);
    gpu_movegen_web::context().await.expect("the page's device").device.destroy();
    let error = perft_outcome(&request, &|_| {}).await.expect_err("no count from a destroyed device");
    assert!(!error.is_empty());
    let after = perft_outcome(&request, &|_| {}).await.expect("a count on a new device");
    assert_eq!((after.nodes, after.backend), (8_902, Backend::Gpu), "{:?}", after.note);
}

/// Requests as a page's query or a script could send them: random bytes as
/// positions, numbers, numeric strings, NaN and infinities as depths and
/// sizes, unknown games and backends. Each is refused with a message or
/// counted; nothing panics (a panic would abort the module and fail the test).
#[wasm_bindgen_test]
async fn random_requests_are_refused_or_counted_never_a_panic() {
    use js_sys::{Object, Reflect};
    use wasm_bindgen::JsValue;
    let mut random = gpu_movegen::random::ShaderRandom::new(2026, 37);
    let pick = |random: &mut gpu_movegen::random::ShaderRandom, values: &[JsValue]| {
        values[random.below(values.len() as u32) as usize].clone()
    };
    let numbers = [
        JsValue::from_f64(0.0),
        JsValue::from_f64(1.0),
        JsValue::from_f64(2.0),
        JsValue::from_f64(-1.0),
        JsValue::from_f64(2.5),
        JsValue::from_f64(f64::NAN),
        JsValue::from_f64(f64::INFINITY),
        JsValue::from_f64(1e300),
        JsValue::from_str("2"),
        JsValue::from_str(" 1 "),
        JsValue::from_str("two"),
        JsValue::UNDEFINED,
        JsValue::NULL,
        JsValue::TRUE,
    ];
    let names = [
        "chess",
        "shogi",
        "go",
        "",
        "checkers",
        "CHESS",
        "gpu",
        "cpu",
        "\u{0}",
        "atomic",
        "crazyhouse",
        "racingKings",
        "horde",
        "suicide",
    ];
    let (mut refused, mut counted) = (0, 0);
    for _ in 0..300 {
        let request = Object::new();
        let set = |key: &str, value: JsValue| {
            Reflect::set(&request, &key.into(), &value).expect("a plain object takes a property");
        };
        let name = |random: &mut gpu_movegen::random::ShaderRandom| -> JsValue {
            if random.below(4) == 0 {
                pick(random, &numbers)
            } else {
                names[random.below(names.len() as u32) as usize].into()
            }
        };
        set("game", name(&mut random));
        set("backend", name(&mut random));
        if random.below(2) == 0 {
            set("variant", name(&mut random));
        }
        let bytes: Vec<u8> = (0..random.below(40)).map(|_| random.below(256) as u8).collect();
        let position = match random.below(5) {
            0 => String::from_utf8_lossy(&bytes).into_owned(),
            1 => "B c3 W".to_owned(),
            2 => "8/8/8/8/8/8/8/8 w - - 0 1".to_owned(),
            3 => "2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1".to_owned(),
            _ => String::new(),
        };
        set("position", position.into());
        set("size", pick(&mut random, &numbers));
        set("depth", pick(&mut random, &numbers));
        set("divide", pick(&mut random, &numbers));
        match PerftRequest::from_js(&request) {
            Err(message) => {
                assert!(!message.is_empty());
                refused += 1;
            }
            Ok(mut request) => {
                // Small counts on the CPU: the point is the input, not the GPU.
                request.backend = Backend::Cpu;
                request.depth = request.depth.min(2);
                match perft_outcome(&request, &|_| {}).await {
                    Ok(outcome) => assert!(outcome.nodes >= 1 || request.depth > 0),
                    Err(message) => assert!(!message.is_empty()),
                }
                counted += 1;
            }
        }
    }
    assert!(refused > 0 && counted > 0, "{refused} refused, {counted} read");
}
