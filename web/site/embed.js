// A user's own kernel on the exported WGSL library, in plain WebGPU.
// `document.body.dataset.state` is "done" (with `data-nodes`) or "error" at the end.

// Reads the library's tables (group 0, binding 0) and writes `replies`
// (binding 1). One invocation per root move of the start position: the
// number of legal replies after that move, or 0 past the last move.
const USER_KERNEL = /* wgsl */ `
@group(0) @binding(1) var<storage, read_write> replies: array<u32>;

fn start_position() -> Position {
    return Position(
        vec2<u32>(0x0000ff00u, 0x00ff0000u), // pawns
        vec2<u32>(0x42u, 0x42000000u),       // knights
        vec2<u32>(0x24u, 0x24000000u),       // bishops
        vec2<u32>(0x81u, 0x81000000u),       // rooks
        vec2<u32>(0x08u, 0x08000000u),       // queens
        vec2<u32>(0x10u, 0x10000000u),       // kings
        vec2<u32>(0x0000ffffu, 0u),          // white
        vec2<u32>(0u, 0xffff0000u),          // black
        0u, 0x8181u, 64u, 0u, 1u);           // white to move, all castling, no en passant
}

@compute @workgroup_size(64)
fn replies_per_move(@builtin(global_invocation_id) id: vec3<u32>) {
    let root = start_position();
    let root_move = chess_nth_legal_move(root, id.x);
    if root_move == CHESS_NO_MOVE {
        replies[id.x] = 0u;
        return;
    }
    replies[id.x] = chess_count_legal(chess_make_move(root, root_move));
}
`;

const result = document.getElementById("result");

async function run() {
  if (!navigator.gpu) throw new Error("this browser has no WebGPU");
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new Error("no WebGPU adapter");
  const device = await adapter.requestDevice();
  const [library, tables] = await Promise.all([
    fetch("wgsl/chess-kogge-stone-u32x2.wgsl").then((response) => response.text()),
    fetch("wgsl/chess-tables.bin").then((response) => response.arrayBuffer()),
  ]);
  device.pushErrorScope("validation");
  const module = device.createShaderModule({ code: library + USER_KERNEL });
  const pipeline = device.createComputePipeline({ layout: "auto", compute: { module, entryPoint: "replies_per_move" } });
  const tableBuffer = device.createBuffer({ size: tables.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(tableBuffer, 0, tables);
  const slots = 64;
  const output = device.createBuffer({ size: slots * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const staging = device.createBuffer({ size: slots * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const bindGroup = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: { buffer: tableBuffer } }, { binding: 1, resource: { buffer: output } }],
  });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(1);
  pass.end();
  encoder.copyBufferToBuffer(output, 0, staging, 0, slots * 4);
  device.queue.submit([encoder.finish()]);
  const error = await device.popErrorScope();
  if (error) throw new Error(error.message);
  await staging.mapAsync(GPUMapMode.READ);
  const replies = Array.from(new Uint32Array(staging.getMappedRange()));
  staging.unmap();
  const moves = replies.filter((count) => count > 0).length;
  const nodes = replies.reduce((sum, count) => sum + count, 0);
  return { adapter: adapter.info?.description || adapter.info?.device || "WebGPU adapter", moves, nodes };
}

run()
  .then(({ adapter, moves, nodes }) => {
    result.textContent = `start position: ${moves} moves, perft(2) = ${nodes} (400 expected), on ${adapter}`;
    document.body.dataset.nodes = String(nodes);
    document.body.dataset.state = "done";
  })
  .catch((error) => {
    result.textContent = `error: ${error.message}`;
    result.className = "error";
    document.body.dataset.state = "error";
  });
