// Issue 48's paint budget: the first paint of a 10,000-entry session's page (`pisess export
// --format html`) in headless Chromium under 1 s. Makes the session (`gen.py one --small`, cut
// to its first 10,000 entries), exports it, opens the page RUNS times, each in a fresh tab of
// one headless Chromium (network off, as the browser tests have it), and prints first paint and
// first contentful paint (the Performance API's `paint` entries, ms from navigation start) of
// each run, their medians and the verdict. A bench, not a test: on a shared or loaded machine
// the times are noise.
//
//   node --experimental-websocket benches/export-paint.mjs [--pisess BIN] [--entries N]
//        [--runs N] [--chromium BIN] [--keep DIR]
//
// BIN defaults to target/release/pisess (build it first); Chromium to `chromium` on PATH.
// Node 20 needs --experimental-websocket (Node 22 has WebSocket built in).
// Exit 1 when the median first contentful paint is 1 s or more, 2 on a harness error.

import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "..");
const pisess = opt("--pisess", path.join(repo, "target/release/pisess"));
const entries = Number(opt("--entries", "10000"));
const runs = Number(opt("--runs", "7"));
const chromium = opt("--chromium", "chromium");
const fail = (msg) => { console.error(`export-paint: ${msg}`); process.exit(2); };
if (typeof WebSocket === "undefined") fail("no WebSocket: run node with --experimental-websocket");
if (!fs.existsSync(pisess)) fail(`no ${pisess}: cargo build --release, or give --pisess BIN`);

const keep = opt("--keep");
const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), "pisess-paint-"));
fs.mkdirSync(dir, { recursive: true });

// The session: gen.py's small entries (about 1 KB each), cut to the header and N entries (a
// prefix of a session is a session: every parent comes before its child).
const full = path.join(dir, "gen.jsonl");
const mb = Math.max(1, Math.ceil(entries / 800));
execFileSync("python3", [path.join(here, "gen.py"), "one", full, "--mb", String(mb), "--small"], { stdio: "ignore" });
const lines = fs.readFileSync(full, "utf8").split("\n").filter((l) => l.length > 0);
if (lines.length < entries + 1) fail(`gen.py made ${lines.length - 1} entries, fewer than ${entries}`);
const session = path.join(dir, `s${entries}.jsonl`);
fs.writeFileSync(session, lines.slice(0, entries + 1).join("\n") + "\n");
const page = path.join(dir, `s${entries}.html`);
fs.rmSync(page, { force: true });
execFileSync(pisess, ["-q", "export", session, "--format", "html", "-o", page], { stdio: "inherit" });
const pageBytes = fs.statSync(page).size;

// Headless Chromium on its DevTools protocol.
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-paint-profile-"));
const browser = spawn(chromium, [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-default-apps", "--disable-sync", "--no-first-run",
  "--no-default-browser-check", "--hide-scrollbars", "--remote-debugging-port=0",
  `--user-data-dir=${profile}`, "about:blank",
], { stdio: ["ignore", "ignore", "pipe"] });
browser.on("error", (e) => fail(`cannot start ${chromium}: ${e.message}`));
const wsUrl = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error("no DevTools URL in 60 s")), 60_000);
  readline.createInterface({ input: browser.stderr }).on("line", (line) => {
    const at = line.indexOf("DevTools listening on ");
    if (at >= 0) { clearTimeout(timer); resolve(line.slice(at + 22).trim()); }
  });
}).catch((e) => fail(e.message));
const ws = new WebSocket(wsUrl);
await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = () => reject(fail("DevTools socket")); });
let nextId = 0;
const pending = new Map();
const waiters = [];
ws.onmessage = (m) => {
  const msg = JSON.parse(m.data);
  if (msg.id !== undefined && pending.has(msg.id)) {
    const { resolve, reject } = pending.get(msg.id);
    pending.delete(msg.id);
    msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve(msg.result);
  } else if (msg.method) {
    for (const w of waiters.splice(0)) {
      if (w.match(msg)) w.resolve(msg);
      else waiters.push(w);
    }
  }
};
const call = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
  const id = ++nextId;
  pending.set(id, { resolve, reject });
  ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
});
const event = (method, sessionId) => new Promise((resolve) => {
  waiters.push({ match: (m) => m.method === method && m.sessionId === sessionId, resolve });
});

const url = `file://${page}`;
const results = [];
try {
  for (let r = 0; r < runs; r++) {
    const { targetId } = await call("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await call("Target.attachToTarget", { targetId, flatten: true });
    await call("Page.enable", {}, sessionId);
    await call("Network.enable", {}, sessionId);
    await call("Network.emulateNetworkConditions", { offline: true, latency: 0, downloadThroughput: 0, uploadThroughput: 0 }, sessionId);
    await call("Emulation.setDeviceMetricsOverride", { width: 1000, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
    const loaded = event("Page.loadEventFired", sessionId);
    await call("Page.navigate", { url }, sessionId);
    await loaded;
    // Paint entries are queued after the frame that painted: wait for one more frame.
    const { result } = await call("Runtime.evaluate", {
      expression: `new Promise((ok) => requestAnimationFrame(() => setTimeout(() => ok(JSON.stringify({
        fp: (performance.getEntriesByName('first-paint')[0] || {}).startTime ?? -1,
        fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime ?? -1,
        load: performance.getEntriesByType('navigation')[0]?.loadEventStart ?? -1,
        articles: document.querySelectorAll('main>article').length,
      })), 0)))`,
      awaitPromise: true,
      returnByValue: true,
    }, sessionId);
    const m = JSON.parse(result.value);
    results.push(m);
    console.error(`run ${r + 1}/${runs}: first paint ${m.fp.toFixed(0)} ms, first contentful paint ${m.fcp.toFixed(0)} ms, load ${m.load.toFixed(0)} ms, ${m.articles} articles`);
    await call("Target.closeTarget", { targetId });
  }
} finally {
  ws.close();
  // Chromium writes its profile until it has exited: removing it before races with that.
  const exited = new Promise((done) => browser.once("exit", done));
  browser.kill();
  await Promise.race([exited, new Promise((done) => setTimeout(done, 5000))]);
  // /usr/bin/chromium is a wrapper: its browser may still be writing the profile after the
  // wrapper is gone. Try again for a few seconds; a profile left in the temp dir is no failure.
  for (let tries = 0; ; tries++) {
    try {
      fs.rmSync(profile, { recursive: true, force: true });
      break;
    } catch (e) {
      if (tries >= 20) { console.error(`export-paint: left ${profile}: ${e.message}`); break; }
      await new Promise((done) => setTimeout(done, 250));
    }
  }
  if (!keep) fs.rmSync(dir, { recursive: true, force: true });
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const k = s.length >> 1; return s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2; };
if (results.some((m) => m.fcp < 0)) { console.error("export-paint: a run reported no first contentful paint"); process.exit(2); }
const fp = median(results.map((m) => m.fp));
const fcp = median(results.map((m) => m.fcp));
const load = median(results.map((m) => m.load));
console.log(`page                     ${entries} entries, ${(pageBytes / 1e6).toFixed(1)} MB, ${results[0].articles} articles`);
console.log(`first paint              median ${fp.toFixed(0)} ms of ${runs}`);
console.log(`first contentful paint   median ${fcp.toFixed(0)} ms of ${runs} (budget 1000 ms): ${fcp < 1000 ? "ok" : "over budget"}`);
console.log(`load event               median ${load.toFixed(0)} ms of ${runs}`);
process.exit(fcp < 1000 ? 0 : 1);
