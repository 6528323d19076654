//! The CPU twin of shaders/common/random.wgsl, so that a search or a Go
//! playout seeded on the GPU can be replayed on the CPU bit for bit. It
//! needs no GPU crate, so CPU-only builds have it too.

/// The CPU twin of random.wgsl: PCG-RXS-M-XS with 32 bits of state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShaderRandom {
    /// The generator's 32 bits of state.
    pub state: u32,
}

impl ShaderRandom {
    /// One PCG step's output for `input` (random_hash).
    pub fn hash(input: u32) -> u32 {
        let state = input.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
        let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
        (word >> 22) ^ word
    }

    /// The stream `stream` of seed `seed` (random_seed).
    pub fn new(seed: u32, stream: u32) -> ShaderRandom {
        ShaderRandom { state: Self::hash(seed ^ Self::hash(stream)) }
    }

    /// The next output (random_next).
    pub fn next_u32(&mut self) -> u32 {
        let old = self.state;
        self.state = old.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
        let word = ((old >> ((old >> 28) + 4)) ^ old).wrapping_mul(277_803_737);
        (word >> 22) ^ word
    }

    /// A number in 0..bound by remainder, as random_below.
    pub fn below(&mut self, bound: u32) -> u32 {
        self.next_u32() % bound
    }
}
