//! [`thread`] against pi 1.6's own `buildSessionTree` and `flattenSessionTree`
//! (tests/differential/threads.mjs), on random listings of real files: links to folders and
//! files, relative and `..` parents, missing and empty parents, self-references and cycles, ties.

use super::*;
use crate::family::differential::node;
use serde_json::json;

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// One random listing: `(listed path, parentSession, modified)`.
fn case(rng: &mut Rng, files: usize) -> Vec<(String, Option<String>, i64)> {
    let n = 1 + rng.below(files);
    let mut picked: Vec<usize> = (0..files).collect();
    for i in (1..picked.len()).rev() {
        picked.swap(i, rng.below(i + 1));
    }
    picked.truncate(n);
    let listed = |rng: &mut Rng, f: usize| {
        let via = if rng.below(3) == 0 { "link" } else { "real" };
        format!("{via}/s{f}.jsonl")
    };
    picked
        .iter()
        .map(|&f| {
            let other = picked[rng.below(n)];
            let parent = match rng.below(12) {
                0 | 1 => None,
                2 => Some(String::new()),
                3 => Some(format!("real/s{other}.jsonl")),
                4 => Some(format!("link/../real/s{other}.jsonl")),
                5 => Some(format!("real/gone{other}.jsonl")),
                6 => Some(format!("real/s{f}.jsonl")),
                // A file not listed in this case.
                7 => Some(format!("real/s{}.jsonl", rng.below(files))),
                _ => Some(listed(rng, other)),
            };
            // Absolute most of the time, as pi writes it; relative ones resolve against the cwd.
            let absolute = |p: String, rng: &mut Rng| {
                if p.is_empty() || rng.below(4) == 0 {
                    p
                } else {
                    format!("{{root}}/{p}")
                }
            };
            let path = format!("{{root}}/{}", listed(rng, f));
            let parent = parent.map(|p| absolute(p, rng));
            (path, parent, [100, 200, 300, 400][rng.below(4)])
        })
        .collect()
}

#[test]
fn threads_as_pis_own_code_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let files = 12;
    std::fs::create_dir(root.join("real")).unwrap();
    for f in 0..files {
        std::fs::write(root.join(format!("real/s{f}.jsonl")), "").unwrap();
    }
    std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();

    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let at_root = |s: &str| s.replace("{root}", root.to_str().unwrap());
    let cases: Vec<Vec<(String, Option<String>, i64)>> = (0..400)
        .map(|_| {
            case(&mut rng, files)
                .into_iter()
                .map(|(p, parent, m)| (at_root(&p), parent.map(|p| at_root(&p)), m))
                .collect()
        })
        .collect();
    let input = json!(cases
        .iter()
        .map(|c| c
            .iter()
            .map(|(path, parent, modified)| json!({"path": path, "parent": parent, "modified": modified}))
            .collect::<Vec<_>>())
        .collect::<Vec<_>>());

    let Some(out) = node("threads.mjs", &[], input.to_string().as_bytes(), &root) else {
        return;
    };
    let pi: Vec<Vec<(String, usize)>> = serde_json::from_slice(&out).unwrap();

    let mut cycles = 0;
    for (case, pi) in cases.iter().zip(pi) {
        let paths: Vec<PathBuf> = case.iter().map(|c| PathBuf::from(&c.0)).collect();
        let listed: Vec<Listed> = case
            .iter()
            .zip(&paths)
            .map(|((_, parent, modified_ms), path)| Listed {
                path,
                parent_session: parent.as_deref(),
                modified_ms: *modified_ms,
            })
            .collect();
        let mut keys = PathKeys::new(&root);
        let forest = thread(&listed, &[], &mut |p| keys.key(p));
        cycles += forest.cycles.len();
        // pi shows no cycle, nor anything under one: leave out the subtrees of the cut roots.
        let cut: Vec<Node> = forest.cycles.iter().map(|c| c[0]).collect();
        let mut ours = Vec::new();
        let mut hidden = false;
        for row in &forest.rows {
            if row.depth == 0 {
                hidden = cut.contains(&row.node);
            }
            if !hidden {
                let Node::Listed(i) = row.node else {
                    unreachable!("no found children here")
                };
                ours.push((case[i].0.clone(), row.depth));
            }
        }
        assert_eq!(ours, pi, "case {case:#?}");
    }
    // The cases reach what they are for.
    assert!(cycles > 20, "{cycles} cycles");
}
