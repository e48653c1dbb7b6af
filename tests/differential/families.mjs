// Differential test of families counted once (issue 44): forks, clones and branched sessions
// written by pi 1.6's own SessionManager (`forkFrom`, `createBranchedSession`), then
//
// - `stats --all --json`'s total = the sum of pi's getSessionStats over every file of the store
//   minus pi's getSessionStats over the entries each file copied from a file up its
//   `parentSession` chain (found here independently: same id, same JSON but `parentId`, and a
//   compaction's `firstKeptEntryId`);
// - `stats SOURCE --forks --json`'s `family` = the same sum over SOURCE and its descendants;
// - `stats FILE --json` = pi's getSessionStats of FILE (a file's own figures stay pi's);
// - with the source removed, its copies count in the fork: the total is the sum over the files
//   left minus what they copied from files still there.
//
//   node families.mjs --pisess BIN --pi-dist DIST [--keep]
// Exit 1 when a comparison disagrees, 2 on a harness error.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const bin = opt("--pisess");
const dist = opt("--pi-dist");
if (!bin || !dist) {
  console.error("usage: node families.mjs --pisess BIN --pi-dist DIST [--keep]");
  process.exit(2);
}
const root = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), "pisess-families-"));
const agentDir = path.join(root, "agent");
const cwd = "/home/dev/webshop";
const dir = path.join(agentDir, "sessions", "--home-dev-webshop--");
fs.mkdirSync(dir, { recursive: true });

const { SessionManager } = await import(pathToFileURL(path.join(dist, "core/session-manager.js")).href);
const usageTotals = await import(pathToFileURL(path.join(dist, "core/usage-totals.js")).href);
const getSessionStats = piMethod("getSessionStats", usageTotals);

// ---- the store, written by pi
let clock = Date.UTC(2026, 5, 1);
const at = () => (clock += 1000);
const cost = (n) => ({ input: n / 1000, output: 0.0123, cacheRead: 0.0007, cacheWrite: 0, total: n / 1000 + 0.013 });
const usage = (n) => ({ input: n, output: 3, cacheRead: 1, cacheWrite: 2, totalTokens: n + 6, cost: cost(n) });
const user = (text) => ({ role: "user", content: [{ type: "text", text }], timestamp: at() });
const assistant = (text, n) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  usage: usage(n),
  stopReason: "stop",
  timestamp: at(),
});

const sm = SessionManager.create(cwd, dir);
const first = sm.appendMessage(user("first"));
const answer = sm.appendMessage(assistant("answer", 1000));
sm.appendLabelChange(answer, "good");
sm.appendMessage(user("after a label"));
const labelled = sm.appendMessage(assistant("second answer", 2000));
const label = sm.appendLabelChange(labelled, "checkpoint");
sm.appendCompaction("summary", label, 1234, { readFiles: ["a.ts"] }, false, usage(500));
sm.appendUsage("web_search", "openai", "gpt-5", usage(700), "a note");
sm.appendMessage(user("third"));
const leaf = sm.appendMessage(assistant("third answer", 3000));
sm.branch(first);
sm.appendMessage(assistant("another branch", 4000));
sm.branch(leaf);
const source = sm.getSessionFile();

// A clone of one branch, with turns of its own; a clone of that clone.
const clone = sm.createBranchedSession(leaf);
sm.appendMessage(user("the clone's own"));
const cloneLeaf = sm.appendMessage(assistant("the clone's answer", 5000));
const clone2 = sm.createBranchedSession(cloneLeaf);
sm.appendMessage(user("the second clone's own"));
sm.appendMessage(assistant("the second clone's answer", 6000));

// A fork of every entry, with turns of its own; a fork of that fork.
const forked = SessionManager.forkFrom(source, cwd, dir);
forked.appendMessage(user("the fork's own"));
forked.appendMessage(assistant("the fork's answer", 7000));
const fork = forked.getSessionFile();
const forked2 = SessionManager.forkFrom(fork, cwd, dir);
forked2.appendMessage(user("the fork of the fork's own"));
forked2.appendMessage(assistant("its answer", 8000));
const fork2 = forked2.getSessionFile();

// An unrelated session.
const other = SessionManager.create(cwd, dir);
other.appendMessage(user("unrelated"));
other.appendMessage(assistant("unrelated answer", 9000));
const unrelated = other.getSessionFile();

const files = [source, clone, clone2, fork, fork2, unrelated];
for (const f of files) if (!f || !fs.existsSync(f)) harness(`pi wrote no file ${f}`);

// ---- the expected figures, from pi's code and the files
const entriesOf = (file) =>
  fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const headerOf = (file) => entriesOf(file)[0];
/** Sorted keys, without the fields a copy rewrites. */
const canon = (v) =>
  Array.isArray(v) ? v.map(canon) : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])])) : v;
const contentKey = (e) => {
  const c = { ...e };
  delete c.parentId;
  if (e.type === "compaction") delete c.firstKeptEntryId;
  return JSON.stringify(canon(c));
};
const statsOf = (entries) => {
  const s = getSessionStats.call({ sessionManager: { getEntries: () => entries }, getContextUsage: () => undefined });
  return { tokens: s.tokens.total, cost: s.cost };
};
/** The entries of `file` copied from a file up its chain among `present`. */
const copiedOf = (file, present) => {
  const keys = new Set();
  const seen = new Set([file]);
  let up = headerOf(file).parentSession;
  while (up && !seen.has(up) && fs.existsSync(up)) {
    seen.add(up);
    if (present.includes(up)) for (const e of entriesOf(up).slice(1)) if (typeof e.id === "string") keys.add(contentKey(e));
    up = headerOf(up).parentSession;
  }
  return entriesOf(file).slice(1).filter((e) => typeof e.id === "string" && keys.has(contentKey(e)));
};
const once = (members, present = members) => {
  let tokens = 0, cost = 0;
  for (const f of members) {
    const all = statsOf(entriesOf(f).slice(1));
    const copied = statsOf(copiedOf(f, present));
    tokens += all.tokens - copied.tokens;
    cost += all.cost - copied.cost;
  }
  return { tokens, cost };
};

// ---- the comparisons
const results = [];
const compare = (what, want, got) => {
  const ok = got !== undefined && got.tokens === want.tokens && Math.abs(got.cost - want.cost) < 0.005 && Math.abs(got.cost - want.cost) <= 1e-8 * Math.max(1, want.cost);
  results.push({ what, ok, want, got });
};
/** pisess's stdout; a failure is reported and gives an empty output (then a difference). */
const run = (argv) => {
  try {
    return execFileSync(bin, argv, { env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, NO_COLOR: "1", HOME: root }, encoding: "utf8", cwd: root, maxBuffer: 1 << 26 });
  } catch (e) {
    console.log(`families differential: pisess ${argv.join(" ")} failed: ${String(e.stderr ?? e).slice(0, 300)}`);
    return "{}";
  }
};
const total = () => {
  const rows = run(["stats", "--all", "--json"]).split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const t = rows.find((r) => r.total);
  return t && { tokens: t.tokens.total, cost: t.cost };
};

for (const f of files) {
  const one = JSON.parse(run(["stats", "--json", f]));
  compare(`stats --json ${path.basename(f)} = getSessionStats`, statsOf(entriesOf(f).slice(1)), { tokens: one.tokens.total, cost: one.cost });
}
const naive = files.map((f) => statsOf(entriesOf(f).slice(1))).reduce((a, b) => ({ tokens: a.tokens + b.tokens, cost: a.cost + b.cost }));
const want = once(files);
if (!(naive.tokens > want.tokens)) harness("pi's copies hold no usage: the test would prove nothing");
compare("stats --all: every entry once", want, total());
for (const by of ["day", "model", "session"]) {
  const rows = run(["stats", "--all", "--by", by, "--json"]).split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const t = rows.find((r) => r.total);
  compare(`stats --all --by ${by}: every entry once`, want, t && { tokens: t.tokens.total, cost: t.cost });
}
const family = JSON.parse(run(["stats", "--json", "--forks", source])).family;
compare("stats SOURCE --forks: family once", once([source, clone, clone2, fork, fork2]), family && { tokens: family.tokens.total, cost: family.cost });
const family2 = JSON.parse(run(["stats", "--json", "--forks", fork])).family;
compare("stats FORK --forks: family once", once([fork, fork2]), family2 && { tokens: family2.tokens.total, cost: family2.cost });
// Named files: a report over them counts each entry once among them.
const named = run(["stats", "--by", "day", "--json", clone, clone2]).split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((r) => r.total);
compare("stats CLONE CLONE2: every entry once", once([clone, clone2]), named && { tokens: named.tokens.total, cost: named.cost });

// The source gone: its copies count in its forks and clones, once.
fs.rmSync(source);
const left = files.filter((f) => f !== source);
compare("stats --all, the source gone", once(left), total());

let failed = false;
for (const r of results) {
  if (!r.ok) failed = true;
  console.log(`families differential: ${r.ok ? "agree" : "DIFFER"}: ${r.what}${r.ok ? "" : `: pi ${JSON.stringify(r.want)}, pisess ${JSON.stringify(r.got)}`}`);
}
if (args.includes("--keep")) console.log(`families differential: kept in ${root}`);
else fs.rmSync(root, { recursive: true, force: true });
process.exit(failed ? 1 : 0);

function harness(why) {
  console.error(`families differential: harness error: ${why}`);
  process.exit(2);
}

/** A method of AgentSession as pi 1.6.0 ships it, bound to the helpers its module imports. */
function piMethod(name, { createUsageTotals, addUsageToTotals }) {
  const src = fs.readFileSync(path.join(dist, "core/agent-session.js"), "utf8");
  const start = src.indexOf(`\n    ${name}() {`);
  if (start < 0) harness(`${name} not found in agent-session.js`);
  const end = src.indexOf("\n    }\n", start);
  const body = src.slice(start, end + "\n    }".length).trim();
  return new Function("createUsageTotals", "addUsageToTotals", `return function ${body};`)(createUsageTotals, addUsageToTotals);
}
