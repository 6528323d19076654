// The page: reads the forms, calls globalThis.gpuMovegen (gpu-movegen.js) and
// shows what comes back. `document.body.dataset.state` is "counting", "done"
// or "error" after each count, for scripts that drive the page.
import gpuMovegen from "./gpu-movegen.js";

const countForm = document.getElementById("count");
const status = document.getElementById("status");
const divideBody = document.querySelector("#divide tbody");
const adapterLine = document.getElementById("adapter");

function show(element, text, kind = "") {
  element.textContent = text;
  element.className = kind;
}

function perSecond(nodes, seconds) {
  if (seconds <= 0) return "";
  const rate = Number(nodes) / seconds;
  return rate >= 1e6 ? `${(rate / 1e6).toFixed(1)} M nodes/s` : `${Math.round(rate)} nodes/s`;
}

// The self-test runs on this browser's adapter before any GPU count is shown.
const gpuReady = gpuMovegen.ready
  .then(() => gpuMovegen.info())
  .then((info) => {
    const verdict = info.selfTest.passed
      ? "self-test passed"
      : `self-test FAILED (${info.selfTest.checks.find((check) => !check.passed)?.detail}); counting on the CPU`;
    show(adapterLine, `WebGPU adapter: ${info.adapter}; ${verdict}`, info.selfTest.passed ? "" : "note");
    return info.selfTest.passed;
  })
  .catch((error) => {
    show(adapterLine, `No usable WebGPU here (${error.message}); counting on the CPU.`, "note");
    return false;
  });

async function runCount(request) {
  document.body.dataset.state = "counting";
  divideBody.replaceChildren();
  if (request.backend === "gpu" && !(await gpuReady)) request.backend = "cpu";
  show(status, "counting…");
  try {
    const result = await gpuMovegen.perft({
      ...request,
      onProgress: (nodes) => show(status, `counting… ${BigInt(nodes).toLocaleString()} nodes`),
    });
    const lines = [
      `nodes ${BigInt(result.nodes).toLocaleString()}`,
      `${result.seconds.toFixed(3)} s, ${perSecond(result.nodes, result.seconds)}`,
      `on ${result.backend === "gpu" ? "the GPU" : "the CPU"}: ${result.adapter}`,
    ];
    if (result.note) lines.push(result.note);
    show(status, lines.join("\n"), result.note ? "note" : "");
    for (const [move, nodes] of result.divide ?? []) {
      const row = divideBody.insertRow();
      row.insertCell().textContent = move;
      row.insertCell().textContent = BigInt(nodes).toLocaleString();
    }
    document.body.dataset.nodes = result.nodes;
    document.body.dataset.state = "done";
  } catch (error) {
    // A failed count shows its error and no number.
    show(status, `error: ${error.message}`, "error");
    document.body.dataset.state = "error";
  }
}

function formRequest(form) {
  const data = new FormData(form);
  return {
    game: data.get("game"),
    variant: data.get("game") === "chess" ? data.get("variant") : undefined,
    position: data.get("position"),
    size: Number(data.get("size")),
    depth: Number(data.get("depth")),
    backend: data.get("backend"),
    divide: data.get("divide") === "on",
  };
}

countForm.addEventListener("submit", (event) => {
  event.preventDefault();
  runCount(formRequest(countForm));
});

document.getElementById("verify").addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(event.target);
  const out = document.getElementById("verify-status");
  show(out, "verifying…");
  try {
    const report = await gpuMovegen.verify(data.get("game"), Number(data.get("count")), Number(data.get("depth")), Number(data.get("seed")));
    const mismatches = report.mismatches.map((row) => `${row.position}: GPU ${row.gpu}, CPU ${row.cpu}`);
    show(out, [`${report.agreed} of ${report.positions} positions agree (${report.seconds.toFixed(2)} s, ${report.adapter})`, ...mismatches].join("\n"),
      mismatches.length ? "error" : "");
  } catch (error) {
    show(out, `error: ${error.message}`, "error");
  }
});

document.getElementById("playouts").addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(event.target);
  const out = document.getElementById("playout-status");
  show(out, "playing…");
  try {
    let backend = data.get("backend");
    if (backend === "gpu" && !(await gpuReady)) backend = "cpu";
    const report = await gpuMovegen.playouts({
      size: Number(data.get("size")), moves: data.get("moves"), count: Number(data.get("count")),
      seed: 1, komi: Number(data.get("komi")), backend,
    });
    const rate = (wins) => ((100 * wins) / report.playouts).toFixed(1);
    show(out, `${report.playouts} playouts in ${report.seconds.toFixed(2)} s on ${report.backend}: black ${rate(report.blackWins)} %, white ${rate(report.whiteWins)} %, draws ${rate(report.draws)} %`);
  } catch (error) {
    show(out, `error: ${error.message}`, "error");
  }
});

// ?game=…&position=…&size=…&depth=…&backend=… counts on load.
const query = new URLSearchParams(location.search);
if (query.has("depth")) {
  for (const [name, value] of query) {
    const field = countForm.elements.namedItem(name);
    if (field && field.type === "checkbox") field.checked = value !== "0" && value !== "false";
    else if (field) field.value = value;
  }
  runCount(formRequest(countForm));
}
