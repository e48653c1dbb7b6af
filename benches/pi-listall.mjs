// pi's own listing, for the benchmark: `SessionManager.listAll()` over $PI_CODING_AGENT_DIR,
// exactly as pi's `/resume` (all projects) calls it. Prints only the row count: the timed work
// is pi reading and parsing every file, not printing.
//
//   PI_CODING_AGENT_DIR=DIR node pi-listall.mjs PI_DIST
import path from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const { SessionManager } = await import(pathToFileURL(path.join(dist, "core/session-manager.js")).href);
const sessions = await SessionManager.listAll();
process.stdout.write(`${sessions.length}\n`);
