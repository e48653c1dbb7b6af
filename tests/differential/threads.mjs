// pi 1.6's own threading of `/resume` (`buildSessionTree` and `flattenSessionTree`, private to
// `modes/interactive/components/session-selector.js`), for pisess-store's `family::thread` test.
//
//   node threads.mjs PI_DIST < cases.json > rows.json
//
// The functions are taken from pi's file as its text (they are not exported) and run with pi's
// own `canonicalizePath` and `getPathComparisonKey`. Input: an array of cases, each an array of
// {path, parent, modified}; output: for each case, pi's flattened rows as [path, depth].
// Relative paths resolve against this process's cwd, as in pi.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const src = fs.readFileSync(path.join(dist, "modes/interactive/components/session-selector.js"), "utf8");
const piece = (from, to) => {
  const start = src.indexOf(from);
  const end = start < 0 ? -1 : src.indexOf(to, start);
  if (end < 0) throw new Error(`threads.mjs: '${from}' ... '${to}' not found in pi's session-selector.js`);
  return src.slice(start, end);
};
const code =
  piece("function getSessionPathKey(", "class SessionSelectorHeader") +
  piece("function buildSessionTree(", "class SessionList {");
const { canonicalizePath, getPathComparisonKey } = await import(pathToFileURL(path.join(dist, "utils/paths.js")).href);
const { buildSessionTree, flattenSessionTree } = new Function(
  "canonicalizePath",
  "getPathComparisonKey",
  `${code}\nreturn { buildSessionTree, flattenSessionTree };`,
)(canonicalizePath, getPathComparisonKey);

const cases = JSON.parse(fs.readFileSync(0, "utf8"));
const out = cases.map((sessions) =>
  flattenSessionTree(
    buildSessionTree(
      sessions.map((s) => ({ path: s.path, parentSessionPath: s.parent ?? undefined, modified: new Date(s.modified) })),
    ),
  ).map((row) => [row.session.path, row.depth]),
);
process.stdout.write(JSON.stringify(out));
