// Writes the collation table that `cargo test` checks pisess's file-name order against:
// generated names sorted as pi sorts a session dir (`localeCompare`, Node's ICU, en-US: the
// root collation), one JSON line `[rank, name]` each, names of equal rank comparing equal.
// Run: node tests/collation/gen.mjs > tests/collation/names.jsonl
// The test `collation_table_matches_node` reruns it when node is present and compares.

// A fixed PRNG (mulberry32): the same names on every run and every machine.
let seed = 0x5e551;
function rand() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (xs) => xs[Math.floor(rand() * xs.length)];

// What session file names hold: case, the separators pi and users put in ids, digits, and
// letters beyond ASCII (accents precomposed and combining, ß, CJK, an emoji).
const alphabet = [
  ..."aAbBeEzZ0129-_.~+ ",
  "é", "É", "e\u0301", "è", "ß", "ü", "Ü", "ø", "æ", "ñ", "ı", "İ", "日", "本", "я", "Я", "α", "😀",
];
const ids = [
  "0196cdea-7a1b-7c3d-9e2f-0123456789ab", "0196CDEA-7A1B-7C3D-9E2F-0123456789AB",
  "ci-run-1", "ci-run-10", "ci-run-2", "CI-run-1", "ci_run_1", "ci.run.1", "cirun1", "ci-run-1a",
  "batch", "Batch", "BATCH", "batch-", "batch_", "batch.", "batch-a", "batch_a", "batch.a",
  "batcha", "bätch", "résumé", "resume", "Résumé", "re\u0301sume\u0301", "straße", "strasse",
  "日本", "naïve", "naive", "x", "X", "-x", "_x", ".x", "1", "01", "001", "10", "9",
];
const names = new Set();
for (const id of ids) {
  names.add(`2026-01-01T00-00-00-000Z_${id}.jsonl`);
  names.add(`${id}.jsonl`);
}
while (names.size < 700) {
  const len = 1 + Math.floor(rand() * 6);
  let s = "";
  for (let i = 0; i < len; i++) s += pick(alphabet);
  names.add(rand() < 0.5 ? `${s}.jsonl` : `2026-01-01T00-00-00-000Z_${s}.jsonl`);
}
// Sorted from a fixed start (sorted by code unit) so equal names keep a known order.
const sorted = [...names].sort().sort((a, b) => a.localeCompare(b, "en-US"));
let rank = 0;
const lines = sorted.map((name, i) => {
  if (i > 0 && sorted[i - 1].localeCompare(name, "en-US") !== 0) rank++;
  return JSON.stringify([rank, name]);
});
process.stdout.write(lines.join("\n") + "\n");
