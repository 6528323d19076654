//! Batched Monte-Carlo tree search self-play on the library's environments
//! (`gpu_movegen::env::Env`): the Rust twin of
//! examples/python/mcts_selfplay.py.
//!
//! Every game of a batch searches its own tree, and every simulation steps
//! all the trees together: each game walks down its tree by PUCT with a
//! uniform prior (an untried action valued at 0) to a node where an action
//! not yet tried scores best, the environment
//! restores every game's node (`Env::restore`), plays the chosen actions in
//! one batched step (`Env::step`) and saves the new nodes
//! (`Env::snapshot`); with `--rollout-steps`, random legal actions from the
//! new nodes value them. Values, one per player, go back up the paths.
//! After `--simulations` simulations each game plays its most visited
//! action, whose node becomes the new root.
//!
//! ```text
//! cargo run --release --example mcts_selfplay -- --env chess --batch 64 --simulations 32 --moves 20
//! ```
//!
//! prints, for each game, the games finished, the moves played, the
//! environment steps the searches took, and steps, moves and finished games
//! a second. `--backend gpu` keeps the games on the GPU (the environments'
//! GPU backends: `chess::gpu::env::DeviceEnv`, `gpu::env::DeviceGameEnv`
//! for Shogi and Go), each simulation's new nodes saved in one round trip;
//! the search is the CPU's, step for step.

use std::time::Instant;

use clap::{CommandFactory, Parser, ValueEnum};
use gpu_movegen::chess::Chess;
use gpu_movegen::chess::gpu::env::DeviceEnv;
use gpu_movegen::env::{BatchArrays, Env, EnvGame, Snapshot};
use gpu_movegen::go::env::GoEnv;
use gpu_movegen::go::gpu::env::GoDevice;
use gpu_movegen::gpu::GpuContext;
use gpu_movegen::gpu::env::{DeviceGame, DeviceGameEnv, DeviceSnapshot};
use gpu_movegen::shogi::ShogiGame;
use gpu_movegen::shogi::gpu::env::ShogiDevice;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The most nodes a search keeps, all games together: each holds a saved
/// game, which copies the game's history.
const MAX_NODES: u64 = 1 << 18;

/// Where the games are kept.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Backend {
    /// The CPU environment, on every core.
    Cpu,
    /// The GPU backend: the games in GPU memory.
    Gpu,
}

/// The games, by pgx's ids.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Game {
    Chess,
    Shogi,
    #[value(name = "go_9x9")]
    Go9x9,
    #[value(name = "go_19x19")]
    Go19x19,
}

#[derive(Parser)]
#[command(name = "mcts_selfplay", about = "Batched Monte-Carlo tree search self-play on gpu_movegen's environments")]
struct Arguments {
    /// The game (default: all four, one after the other).
    #[arg(long, value_enum)]
    env: Option<Game>,
    /// Games searched side by side.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    batch: u32,
    /// Simulations a move.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..))]
    simulations: u32,
    /// Moves a game, at most.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    moves: u32,
    /// Random steps from each new node to value it; 0 values it by its reward alone.
    #[arg(long, default_value_t = 0)]
    rollout_steps: u32,
    /// PUCT's exploration constant.
    #[arg(long, default_value_t = 1.25)]
    exploration: f32,
    /// Seed of the players' colours and of the random choices.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where the games are kept.
    #[arg(long, value_enum, default_value_t = Backend::Cpu)]
    backend: Backend,
}

/// What the search asks of a batch of games, wherever they are kept.
trait Games {
    /// One game saved.
    type Saved;
    /// The observation's cell.
    type Cell;
    fn arrays(&self) -> &BatchArrays<Self::Cell>;
    /// One action a game; a game over stays as it is.
    fn step(&mut self, actions: &[u32]);
    /// Each saved game given in place of its game.
    fn restore(&mut self, saved: &[Option<&Self::Saved>]);
    /// The chosen games saved, in one round trip on a device.
    fn save(&mut self, chosen: &[usize]) -> Vec<Self::Saved>;
}

impl<G: EnvGame> Games for Env<G> {
    type Saved = Snapshot<G>;
    type Cell = G::Cell;
    fn arrays(&self) -> &BatchArrays<G::Cell> {
        Env::arrays(self)
    }
    fn step(&mut self, actions: &[u32]) {
        Env::step(self, actions).expect("legal actions, one a game");
    }
    fn restore(&mut self, saved: &[Option<&Snapshot<G>>]) {
        Env::restore(self, saved).expect("one saved game a game");
    }
    fn save(&mut self, chosen: &[usize]) -> Vec<Snapshot<G>> {
        chosen.iter().map(|&game| self.snapshot(game)).collect()
    }
}

/// Stops the example on a GPU failure, with the tool's exit code for one (3).
fn gpu_failed(error: impl std::fmt::Display) -> ! {
    eprintln!("mcts_selfplay: the GPU failed: {error}");
    std::process::exit(3);
}

impl Games for DeviceEnv {
    type Saved = gpu_movegen::chess::gpu::env::DeviceSnapshot;
    type Cell = f32;
    fn arrays(&self) -> &BatchArrays<f32> {
        DeviceEnv::arrays(self)
    }
    fn step(&mut self, actions: &[u32]) {
        DeviceEnv::step(self, actions).unwrap_or_else(|error| gpu_failed(error));
    }
    fn restore(&mut self, saved: &[Option<&Self::Saved>]) {
        DeviceEnv::restore(self, saved).unwrap_or_else(|error| gpu_failed(error));
    }
    fn save(&mut self, chosen: &[usize]) -> Vec<Self::Saved> {
        self.snapshots(chosen).unwrap_or_else(|error| gpu_failed(error))
    }
}

impl<G: DeviceGame> Games for DeviceGameEnv<G> {
    type Saved = DeviceSnapshot<G>;
    type Cell = bool;
    fn arrays(&self) -> &BatchArrays<bool> {
        DeviceGameEnv::arrays(self)
    }
    fn step(&mut self, actions: &[u32]) {
        DeviceGameEnv::step(self, actions).unwrap_or_else(|error| gpu_failed(error));
    }
    fn restore(&mut self, saved: &[Option<&DeviceSnapshot<G>>]) {
        DeviceGameEnv::restore(self, saved).unwrap_or_else(|error| gpu_failed(error));
    }
    fn save(&mut self, chosen: &[usize]) -> Vec<DeviceSnapshot<G>> {
        self.snapshots(chosen).unwrap_or_else(|error| gpu_failed(error))
    }
}

/// A node of one game's tree: the game saved there and its statistics.
struct Node<Saved> {
    snapshot: Saved,
    /// Each player's reward for the step into this node.
    reward: [f32; 2],
    terminal: bool,
    /// The player (0 or 1) to move here.
    mover: usize,
    /// Every legal action here, and those not yet tried.
    legal: Vec<u32>,
    untried: Vec<u32>,
    /// The children tried so far: (action, node).
    children: Vec<(u32, usize)>,
    visits: u32,
    /// Each player's value, summed over the visits.
    value: [f32; 2],
}

/// What one simulation does in one game.
#[derive(Clone, Copy)]
enum Leaf {
    /// Plays `action` from node `node`.
    Expand { node: usize, action: u32 },
    /// Stops at a node whose game is over: its reward is the value.
    Terminal { node: usize },
}

/// Game `game` of `arrays`, saved as `snapshot`, as a new node.
fn node_of<Cell, Saved>(arrays: &BatchArrays<Cell>, game: usize, snapshot: Saved) -> Node<Saved> {
    let terminal = arrays.terminated()[game];
    let legal = if terminal { Vec::new() } else { arrays.legal_actions(game) };
    Node {
        snapshot,
        reward: [arrays.rewards()[2 * game], arrays.rewards()[2 * game + 1]],
        terminal,
        mover: arrays.current_player()[game] as usize,
        untried: legal.clone(),
        legal,
        children: Vec::new(),
        visits: 0,
        value: [0.0; 2],
    }
}

/// PUCT's exploration term at `node` for a child visited `visits` times
/// (a uniform prior over its legal actions).
fn reach<Saved>(node: &Node<Saved>, visits: u32, exploration: f32) -> f32 {
    let prior = 1.0 / node.legal.len() as f32;
    exploration * prior * (node.visits.max(1) as f32).sqrt() / (1.0 + visits as f32)
}

/// The child of `node` with the best PUCT score for the player to move
/// there, and that score; none before the first child.
fn best_child<Saved>(tree: &[Node<Saved>], node: usize, exploration: f32) -> Option<(usize, f32)> {
    let parent = &tree[node];
    let score = |child: &Node<Saved>| {
        child.value[parent.mover] / child.visits as f32 + reach(parent, child.visits, exploration)
    };
    parent.children.iter().map(|&(_, child)| (child, score(&tree[child]))).fold(None, |best, (child, value)| match best
    {
        Some((_, best_value)) if best_value >= value => best,
        _ => Some((child, value)),
    })
}

/// Steps every game of `env` that is not over by a random legal action,
/// `steps` times, and adds each player's rewards to `values`; returns the
/// game steps taken.
fn rollouts<B: Games>(env: &mut B, steps: u32, values: &mut [[f32; 2]], random: &mut ChaCha8Rng) -> u64 {
    let mut taken = 0;
    for _ in 0..steps {
        let running: Vec<bool> = env.arrays().terminated().iter().map(|over| !over).collect();
        if !running.contains(&true) {
            break;
        }
        let actions: Vec<u32> = (0..running.len())
            .map(|game| if running[game] { *env.arrays().legal_actions(game).choose(random).unwrap() } else { 0 })
            .collect();
        env.step(&actions);
        for (game, value) in values.iter_mut().enumerate().filter(|&(game, _)| running[game]) {
            value[0] += env.arrays().rewards()[2 * game];
            value[1] += env.arrays().rewards()[2 * game + 1];
            taken += 1;
        }
    }
    taken
}

/// What one game's batch of searches did.
struct Played {
    games: usize,
    finished: usize,
    moves: u64,
    search_steps: u64,
    seconds: f64,
}

/// Plays the games of `env` (at their start) by tree search,
/// `arguments.moves` moves at most each.
fn play<B: Games>(mut env: B, arguments: &Arguments) -> Played {
    let started = Instant::now();
    let batch = arguments.batch as usize;
    let mut random = ChaCha8Rng::seed_from_u64(arguments.seed);
    let every: Vec<usize> = (0..batch).collect();
    let saved = env.save(&every);
    let mut roots: Vec<Node<B::Saved>> =
        saved.into_iter().enumerate().map(|(game, snapshot)| node_of(env.arrays(), game, snapshot)).collect();
    let (mut moves, mut search_steps) = (0, 0);
    for _ in 0..arguments.moves {
        if roots.iter().all(|root| root.terminal) {
            break;
        }
        let mut trees: Vec<Vec<Node<B::Saved>>> = roots.into_iter().map(|root| vec![root]).collect();
        for _ in 0..arguments.simulations {
            // Down each tree to the leaf this simulation grows.
            let mut paths = Vec::with_capacity(batch);
            let mut leaves = Vec::with_capacity(batch);
            for tree in &mut trees {
                let (mut node, mut path) = (0, vec![0]);
                let leaf = loop {
                    if tree[node].terminal {
                        break Leaf::Terminal { node };
                    }
                    // An untried action scores as a child never visited
                    // (its value taken as 0); it is tried when that beats
                    // every child.
                    let best = best_child(tree, node, arguments.exploration);
                    let untried_score = reach(&tree[node], 0, arguments.exploration);
                    let untried = &mut tree[node].untried;
                    if !untried.is_empty() && best.is_none_or(|(_, score)| untried_score >= score) {
                        let action = untried.swap_remove(random.random_range(0..untried.len()));
                        break Leaf::Expand { node, action };
                    }
                    node = best.expect("a node with no untried action has children").0;
                    path.push(node);
                };
                paths.push(path);
                leaves.push(leaf);
            }
            // Every game at its leaf, and one step for all: a game over
            // stays as it is, whatever its action.
            let saved: Vec<Option<&B::Saved>> = leaves
                .iter()
                .zip(&trees)
                .map(|(leaf, tree)| match *leaf {
                    Leaf::Expand { node, .. } | Leaf::Terminal { node } => Some(&tree[node].snapshot),
                })
                .collect();
            env.restore(&saved);
            let actions: Vec<u32> = leaves
                .iter()
                .map(|leaf| match *leaf {
                    Leaf::Expand { action, .. } => action,
                    Leaf::Terminal { .. } => 0,
                })
                .collect();
            env.step(&actions);
            // The new nodes, saved in one go.
            let expanded: Vec<usize> = (0..batch).filter(|&game| matches!(leaves[game], Leaf::Expand { .. })).collect();
            let mut snapshots = env.save(&expanded).into_iter();
            let mut values = vec![[0.0f32; 2]; batch];
            for (game, leaf) in leaves.iter().enumerate() {
                match *leaf {
                    Leaf::Expand { node, action } => {
                        search_steps += 1;
                        let snapshot = snapshots.next().expect("one saved game an expanded game");
                        let child = node_of(env.arrays(), game, snapshot);
                        values[game] = child.reward;
                        let tree = &mut trees[game];
                        tree.push(child);
                        let index = tree.len() - 1;
                        tree[node].children.push((action, index));
                        paths[game].push(index);
                    }
                    Leaf::Terminal { node } => values[game] = trees[game][node].reward,
                }
            }
            if arguments.rollout_steps > 0 {
                search_steps += rollouts(&mut env, arguments.rollout_steps, &mut values, &mut random);
            }
            for ((tree, path), value) in trees.iter_mut().zip(&paths).zip(&values) {
                for &node in path {
                    tree[node].visits += 1;
                    tree[node].value[0] += value[0];
                    tree[node].value[1] += value[1];
                }
            }
        }
        // Each game plays its most visited action; that node is its new root.
        roots = trees
            .into_iter()
            .map(|mut tree| {
                if tree[0].terminal {
                    return tree.swap_remove(0);
                }
                moves += 1;
                let &(_, best) = tree[0].children.iter().max_by_key(|&&(_, child)| tree[child].visits).unwrap();
                let mut root = tree.swap_remove(best);
                (root.untried, root.children, root.visits, root.value) = (root.legal.clone(), Vec::new(), 0, [0.0; 2]);
                root
            })
            .collect();
    }
    Played {
        games: batch,
        finished: roots.iter().filter(|root| root.terminal).count(),
        moves,
        search_steps,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// `batch` games of `G` kept on the GPU.
fn on_device<G: DeviceGame>(context: &GpuContext, batch: usize, seed: u64) -> DeviceGameEnv<G> {
    DeviceGameEnv::new(context, batch, seed).unwrap_or_else(|error| gpu_failed(error))
}

fn main() {
    let arguments = Arguments::parse();
    let nodes = u64::from(arguments.batch) * (u64::from(arguments.simulations) + 1);
    if nodes > MAX_NODES {
        let message = format!(
            "--batch {} with --simulations {}: {nodes} nodes; at most {MAX_NODES}: fewer games or simulations",
            arguments.batch, arguments.simulations
        );
        Arguments::command().error(clap::error::ErrorKind::ValueValidation, message).exit();
    }
    println!(
        "{:<10} {:>6} {:>8} {:>7} {:>12} {:>10} {:>9} {:>8}",
        "env", "games", "finished", "moves", "search steps", "steps/s", "moves/s", "games/s"
    );
    let games = arguments.env.map_or(vec![Game::Chess, Game::Shogi, Game::Go9x9, Game::Go19x19], |game| vec![game]);
    let context = (arguments.backend == Backend::Gpu).then(|| {
        GpuContext::new().unwrap_or_else(|error| gpu_failed(format!("no GPU to keep the games on ({error})")))
    });
    let (batch, seed) = (arguments.batch as usize, arguments.seed);
    for game in games {
        let id = match game {
            Game::Chess => Chess::ID,
            Game::Shogi => ShogiGame::ID,
            Game::Go9x9 => GoEnv::<9>::ID,
            Game::Go19x19 => GoEnv::<19>::ID,
        };
        let played = match (&context, game) {
            (None, Game::Chess) => play(Env::<Chess>::new(batch, seed), &arguments),
            (None, Game::Shogi) => play(Env::<ShogiGame>::new(batch, seed), &arguments),
            (None, Game::Go9x9) => play(Env::<GoEnv<9>>::new(batch, seed), &arguments),
            (None, Game::Go19x19) => play(Env::<GoEnv<19>>::new(batch, seed), &arguments),
            (Some(context), Game::Chess) => {
                play(DeviceEnv::new(context, batch, seed).unwrap_or_else(|error| gpu_failed(error)), &arguments)
            }
            (Some(context), Game::Shogi) => play(on_device::<ShogiDevice>(context, batch, seed), &arguments),
            (Some(context), Game::Go9x9) => play(on_device::<GoDevice<9>>(context, batch, seed), &arguments),
            (Some(context), Game::Go19x19) => play(on_device::<GoDevice<19>>(context, batch, seed), &arguments),
        };
        let steps = (played.search_steps + played.moves) as f64;
        println!(
            "{id:<10} {:>6} {:>8} {:>7} {:>12} {:>10.0} {:>9.1} {:>8.2}",
            played.games,
            played.finished,
            played.moves,
            played.search_steps,
            steps / played.seconds,
            played.moves as f64 / played.seconds,
            played.finished as f64 / played.seconds,
        );
    }
}
