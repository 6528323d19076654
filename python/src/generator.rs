//! `gpu_movegen.Generator`: a device opened once (kernels built and
//! self-tested), then batches of positions in, legal moves or their counts
//! out, and Go's random playouts.

use std::sync::Mutex;

use gpu_movegen::chess::gpu::layout::PackedPosition;
use gpu_movegen::chess::gpu::{Kernel, MoveGenerator};
use gpu_movegen::go::gpu::{GoMoveGenerator, GpuPlayouts};
use gpu_movegen::go::playout::{CpuPlayouts, PlayoutBatch, PlayoutRunner};
use gpu_movegen::shogi::gpu::{ShogiMoveGenerator, ShogiPositionMoves};
use gpu_movegen::{Position, go, shogi};
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::backend::{self, Backend};
use crate::failure::{Failure, Outcome};

/// The most playouts one call runs from one position.
const MAX_PLAYOUTS_PER_POSITION: i64 = 1 << 20;

/// Playouts one GPU dispatch runs at most (the command line's batch).
const PLAYOUTS_PER_BATCH: usize = 1 << 20;

/// The game a generator serves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Game {
    Chess,
    Shogi,
    Go { size: u32 },
}

/// Where a generator runs, with its kernels.
enum Engine {
    ChessGpu(Box<MoveGenerator>),
    ShogiGpu(Box<ShogiMoveGenerator>),
    GoGpu(Box<GoMoveGenerator>, Box<GpuPlayouts>),
    Cpu(rayon::ThreadPool),
}

/// A game's positions, parsed.
enum Positions {
    Chess(Vec<Position>),
    Shogi(Vec<shogi::position::Position>),
    Go(Vec<go::Position>),
}

/// Generates the legal moves of batches of positions on the GPU (or the CPU).
///
/// Opening one builds the game's kernels and runs the device's self-test
/// (the first run on a driver compiles them: seconds); each call after that
/// sends a whole batch in one dispatch. `game` is `"chess"`, `"shogi"` or
/// `"go"` (boards of `size`); `backend` is `"gpu"`, `"cpu"` or `"auto"`.
/// Positions are FENs, SFENs or Go move strings from the empty board
/// (`"B E5 W D4"`); moves come back in UCI, USI or GTP vertices. Go's moves
/// are its legal points, passes not counted, as in Go perft.
#[pyclass(module = "gpu_movegen", frozen)]
pub struct Generator {
    game: Game,
    backend: &'static str,
    adapter: Option<String>,
    engine: Mutex<Engine>,
}

#[pymethods]
impl Generator {
    #[new]
    #[pyo3(signature = (game = "chess", backend = "gpu", *, size = 9, threads = None))]
    fn new(py: Python<'_>, game: &str, backend: &str, size: i64, threads: Option<i64>) -> PyResult<Generator> {
        let backend = Backend::parse(backend)?;
        let game = match game {
            "chess" => Game::Chess,
            "shogi" => Game::Shogi,
            "go" => Game::Go { size: go_size(size)? },
            other => {
                return Err(Failure::Input(format!("game: expected 'chess', 'shogi' or 'go', not {other:?}")).into());
            }
        };
        let threads = match threads {
            None => None,
            Some(threads) if (1..=1024).contains(&threads) => Some(threads as usize),
            Some(threads) => return Err(Failure::Input(format!("threads: {threads} is not in 1..=1024")).into()),
        };
        let (engine, adapter) = crate::detach::run(
            py,
            None,
            |_| None,
            |_| {
                backend::open(
                    backend,
                    |context| {
                        let engine = match game {
                            Game::Chess => Engine::ChessGpu(Box::new(MoveGenerator::new(context)?)),
                            Game::Shogi => Engine::ShogiGpu(Box::new(ShogiMoveGenerator::new(context)?)),
                            Game::Go { size } => {
                                let mut playouts = GpuPlayouts::new(context);
                                playouts.prepare(size)?;
                                Engine::GoGpu(Box::new(GoMoveGenerator::new(context)), Box::new(playouts))
                            }
                        };
                        Ok((engine, Some(context.adapter_description())))
                    },
                    || {
                        let pool = gpu_movegen::threads::pool(threads)
                            .map_err(|error| Failure::Input(format!("threads: {error}")))?;
                        Ok((Engine::Cpu(pool), None))
                    },
                )
            },
        )?;
        let backend = if matches!(engine, Engine::Cpu(_)) { "cpu" } else { "gpu" };
        Ok(Generator { game, backend, adapter, engine: Mutex::new(engine) })
    }

    /// Where the moves are generated: `"gpu"` or `"cpu"`.
    #[getter]
    fn backend(&self) -> &'static str {
        self.backend
    }

    /// The GPU adapter's description, or None on the CPU.
    #[getter]
    fn adapter(&self) -> Option<String> {
        self.adapter.clone()
    }

    /// The game: `"chess"`, `"shogi"` or `"go"`.
    #[getter]
    fn game(&self) -> &'static str {
        match self.game {
            Game::Chess => "chess",
            Game::Shogi => "shogi",
            Game::Go { .. } => "go",
        }
    }

    fn __repr__(&self) -> String {
        match &self.adapter {
            Some(adapter) => format!("Generator(game={:?}, backend=\"gpu\", adapter={adapter:?})", self.game()),
            None => format!("Generator(game={:?}, backend=\"cpu\")", self.game()),
        }
    }

    /// The legal moves of each position, in UCI (castling as the king's move
    /// unless `chess960` is set or the position needs Chess960 notation),
    /// USI or GTP vertices. Shogi's and Go's lists are the CPU's, checked
    /// equal to the GPU's move sets.
    #[pyo3(signature = (positions, *, chess960 = false))]
    fn legal_moves(&self, py: Python<'_>, positions: Vec<String>, chess960: bool) -> PyResult<Vec<Vec<String>>> {
        self.on_batch(py, &positions, |engine, positions| legal_moves(engine, positions, chess960))
    }

    /// The number of legal moves of each position, as a numpy array of
    /// uint32 (chess: promotions count four; Go: legal points).
    fn count_moves<'py>(&self, py: Python<'py>, positions: Vec<String>) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let counts = self.on_batch(py, &positions, count_moves)?;
        Ok(counts.into_pyarray(py))
    }

    /// Go only: `per_position` random playouts from each position (each a
    /// Go move string on this generator's board), playout `i` of the batch
    /// seeded with stream `i` of `seed`, and black's win rate from each as a
    /// numpy array of float64 (a draw counts half) under `komi`. The GPU and
    /// the CPU play the same playouts.
    #[pyo3(signature = (positions, per_position = 64, *, seed = 0, komi = 7.5))]
    fn playouts<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<String>,
        per_position: i64,
        seed: u32,
        komi: f64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        if !matches!(self.game, Game::Go { .. }) {
            return Err(Failure::Input(format!("playouts are Go's; this generator's game is {:?}", self.game())).into());
        }
        if !(1..=MAX_PLAYOUTS_PER_POSITION).contains(&per_position) {
            return Err(Failure::Input(format!(
                "per_position: {per_position} is not in 1..={MAX_PLAYOUTS_PER_POSITION}"
            ))
            .into());
        }
        let most = gpu_movegen::go::playout::MAX_KOMI;
        if !komi.is_finite() || komi.abs() > most {
            return Err(Failure::Input(format!("komi: {komi} is not a number from -{most} to {most}")).into());
        }
        let per_position = per_position as u32;
        let rates = crate::detach::run(
            py,
            None,
            |_| None,
            |control| {
                let Positions::Go(positions) = self.parse(&positions)? else {
                    return Err(Failure::Internal("a Go generator parsed another game".to_owned()));
                };
                let mut engine = self.lock()?;
                let chunk = (PLAYOUTS_PER_BATCH / per_position as usize).max(1);
                let mut rates = Vec::with_capacity(positions.len());
                for (index, part) in positions.chunks(chunk).enumerate() {
                    control.check()?;
                    let first_stream = (index * chunk) as u32 * per_position;
                    let results = match &mut *engine {
                        Engine::GoGpu(_, playouts) => {
                            playouts.playouts(part, per_position, seed, first_stream).inspect_err(|_| {
                                backend::forget_context();
                            })?
                        }
                        Engine::Cpu(pool) => pool
                            .install(|| CpuPlayouts.run(part, PlayoutBatch { per_position, seed, first_stream }))
                            .map_err(Failure::Internal)?,
                        _ => return Err(Failure::Internal("a Go generator holds another game's kernels".to_owned())),
                    };
                    for outcomes in results.chunks(per_position as usize) {
                        let score: f64 = outcomes
                            .iter()
                            .map(|result| match result.winner_sign(komi) {
                                1 => 1.0,
                                0 => 0.5,
                                _ => 0.0,
                            })
                            .sum();
                        rates.push(score / f64::from(per_position));
                    }
                }
                Ok(rates)
            },
        )?;
        Ok(rates.into_pyarray(py))
    }
}

impl Generator {
    /// Parses `positions` and runs `work` on them with the engine, off the
    /// interpreter (`detach::run`).
    fn on_batch<T: Send>(
        &self,
        py: Python<'_>,
        positions: &[String],
        work: impl FnOnce(&mut Engine, &Positions) -> Outcome<T> + Send,
    ) -> PyResult<T> {
        crate::detach::run(
            py,
            None,
            |_| None,
            |control| {
                let positions = self.parse(positions)?;
                control.check()?;
                let mut engine = self.lock()?;
                work(&mut engine, &positions)
            },
        )
    }

    fn lock(&self) -> Outcome<std::sync::MutexGuard<'_, Engine>> {
        self.engine.lock().map_err(|_| Failure::Internal("an earlier call on this generator panicked".to_owned()))
    }

    /// Reads every position (in parallel), naming the first bad one.
    fn parse(&self, texts: &[String]) -> Outcome<Positions> {
        fn all<T: Send, E: std::fmt::Display + Send>(
            texts: &[String],
            read: impl Fn(&str) -> Result<T, E> + Sync,
        ) -> Outcome<Vec<T>> {
            let read: Vec<Result<T, E>> = texts.par_iter().map(|text| read(text)).collect();
            read.into_iter()
                .enumerate()
                .map(|(index, outcome)| outcome.map_err(|error| Failure::Input(format!("positions[{index}]: {error}"))))
                .collect()
        }
        Ok(match self.game {
            Game::Chess => Positions::Chess(all(texts, Position::from_fen)?),
            Game::Shogi => Positions::Shogi(all(texts, shogi::position::Position::from_sfen)?),
            Game::Go { size } => Positions::Go(all(texts, |moves| go::Position::from_moves(size, moves))?),
        })
    }
}

/// A mismatch between the GPU's answer and the CPU's for position `index`.
fn mismatch(index: usize, what: &str) -> Failure {
    Failure::Mismatch(format!("positions[{index}]: the GPU's {what} differ from the CPU's"))
}

fn legal_moves(engine: &mut Engine, positions: &Positions, chess960: bool) -> Outcome<Vec<Vec<String>>> {
    let chess_notation = |position: &Position, moves: &mut dyn Iterator<Item = gpu_movegen::Move>| -> Vec<String> {
        let chess960 = chess960 || position.is_chess960();
        moves.map(|mv| mv.uci(chess960).to_string()).collect()
    };
    match (engine, positions) {
        (Engine::ChessGpu(generator), Positions::Chess(positions)) => {
            let generated =
                generator.generate(positions, Kernel::PerPosition).inspect_err(|_| backend::forget_context())?;
            positions
                .iter()
                .zip(&generated)
                .enumerate()
                .map(|(index, (position, moves))| {
                    let list = moves.moves();
                    if list.len() != moves.move_count as usize {
                        return Err(mismatch(index, "move list and move count"));
                    }
                    Ok(chess_notation(position, &mut list.into_iter()))
                })
                .collect()
        }
        (Engine::ShogiGpu(generator), Positions::Shogi(positions)) => {
            let generated = generator.generate(positions).inspect_err(|_| backend::forget_context())?;
            positions
                .par_iter()
                .zip(generated.par_iter())
                .enumerate()
                .map(|(index, (position, moves))| {
                    if *moves != ShogiPositionMoves::from_cpu(position) {
                        return Err(mismatch(index, "move sets"));
                    }
                    Ok(position.legal_moves().iter().map(ToString::to_string).collect())
                })
                .collect()
        }
        (Engine::GoGpu(generator, _), Positions::Go(positions)) => {
            let generated = generator.generate(positions).inspect_err(|_| backend::forget_context())?;
            positions
                .iter()
                .zip(&generated)
                .enumerate()
                .map(|(index, (position, moves))| {
                    if moves.legal != position.legal_words(position.to_move()) {
                        return Err(mismatch(index, "legal points"));
                    }
                    Ok(position.legal_points(position.to_move()).iter().map(ToString::to_string).collect())
                })
                .collect()
        }
        (Engine::Cpu(pool), positions) => Ok(pool.install(|| match positions {
            Positions::Chess(positions) => positions
                .par_iter()
                .map(|position| chess_notation(position, &mut position.legal_moves().into_iter()))
                .collect(),
            Positions::Shogi(positions) => positions
                .par_iter()
                .map(|position| position.legal_moves().iter().map(ToString::to_string).collect())
                .collect(),
            Positions::Go(positions) => positions
                .par_iter()
                .map(|position| position.legal_points(position.to_move()).iter().map(ToString::to_string).collect())
                .collect(),
        })),
        _ => Err(Failure::Internal("a generator was handed another game's positions".to_owned())),
    }
}

fn count_moves(engine: &mut Engine, positions: &Positions) -> Outcome<Vec<u32>> {
    let go_count = |words: &[u64]| words.iter().map(|word| word.count_ones()).sum::<u32>();
    match (engine, positions) {
        // Packed on every core, and the kernel's records read as they come
        // back: their counts need no move lists built.
        (Engine::ChessGpu(generator), Positions::Chess(positions)) => {
            let packed: Vec<PackedPosition> = positions.par_iter().map(PackedPosition::from).collect();
            Ok(generator
                .per_position_raw_gpu(&packed)
                .inspect_err(|_| backend::forget_context())?
                .iter()
                .map(|record| record.move_count)
                .collect())
        }
        (Engine::ShogiGpu(generator), Positions::Shogi(positions)) => Ok(generator
            .generate(positions)
            .inspect_err(|_| backend::forget_context())?
            .iter()
            .map(|moves| moves.move_count)
            .collect()),
        (Engine::GoGpu(generator, _), Positions::Go(positions)) => Ok(generator
            .generate(positions)
            .inspect_err(|_| backend::forget_context())?
            .iter()
            .map(|moves| go_count(&moves.legal))
            .collect()),
        (Engine::Cpu(pool), positions) => Ok(pool.install(|| match positions {
            Positions::Chess(positions) => {
                positions.par_iter().map(|position| gpu_movegen::perft::perft(position, 1) as u32).collect()
            }
            Positions::Shogi(positions) => positions.par_iter().map(shogi::perft::legal_move_count).collect(),
            Positions::Go(positions) => {
                positions.par_iter().map(|position| go_count(&position.legal_words(position.to_move()))).collect()
            }
        })),
        _ => Err(Failure::Internal("a generator was handed another game's positions".to_owned())),
    }
}

/// A Go board size, with the command line's messages.
fn go_size(size: i64) -> Outcome<u32> {
    let size = u32::try_from(size).map_err(|_| Failure::Input(format!("size: {size} is not a board size")))?;
    gpu_movegen::go::Position::new(size).map_err(|error| Failure::Input(format!("size: {error}")))?;
    Ok(size)
}
