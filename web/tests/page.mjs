// The page in headless Chromium through WebDriver (chromedriver's HTTP API,
// driven with Node's own fetch): the URL query's count, the JavaScript API
// for every game, a refusal, and the embedding example. Prints a cargo-style
// `test result:` line so that scripts/test counts these with the rest.
//
// Usage: node web/tests/page.mjs SITE CHROMEDRIVER CHROMIUM
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";

const [site, chromedriver, chromium] = process.argv.slice(2);
if (!site || !chromedriver || !chromium) {
  console.error("usage: node web/tests/page.mjs SITE CHROMEDRIVER CHROMIUM");
  process.exit(2);
}

const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".css": "text/css",
  ".wgsl": "text/plain", ".bin": "application/octet-stream" };

// The site, served as scripts/web serve would (Python is not needed here).
const server = createServer(async (request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
  const file = join(site, path.endsWith("/") ? `${path}index.html` : path);
  try {
    const body = await readFile(file);
    response.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
    response.end(body);
  } catch {
    response.writeHead(404);
    response.end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const driverPort = await new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const driver = spawn(chromedriver, [`--port=${driverPort}`], { stdio: "ignore" });
const webdriver = `http://127.0.0.1:${driverPort}`;

async function command(method, path, body) {
  const response = await fetch(`${webdriver}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const reply = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${JSON.stringify(reply.value)}`);
  return reply.value;
}

async function waitForDriver() {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      await command("GET", "/status");
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error("chromedriver did not start");
}

let passed = 0;
let failed = 0;
const results = [];
async function test(name, body) {
  try {
    await body();
    passed++;
    results.push(`test ${name} ... ok`);
  } catch (error) {
    failed++;
    results.push(`test ${name} ... FAILED\n    ${error.message}`);
  }
}
function expect(condition, message) {
  if (!condition) throw new Error(message);
}

let session;
try {
  await waitForDriver();
  session = (await command("POST", "/session", {
    capabilities: { alwaysMatch: { "goog:chromeOptions": { binary: chromium,
      args: ["--headless=new", "--no-sandbox", "--enable-unsafe-webgpu", "--enable-features=Vulkan", "--use-angle=swiftshader"] } } },
  })).sessionId;
  await command("POST", `/session/${session}/timeouts`, { script: 600_000, pageLoad: 60_000 });
  const run = (script, args = []) => command("POST", `/session/${session}/execute/sync`, { script, args });
  const runAsync = (script, args = []) => command("POST", `/session/${session}/execute/async`, { script, args });
  const open = (path) => command("POST", `/session/${session}/url`, { url: `${base}${path}` });
  async function settled() {
    for (let waited = 0; waited < 600; waited++) {
      const state = await run("return document.body.dataset.state || ''");
      if (state === "done" || state === "error") return state;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    throw new Error("the page did not finish within 10 minutes");
  }
  // Calls gpuMovegen.perft in the page; an error comes back as {error}.
  const perft = (request) => runAsync(
    "const done = arguments[arguments.length - 1];" +
    "gpuMovegen.ready.then(() => gpuMovegen.perft(arguments[0]))" +
    ".then(done, (error) => done({ error: error instanceof Error ? error.message : 'not an Error: ' + error }));",
    [request]);

  await test("the URL query counts start perft(3) on the GPU with a divide", async () => {
    await open("/?game=chess&depth=3&backend=gpu&divide=1");
    const state = await settled();
    const status = await run("return document.getElementById('status').textContent");
    expect(state === "done", `the page ended in ${state}: ${status}`);
    expect(await run("return document.body.dataset.nodes") === "8902", `nodes: ${status}`);
    expect(status.includes("on the GPU"), `not counted on the GPU: ${status}`);
    const rows = await run("return document.querySelectorAll('#divide tbody tr').length");
    expect(rows === 20, `${rows} divide rows, 20 expected`);
    const adapter = await run("return document.getElementById('adapter').textContent");
    expect(adapter.includes("self-test passed"), adapter);
  });

  await test("the API counts every game on the GPU and the CPU alike", async () => {
    const cases = [
      [{ game: "chess", position: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", depth: 2 }, "2039"],
      [{ game: "shogi", depth: 2 }, "900"],
      [{ game: "go", size: 5, position: "B c3", depth: 2 }, "552"],
    ];
    for (const [request, nodes] of cases) {
      for (const backend of ["gpu", "cpu"]) {
        const result = await perft({ ...request, backend, divide: true });
        expect(!result.error, `${JSON.stringify(request)} on ${backend}: ${result.error}`);
        expect(result.nodes === nodes, `${JSON.stringify(request)} on ${backend}: ${result.nodes}, ${nodes} expected`);
        expect(result.backend === backend, `${backend} asked, ${result.backend} counted (${result.note})`);
        const sum = result.divide.reduce((total, [, count]) => total + BigInt(count), 0n);
        expect(String(sum) === nodes, `the divide sums to ${sum}`);
        expect(typeof result.seconds === "number" && result.adapter, "seconds and adapter");
      }
    }
  });

  await test("the API counts a chess variant on the GPU and the CPU alike", async () => {
    // Published counts (tests/data/variants, from scalachess's copies of shakmaty's suites).
    const cases = [
      [{ game: "chess", variant: "crazyhouse", position: "2k5/8/8/8/8/8/8/4K3[Qn] w - - 0 1", depth: 2 }, "3083"],
      [{ game: "chess", variant: "atomic", position: "rn2kb1r/1pp1p2p/p2q1pp1/3P4/2P3b1/4PN2/PP3PPP/R2QKB1R b KQkq - 0 1", depth: 2 }, "1238"],
    ];
    for (const [request, nodes] of cases) {
      for (const backend of ["gpu", "cpu"]) {
        const result = await perft({ ...request, backend, divide: true });
        expect(!result.error, `${JSON.stringify(request)} on ${backend}: ${result.error}`);
        expect(result.nodes === nodes, `${JSON.stringify(request)} on ${backend}: ${result.nodes}, ${nodes} expected`);
        expect(result.backend === backend, `${backend} asked, ${result.backend} counted (${result.note})`);
        const sum = result.divide.reduce((total, [, count]) => total + BigInt(count), 0n);
        expect(String(sum) === nodes, `the divide sums to ${sum}`);
      }
    }
    const wrong = await perft({ game: "chess", variant: "atomic", position: "4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1", depth: 1 });
    expect(wrong.error && wrong.error.startsWith("FEN: "), `got ${JSON.stringify(wrong)}`);
    const unknown = await perft({ game: "chess", variant: "suicide", depth: 1 });
    expect(unknown.error && unknown.error.includes("unknown chess variant"), `got ${JSON.stringify(unknown)}`);
  });

  await test("bad input rejects with the command line's message", async () => {
    const bad = await perft({ game: "chess", position: "8/8/8 w - -", depth: 1 });
    expect(bad.error && bad.error.startsWith("FEN: "), `got ${JSON.stringify(bad)}`);
    const deep = await perft({ game: "chess", depth: 99 });
    expect(deep.error && deep.error.includes("depth"), `got ${JSON.stringify(deep)}`);
    const game = await perft({ game: "checkers", depth: 1 });
    expect(game.error && game.error.includes("game must be"), `got ${JSON.stringify(game)}`);
  });

  await test("verify finds the GPU equal to the CPU on random positions of every game", async () => {
    for (const [game, count] of [["chess", 8], ["shogi", 4], ["go", 4]]) {
      const report = await runAsync(
        "const done = arguments[arguments.length - 1];" +
        "gpuMovegen.verify(arguments[0], arguments[1], 2, 1).then(done, (error) => done({ error: error.message }));",
        [game, count]);
      expect(!report.error, `${game}: ${report.error}`);
      expect(report.positions === count && report.agreed === count && report.mismatches.length === 0,
        `${game}: ${JSON.stringify(report)}`);
    }
    const refused = await runAsync(
      "const done = arguments[0]; gpuMovegen.verify('chess', 0, 2, 1).then(done, (error) => done({ error: error.message }));");
    expect(refused.error && refused.error.includes("count must be"), JSON.stringify(refused));
  });

  await test("info reports the adapter, its limits and a passed self-test", async () => {
    const info = await runAsync("const done = arguments[0]; gpuMovegen.info().then(done, (e) => done({ error: e.message }));");
    expect(!info.error, info.error);
    expect(info.selfTest.passed && info.selfTest.checks.length >= 2, JSON.stringify(info.selfTest));
    expect(info.limits.maxStorageBufferBindingSize > 0, JSON.stringify(info.limits));
  });

  await test("the embedding example runs its own kernel on the exported WGSL", async () => {
    await open("/embed.html");
    const state = await settled();
    const text = await run("return document.getElementById('result').textContent");
    expect(state === "done" && (await run("return document.body.dataset.nodes")) === "400", text);
  });
  // Figures for BENCHMARKS.md, not assertions: GPU ÷ CPU in one browser run.
  if (process.env.GPU_MOVEGEN_WEB_FIGURES) {
    await open("/");
    const runs = [
      { game: "chess", depth: 4 }, { game: "chess", depth: 5 },
      { game: "shogi", depth: 3 }, { game: "go", size: 9, depth: 3 },
    ];
    for (const request of runs) {
      for (const backend of ["gpu", "cpu"]) {
        // The first GPU call of a game builds its pipelines; time the second.
        if (backend === "gpu") await perft({ ...request, depth: 1, backend });
        const result = await perft({ ...request, backend });
        results.push(`figure: ${JSON.stringify(request)} ${backend}: ${result.nodes} nodes in ${result.seconds?.toFixed(3)} s on ${result.adapter}${result.error ?? ""}`);
      }
    }
  }
} catch (error) {
  failed++;
  results.push(`page tests could not run: ${error.message}`);
} finally {
  if (session) await command("DELETE", `/session/${session}`).catch(() => {});
  driver.kill();
  server.close();
}
for (const line of results) console.log(line);
console.log(`test result: ${failed ? "FAILED" : "ok"}. ${passed} passed; ${failed} failed; 0 ignored`);
process.exit(failed ? 1 : 0);
