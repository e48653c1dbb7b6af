// Two leaves branched by pi 1.6's own SessionManager, for `pisess diff`'s differential test
// (tests/it/diff.rs): the entry they part at is known, and pi's own figures of each branch are
// `getSessionStats` of its `createBranchedSession` copy.
//
//   node diff.mjs PI_DIST DIR > out.json
//
// Prints {file, fork, leafA, leafB, firstA, firstB, statsA, statsB}.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dist, dir] = process.argv.slice(2);
const { SessionManager } = await import(pathToFileURL(path.join(dist, "core/session-manager.js")).href);
const usageTotals = await import(pathToFileURL(path.join(dist, "core/usage-totals.js")).href);

/** AgentSession.getSessionStats as pi 1.6.0 ships it (as stats.mjs takes it). */
function piMethod(name, { createUsageTotals, addUsageToTotals }) {
  const src = fs.readFileSync(path.join(dist, "core/agent-session.js"), "utf8");
  const start = src.indexOf(`\n    ${name}() {`);
  if (start < 0) throw new Error(`${name} not found in agent-session.js`);
  const end = src.indexOf("\n    }\n", start);
  const body = src.slice(start, end + "\n    }".length).trim();
  return new Function("createUsageTotals", "addUsageToTotals", `return function ${body};`)(createUsageTotals, addUsageToTotals);
}
const getSessionStats = piMethod("getSessionStats", usageTotals);

let clock = Date.now();
const at = () => (clock += 1000);
const usage = (n, cost) => ({ input: n, output: 3, cacheRead: 7, cacheWrite: 2, totalTokens: n + 12, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost } });
const user = (text) => ({ role: "user", content: [{ type: "text", text }], timestamp: at() });
const call = (id, name, args) => ({ type: "toolCall", id, name, arguments: args });
const assistant = (content, n, cost) => ({
  role: "assistant",
  content,
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  usage: usage(n, cost),
  stopReason: content.some((c) => c.type === "toolCall") ? "toolUse" : "stop",
  timestamp: at(),
});
const result = (id, toolName, isError) => ({ role: "toolResult", toolCallId: id, toolName, content: [{ type: "text", text: "out" }], isError, timestamp: at() });

const sm = SessionManager.create("/home/dev/webshop", dir);
sm.appendMessage(user("fix the cart"));
sm.appendMessage(assistant([call("c1", "read", { path: "src/cart.ts" })], 10, 0.011));
sm.appendMessage(result("c1", "read", false));
const fork = sm.appendMessage(assistant([{ type: "text", text: "found it" }], 20, 0.013));
// A: an edit and a failing test run.
const firstA = sm.appendMessage(user("round each line"));
sm.appendMessage(assistant([call("a1", "edit", { path: "src/cart.ts", oldText: "x", newText: "y" }), call("a2", "bash", { command: "npx vitest run" })], 30, 0.017));
sm.appendMessage(result("a1", "edit", false));
sm.appendMessage(result("a2", "bash", true));
const leafA = sm.appendMessage(assistant([{ type: "text", text: "tests fail" }], 40, 0.019));
// B, from the fork: more calls, a compaction, more turns.
sm.branch(fork);
const firstB = sm.appendMessage(user("use integer cents"));
sm.appendMessage(assistant([call("b1", "write", { path: "src/money.ts", content: "" }), call("b2", "bash", { command: "npx vitest run" }), call("b3", "bash", { command: "npx tsc" })], 50, 0.023));
sm.appendMessage(result("b1", "write", false));
sm.appendMessage(result("b2", "bash", false));
const lastResult = sm.appendMessage(result("b3", "bash", false));
sm.appendCompaction("the work so far", lastResult, 1234, {}, false, usage(5, 0.002));
sm.appendMessage(user("and the view"));
const leafB = sm.appendMessage(assistant([{ type: "text", text: "done" }], 60, 0.029));
const file = sm.getSessionFile();

/** pi's figures of the branch ending at `leaf`: getSessionStats of its createBranchedSession copy. */
function statsOf(leaf) {
  const copy = SessionManager.open(file).createBranchedSession(leaf);
  const sessionManager = SessionManager.open(copy);
  const self = { sessionManager, sessionFile: copy, sessionId: sessionManager.getSessionId(), getContextUsage: () => undefined };
  return getSessionStats.call(self);
}

process.stdout.write(JSON.stringify({ file, fork, leafA, leafB, firstA, firstB, statsA: statsOf(leafA), statsB: statsOf(leafB) }));
