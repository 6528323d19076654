//! The Go batch kernels (legal points, playouts): kernels built per board
//! size on first use, then dispatched through the runtime's one batch driver
//! (`gpu::batch`), one invocation per output record.

use std::collections::HashMap;
use std::sync::Arc;

use bytemuck::Pod;

use super::layout::PackedGoPosition;
use super::shaders;
use crate::gpu::batch::BatchParameters;
use crate::gpu::reflect::{Kernels, reflect};
use crate::gpu::{Check, GpuContext, GpuError};

/// Invocations per dispatch: 65,535 workgroups of 64, WebGPU's guaranteed
/// minimum per grid dimension, so one batch's buffers stay small on every
/// device; the grid a dispatch is laid out on follows the device's own limit.
pub const INVOCATIONS_PER_DISPATCH: u32 = 65_535 * shaders::GO_WORKGROUP;

/// The kernels of one Go module, per board size.
pub(crate) struct GoBatch {
    context: GpuContext,
    module: &'static str,
    /// The self-test's checks of this module's kernels for a board size.
    checks: fn(u32) -> Vec<Check>,
    kernels: HashMap<u32, Arc<Kernels>>,
}

impl GoBatch {
    pub fn new(context: &GpuContext, module: &'static str, checks: fn(u32) -> Vec<Check>) -> GoBatch {
        GoBatch { context: context.clone(), module, checks, kernels: HashMap::new() }
    }

    pub fn context(&self) -> &GpuContext {
        &self.context
    }

    /// Builds the kernels for `size` now (they are otherwise built on first
    /// use), once the device has passed the self-test of them.
    pub async fn prepare(&mut self, size: u32) -> Result<(), GpuError> {
        if !self.kernels.contains_key(&size) {
            if !(2..=crate::go::MAX_SIZE).contains(&size) {
                return Err(GpuError::Limits(format!("no Go kernels for a {size}x{size} board (2 to 19)")));
            }
            self.context.require_async(&(self.checks)(size)).await?;
            // The self-test's batch, on a clone of this context, may have
            // built them already: a 19x19 pipeline takes seconds to build on
            // a software driver.
            let key = format!("go {} {size}", self.module);
            let kernels = match self.context.cached_kernels::<Kernels>(&key) {
                Some(kernels) => kernels,
                None => {
                    let shader = reflect(shaders::compose(self.module, size, &[])?)?;
                    let kernels =
                        Arc::new(self.context.scoped_async(|| self.context.kernels(&shader, self.module)).await?);
                    self.context.keep_kernels(key, Arc::clone(&kernels));
                    kernels
                }
            };
            self.kernels.insert(size, kernels);
        }
        Ok(())
    }

    /// Runs the dispatches of `entry_points` in order, each of
    /// `parameters.count` invocations (at most [`INVOCATIONS_PER_DISPATCH`]),
    /// over `positions`, all of board `size`, in one submission, and reads
    /// their records back.
    pub async fn run<T: Pod>(
        &mut self,
        size: u32,
        entry_points: &[&str],
        positions: &[PackedGoPosition],
        parameters: BatchParameters,
    ) -> Result<Vec<T>, GpuError> {
        self.prepare(size).await?;
        let batch = crate::gpu::batch::Batch {
            label: self.module,
            kernels: &self.kernels[&size],
            entry_points,
            tables: None,
            positions,
            parameters,
        };
        crate::gpu::batch::run(&self.context, &batch, |flags| format!("Go batch fault flags {flags:#x}")).await
    }
}
