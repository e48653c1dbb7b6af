// Size budget of `pisess export --format html` (issue 48) against pi 1.6.0's own HTML export
// (dist/core/export-html, what `/export file.html` writes), on the repo's examples and any
// --extra FILE (real sessions): no pisess page larger than pi's, and the median of pisess/pi
// at most 1/3. A session pi cannot export is reported and left out.
//
//   node export-size.mjs --pisess BIN --pi-dist DIST [--extra FILE]...
//
// Exit 1 when the budget is broken, 2 on a harness error.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const extra = args.flatMap((a, i) => (a === "--extra" ? [args[i + 1]] : []));
const pisess = opt("--pisess");
const dist = opt("--pi-dist");
if (!pisess || !dist) { console.error("usage: export-size.mjs --pisess BIN --pi-dist DIST"); process.exit(2); }
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pisess-size-"));
// pi reads its settings and themes under HOME: an empty one.
process.env.HOME = scratch;
const { exportFromFile } = await import(pathToFileURL(path.join(dist, "core/export-html/index.js")).href);

const sessions = [];
const root = path.join(repo, "examples/sessions");
for (const project of fs.readdirSync(root).sort()) {
  for (const f of fs.readdirSync(path.join(root, project)).sort()) {
    if (f.endsWith(".jsonl")) sessions.push(path.join(root, project, f));
  }
}
sessions.push(...extra);

const ratios = [];
let broken = 0;
for (const file of sessions) {
  const piPage = path.join(scratch, "pi.html");
  // pi's SessionManager migrates a v1 or v2 file in place when it opens it: it reads a copy.
  const copy = path.join(scratch, path.basename(file));
  fs.copyFileSync(file, copy);
  try {
    await exportFromFile(copy, { outputPath: piPage });
  } catch (e) {
    console.log(`export-size: pi cannot export ${path.basename(file)} (${String(e.message).split("\n")[0]}): left out`);
    continue;
  }
  const pi = fs.statSync(piPage).size;
  const ours = execFileSync(pisess, ["-q", "export", file, "--format", "html"], { maxBuffer: 1 << 30 }).length;
  const ratio = ours / pi;
  ratios.push(ratio);
  const over = ours > pi;
  if (over) broken++;
  console.log(`export-size: ${path.basename(file)}: pisess ${ours} B, pi ${pi} B, ${ratio.toFixed(3)}${over ? "  LARGER THAN PI'S" : ""}`);
}
fs.rmSync(scratch, { recursive: true, force: true });
if (ratios.length === 0) { console.error("export-size: pi exported no session"); process.exit(2); }
ratios.sort((a, b) => a - b);
const mid = ratios.length >> 1;
const median = ratios.length % 2 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2;
console.log(`export-size: ${ratios.length} sessions, median pisess/pi ${median.toFixed(3)} (budget 0.333), largest ${ratios.at(-1).toFixed(3)}`);
if (median > 1 / 3) { console.error("export-size: FAILED: the median is over 1/3 of pi's"); broken++; }
process.exit(broken ? 1 : 0);
