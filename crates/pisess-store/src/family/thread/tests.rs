//! Threading cases copied from pi's `buildSessionTree` (parents listed or not, ties, latest
//! activity), the departures (cycles, one file under two paths, runs), and pi's path keys.

use super::*;

#[cfg(unix)]
mod differential;

/// Keys as they are: the paths of these cases are all absolute and plain.
fn same(p: &Path) -> PathBuf {
    p.to_path_buf()
}

/// `(name, parentSession, modified)` listed in this order.
fn listed<'a>(cases: &'a [(PathBuf, Option<&'a str>, i64)]) -> Vec<Listed<'a>> {
    cases
        .iter()
        .map(|(path, parent, modified_ms)| Listed {
            path,
            parent_session: *parent,
            modified_ms: *modified_ms,
        })
        .collect()
}

fn sessions<'a>(cases: &[(&str, Option<&'a str>, i64)]) -> Vec<(PathBuf, Option<&'a str>, i64)> {
    cases
        .iter()
        .map(|(name, parent, m)| (PathBuf::from(format!("/s/{name}.jsonl")), *parent, *m))
        .collect()
}

/// The rows as `name@depth`, the way pi's flattened list reads.
fn shown(forest: &Forest, listed: &[Listed], found: &[Found]) -> Vec<String> {
    forest
        .rows
        .iter()
        .map(|r| {
            let path = match r.node {
                Node::Listed(i) => listed[i].path,
                Node::Found(i) => found[i].path,
            };
            let name = path.file_stem().unwrap().to_str().unwrap();
            format!("{name}@{}", r.depth)
        })
        .collect()
}

#[test]
fn forks_hang_under_their_listed_source_ordered_by_latest_activity() {
    // pi's listing order: newest `modified` first.
    let cases = sessions(&[
        ("c", Some("/s/a.jsonl"), 500),
        ("d", None, 400),
        ("b", Some("/s/a.jsonl"), 300),
        ("e", Some("/s/b.jsonl"), 250),
        ("a", None, 100),
        ("f", Some("/s/gone.jsonl"), 50),
        ("g", Some(""), 40),
    ]);
    let listed = listed(&cases);
    let forest = thread(&listed, &[], &mut same);
    // a's subtree is as new as c (500): before d; c before b; e under b; a missing or empty
    // parent makes a root.
    assert_eq!(
        shown(&forest, &listed, &[]),
        ["a@0", "c@1", "b@1", "e@2", "d@0", "f@0", "g@0"]
    );
    let a = &forest.rows[0];
    assert_eq!((a.latest_ms, a.parent, a.last), (500, None, false));
    let e = &forest.rows[3];
    assert_eq!(e.parent, Some(Node::Listed(2)));
    assert!(e.last && forest.rows[2].last && !forest.rows[1].last);
    assert!(forest.rows[6].last);
    assert!(forest.cycles.is_empty() && forest.orphans.is_empty());
}

#[test]
fn ties_keep_the_listing_order_as_javascripts_stable_sort() {
    let cases = sessions(&[
        ("x", None, 100),
        ("y", None, 100),
        ("k2", Some("/s/z.jsonl"), 100),
        ("z", None, 100),
        ("k1", Some("/s/z.jsonl"), 100),
    ]);
    let listed = listed(&cases);
    let forest = thread(&listed, &[], &mut same);
    assert_eq!(
        shown(&forest, &listed, &[]),
        ["x@0", "y@0", "z@0", "k2@1", "k1@1"]
    );
}

#[test]
fn a_cycle_is_cut_at_its_member_listed_first_and_reported() {
    // b→a→c→b, d under a, and e naming itself; pi shows only f.
    let cases = sessions(&[
        ("f", None, 900),
        ("a", Some("/s/c.jsonl"), 800),
        ("b", Some("/s/a.jsonl"), 700),
        ("c", Some("/s/b.jsonl"), 600),
        ("d", Some("/s/a.jsonl"), 950),
        ("e", Some("/s/e.jsonl"), 100),
    ]);
    let listed = listed(&cases);
    let forest = thread(&listed, &[], &mut same);
    assert_eq!(
        shown(&forest, &listed, &[]),
        ["a@0", "d@1", "b@1", "c@2", "f@0", "e@0"]
    );
    assert_eq!(
        forest.cycles,
        [
            vec![Node::Listed(1), Node::Listed(2), Node::Listed(3)],
            vec![Node::Listed(5)]
        ]
    );
}

#[test]
fn a_chain_a_hundred_thousand_deep_needs_no_deep_stack() {
    let names: Vec<String> = (0..100_000).map(|i| format!("/s/{i}.jsonl")).collect();
    let listed: Vec<Listed> = names
        .iter()
        .enumerate()
        .map(|(i, name)| Listed {
            path: Path::new(name),
            parent_session: (i > 0).then(|| names[i - 1].as_str()),
            modified_ms: 1,
        })
        .collect();
    let forest = thread(&listed, &[], &mut same);
    assert!(forest.rows.iter().enumerate().all(|(i, r)| r.depth == i));
    // A ring of them: one cycle, cut at the first.
    let mut ring = listed.clone();
    ring[0].parent_session = Some(names[99_999].as_str());
    let forest = thread(&ring, &[], &mut same);
    assert_eq!(forest.cycles.len(), 1);
    assert_eq!(forest.cycles[0].len(), 100_000);
    assert_eq!(forest.rows[0].node, Node::Listed(0));
    assert_eq!(forest.rows[99_999].depth, 99_999);
}

#[test]
fn runs_hang_under_their_file_and_never_reorder_pis_rows() {
    let cases = sessions(&[("b", None, 500), ("a", None, 100)]);
    let listed = listed(&cases);
    let paths: Vec<PathBuf> = ["/s/a/r/run-0/session.jsonl", "/s/a/r/run-1/late.jsonl"]
        .iter()
        .map(PathBuf::from)
        .collect();
    let nested = PathBuf::from("/s/a/r/run-0/session/q/run-0/deep.jsonl");
    let stray = PathBuf::from("/s/gone/r/run-0/stray.jsonl");
    let found = [
        Found {
            path: &paths[0],
            parent: Path::new("/s/a.jsonl"),
            modified_ms: 200,
        },
        Found {
            path: &paths[1],
            parent: Path::new("/s/a.jsonl"),
            modified_ms: 900,
        },
        Found {
            path: &nested,
            parent: &paths[0],
            modified_ms: 1000,
        },
        Found {
            path: &stray,
            parent: Path::new("/s/gone.jsonl"),
            modified_ms: 50,
        },
    ];
    let forest = thread(&listed, &found, &mut same);
    // a's runs are newer than b, yet b stays first, as in pi; among a's runs, session/ is lifted
    // by its own run (1000) above late (900).
    assert_eq!(
        shown(&forest, &listed, &found),
        ["b@0", "a@0", "session@1", "deep@2", "late@1", "stray@0"]
    );
    assert_eq!(forest.rows[1].latest_ms, 100);
    assert_eq!(forest.rows[3].parent, Some(Node::Found(0)));
    assert_eq!(forest.orphans, [3]);
}

#[test]
fn a_file_listed_under_two_paths_is_shown_once_each_and_parents_the_last() {
    // `l` is a link to `r`: both key to /s/r.jsonl.
    let cases = sessions(&[
        ("r", None, 300),
        ("l", None, 200),
        ("k", Some("/s/r.jsonl"), 100),
    ]);
    let listed = listed(&cases);
    let mut key = |p: &Path| {
        if p == Path::new("/s/l.jsonl") {
            PathBuf::from("/s/r.jsonl")
        } else {
            p.to_path_buf()
        }
    };
    let forest = thread(&listed, &[], &mut key);
    assert_eq!(shown(&forest, &listed, &[]), ["r@0", "l@0", "k@1"]);
    assert_eq!(forest.rows[2].parent, Some(Node::Listed(1)));
}

#[cfg(unix)]
#[test]
fn keys_are_pis_realpath_or_the_resolved_path() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = fs_canonical(dir.path());
    std::fs::create_dir(root.join("real")).unwrap();
    std::fs::write(root.join("real/a.jsonl"), "").unwrap();
    symlink(root.join("real"), root.join("link")).unwrap();
    symlink(root.join("real/a.jsonl"), root.join("real/b.jsonl")).unwrap();
    let mut keys = PathKeys::new(&root.join("real"));
    let a = root.join("real/a.jsonl");
    assert_eq!(keys.key(&a), a);
    assert_eq!(keys.key(&root.join("link/a.jsonl")), a);
    assert_eq!(keys.key(&root.join("real/b.jsonl")), a);
    // Relative to the process cwd, and with `..` through a link, as realpath takes them.
    assert_eq!(keys.key(Path::new("a.jsonl")), a);
    assert_eq!(keys.key(&root.join("link/../real/a.jsonl")), a);
    // Missing: resolved without the disk (`..` folded by name, links kept).
    assert_eq!(
        keys.key(&root.join("link/x/../gone.jsonl")),
        root.join("link/gone.jsonl")
    );
    assert_eq!(
        keys.key(Path::new("gone.jsonl")),
        root.join("real/gone.jsonl")
    );
    // A file with a slash after it is not a folder: realpath fails, the name stays.
    assert_eq!(
        keys.key(&root.join("link/a.jsonl/")),
        root.join("link/a.jsonl")
    );
}

fn fs_canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap()
}

/// A listed file that is no link, and a run found under a session through real folders, are
/// keyed from their folder's canonical path as `key` keys them (realpath), through a
/// symlinked project folder, a relative one and odd spellings alike.
#[cfg(unix)]
#[test]
fn keys_known_from_the_place_are_the_realpath_keys() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let root = fs_canonical(dir.path());
    let run = root.join("real/s/0000abcd/run-0/session.jsonl");
    std::fs::create_dir_all(run.parent().unwrap()).unwrap();
    std::fs::write(&run, "").unwrap();
    std::fs::write(root.join("real/s.jsonl"), "").unwrap();
    symlink(root.join("real"), root.join("link")).unwrap();
    for folder in ["real", "link", "link/", "real/.", "link//", "./link"] {
        let mut keys = PathKeys::new(&root);
        let mut fresh = PathKeys::new(&root);
        let session = root.join(folder).join("s.jsonl");
        let found = root.join(folder).join("s/0000abcd/run-0/session.jsonl");
        assert_eq!(
            keys.key_listed(&session, false),
            fresh.key(&session),
            "{folder}"
        );
        let beneath = keys.key_beneath(&found, session.parent().unwrap());
        assert_eq!(beneath, Some(fresh.key(&found)), "{folder}");
        assert_eq!(beneath, Some(run.clone()), "{folder}");
    }
    let mut keys = PathKeys::new(&root);
    let relative = Path::new("link/s/0000abcd/run-0/session.jsonl");
    assert_eq!(keys.key_beneath(relative, Path::new("link")), Some(run));
}

/// `simple_split` by separators found with `memchr` splits as the byte-at-a-time split did
/// (every component non-empty and neither `.` nor `..`, at the last `/`, not at the root).
#[cfg(unix)]
#[test]
fn simple_split_by_memchr_splits_as_a_split_of_every_byte() {
    fn by_bytes(path: &[u8]) -> Option<(&[u8], &[u8])> {
        if path.first() != Some(&b'/') {
            return None;
        }
        let mut parts = path[1..].split(|&b| b == b'/');
        if !parts.all(|c| !c.is_empty() && c != b"." && c != b"..") {
            return None;
        }
        let at = path.iter().rposition(|&b| b == b'/')?;
        (at > 0).then(|| (&path[..at], &path[at + 1..]))
    }
    let parts: [&[u8]; 8] = [b"", b"/", b"a", b".", b"..", b"...", b".a", b"s.jsonl"];
    let mut paths: Vec<Vec<u8>> = vec![Vec::new()];
    for _ in 0..4 {
        let longer: Vec<Vec<u8>> = (paths.iter())
            .flat_map(|p| parts.iter().map(move |q| [&p[..], q].concat()))
            .collect();
        paths.extend(longer);
        paths.sort();
        paths.dedup();
    }
    for p in &paths {
        assert_eq!(
            simple_split(p),
            by_bytes(p),
            "{:?}",
            String::from_utf8_lossy(p)
        );
    }
    assert_eq!(
        simple_split(b"/home/u/.pi/s/--p--/x.jsonl"),
        Some((&b"/home/u/.pi/s/--p--"[..], &b"x.jsonl"[..]))
    );
}

/// A folder made canonical by its parent's canonical path and an `lstat` is `realpath`'s:
/// under a symlinked parent, itself a symlink, a file, missing, with odd spellings.
#[cfg(unix)]
#[test]
fn a_folder_by_its_parent_is_realpaths_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real");
    std::fs::create_dir_all(real.join("p1")).unwrap();
    std::fs::create_dir_all(tmp.path().join("elsewhere/p3")).unwrap();
    std::fs::write(real.join("file"), "").unwrap();
    std::os::unix::fs::symlink(&real, tmp.path().join("link")).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("elsewhere/p3"), real.join("p2")).unwrap();
    let mut keys = PathKeys::new(tmp.path());
    for up in ["real", "link"] {
        for name in ["p1", "p2", "file", "gone", ".", "..", "p1/", "p1/."] {
            let folder = tmp.path().join(up).join(name);
            let want = std::fs::canonicalize(&folder).ok();
            assert_eq!(
                keys.canonical_folder(&folder).map(Path::to_path_buf),
                want,
                "{folder:?}"
            );
            let mut parent = None;
            assert_eq!(
                canonical_by_parent(&folder, &mut parent),
                want,
                "{folder:?}"
            );
        }
    }
}
