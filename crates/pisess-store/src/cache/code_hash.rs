//! A hash of the code that fills the caches, for their stamp: computed by `build.rs` over
//! [`ROOTS`] (this file is included there), so a fix shipped without a version
//! bump still changes the stamp, and a cache a build of other code wrote is not served.
//! FNV-1a, 64 bits: no dependency in the build script, and the same on every platform.

use std::path::{Path, PathBuf};

/// What the hash covers, from this crate's folder: the code that computes what the caches
/// keep (this crate and pisess-format) and the versions of its dependencies.
pub(crate) const ROOTS: &[&str] = &["src", "../pisess-format/src", "../../Cargo.lock"];

/// The files under `root` (or `root` itself, a file), sorted by their path from it; none when
/// it is missing (a package without `Cargo.lock`).
fn files(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    if !root.exists() {
        return Ok(out);
    }
    let mut todo = vec![root.to_path_buf()];
    while let Some(p) = todo.pop() {
        if p.is_dir() {
            for e in std::fs::read_dir(&p)? {
                todo.push(e?.path());
            }
        } else {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

/// FNV-1a of each file's path (from `base`, `/`-separated) and bytes, under `roots` in order.
pub(super) fn hash(base: &Path, roots: &[&str]) -> std::io::Result<u64> {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for root in roots {
        for file in files(&base.join(root))? {
            let name = file.strip_prefix(base).unwrap_or(&file);
            let name: Vec<String> = name
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let bytes = std::fs::read(&file)?;
            // Lengths first: no two different trees feed the same bytes.
            feed(&(name.join("/").len() as u64).to_le_bytes());
            feed(name.join("/").as_bytes());
            feed(&(bytes.len() as u64).to_le_bytes());
            feed(&bytes);
        }
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::{hash, ROOTS};

    /// Any change of a file's bytes or name, or a file added, changes the hash; the same tree
    /// hashes the same.
    #[test]
    fn the_hash_follows_the_code() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path();
        std::fs::create_dir_all(base.join("src/store")).unwrap();
        std::fs::write(base.join("src/store/cache.rs"), "fn a() {}").unwrap();
        std::fs::write(base.join("src/lib.rs"), "mod store;").unwrap();
        std::fs::write(base.join("Cargo.lock"), "v1").unwrap();
        let at = |b: &std::path::Path| hash(b, &["src", "Cargo.lock"]).unwrap();
        let first = at(base);
        assert_eq!(at(base), first);
        std::fs::write(base.join("src/store/cache.rs"), "fn a() { }").unwrap();
        let edited = at(base);
        assert_ne!(edited, first);
        std::fs::rename(base.join("src/lib.rs"), base.join("src/main.rs")).unwrap();
        let renamed = at(base);
        assert_ne!(renamed, edited);
        std::fs::write(base.join("src/store/new.rs"), "").unwrap();
        assert_ne!(at(base), renamed);
        std::fs::write(base.join("Cargo.lock"), "v2").unwrap();
        let locked = at(base);
        std::fs::write(base.join("Cargo.lock"), "v1").unwrap();
        assert_ne!(at(base), locked);
        std::fs::remove_file(base.join("Cargo.lock")).unwrap();
        assert_ne!(at(base), locked, "a missing root is no error");
    }

    /// The caches' stamp holds the hash of this very code (build.rs computed it over the
    /// sources this test was built from): on 63e6fc9 it held the version alone.
    #[test]
    fn the_caches_stamp_is_this_codes() {
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let now = format!("{:016x}", hash(base, ROOTS).unwrap());
        assert_eq!(now, env!("PISESS_CODE_HASH"));
        assert!(super::super::key::stamp().contains(&now));
    }
}
