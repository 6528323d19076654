// Compiles WGSL files with Dawn for Node, whose WGSL compiler is Tint (the
// one Chromium's WebGPU uses, written apart from naga), and creates a
// compute pipeline for every entry point, so that Tint's front end and its
// backend for the adapter both see each kernel. Prints one JSON object a
// line for every message (error, warning or info) and every failed
// pipeline, then a summary line; exits 0 when it could run at all.
//
// Usage: node compile.mjs FOLDER   (every *.wgsl file in FOLDER)

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { create, globals } from 'webgpu';

Object.assign(globalThis, globals);
const folder = process.argv[2];
const gpu = create([]);
const adapter = await gpu.requestAdapter();
if (!adapter) {
  console.log(JSON.stringify({ fatal: 'no WebGPU adapter (Dawn for Node found no Vulkan driver)' }));
  process.exit(1);
}
// The adapter's own limits: the kernels are sized to what a device allows.
const limits = {};
for (const name of ['maxStorageBuffersPerShaderStage', 'maxStorageBufferBindingSize', 'maxBufferSize',
  'maxComputeWorkgroupStorageSize', 'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX']) {
  limits[name] = adapter.limits[name];
}
const device = await adapter.requestDevice({ requiredLimits: limits });
let files = 0;
let pipelines = 0;
let problems = 0;
for (const file of readdirSync(folder).filter((name) => name.endsWith('.wgsl')).sort()) {
  const code = readFileSync(join(folder, file), 'utf8');
  files += 1;
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code });
  const info = await module.getCompilationInfo();
  for (const message of info.messages) {
    problems += 1;
    console.log(JSON.stringify({ file, type: message.type, line: message.lineNum, message: message.message }));
  }
  const moduleError = await device.popErrorScope();
  if (moduleError) {
    problems += 1;
    console.log(JSON.stringify({ file, type: 'error', message: moduleError.message }));
    continue;
  }
  const entryPoints = [...code.matchAll(/@compute[^\n]*\n?\s*fn\s+([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]);
  for (const entryPoint of entryPoints) {
    device.pushErrorScope('validation');
    device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint } });
    const error = await device.popErrorScope();
    pipelines += 1;
    if (error) {
      problems += 1;
      console.log(JSON.stringify({ file, entryPoint, type: 'error', message: error.message }));
    }
  }
}
console.log(JSON.stringify({ files, pipelines, problems, adapter: adapter.info?.description ?? '' }));
device.destroy();
process.exit(0);
