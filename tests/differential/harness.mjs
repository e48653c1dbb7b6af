// Differential test: pisess against pi 1.6.0's own functions on a generated corpus.
//
//   node harness.mjs --pisess BIN --pi-dist DIR [--seed N] [--count N] [--details N] [--keep]
//                    [--strict] [--loose-floats] [--extra FILE]...
//
// Groups: "main" (what SPEC.md covers; enforced), "edge" (pi quirks the SPEC is silent about;
// reported, enforced only with --strict), "extra" (real files given with --extra, e.g.
// /work/shared/research/fixtures/*.jsonl or examples/sessions/*/*.jsonl; enforced).
// Prints one summary line per group, then the disagreements grouped by kind, most frequent first,
// with one example and the command that reproduces it.
// --loose-floats accepts numbers a few ulps off (a float not re-serialised verbatim), to see past
// that one cause. --keep leaves the corpus, manifest.json and pi-report.json in the temp dir.
// Exit status: 0 all enforced comparisons agree, 1 some disagree, 2 harness error.

import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { addExtraFiles, generateCorpus } from "./corpus.mjs";
import { piReport } from "./pi-report.mjs";
import { writeWithPi } from "./pi-written.mjs";

const opts = parseArgs(process.argv.slice(2));
const root = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), "pisess-diff-"));
const home = path.join(root, "home");
const work = path.join(root, "work");
fs.mkdirSync(home, { recursive: true });
fs.mkdirSync(work, { recursive: true });
// pi reads HOME (os.homedir) and resolves relative paths against process.cwd(); pisess gets the same.
process.env.HOME = home;
process.env.TZ = "UTC";
delete process.env.PI_CODING_AGENT_SESSION_DIR;
delete process.env.PI_SESSION_FILE;
process.chdir(work);

const manifest = generateCorpus(root, { seed: opts.seed, count: opts.count });
addExtraFiles(manifest, opts.extra, opts.seed);
// Part of the corpus is written by pi's own SessionManager (lone surrogates, ties, foreign cwds).
await writeWithPi(manifest, { piDist: opts.piDist });
addQueries(manifest);
fs.writeFileSync(path.join(root, "manifest.json"), JSON.stringify(manifest, null, 1));
const report = await piReport(manifest, { piDist: opts.piDist, scratch: path.join(root, "scratch") });
fs.writeFileSync(path.join(root, "pi-report.json"), JSON.stringify(report));
if (report.harnessErrors.length) {
  console.error(`differential: harness error: ${report.harnessErrors.slice(0, 3).join("; ")} (corpus kept in ${root})`);
  process.exit(2);
}

const tally = {}; // group -> category -> {agree, total, diffs: []}
const count = (group, cat, ok, diff) => {
  const t = ((tally[group] ??= {})[cat] ??= { agree: 0, total: 0, diffs: [] });
  t.total++;
  if (ok) t.agree++;
  else t.diffs.push(diff);
};

// Each job yields a list of outcomes [group, category, ok, diff]; they are tallied in job order,
// so the "first differences" shown are deterministic.
for (const outcomes of [await compareListings(), await comparePaths(), await compareContexts(), await compareStats()]) {
  for (const o of outcomes.flat()) count(...o);
}
const failed = printSummary();
if (opts.keep) console.log(`differential: corpus, manifest and pi report kept in ${root}`);
else fs.rmSync(root, { recursive: true, force: true });
process.exit(failed ? 1 : 0);

// ------------------------------------------------------------------------------------------------

/** Listings and path cases that need the harness's HOME and cwd. */
function addQueries(m) {
  const { main, edge } = m.groups;
  edge.cwds.push(path.join(home, "webshop"), path.join(work, "webshop"));
  // A --session-dir that is the cwd's own default folder: pi skips its header-cwd filter there.
  edge.extraLists = [["/home/dev/edge", path.join(edge.agentDir, "sessions", "--home-dev-edge--")]];
  main.cwds.push("/nonexistent/project");
  const mainCwds = [
    ...main.cwds,
    "/home/dev/webshop/",
    "/home/dev/./x/../webshop",
    "//srv//double",
    "/with\\backslash",
    "relative/dir",
  ];
  m.pathCases = [
    ...mainCwds.map((cwd) => ({ group: "main", cwd, agentDirEnv: main.agentDir })),
    { group: "main", cwd: "/home/dev/webshop", agentDirEnv: "~/.pi-alt/agent" },
    { group: "main", cwd: "/home/dev/webshop", agentDirEnv: main.agentDir + "/" },
    { group: "edge", cwd: "~", agentDirEnv: main.agentDir },
    { group: "edge", cwd: "~/proj", agentDirEnv: main.agentDir },
    { group: "edge", cwd: "file:///home/dev/webshop", agentDirEnv: main.agentDir },
  ];
  if (process.platform === "win32") m.pathCases.push({ group: "main", cwd: "C:\\Projects\\pi", agentDirEnv: main.agentDir });
}

async function compareListings() {
  const dialect = new Set(manifest.sessions.filter((s) => s.dialect).map((s) => s.file));
  const kinds = new Map(manifest.sessions.map((s) => [s.file, s.kind]));
  const kindOf = (p) => (kinds.has(p) ? ` [${kinds.get(p)}]` : "");
  return pool(report.listings, async (l) => {
    const out = [];
    const note = (...o) => out.push(o);
    const r = await pisess(l.args, l.env);
    const cmd = describe(l.args, l.env);
    let rows;
    try {
      rows = r.stdout.split("\n").filter((x) => x.trim()).map((x) => JSON.parse(x));
    } catch (e) {
      for (let i = 0; i < Math.max(1, l.rows.length); i++) note(l.group, "ls", false, { cmd, sig: `unparsable output (exit ${r.code})`, what: `${e.message}; stderr: ${clip(r.stderr)}` });
      return out;
    }
    // pisess also reads the seed-000 dialect, which pi does not list.
    rows = rows.filter((x) => !dialect.has(x.path)).map(pickRow);
    const n = Math.max(l.rows.length, rows.length);
    for (let i = 0; i < n; i++) {
      const want = l.rows[i];
      const got = rows[i];
      let sig = null;
      let what;
      if (!got) [sig, what] = ["row missing in pisess", `row ${i}: pi lists ${want.path}${kindOf(want.path)}; exit ${r.code}; stderr: ${clip(r.stderr)}`];
      else if (!want) [sig, what] = ["extra row in pisess", `row ${i}: ${got.path}${kindOf(got.path)}`];
      else if (want.path !== got.path) {
        const at = rows.findIndex((x) => x.path === want.path);
        sig = at < 0 ? "row missing in pisess (shifts the order)" : "order differs";
        what = `row ${i}: pi has ${want.path}${kindOf(want.path)} (modified ${want.modified}), pisess has ${got.path}${kindOf(got.path)} (modified ${got.modified}); pi's row is at pisess position ${at}`;
      } else {
        const d = firstDiff(want, got);
        if (d) [sig, what] = [`field ${d.sig}`, `row ${i} ${want.path}${kindOf(want.path)}: ${d.text}`];
      }
      note(l.group, "ls", !sig, { cmd, sig, what });
    }
    return out;
  });
}

function pickRow(x) {
  const f = (k) => (x[k] === undefined ? null : x[k]);
  return {
    id: f("id"),
    path: f("path"),
    cwd: f("cwd"),
    name: f("name"),
    parentSession: f("parentSession"),
    created: f("created"),
    modified: f("modified"),
    messageCount: f("messageCount"),
    firstMessage: f("firstMessage"),
  };
}

/** `check --json`'s figures against pi's getSessionStats (its /session command). */
async function compareStats() {
  return pool(report.stats, async (st) => {
    if (st.piError) return [[st.group, "stats-pi-throws", true, null]];
    const args = ["check", st.file, "--json", "-q"];
    const r = await pisess(args, {});
    const cmd = describe(args, {});
    let f;
    try {
      f = JSON.parse(r.stdout.split("\n")[0]).figures;
    } catch (e) {
      return [[st.group, "stats", false, { cmd, sig: `unparsable output (exit ${r.code})`, what: `${e.message}; stderr: ${clip(r.stderr)}` }]];
    }
    const got = f && { userMessages: f.userMessages, assistantMessages: f.assistantMessages, toolCalls: f.toolCalls, toolResults: f.toolResults, totalTokens: f.totalTokens, cost: f.cost };
    const d = got ? firstDiff(st.stats, got) : { sig: "no figures", text: clip(r.stdout) };
    return [[st.group, "stats", !d, { cmd, sig: d && `field ${d.sig}`, what: d && `${st.file}: ${d.text}` }]];
  });
}

async function comparePaths() {
  return pool(report.paths, async (p) => {
    const args = ["path", "--cwd", p.cwd];
    const r = await pisess(args, p.env);
    const got = r.stdout.replace(/\r?\n$/, "");
    const ok = r.code === 0 && got === p.expected;
    return [[p.group, "path", ok, { cmd: describe(args, p.env), sig: `path differs`, what: `pi ${JSON.stringify(p.expected)}, pisess ${JSON.stringify(got)} (exit ${r.code}${r.stderr ? `, stderr: ${clip(r.stderr)}` : ""})` }]];
  });
}

async function compareContexts() {
  const jobs = [];
  const skipped = [];
  for (const c of report.contexts) {
    if (!c.loadable) continue;
    for (const res of c.results) {
      if (res.piError) skipped.push([c.group, "pi-throws", true, null]); // shown in the summary only
      else for (const llm of [false, true]) jobs.push({ c, res, llm });
    }
  }
  const outcomes = await pool(jobs, async ({ c, res, llm }) => {
    const leafArg = res.leafArg === null ? null : c.v1 ? v1Id(res.leafArg) : res.leafArg;
    const args = ["context", c.file, ...(llm ? ["--llm"] : []), "--json", ...(leafArg ? ["--leaf", leafArg] : [])];
    const cat = llm ? "llm" : "context";
    const cmd = describe(args, {});
    const r = await pisess(args, {});
    let got;
    try {
      got = JSON.parse(r.stdout);
    } catch {
      return [[c.group, cat, false, { cmd, sig: `no JSON output (exit ${r.code})`, what: `${c.kind}: stderr: ${clip(r.stderr)}` }]];
    }
    const want = { ...res.pi, ...(llm ? { messages: res.llm } : {}) };
    let d;
    if (c.v1) {
      // pi assigns v1 ids at random; pisess numbers entries, so compare the leaf by position.
      const expectId = res.leafIndex ? v1Id(res.leafIndex) : null;
      if (got?.leafId !== expectId) d = { sig: "v1 leafId", text: `expected ${expectId} (entry #${res.leafIndex}), pisess ${JSON.stringify(got?.leafId)}` };
      d ??= firstDiff(strip(want), strip(got ?? {}));
    } else {
      d = firstDiff(want, got);
    }
    return [[c.group, cat, !d, d && { cmd, sig: d.sig, what: `${c.kind}: ${d.text}` }]];
  });
  return [...skipped.map((o) => [o]), ...outcomes];
}

// (Function declarations, not consts: they are hoisted above the top-level awaits that use them.)
function v1Id(n) {
  return n.toString(16).padStart(8, "0");
}

function strip({ thinkingLevel, model, messages }) {
  return { thinkingLevel, model, messages };
}

// ------------------------------------------------------------------------------------------------

/**
 * The first place two JSON values differ (key order ignored), or null when equal:
 * { text: "path: pi X, pisess Y", sig: the path with indices elided plus the kind of difference }.
 */
function firstDiff(a, b, at = "$") {
  const out = (kind, text) => ({ sig: `${at.replace(/\[\d+\]/g, "[]")}: ${kind}`, text: `${at}: ${text}` });
  if (a === b) return null;
  const kind = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
  if (kind(a) !== kind(b)) return out(`${kind(a)} vs ${kind(b)}`, `pi ${show(a)}, pisess ${show(b)}`);
  if (kind(a) === "array") {
    if (a.length !== b.length) {
      const inner = a.findIndex((x, i) => firstDiff(x, b[i]) !== null);
      const hint = inner >= 0 ? ` (first differing element: ${firstDiff(a[inner], b[inner], `${at}[${inner}]`).text})` : "";
      return out("length", `pi has ${a.length} elements, pisess ${b.length}${hint}`);
    }
    for (let i = 0; i < a.length; i++) {
      const d = firstDiff(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (kind(a) === "object") {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(k in a)) return { sig: `${at.replace(/\[\d+\]/g, "[]")}.${k}: absent in pi`, text: `${at}.${k}: absent in pi, pisess ${show(b[k])}` };
      if (!(k in b)) return { sig: `${at.replace(/\[\d+\]/g, "[]")}.${k}: absent in pisess`, text: `${at}.${k}: pi ${show(a[k])}, absent in pisess` };
      const d = firstDiff(a[k], b[k], `${at}.${k}`);
      if (d) return d;
    }
    return null;
  }
  // Numbers a few ulps apart: the float was not carried through verbatim.
  const close = kind(a) === "number" && Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
  if (close && opts.looseFloats) return null;
  return out(close ? "float not preserved" : "value", `pi ${show(a)}, pisess ${show(b)}`);
}

function show(v) {
  return clip(JSON.stringify(v), 160);
}

function clip(s, n = 300) {
  return (s && s.length > n ? `${s.slice(0, n)}…` : s ?? "").replace(/\n/g, "⏎");
}

function describe(args, env) {
  const q = (s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
  return [...Object.entries(env).map(([k, v]) => `${k}=${q(v)}`), "pisess", ...args.map(q)].join(" ");
}

function pisess(args, env) {
  return new Promise((resolve) => {
    execFile(
      opts.pisess,
      args,
      { cwd: work, env: { ...process.env, NO_COLOR: "1", ...env }, maxBuffer: 1 << 28, encoding: "utf8" },
      // A failed spawn (err.code a string such as ENOENT) has no exit status; keep its message.
      (err, stdout, stderr) =>
        resolve(!err ? { code: 0, stdout, stderr } : typeof err.code === "number" ? { code: err.code, stdout, stderr } : { code: -1, stdout, stderr: stderr || err.message }),
    );
  });
}

/** Map with bounded concurrency; results keep the order of items. */
async function pool(items, fn, limit = Math.max(2, os.availableParallelism?.() ?? os.cpus().length)) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  }));
  return results;
}

function printSummary() {
  let failed = false;
  const line = (group) => {
    const t = tally[group] ?? {};
    const parts = ["ls", "path", "context", "llm", "stats"].map((k) => `${k} ${t[k]?.agree ?? 0}/${t[k]?.total ?? 0}${k === "ls" ? " agree" : ""}`);
    if (t["pi-throws"]) parts.push(`(${t["pi-throws"].total} leaves where pi throws, skipped)`);
    if (t["stats-pi-throws"]) parts.push(`(${t["stats-pi-throws"].total} sessions where pi's /session throws, skipped)`);
    return parts.join(", ");
  };
  console.log(`differential: ${line("main")}`);
  if (tally.extra) console.log(`differential (extra files): ${line("extra")}`);
  console.log(`differential (edge cases, ${opts.strict ? "enforced" : "informational"}): ${line("edge")}`);
  for (const group of ["main", "extra", "edge"]) {
    for (const cat of ["ls", "path", "context", "llm", "stats"]) {
      const t = tally[group]?.[cat];
      if (!t?.diffs.length) continue;
      if (group !== "edge" || opts.strict) failed = true;
      // Grouped by signature, most frequent first, one example each: one cause often fails many cases.
      const bySig = new Map();
      for (const d of t.diffs) bySig.set(d.sig, [...(bySig.get(d.sig) ?? []), d]);
      const sigs = [...bySig.entries()].sort((x, y) => y[1].length - x[1].length);
      console.log(`\n[${group}] ${cat}: ${t.total - t.agree} disagreement(s), ${sigs.length} kind(s):`);
      for (const [sig, ds] of sigs.slice(0, opts.details)) {
        console.log(`  ${ds.length} × ${sig}\n      e.g. ${ds[0].what}\n      $ ${ds[0].cmd}`);
      }
      if (sigs.length > opts.details) console.log(`  … ${sigs.length - opts.details} more kind(s); use --details N`);
    }
  }
  return failed;
}

function parseArgs(argv) {
  const o = { seed: 1, count: 420, details: 8, keep: false, strict: false, looseFloats: false, extra: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--keep") o.keep = true;
    else if (a === "--strict") o.strict = true;
    else if (a === "--loose-floats") o.looseFloats = true;
    else if (a === "--extra") o.extra.push(path.resolve(argv[++i]));
    else if (a === "--pisess") o.pisess = path.resolve(argv[++i]);
    else if (a === "--pi-dist") o.piDist = path.resolve(argv[++i]);
    else if (["--seed", "--count", "--details"].includes(a)) o[a.slice(2)] = Number(argv[++i]);
    else throw new Error(`unknown argument ${a}`);
  }
  if (!o.pisess || !o.piDist) throw new Error("usage: harness.mjs --pisess BIN --pi-dist DIR [--seed N] [--count N] [--details N] [--keep] [--strict] [--loose-floats] [--extra FILE]...");
  return o;
}
