//! A path a tool call named, as one file: `src/x`, `./src/x`, `src/../src/x` and `/cwd/src/x`
//! are the same file of a session whose cwd is `/cwd`. Lexical only (the files need not exist
//! on this machine, and a symlink is not followed): `.` goes, `name/..` folds, and an absolute
//! path under the cwd is shown relative to it. `~` and paths outside the cwd stay as written.

/// `path` as one spelling, relative to `cwd` where it lies under it.
pub fn normal(path: &str, cwd: &str) -> String {
    let absolute = path.starts_with('/');
    let parts = fold(path);
    if absolute {
        let base = fold(cwd);
        if cwd.starts_with('/') && parts.len() > base.len() && parts[..base.len()] == base[..] {
            return parts[base.len()..].join("/");
        }
        return format!("/{}", parts.join("/"));
    }
    if parts.is_empty() {
        return ".".to_owned();
    }
    parts.join("/")
}

/// The names of a path with `.` and empty names gone and `name/..` folded (a leading `..`
/// stays: what it climbs out of is not known).
fn fold(path: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = Vec::new();
    for name in path.split('/') {
        match name {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            _ => parts.push(name),
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::normal;

    #[test]
    fn one_file_under_each_spelling() {
        for p in [
            "src/x.rs",
            "./src/x.rs",
            "src/./x.rs",
            "src/y/../x.rs",
            "/cwd/src/x.rs",
            "/cwd//src/x.rs",
        ] {
            assert_eq!(normal(p, "/cwd"), "src/x.rs", "{p}");
        }
        assert_eq!(normal("/cwd/src/x.rs", "/cwd/"), "src/x.rs");
        assert_eq!(normal("/other/x.rs", "/cwd"), "/other/x.rs");
        assert_eq!(normal("/cwdx/a", "/cwd"), "/cwdx/a");
        assert_eq!(normal("../up/x", "/cwd"), "../up/x");
        assert_eq!(normal("~/notes.md", "/cwd"), "~/notes.md");
        assert_eq!(normal("/cwd", "/cwd"), "/cwd");
        assert_eq!(normal("./", "/cwd"), ".");
    }
}
