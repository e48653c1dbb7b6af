// Forks and clones written by pi 1.6's own SessionManager, for pisess-store's `family::copies`
// test: which entries of a copy are its source's is then decided on files pi made.
//
//   node copies.mjs PI_DIST DIR > files.json
//
// Writes into DIR a source session (two branches; labels with entries after them; a compaction
// whose first kept entry is a label; usage, custom and model entries), then:
// - `clone`: `createBranchedSession(leaf)` of the source, with entries of its own after;
// - `clone2`: `createBranchedSession` of the clone (a chain of two);
// - `fork`: `forkFrom` of the source (every entry), with an entry of its own after.
// Prints {source, clone, clone2, fork}: the files' paths.
import path from "node:path";
import { pathToFileURL } from "node:url";

const [dist, dir] = process.argv.slice(2);
const { SessionManager } = await import(pathToFileURL(path.join(dist, "core/session-manager.js")).href);

let clock = Date.UTC(2026, 5, 1);
const at = () => (clock += 1000);
const usage = (n) => ({ input: n, output: 3, cacheRead: 1, cacheWrite: 0, totalTokens: n + 4, cost: { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0, total: 0.3 } });
const user = (text) => ({ role: "user", content: [{ type: "text", text }], timestamp: at() });
const assistant = (text, n) => ({
  role: "assistant",
  content: [{ type: "thinking", thinking: "hm", thinkingSignature: "sig" }, { type: "text", text }],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  responseId: `resp_${n}`,
  usage: usage(n),
  stopReason: "stop",
  timestamp: at(),
});

const sm = SessionManager.create("/home/dev/webshop", dir);
const first = sm.appendMessage(user("first"));
const answer = sm.appendMessage(assistant("answer", 10));
sm.appendLabelChange(answer, "good");
sm.appendMessage(user("after a label"));
const labelled = sm.appendMessage(assistant("second answer", 20));
const label = sm.appendLabelChange(labelled, "checkpoint");
sm.appendCompaction("summary", label, 1234, { readFiles: ["a.ts"] }, false, usage(5));
sm.appendModelChange("openai", "gpt-5");
sm.appendUsage("web_search", "openai", "gpt-5", usage(7), "a note");
sm.appendCustomEntry("ext", { x: 1.5, y: [1, 2.0] });
sm.appendMessage(user("third"));
const leaf = sm.appendMessage(assistant("third answer", 30));
// Another branch, not on the clone's path.
sm.branch(first);
sm.appendMessage(assistant("other branch", 40));
sm.branch(leaf);
const source = sm.getSessionFile();

const clone = sm.createBranchedSession(leaf);
sm.appendMessage(user("the clone's own"));
const cloneLeaf = sm.appendMessage(assistant("the clone's own answer", 50));
const clone2 = sm.createBranchedSession(cloneLeaf);
sm.appendMessage(user("the second clone's own"));
sm.appendMessage(assistant("the second clone's answer", 60));

const forked = SessionManager.forkFrom(source, "/home/dev/webshop", dir);
forked.appendMessage(user("the fork's own"));
forked.appendMessage(assistant("the fork's answer", 70));

process.stdout.write(JSON.stringify({ source, clone, clone2, fork: forked.getSessionFile() }));
