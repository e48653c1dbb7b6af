// Deterministic corpus of pi session files for the differential test.
//
// Everything comes from one seeded PRNG, so a failure can be reproduced by seed. The corpus has
// two groups: "main" (what SPEC.md covers) and "edge" (pi quirks the SPEC is silent about; the
// harness reports them but by default does not fail on them). Each group has a default layout
// (<agent>/sessions/--<cwd>--/*.jsonl) and a flat custom session dir.
//
// Every session gets its own two-hour window of time, so `modified` (the newest user/assistant
// message, else the header time) is distinct across the corpus: pi breaks ties with
// localeCompare on file names, which pisess does not replicate.

import fs from "node:fs";
import path from "node:path";

export const CWDS = [
  "/home/dev/webshop",
  "/home/dev/pisess",
  "/home/jürgen/プロジェクト",
  "/srv/app with space",
  "/Users/x/app",
  "/tmp/a:b",
  "/",
];

export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Rng {
  constructor(seed) {
    this.next = mulberry32(seed);
  }
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p) {
    return this.next() < p;
  }
  pick(xs) {
    return xs[Math.floor(this.next() * xs.length)];
  }
  weighted(table) {
    const total = Object.values(table).reduce((a, b) => a + b, 0);
    let r = this.next() * total;
    for (const [k, w] of Object.entries(table)) {
      r -= w;
      if (r < 0) return k;
    }
    return Object.keys(table).at(-1);
  }
  hex(n) {
    let s = "";
    for (let i = 0; i < n; i++) s += Math.floor(this.next() * 16).toString(16);
    return s;
  }
  shuffle(xs) {
    const a = [...xs];
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  }
}

export function encodeCwd(cwd) {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

function uuid7(rng, ms) {
  const x = ms.toString(16).padStart(12, "0") + "7" + rng.hex(3) + rng.pick(["8", "9", "a", "b"]) + rng.hex(15);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

// ------------------------------------------------------------------------------------------------
// Content pools: short, webshop-flavoured, with non-ASCII and awkward whitespace mixed in.

const PROMPTS = [
  "Run the tests and fix whatever fails.",
  "Why is the cart total off by one cent?",
  "Add a discount-code field to the checkout.",
  "Read src/cart.ts and explain cartTotal.",
  "Übersetze die Fehlermeldungen ins Japanische: 在庫切れ",
  "  leading spaces and a trailing newline\n",
  "multi\nline\nprompt with a tab\there",
  "emoji 🛒🧾 and combining e\u0301 characters",
  "What does `npm run dev` do?",
  "Make the product grid responsive below 480px.",
  "Use integer cents for prices.",
  "Commit with a sensible message.",
];
const REPLIES = [
  "The total sums floats and rounds once; 3 × 3.355 becomes 10.064999…",
  "All 12 tests pass.",
  "I'll read the file first.",
  "Done. The grid has two columns below 480px.",
  "Fertig: „在庫切れです“ steht jetzt in locales/ja.json.",
  "",
  "Here is the diff:\n```diff\n- a\n+ b\n```",
];
const THOUGHTS = ["Probably floating point.", "Check the router before adding a route.", "The user wants the smallest change."];
const TOOLS = {
  read: () => ({ path: "src/cart.ts" }),
  bash: () => ({ command: "npx vitest run" }),
  edit: () => ({ path: "src/cart.ts", oldText: "price", newText: "priceCents" }),
  write: () => ({ path: "locales/ja.json", content: "{\"outOfStock\":\"在庫切れです\"}\n" }),
};
const TOOL_OUTPUT = [
  " ✓ test/cart.test.ts (5 tests) 4ms\n Test Files  1 passed (1)",
  "export function cartTotal(cart: Cart): number {\n  return cart.reduce((s, i) => s + i.price * i.qty, 0);\n}",
  "Successfully replaced text in src/cart.ts.",
  "npm ERR! missing script: biuld",
  "",
];
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEUlEQVR4nGNgYGD4z8DAwMAAABAAAf8K9gEAAAAASUVORK5CYII=";
const MODELS = [
  ["anthropic", "claude-sonnet-4-5", "anthropic-messages"],
  ["anthropic", "claude-opus-4-5", "anthropic-messages"],
  ["openai", "gpt-5.1-codex", "openai-responses"],
  ["google", "gemini-2.5-pro", "google-generative-ai"],
];
const TOOL_DECLS = [
  { name: "read", description: "Read a file.", parameters: { type: "object", properties: { path: { type: "string" } } } },
  { name: "bash", description: "Run a command.", parameters: { type: "object", properties: { command: { type: "string" } } } },
];

function usage(rng) {
  const input = rng.int(0, 5000);
  const output = rng.int(0, 800);
  const cacheRead = rng.chance(0.5) ? rng.int(0, 9000) : 0;
  const cacheWrite = rng.chance(0.3) ? rng.int(0, 3000) : 0;
  const cost = {
    input: (input * 3) / 1e6,
    output: (output * 15) / 1e6,
    cacheRead: (cacheRead * 0.3) / 1e6,
    cacheWrite: (cacheWrite * 3.75) / 1e6,
  };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}

// ------------------------------------------------------------------------------------------------

/** Writes one session the way pi appends: each entry is a child of the current leaf. */
export class SessionBuilder {
  constructor(rng, { version = 3, cwd, start, id, header = {} } = {}) {
    this.rng = rng;
    this.version = version;
    this.t = start;
    this.created = start;
    this.id = id ?? uuid7(rng, start);
    this.leaf = null;
    this.lines = [];
    this.entries = []; // {id, parentId, type, role, index, line}; index = position among parsed lines (header = 0)
    this.ids = new Set();
    this.parsed = 1;
    this.model = MODELS[0];
    this.tornLast = false;
    const h = { type: "session" };
    if (version !== 1 || header.version !== undefined) h.version = version;
    Object.assign(h, { id: this.id, timestamp: new Date(start).toISOString(), cwd }, header);
    this.lines.push(JSON.stringify(h));
  }

  get filename() {
    return `${new Date(this.created).toISOString().replace(/[:.]/g, "-")}_${this.id}.jsonl`;
  }

  newId() {
    for (;;) {
      const id = this.rng.hex(8);
      if (!this.ids.has(id)) return id;
    }
  }

  tick(maxMs = 20000) {
    this.t += this.rng.int(300, maxMs);
    return this.t;
  }

  /** Append an entry; opts.parent overrides the leaf, opts.id presets the id. */
  add(type, fields = {}, opts = {}) {
    const ms = opts.time ?? this.tick();
    const e = { type };
    let id;
    if (this.version !== 1) {
      id = opts.id ?? this.newId();
      this.ids.add(id);
      e.id = id;
      e.parentId = opts.parent === undefined ? this.leaf : opts.parent;
    }
    e.timestamp = opts.timestamp ?? new Date(ms).toISOString();
    Object.assign(e, fields);
    this.lines.push(JSON.stringify(e));
    this.entries.push({
      id,
      parentId: e.parentId,
      type,
      role: e.message?.role,
      index: this.parsed++,
      line: this.lines.length - 1,
    });
    if (this.version !== 1) this.leaf = id;
    return id ?? this.parsed - 1;
  }

  /** A message entry; its Unix-ms timestamp is a little before the entry's ISO one. */
  message(msg, { lag = 0, omitTimestamp = false } = {}) {
    const ms = this.tick();
    if (!omitTimestamp && msg.timestamp === undefined) msg.timestamp = ms - lag;
    return this.add("message", { message: msg }, { time: ms });
  }

  user(content, opts) {
    return this.message({ role: "user", content }, { lag: 3, ...opts });
  }

  assistant(content, extra = {}) {
    const [provider, model, api] = this.model;
    const stopReason = content?.some((b) => b.type === "toolCall") ? "toolUse" : "stop";
    return this.message(
      { role: "assistant", content, api, provider, model, usage: usage(this.rng), stopReason, ...extra },
      { lag: this.rng.int(50, 4000) },
    );
  }

  toolResult(call, content, extra = {}) {
    return this.message(
      { role: "toolResult", toolCallId: call.id, toolName: call.name, content, isError: false, ...extra },
      { lag: 5 },
    );
  }

  raw(line, { parsed = false } = {}) {
    this.lines.push(line);
    if (parsed) this.parsed++;
  }

  /** Serialise. crlf: CRLF line ends; torn: "cut" truncates the last line, "nonl" drops only its newline. */
  text({ crlf = false, torn = null } = {}) {
    const lines = [...this.lines];
    if (torn === "cut") {
      const last = lines.at(-1);
      lines[lines.length - 1] = last.slice(0, this.rng.int(1, last.length - 2));
      const lastEntry = this.entries.at(-1);
      if (lastEntry && lastEntry.line === lines.length - 1) {
        this.entries.pop();
        this.tornLast = true;
      }
    }
    const nl = crlf ? "\r\n" : "\n";
    return lines.join(nl) + (torn ? "" : nl);
  }

  pathTo(id) {
    const byId = new Map(this.entries.map((e) => [e.id, e]));
    const out = [];
    for (let cur = byId.get(id); cur; cur = cur.parentId ? byId.get(cur.parentId) : undefined) out.push(cur);
    return out.reverse();
  }

  /** Up to n inner leaves worth testing: before edits, abandoned branches, around compactions. */
  pickLeaves(n = 5) {
    const rng = this.rng;
    const es = this.entries;
    if (es.length < 2) return [];
    const last = es.at(-1);
    if (this.version === 1) {
      const idx = es.slice(0, -1).map((e) => e.index);
      const near = es.filter((e) => e.type === "compaction").flatMap((e) => [e.index - 1, e.index]);
      return [...new Set([...near, ...rng.shuffle(idx)])].filter((i) => i >= 1 && i < last.index).slice(0, n);
    }
    const hasChild = new Set(es.map((e) => e.parentId));
    const byId = new Map(es.map((e) => [e.id, e]));
    const prefer = [];
    for (const e of es) {
      if (e.type === "context_edit" && e.parentId) prefer.push(e.parentId);
      if (e.type === "compaction") prefer.push(e.id, e.parentId);
      if (!hasChild.has(e.id) && e !== last) prefer.push(e.id); // abandoned branch tips
    }
    const rest = rng.shuffle(es.map((e) => e.id));
    const picks = [];
    for (const id of [...rng.shuffle(prefer), ...rest]) {
      if (picks.length >= n) break;
      if (id && id !== last.id && byId.has(id) && !picks.includes(id)) picks.push(id);
    }
    return picks;
  }
}

// ------------------------------------------------------------------------------------------------
// The random walk: a session is a sequence of actions weighted by a profile.

function userContent(rng) {
  const text = rng.pick(PROMPTS);
  switch (rng.int(0, 5)) {
    case 0:
      return [{ type: "text", text }];
    case 1:
      return [
        { type: "text", text },
        { type: "image", data: PNG, mimeType: "image/png" },
      ];
    case 2:
      return [
        { type: "text", text: "first part" },
        { type: "text", text },
      ];
    default:
      return text;
  }
}

function toolCall(rng) {
  const name = rng.pick(Object.keys(TOOLS));
  return { type: "toolCall", id: `toolu_${rng.hex(20)}`, name, arguments: TOOLS[name]() };
}

function turn(b, rng) {
  b.user(userContent(rng), { omitTimestamp: rng.chance(0.05) });
  for (let round = rng.int(0, 3); round > 0; round--) {
    const calls = Array.from({ length: rng.int(1, 2) }, () => toolCall(rng));
    const blocks = [];
    if (rng.chance(0.4)) blocks.push({ type: "thinking", thinking: rng.pick(THOUGHTS), thinkingSignature: rng.hex(16) });
    if (rng.chance(0.5)) blocks.push({ type: "text", text: rng.pick(REPLIES) });
    b.assistant([...blocks, ...calls], rng.chance(0.2) ? { thinkingLevel: "medium" } : {});
    for (const c of calls) {
      const content = rng.chance(0.15)
        ? [
            { type: "text", text: "Read image file [image/png]" },
            { type: "image", data: PNG, mimeType: "image/png" },
          ]
        : [{ type: "text", text: rng.pick(TOOL_OUTPUT) }];
      const extra = {};
      if (rng.chance(0.2)) extra.isError = true;
      if (rng.chance(0.2)) extra.details = { diff: "-a\n+b" };
      if (rng.chance(0.1)) extra.usage = usage(rng);
      if (rng.chance(0.03)) extra.content = null;
      b.toolResult(c, content, extra);
    }
  }
  const last = rng.weighted({ stop: 10, error: 1, aborted: 1, length: 1 });
  const extra = { stopReason: last };
  if (last === "error") extra.errorMessage = "overloaded_error: Overloaded";
  b.assistant([{ type: "text", text: rng.pick(REPLIES) }], extra);
}

function systemMessage(rng, ms) {
  const m = { role: "system", content: rng.pick(["", "You are a coding assistant.", ""]) };
  if (rng.chance(0.8)) m.sections = { preamble: "You are an expert coding assistant.", cwd: "Current working directory: /x" };
  if (rng.chance(0.6)) m.toolsAdded = TOOL_DECLS;
  if (rng.chance(0.2)) m.toolsRemoved = [{ name: "write" }];
  if (rng.chance(0.05)) m.content = null;
  m.timestamp = ms;
  return m;
}

function replacement(rng) {
  switch (rng.int(0, 4)) {
    case 0:
      return null;
    case 1:
      return { content: "REDACTED" };
    case 2:
      return { content: [{ type: "text", text: "[edited]" }] };
    case 3:
      return { content: [{ type: "text", text: "a" }, { type: "image", data: PNG, mimeType: "image/png" }] };
    default:
      return { content: "" };
  }
}

const ACTIONS = {
  turn(b, rng) {
    turn(b, rng);
  },
  model(b, rng) {
    b.model = rng.pick(MODELS);
    b.add("model_change", { provider: b.model[0], modelId: b.model[1] });
  },
  thinking(b, rng) {
    b.add("thinking_level_change", { thinkingLevel: rng.pick(["off", "minimal", "low", "medium", "high", "xhigh"]) });
  },
  usage(b, rng) {
    b.add("usage", { kind: rng.pick(["cache_warm", "title", "weird-kind"]), provider: "anthropic", model: "claude-sonnet-4-5", usage: usage(rng) });
  },
  custom(b, rng) {
    const fields = { customType: rng.pick(["todo", "pi.virtual-model-state"]) };
    if (rng.chance(0.8)) fields.data = { n: rng.int(0, 9) };
    b.add("custom", fields);
  },
  customMessage(b, rng) {
    const content = rng.chance(0.5) ? "Reminder: 4px grid." : [{ type: "text", text: "injected" }, { type: "image", data: PNG, mimeType: "image/png" }];
    const fields = { customType: "design-notes", content, display: rng.chance(0.7) };
    if (rng.chance(0.5)) fields.details = { source: "docs/design.md" };
    b.add("custom_message", fields);
  },
  customRole(b, rng) {
    // A message entry with role custom (what v3 migrated hookMessages become).
    b.message({ role: "custom", customType: "git-status", content: rng.chance(0.5) ? "clean" : [{ type: "text", text: "2 files changed" }], display: true });
  },
  label(b, rng) {
    if (!b.entries.length) return;
    const target = rng.pick(b.entries).id;
    const fields = { targetId: target };
    if (rng.chance(0.7)) fields.label = rng.pick(["checkpoint", "spec", "bug", ""]);
    b.add("label", fields);
  },
  sessionInfo(b, rng) {
    const name = rng.pick(["Checkout: discount codes", "  padded name  ", "", "   ", "Übersetzungen 🇯🇵", "multi\nline", undefined]);
    b.add("session_info", name === undefined ? {} : { name });
  },
  bash(b, rng) {
    const m = { role: "bashExecution", command: rng.pick(["npm run build", "git status --short", "ls"]), output: rng.pick(["ok\n", "", "line1\nline2"]) };
    m.exitCode = rng.pick([0, 0, 1, 127, null, undefined]);
    m.cancelled = rng.chance(0.1);
    m.truncated = rng.chance(0.2);
    if (m.truncated && rng.chance(0.7)) m.fullOutputPath = "/tmp/pi-bash-1234.log";
    if (rng.chance(0.3)) m.excludeFromContext = true;
    b.message(m, { lag: 1500 });
  },
  system(b, rng) {
    b.message(systemMessage(rng, 0), { lag: 0 });
  },
  compaction(b, rng) {
    const onPath = b.pathTo(b.leaf);
    if (!onPath.length) return;
    const id = b.newId();
    const kind = rng.weighted({ mid: 6, self: 2, missing: 1, offpath: 1, beforeOlder: 2 });
    let firstKept;
    if (kind === "mid") firstKept = rng.pick(onPath).id;
    else if (kind === "self") firstKept = id;
    else if (kind === "missing") firstKept = rng.hex(8);
    else if (kind === "offpath") {
      const on = new Set(onPath.map((e) => e.id));
      firstKept = b.entries.find((e) => !on.has(e.id))?.id ?? id;
    } else {
      const olderIdx = onPath.findLastIndex((e) => e.type === "compaction");
      firstKept = olderIdx > 0 ? onPath[rng.int(0, olderIdx - 1)].id : onPath[0].id;
    }
    const ms = b.tick();
    const fields = { summary: rng.pick(["## Goal\nOrder history.\n## Done\n- route", "Short summary.", "Zusammenfassung: 完了"]), firstKeptEntryId: firstKept, tokensBefore: rng.int(1000, 180000) };
    if (rng.chance(0.4)) fields.systemMessage = systemMessage(rng, ms);
    if (rng.chance(0.5)) fields.usage = usage(rng);
    if (rng.chance(0.3)) fields.details = { readFiles: ["src/cart.ts"], modifiedFiles: [] };
    if (rng.chance(0.2)) fields.fromHook = rng.chance(0.5);
    b.add("compaction", fields, { id, time: ms });
  },
  edit(b, rng) {
    if (!b.entries.length) return;
    const onPath = new Set(b.pathTo(b.leaf).map((e) => e.id));
    const editable = b.entries.filter((e) => onPath.has(e.id) && e.type !== "context_edit");
    const pool = rng.chance(0.8) && editable.length ? editable : b.entries;
    const target = rng.pick(pool);
    const n = rng.chance(0.2) ? 2 : 1; // several edits on one target: the last selected one wins
    for (let i = 0; i < n; i++) b.add("context_edit", { targetId: target.id, replacement: replacement(rng) });
  },
  branch(b, rng) {
    if (b.entries.length < 2) return;
    const from = b.leaf;
    b.leaf = rng.pick(b.entries.slice(0, -1)).id;
    if (rng.chance(0.6)) {
      const fields = { fromId: from, summary: rng.pick(["Tried line rounding; tests still failed.", "", "Explored GraphQL; dropped it."]) };
      if (rng.chance(0.3)) fields.usage = usage(rng);
      if (rng.chance(0.3)) fields.details = { readFiles: [], modifiedFiles: ["src/cart.ts"] };
      if (rng.chance(0.2)) fields.fromHook = true;
      b.add("branch_summary", fields);
    }
  },
  root(b) {
    b.leaf = null;
  },
  orphan(b) {
    b.leaf = b.newId(); // the next entry's parent does not exist (reserved so no entry takes it)
    b.ids.add(b.leaf);
  },
  unknownType(b) {
    b.add("checkpoint_v9", { note: "an entry type from the future" });
  },
  damage(b, rng) {
    b.raw(rng.pick(['{"type":"message","id":"deadbeef","parentId":', "", "   ", "not json at all", '{"type":']));
  },
};

const PROFILES = {
  linear: { turn: 10, model: 1, thinking: 1, sessionInfo: 1 },
  rich: { turn: 8, model: 1, thinking: 1, usage: 1, custom: 1, customMessage: 1, customRole: 0.5, label: 1, sessionInfo: 1, bash: 1.5, system: 0.7, unknownType: 0.2 },
  branched: { turn: 8, branch: 3, label: 1, edit: 1, sessionInfo: 0.5 },
  compacted: { turn: 6, compaction: 3, system: 1, edit: 1, bash: 1, customMessage: 0.5, branch: 0.7 },
  edits: { turn: 6, edit: 4, customMessage: 1, bash: 1, system: 0.5, compaction: 1, branch: 1, customRole: 0.5 },
  roots: { turn: 6, root: 1.5, orphan: 1.5, branch: 1, edit: 0.5 },
  everything: Object.fromEntries(Object.keys(ACTIONS).filter((k) => k !== "damage").map((k) => [k, k === "turn" ? 6 : 1])),
};

function randomWalk(b, rng, profile, steps) {
  // Real sessions open with the model and thinking level settings.
  if (rng.chance(0.7)) ACTIONS.model(b, rng);
  if (rng.chance(0.5)) ACTIONS.thinking(b, rng);
  if (rng.chance(0.3)) ACTIONS.system(b, rng);
  for (let i = 0; i < steps; i++) ACTIONS[rng.weighted(profile)](b, rng);
}

/** A v1 file: linear, no ids; compactions point at the kept entry by index (header = 0). */
function v1Walk(b, rng, steps) {
  if (rng.chance(0.5)) ACTIONS.model(b, rng);
  for (let i = 0; i < steps; i++) {
    const a = rng.weighted({ turn: 8, thinking: 1, model: 1, compaction: 2, bash: 1, damage: 0.5, hook: 0.3 });
    if (a === "compaction") {
      const idx = b.entries.length ? rng.pick(b.entries).index : 0;
      const fields = { summary: "Earlier work, summarised.", tokensBefore: rng.int(1000, 90000) };
      // Mostly a real earlier index; sometimes the header (0) or past the end, which pi ignores.
      fields.firstKeptEntryIndex = rng.weighted({ real: 8, header: 1, beyond: 1 }) === "real" ? idx : rng.chance(0.5) ? 0 : b.parsed + 50;
      b.add("compaction", fields);
    } else if (a === "damage") ACTIONS.damage(b, rng);
    else if (a === "hook") b.message({ role: "hookMessage", customType: "hook", content: "from a hook", display: false });
    else ACTIONS[a](b, rng);
  }
}

// ------------------------------------------------------------------------------------------------
// Edge cases: one small hand-made session each, for behaviours outside the SPEC.

const EDGE_CASES = {
  userContentNull(b) {
    b.user("hello");
    b.user(null);
    b.assistant([{ type: "text", text: "hi" }]);
  },
  assistantContentNull(b) {
    b.user("hello");
    b.assistant(null);
  },
  nameNotString(b) {
    b.user("hello");
    b.add("session_info", { name: 42 });
  },
  headerWithoutTimestamp: { header: { timestamp: undefined }, build(b) { b.user("no header time"); b.assistant([{ type: "text", text: "ok" }]); } },
  headerNoTimeNoMessages: { header: { timestamp: undefined }, mtime: true, build(b) { b.add("model_change", { provider: "anthropic", modelId: "x" }); } },
  headerTimeNumber: { header: { timestamp: 1747000000000 }, build(b) { b.user("numeric header timestamp"); } },
  zeroMessageTimestamps(b) {
    b.message({ role: "user", content: "at epoch", timestamp: 0 });
    b.message({ role: "assistant", content: [{ type: "text", text: "ok" }], api: "x", provider: "p", model: "m", usage: usage(b.rng), stopReason: "stop", timestamp: 0 });
  },
  duplicateIds(b) {
    // The second "a" is a new root (a child would close a cycle, which hangs pi's path walk).
    const a = b.user("first");
    b.assistant([{ type: "text", text: "one" }]);
    b.add("message", { message: { role: "user", content: "dup id", timestamp: b.t } }, { id: a, parent: null });
    b.assistant([{ type: "text", text: "two" }]);
  },
  unknownRole(b) {
    b.user("hi");
    b.message({ role: "note", content: "a role from the future" });
    b.assistant([{ type: "text", text: "ok" }]);
  },
  compactionNoTokens(b) {
    b.user("hi");
    b.assistant([{ type: "text", text: "ok" }]);
    const id = b.newId();
    b.add("compaction", { summary: "s", firstKeptEntryId: id }, { id });
    b.user("after");
  },
  customMessageNoContent(b) {
    b.user("hi");
    b.add("custom_message", { customType: "x", display: true });
  },
  entriesWithoutIds(b) {
    b.user("hi");
    b.raw(JSON.stringify({ type: "message", timestamp: new Date(b.tick()).toISOString(), message: { role: "user", content: "no id", timestamp: b.t } }), { parsed: true });
  },
  textBlockWithoutText(b) {
    b.user([{ type: "text" }, { type: "text", text: "second block" }]);
  },
  assistantWithoutModel(b) {
    b.user("hi");
    b.message({ role: "assistant", content: [{ type: "text", text: "who am I" }], stopReason: "stop", usage: usage(b.rng) });
  },
  invalidEntryTimestamp(b) {
    b.user("hi");
    b.add("custom_message", { customType: "x", content: "bad time", display: true }, { timestamp: "yesterday" });
  },
  v3HookMessage(b) {
    // Not migrated (already v3), so the role stays hookMessage; convertToLlm drops unknown roles.
    b.message({ role: "hookMessage", customType: "h", content: "hook text", display: true });
    b.user("after the hook");
  },
  messageWithoutMessage(b) {
    b.user("hi");
    b.add("message", {});
  },
  bom: { bom: true, build(b) { b.user("file starts with a BOM"); } },
  headerWithoutId: { header: { id: undefined }, build(b) { b.user("header has no id"); } },
  // issue 42: usage counts pi adds as JavaScript does (`totals.x += usage.x`): `true` is 1,
  // `null` 0, and a string, array or object makes the total a string.
  usageBoolean(b) {
    b.user("hi");
    b.assistant([{ type: "text", text: "one" }], { usage: { input: true, output: 7, cacheRead: null, cacheWrite: false, totalTokens: 8, cost: { total: true } } });
    b.assistant([{ type: "text", text: "two" }]);
  },
  usageString(b) {
    b.user("hi");
    b.assistant([{ type: "text", text: "one" }]);
    b.assistant([{ type: "text", text: "two" }], { usage: { input: "5", output: 7, cacheRead: 0, cacheWrite: 0, totalTokens: 12, cost: { total: "0.5" } } });
    b.assistant([{ type: "text", text: "three" }]);
  },
  usageArrayAndObject(b) {
    b.user("hi");
    b.assistant([{ type: "text", text: "one" }], { usage: { input: [3], output: {}, cacheRead: 1, cacheWrite: 2, totalTokens: 3, cost: { total: [0.25] } } });
    b.assistant([{ type: "text", text: "two" }]);
  },
  // issue 42: pi compares the header's version as JavaScript does (`version >= 3`, `< 2`, `< 3`
  // on the parsed value), so each of these is the version written after it, never 1.
  versionFloat: { rawVersion: "3.0", build: callOnAbandonedBranch }, // 3
  versionExponent: { rawVersion: "3e0", build: callOnAbandonedBranch }, // 3
  versionString: { rawVersion: '"3"', build: callOnAbandonedBranch }, // 3
  versionArray: { rawVersion: "[3]", build: callOnAbandonedBranch }, // 3
  versionHalf: { rawVersion: "2.5", build: hookOnBranch }, // 2: hookMessage becomes custom
  versionNotANumber: { rawVersion: '"v3"', build: hookOnBranch }, // NaN: nothing migrated
  versionObject: { rawVersion: "{}", build: hookOnBranch }, // NaN
  versionTrue: { rawVersion: "true", version: 1, v1: true, build: v1Compaction }, // 1
  // A v1 compaction's index written `2.0`: JSON.parse reads 2, `entries[2]` is kept.
  v1FirstKeptFloat: { version: 1, v1: true, build: v1Compaction, rewrite: (t) => t.replace('"firstKeptEntryIndex":2,', '"firstKeptEntryIndex":2.0,') },
};

/** A tool call on a branch left behind: the active branch has none. */
function callOnAbandonedBranch(b) {
  const root = b.user("list the files");
  b.assistant([{ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "ls" } }]);
  b.leaf = root;
  b.assistant([{ type: "text", text: "answered without a tool" }]);
}

/** A v2 `hookMessage` on a branch. */
function hookOnBranch(b) {
  const root = b.user("hello");
  b.message({ role: "hookMessage", customType: "git-status", content: "clean", display: true });
  b.assistant([{ type: "text", text: "abandoned" }]);
  b.leaf = root;
  b.assistant([{ type: "text", text: "active" }]);
}

/** A v1 file with a compaction that keeps from the second parsed line after the header. */
function v1Compaction(b) {
  b.user("one");
  b.assistant([{ type: "text", text: "two" }]);
  b.user("three");
  b.add("compaction", { summary: "Earlier work.", firstKeptEntryIndex: 2, tokensBefore: 1200 });
  b.user("after");
}

// ------------------------------------------------------------------------------------------------

function write(file, text, mtimeMs) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  const t = new Date(mtimeMs);
  fs.utimesSync(file, t, t);
}

/**
 * Write the corpus under `root` and return its manifest:
 * { groups: { main: {agentDir, customDir, cwds}, edge: {...} }, sessions: [...], listings: [...] }.
 */
export function generateCorpus(root, { seed = 1, count = 420 } = {}) {
  const rng = new Rng(seed);
  const base = Date.UTC(2025, 0, 1);
  let slot = 0;
  const nextStart = () => base + slot++ * 2 * 3600_000 + rng.int(0, 999);
  const sessions = [];
  const groups = {};
  for (const g of ["main", "edge"]) {
    groups[g] = { agentDir: path.join(root, g, "agent"), customDir: path.join(root, g, "custom") };
    fs.mkdirSync(path.join(groups[g].agentDir, "sessions"), { recursive: true });
    fs.mkdirSync(groups[g].customDir, { recursive: true });
  }

  const place = (group, b, { custom, folderCwd, text, kind, v1 = false, dialect = false, leaves }) => {
    const dir = custom ? groups[group].customDir : path.join(groups[group].agentDir, "sessions", encodeCwd(folderCwd));
    const file = path.join(dir, b.filename);
    write(file, text, b.t);
    sessions.push({ file, group, kind, v1, dialect, layout: custom ? "custom" : "default", leaves: leaves ?? b.pickLeaves(), tornLast: b.tornLast });
  };

  // Main group: random walks over every profile, in both layouts.
  const kinds = ["linear", "rich", "branched", "compacted", "edits", "roots", "everything", "v1", "v2hook", "damaged", "empty"];
  for (let i = 0; i < count; i++) {
    const kind = kinds[i % kinds.length];
    const cwd = rng.pick(CWDS);
    const custom = rng.chance(0.2);
    let headerCwd = cwd;
    // Header cwd spellings pi resolves before comparing (custom dir listing by cwd).
    if (custom && rng.chance(0.15)) headerCwd = cwd === "/" ? "/" : cwd + "/";
    const header = {};
    if (rng.chance(0.1)) header.parentSession = `/home/dev/.pi/agent/sessions/${encodeCwd(cwd)}/2024-12-01T10-00-00-000Z_${rng.hex(8)}.jsonl`;
    const start = nextStart();
    if (rng.chance(0.05)) header.timestamp = new Date(start).toISOString().replace(/\.\d{3}Z$/, "Z"); // no millis: created must still print them
    let b;
    let text;
    if (kind === "v1") {
      b = new SessionBuilder(rng, { version: 1, cwd: headerCwd, start, header: rng.chance(0.3) ? { version: 1, ...header } : header });
      v1Walk(b, rng, rng.int(1, 14));
      text = b.text({ crlf: rng.chance(0.1) });
    } else if (kind === "v2hook") {
      b = new SessionBuilder(rng, { version: 2, cwd: headerCwd, start, header });
      b.message({ role: "hookMessage", customType: "git-status", content: rng.chance(0.5) ? "clean" : [{ type: "text", text: "dirty" }], display: true });
      randomWalk(b, rng, PROFILES.branched, rng.int(2, 8));
      text = b.text();
    } else if (kind === "damaged") {
      b = new SessionBuilder(rng, { cwd: headerCwd, start, header });
      if (rng.chance(0.3)) b.lines.unshift("{broken first line"); // the header need not be the first line
      const steps = rng.int(3, 14);
      for (let s = 0; s < steps; s++) {
        if (rng.chance(0.25)) ACTIONS.damage(b, rng);
        ACTIONS[rng.weighted(PROFILES.everything)](b, rng);
      }
      text = b.text({ crlf: rng.chance(0.4), torn: rng.pick([null, "cut", "nonl"]) });
    } else if (kind === "empty") {
      b = new SessionBuilder(rng, { cwd: headerCwd, start, header });
      // No messages at all: header only, or only settings/custom entries.
      if (rng.chance(0.5)) ACTIONS.model(b, rng);
      if (rng.chance(0.3)) ACTIONS.custom(b, rng);
      if (rng.chance(0.3)) ACTIONS.sessionInfo(b, rng);
      text = b.text();
    } else {
      b = new SessionBuilder(rng, { cwd: headerCwd, start, header });
      randomWalk(b, rng, PROFILES[kind], rng.int(1, kind === "linear" ? 10 : 22));
      text = b.text({ crlf: rng.chance(0.05) });
    }
    place("main", b, { custom, folderCwd: cwd, text, kind, v1: kind === "v1" });
  }

  // Sessions that tie on `modified` (started in one millisecond: batch CI runs, custom
  // --session-id values), with ids that differ in case, punctuation, digits and accents: pi
  // orders their files by `b.localeCompare(a)` before its stable sort by `modified`.
  {
    const tieIds = ["ci-run-1", "CI-run-1", "Ci-Run-1", "ci_run_1", "ci.run.1", "cirun1", "ci-run-10", "ci-run-2",
      "batch", "Batch", "batch-a", "batch_a", "batch.a", "bätch", "résumé", "resume", "re\u0301sume", "日本", "x", "X", "01", "1"];
    const start = nextStart();
    const said = start + 5000;
    for (const custom of [false, true]) {
      tieIds.forEach((id, i) => {
        const b = new SessionBuilder(rng, { cwd: "/home/dev/ties", start, id });
        // Half are header-only (modified = the header time), half end on one message at `said`.
        if (i % 2) b.message({ role: "user", content: `tie ${id}`, timestamp: said });
        place("main", b, { custom, folderCwd: "/home/dev/ties", text: b.text(), kind: "tie" });
        // Some files differ in mtime by less than a millisecond (pi's `listAll` compares
        // `mtimeMs`, a float with the nanoseconds in it), from the last one back.
        if (i % 3 === 0) {
          const secs = start / 1000 + 0.0007 - i * 0.00002;
          fs.utimesSync(sessions.at(-1).file, secs, secs);
        }
      });
    }
  }

  // Files every listing must ignore, and seed-000 dialect files (pi ignores them; pisess lists them).
  const mainSessions = path.join(groups.main.agentDir, "sessions");
  write(path.join(mainSessions, "stray-at-root.jsonl"), sessionLine(rng, nextStart(), "/home/dev/webshop"), base);
  write(path.join(mainSessions, encodeCwd("/home/dev/webshop"), "notes.txt"), "not a session\n", base);
  write(path.join(mainSessions, encodeCwd("/home/dev/webshop"), "backup.jsonl.bak"), sessionLine(rng, nextStart(), "/home/dev/webshop"), base);
  write(path.join(mainSessions, encodeCwd("/home/dev/webshop"), "nested", "deep.jsonl"), sessionLine(rng, nextStart(), "/home/dev/webshop"), base);
  write(path.join(mainSessions, encodeCwd("/home/dev/pisess"), "not-a-session.jsonl"), '{"hello":"world"}\n', base);
  write(path.join(mainSessions, encodeCwd("/home/dev/pisess"), "empty.jsonl"), "", base);
  write(path.join(mainSessions, encodeCwd("/home/dev/pisess"), "blank.jsonl"), "\n\n  \n", base);
  write(path.join(groups.main.customDir, "not-a-session.jsonl"), '{"type":"message"}\n', base);
  for (let i = 0; i < 3; i++) {
    const start = nextStart();
    const file = path.join(mainSessions, i === 2 ? encodeCwd("/Users/x/app") : "Users-x-app", `${uuid7(rng, start)}.jsonl`);
    write(file, dialectText(start), start);
    sessions.push({ file, group: "main", kind: "dialect", dialect: true, layout: "default", leaves: [] });
  }

  // Edge group: one hand-made session per quirk, in the default layout and the custom dir.
  for (const [name, def] of Object.entries(EDGE_CASES)) {
    const spec = typeof def === "function" ? { build: def } : def;
    for (const custom of [false, true]) {
      const start = nextStart();
      const header = { ...(spec.header ?? {}) };
      const version = spec.version ?? 3;
      if (spec.rawVersion) header.version = version;
      const b = new SessionBuilder(rng, { version, cwd: "/home/dev/edge", start, header });
      if (spec.rawVersion) b.lines[0] = b.lines[0].replace(/"version":\d+/, `"version":${spec.rawVersion}`);
      spec.build(b);
      let text = b.text();
      if (spec.rewrite) text = spec.rewrite(text);
      if (spec.bom) text = "\uFEFF" + text;
      const leaves = name === "duplicateIds" || spec.v1 ? [] : undefined;
      place("edge", b, { custom, folderCwd: "/home/dev/edge", text, kind: name, v1: spec.v1 ?? false, leaves });
      if (spec.mtime) fs.utimesSync(sessions.at(-1).file, new Date(start + 777), new Date(start + 777));
    }
  }
  // A project folder reached through a symlink, and a custom dir whose cwd filter pi skips
  // because the dir is that cwd's default dir.
  const edgeSessions = path.join(groups.edge.agentDir, "sessions");
  const outside = path.join(root, "edge", "elsewhere");
  {
    const b = new SessionBuilder(rng, { cwd: "/home/dev/linked", start: nextStart() });
    b.user("reached through a symlinked folder");
    write(path.join(outside, b.filename), b.text(), b.t);
    fs.symlinkSync(outside, path.join(edgeSessions, encodeCwd("/home/dev/linked")));
  }
  for (const cwd of ["/home/dev/edge", "/home/dev/other"]) {
    const b = new SessionBuilder(rng, { cwd, start: nextStart() });
    b.user(`header cwd ${cwd}, stored in the edge cwd's default folder`);
    place("edge", b, { custom: false, folderCwd: "/home/dev/edge", text: b.text(), kind: "defaultDirAsCustom" });
  }
  for (const hc of ["~/webshop", "webshop"]) {
    const b = new SessionBuilder(rng, { cwd: hc, start: nextStart() });
    b.user(`header cwd spelled ${hc}`);
    place("edge", b, { custom: true, folderCwd: hc, text: b.text(), kind: "headerCwdUnresolved" });
  }
  write(path.join(groups.edge.customDir, "UPPER.JSONL"), sessionLine(rng, nextStart(), "/home/dev/edge"), base);

  groups.main.cwds = [...CWDS, "/home/dev/ties"];
  groups.edge.cwds = ["/home/dev/edge", "/home/dev/other"];
  return { root, seed, groups, sessions };
}

/**
 * Copy real session files into an "extra" group (default layout, folder from the header cwd),
 * picking inner leaves from their parsed entries the way the builder does for generated ones.
 */
export function addExtraFiles(manifest, files, seed = 1) {
  if (!files.length) return;
  const rng = new Rng(seed);
  const g = (manifest.groups.extra = { agentDir: path.join(manifest.root, "extra", "agent"), customDir: path.join(manifest.root, "extra", "custom"), cwds: [] });
  fs.mkdirSync(g.customDir, { recursive: true });
  for (const src of files) {
    const text = fs.readFileSync(src, "utf8");
    const parsed = text.split("\n").flatMap((l) => {
      try {
        return l.trim() ? [JSON.parse(l)] : [];
      } catch {
        return [];
      }
    });
    const header = parsed[0] ?? {};
    const cwd = typeof header.cwd === "string" && header.cwd ? header.cwd : "/unknown";
    const b = new SessionBuilder(rng, { cwd, start: 0, version: header.version ?? 1 });
    b.entries = parsed.slice(1).map((e, i) => ({ id: e.id, parentId: e.parentId, type: e.type, index: i + 1 }));
    const file = path.join(g.agentDir, "sessions", encodeCwd(cwd), path.basename(src));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.copyFileSync(src, file);
    if (!g.cwds.includes(cwd)) g.cwds.push(cwd);
    const dialect = header.type === "session_header"; // pi does not read it; pisess does
    manifest.sessions.push({ file, group: "extra", kind: `extra ${path.basename(src)}`, v1: (header.version ?? 1) < 2, dialect, layout: "default", leaves: dialect ? [] : b.pickLeaves(8) });
  }
}

function sessionLine(rng, start, cwd) {
  const b = new SessionBuilder(rng, { cwd, start });
  b.user("this file should not be listed");
  return b.text();
}

function dialectText(start) {
  const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
  const lines = [
    { type: "session_header", version: 1, createdAt: iso(start), cwd: "/Users/x/app", provider: "anthropic", model: "claude-sonnet-4-20250514" },
    { type: "user_message", id: "entry-001", parentId: null, timestamp: iso(start + 1000), content: [{ type: "text", text: "List the routes." }] },
    {
      type: "assistant_message",
      id: "entry-002",
      parentId: "entry-001",
      timestamp: iso(start + 3000),
      modelId: "claude-sonnet-4-20250514",
      content: [{ type: "tool_use", id: "tc_001", name: "bash", input: { command: "ls src/routes" } }],
      usage: { inputTokens: 900, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
      cost: 0.003,
    },
    { type: "tool_result", id: "entry-003", parentId: "entry-002", timestamp: iso(start + 4000), toolCallId: "tc_001", toolName: "bash", output: { content: [{ type: "text", text: "users.ts" }] }, isError: false },
  ];
  return lines.map((l) => JSON.stringify(l) + "\n").join("");
}
