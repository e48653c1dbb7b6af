//! Discovery of subagent runs on real folders: every layout, foreign files, symlinks, depth and
//! count limits.

use super::*;

const UUID: &str = "0f8e2c1a-5b7d-4e3f-9a10-2b3c4d5e6f70";

fn touch(path: &Path) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, "{\"type\":\"session\",\"id\":\"x\"}\n").unwrap();
}

/// A project folder with the session `parent.jsonl` in it.
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("parent.jsonl");
    touch(&session);
    (dir, session)
}

/// Each child as `(path under the project folder, made, run id, index, async id, parent, depth)`.
type Row = (
    String,
    Made,
    Option<String>,
    Option<u32>,
    Option<String>,
    Option<usize>,
    u32,
);

fn rows(root: &Path, runs: &Runs) -> Vec<Row> {
    runs.children
        .iter()
        .map(|c| {
            let rel = c.path.strip_prefix(root).unwrap().display().to_string();
            (
                rel,
                c.made,
                c.run_id.clone(),
                c.index,
                c.async_id.clone(),
                c.parent,
                c.depth,
            )
        })
        .collect()
}

fn s(x: &str) -> Option<String> {
    Some(x.to_owned())
}

#[test]
fn the_stem_folder_is_the_name_without_jsonl() {
    assert_eq!(
        stem_folder(Path::new("/p/2026_x.y.jsonl")),
        Some(PathBuf::from("/p/2026_x.y"))
    );
    assert_eq!(stem_folder(Path::new("/p/x.json")), None);
    assert_eq!(stem_folder(Path::new("/p/.jsonl")), None);
    assert_eq!(stem_folder(Path::new("-")), None);
}

#[test]
fn every_layout_is_found_with_its_run_id_and_index() {
    let (dir, session) = project();
    let root = dir.path();
    let stem = root.join("parent");
    // pi-subagents 0.18+: run-<n>/session.jsonl, `n` ordered as a number.
    for n in [0, 2, 10] {
        touch(
            &stem
                .join(UUID)
                .join(format!("run-{n}"))
                .join("session.jsonl"),
        );
    }
    // 0.11.1-0.17: pi's own name in run-<n>/, under an 8-hex run id.
    touch(&stem.join("ab12cd34/run-0/2026-03-09T10-00-00-000Z_0195.jsonl"));
    // context: "fork" (0.52.1+).
    touch(&stem.join("forks/2026-08-21T00-00-00-000Z_0198.jsonl"));
    // Background runs: at the stem (recovery) and under a run id, with lanes.
    touch(&stem.join("async-a1/2026-01-01T00-00-00-000Z_01.jsonl"));
    touch(&stem.join("ab12cd34/async-b2/parallel-1/lane.jsonl"));
    touch(&stem.join("ab12cd34/async-b2/parallel-0/lane.jsonl"));
    touch(&stem.join("ab12cd34/async-b2/dynamic-0-1/step.jsonl"));
    let runs = find(&session, Limits::default());
    assert!(runs.problems.is_empty(), "{:?}", runs.problems);
    assert_eq!(runs.limited, None);
    let run = |n: u32| {
        (
            format!("parent/{UUID}/run-{n}/session.jsonl"),
            Made::Run,
            s(UUID),
            Some(n),
            None,
            None,
            1,
        )
    };
    let lane = |path: &str, index| {
        let path = format!("parent/ab12cd34/async-b2/{path}");
        (path, Made::Async, s("ab12cd34"), index, s("b2"), None, 1)
    };
    assert_eq!(
        rows(root, &runs),
        vec![
            (
                "parent/0f8e2c1a-5b7d-4e3f-9a10-2b3c4d5e6f70/run-0/session.jsonl".into(),
                Made::Run,
                s(UUID),
                Some(0),
                None,
                None,
                1
            ),
            run(2),
            run(10),
            (
                "parent/ab12cd34/run-0/2026-03-09T10-00-00-000Z_0195.jsonl".into(),
                Made::Run,
                s("ab12cd34"),
                Some(0),
                None,
                None,
                1
            ),
            lane("parallel-0/lane.jsonl", Some(0)),
            lane("parallel-1/lane.jsonl", Some(1)),
            lane("dynamic-0-1/step.jsonl", None),
            (
                "parent/async-a1/2026-01-01T00-00-00-000Z_01.jsonl".into(),
                Made::Async,
                None,
                None,
                s("a1"),
                None,
                1
            ),
            (
                "parent/forks/2026-08-21T00-00-00-000Z_0198.jsonl".into(),
                Made::Fork,
                None,
                None,
                None,
                None,
                1
            ),
        ]
    );
}

#[test]
fn foreign_files_and_folders_are_passed_over() {
    let (dir, session) = project();
    let stem = dir.path().join("parent");
    touch(&dir.path().join("subagent-artifacts/ab12cd34_worker.jsonl"));
    touch(&stem.join("subagent-artifacts/ab12cd34_worker.jsonl"));
    touch(&stem.join("notes.jsonl"));
    fs::write(stem.join("readme.txt"), "x").unwrap();
    touch(&stem.join("forks/a.jsonl.pruned-recovery.json"));
    touch(&stem.join("forks/.jsonl"));
    touch(&stem.join("NOTAHEX1/run-0/session.jsonl"));
    touch(&stem.join("AB12CD34/run-0/session.jsonl"));
    touch(&stem.join("ab12cd3/run-0/session.jsonl"));
    touch(&stem.join("ab12cd34/run-01/session.jsonl"));
    touch(&stem.join("ab12cd34/run-x/session.jsonl"));
    touch(&stem.join("ab12cd34/run-0/notes.txt"));
    touch(&stem.join("ab12cd34/async-/x.jsonl"));
    touch(&stem.join("ab12cd34/async-b2/parallel-01/x.jsonl"));
    touch(&stem.join("ab12cd34/async-b2/dynamic-1/x.jsonl"));
    let runs = find(&session, Limits::default());
    assert_eq!(rows(dir.path(), &runs), vec![]);
    assert!(runs.problems.is_empty());
}

#[test]
fn nothing_to_find_costs_nothing_and_says_nothing() {
    let (dir, session) = project();
    assert!(find(&session, Limits::default()).children.is_empty());
    // A file where the folder would be.
    fs::write(dir.path().join("parent"), "").unwrap();
    let runs = find(&session, Limits::default());
    assert!(runs.children.is_empty() && runs.problems.is_empty());
    // A path that is not a `.jsonl`, and one that does not exist.
    assert!(find(Path::new("-"), Limits::default()).children.is_empty());
    assert!(find(&dir.path().join("gone.jsonl"), Limits::default())
        .children
        .is_empty());
}

#[test]
fn nested_runs_are_found_under_their_child_down_to_the_depth_limit() {
    let (dir, session) = project();
    let child = dir.path().join("parent/ab12cd34/run-0/session.jsonl");
    let grandchild = dir
        .path()
        .join("parent/ab12cd34/run-0/session/cd34ab12/run-0/session.jsonl");
    let great = dir
        .path()
        .join("parent/ab12cd34/run-0/session/cd34ab12/run-0/session/forks/f.jsonl");
    let sibling = dir.path().join("parent/ab12cd34/run-1/session.jsonl");
    for f in [&child, &grandchild, &great, &sibling] {
        touch(f);
    }
    let runs = find(&session, Limits::default());
    let got: Vec<_> = runs
        .children
        .iter()
        .map(|c| (c.path.clone(), c.parent, c.depth))
        .collect();
    assert_eq!(
        got,
        vec![
            (child.clone(), None, 1),
            (grandchild.clone(), Some(0), 2),
            (great.clone(), Some(1), 3),
            (sibling.clone(), None, 1),
        ]
    );
    assert_eq!(runs.limited, None);

    let two = Limits {
        depth: 2,
        ..Limits::default()
    };
    let runs = find(&session, two);
    let got: Vec<_> = runs.children.iter().map(|c| c.path.clone()).collect();
    assert_eq!(got, vec![child, grandchild, sibling]);
    assert_eq!(runs.limited, Some(Limit::Depth));
}

#[cfg(unix)]
#[test]
fn symlinked_folders_are_never_followed() {
    use std::os::unix::fs::symlink;
    let (dir, session) = project();
    let outside = tempfile::tempdir().unwrap();
    touch(&outside.path().join("run-0/session.jsonl"));
    touch(&outside.path().join("ab12cd34/run-0/session.jsonl"));
    let stem = dir.path().join("parent");
    fs::create_dir_all(stem.join("cd34ab12")).unwrap();
    // A run id folder, a run folder and a forks folder that lead out of the store.
    symlink(outside.path(), stem.join("ab12cd34")).unwrap();
    symlink(outside.path().join("run-0"), stem.join("cd34ab12/run-0")).unwrap();
    symlink(outside.path().join("run-0"), stem.join("forks")).unwrap();
    // A loop back to the stem itself.
    symlink(&stem, stem.join("12345678")).unwrap();
    let runs = find(&session, Limits::default());
    assert!(runs.children.is_empty(), "{:?}", runs.children);
    let mut linked: Vec<_> = runs
        .problems
        .iter()
        .map(|(p, why)| {
            assert!(matches!(why, Problem::SymlinkedFolder), "{why:?}");
            p.strip_prefix(&stem).unwrap().display().to_string()
        })
        .collect();
    linked.sort();
    assert_eq!(linked, ["12345678", "ab12cd34", "cd34ab12/run-0", "forks"]);

    // The session's own folder a link: not followed either.
    let (dir, session) = project();
    symlink(outside.path(), dir.path().join("parent")).unwrap();
    let runs = find(&session, Limits::default());
    assert!(runs.children.is_empty());
    assert!(matches!(runs.problems[..], [(_, Problem::SymlinkedFolder)]));
}

#[cfg(unix)]
#[test]
fn linked_files_are_children_when_they_lead_to_a_regular_file() {
    use std::os::unix::fs::symlink;
    let (dir, session) = project();
    let forks = dir.path().join("parent/forks");
    touch(&forks.join("real.jsonl"));
    symlink(forks.join("real.jsonl"), forks.join("linked.jsonl")).unwrap();
    symlink(forks.join("gone"), forks.join("dangling.jsonl")).unwrap();
    symlink(dir.path(), forks.join("folder.jsonl")).unwrap();
    fs::create_dir(forks.join("dir.jsonl")).unwrap();
    let runs = find(&session, Limits::default());
    let names: Vec<_> = runs
        .children
        .iter()
        .map(|c| c.path.file_name().unwrap().to_str().unwrap())
        .collect();
    assert_eq!(names, ["linked.jsonl", "real.jsonl"]);
    let mut problems: Vec<_> = runs
        .problems
        .iter()
        .map(|(p, why)| (p.file_name().unwrap().to_str().unwrap(), why.describe()))
        .collect();
    problems.sort();
    assert_eq!(
        problems,
        [
            (
                "dangling.jsonl",
                "skipped: a symbolic link to nothing".into()
            ),
            (
                "dir.jsonl",
                "skipped: not a regular file (a directory)".into()
            ),
            (
                "folder.jsonl",
                "a symbolic link to a folder: not followed, its subagent runs are not read".into()
            ),
        ]
    );
}

#[test]
fn ten_thousand_runs_are_all_found_and_the_limits_hold() {
    // In memory where there is a tmpfs: 10,000 files on a disk busy with builds took a minute.
    let shm = Path::new("/dev/shm");
    let dir = match shm.is_dir() {
        true => tempfile::tempdir_in(shm).unwrap_or_else(|_| tempfile::tempdir().unwrap()),
        false => tempfile::tempdir().unwrap(),
    };
    let session = dir.path().join("parent.jsonl");
    touch(&session);
    let run = dir.path().join("parent").join(UUID).join("run-0");
    fs::create_dir_all(&run).unwrap();
    for n in 0..10_000 {
        let name = format!("2026-01-01T00-00-00-000Z_{n:05}");
        fs::write(run.join(format!("{name}.jsonl")), "").unwrap();
        // Half of them with a folder of their own (an empty one: no nested runs).
        if n % 2 == 0 {
            fs::create_dir(run.join(name)).unwrap();
        }
    }
    let runs = find(&session, Limits::default());
    assert_eq!(runs.children.len(), 10_000);
    assert_eq!(runs.limited, None);
    assert!(runs.children.iter().zip(0..).all(|(c, n)| c
        .path
        .ends_with(format!("2026-01-01T00-00-00-000Z_{n:05}.jsonl"))));

    let few = Limits {
        children: 100,
        ..Limits::default()
    };
    let runs = find(&session, few);
    assert_eq!(runs.children.len(), 100);
    assert_eq!(runs.limited, Some(Limit::Children));

    // Entries looked at: the stem's one, the run id's one, then the run folder's 15,000.
    let short = Limits {
        entries: 14_000,
        ..Limits::default()
    };
    let runs = find(&session, short);
    assert!(runs.children.is_empty());
    assert_eq!(runs.limited, Some(Limit::Entries));
}

#[test]
fn run_ids_and_numbers_have_the_extensions_shapes() {
    assert!(is_run_id("ab12cd34"));
    assert!(is_run_id(UUID));
    assert!(!is_run_id("ab12cd3g"));
    assert!(!is_run_id("0F8E2C1A-5B7D-4E3F-9A10-2B3C4D5E6F70"));
    assert!(!is_run_id("0f8e2c1a5-b7d-4e3f-9a10-2b3c4d5e6f70"));
    assert!(!is_run_id("forks"));
    assert_eq!(number("0"), Some(0));
    assert_eq!(number("17"), Some(17));
    assert_eq!(number("017"), None);
    assert_eq!(number("+1"), None);
    assert_eq!(number(""), None);
    assert_eq!(async_id("async-9f_x-1"), Some("9f_x-1"));
    assert_eq!(async_id("async-a/b"), None);
}
