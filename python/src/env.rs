//! `gpu_movegen.env`: batched game environments with pgx's state, for
//! self-play. `make("chess", batch_size=N)` gives an `Env` whose `reset`
//! and `step` return a `State` of numpy arrays with a leading batch axis
//! and pgx's names. The arrays are allocated once and written again by
//! every step (copy one to keep it); numpy's `__dlpack__` hands them to
//! PyTorch without a copy. A step runs with the GIL released.

use gpu_movegen::chess::Chess;
use gpu_movegen::env::{Env as Games, EnvError, EnvGame};
use gpu_movegen::go::env::GoEnv;
use numpy::{PyArray1, PyArray2, PyArray4, PyArrayDescrMethods, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyModule;

/// The most games a batch may hold: a chess game's arrays take about 70 KB
/// (the library's and numpy's copies), so 65,536 games take 4.6 GB; past
/// that an allocation would fail with no clear error.
const MAX_BATCH: usize = 1 << 16;

/// The environments `make` knows, by pgx's id.
const IDS: &[&str] = &["chess", "go_9x9", "go_19x19"];

/// The games of one environment, whichever game it is.
enum Batch {
    Chess(Games<Chess>),
    Go9(Games<GoEnv<9>>),
    Go19(Games<GoEnv<19>>),
}

/// Calls `$body` with `$games` bound to the batch, whatever its game.
macro_rules! with_games {
    ($batch:expr, $games:ident => $body:expr) => {
        match $batch {
            Batch::Chess($games) => $body,
            Batch::Go9($games) => $body,
            Batch::Go19($games) => $body,
        }
    };
}

/// pgx's arrays, owned by Python and written after every step.
#[pyclass(module = "gpu_movegen.env", frozen)]
pub struct State {
    /// The player (0 or 1) to move in each game: int32, (batch,).
    #[pyo3(get)]
    current_player: Py<PyArray1<i32>>,
    /// Each game's observation for the player to move: (batch, *observation_shape),
    /// float32 for chess, bool for Go, as in pgx.
    #[pyo3(get)]
    observation: Py<PyAny>,
    /// Each player's reward for the last step: float32, (batch, 2).
    #[pyo3(get)]
    rewards: Py<PyArray2<f32>>,
    /// Whether each game is over: bool, (batch,).
    #[pyo3(get)]
    terminated: Py<PyArray1<bool>>,
    /// Whether each game was cut short (always false, as in pgx): bool, (batch,).
    #[pyo3(get)]
    truncated: Py<PyArray1<bool>>,
    /// The legal actions of each game, all true once it is over: bool, (batch, num_actions).
    #[pyo3(get)]
    legal_action_mask: Py<PyArray2<bool>>,
    /// Steps taken in each game since its start: int32, (batch,).
    #[pyo3(get)]
    _step_count: Py<PyArray1<i32>>,
}

/// A batch of games stepped together, as pgx's `jax.vmap(env.step)` steps them.
#[pyclass(module = "gpu_movegen.env")]
pub struct Env {
    games: Batch,
    state: Py<State>,
    id: &'static str,
}

fn id_of<G: EnvGame>(_: &Games<G>) -> &'static str {
    G::ID
}

fn actions_of<G: EnvGame>(_: &Games<G>) -> usize {
    G::ACTIONS
}

fn observation_shape_of<G: EnvGame>(_: &Games<G>) -> [usize; 3] {
    G::OBSERVATION_SHAPE
}

/// `batch_size` games of `G` and the numpy arrays of their state.
fn open<G: EnvGame>(py: Python<'_>, batch_size: usize, seed: u64, auto_reset: bool) -> PyResult<(Games<G>, State)>
where
    G::Cell: numpy::Element,
{
    let mut games = py.detach(|| Games::<G>::new(batch_size, seed));
    games.set_auto_reset(auto_reset);
    let [rows, columns, planes] = G::OBSERVATION_SHAPE;
    let state = State {
        current_player: PyArray1::zeros(py, batch_size, false).unbind(),
        observation: PyArray4::<G::Cell>::zeros(py, [batch_size, rows, columns, planes], false).into_any().unbind(),
        rewards: PyArray2::zeros(py, [batch_size, 2], false).unbind(),
        terminated: PyArray1::from_vec(py, vec![false; batch_size]).unbind(),
        truncated: PyArray1::from_vec(py, vec![false; batch_size]).unbind(),
        legal_action_mask: PyArray1::from_vec(py, vec![false; batch_size * G::ACTIONS])
            .reshape([batch_size, G::ACTIONS])?
            .unbind(),
        _step_count: PyArray1::zeros(py, batch_size, false).unbind(),
    };
    Ok((games, state))
}

fn game_error(error: EnvError) -> PyErr {
    PyValueError::new_err(format!("actions: {error}"))
}

impl Env {
    /// Copies the games' arrays into the state's numpy arrays (with the GIL held).
    fn publish(&self, py: Python<'_>) -> PyResult<()> {
        with_games!(&self.games, games => publish(py, self.state.get(), games))
    }
}

fn publish<G: EnvGame>(py: Python<'_>, state: &State, games: &Games<G>) -> PyResult<()>
where
    G::Cell: numpy::Element,
{
    copy_into(state.current_player.bind(py), games.current_player())?;
    copy_into(state.observation.bind(py).cast::<PyArray4<G::Cell>>()?, games.observation())?;
    copy_into(state.rewards.bind(py), games.rewards())?;
    copy_into(state.terminated.bind(py), games.terminated())?;
    copy_into(state.truncated.bind(py), games.truncated())?;
    copy_into(state.legal_action_mask.bind(py), games.legal_action_mask())?;
    copy_into(state._step_count.bind(py), games.step_count())
}

/// Writes `values` over the whole of `array`, which has as many elements.
fn copy_into<T: numpy::Element + Copy, D: numpy::ndarray::Dimension>(
    array: &Bound<'_, numpy::PyArray<T, D>>,
    values: &[T],
) -> PyResult<()> {
    let mut target = array.try_readwrite().map_err(|error| PyValueError::new_err(format!("state arrays: {error}")))?;
    let slice = target.as_slice_mut().map_err(|error| PyValueError::new_err(format!("state arrays: {error}")))?;
    slice.copy_from_slice(values);
    Ok(())
}

/// Reads `actions`: anything numpy reads as a one-dimensional array of
/// integers, one per game.
fn read_actions(py: Python<'_>, actions: &Bound<'_, PyAny>, batch_size: usize) -> PyResult<Vec<i64>> {
    let numpy = PyModule::import(py, "numpy")?;
    let array = numpy.call_method1("asarray", (actions,))?;
    let array =
        array.cast_into::<numpy::PyUntypedArray>().map_err(|_| PyValueError::new_err("actions: not an array"))?;
    if array.ndim() != 1 || array.len() != batch_size {
        return Err(PyValueError::new_err(format!(
            "actions: expected shape ({batch_size},), one action a game, not {:?}",
            array.shape()
        )));
    }
    let kind = array.dtype().kind();
    if kind != b'i' && kind != b'u' {
        return Err(PyValueError::new_err(format!("actions: expected integers, not dtype {}", array.dtype())));
    }
    let converted = array.call_method1("astype", ("int64",))?;
    let converted = converted.cast_into::<PyArray1<i64>>()?;
    Ok(converted.to_vec()?)
}

#[pymethods]
impl Env {
    /// Every game back to its start; the players' colours are drawn from
    /// `seed` (the same seed, the same games). Returns the state.
    #[pyo3(signature = (seed = 0))]
    fn reset(&mut self, py: Python<'_>, seed: u64) -> PyResult<Py<State>> {
        with_games!(&mut self.games, games => py.detach(|| games.reset(seed)));
        self.publish(py)?;
        Ok(self.state.clone_ref(py))
    }

    /// Plays `actions[i]` in game `i` (a game already over stays as it is)
    /// and returns the state. Wrong shapes, dtypes and actions outside
    /// `0..num_actions` raise `ValueError` before any game changes.
    fn step(&mut self, py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<Py<State>> {
        let batch_size = with_games!(&self.games, games => games.batch_size());
        let actions = read_actions(py, actions, batch_size)?;
        with_games!(&mut self.games, games => py.detach(|| games.step(&actions))).map_err(game_error)?;
        self.publish(py)?;
        Ok(self.state.clone_ref(py))
    }

    /// The state the last `reset` or `step` returned.
    #[getter]
    fn state(&self, py: Python<'_>) -> Py<State> {
        self.state.clone_ref(py)
    }

    /// pgx's id of the environment.
    #[getter]
    fn id(&self) -> &'static str {
        self.id
    }

    /// Games in the batch.
    #[getter]
    fn batch_size(&self) -> usize {
        with_games!(&self.games, games => games.batch_size())
    }

    /// Size of the action space.
    #[getter]
    fn num_actions(&self) -> usize {
        with_games!(&self.games, games => actions_of(games))
    }

    /// The shape of one observation.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        let [rows, columns, planes] = with_games!(&self.games, games => observation_shape_of(games));
        (rows, columns, planes)
    }

    /// Players a game: 2.
    #[getter]
    fn num_players(&self) -> usize {
        2
    }

    /// Which player (0 or 1) plays each colour in game `game`: `(first, second)`.
    fn players(&self, game: usize) -> PyResult<(u8, u8)> {
        let batch_size = self.batch_size();
        if game >= batch_size {
            return Err(PyValueError::new_err(format!("game: {game} is outside 0..{batch_size}")));
        }
        let [first, second] = with_games!(&self.games, games => games.players(game));
        Ok((first, second))
    }

    fn __repr__(&self) -> String {
        format!("gpu_movegen.env.Env({:?}, batch_size={}, backend='cpu')", self.id, self.batch_size())
    }
}

/// A batch of `batch_size` games of `env_id` (pgx's ids: "chess", "go_9x9",
/// "go_19x19"), at their
/// start, the players' colours drawn from `seed`. `backend` is where the
/// games run: this version steps them on the CPU ("cpu", or "auto").
/// `auto_reset` replaces a game that ends by a new one at once, as pgx's
/// `auto_reset` wrapper does.
#[pyfunction]
#[pyo3(signature = (env_id, *, batch_size, backend = "auto", seed = 0, auto_reset = false))]
pub fn make(
    py: Python<'_>,
    env_id: &str,
    batch_size: usize,
    backend: &str,
    seed: u64,
    auto_reset: bool,
) -> PyResult<Env> {
    match backend {
        "auto" | "cpu" => {}
        "gpu" => {
            return Err(PyValueError::new_err(
                "backend: this version steps environments on the CPU only; use 'cpu' or 'auto'",
            ));
        }
        other => return Err(PyValueError::new_err(format!("backend: expected 'auto', 'gpu' or 'cpu', not {other:?}"))),
    }
    if batch_size == 0 || batch_size > MAX_BATCH {
        return Err(PyValueError::new_err(format!("batch_size: expected 1 to {MAX_BATCH}, not {batch_size}")));
    }
    let (games, state) = match env_id {
        "chess" => {
            open::<Chess>(py, batch_size, seed, auto_reset).map(|(games, state)| (Batch::Chess(games), state))?
        }
        "go_9x9" => {
            open::<GoEnv<9>>(py, batch_size, seed, auto_reset).map(|(games, state)| (Batch::Go9(games), state))?
        }
        "go_19x19" => {
            open::<GoEnv<19>>(py, batch_size, seed, auto_reset).map(|(games, state)| (Batch::Go19(games), state))?
        }
        other => {
            return Err(PyValueError::new_err(format!("env_id: expected one of {}, not {other:?}", IDS.join(", "))));
        }
    };
    let id = with_games!(&games, games => id_of(games));
    let env = Env { games, state: Py::new(py, state)?, id };
    env.publish(py)?;
    Ok(env)
}

/// The `gpu_movegen.env` submodule.
pub fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let module = PyModule::new(py, "env")?;
    module.add_function(wrap_pyfunction!(make, &module)?)?;
    module.add_class::<Env>()?;
    module.add_class::<State>()?;
    module.add("__all__", ["Env", "State", "make"])?;
    Ok(module)
}
