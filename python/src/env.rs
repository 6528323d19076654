//! `gpu_movegen.env`: batched game environments with pgx's state, for
//! self-play. `make("chess", batch_size=N)` gives an `Env` whose `reset`
//! and `step` return a `State` of numpy arrays with a leading batch axis
//! and pgx's names. The arrays are allocated once and written again by
//! every step (copy one to keep it); numpy's `__dlpack__` hands them to
//! PyTorch without a copy. A step runs with the GIL released. `snapshots`,
//! `save` and `load` keep games in numbered slots and put them back, as a
//! tree search keeps its nodes. `backend="gpu"` keeps chess, Shogi and Go
//! games on the GPU (`chess::gpu::env::DeviceEnv`, and
//! `gpu::env::DeviceGameEnv` for Shogi and Go); a
//! GPU failure raises `GpuError` and closes the environment, with no array
//! changed.

use std::any::Any;
use std::collections::HashMap;

use gpu_movegen::chess::Chess;
use gpu_movegen::chess::gpu::env::{DeviceEnv, DeviceGamesError, DeviceSnapshot, MAX_GAMES};
use gpu_movegen::chess::variant::env::{AtomicEnv, HordeEnv, KingOfTheHillEnv, RacingKingsEnv, ThreeCheckEnv};
use gpu_movegen::env::{BatchArrays, Env as Games, EnvError, EnvGame, Snapshot};
use gpu_movegen::go::env::GoEnv;
use gpu_movegen::go::gpu::env::{GoDevice, MAX_GO_GAMES};
use gpu_movegen::gpu::env::{DeviceGame, DeviceGameEnv, DeviceSnapshot as DeviceGameSnapshot, DeviceStepError};
use gpu_movegen::shogi::ShogiGame;
use gpu_movegen::shogi::gpu::env::{MAX_SHOGI_GAMES, ShogiDevice};
use numpy::{PyArray1, PyArray2, PyArray4, PyArrayDescrMethods, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyModule;

use crate::backend;
use crate::failure::{Failure, Outcome};

/// The most games a batch may hold: a chess game's arrays take about 70 KB
/// (the library's and numpy's copies), so 65,536 games take 4.6 GB; past
/// that an allocation would fail with no clear error.
const MAX_BATCH: usize = 1 << 16;

/// The most games a `Snapshots` may hold: 8,192 games of 512 nodes each.
const MAX_SNAPSHOTS: usize = 1 << 22;

/// The environments the gpu backend steps.
const GPU_IDS: &[&str] = &["chess", "shogi", "go_9x9", "go_19x19"];

/// The environments `make` knows, by pgx's id.
const IDS: &[&str] =
    &["chess", "shogi", "go_9x9", "go_19x19", "atomic", "kingofthehill", "3check", "horde", "racingkings"];

/// A batch of games, whatever the game: what `Env` asks of it.
trait Batch: Send + Sync {
    fn id(&self) -> &'static str;
    fn batch_size(&self) -> usize;
    fn num_actions(&self) -> usize;
    fn observation_shape(&self) -> [usize; 3];
    fn players(&self, game: usize) -> [u8; 2];
    /// Where the games are kept: "cpu" or "gpu".
    fn backend(&self) -> &'static str;
    fn reset(&mut self, seed: u64) -> Outcome<()>;
    fn set_auto_reset(&mut self, on: bool);
    fn step(&mut self, actions: &[i64]) -> Outcome<()>;
    /// Numpy arrays of the batch's shapes and dtypes.
    fn new_state(&self, py: Python<'_>) -> PyResult<State>;
    /// Copies the games' arrays into `state`'s (with the GIL held).
    fn publish(&self, py: Python<'_>, state: &State) -> PyResult<()>;
    /// Room for `capacity` saved games of this batch's game.
    fn new_snapshots(&self, capacity: usize) -> Outcome<Box<dyn Any + Send + Sync>>;
    /// Saves game `i` into `slots[i]` of `snapshots` (those given a slot).
    fn save(&mut self, snapshots: &mut (dyn Any + Send + Sync), slots: &[Option<usize>]) -> Outcome<()>;
    /// Puts `slots[i]` of `snapshots` in place of game `i` (those given a
    /// slot); a slot given that holds no game is an error before any game changes.
    fn load(&mut self, snapshots: &(dyn Any + Send + Sync), slots: &[Option<usize>]) -> Outcome<()>;
}

/// One game's saved games: a slot each, empty until saved into.
type Slots<G> = Vec<Option<Snapshot<G>>>;

impl<G: EnvGame + 'static> Batch for Games<G>
where
    G::Cell: numpy::Element,
    G::State: 'static,
{
    fn id(&self) -> &'static str {
        G::ID
    }

    fn batch_size(&self) -> usize {
        Games::batch_size(self)
    }

    fn num_actions(&self) -> usize {
        G::ACTIONS
    }

    fn observation_shape(&self) -> [usize; 3] {
        G::OBSERVATION_SHAPE
    }

    fn players(&self, game: usize) -> [u8; 2] {
        Games::players(self, game)
    }

    fn backend(&self) -> &'static str {
        "cpu"
    }

    fn reset(&mut self, seed: u64) -> Outcome<()> {
        Games::reset(self, seed);
        Ok(())
    }

    fn set_auto_reset(&mut self, on: bool) {
        Games::set_auto_reset(self, on)
    }

    fn step(&mut self, actions: &[i64]) -> Outcome<()> {
        Games::step(self, actions).map_err(game_error)
    }

    fn new_state(&self, py: Python<'_>) -> PyResult<State> {
        new_state::<G>(py, Games::batch_size(self))
    }

    fn publish(&self, py: Python<'_>, state: &State) -> PyResult<()> {
        publish_arrays(py, state, self.arrays())
    }

    fn new_snapshots(&self, capacity: usize) -> Outcome<Box<dyn Any + Send + Sync>> {
        Ok(Box::new(Slots::<G>::from_iter((0..capacity).map(|_| None))))
    }

    fn save(&mut self, snapshots: &mut (dyn Any + Send + Sync), slots: &[Option<usize>]) -> Outcome<()> {
        let snapshots = snapshots.downcast_mut::<Slots<G>>().expect("the snapshots' game was checked by their id");
        for (game, slot) in slots.iter().enumerate() {
            if let Some(slot) = slot {
                snapshots[*slot] = Some(self.snapshot(game));
            }
        }
        Ok(())
    }

    fn load(&mut self, snapshots: &(dyn Any + Send + Sync), slots: &[Option<usize>]) -> Outcome<()> {
        let snapshots = snapshots.downcast_ref::<Slots<G>>().expect("the snapshots' game was checked by their id");
        let chosen = chosen_slots(snapshots, slots)?;
        self.restore(&chosen).expect("one slot a game was checked");
        Ok(())
    }
}
/// pgx's arrays, owned by Python and written after every step.
#[pyclass(module = "gpu_movegen.env", frozen)]
pub struct State {
    /// The player (0 or 1) to move in each game: int32, (batch,).
    #[pyo3(get)]
    current_player: Py<PyArray1<i32>>,
    /// Each game's observation for the player to move: (batch, *observation_shape),
    /// float32 for chess, bool for Shogi and Go, as in pgx.
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
    games: Box<dyn Batch>,
    state: Py<State>,
}

/// Saved games of one environment's game, each in a numbered slot: the
/// states of a tree search's nodes. `Env.save` fills slots, `Env.load`
/// puts them back in any game of a batch of the same game.
#[pyclass(module = "gpu_movegen.env")]
pub struct Snapshots {
    id: &'static str,
    backend: &'static str,
    capacity: usize,
    slots: Box<dyn Any + Send + Sync>,
}

#[pymethods]
impl Snapshots {
    /// pgx's id of the game the slots hold.
    #[getter]
    fn id(&self) -> &'static str {
        self.id
    }

    fn __len__(&self) -> usize {
        self.capacity
    }

    fn __repr__(&self) -> String {
        format!("gpu_movegen.env.Snapshots({:?}, {})", self.id, self.capacity)
    }
}

fn game_error(error: EnvError) -> Failure {
    Failure::Input(format!("actions: {error}"))
}

/// A device environment's error: the caller's actions, or the device (the
/// shared context is dropped, so that the next GPU call opens it afresh).
fn device_error(error: DeviceGamesError) -> Failure {
    match error {
        DeviceGamesError::Step(error) => game_error(error),
        DeviceGamesError::Gpu(error) => {
            backend::forget_context();
            Failure::from(error)
        }
        other => Failure::Input(other.to_string()),
    }
}

/// Chess games kept on the GPU.
impl Batch for DeviceEnv {
    fn id(&self) -> &'static str {
        <Chess as EnvGame>::ID
    }

    fn batch_size(&self) -> usize {
        DeviceEnv::batch_size(self)
    }

    fn num_actions(&self) -> usize {
        <Chess as EnvGame>::ACTIONS
    }

    fn observation_shape(&self) -> [usize; 3] {
        <Chess as EnvGame>::OBSERVATION_SHAPE
    }

    fn players(&self, game: usize) -> [u8; 2] {
        DeviceEnv::players(self, game)
    }

    fn backend(&self) -> &'static str {
        "gpu"
    }

    fn reset(&mut self, seed: u64) -> Outcome<()> {
        DeviceEnv::reset(self, seed).map_err(device_error)
    }

    fn set_auto_reset(&mut self, on: bool) {
        DeviceEnv::set_auto_reset(self, on)
    }

    fn step(&mut self, actions: &[i64]) -> Outcome<()> {
        DeviceEnv::step(self, actions).map_err(device_error)
    }

    fn new_state(&self, py: Python<'_>) -> PyResult<State> {
        new_state::<Chess>(py, DeviceEnv::batch_size(self))
    }

    fn publish(&self, py: Python<'_>, state: &State) -> PyResult<()> {
        publish_arrays(py, state, self.arrays())
    }

    fn new_snapshots(&self, capacity: usize) -> Outcome<Box<dyn Any + Send + Sync>> {
        Ok(Box::new(Vec::<Option<DeviceSnapshot>>::from_iter((0..capacity).map(|_| None))))
    }

    fn save(&mut self, snapshots: &mut (dyn Any + Send + Sync), slots: &[Option<usize>]) -> Outcome<()> {
        let snapshots =
            snapshots.downcast_mut::<Vec<Option<DeviceSnapshot>>>().expect("the snapshots' backend was checked");
        let chosen: Vec<usize> = (0..slots.len()).filter(|&game| slots[game].is_some()).collect();
        let saved = self.snapshots(&chosen).map_err(device_error)?;
        for (game, snapshot) in chosen.into_iter().zip(saved) {
            snapshots[slots[game].expect("a game given a slot")] = Some(snapshot);
        }
        Ok(())
    }

    fn load(&mut self, snapshots: &(dyn Any + Send + Sync), slots: &[Option<usize>]) -> Outcome<()> {
        let snapshots =
            snapshots.downcast_ref::<Vec<Option<DeviceSnapshot>>>().expect("the snapshots' backend was checked");
        let chosen = chosen_slots(snapshots, slots)?;
        self.restore(&chosen).map_err(device_error)
    }
}

/// Go and Shogi games kept on the GPU.
impl<G: DeviceGame> Batch for DeviceGameEnv<G> {
    fn id(&self) -> &'static str {
        <G::Env as EnvGame>::ID
    }

    fn batch_size(&self) -> usize {
        DeviceGameEnv::batch_size(self)
    }

    fn num_actions(&self) -> usize {
        <G::Env as EnvGame>::ACTIONS
    }

    fn observation_shape(&self) -> [usize; 3] {
        <G::Env as EnvGame>::OBSERVATION_SHAPE
    }

    fn players(&self, game: usize) -> [u8; 2] {
        DeviceGameEnv::players(self, game)
    }

    fn backend(&self) -> &'static str {
        "gpu"
    }

    fn reset(&mut self, seed: u64) -> Outcome<()> {
        DeviceGameEnv::reset(self, seed).map_err(|error| device_error(DeviceGamesError::Gpu(error)))
    }

    fn set_auto_reset(&mut self, on: bool) {
        DeviceGameEnv::set_auto_reset(self, on)
    }

    fn step(&mut self, actions: &[i64]) -> Outcome<()> {
        DeviceGameEnv::step(self, actions).map_err(step_error)
    }

    fn new_state(&self, py: Python<'_>) -> PyResult<State> {
        new_state::<G::Env>(py, DeviceGameEnv::batch_size(self))
    }

    fn publish(&self, py: Python<'_>, state: &State) -> PyResult<()> {
        publish_arrays(py, state, self.arrays())
    }

    fn new_snapshots(&self, capacity: usize) -> Outcome<Box<dyn Any + Send + Sync>> {
        Ok(Box::new(Vec::<Option<DeviceGameSnapshot<G>>>::from_iter((0..capacity).map(|_| None))))
    }

    fn save(&mut self, snapshots: &mut (dyn Any + Send + Sync), slots: &[Option<usize>]) -> Outcome<()> {
        let snapshots = snapshots
            .downcast_mut::<Vec<Option<DeviceGameSnapshot<G>>>>()
            .expect("the snapshots' game and backend were checked");
        let chosen: Vec<usize> = (0..slots.len()).filter(|&game| slots[game].is_some()).collect();
        let saved = self.snapshots(&chosen).map_err(|error| device_error(DeviceGamesError::Gpu(error)))?;
        for (game, snapshot) in chosen.into_iter().zip(saved) {
            snapshots[slots[game].expect("a game given a slot")] = Some(snapshot);
        }
        Ok(())
    }

    fn load(&mut self, snapshots: &(dyn Any + Send + Sync), slots: &[Option<usize>]) -> Outcome<()> {
        let snapshots = snapshots
            .downcast_ref::<Vec<Option<DeviceGameSnapshot<G>>>>()
            .expect("the snapshots' game and backend were checked");
        let chosen = chosen_slots(snapshots, slots)?;
        self.restore(&chosen).map_err(step_error)
    }
}

/// A refused step or restore of a game kept on the GPU, or its GPU failure.
fn step_error(error: DeviceStepError) -> Failure {
    match error {
        DeviceStepError::Step(error) => game_error(error),
        DeviceStepError::Gpu(error) => device_error(DeviceGamesError::Gpu(error)),
    }
}

/// The saved game of each slot given (`None` where a game is given none);
/// a slot that holds no game is an error naming it.
fn chosen_slots<'a, T>(snapshots: &'a [Option<T>], slots: &[Option<usize>]) -> Outcome<Vec<Option<&'a T>>> {
    slots
        .iter()
        .map(|slot| match slot {
            Some(slot) => snapshots[*slot]
                .as_ref()
                .map(Some)
                .ok_or_else(|| Failure::Input(format!("slots: slot {slot} holds no saved game"))),
            None => Ok(None),
        })
        .collect()
}

/// Numpy arrays for a batch of `batch_size` games of `G`.
fn new_state<G: EnvGame>(py: Python<'_>, batch_size: usize) -> PyResult<State>
where
    G::Cell: numpy::Element,
{
    let [rows, columns, planes] = G::OBSERVATION_SHAPE;
    Ok(State {
        current_player: PyArray1::zeros(py, batch_size, false).unbind(),
        observation: PyArray4::<G::Cell>::zeros(py, [batch_size, rows, columns, planes], false).into_any().unbind(),
        rewards: PyArray2::zeros(py, [batch_size, 2], false).unbind(),
        terminated: PyArray1::from_vec(py, vec![false; batch_size]).unbind(),
        truncated: PyArray1::from_vec(py, vec![false; batch_size]).unbind(),
        legal_action_mask: PyArray1::from_vec(py, vec![false; batch_size * G::ACTIONS])
            .reshape([batch_size, G::ACTIONS])?
            .unbind(),
        _step_count: PyArray1::zeros(py, batch_size, false).unbind(),
    })
}

impl Env {
    /// Copies the games' arrays into the state's numpy arrays (with the GIL held).
    fn publish(&self, py: Python<'_>) -> PyResult<()> {
        self.games.publish(py, self.state.get())
    }

    /// One slot of `snapshots` a game, or none (-1), checked against them.
    fn read_slots(
        &self,
        py: Python<'_>,
        snapshots: &Snapshots,
        slots: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Option<usize>>> {
        if snapshots.id != self.games.id() {
            return Err(PyValueError::new_err(format!(
                "snapshots: they hold {:?} games, not {:?}",
                snapshots.id,
                self.games.id()
            )));
        }
        if snapshots.backend != self.games.backend() {
            return Err(PyValueError::new_err(format!(
                "snapshots: they hold games of the {} backend, not the {} backend",
                snapshots.backend,
                self.games.backend()
            )));
        }
        let slots = read_integers(py, "slots", slots, self.games.batch_size())?;
        let mut games_of_slot = HashMap::new();
        let mut checked = Vec::with_capacity(slots.len());
        for (game, &slot) in slots.iter().enumerate() {
            if slot == -1 {
                checked.push(None);
                continue;
            }
            if !(0..snapshots.capacity as i64).contains(&slot) {
                return Err(PyValueError::new_err(format!(
                    "slots: game {game}: slot {slot} is outside 0..{} (or -1 for none)",
                    snapshots.capacity
                )));
            }
            if let Some(other) = games_of_slot.insert(slot, game) {
                return Err(PyValueError::new_err(format!("slots: games {other} and {game} both name slot {slot}")));
            }
            checked.push(Some(slot as usize));
        }
        Ok(checked)
    }
}

/// Copies a batch's arrays into the state's numpy arrays (with the GIL held).
fn publish_arrays<Cell: numpy::Element + Copy>(
    py: Python<'_>,
    state: &State,
    arrays: &BatchArrays<Cell>,
) -> PyResult<()> {
    copy_into(state.current_player.bind(py), arrays.current_player())?;
    copy_into(state.observation.bind(py).cast::<PyArray4<Cell>>()?, arrays.observation())?;
    copy_into(state.rewards.bind(py), arrays.rewards())?;
    copy_into(state.terminated.bind(py), arrays.terminated())?;
    copy_into(state.truncated.bind(py), arrays.truncated())?;
    copy_into(state.legal_action_mask.bind(py), arrays.legal_action_mask())?;
    copy_into(state._step_count.bind(py), arrays.step_count())
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

/// Reads `values` (the argument `name`): anything numpy reads as a
/// one-dimensional array of integers, one per game.
fn read_integers(py: Python<'_>, name: &str, values: &Bound<'_, PyAny>, batch_size: usize) -> PyResult<Vec<i64>> {
    let numpy = PyModule::import(py, "numpy")?;
    let array = numpy.call_method1("asarray", (values,))?;
    let array = array
        .cast_into::<numpy::PyUntypedArray>()
        .map_err(|_| PyValueError::new_err(format!("{name}: not an array")))?;
    if array.ndim() != 1 || array.len() != batch_size {
        return Err(PyValueError::new_err(format!(
            "{name}: expected shape ({batch_size},), one a game, not {:?}",
            array.shape()
        )));
    }
    let kind = array.dtype().kind();
    if kind != b'i' && kind != b'u' {
        return Err(PyValueError::new_err(format!("{name}: expected integers, not dtype {}", array.dtype())));
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
        let games = &mut self.games;
        py.detach(|| games.reset(seed))?;
        self.publish(py)?;
        Ok(self.state.clone_ref(py))
    }

    /// Plays `actions[i]` in game `i` (a game already over stays as it is)
    /// and returns the state. Wrong shapes, dtypes and actions outside
    /// `0..num_actions` raise `ValueError` before any game changes.
    fn step(&mut self, py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<Py<State>> {
        let actions = read_integers(py, "actions", actions, self.games.batch_size())?;
        let games = &mut self.games;
        py.detach(|| games.step(&actions))?;
        self.publish(py)?;
        Ok(self.state.clone_ref(py))
    }

    /// Room for `capacity` saved games of this environment's game, for
    /// `save` and `load`: a tree search's nodes.
    fn snapshots(&self, capacity: usize) -> PyResult<Snapshots> {
        if capacity == 0 || capacity > MAX_SNAPSHOTS {
            return Err(PyValueError::new_err(format!("capacity: expected 1 to {MAX_SNAPSHOTS}, not {capacity}")));
        }
        Ok(Snapshots {
            id: self.games.id(),
            backend: self.games.backend(),
            capacity,
            slots: self.games.new_snapshots(capacity)?,
        })
    }

    /// Saves game `i` into slot `slots[i]` of `snapshots` (-1: not saved),
    /// with all its state and arrays.
    fn save(&mut self, py: Python<'_>, snapshots: &mut Snapshots, slots: &Bound<'_, PyAny>) -> PyResult<()> {
        let slots = self.read_slots(py, snapshots, slots)?;
        let games = &mut self.games;
        let saved = &mut snapshots.slots;
        py.detach(|| games.save(saved.as_mut(), &slots))?;
        Ok(())
    }

    /// Puts the game saved in slot `slots[i]` of `snapshots` in place of
    /// game `i` (-1: game `i` stays as it is), every array as it was saved,
    /// and returns the state. A slot never saved into raises `ValueError`
    /// before any game changes.
    fn load(&mut self, py: Python<'_>, snapshots: &Snapshots, slots: &Bound<'_, PyAny>) -> PyResult<Py<State>> {
        let slots = self.read_slots(py, snapshots, slots)?;
        let games = &mut self.games;
        let saved = &snapshots.slots;
        py.detach(|| games.load(saved.as_ref(), &slots))?;
        self.publish(py)?;
        Ok(self.state.clone_ref(py))
    }

    /// The state the last `reset`, `step` or `load` returned.
    #[getter]
    fn state(&self, py: Python<'_>) -> Py<State> {
        self.state.clone_ref(py)
    }

    /// pgx's id of the environment.
    #[getter]
    fn id(&self) -> &'static str {
        self.games.id()
    }

    /// Games in the batch.
    #[getter]
    fn batch_size(&self) -> usize {
        self.games.batch_size()
    }

    /// Size of the action space.
    #[getter]
    fn num_actions(&self) -> usize {
        self.games.num_actions()
    }

    /// The shape of one observation.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        let [rows, columns, planes] = self.games.observation_shape();
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
        let [first, second] = self.games.players(game);
        Ok((first, second))
    }

    fn __repr__(&self) -> String {
        format!(
            "gpu_movegen.env.Env('{}', batch_size={}, backend='{}')",
            self.games.id(),
            self.batch_size(),
            self.games.backend()
        )
    }

    /// Where the games are kept: `"cpu"` or `"gpu"`.
    #[getter]
    fn backend(&self) -> &'static str {
        self.games.backend()
    }
}

/// `batch_size` games of `G` at their start.
fn open<G: EnvGame + 'static>(py: Python<'_>, batch_size: usize, seed: u64) -> Box<dyn Batch>
where
    G::Cell: numpy::Element,
    G::State: 'static,
{
    Box::new(py.detach(|| Games::<G>::new(batch_size, seed)))
}

/// `batch_size` chess games at their start on the shared GPU context
/// (self-tested against the CPU environment on first use).
fn open_on_gpu(py: Python<'_>, batch_size: usize, seed: u64) -> Outcome<Box<dyn Batch>> {
    py.detach(|| {
        let context = backend::context().map_err(|error| {
            backend::forget_context();
            Failure::from(error)
        })?;
        let games = DeviceEnv::new(&context, batch_size, seed).map_err(device_error)?;
        Ok(Box::new(games) as Box<dyn Batch>)
    })
}

/// `batch_size` Go or Shogi games at their start on the shared GPU context.
fn open_device_games<G: DeviceGame>(py: Python<'_>, batch_size: usize, seed: u64) -> Outcome<Box<dyn Batch>> {
    py.detach(|| {
        let context = backend::context().map_err(|error| {
            backend::forget_context();
            Failure::from(error)
        })?;
        let games = DeviceGameEnv::<G>::new(&context, batch_size, seed)
            .map_err(|error| device_error(DeviceGamesError::Gpu(error)))?;
        Ok(Box::new(games) as Box<dyn Batch>)
    })
}

/// A batch of `batch_size` games of `env_id` (pgx's ids: "chess", "shogi",
/// "go_9x9", "go_19x19"; and five chess variants by their UCI names:
/// "atomic", "kingofthehill", "3check", "horde", "racingkings"), at their start, the players' colours drawn from `seed`.
/// `backend` is where the games run: "cpu"; "gpu", for chess, Shogi and Go, keeps
/// them on the GPU (a `GpuError` when none opens or its self-test fails);
/// "auto" is the CPU, the faster of the two wherever it has been measured
/// (BENCHMARKS.md). `auto_reset` replaces a game that ends by a new one
/// at once, as pgx's `auto_reset` wrapper does.
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
    let on_gpu = match backend {
        "auto" | "cpu" => false,
        "gpu" => true,
        other => return Err(PyValueError::new_err(format!("backend: expected 'auto', 'gpu' or 'cpu', not {other:?}"))),
    };
    if batch_size == 0 || batch_size > MAX_BATCH {
        return Err(PyValueError::new_err(format!("batch_size: expected 1 to {MAX_BATCH}, not {batch_size}")));
    }
    if on_gpu && !GPU_IDS.contains(&env_id) && IDS.contains(&env_id) {
        return Err(PyValueError::new_err(format!(
            "backend: the gpu backend steps {} in this version; make {env_id:?} with backend='cpu'",
            GPU_IDS.join(", ")
        )));
    }
    let gpu_most = match env_id {
        "chess" => MAX_GAMES,
        "shogi" => MAX_SHOGI_GAMES,
        _ => MAX_GO_GAMES,
    };
    if on_gpu && batch_size > gpu_most {
        return Err(PyValueError::new_err(format!(
            "batch_size: the gpu backend holds 1 to {gpu_most} {env_id} games, not {batch_size}"
        )));
    }
    let mut games = match env_id {
        "chess" if on_gpu => open_on_gpu(py, batch_size, seed)?,
        "chess" => open::<Chess>(py, batch_size, seed),
        "shogi" if on_gpu => open_device_games::<ShogiDevice>(py, batch_size, seed)?,
        "shogi" => open::<ShogiGame>(py, batch_size, seed),
        "go_9x9" if on_gpu => open_device_games::<GoDevice<9>>(py, batch_size, seed)?,
        "go_19x19" if on_gpu => open_device_games::<GoDevice<19>>(py, batch_size, seed)?,
        "go_9x9" => open::<GoEnv<9>>(py, batch_size, seed),
        "go_19x19" => open::<GoEnv<19>>(py, batch_size, seed),
        "atomic" => open::<AtomicEnv>(py, batch_size, seed),
        "kingofthehill" => open::<KingOfTheHillEnv>(py, batch_size, seed),
        "3check" => open::<ThreeCheckEnv>(py, batch_size, seed),
        "horde" => open::<HordeEnv>(py, batch_size, seed),
        "racingkings" => open::<RacingKingsEnv>(py, batch_size, seed),
        other => {
            return Err(PyValueError::new_err(format!("env_id: expected one of {}, not {other:?}", IDS.join(", "))));
        }
    };
    games.set_auto_reset(auto_reset);
    let state = games.new_state(py)?;
    let env = Env { games, state: Py::new(py, state)? };
    env.publish(py)?;
    Ok(env)
}

/// The `gpu_movegen.env` submodule.
pub fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let module = PyModule::new(py, "env")?;
    module.add_function(wrap_pyfunction!(make, &module)?)?;
    module.add_class::<Env>()?;
    module.add_class::<State>()?;
    module.add_class::<Snapshots>()?;
    module.add("__all__", ["Env", "Snapshots", "State", "make"])?;
    Ok(module)
}
