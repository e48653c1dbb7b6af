//! The map in `docs/architecture.md`, kept true. Cargo enforces the direction between the
//! crates (pisess-format <- pisess-store <- pisess); what is left to check is small:
//!
//! - the crates depend on each other in that direction only (a new arrow is a decision, made
//!   here and in the map, not an accident of a `Cargo.toml`);
//! - inside `pisess`, `views/` names nothing of `app/` or `cmd/`, and `app/` nothing of `cmd/`;
//! - every module says what it is for (`//!`), every top-level module of each crate is named
//!   in the map, and no file is over 900 lines outside its tests.

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::repo;

const MAX_LINES: usize = 900;

/// The crates, lowest first: (name, folder from the repository's root).
const CRATES: [(&str, &str); 3] = [
    ("pisess-format", "crates/pisess-format"),
    ("pisess-store", "crates/pisess-store"),
    ("pisess", "."),
];

/// The `.rs` files under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The workspace crates `manifest` depends on (dependencies, not dev-dependencies).
fn workspace_deps(manifest: &str) -> Vec<&'static str> {
    let deps = manifest
        .split("\n[")
        .filter(|section| section.starts_with("dependencies]"))
        .collect::<String>();
    CRATES
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| deps.lines().any(|l| l.starts_with(&format!("{name} "))))
        .collect()
}

#[test]
fn the_crates_depend_downward_only() {
    for (i, (name, dir)) in CRATES.iter().enumerate() {
        let manifest = fs::read_to_string(repo().join(dir).join("Cargo.toml")).unwrap();
        let below: Vec<&str> = CRATES[..i].iter().map(|(n, _)| *n).collect();
        assert_eq!(
            workspace_deps(&manifest),
            below,
            "{name} must depend on exactly the crates below it"
        );
    }
}

#[test]
fn views_and_app_name_nothing_above_them() {
    let rules = [
        ("views", &["crate::app", "crate::cmd"][..]),
        ("app", &["crate::cmd"][..]),
    ];
    let mut wrong = Vec::new();
    for (folder, above) in rules {
        for f in rust_files(&repo().join("src").join(folder)) {
            let text = fs::read_to_string(&f).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if above.iter().any(|a| code.contains(a)) {
                    wrong.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "imports that point up: {wrong:#?}");
}

#[test]
fn every_module_says_what_it_is_for() {
    let mut silent = Vec::new();
    for (_, dir) in CRATES {
        for f in rust_files(&repo().join(dir).join("src")) {
            let text = fs::read_to_string(&f).unwrap();
            if !text.trim_start().starts_with("//!") {
                silent.push(f.display().to_string());
            }
        }
    }
    assert!(
        silent.is_empty(),
        "modules without a `//!` doc: {silent:#?}"
    );
}

#[test]
fn every_top_level_module_is_on_the_map() {
    let doc = fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    let mut missing = Vec::new();
    for (name, dir) in CRATES {
        let src = repo().join(dir).join("src");
        for e in fs::read_dir(&src).unwrap() {
            let file = e.unwrap().file_name().to_string_lossy().into_owned();
            let module = file.trim_end_matches(".rs");
            if module == "lib" || module == "main" {
                continue;
            }
            let shown = if dir == "." {
                format!("`src/{module}")
            } else {
                format!("`{module}")
            };
            if !doc.contains(&shown) {
                missing.push(format!("{name}: {module}"));
            }
        }
        assert!(
            doc.contains(&format!("`{name}`")),
            "the map does not name {name}"
        );
    }
    assert!(
        missing.is_empty(),
        "modules docs/architecture.md does not name: {missing:?}"
    );
}

#[test]
fn no_file_over_900_lines_outside_its_tests() {
    let mut long = Vec::new();
    for (_, dir) in CRATES {
        for f in rust_files(&repo().join(dir).join("src")) {
            let text = fs::read_to_string(&f).unwrap();
            let code = text.split("\n#[cfg(test)]\nmod tests").next().unwrap();
            let n = code.lines().count();
            if n > MAX_LINES && !f.ends_with("tests.rs") {
                long.push(format!("{}: {n}", f.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines outside their tests: {long:?}"
    );
}
