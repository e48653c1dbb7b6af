// Differential test of `pisess stats` (issue 20), beside harness.mjs, on the same generated corpus.
//
//   node stats.mjs --pisess BIN --pi-dist DIST [--seed N] [--count N] [--keep]
//
// 1. For every session pi can open: pi's own `AgentSession.getSessionStats`, its source text taken
//    from dist/core/agent-session.js and run with a stand-in `this` (importing that module needs
//    undici's zstd constants, which Node 20 lacks), against `stats --json FILE` (counts, tokens,
//    cost) and the matching `ls --json` row (counts); and pi's `getUsageCostBreakdown` against
//    `stats --json`'s per-model figures.
// 2. `stats --by day|model --json --tz UTC FILE...` against a sum over the raw lines written here,
//    independently of pisess (each usage at its entry's time, under pi's breakdown key), and the
//    total row against the sum of pi's getSessionStats over the same files.
// Exit 1 when any comparison disagrees, 2 on a harness error.

import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { generateCorpus } from "./corpus.mjs";

const opts = parseArgs(process.argv.slice(2));
const root = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), "pisess-stats-"));
const scratch = path.join(root, "scratch");
fs.mkdirSync(scratch, { recursive: true });
process.env.HOME = path.join(root, "home");
process.env.TZ = "UTC";
delete process.env.PI_CODING_AGENT_SESSION_DIR;
delete process.env.PI_SESSION_FILE;

const manifest = generateCorpus(root, { seed: opts.seed, count: opts.count });
const { SessionManager } = await import(pathToFileURL(path.join(opts.piDist, "core/session-manager.js")).href);
const usageTotals = await import(pathToFileURL(path.join(opts.piDist, "core/usage-totals.js")).href);
const getSessionStats = piMethod("getSessionStats", usageTotals);

const results = {}; // category -> {agree, total, diffs}
const count = (cat, ok, diff) => {
  const t = (results[cat] ??= { agree: 0, total: 0, diffs: [] });
  t.total++;
  if (ok) t.agree++;
  else t.diffs.push(diff);
};

// ---- 1. one session at a time
const files = manifest.sessions.filter((s) => !s.dialect).map((s) => s.file);
// Sessions whose usage counts make pi's totals strings (`0 + "5"` is `"05"`): `stats --json
// SESSION` gives pi's strings; the per-model figures and the reports over many sessions are
// numbers, and count such a usage as NaN (null), so they are compared on the other sessions.
const stringTotals = new Set(manifest.sessions.filter((s) => ["usageString", "usageArrayAndObject"].includes(s.kind)).map((s) => s.file));
const lsRows = new Map();
for (const g of Object.values(manifest.groups)) {
  for (const args of [["ls", "--all", "--json"], ["ls", "--all", "--json", "--session-dir", g.customDir]]) {
    const r = await pisess(args, { PI_CODING_AGENT_DIR: g.agentDir });
    for (const line of r.stdout.split("\n").filter(Boolean)) {
      const row = JSON.parse(line);
      lsRows.set(row.path, row);
    }
  }
}
const piTotals = new Map();
let n = 0;
const outcomes = await pool(files, async (file) => {
  const copy = path.join(scratch, `${n++}.jsonl`);
  fs.copyFileSync(file, copy); // pi rewrites migrated files and mends torn ones
  let pi;
  try {
    const sessionManager = SessionManager.open(copy);
    if (sessionManager.getEntries().length === 0 && !sessionManager.getHeader()) return [];
    const self = { sessionManager, sessionFile: file, sessionId: sessionManager.getSessionId(), getContextUsage: () => undefined };
    pi = { ...getSessionStats.call(self), breakdown: usageTotals.getUsageCostBreakdown(sessionManager.getEntries()) };
  } catch (e) {
    return [["pi-open", true, null]]; // pi cannot open it: nothing to compare
  }
  piTotals.set(file, pi);
  const r = await pisess(["stats", "--json", file]);
  if (r.code !== 0) return [["stats --json", false, { file, code: r.code, stderr: r.stderr.slice(0, 300) }]];
  const ours = JSON.parse(r.stdout);
  const out = [];
  const want = pick(pi);
  out.push(["stats --json counts and totals", same(pick(ours), want), { file, pi: want, pisess: pick(ours) }]);
  const ls = lsRows.get(file);
  const lsWant = counts(pi);
  out.push(["ls --json counts", ls !== undefined && same(counts(ls), lsWant), { file, pi: lsWant, pisess: ls && counts(ls) }]);
  const models = ours.models
    .map((m) => ({ key: m.model, cost: m.cost, tokens: m.tokens.total }))
    .filter((m) => m.cost > 0 || m.tokens > 0)
    .sort((a, b) => b.cost - a.cost || (a.key < b.key ? -1 : 1));
  const piModels = pi.breakdown.map((b) => ({ key: b.key, cost: b.cost, tokens: b.tokens })).sort((a, b) => b.cost - a.cost || (a.key < b.key ? -1 : 1));
  if (!stringTotals.has(file)) out.push(["stats --json models = getUsageCostBreakdown", same(models, piModels), { file, pi: piModels, pisess: models }]);
  return out;
});
for (const o of outcomes.flat()) if (o[0] !== "pi-open") count(...o);

// ---- 2. buckets over many sessions against an independent sum of the raw files
const compared = files.filter((f) => piTotals.has(f) && !stringTotals.has(f));
for (const by of ["day", "model"]) {
  const r = await pisess(["stats", "--by", by, "--json", "--tz", "UTC", ...compared]);
  if (r.code !== 0) {
    count(`stats --by ${by}`, false, { code: r.code, stderr: r.stderr.slice(0, 300) });
    continue;
  }
  const rows = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const total = rows.find((x) => x.total);
  const mine = independentSums(compared, by);
  for (const row of rows.filter((x) => !x.total)) {
    const want = mine.get(row.key) ?? { cost: 0, tokens: 0 };
    mine.delete(row.key);
    count(`stats --by ${by} buckets = raw sum`, close(row.cost, want.cost) && row.tokens.total === want.tokens, { key: row.key, raw: want, pisess: { cost: row.cost, tokens: row.tokens.total } });
  }
  for (const [key, want] of mine) count(`stats --by ${by} buckets = raw sum`, false, { key, raw: want, pisess: "missing" });
  let cost = 0, tokens = 0;
  for (const f of compared) {
    cost += piTotals.get(f).cost;
    tokens += piTotals.get(f).tokens.total;
  }
  count(`stats --by ${by} total = sum of getSessionStats`, total && close(total.cost, cost) && total.tokens.total === tokens, { pi: { cost, tokens }, pisess: total && { cost: total.cost, tokens: total.tokens.total } });
}

let failed = false;
for (const [cat, t] of Object.entries(results)) {
  console.log(`stats differential: ${cat}: ${t.agree}/${t.total} agree`);
  for (const d of t.diffs.slice(0, 3)) console.log(`  first difference: ${JSON.stringify(d).slice(0, 600)}`);
  if (t.agree !== t.total || t.total === 0) failed = true;
}
if (opts.keep) console.log(`stats differential: corpus kept in ${root}`);
else fs.rmSync(root, { recursive: true, force: true });
process.exit(failed ? 1 : 0);

// ------------------------------------------------------------------------------------------------

/** A method of AgentSession as pi 1.6.0 ships it, bound to the helpers its module imports. */
function piMethod(name, { createUsageTotals, addUsageToTotals }) {
  const src = fs.readFileSync(path.join(opts.piDist, "core/agent-session.js"), "utf8");
  const start = src.indexOf(`\n    ${name}() {`);
  if (start < 0) throw new Error(`${name} not found in agent-session.js`);
  // The method ends at the first line that closes a class member (four spaces, `}`).
  const end = src.indexOf("\n    }\n", start);
  const body = src.slice(start, end + "\n    }".length).trim();
  return new Function("createUsageTotals", "addUsageToTotals", `return function ${body};`)(createUsageTotals, addUsageToTotals);
}

function counts(x) {
  const { userMessages, assistantMessages, toolCalls, toolResults, totalMessages } = x;
  return { userMessages, assistantMessages, toolCalls, toolResults, totalMessages };
}

// pi's fields only: pisess's JSON may add fields (docs/json.md), `tokens.totalTokens` among them.
function pick(x) {
  const { input, output, cacheRead, cacheWrite, total } = x.tokens ?? {};
  return { ...counts(x), tokens: x.tokens && { input, output, cacheRead, cacheWrite, total }, cost: x.cost };
}

/** Equal as JSON (NaN, which pi gives for a missing count, and null alike). */
function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Costs summed in another order may differ in the last bits; a millionth of a cent may not. */
function close(a, b) {
  return Math.abs(a - b) <= 1e-8 * Math.max(1, Math.abs(b));
}

/** Each usage pi's totals count, bucketed by its entry's UTC day or pi's breakdown key. */
function independentSums(paths, by) {
  const sums = new Map();
  for (const file of paths) {
    let header = null;
    for (const line of fs.readFileSync(file, "utf8").split("\n")) {
      let e;
      try {
        e = JSON.parse(line);
      } catch {
        continue;
      }
      if (!e || typeof e !== "object" || Array.isArray(e)) continue;
      if (!header) {
        header = e;
        continue;
      }
      if (e.type === "session") continue;
      let usage, key;
      const m = e.type === "message" ? e.message : undefined;
      if (e.type === "usage") [usage, key] = [e.usage, `${e.provider}/${e.model}`];
      else if ((e.type === "compaction" || e.type === "branch_summary") && e.usage) [usage, key] = [e.usage, "Tools/summaries"];
      else if (m?.role === "assistant") [usage, key] = [m.usage, `${m.provider}/${m.responseModel ?? m.model}`];
      else if (m?.role === "toolResult" && m.usage) [usage, key] = [m.usage, "Tools/summaries"];
      if (!usage) continue;
      if (by === "day") {
        let t = new Date(e.timestamp).getTime();
        if (Number.isNaN(t) && typeof m?.timestamp === "number") t = m.timestamp;
        if (Number.isNaN(t)) t = new Date(header.timestamp).getTime();
        key = Number.isNaN(t) ? "(no time)" : new Date(t).toISOString().slice(0, 10);
      }
      const s = sums.get(key) ?? { cost: 0, tokens: 0 };
      s.cost += usage.cost?.total ?? 0;
      s.tokens += (usage.input ?? 0) + (usage.output ?? 0) + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0);
      sums.set(key, s);
    }
  }
  return sums;
}

function pisess(args, env = {}) {
  return new Promise((resolve) => {
    execFile(opts.pisess, args, { env: { ...process.env, NO_COLOR: "1", ...env }, maxBuffer: 1 << 28, encoding: "utf8" }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr: stderr || (err?.message ?? "") }),
    );
  });
}

/** Map with bounded concurrency; results keep the order of items. */
async function pool(items, fn, limit = Math.max(2, os.availableParallelism?.() ?? os.cpus().length)) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  }));
  return out;
}

function parseArgs(argv) {
  const o = { seed: 1, count: 420, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--pisess") o.pisess = argv[++i];
    else if (a === "--pi-dist") o.piDist = argv[++i];
    else if (a === "--seed") o.seed = Number(argv[++i]);
    else if (a === "--count") o.count = Number(argv[++i]);
    else if (a === "--keep") o.keep = true;
  }
  if (!o.pisess || !o.piDist) {
    console.error("usage: node stats.mjs --pisess BIN --pi-dist DIST [--seed N] [--count N] [--keep]");
    process.exit(2);
  }
  return o;
}
