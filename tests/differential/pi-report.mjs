// What pi 1.6.0 itself reports for the corpus, computed with pi's own exported functions.
//
// Usable as a module (piReport) or standalone: `node pi-report.mjs MANIFEST.json PI_DIST > out.json`.
// Context is always computed on a copy: pi's loader appends a newline to a torn file and
// SessionManager rewrites migrated (v1/v2) files.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** pi's list row reduced to the fields pisess promises; undefined and invalid dates become null. */
function row(info) {
  const date = (d) => (d instanceof Date && !Number.isNaN(d.getTime()) ? d.toJSON() : null);
  return {
    id: info.id ?? null,
    path: info.path,
    cwd: info.cwd ?? null,
    name: info.name ?? null,
    parentSession: info.parentSessionPath ?? null,
    created: date(info.created),
    modified: date(info.modified),
    messageCount: info.messageCount,
    firstMessage: info.firstMessage,
  };
}

const json = (x) => JSON.parse(JSON.stringify(x ?? null));
/** JSON with sorted keys, for order-insensitive equality. */
const canonical = (x) => JSON.stringify(x, (_k, v) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));

export async function piReport(manifest, { piDist, scratch }) {
  const sm = await import(pathToFileURL(path.join(piDist, "core/session-manager.js")).href);
  const { convertToLlm } = await import(pathToFileURL(path.join(piDist, "core/messages.js")).href);
  const { getAgentDir } = await import(pathToFileURL(path.join(piDist, "config.js")).href);
  const { SessionManager } = sm;
  fs.mkdirSync(scratch, { recursive: true });
  const report = { listings: [], contexts: [], paths: [], stats: [], harnessErrors: [] };
  const getSessionStats = await piSessionStats(piDist, report);

  // ---- ls: listAll() for the default root, listAll(dir) for the custom dir, list(cwd[, dir]).
  for (const [group, g] of Object.entries(manifest.groups)) {
    process.env.PI_CODING_AGENT_DIR = g.agentDir;
    const env = { PI_CODING_AGENT_DIR: g.agentDir };
    const add = async (name, args, infos) => {
      const rows = (await infos).map(row);
      // Rows that share a `modified` value are in pi's tie order (file names by
      // `b.localeCompare(a)`), which the row-by-row comparison checks too.
      report.listings.push({ group, name, args, env, rows });
    };
    await add("all-default", ["ls", "--all", "--json"], SessionManager.listAll());
    await add("all-custom", ["ls", "--all", "--json", "--session-dir", g.customDir], SessionManager.listAll(g.customDir));
    for (const cwd of g.cwds) {
      await add(`cwd-default ${cwd}`, ["ls", "--json", "--cwd", cwd], SessionManager.list(cwd));
      await add(`cwd-custom ${cwd}`, ["ls", "--json", "--cwd", cwd, "--session-dir", g.customDir], SessionManager.list(cwd, g.customDir));
    }
    for (const [cwd, dir] of g.extraLists ?? []) {
      await add(`cwd-dir ${cwd} ${dir}`, ["ls", "--json", "--cwd", cwd, "--session-dir", dir], SessionManager.list(cwd, dir));
    }
  }

  // ---- path: the default session dir for a cwd (getDefaultSessionDir creates it; harmless here).
  for (const { group, cwd, agentDirEnv } of manifest.pathCases) {
    process.env.PI_CODING_AGENT_DIR = agentDirEnv;
    let expected;
    try {
      expected = sm.getDefaultSessionDir(cwd, getAgentDir());
    } catch (e) {
      expected = { error: String(e) };
    }
    report.paths.push({ group, cwd, env: { PI_CODING_AGENT_DIR: agentDirEnv }, expected });
  }

  // ---- context: pi's loader + migration, then buildSessionContext for the default and inner leaves.
  let n = 0;
  for (const s of manifest.sessions) {
    if (s.dialect) continue;
    const copy = path.join(scratch, `${n++}.jsonl`);
    fs.copyFileSync(s.file, copy);
    const entries = sm.loadEntriesFromFile(copy);
    if (entries.length === 0) {
      report.contexts.push({ file: s.file, group: s.group, loadable: false });
      continue;
    }
    sm.migrateSessionEntries(entries);
    // As SessionManager._buildIndex: the header is not a node; later ids overwrite earlier ones;
    // the leaf is the last entry, whatever its type.
    const es = entries.filter((e) => e.type !== "session");
    const byId = new Map();
    let leafId = null;
    for (const e of es) {
      byId.set(e.id, e);
      leafId = e.id;
    }
    // pi's /session figures (check and ls report them): its own method, over the loaded entries.
    if (getSessionStats) {
      try {
        const st = getSessionStats.call({ sessionManager: { getEntries: () => es }, getContextUsage: () => undefined });
        const { userMessages, assistantMessages, toolCalls, toolResults } = st;
        report.stats.push({ file: s.file, group: s.group, stats: json({ userMessages, assistantMessages, toolCalls, toolResults, totalTokens: st.tokens.total, cost: st.cost }) });
      } catch (e) {
        // A message entry without a message, say: pi's /session throws, pisess counts on.
        report.stats.push({ file: s.file, group: s.group, piError: String(e) });
      }
    }
    const leaves = [{ arg: null, id: leafId, index: es.length || null }];
    for (const l of s.leaves) {
      if (s.v1) leaves.push({ arg: l, id: es[l - 1]?.id, index: l });
      else leaves.push({ arg: l, id: l, index: es.findIndex((e) => e.id === l) + 1 });
    }
    const results = [];
    for (const leaf of leaves) {
      try {
        const ctx = sm.buildSessionContext(es, leaf.id, byId);
        results.push({
          leafArg: leaf.arg,
          leafIndex: leaf.index,
          pi: json({ leafId: leaf.id ?? null, thinkingLevel: ctx.thinkingLevel, model: ctx.model, messages: ctx.messages }),
          llm: json(convertToLlm(ctx.messages)),
        });
      } catch (e) {
        results.push({ leafArg: leaf.arg, leafIndex: leaf.index, piError: String(e) });
      }
    }
    // Cross-check the reconstruction above against SessionManager itself for the default leaf.
    try {
      const copy2 = path.join(scratch, `${n++}.jsonl`);
      fs.copyFileSync(s.file, copy2);
      const viaManager = SessionManager.open(copy2).buildSessionContext();
      const { leafId: _, ...mine } = results[0].pi ?? {};
      if (results[0].pi && canonical(viaManager) !== canonical(mine)) {
        report.harnessErrors.push(`${s.file}: free-function context differs from SessionManager.open()`);
      }
    } catch {
      // SessionManager throws where buildSessionContext throws; already recorded as piError.
    }
    report.contexts.push({ file: s.file, group: s.group, v1: s.v1, kind: s.kind, loadable: true, results });
  }
  return report;
}

/**
 * `AgentSession.prototype.getSessionStats`, pi's `/session` figures, taken from pi's own source:
 * agent-session.js itself cannot be imported on every Node pisess is tested with (its HTTP
 * dependencies need Node 22), and the method uses only `this.sessionManager.getEntries()` and
 * the two usage-totals helpers.
 */
async function piSessionStats(piDist, report) {
  const source = fs.readFileSync(path.join(piDist, "core/agent-session.js"), "utf8");
  const method = source.match(/\n(\s*)getSessionStats\(\) \{\n[\s\S]*?\n\1\}\n/);
  if (!method) {
    report.harnessErrors.push("getSessionStats not found in agent-session.js");
    return null;
  }
  const { createUsageTotals, addUsageToTotals } = await import(pathToFileURL(path.join(piDist, "core/usage-totals.js")).href);
  return new Function("createUsageTotals", "addUsageToTotals", `return function ${method[0].trim()}`)(createUsageTotals, addUsageToTotals);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [manifestFile, piDist] = process.argv.slice(2);
  const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8"));
  const out = await piReport(manifest, { piDist, scratch: path.join(manifest.root, "scratch-cli") });
  process.stdout.write(JSON.stringify(out));
}
