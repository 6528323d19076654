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
//! The composer is the crate's own small `#import` resolver rather than an
//! established one such as naga_oil: the library needs only whole-file
//! inclusion plus two substitutions (the bitboard representation and the
//! slider algorithm), every composed module stays plain WGSL that any WGSL
//! tool reads, and naga_oil's releases track naga versions of their own,
//! which would tie this crate's wgpu upgrades to a second project's.

use super::context::GpuError;
use super::shaders::{self, ShaderVariant};

/// Where the library's table binding goes, and how the library is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EmbedOptions {
    pub table_group: u32,
    pub table_binding: u32,
    pub variant: ShaderVariant,
}

/// A compute entry point of a composed module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPointInfo {
    pub name: String,
    pub workgroup_size: [u32; 3],
}

/// What a binding of a composed module holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingKind {
    Storage { read_only: bool },
    Uniform,
    Other,
}

/// A resource binding of a composed module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingInfo {
    pub group: u32,
    pub binding: u32,
    pub name: String,
    pub kind: BindingKind,
}

/// Your shader joined with the library, and what it contains.
#[derive(Debug, Clone)]
pub struct ComposedShader {
    pub source: String,
    pub entry_points: Vec<EntryPointInfo>,
    pub bindings: Vec<BindingInfo>,
}

impl ComposedShader {
    pub fn create_module(&self, device: &wgpu::Device) -> wgpu::ShaderModule {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("gpu-movegen embedded shader"),
            source: wgpu::ShaderSource::Wgsl(self.source.clone().into()),
        })
    }

    /// Builds a compute pipeline for `entry_point`. Validation errors and a
    /// panic inside the shader compiler (naga has a few on unusual WGSL) come
    /// back as errors instead of ending the process.
    /// `constants` sets WGSL `override` constants by name.
    pub fn create_compute_pipeline(
        &self,
        context: &super::GpuContext,
        layout: &wgpu::PipelineLayout,
        entry_point: &str,
        constants: &[(&str, f64)],
    ) -> Result<wgpu::ComputePipeline, GpuError> {
        let build = || {
            let module = self.create_module(&context.device);
            context.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(layout),
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: wgpu::PipelineCompilationOptions { constants, ..Default::default() },
                cache: None,
            })
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| context.scoped(build)));
        match outcome {
            Ok(result) => result,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("(no message)");
                Err(GpuError::Shader(format!("the shader compiler failed on entry point '{entry_point}': {message}")))
            }
        }
    }

    /// Layout entries for every buffer binding of `group`, read from the module.
    pub fn layout_entries(&self, group: u32) -> Vec<wgpu::BindGroupLayoutEntry> {
        self.bindings
            .iter()
            .filter(|binding| binding.group == group && binding.kind != BindingKind::Other)
            .map(|binding| wgpu::BindGroupLayoutEntry {
                binding: binding.binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: match binding.kind {
                        BindingKind::Uniform => wgpu::BufferBindingType::Uniform,
                        BindingKind::Storage { read_only } => wgpu::BufferBindingType::Storage { read_only },
                        BindingKind::Other => wgpu::BufferBindingType::Storage { read_only: false },
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect()
    }
}

/// The library's table binding as tables.wgsl declares it.
const TABLE_DECLARATION: &str = "@group(0) @binding(0) var<storage, read> attack_tables";

/// Joins `user_source` (which imports `chess` or any library module) with
/// the library, places the table binding, and reads the module's metadata.
/// A WGSL error comes back with naga's message, source lines included.
pub fn compose(user_source: &str, options: EmbedOptions) -> Result<ComposedShader, GpuError> {
    let composed = shaders::compose_variant("user", options.variant, &[("user", user_source)])?;
    let declaration =
        format!("@group({}) @binding({}) var<storage, read> attack_tables", options.table_group, options.table_binding);
    let source = composed.replacen(TABLE_DECLARATION, &declaration, 1);
    let module =
        naga::front::wgsl::parse_str(&source).map_err(|error| GpuError::Shader(error.emit_to_string(&source)))?;
    let entry_points = module
        .entry_points
        .iter()
        .filter(|entry| entry.stage == naga::ShaderStage::Compute)
        .map(|entry| EntryPointInfo { name: entry.name.clone(), workgroup_size: entry.workgroup_size })
        .collect();
    let mut bindings: Vec<BindingInfo> = module
        .global_variables
        .iter()
        .filter_map(|(_, variable)| {
            let binding = variable.binding.as_ref()?;
            let kind = match variable.space {
                naga::AddressSpace::Storage { access } => {
                    BindingKind::Storage { read_only: !access.contains(naga::StorageAccess::STORE) }
                }
                naga::AddressSpace::Uniform => BindingKind::Uniform,
                _ => BindingKind::Other,
            };
            Some(BindingInfo {
                group: binding.group,
                binding: binding.binding,
                name: variable.name.clone().unwrap_or_default(),
                kind,
            })
        })
        .collect();
    bindings.sort_by_key(|binding| (binding.group, binding.binding));
    Ok(ComposedShader { source, entry_points, bindings })
}

/// The attack-table buffer the library reads.
pub fn create_table_buffer(device: &wgpu::Device) -> wgpu::Buffer {
    wgpu::util::DeviceExt::create_buffer_init(
        device,
        &wgpu::util::BufferInitDescriptor {
            label: Some("gpu-movegen attack tables"),
            contents: bytemuck::cast_slice(&shaders::attack_table_data()),
            usage: wgpu::BufferUsages::STORAGE,
        },
    )
}

/// The layout entry of the table binding (read-only storage, compute).
pub fn table_layout_entry(options: &EmbedOptions) -> wgpu::BindGroupLayoutEntry {
    super::resources::storage_entry(options.table_binding, true)
}

/// The CPU twin of random.wgsl: PCG-RXS-M-XS with 32 bits of state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShaderRandom {
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
