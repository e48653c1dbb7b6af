// Differential test of `pisess export --format jsonl` (issue 35) against pi 1.6.0's own
// serializeSessionBranch (dist/core/session-export.js, what `/export file.jsonl` writes).
//
//   node export.mjs --pisess BIN --pi-dist DIST [--seed N] [--count N] [--details N] [--keep]
//                   [--strict] [--extra FILE]...
//
// The corpus is harness.mjs's (generated, written by pi's own SessionManager, and real files:
// the repo's examples and any --extra FILE, v1 and v2 among them). For every session pi opens,
// at its default leaf and at inner leaves:
// 1. pi's SessionManager opens a copy (migrating v1/v2 as it does), is moved to the leaf
//    (`branch(id)`), and serializeSessionBranch writes the export; `pisess export FILE --format
//    jsonl [--leaf ID]` must print the same bytes, the header's timestamp (now) aside.
//    pi gives v1 entries random ids; here crypto.randomUUID is replaced, after the corpus is
//    written, by a counter pi's migration draws from in entry order, so its ids are the ones
//    pisess assigns (the nth entry's is n in 8 hex digits).
// 2. pi's SessionManager opens pisess's export, and its buildSessionContext must equal
//    `pisess context FILE --json [--leaf ID]` (less leafId): pi resumes the export where pisess
//    says the original stands.
// Groups as harness.mjs's: main and extra enforced, edge (pi quirks) reported, enforced with
// --strict. Exit 1 when an enforced comparison disagrees, 2 on a harness error.

import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { addExtraFiles, generateCorpus } from "./corpus.mjs";
import { writeWithPi } from "./pi-written.mjs";

const opts = parseArgs(process.argv.slice(2));
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const root = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), "pisess-export-"));
const home = path.join(root, "home");
const work = path.join(root, "work");
const scratch = path.join(root, "scratch");
for (const d of [home, work, scratch]) fs.mkdirSync(d, { recursive: true });
process.env.HOME = home;
process.env.TZ = "UTC";
delete process.env.PI_CODING_AGENT_SESSION_DIR;
delete process.env.PI_SESSION_FILE;
process.chdir(work);

const examples = walk(path.join(repo, "examples")).filter((f) => f.endsWith(".jsonl"));
const manifest = generateCorpus(root, { seed: opts.seed, count: opts.count });
addExtraFiles(manifest, [...examples, ...opts.extra], opts.seed);
await writeWithPi(manifest, { piDist: opts.piDist });

// From here on pi's ids come from a counter (see above).
let drawn = 0;
crypto.randomUUID = () => `${(++drawn).toString(16).padStart(8, "0")}-0000-4000-8000-000000000000`;
syncBuiltinESMExports();
const { SessionManager, loadEntriesFromFile } = await import(pathToFileURL(path.join(opts.piDist, "core/session-manager.js")).href);
const { serializeSessionBranch } = await import(pathToFileURL(path.join(opts.piDist, "core/session-export.js")).href);
const open = (file) => {
  drawn = 0;
  return SessionManager.open(file);
};

const tally = {}; // group -> category -> {agree, total, diffs}
const count = (group, cat, ok, diff) => {
  const t = ((tally[group] ??= {})[cat] ??= { agree: 0, total: 0, diffs: [] });
  t.total++;
  if (ok) t.agree++;
  else t.diffs.push(diff);
};

let n = 0;
let harnessErrors = 0;
for (const s of manifest.sessions) {
  if (s.dialect) continue;
  const copy = path.join(scratch, `${n++}.jsonl`);
  fs.copyFileSync(s.file, copy); // pi rewrites migrated files and mends torn ones
  // A file pi does not read as a session (no header first, or empty) it would replace by a
  // new session of its own: nothing to compare.
  if (loadEntriesFromFile(copy).length === 0) continue;
  let sm;
  try {
    sm = open(copy);
  } catch {
    count(s.group, "pi-throws", true);
    continue;
  }
  // The default leaf, then inner ones (v1 leaves are entry positions, named by pisess's ids).
  const leaves = [null, ...s.leaves.map((l) => (s.v1 ? l.toString(16).padStart(8, "0") : l))];
  for (const leaf of leaves) {
    let want;
    let contextThrows = false;
    try {
      if (leaf !== null) {
        if (!sm.getEntry(leaf)) continue; // a leaf the builder picked that pi does not index
        sm.branch(leaf);
      }
      want = serializeSessionBranch(sm);
      try {
        sm.buildSessionContext();
      } catch {
        // pi cannot build this branch's context (a message entry without a message): it
        // cannot build its export's either; the jsonl comparison still holds.
        contextThrows = true;
      }
    } catch (e) {
      count(s.group, "pi-throws", true);
      continue;
    } finally {
      drawn = 0;
      sm = open(copy);
    }
    const leafArgs = leaf === null ? [] : ["--leaf", leaf];
    const args = ["export", s.file, "--format", "jsonl", ...leafArgs];
    const cmd = describe(args);
    const r = await pisess(args);
    if (r.code !== 0) {
      count(s.group, "jsonl", false, { cmd, sig: `exit ${r.code}`, what: `${s.kind}: ${clip(r.stderr)}` });
      continue;
    }
    const d = firstLineDiff(want, r.stdout);
    count(s.group, "jsonl", !d, d && { cmd, sig: d.sig, what: `${s.kind}: ${d.text}` });
    if (d) continue;
    if (contextThrows) {
      count(s.group, "pi-throws", true);
      continue;
    }

    // pi opens the export; its context must be pisess's at that leaf of the original.
    const exported = path.join(scratch, `${n++}-export.jsonl`);
    fs.writeFileSync(exported, r.stdout);
    let piCtx;
    try {
      piCtx = open(exported).buildSessionContext();
    } catch (e) {
      count(s.group, "reload", false, { cmd, sig: "pi cannot open the export", what: `${s.kind}: ${e}` });
      continue;
    }
    const cargs = ["context", s.file, "--json", ...leafArgs];
    const c = await pisess(cargs);
    let mine;
    try {
      const { leafId: _, ...rest } = JSON.parse(c.stdout);
      mine = rest;
    } catch {
      count(s.group, "reload", false, { cmd: describe(cargs), sig: `no context JSON (exit ${c.code})`, what: clip(c.stderr) });
      continue;
    }
    const same = canonical(JSON.parse(JSON.stringify(piCtx))) === canonical(mine);
    count(s.group, "reload", same, !same && { cmd: describe(cargs), sig: "context of the export differs", what: `${s.kind}: pi ${clip(canonical(piCtx), 200)}, pisess ${clip(canonical(mine), 200)}` });
  }
}

let failed = harnessErrors > 0;
for (const group of ["main", "extra", "edge"]) {
  const t = tally[group] ?? {};
  const part = (k) => `${k} ${t[k]?.agree ?? 0}/${t[k]?.total ?? 0}`;
  const throws = t["pi-throws"] ? ` (${t["pi-throws"].total} where pi throws, skipped)` : "";
  const enforced = group !== "edge" || opts.strict;
  console.log(`differential export (${group}${enforced ? "" : ", informational"}): ${part("jsonl")} agree, ${part("reload")} reload to the same context${throws}`);
  for (const cat of ["jsonl", "reload"]) {
    const diffs = t[cat]?.diffs ?? [];
    if (!diffs.length) continue;
    if (enforced) failed = true;
    const bySig = new Map();
    for (const d of diffs) bySig.set(d.sig, [...(bySig.get(d.sig) ?? []), d]);
    console.log(`\n[${group}] ${cat}: ${diffs.length} disagreement(s):`);
    for (const [sig, ds] of [...bySig.entries()].sort((a, b) => b[1].length - a[1].length).slice(0, opts.details)) {
      console.log(`  ${ds.length} × ${sig}\n      e.g. ${ds[0].what}\n      $ ${ds[0].cmd}`);
    }
  }
}
if (opts.keep) console.log(`differential export: corpus kept in ${root}`);
else fs.rmSync(root, { recursive: true, force: true });
process.exit(failed ? 1 : 0);

// ------------------------------------------------------------------------------------------------

/** The first line where two exports differ, the header's timestamp (now) set aside. */
function firstLineDiff(want, got) {
  const a = want.split("\n");
  const b = got.split("\n");
  const stamp = (line) => {
    try {
      const h = JSON.parse(line);
      if (h.type !== "session" || Number.isNaN(Date.parse(h.timestamp))) return null;
      return line.replace(JSON.stringify(h.timestamp), '"NOW"');
    } catch {
      return null;
    }
  };
  const [ha, hb] = [stamp(a[0]), stamp(b[0])];
  if (hb === null) return { sig: "header unparsable or without a time", text: clip(b[0]) };
  if (ha !== hb) return { sig: "header differs", text: `pi ${clip(ha)}, pisess ${clip(hb)}` };
  if (a.length !== b.length) return { sig: "line count differs", text: `pi ${a.length - 1} lines, pisess ${b.length - 1}` };
  for (let i = 1; i < a.length; i++) {
    if (a[i] !== b[i]) {
      let at = 0;
      while (a[i][at] === b[i][at]) at++;
      return { sig: "entry line differs", text: `line ${i + 1} at byte ${at}: pi …${clip(a[i].slice(Math.max(0, at - 40), at + 60))}, pisess …${clip(b[i].slice(Math.max(0, at - 40), at + 60))}` };
    }
  }
  return null;
}

function canonical(x) {
  return JSON.stringify(x, (_k, v) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0))) : v));
}

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)])).sort();
}

function clip(s, k = 300) {
  return (s && s.length > k ? `${s.slice(0, k)}…` : s ?? "").replace(/\n/g, "⏎");
}

function describe(args) {
  const q = (s) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
  return ["pisess", ...args.map(q)].join(" ");
}

function pisess(args) {
  return new Promise((resolve) => {
    execFile(opts.pisess, ["-q", ...args], { cwd: work, env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 1 << 28, encoding: "utf8" }, (err, stdout, stderr) =>
      resolve(!err ? { code: 0, stdout, stderr } : { code: typeof err.code === "number" ? err.code : -1, stdout, stderr: stderr || err.message }),
    );
  });
}

function parseArgs(argv) {
  const o = { seed: 1, count: 420, details: 8, keep: false, strict: false, extra: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--keep") o.keep = true;
    else if (a === "--strict") o.strict = true;
    else if (a === "--extra") o.extra.push(path.resolve(argv[++i]));
    else if (a === "--pisess") o.pisess = path.resolve(argv[++i]);
    else if (a === "--pi-dist") o.piDist = path.resolve(argv[++i]);
    else if (["--seed", "--count", "--details"].includes(a)) o[a.slice(2)] = Number(argv[++i]);
    else throw new Error(`unknown argument ${a}`);
  }
  if (!o.pisess || !o.piDist) throw new Error("usage: export.mjs --pisess BIN --pi-dist DIST [--seed N] [--count N] [--details N] [--keep] [--strict] [--extra FILE]...");
  return o;
}
