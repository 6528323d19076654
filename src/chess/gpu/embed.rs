//! Embedding the move generator in your own compute shaders.
//!
//! Write WGSL that says `#import chess` and call the library's functions
//! (docs/wgsl-api.md lists them with their contracts). [`compose`] joins your
//! source with the library, puts the attack-table binding at the group and
//! binding you choose, and reports what the composed module contains: entry
//! points with their workgroup sizes, and every binding, so you can build
//! bind-group layouts and pipelines on your own `Device`. [`create_table_buffer`]
//! makes the table buffer, [`table_layout_entry`] its layout entry.
//!
//! The composer (`crate::gpu::composer`) is the crate's own small `#import`
//! resolver; its documentation says why it is not naga_oil.

use super::shaders::{self, ShaderBuild};
use crate::gpu::GpuError;
pub use crate::gpu::random::ShaderRandom;
pub use crate::gpu::reflect::{BindingInfo, BindingKind, ComposedShader, EntryPointInfo, reflect};

/// Where the library's table binding goes, and how the library is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EmbedOptions {
    /// The bind group of the attack-table binding.
    pub table_group: u32,
    /// Its binding number within that group.
    pub table_binding: u32,
    /// The slider algorithm and bitboard representation the library is built with.
    pub build: ShaderBuild,
}

/// The library's table binding as tables.wgsl declares it.
const TABLE_DECLARATION: &str = "@group(0) @binding(0) var<storage, read> attack_tables";

/// Joins `user_source` (which imports `chess` or any library module) with
/// the library, places the table binding, and reads the module's metadata.
/// A WGSL error comes back with naga's message, source lines included.
/// Pipelines of the module are built only on a device that passed the
/// self-test of the library's long loops in this build
/// ([`ComposedShader::create_compute_pipeline`] says so with an error otherwise).
pub fn compose(user_source: &str, options: EmbedOptions) -> Result<ComposedShader, GpuError> {
    let composed = shaders::compose_build("user", options.build, &[("user", user_source)])?;
    let declaration =
        format!("@group({}) @binding({}) var<storage, read> attack_tables", options.table_group, options.table_binding);
    let source = composed.replacen(TABLE_DECLARATION, &declaration, 1);
    Ok(reflect(source)?.requiring(vec![super::self_test::library_check(options.build)]))
}

/// The attack-table buffer the library reads.
pub fn create_table_buffer(device: &wgpu::Device) -> wgpu::Buffer {
    crate::gpu::resources::buffer_with(
        device,
        "gpu-movegen attack tables",
        &shaders::attack_table_data(),
        wgpu::BufferUsages::STORAGE,
    )
}

/// The layout entry of the table binding (read-only storage, compute).
pub fn table_layout_entry(options: &EmbedOptions) -> wgpu::BindGroupLayoutEntry {
    crate::gpu::resources::storage_entry(options.table_binding, true)
}
