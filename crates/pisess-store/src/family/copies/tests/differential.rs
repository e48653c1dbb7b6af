//! The copy rule on forks and clones that pi 1.6's own `SessionManager` wrote
//! (tests/differential/copies.mjs): every entry `createBranchedSession` or `forkFrom` copied is
//! the chain's (re-chained parents, a compaction's first kept entry moved off a dropped label,
//! numbers written again), and nothing else is: labels made again, entries of the copy's own.

use super::*;
use crate::family::differential::node;
use std::collections::HashMap;

/// The header and the entries of a session file.
fn read(path: &Path) -> (Value, Vec<Value>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap());
    let header = lines.next().unwrap();
    (header, lines.collect())
}

#[test]
fn the_entries_pi_copied_are_the_chains_and_only_those() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let Some(out) = node("copies.mjs", &[&root], b"", &root) else {
        return;
    };
    let files: HashMap<String, PathBuf> = serde_json::from_slice(&out).unwrap();
    let mut keys = PathKeys::new(&root);
    let mut checked = (0, 0);
    for copy in ["clone", "clone2", "fork"] {
        let (header, entries) = read(&files[copy]);
        let parent = header["parentSession"].as_str().unwrap();
        let chain = chain(&files[copy], parent, &mut keys, 10, |p| {
            Ok(read(p).0["parentSession"].as_str().map(str::to_owned))
        });
        assert!(matches!(chain.end, End::Root), "{copy}: {:?}", chain.end);
        let want_chain = match copy {
            "clone2" => vec![files["clone"].clone(), files["source"].clone()],
            _ => vec![files["source"].clone()],
        };
        assert_eq!(chain.files, want_chain, "{copy}");

        let mut source = Source::default();
        let mut ids = std::collections::HashSet::new();
        for file in &chain.files {
            for e in read(file).1 {
                source.add(&e);
                ids.insert(e["id"].as_str().unwrap().to_owned());
            }
        }
        for e in &entries {
            // pi copies with ids kept and makes everything else (labels again, new entries)
            // with ids it checks are new: the ids say which entries are copies.
            let copied = ids.contains(e["id"].as_str().unwrap());
            for copying in [Copying::Verbatim, Copying::Rewritten] {
                assert_eq!(source.holds(e, copying), copied, "{copy} {copying:?}: {e}");
            }
            if copied {
                checked.0 += 1;
            } else {
                checked.1 += 1;
            }
        }
    }
    // Copies re-chained around labels, the moved compaction, new labels and new entries were all
    // seen.
    assert!(checked.0 >= 30 && checked.1 >= 8, "{checked:?}");
}
