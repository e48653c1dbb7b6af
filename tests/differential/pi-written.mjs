// Part of the differential corpus written by pi 1.6.0's own SessionManager, not by our builder:
// whatever pi's writer does (JSON.stringify of lone surrogates, ids, timestamps, flushing, the
// files createBranchedSession and forkFrom make) is then in the files both sides read.
//
// Every session carries texts cut inside an emoji (lone UTF-16 surrogates, which JSON.stringify
// writes as `\ud83d`), halves of a pair in separate strings, and characters at the top of plane
// 16 (where pisess keeps its stand-ins for lone surrogates). Some sessions tie on `modified`,
// and some in the custom dir have a header cwd pi's resolvePath resolves before comparing:
// relative (`webshop`, `./webshop/`), `~/webshop`, and a Windows path, relative on Linux.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { encodeCwd } from "./corpus.mjs";

/** Texts with lone surrogates: `String.prototype.slice` cuts inside a pair as pi's truncation does. */
export const LONE = [
  "cut inside an emoji 🛒".slice(0, -1),
  "\ude00 a low half first",
  "two halves \ud83d",
  "\ude00 the other half",
  "top of plane 16: \u{10ffff} \u{10f800} \udbff",
  "mixed \ud800\ud800\udc00 and \udfff\ud800",
];

/** The header cwds of the custom dir's foreign sessions, and the `--cwd` each is listed with. */
export const FOREIGN_CWDS = ["E:\\Repos\\app", "webshop", "./webshop/", "~/webshop"];

/**
 * Writes the sessions into the "main" group of `manifest` (files, and the cwds to list). pi
 * resolves relative cwds against its process cwd, the harness's work dir, as pisess does.
 */
export async function writeWithPi(manifest, { piDist }) {
  const { SessionManager } = await import(pathToFileURL(path.join(piDist, "core/session-manager.js")).href);
  const main = manifest.groups.main;
  const T = Date.UTC(2026, 5, 1);
  let clock = 0;
  const at = () => T + 1000 * clock++;
  const usage = () => ({ input: 12, output: 3, cacheRead: 0, cacheWrite: 1, totalTokens: 16, cost: { input: 0.1, output: 0.2, cacheRead: 0, cacheWrite: 0, total: 0.3 } });
  const user = (text, timestamp = at()) => ({ role: "user", content: [{ type: "text", text }], timestamp });
  const assistant = (text, extra = [], timestamp = at()) => ({
    role: "assistant",
    content: [{ type: "text", text }, ...extra],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: usage(),
    stopReason: extra.length ? "toolUse" : "stop",
    timestamp,
  });
  const record = (file, kind, sm) => {
    // Inner leaves for `context --leaf`: a few entries of the file, by pi's own index.
    const ids = sm.getEntries().map((e) => e.id);
    const leaves = ids.filter((_, i) => i % 3 === 1);
    manifest.sessions.push({ file, group: "main", kind, v1: false, dialect: false, layout: path.dirname(file) === main.customDir ? "custom" : "default", leaves, tornLast: false });
  };
  const defaultDir = (cwd) => path.join(main.agentDir, "sessions", encodeCwd(cwd));

  // 1. Every role and entry type pi appends, with lone surrogates in every text.
  const cwd = "/home/dev/webshop";
  const sm = SessionManager.create(cwd, defaultDir(cwd));
  sm.appendModelChange("anthropic", "claude-sonnet-4-5");
  sm.appendThinkingLevelChange("high");
  const first = sm.appendMessage(user(LONE[0]));
  const reply = sm.appendMessage(
    assistant(LONE[2], [
      { type: "thinking", thinking: LONE[1] },
      { type: "toolCall", id: "call_1", name: "bash", arguments: { command: `echo ${LONE[0]}` } },
    ]),
  );
  sm.appendMessage({ role: "toolResult", toolCallId: "call_1", toolName: "bash", content: [{ type: "text", text: LONE[3] }], isError: false, timestamp: at() });
  sm.appendMessage({ role: "bashExecution", command: `ls ${LONE[0]}`, output: LONE[4], exitCode: 1, cancelled: false, truncated: false, timestamp: at() });
  sm.appendMessage({ role: "custom", customType: "note", content: LONE[5], display: true, timestamp: at() });
  sm.appendCustomMessageEntry("reminder", `custom ${LONE[0]}`, true, { why: LONE[1] });
  sm.appendCustomEntry("state", { text: LONE[2] });
  sm.appendSessionInfo(`named ${LONE[0]}`);
  sm.appendLabelChange(first, `label ${LONE[0]}`);
  sm.appendUsage("summary", "anthropic", "claude-sonnet-4-5", usage(), `note ${LONE[0]}`);
  sm.appendContextEdit(reply, { content: `edited ${LONE[0]}` });
  sm.appendContextEdit(first, { content: [{ type: "text", text: `edited ${LONE[3]}` }] });
  sm.appendCompaction(`summary ${LONE[0]}`, reply, 1234, { files: [LONE[1]] }, false, usage());
  const after = sm.appendMessage(user(`after the compaction ${LONE[2]}`));
  sm.appendMessage(assistant(LONE[3]));
  sm.branch(first);
  sm.appendMessage(assistant(`another way ${LONE[0]}`));
  sm.branchWithSummary(reply, `came back ${LONE[0]}`, { readFiles: [] }, false);
  sm.appendMessage(user(`back on track ${LONE[5]}`));
  sm.resetLeaf();
  sm.appendMessage(user(`a new root ${LONE[4]}`));
  const main1 = sm.getSessionFile();
  record(main1, "pi-written all-types", sm);

  // 2. createBranchedSession: the path to `after`, labels re-chained, as a new file.
  const branched = SessionManager.open(main1);
  const branchedFile = branched.createBranchedSession(after);
  branched.appendMessage(assistant(`on the branched file ${LONE[0]}`));
  record(branchedFile, "pi-written createBranchedSession", branched);

  // 3. forkFrom into the custom dir, for another project.
  const forked = SessionManager.forkFrom(main1, "/home/dev/pisess", main.customDir);
  forked.appendMessage(user(`forked ${LONE[2]}`));
  record(forked.getSessionFile(), "pi-written forkFrom", forked);

  // 4. Sessions that tie on `modified` (one last message time), ids differing in case and
  //    punctuation: pi orders them by file name (`localeCompare`), stably.
  const tie = at();
  for (const id of ["pi-tie-A", "pi-tie-a", "pi_tie_a", "pi.tie.a", "Pi-Tie-1", "pi-tie-10", "pi-tie-2"]) {
    for (const dir of [defaultDir("/home/dev/ties"), main.customDir]) {
      const s = SessionManager.create("/home/dev/ties", dir, { id });
      s.appendMessage(user(`tie ${id} ${LONE[0]}`, tie - 500));
      s.appendMessage(assistant(`tie ${LONE[1]}`, [], tie));
      record(s.getSessionFile(), "pi-written tie", s);
    }
  }

  // 5. Foreign and relative header cwds in the custom dir. pi writes the resolved cwd, so the
  //    header is rewritten as a file copied from another machine (or an older writer) holds it.
  for (const headerCwd of FOREIGN_CWDS) {
    const s = SessionManager.create("/home/dev/elsewhere", main.customDir);
    s.appendMessage(user(`header cwd ${headerCwd} ${LONE[0]}`));
    s.appendMessage(assistant(LONE[3]));
    const file = s.getSessionFile();
    const lines = fs.readFileSync(file, "utf8").split("\n");
    lines[0] = JSON.stringify({ ...JSON.parse(lines[0]), cwd: headerCwd });
    fs.writeFileSync(file, lines.join("\n"));
    record(file, `pi-written header cwd ${headerCwd}`, s);
  }
  main.cwds.push(...FOREIGN_CWDS.filter((c) => c !== "./webshop/"));
}
