//! The counts themselves: each game on the GPU through the library's async
//! engines, or on the CPU root move by root move, handing the browser its
//! thread back between moves so that the page can show progress.

use gpu_movegen::chess::Chess;
use gpu_movegen::chess::gpu::{VariantGpuPerft, VariantKernels, VariantPerftOptions};
use gpu_movegen::chess::variant::{ChessVariants, Variant, VariantPosition};
use gpu_movegen::go::GoGame;
use gpu_movegen::go::gpu::{BoardSize, GoGpuPerft, GoPerftOptions, GpuPlayouts};
use gpu_movegen::gpu::perft::{PerftEngine, PerftGame};
use gpu_movegen::gpu::{GpuContext, GpuError};
use gpu_movegen::shogi::ShogiGame;
use gpu_movegen::shogi::gpu::{ShogiGpuPerft, ShogiPerftOptions};
use js_sys::{Array, Object};
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::*;

use crate::request::{Backend, Game, PerftRequest};
use crate::set;

/// GPU memory one engine of the page may take (tables, arena and the
/// rest): a tab shares the GPU with everything else the visitor runs.
const PAGE_GPU_MEMORY: u64 = 256 << 20;

/// What a perft request returns.
#[derive(Debug, Clone, PartialEq)]
pub struct PerftOutcome {
    /// Leaf nodes.
    pub nodes: u128,
    /// Which backend counted.
    pub backend: Backend,
    /// The adapter that counted, or the CPU's name.
    pub adapter: String,
    /// Seconds the count took, device set-up and self-test excluded.
    pub seconds: f64,
    /// Each root move in the command line's notation, with its count, when asked.
    pub divide: Option<Vec<(String, u128)>>,
    /// Why the CPU counted though the GPU was asked (no WebGPU adapter, or
    /// one that failed the self-test).
    pub note: Option<String>,
}

impl PerftOutcome {
    /// `{nodes, backend, adapter, seconds, divide}`, counts as decimal strings.
    pub fn to_js(&self) -> JsValue {
        let object = Object::new();
        set(&object, "nodes", self.nodes.to_string());
        set(&object, "backend", self.backend.name());
        set(&object, "adapter", self.adapter.as_str());
        set(&object, "seconds", self.seconds);
        if let Some(rows) = &self.divide {
            let list = Array::new();
            for (name, nodes) in rows {
                list.push(&Array::of2(&JsValue::from_str(name), &JsValue::from_str(&nodes.to_string())));
            }
            set(&object, "divide", list);
        }
        if let Some(note) = &self.note {
            set(&object, "note", note.as_str());
        }
        object.into()
    }
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(callback: &js_sys::Function, milliseconds: i32);
}

/// Lets the browser run its own work (paint, input) before going on.
async fn yield_to_browser() {
    #[cfg(target_arch = "wasm32")]
    {
        let promise = js_sys::Promise::new(&mut |resolve, _| set_timeout(&resolve, 0));
        let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    }
}

/// The positions a request's root moves lead to, named as the command line
/// names the moves; the root itself when no divide is asked and the GPU counts.
enum Roots {
    Chess(gpu_movegen::Position, Vec<(String, gpu_movegen::Position)>),
    Variant(VariantPosition, Vec<(String, VariantPosition)>),
    Shogi(gpu_movegen::shogi::position::Position, Vec<(String, gpu_movegen::shogi::position::Position)>),
    Go(gpu_movegen::go::Position, Vec<(String, gpu_movegen::go::Position)>),
}

fn roots(request: &PerftRequest) -> Result<Roots, String> {
    match request.game {
        Game::Chess if request.variant != Variant::Chess => {
            let variant = request.variant;
            let text = if request.position.trim().is_empty() { variant.start_fen() } else { request.position.trim() };
            let position = VariantPosition::from_fen(variant, text).map_err(|error| format!("FEN: {error}"))?;
            let chess960 = position.board().is_chess960();
            let children =
                gpu_movegen::game::named_children::<ChessVariants>(&position, |mv| mv.uci(chess960).to_string());
            Ok(Roots::Variant(position, children))
        }
        Game::Chess => {
            let text = if request.position.trim().is_empty() { gpu_movegen::START_FEN } else { &request.position };
            let position = gpu_movegen::Position::from_fen(text).map_err(|error| format!("FEN: {error}"))?;
            let chess960 = position.is_chess960();
            let children = gpu_movegen::game::named_children::<Chess>(&position, |mv| mv.uci(chess960).to_string());
            Ok(Roots::Chess(position, children))
        }
        Game::Shogi => {
            use gpu_movegen::shogi::position::Position;
            let position = if request.position.trim().is_empty() {
                Position::start()
            } else {
                Position::from_sfen(request.position.trim()).map_err(|error| format!("SFEN: {error}"))?
            };
            let children = gpu_movegen::game::named_children::<ShogiGame>(&position, |mv| mv.to_string());
            Ok(Roots::Shogi(position, children))
        }
        Game::Go => {
            use gpu_movegen::go::Position;
            let position =
                Position::from_moves(request.size, &request.position).map_err(|error| format!("--moves: {error}"))?;
            let children = gpu_movegen::game::named_children::<GoGame>(&position, |point| point.to_string());
            Ok(Roots::Go(position, children))
        }
    }
}

/// Runs `request`; `progress` hears the nodes counted so far now and then.
pub async fn perft_outcome(request: &PerftRequest, progress: &dyn Fn(u128)) -> Result<PerftOutcome, String> {
    let roots = roots(request)?;
    let mut started_at = web_time::Instant::now();
    let mut note = None;
    if request.backend == Backend::Gpu {
        let counted = match crate::context().await {
            Ok(context) => gpu_divide(&context, &roots, request.depth, request.divide, progress)
                .await
                .map(|(nodes, rows)| (nodes, rows, context.adapter_description())),
            Err(error) => Err(error),
        };
        match counted {
            Ok((nodes, rows, adapter)) => {
                progress(nodes);
                return Ok(PerftOutcome {
                    nodes,
                    backend: Backend::Gpu,
                    adapter,
                    seconds: started_at.elapsed().as_secs_f64(),
                    divide: request.divide.then_some(sorted(rows)),
                    note: None,
                });
            }
            // No GPU to trust: the CPU counts, and says why.
            Err(error) if gpu_unavailable(&error) => {
                note = Some(format!("counted on the CPU: {error}"));
                started_at = web_time::Instant::now();
            }
            Err(error) => {
                crate::forget_device_after(&error);
                return Err(error.to_string());
            }
        }
    }
    let rows = cpu_divide(&roots, request.depth, progress).await;
    let nodes = if request.depth == 0 { 1 } else { rows.iter().map(|(_, nodes)| nodes).sum() };
    progress(nodes);
    Ok(PerftOutcome {
        nodes,
        backend: Backend::Cpu,
        adapter: "WebAssembly CPU engine, one thread".to_owned(),
        seconds: started_at.elapsed().as_secs_f64(),
        divide: request.divide.then_some(sorted(rows)),
        note,
    })
}

/// Errors that mean this browser has no GPU the library may count on:
/// no WebGPU adapter or device, or one that failed the self-test.
fn gpu_unavailable(error: &GpuError) -> bool {
    matches!(
        error,
        GpuError::NoAdapter { .. }
            | GpuError::AdapterNotFound { .. }
            | GpuError::RequestDevice { .. }
            | GpuError::SelfTestFailed { .. }
    )
}

fn sorted(mut rows: Vec<(String, u128)>) -> Vec<(String, u128)> {
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

/// Each root move's count on the CPU, one move at a time.
async fn cpu_divide(roots: &Roots, depth: u32, progress: &dyn Fn(u128)) -> Vec<(String, u128)> {
    let mut rows = Vec::new();
    if depth == 0 {
        return rows;
    }
    let mut done = 0u128;
    macro_rules! each {
        ($children:expr, $count:expr) => {
            for (name, child) in $children {
                let nodes = u128::from($count(child, depth - 1));
                done += nodes;
                rows.push((name.clone(), nodes));
                progress(done);
                yield_to_browser().await;
            }
        };
    }
    match roots {
        Roots::Chess(_, children) => each!(children, gpu_movegen::chess::fast_perft::perft),
        Roots::Variant(_, children) => each!(children, gpu_movegen::chess::variant::perft),
        Roots::Shogi(_, children) => each!(children, gpu_movegen::shogi::perft::perft),
        Roots::Go(_, children) => each!(children, gpu_movegen::go::perft::perft),
    }
    rows
}

/// The count on the GPU: the root alone (exact past 2^64), or its children
/// when a divide is asked.
async fn gpu_divide(
    context: &GpuContext,
    roots: &Roots,
    depth: u32,
    divide: bool,
    progress: &dyn Fn(u128),
) -> Result<(u128, Vec<(String, u128)>), GpuError> {
    let mut report = |nodes: u64| progress(u128::from(nodes));
    if depth == 0 {
        return Ok((1, Vec::new()));
    }
    match roots {
        Roots::Chess(root, children) => {
            let options = gpu_movegen::chess::gpu::perft::PerftOptions {
                memory_limit: Some(PAGE_GPU_MEMORY),
                ..Default::default()
            };
            let engine = gpu_movegen::chess::gpu::perft::GpuPerft::with_options_async(context, options).await?;
            count_on(engine, root, children, depth, divide, &mut report).await
        }
        Roots::Variant(root, children) => {
            let options = VariantPerftOptions {
                build: VariantKernels { variant: root.variant(), ..Default::default() },
                memory_limit: Some(PAGE_GPU_MEMORY),
                ..Default::default()
            };
            let engine = VariantGpuPerft::with_options_async(context, options).await?;
            count_on(engine, root, children, depth, divide, &mut report).await
        }
        Roots::Shogi(root, children) => {
            let options = ShogiPerftOptions { memory_limit: Some(PAGE_GPU_MEMORY), ..Default::default() };
            let engine = ShogiGpuPerft::with_options_async(context, options).await?;
            count_on(engine, root, children, depth, divide, &mut report).await
        }
        Roots::Go(root, children) => {
            let options = GoPerftOptions {
                build: BoardSize(root.size()),
                memory_limit: Some(PAGE_GPU_MEMORY),
                ..Default::default()
            };
            let engine = GoGpuPerft::with_options_async(context, options).await?;
            count_on(engine, root, children, depth, divide, &mut report).await
        }
    }
}

/// `root` counted to `depth` (`depth` ≥ 1) by `engine` in 128 bits, or
/// each of its `children` one ply less when a divide is asked.
async fn count_on<G: PerftGame>(
    mut engine: PerftEngine<G>,
    root: &G::Position,
    children: &[(String, G::Position)],
    depth: u32,
    divide: bool,
    report: &mut dyn FnMut(u64),
) -> Result<(u128, Vec<(String, u128)>), GpuError> {
    if !divide {
        let counts = engine.perft_wide_async(std::slice::from_ref(root), depth, report).await?;
        return Ok((counts[0], Vec::new()));
    }
    let positions: Vec<G::Position> = children.iter().map(|(_, child)| child.clone()).collect();
    let counts = engine.perft_wide_async(&positions, depth - 1, report).await?;
    let rows = children.iter().map(|(name, _)| name.clone()).zip(counts.iter().copied()).collect();
    Ok((counts.iter().sum(), rows))
}

/// GPU against CPU on `count` positions from seeded random play of `game`
/// ("chess", "shogi", "go" or a chess variant's name).
pub async fn verify(game: &str, count: u32, depth: u32, seed: u64) -> Result<JsValue, String> {
    if count == 0 || count > 1000 {
        return Err(format!("count must be from 1 to 1000, not {count}"));
    }
    if depth > 4 {
        return Err(format!("verify counts to depth 4 at most, not {depth}"));
    }
    let started_at = web_time::Instant::now();
    let context = crate::context().await.map_err(|error| error.to_string())?;
    let forget = |error: GpuError| {
        crate::forget_device_after(&error);
        error.to_string()
    };
    let mut nothing = |_: u64| {};
    let (names, gpu, cpu): (Vec<String>, Vec<u64>, Vec<u64>) = match game {
        "chess" => {
            use gpu_movegen::chess::gpu::perft::{GpuPerft, PerftOptions};
            let positions =
                gpu_movegen::random_play::random_positions(&gpu_movegen::Position::start(), count as usize, 80, seed);
            let options = PerftOptions { memory_limit: Some(PAGE_GPU_MEMORY), ..Default::default() };
            let mut engine = GpuPerft::with_options_async(&context, options).await.map_err(forget)?;
            let gpu = engine.perft_async(&positions, depth, &mut nothing).await.map_err(forget)?;
            let cpu = positions.iter().map(|position| gpu_movegen::chess::perft::perft(position, depth)).collect();
            (positions.iter().map(|position| position.to_fen()).collect(), gpu, cpu)
        }
        "shogi" => {
            let positions = gpu_movegen::shogi::perft::random_positions(count as usize, seed);
            let options = ShogiPerftOptions { memory_limit: Some(PAGE_GPU_MEMORY), ..Default::default() };
            let mut engine = ShogiGpuPerft::with_options_async(&context, options).await.map_err(forget)?;
            let gpu = engine.perft_async(&positions, depth, &mut nothing).await.map_err(forget)?;
            let cpu = positions.iter().map(|position| gpu_movegen::shogi::perft::perft(position, depth)).collect();
            (positions.iter().map(|position| position.to_sfen()).collect(), gpu, cpu)
        }
        "go" => {
            let positions = gpu_movegen::go::playout::random_positions(9, count as usize, seed)
                .map_err(|error| error.to_string())?;
            let options =
                GoPerftOptions { build: BoardSize(9), memory_limit: Some(PAGE_GPU_MEMORY), ..Default::default() };
            let mut engine = GoGpuPerft::with_options_async(&context, options).await.map_err(forget)?;
            let gpu = engine.perft_async(&positions, depth, &mut nothing).await.map_err(forget)?;
            let cpu = positions.iter().map(|position| gpu_movegen::go::perft::perft(position, depth)).collect();
            (positions.iter().map(|position| format!("{position:?}")).collect(), gpu, cpu)
        }
        other => match Variant::from_name(other) {
            Some(variant) if variant != Variant::Chess => {
                let positions = gpu_movegen::chess::variant::random_positions(variant, count as usize, 80, seed);
                let options = VariantPerftOptions {
                    build: VariantKernels { variant, ..Default::default() },
                    memory_limit: Some(PAGE_GPU_MEMORY),
                    ..Default::default()
                };
                let mut engine = VariantGpuPerft::with_options_async(&context, options).await.map_err(forget)?;
                let gpu = engine.perft_async(&positions, depth, &mut nothing).await.map_err(forget)?;
                let cpu =
                    positions.iter().map(|position| gpu_movegen::chess::variant::perft(position, depth)).collect();
                (positions.iter().map(|position| position.to_fen()).collect(), gpu, cpu)
            }
            _ => {
                return Err(format!(
                    "game must be \"chess\", \"shogi\", \"go\" or a chess variant ({}), not \"{other}\"",
                    Variant::names()
                ));
            }
        },
    };
    let mismatches = Array::new();
    for ((name, gpu), cpu) in names.iter().zip(&gpu).zip(&cpu) {
        if gpu != cpu {
            let row = Object::new();
            set(&row, "position", name.as_str());
            set(&row, "gpu", gpu.to_string());
            set(&row, "cpu", cpu.to_string());
            mismatches.push(&row);
        }
    }
    let report = Object::new();
    set(&report, "positions", names.len() as u32);
    set(&report, "agreed", names.len() as u32 - mismatches.length());
    set(&report, "mismatches", mismatches);
    set(&report, "adapter", context.adapter_description());
    set(&report, "seconds", started_at.elapsed().as_secs_f64());
    Ok(report.into())
}

/// Go playouts and their win rates.
pub async fn playouts(
    size: u32,
    moves: &str,
    count: u32,
    seed: u32,
    komi: f64,
    backend: &str,
) -> Result<JsValue, String> {
    use gpu_movegen::go::Position;
    if !(1..=1_000_000).contains(&count) {
        return Err(format!("playouts must be from 1 to 1,000,000, not {count}"));
    }
    if !komi.is_finite() || komi.abs() > gpu_movegen::go::playout::MAX_KOMI {
        return Err(format!("komi must be within ±{}", gpu_movegen::go::playout::MAX_KOMI));
    }
    let position = Position::from_moves(size, moves).map_err(|error| format!("--moves: {error}"))?;
    let started_at = web_time::Instant::now();
    let (results, adapter) = match backend {
        "cpu" => (gpu_movegen::go::playout::playouts(&position, count, seed, 0), "WebAssembly CPU engine".to_owned()),
        "gpu" => {
            let context = crate::context().await.map_err(|error| error.to_string())?;
            let mut runner = GpuPlayouts::new(&context);
            let results = runner.playouts_async(&[position], count, seed, 0).await.map_err(|error| {
                crate::forget_device_after(&error);
                error.to_string()
            })?;
            (results, context.adapter_description())
        }
        other => return Err(format!("backend must be \"gpu\" or \"cpu\", not \"{other}\"")),
    };
    let signs: Vec<i32> = results.iter().map(|result| result.winner_sign(komi)).collect();
    let report = Object::new();
    set(&report, "playouts", results.len() as u32);
    set(&report, "blackWins", signs.iter().filter(|&&sign| sign > 0).count() as u32);
    set(&report, "whiteWins", signs.iter().filter(|&&sign| sign < 0).count() as u32);
    set(&report, "draws", signs.iter().filter(|&&sign| sign == 0).count() as u32);
    set(&report, "backend", backend);
    set(&report, "adapter", adapter);
    set(&report, "seconds", started_at.elapsed().as_secs_f64());
    Ok(report.into())
}
