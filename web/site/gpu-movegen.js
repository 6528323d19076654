// The JavaScript API of gpu-movegen in a browser, set on globalThis.gpuMovegen:
//   ready        a Promise that settles when the WebAssembly module is loaded;
//   info()       the adapter, its limits and the self-test's verdicts;
//   perft({game, variant, position, size, depth, backend, divide, onProgress})
//                {nodes, backend, adapter, seconds, divide, note}: nodes is a
//                decimal string (exact past 2^53), divide a list of [move, nodes];
//                variant is a chess variant's UCI_Variant or lichess name;
//   verify(game, count, depth, seed)   GPU against CPU on random positions
//                (game: chess, shogi, go, or a chess variant's name);
//   playouts({size, moves, count, seed, komi, backend})   Go win rates.
// Bad input rejects the Promise with an Error carrying the command line's message.
import init, * as wasm from "./pkg/gpu_movegen_web.js";

const ready = init().then(() => undefined);

// A wasm-bindgen error is already an Error; anything else becomes one.
function asError(thrown) {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

// What the browser says of its adapter (vendor, architecture), since
// WebGPU's `description`, the name the library sees, is often left empty.
const browserAdapter = (async () => {
  try {
    const adapter = await navigator.gpu?.requestAdapter();
    const info = adapter?.info ?? {};
    return [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(" ");
  } catch {
    return "";
  }
})();

async function named(result) {
  const name = await browserAdapter;
  if (name && typeof result?.adapter === "string" && result.adapter.startsWith("unnamed adapter")) {
    result.adapter = result.adapter.replace("unnamed adapter", name);
  }
  return result;
}

async function call(work) {
  await ready;
  try {
    return await named(await work());
  } catch (thrown) {
    throw asError(thrown);
  }
}

globalThis.gpuMovegen = {
  ready,
  info: () => call(() => wasm.info()),
  perft: (request) => call(() => wasm.perft(request ?? {})),
  verify: (game = "chess", count = 20, depth = 2, seed = 1) =>
    call(() => wasm.verify(String(game), count, depth, seed)),
  playouts: ({ size = 9, moves = "", count = 1000, seed = 1, komi = 7.5, backend = "gpu" } = {}) =>
    call(() => wasm.playouts(size, String(moves), count, seed, komi, String(backend))),
};

export default globalThis.gpuMovegen;
