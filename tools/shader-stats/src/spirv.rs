//! WGSL to SPIR-V as wgpu's Vulkan backend writes it (wgpu-hal 30,
//! src/vulkan/adapter.rs and device.rs): naga's writer with the same
//! options, one entry point at a time after its override constants are
//! applied, the bindings renumbered per group as wgpu's descriptor set
//! layouts number them, and the layout read from the module by naga's
//! reflection (`gpu::reflect`), never from a list kept by hand.

use std::collections::BTreeMap;

use ash::vk;
use gpu_movegen::catalog::KernelModule;
use gpu_movegen::gpu::reflect::{BindingKind, RuntimeChecks};
use naga::back::spv;

use crate::vulkan::LayoutBinding;

/// One entry point of a module, ready for the driver.
pub struct EntryPointSpirv {
    /// The entry point's name.
    pub name: String,
    /// Its SPIR-V words.
    pub words: Vec<u32>,
    /// The pipeline layout's bindings.
    pub bindings: Vec<LayoutBinding>,
}

/// Every compute entry point of `kernel`, written as wgpu would write it for
/// a Vulkan 1.3 device such as RADV's.
pub fn entry_points(kernel: &KernelModule) -> Result<Vec<EntryPointSpirv>, String> {
    let source = &kernel.shader.source;
    let module = naga::front::wgsl::parse_str(source).map_err(|error| error.emit_to_string(source))?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(&module)
        .map_err(|error| error.emit_to_string(source))?;

    // wgpu numbers each group's descriptors 0, 1, 2, ... in binding order
    // and tells naga where each WGSL binding went.
    let mut binding_map = spv::BindingMap::new();
    let mut bindings = Vec::new();
    let mut next_in_group = BTreeMap::<u32, u32>::new();
    for binding in &kernel.shader.bindings {
        let kind = match binding.kind {
            BindingKind::Uniform if kernel.dynamic_uniforms => vk::DescriptorType::UNIFORM_BUFFER_DYNAMIC,
            BindingKind::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
            BindingKind::Storage { .. } => vk::DescriptorType::STORAGE_BUFFER,
            BindingKind::Other => return Err(format!("binding {} is neither a buffer nor uniform", binding.name)),
        };
        let next = next_in_group.entry(binding.group).or_insert(0);
        binding_map.insert(
            naga::ResourceBinding { group: binding.group, binding: binding.binding },
            spv::BindingInfo {
                descriptor_set: binding.group,
                binding: *next,
                binding_array_size: binding.count.map(|count| count.get()),
            },
        );
        bindings.push(LayoutBinding {
            set: binding.group,
            binding: *next,
            kind,
            count: binding.count.map_or(1, |count| count.get()),
        });
        *next += 1;
    }

    let checked = kernel.runtime_checks == RuntimeChecks::On;
    let policy = |robust_driver: bool| {
        if checked && !robust_driver {
            naga::proc::BoundsCheckPolicy::Restrict
        } else {
            naga::proc::BoundsCheckPolicy::Unchecked
        }
    };
    let options = spv::Options {
        lang_version: (1, 6),
        // RADV has robustBufferAccess2 and robustImageAccess, so wgpu leaves
        // buffer and image bounds to the driver and restricts indices itself.
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: policy(false),
            buffer: policy(true),
            image_load: policy(true),
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::Native,
        force_loop_bounding: checked,
        emit_int_div_checks: checked,
        ray_query_initialization_tracking: checked,
        binding_map,
        ..spv::Options::default()
    };

    let mut written = Vec::new();
    for entry in module.entry_points.iter().filter(|entry| entry.stage == naga::ShaderStage::Compute) {
        let (module, info) = naga::back::pipeline_constants::process_overrides(
            &module,
            &info,
            Some((naga::ShaderStage::Compute, &entry.name)),
            &Default::default(),
        )
        .map_err(|error| format!("{}: override constants: {error}", entry.name))?;
        let pipeline =
            spv::PipelineOptions { shader_stage: naga::ShaderStage::Compute, entry_point: entry.name.clone() };
        let words = spv::write_vec(&module, &info, &options, Some(&pipeline))
            .map_err(|error| format!("{}: naga's SPIR-V writer: {error}", entry.name))?;
        written.push(EntryPointSpirv { name: entry.name.clone(), words, bindings: bindings.clone() });
    }
    Ok(written)
}
