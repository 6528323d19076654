//! The Vulkan side: a device on RADV's null driver (no GPU needed; ACO
//! compiles for the chip `RADV_FORCE_FAMILY` names), a compute pipeline
//! from SPIR-V and a descriptor layout, and the statistics the driver
//! reports for it through VK_KHR_pipeline_executable_properties.

use std::ffi::{CStr, c_char};

use ash::vk;

/// One resource binding of a kernel, as the pipeline layout declares it.
#[derive(Debug, Clone, Copy)]
pub struct LayoutBinding {
    /// The descriptor set (the WGSL group).
    pub set: u32,
    /// The binding number within the set, after wgpu's renumbering.
    pub binding: u32,
    /// What the descriptor is.
    pub kind: vk::DescriptorType,
    /// Descriptors in the binding (a binding array's length, else 1).
    pub count: u32,
}

/// A statistic's value as the driver reports it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Value {
    /// A count (registers, instructions, ...).
    Unsigned(u64),
    /// A signed count.
    Signed(i64),
    /// A real number.
    Real(f64),
    /// A yes or no.
    Flag(bool),
}

/// The device RADV makes for the chip it was told to pretend to be.
pub struct NullDevice {
    // Held for the device's lifetime; dropped in `Drop` below.
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    executables: ash::khr::pipeline_executable_properties::Device,
    /// The device's name (`AMD Radeon ... (RADV NAVI31)`).
    pub name: String,
    /// The driver's own version text (`Mesa 25.0.7-2~bpo12+1`).
    pub driver: String,
}

fn text(characters: &[c_char]) -> String {
    // SAFETY: Vulkan's fixed-size strings end with a NUL inside the array.
    unsafe { CStr::from_ptr(characters.as_ptr()) }.to_string_lossy().into_owned()
}

impl NullDevice {
    /// Opens the first RADV device the loader offers (the caller has pointed
    /// `VK_ICD_FILENAMES` at RADV's manifest and set `RADV_FORCE_FAMILY`).
    pub fn open() -> Result<NullDevice, String> {
        // SAFETY: loading the system's Vulkan loader; failure is an error value.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|error| format!("the Vulkan loader (libvulkan.so.1) could not be loaded: {error}"))?;
        let application = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let create = vk::InstanceCreateInfo::default().application_info(&application);
        // SAFETY: valid create info; the instance is destroyed in Drop.
        let instance =
            unsafe { entry.create_instance(&create, None) }.map_err(|error| format!("no Vulkan instance: {error}"))?;
        match Self::open_device(&instance) {
            Ok((device, executables, name, driver)) => {
                Ok(NullDevice { _entry: entry, instance, device, executables, name, driver })
            }
            Err(error) => {
                // SAFETY: nothing made from the instance outlives it.
                unsafe { instance.destroy_instance(None) };
                Err(error)
            }
        }
    }

    fn open_device(
        instance: &ash::Instance,
    ) -> Result<(ash::Device, ash::khr::pipeline_executable_properties::Device, String, String), String> {
        // SAFETY: plain queries on a live instance.
        let physical_devices = unsafe { instance.enumerate_physical_devices() }
            .map_err(|error| format!("the Vulkan loader lists no device: {error}"))?;
        let mut names = Vec::new();
        for physical in physical_devices {
            let mut driver_properties = vk::PhysicalDeviceDriverProperties::default();
            let mut properties = vk::PhysicalDeviceProperties2::default().push_next(&mut driver_properties);
            // SAFETY: `physical` came from this instance.
            unsafe { instance.get_physical_device_properties2(physical, &mut properties) };
            let name = text(&properties.properties.device_name);
            let driver = format!("{} {}", text(&driver_properties.driver_name), text(&driver_properties.driver_info));
            if driver_properties.driver_id != vk::DriverId::MESA_RADV {
                names.push(name);
                continue;
            }
            let queue_family = unsafe { instance.get_physical_device_queue_family_properties(physical) }
                .iter()
                .position(|family| family.queue_flags.contains(vk::QueueFlags::COMPUTE))
                .ok_or_else(|| format!("{name} has no compute queue"))? as u32;
            let priorities = [1.0];
            let queues =
                [vk::DeviceQueueCreateInfo::default().queue_family_index(queue_family).queue_priorities(&priorities)];
            let extensions = [ash::khr::pipeline_executable_properties::NAME.as_ptr()];
            let features = vk::PhysicalDeviceFeatures::default().shader_int64(true).shader_int16(true);
            let mut executable_features =
                vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default().pipeline_executable_info(true);
            let mut vulkan12 = vk::PhysicalDeviceVulkan12Features::default()
                .runtime_descriptor_array(true)
                .shader_storage_buffer_array_non_uniform_indexing(true)
                .descriptor_binding_storage_buffer_update_after_bind(true)
                .descriptor_binding_partially_bound(true)
                .descriptor_indexing(true)
                .vulkan_memory_model(true)
                .storage_buffer8_bit_access(true)
                .shader_int8(true);
            let mut vulkan13 = vk::PhysicalDeviceVulkan13Features::default()
                .shader_zero_initialize_workgroup_memory(true)
                .subgroup_size_control(true);
            let create = vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_extension_names(&extensions)
                .enabled_features(&features)
                .push_next(&mut executable_features)
                .push_next(&mut vulkan12)
                .push_next(&mut vulkan13);
            // SAFETY: valid create info for this physical device.
            let device = unsafe { instance.create_device(physical, &create, None) }
                .map_err(|error| format!("{name} ({driver}): no device: {error}"))?;
            let executables = ash::khr::pipeline_executable_properties::Device::new(instance, &device);
            return Ok((device, executables, name, driver));
        }
        Err(format!(
            "no RADV device among {names:?}: point VK_ICD_FILENAMES at Mesa's radeon_icd manifest and set \
             RADV_FORCE_FAMILY (scripts/gpu-shader-stats does both)"
        ))
    }

    /// Builds `entry_point` of `spirv` with `bindings` and returns the
    /// driver's statistics of its compute executable, in the driver's order,
    /// and with `representations` its internal representations (ACO's
    /// assembly among them) as text.
    pub fn build(
        &self,
        spirv: &[u32],
        entry_point: &str,
        bindings: &[LayoutBinding],
        representations: bool,
    ) -> Result<Built, String> {
        let device = &self.device;
        let sets = bindings.iter().map(|binding| binding.set + 1).max().unwrap_or(0);
        let mut set_layouts = Vec::new();
        // Everything made below is destroyed before returning, error or not.
        let mut module = vk::ShaderModule::null();
        let mut pipeline_layout = vk::PipelineLayout::null();
        let mut pipeline = vk::Pipeline::null();
        let outcome = (|| -> Result<Built, String> {
            for set in 0..sets {
                let entries: Vec<vk::DescriptorSetLayoutBinding> = bindings
                    .iter()
                    .filter(|binding| binding.set == set)
                    .map(|binding| {
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(binding.binding)
                            .descriptor_type(binding.kind)
                            .descriptor_count(binding.count)
                            .stage_flags(vk::ShaderStageFlags::COMPUTE)
                    })
                    .collect();
                // Binding arrays are update-after-bind, as wgpu declares them.
                let flags: Vec<vk::DescriptorBindingFlags> = bindings
                    .iter()
                    .filter(|binding| binding.set == set)
                    .map(|binding| {
                        if binding.count > 1 {
                            vk::DescriptorBindingFlags::UPDATE_AFTER_BIND
                        } else {
                            vk::DescriptorBindingFlags::empty()
                        }
                    })
                    .collect();
                let update_after_bind = bindings.iter().any(|binding| binding.set == set && binding.count > 1);
                let mut binding_flags = vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&flags);
                let mut create = vk::DescriptorSetLayoutCreateInfo::default().bindings(&entries);
                if update_after_bind {
                    create = create.flags(vk::DescriptorSetLayoutCreateFlags::UPDATE_AFTER_BIND_POOL);
                }
                let create = create.push_next(&mut binding_flags);
                // SAFETY: valid create info.
                let layout = unsafe { device.create_descriptor_set_layout(&create, None) }
                    .map_err(|error| format!("descriptor set layout {set}: {error}"))?;
                set_layouts.push(layout);
            }
            let create = vk::ShaderModuleCreateInfo::default().code(spirv);
            // SAFETY: SPIR-V from naga's writer.
            module = unsafe { device.create_shader_module(&create, None) }
                .map_err(|error| format!("shader module: {error}"))?;
            let create = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
            // SAFETY: the set layouts are live.
            pipeline_layout = unsafe { device.create_pipeline_layout(&create, None) }
                .map_err(|error| format!("pipeline layout: {error}"))?;
            let name = std::ffi::CString::new(entry_point).map_err(|_| "an entry point name with a NUL".to_owned())?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(&name);
            let mut flags = vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR;
            if representations {
                flags |= vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR;
            }
            let create = [vk::ComputePipelineCreateInfo::default().flags(flags).stage(stage).layout(pipeline_layout)];
            // SAFETY: the module and layout are live.
            pipeline = unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &create, None) }
                .map_err(|(_, error)| format!("the driver failed to build the pipeline: {error}"))?[0];
            let info = vk::PipelineInfoKHR::default().pipeline(pipeline);
            // SAFETY: the pipeline was made with CAPTURE_STATISTICS.
            let executables = unsafe { self.executables.get_pipeline_executable_properties(&info) }
                .map_err(|error| format!("executable properties: {error}"))?;
            let index = executables
                .iter()
                .position(|executable| executable.stages.contains(vk::ShaderStageFlags::COMPUTE))
                .ok_or("the pipeline has no compute executable")? as u32;
            let mut statistics = vec![(
                "Subgroup size".to_owned(),
                Value::Unsigned(u64::from(executables[index as usize].subgroup_size)),
            )];
            let info = vk::PipelineExecutableInfoKHR::default().pipeline(pipeline).executable_index(index);
            // SAFETY: as above.
            let reported = unsafe { self.executables.get_pipeline_executable_statistics(&info) }
                .map_err(|error| format!("executable statistics: {error}"))?;
            for statistic in reported {
                // SAFETY: the union member matches the format the driver set.
                let value = unsafe {
                    match statistic.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => Value::Flag(statistic.value.b32 != 0),
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => Value::Signed(statistic.value.i64),
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => Value::Unsigned(statistic.value.u64),
                        _ => Value::Real(statistic.value.f64),
                    }
                };
                statistics.push((text(&statistic.name), value));
            }
            let representations = if representations { self.representations(&info)? } else { Vec::new() };
            Ok(Built { statistics, representations })
        })();
        // SAFETY: none of these is in use; null handles are ignored.
        unsafe {
            device.destroy_pipeline(pipeline, None);
            device.destroy_pipeline_layout(pipeline_layout, None);
            device.destroy_shader_module(module, None);
            for layout in set_layouts {
                device.destroy_descriptor_set_layout(layout, None);
            }
        }
        outcome
    }
}

impl NullDevice {
    /// The executable's internal representations as (name, text): the
    /// two-call query, the second with room for each text.
    fn representations(&self, info: &vk::PipelineExecutableInfoKHR) -> Result<Vec<(String, String)>, String> {
        let get = self.executables.fp().get_pipeline_executable_internal_representations_khr;
        let device = self.device.handle();
        let mut count = 0u32;
        // SAFETY: the two-call idiom: a count first, then structs with room for the data.
        unsafe { get(device, info, &mut count, std::ptr::null_mut()) }
            .result()
            .map_err(|error| format!("internal representations: {error}"))?;
        let mut entries = vec![vk::PipelineExecutableInternalRepresentationKHR::default(); count as usize];
        // SAFETY: as above; data sizes come back with null data pointers.
        unsafe { get(device, info, &mut count, entries.as_mut_ptr()) }
            .result()
            .map_err(|error| format!("internal representations: {error}"))?;
        let mut buffers: Vec<Vec<u8>> = entries.iter().map(|entry| vec![0u8; entry.data_size]).collect();
        for (entry, buffer) in entries.iter_mut().zip(&mut buffers) {
            entry.p_data = buffer.as_mut_ptr().cast();
        }
        // SAFETY: each data pointer has data_size bytes behind it.
        unsafe { get(device, info, &mut count, entries.as_mut_ptr()) }
            .result()
            .map_err(|error| format!("internal representations: {error}"))?;
        Ok(entries
            .iter()
            .zip(buffers)
            .map(|(entry, buffer)| {
                let end = buffer.iter().position(|&byte| byte == 0).unwrap_or(buffer.len());
                (text(&entry.name), String::from_utf8_lossy(&buffer[..end]).into_owned())
            })
            .collect())
    }
}

/// What the driver made of one entry point.
pub struct Built {
    /// Its statistics, in the driver's order, the subgroup size first.
    pub statistics: Vec<(String, Value)>,
    /// Its internal representations (NIR, ACO's IR and assembly) as (name,
    /// text), where asked for.
    pub representations: Vec<(String, String)>,
}

impl Drop for NullDevice {
    fn drop(&mut self) {
        // SAFETY: every object made from the device was destroyed with its call.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
