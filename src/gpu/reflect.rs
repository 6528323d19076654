//! What a composed WGSL module contains, read by naga: its compute entry
//! points with their workgroup sizes and every resource binding. The
//! crate's own pipelines take their bind-group layouts from here, and so can
//! a caller's, so the layout is written once, in the WGSL.

use super::context::Check;
use super::context::GpuContext;
use super::error::GpuError;

/// A compute entry point of a composed module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPointInfo {
    /// The entry point's name.
    pub name: String,
    /// Its `@workgroup_size`, unused dimensions 1.
    pub workgroup_size: [u32; 3],
}

/// What a binding of a composed module holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingKind {
    /// A storage buffer.
    Storage {
        /// Declared `read` rather than `read_write`.
        read_only: bool,
    },
    /// A uniform buffer.
    Uniform,
    /// Anything else (textures, samplers): the crate's modules declare none.
    Other,
}

/// A resource binding of a composed module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingInfo {
    /// `@group`.
    pub group: u32,
    /// `@binding`.
    pub binding: u32,
    /// The variable's name in the WGSL.
    pub name: String,
    /// What it holds.
    pub kind: BindingKind,
    /// For a binding array (`binding_array<T, N>`), its N.
    pub count: Option<std::num::NonZeroU32>,
}

/// Your shader joined with the library, and what it contains.
#[derive(Debug, Clone)]
pub struct ComposedShader {
    /// The whole WGSL module: the library, then your source.
    pub source: String,
    /// Its compute entry points.
    pub entry_points: Vec<EntryPointInfo>,
    /// Every resource binding it declares.
    pub bindings: Vec<BindingInfo>,
    /// The self-test's checks a device must pass before
    /// [`ComposedShader::create_compute_pipeline`] builds on it, besides the
    /// device checks every device passes (see `super::self_test`).
    required_checks: Vec<Check>,
}

impl ComposedShader {
    /// This module, asking devices to pass `checks` too before it is built on them.
    pub fn requiring(mut self, checks: Vec<Check>) -> ComposedShader {
        self.required_checks.extend(checks);
        self
    }

    /// The module compiled on `device`, with wgpu's runtime checks on.
    pub fn create_module(&self, device: &wgpu::Device) -> wgpu::ShaderModule {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("gpu-movegen embedded shader"),
            source: wgpu::ShaderSource::Wgsl(self.source.clone().into()),
        })
    }

    /// Builds a compute pipeline for `entry_point`, once the device has
    /// passed the self-test's checks for this module (a device that failed
    /// them gets [`GpuError::SelfTestFailed`], never a pipeline whose
    /// results would be wrong). Validation errors and a panic inside the
    /// shader compiler (naga has a few on unusual WGSL) come back as errors
    /// instead of ending the process. `constants` sets WGSL `override`
    /// constants by name.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn create_compute_pipeline(
        &self,
        context: &GpuContext,
        layout: &wgpu::PipelineLayout,
        entry_point: &str,
        constants: &[(&str, f64)],
    ) -> Result<wgpu::ComputePipeline, GpuError> {
        super::runtime::block_on(self.create_compute_pipeline_async(context, layout, entry_point, constants))
    }

    /// [`ComposedShader::create_compute_pipeline`], awaited.
    pub async fn create_compute_pipeline_async(
        &self,
        context: &GpuContext,
        layout: &wgpu::PipelineLayout,
        entry_point: &str,
        constants: &[(&str, f64)],
    ) -> Result<wgpu::ComputePipeline, GpuError> {
        context.require_async(&self.required_checks).await?;
        let build = || {
            let module = self.create_module(&context.device);
            context.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(layout),
                module: &module,
                entry_point: Some(entry_point),
                compilation_options: wgpu::PipelineCompilationOptions { constants, ..Default::default() },
                cache: context.driver_pipeline_cache(),
            })
        };
        let outcome = context.scoped_async(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(build))).await?;
        context.save_pipeline_cache();
        outcome.map_err(|panic| {
            let message = super::runtime::panic_message(panic.as_ref());
            GpuError::Shader(format!("the shader compiler failed on entry point '{entry_point}': {message}"))
        })
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
                count: binding.count,
            })
            .collect()
    }
}

/// Parses `source` with naga and reads its entry points and bindings. A WGSL
/// error comes back with naga's message, source lines included.
pub fn reflect(source: String) -> Result<ComposedShader, GpuError> {
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
            let count = match module.types[variable.ty].inner {
                naga::TypeInner::BindingArray { size: naga::ArraySize::Constant(size), .. } => Some(size),
                _ => None,
            };
            Some(BindingInfo {
                group: binding.group,
                binding: binding.binding,
                name: variable.name.clone().unwrap_or_default(),
                kind,
                count,
            })
        })
        .collect();
    bindings.sort_by_key(|binding| (binding.group, binding.binding));
    Ok(ComposedShader { source, entry_points, bindings, required_checks: Vec::new() })
}

/// Whether wgpu wraps every buffer and array access of a module in a bounds
/// check. `Off` saves those instructions; it is for kernels whose indices the
/// host and the kernel prove in range (the perft kernels: slots below the
/// arena's size the host hands out, an explicit capacity test before every
/// child is written, squares below 64 from non-empty bitboards). An index out
/// of range without checks reads or writes the wrong memory, so everything
/// else, and `verify`, keeps them on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RuntimeChecks {
    /// Bounds checks on every index, as wgpu compiles by default.
    #[default]
    On,
    /// No checks: for the crate's own kernels, whose indices are proven in range.
    Off,
}

/// The compute pipelines of a composed module, all sharing the bind-group
/// layout of group 0 as the module declares it, with the workgroup size of
/// each entry point as the module declares it. The host never restates
/// either: both come from the WGSL.
pub struct Kernels {
    /// The layout of group 0, shared by every pipeline.
    pub layout: wgpu::BindGroupLayout,
    /// The layout of group 1, where the module declares one (the perft
    /// engine's table as a binding array: wgpu keeps binding arrays out of
    /// a group with dynamic offsets).
    pub second_layout: Option<wgpu::BindGroupLayout>,
    entries: Vec<(String, wgpu::ComputePipeline, u32)>,
}

impl Kernels {
    /// The pipeline of `entry_point`.
    pub fn pipeline(&self, entry_point: &str) -> &wgpu::ComputePipeline {
        &self.entry(entry_point).1
    }

    /// Invocations per workgroup of `entry_point` (x × y × z).
    pub fn workgroup_size(&self, entry_point: &str) -> u32 {
        self.entry(entry_point).2
    }

    fn entry(&self, entry_point: &str) -> &(String, wgpu::ComputePipeline, u32) {
        self.entries
            .iter()
            .find(|(name, _, _)| name == entry_point)
            .unwrap_or_else(|| panic!("the module has no entry point '{entry_point}' (a bug in this crate)"))
    }
}

impl ComposedShader {
    /// Builds every compute entry point of the module, with the layout of
    /// bind group 0 read from the module. Errors surface through the
    /// caller's error scope (see `GpuContext::scoped`).
    pub fn kernels(&self, device: &wgpu::Device, label: &str) -> Kernels {
        self.build_kernels(device, label, RuntimeChecks::On, false)
    }

    /// [`ComposedShader::kernels`] with a choice of runtime bounds checks
    /// and of dynamic offsets for the uniform bindings (so that one buffer
    /// can hold the parameters of many dispatches recorded together).
    /// `RuntimeChecks::Off` is only for modules whose every index is proven
    /// in range (see its documentation).
    ///
    /// [`GpuContext::build_kernels`] builds them through the context's
    /// pipeline cache instead.
    pub fn build_kernels(
        &self,
        device: &wgpu::Device,
        label: &str,
        checks: RuntimeChecks,
        dynamic_uniforms: bool,
    ) -> Kernels {
        self.build_kernels_through(device, label, checks, dynamic_uniforms, None)
    }

    /// [`ComposedShader::build_kernels`] through a driver's pipeline cache.
    pub(crate) fn build_kernels_through(
        &self,
        device: &wgpu::Device,
        label: &str,
        checks: RuntimeChecks,
        dynamic_uniforms: bool,
        cache: Option<&wgpu::PipelineCache>,
    ) -> Kernels {
        let mut entries = self.layout_entries(0);
        for entry in &mut entries {
            if let wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Uniform, has_dynamic_offset, .. } =
                &mut entry.ty
            {
                *has_dynamic_offset = dynamic_uniforms;
            }
        }
        let layout =
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor { label: Some(label), entries: &entries });
        let second_entries = self.layout_entries(1);
        let second_layout = (!second_entries.is_empty()).then(|| {
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some(label),
                entries: &second_entries,
            })
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: &[Some(&layout), second_layout.as_ref()],
            immediate_size: 0,
        });
        let module = match checks {
            RuntimeChecks::On => self.create_module(device),
            // SAFETY: the caller vouches that every index the module computes is in range.
            RuntimeChecks::Off => unsafe {
                device.create_shader_module_trusted(
                    wgpu::ShaderModuleDescriptor {
                        label: Some(label),
                        source: wgpu::ShaderSource::Wgsl(self.source.clone().into()),
                    },
                    wgpu::ShaderRuntimeChecks::unchecked(),
                )
            },
        };
        let entries = self
            .entry_points
            .iter()
            .map(|entry| {
                let pipeline =
                    super::resources::compute_pipeline(device, &pipeline_layout, &module, &entry.name, cache);
                (entry.name.clone(), pipeline, entry.workgroup_size.iter().product())
            })
            .collect();
        Kernels { layout, second_layout, entries }
    }
}

/// Kernels built through a context's pipeline cache (kept between
/// processes, see `super::pipeline_cache`).
impl GpuContext {
    /// Every compute entry point of `shader` with runtime checks on, built on
    /// this device through its pipeline cache (as [`ComposedShader::kernels`]
    /// builds them on a bare device).
    pub fn kernels(&self, shader: &ComposedShader, label: &str) -> Kernels {
        self.build_kernels(shader, label, RuntimeChecks::On, false)
    }

    /// Every compute entry point of `shader`, built on this device through
    /// its pipeline cache, which is then saved (see
    /// [`ComposedShader::build_kernels`] for the other arguments). Errors
    /// surface through the caller's error scope.
    pub fn build_kernels(
        &self,
        shader: &ComposedShader,
        label: &str,
        checks: RuntimeChecks,
        dynamic_uniforms: bool,
    ) -> Kernels {
        let kernels =
            shader.build_kernels_through(&self.device, label, checks, dynamic_uniforms, self.driver_pipeline_cache());
        self.save_pipeline_cache();
        kernels
    }
}
