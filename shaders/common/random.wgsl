// random.wgsl — a small seeded random number generator for user shaders.
//
// Reads: nothing. Writes: nothing. Library only; each invocation keeps its
// own u32 state. The generator is PCG-RXS-M-XS with 32 bits of state; its
// CPU twin is gpu_movegen::gpu::embed::ShaderRandom, so a search seeded the
// same way makes the same choices on the CPU and on the GPU.

// One PCG step's output for `input`: also a good 32-bit hash.
fn random_hash(input: u32) -> u32 {
    let state = input * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// A starting state for stream `stream` of seed `seed` (e.g. one stream per invocation).
fn random_seed(seed: u32, stream: u32) -> u32 {
    return random_hash(seed ^ random_hash(stream));
}

fn random_next(state: ptr<function, u32>) -> u32 {
    let old = *state;
    *state = old * 747796405u + 2891336453u;
    let word = ((old >> ((old >> 28u) + 4u)) ^ old) * 277803737u;
    return (word >> 22u) ^ word;
}

// A number in 0..bound (bound > 0), by remainder: slightly biased, exactly reproducible.
fn random_below(state: ptr<function, u32>, bound: u32) -> u32 {
    return random_next(state) % bound;
}
