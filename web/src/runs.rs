//! The counts themselves: each game on the GPU through the library's async
//! engines, or on the CPU root move by root move, handing the browser its
//! thread back between moves so that the page can show progress.

use gpu_movegen::chess::gpu::ShaderBuild;
use gpu_movegen::chess::variant::Variant;
use gpu_movegen::game;
use gpu_movegen::gpu::perft::{PerftEngine, PerftOptions};
use gpu_movegen::gpu::{GpuContext, GpuError};
use gpu_movegen::registry::{self, GameKind, ListedGame, ReadError, Visit};
use js_sys::{Array, Object};
use wasm_bindgen::JsValue;
use wasm_bindgen::prelude::*;

use crate::request::{Backend, PerftRequest};
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

/// Runs `request`; `progress` hears the nodes counted so far now and then.
pub async fn perft_outcome(request: &PerftRequest, progress: &dyn Fn(u128)) -> Result<PerftOutcome, String> {
    registry::visit(request.game, request.variant, Perft { request, progress }).await
}

/// A request's count, written once for every game of the registry.
struct Perft<'a> {
    request: &'a PerftRequest,
    progress: &'a dyn Fn(u128),
}

impl<'a> Visit for Perft<'a> {
    type Output = LocalFuture<'a, Result<PerftOutcome, String>>;

    fn visit<G: ListedGame>(self, variant: Variant) -> Self::Output {
        Box::pin(perft_game::<G>(self.request, variant, self.progress))
    }
}

/// A future of the page's thread.
type LocalFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + 'a>>;

async fn perft_game<G: ListedGame>(
    request: &PerftRequest,
    variant: Variant,
    progress: &dyn Fn(u128),
) -> Result<PerftOutcome, String> {
    let text = request.position.trim();
    let root = G::read((!text.is_empty()).then_some(text), variant, request.size).map_err(|error| match error {
        ReadError::Position(message) => format!("{}: {message}", G::NOTATION),
        ReadError::Size(message) | ReadError::Moves(message) => format!("--moves: {message}"),
    })?;
    // The root moves named as the command line names them, with their positions.
    let children = game::named_children::<G>(&root, |mv| G::move_text(&root, mv, false));
    let mut started_at = web_time::Instant::now();
    let mut note = None;
    if request.backend == Backend::Gpu {
        let counted = match crate::context().await {
            Ok(context) => gpu_divide::<G>(&context, &root, &children, request.depth, request.divide, progress)
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
    let rows = cpu_divide::<G>(&children, request.depth, progress).await;
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

/// Each root move's count on the CPU, one move at a time (the browser
/// gives WebAssembly one thread, so the game's perft runs on it).
async fn cpu_divide<G: ListedGame>(
    children: &[(String, G::Position)],
    depth: u32,
    progress: &dyn Fn(u128),
) -> Vec<(String, u128)> {
    let mut rows = Vec::new();
    if depth == 0 {
        return rows;
    }
    let mut done = 0u128;
    for (name, child) in children {
        let nodes = u128::from(G::perft(child, depth - 1));
        done += nodes;
        rows.push((name.clone(), nodes));
        progress(done);
        yield_to_browser().await;
    }
    rows
}

/// The engine options for `root` within the page's share of GPU memory.
fn page_options<G: ListedGame>(context: &GpuContext, root: &G::Position) -> PerftOptions<G::Build> {
    PerftOptions { memory_limit: Some(PAGE_GPU_MEMORY), ..G::options_for(context, root, ShaderBuild::default()) }
}

/// The count on the GPU: the root alone (exact past 2^64), or its children
/// when a divide is asked.
async fn gpu_divide<G: ListedGame>(
    context: &GpuContext,
    root: &G::Position,
    children: &[(String, G::Position)],
    depth: u32,
    divide: bool,
    progress: &dyn Fn(u128),
) -> Result<(u128, Vec<(String, u128)>), GpuError> {
    let mut report = |nodes: u64| progress(u128::from(nodes));
    if depth == 0 {
        return Ok((1, Vec::new()));
    }
    let mut engine = PerftEngine::<G>::with_options_async(context, page_options::<G>(context, root)).await?;
    if !divide {
        let counts = engine.perft_wide_async(std::slice::from_ref(root), depth, &mut report).await?;
        return Ok((counts[0], Vec::new()));
    }
    let positions: Vec<G::Position> = children.iter().map(|(_, child)| child.clone()).collect();
    let counts = engine.perft_wide_async(&positions, depth - 1, &mut report).await?;
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
    let (kind, variant) = match (GameKind::from_name(game), Variant::from_name(game)) {
        (Some(kind), _) => (kind, Variant::Chess),
        (None, Some(variant)) if variant != Variant::Chess => (GameKind::Chess, variant),
        _ => {
            let names: Vec<String> = GameKind::ALL.iter().map(|kind| format!("\"{kind}\"")).collect();
            return Err(format!(
                "game must be {} or a chess variant ({}), not \"{game}\"",
                names.join(", "),
                Variant::names()
            ));
        }
    };
    let (names, gpu, cpu) = registry::visit(kind, variant, Verify { context: &context, count, depth, seed }).await?;
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

/// `verify`'s counts of one game: each position's text, its GPU count and its CPU count.
struct Verify<'a> {
    context: &'a GpuContext,
    count: u32,
    depth: u32,
    seed: u64,
}

type Verified = (Vec<String>, Vec<u64>, Vec<u64>);

impl<'a> Visit for Verify<'a> {
    type Output = LocalFuture<'a, Result<Verified, String>>;

    fn visit<G: ListedGame>(self, variant: Variant) -> Self::Output {
        Box::pin(async move {
            let forget = |error: GpuError| {
                crate::forget_device_after(&error);
                error.to_string()
            };
            let positions = G::random_positions(variant, self.count as usize, self.seed)?;
            let options = match positions.first() {
                Some(first) => page_options::<G>(self.context, first),
                None => return Ok((Vec::new(), Vec::new(), Vec::new())),
            };
            let mut engine = PerftEngine::<G>::with_options_async(self.context, options).await.map_err(forget)?;
            let gpu = engine.perft_async(&positions, self.depth, &mut |_| {}).await.map_err(forget)?;
            let cpu = positions.iter().map(|position| G::perft(position, self.depth)).collect();
            Ok((positions.iter().map(G::position_text).collect(), gpu, cpu))
        })
    }
}
