//! `gpu_movegen.perft`: one position of chess (or a chess variant), Shogi
//! or Go counted to a depth on the GPU or the CPU, exact past 2^64, with the
//! command line's rules: its messages for bad input, its `auto` backend, its
//! cross-check of a deep chess count on the GPU.

use gpu_movegen::Position;
use gpu_movegen::chess::cpu_perft::CpuPerft;
use gpu_movegen::chess::gpu::{Chess, GpuPerft};
use gpu_movegen::chess::variant::Variant;
use gpu_movegen::game;
use gpu_movegen::gpu::perft::{PerftEngine, PerftOptions};
use gpu_movegen::registry::{self, GameKind, ListedGame, ReadError, Visit};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::backend::{self, Backend};
use crate::detach::Control;
use crate::failure::{Failure, Outcome};

/// Subtrees a GPU chess perft to depth 5 or more recounts on the CPU (the
/// command line's default `--cross-check`).
const CROSS_CHECKS: usize = 8;

/// The largest `hash_mib` (the command line's `--hash` bound).
const MAX_HASH_MIB: i64 = 1 << 22;

/// The largest `threads`.
const MAX_THREADS: i64 = 1024;

/// A count: the total, or the count below each root move in the command
/// line's notation and order.
enum Counted {
    Total(u128),
    Divided(Vec<(String, u64)>),
}

impl Counted {
    fn nodes(&self) -> u128 {
        match self {
            Counted::Total(nodes) => *nodes,
            Counted::Divided(counts) => counts.iter().map(|(_, count)| u128::from(*count)).sum(),
        }
    }
}

/// What a call asked for, checked and parsed.
struct Request {
    depth: u32,
    divide: bool,
    hash_mib: Option<u64>,
    threads: Option<usize>,
    backend: Backend,
    chess960: bool,
}

/// Counts the leaves of `position`'s game tree `depth` plies deep.
///
/// `position` is a FEN (chess and its variants; None: the start position),
/// an SFEN (Shogi; None: the start position) or Go moves from the empty
/// board such as `"B E5 W D4 B pass"` (None or `""`: the empty board of
/// `size`). `game` is `"chess"`, `"shogi"` or `"go"`; `variant` names a
/// lichess chess variant (`"atomic"`, `"crazyhouse"`, ...). `backend` is
/// `"gpu"`, `"cpu"` or `"auto"` (the GPU unless its only adapter is a
/// software one or it cannot be used). `hash_mib` sizes the transposition
/// table (0 turns it off; default: what the depth needs), `threads` the CPU's
/// worker threads. With `divide`, returns a dict from each root move (UCI,
/// with castling as king takes rook when `chess960` is set or the position
/// needs it; USI; GTP vertices) to its count, in the command line's order;
/// otherwise an int, exact past 2^64. `progress`, if given, is called with
/// the nodes counted so far now and then and with the total at the end.
///
/// Raises ValueError for bad input, GpuError when the GPU fails,
/// MismatchError when the GPU's count differs from the CPU's on a recounted
/// subtree (chess on the GPU from depth 5), KeyboardInterrupt on Ctrl-C.
#[pyfunction]
#[pyo3(signature = (position, depth, *, game = "chess", backend = "auto", divide = false, hash_mib = None,
                    chess960 = false, variant = None, size = 9, threads = None, progress = None))]
#[allow(clippy::too_many_arguments)]
pub fn perft(
    py: Python<'_>,
    position: Option<String>,
    depth: i64,
    game: &str,
    backend: &str,
    divide: bool,
    hash_mib: Option<i64>,
    chess960: bool,
    variant: Option<String>,
    size: i64,
    threads: Option<i64>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    if let Some(callback) = &progress
        && !callback.is_callable()
    {
        return Err(pyo3::exceptions::PyTypeError::new_err("progress must be callable (it is given the nodes so far)"));
    }
    let request = Request {
        depth: 0,
        divide,
        hash_mib: match hash_mib {
            None => None,
            Some(mebibytes) if (0..=MAX_HASH_MIB).contains(&mebibytes) => Some(mebibytes as u64),
            Some(mebibytes) => {
                return Err(Failure::Input(format!("hash_mib: {mebibytes} is not in 0..={MAX_HASH_MIB}")).into());
            }
        },
        threads: match threads {
            None => None,
            Some(threads) if (1..=MAX_THREADS).contains(&threads) => Some(threads as usize),
            Some(threads) => {
                return Err(Failure::Input(format!("threads: {threads} is not in 1..={MAX_THREADS}")).into());
            }
        },
        backend: Backend::parse(backend)?,
        chess960,
    };
    let kind = GameKind::from_name(game)
        .ok_or_else(|| Failure::Input(format!("game: expected {}, not {game:?}", GameKind::choices('\''))))?;
    let variant = match variant.as_deref() {
        None => Variant::Chess,
        Some(_) if kind != GameKind::Chess => {
            return Err(Failure::Input(format!("variant: the variants are chess's; game={game:?} has none")).into());
        }
        Some(name) => name.parse::<Variant>().map_err(|error| Failure::Input(format!("variant: {error}")))?,
    };
    // A size that is no u32 is no board size either: Go's reader refuses it by name.
    let size = u32::try_from(size).unwrap_or(u32::MAX);
    let count = Count { py, position: position.as_deref(), size, depth, request, progress: progress.as_ref() };
    let counted = registry::visit(kind, variant, count)?;
    Ok(match counted {
        Counted::Total(nodes) => nodes.into_pyobject(py)?.into_any().unbind(),
        Counted::Divided(counts) => {
            let divided = PyDict::new(py);
            for (notation, count) in counts {
                divided.set_item(notation, count)?;
            }
            divided.into_any().unbind()
        }
    })
}

/// One call's count, written once for every game of the registry.
struct Count<'a, 'py> {
    py: Python<'py>,
    position: Option<&'a str>,
    size: u32,
    depth: i64,
    request: Request,
    progress: Option<&'a Bound<'py, PyAny>>,
}

impl Visit for Count<'_, '_> {
    type Output = PyResult<Counted>;

    fn visit<G: ListedGame>(self, variant: Variant) -> PyResult<Counted> {
        let depth = match u32::try_from(self.depth) {
            Ok(depth) if depth <= G::MAX_DEPTH => depth,
            _ => return Err(Failure::Input(format!("depth: {} is not in 0..={}", self.depth, G::MAX_DEPTH)).into()),
        };
        let request = Request { depth, ..self.request };
        if request.divide && request.depth == 0 {
            return Err(Failure::Input(
                "divide needs depth 1 or more: perft(0) is the root alone, with no moves to divide by".to_owned(),
            )
            .into());
        }
        let root = G::read(self.position, variant, self.size).map_err(|error| {
            Failure::Input(match error {
                ReadError::Size(message) => format!("size: {message}"),
                ReadError::Moves(message) => format!("moves: {message}"),
                ReadError::Position(message) if variant != Variant::Chess => format!("position: {variant}: {message}"),
                ReadError::Position(message) => format!("position: {message}"),
            })
        })?;
        crate::detach::run(
            self.py,
            self.progress,
            |counted: &Counted| Some(counted.nodes()),
            |control| backend::forget_on_failure(count_game::<G>(&root, &request, control)),
        )
    }
}

/// Counts on the CPU by root move, reporting progress after each, with the
/// total added in 128 bits: `count` gives the count below one child and
/// stops within milliseconds on Ctrl-C (`control.cancel`).
fn by_root_move<Child>(
    children: Vec<(String, Child)>,
    request: &Request,
    control: &Control,
    mut count: impl FnMut(&Child, u32) -> Outcome<u64>,
) -> Outcome<Counted> {
    if request.depth == 0 {
        return Ok(Counted::Total(1));
    }
    let mut counts = Vec::with_capacity(children.len());
    for (notation, child) in &children {
        control.check()?;
        let nodes = count(child, request.depth - 1)?;
        control.add_nodes(nodes);
        counts.push((notation.clone(), nodes));
    }
    Ok(if request.divide {
        Counted::Divided(counts)
    } else {
        Counted::Total(counts.iter().map(|(_, nodes)| u128::from(*nodes)).sum())
    })
}

/// A rayon pool of `threads` (default: one a core).
fn pool(threads: Option<usize>) -> Outcome<rayon::ThreadPool> {
    gpu_movegen::threads::pool(threads).map_err(|error| Failure::Input(format!("threads: {error}")))
}

/// `G`'s GPU engine as `backend` asks (None: count on the CPU), with the
/// options that suit `root` on the device, the request's table, and
/// `control`'s stop flag.
fn open_gpu<G: ListedGame>(
    root: &G::Position,
    request: &Request,
    control: &Control,
) -> Outcome<Option<PerftEngine<G>>> {
    let engine = backend::open(
        request.backend,
        |context| {
            let (table_bytes, merge_transpositions) =
                gpu_movegen::gpu::perft::requested_table(context, request.hash_mib, None, request.depth)?;
            let suited = G::options_for(context, root, backend::chess_shaders(context, G::KERNEL_FAMILY)?);
            let options = PerftOptions { table_bytes: Some(table_bytes), merge_transpositions, ..suited };
            Ok(Some(PerftEngine::<G>::with_options(context, options)?))
        },
        || Ok(None),
    )?;
    Ok(engine.map(|mut engine| {
        engine.set_cancel(Some(control.cancel.clone()));
        engine
    }))
}

/// Chess counts as every game does, and more: a deep GPU count is
/// cross-checked, and the CPU counts with its transposition table.
fn count_chess(root: &Position, request: &Request, control: &Control) -> Outcome<Counted> {
    let name = |mv| Chess::move_text(root, mv, request.chess960);
    match open_gpu::<Chess>(root, request, control)? {
        Some(mut gpu) => {
            let counted = if request.divide {
                let divided = gpu.divide(root, request.depth, &mut |nodes| control.set_nodes(nodes))?;
                Counted::Divided(divided.into_iter().map(|(mv, count)| (name(mv), count)).collect())
            } else {
                let totals =
                    gpu.perft_wide(std::slice::from_ref(root), request.depth, &mut |nodes| control.set_nodes(nodes))?;
                Counted::Total(totals[0])
            };
            if request.depth >= 5 {
                cross_check(root, request.depth, &mut gpu)?;
            }
            Ok(counted)
        }
        None => {
            let mut builder = CpuPerft::builder();
            if let Some(threads) = request.threads {
                builder = builder.threads(threads);
            }
            if let Some(mebibytes) = request.hash_mib {
                builder = builder.hash_mebibytes(mebibytes);
            }
            let mut cpu = builder.build(request.depth).map_err(|error| Failure::Input(error.to_string()))?;
            let children = game::named_children::<Chess>(root, name);
            // Progress is told by root move (by_root_move), so the engine's own reports are not wanted.
            let quiet = ();
            by_root_move(children, request, control, |child, depth| {
                let counts = cpu.perft_until(std::slice::from_ref(child), depth, &quiet, &control.cancel);
                counts.map(|counts| counts[0]).ok_or(Failure::Cancelled)
            })
        }
    }
}

/// Recounts a few random subtrees of a deep GPU count on the GPU (its table
/// emptied) and on the CPU, as the command line does after every GPU perft
/// from depth 5: a difference means the GPU's total is not to be trusted.
fn cross_check(root: &Position, depth: u32, gpu: &mut GpuPerft) -> Outcome<()> {
    let seed: u64 = rand::random();
    let subtrees = gpu_movegen::chess::cross_check::draw_subtrees(root, depth, CROSS_CHECKS, seed);
    gpu.clear_table()?;
    let mismatches =
        gpu_movegen::chess::cross_check::cross_check(&subtrees, |roots, below| gpu.perft(roots, below, &mut |_| {}))?;
    if let Some(mismatch) = mismatches.first() {
        let moves: Vec<String> = mismatch.subtree.moves.iter().map(|mv| mv.uci(true).to_string()).collect();
        return Err(Failure::Mismatch(format!(
            "{} of {CROSS_CHECKS} subtrees counted differently on the GPU and the CPU (seed {seed}); the first: \
             perft({}) of {} (after {}): GPU {}, CPU {}",
            mismatches.len(),
            mismatch.subtree.depth,
            mismatch.subtree.position.to_fen(),
            if moves.is_empty() { "no moves".to_owned() } else { moves.join(" ") },
            mismatch.other,
            mismatch.reference
        )));
    }
    Ok(())
}

/// A count of `G` on the GPU that `request` asks for, else on the CPU by
/// root move, moves named as the command line names them.
fn count_game<G: ListedGame>(root: &G::Position, request: &Request, control: &Control) -> Outcome<Counted> {
    if let Some(chess) = (root as &dyn std::any::Any).downcast_ref::<Position>() {
        return count_chess(chess, request, control);
    }
    let name = |mv| G::move_text(root, mv, request.chess960);
    match open_gpu::<G>(root, request, control)? {
        Some(mut gpu) => {
            let mut progress = |nodes| control.set_nodes(nodes);
            if request.divide {
                let divided = gpu.divide(root, request.depth, &mut progress)?;
                return Ok(Counted::Divided(divided.into_iter().map(|(mv, count)| (name(mv), count)).collect()));
            }
            Ok(Counted::Total(gpu.perft_wide(std::slice::from_ref(root), request.depth, &mut progress)?[0]))
        }
        None => {
            let pool = pool(request.threads)?;
            let children = game::named_children::<G>(root, name);
            by_root_move(children, request, control, |child, depth| {
                pool.install(|| G::perft_until(child, depth, &control.cancel)).ok_or(Failure::Cancelled)
            })
        }
    }
}
