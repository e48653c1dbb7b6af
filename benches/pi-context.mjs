// pi's own context, for the benchmark: what pi does to answer "what goes to the model next" for
// a session file. Load the entries (`loadEntriesFromFile`, as `SessionManager.setSessionFile`),
// migrate, index as `SessionManager._buildIndex` (the header is not a node, later ids win, the
// leaf is the last entry), then `buildSessionContext`. FILE must be a copy: pi's loader appends
// a newline to a torn file. Prints only the message count.
//
//   node pi-context.mjs PI_DIST FILE
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dist, file] = process.argv.slice(2);
const sm = await import(pathToFileURL(path.join(dist, "core/session-manager.js")).href);
const entries = sm.loadEntriesFromFile(file);
sm.migrateSessionEntries(entries);
const nodes = entries.filter((e) => e.type !== "session");
const byId = new Map();
let leafId = null;
for (const e of nodes) {
  byId.set(e.id, e);
  leafId = e.id;
}
const ctx = sm.buildSessionContext(nodes, leafId, byId);
process.stdout.write(`${ctx.messages.length}\n`);
