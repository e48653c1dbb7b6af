//! `facts --cursor FILE`: what earlier runs emitted, so a cron job's run emits only the rows it
//! has not (and a row again when its facts changed: its `active` flag, once the branch moved).
//!
//! Per session file: its size and mtime when read (unchanged, it is not read at all), how many
//! rows were emitted and each one's `active` flag. The cursor is written only after the whole
//! stream was written, renamed into place, so a run that fails part-way emits its rows again
//! next time rather than losing them. It names its store (a hash of the session dir) and its
//! schema: a cursor of another store or of a newer pisess is refused (exit 2), never trusted.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use pisess_store::util::usage::UsageError;

const KIND: &str = "pisess.facts.cursor";
const VERSION: u32 = 1;

/// The cursor file, as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Cursor {
    schema: String,
    schema_version: u32,
    store: String,
    /// What the rows were written with (labels, redaction, price table): rows written with
    /// other options are written again (an engine keeps the later of equal versions).
    #[serde(default)]
    options: String,
    /// By session file path.
    files: BTreeMap<String, Seen>,
}

/// One file as the last run read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Seen {
    pub(super) bytes: u64,
    pub(super) mtime_ms: i64,
    /// Rows emitted, in the file's row order.
    pub(super) rows: usize,
    /// Their `active` flags, one bit each (row `i` is bit `i % 8` of byte `i / 8`), in hex.
    pub(super) active: String,
}

impl Seen {
    pub(super) fn new(
        bytes: u64,
        mtime_ms: i64,
        active: impl ExactSizeIterator<Item = bool>,
    ) -> Seen {
        let rows = active.len();
        let mut bits = vec![0u8; rows.div_ceil(8)];
        for (i, a) in active.enumerate() {
            if a {
                bits[i / 8] |= 1 << (i % 8);
            }
        }
        let active = bits.iter().map(|b| format!("{b:02x}")).collect();
        Seen {
            bytes,
            mtime_ms,
            rows,
            active,
        }
    }

    /// Row `i`'s flag as emitted; `None` past what was emitted (or in a damaged cursor).
    pub(super) fn active(&self, i: usize) -> Option<bool> {
        if i >= self.rows {
            return None;
        }
        let byte = self.active.get(i / 8 * 2..i / 8 * 2 + 2)?;
        let byte = u8::from_str_radix(byte, 16).ok()?;
        Some(byte & (1 << (i % 8)) != 0)
    }
}

impl Cursor {
    /// The cursor at `path` for the store `store`; a fresh one when the file does not exist.
    pub(super) fn read(path: &Path, store: &str) -> anyhow::Result<Cursor> {
        let shown = path.display();
        let text = match std::fs::read(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Cursor {
                    schema: KIND.to_owned(),
                    schema_version: VERSION,
                    store: store.to_owned(),
                    options: String::new(),
                    files: BTreeMap::new(),
                })
            }
            Err(e) => return Err(e).with_context(|| format!("--cursor {shown}")),
        };
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Head {
            schema: String,
            schema_version: u32,
            store: String,
        }
        let bad = |why: String| UsageError(format!("--cursor {shown}: {why}"));
        // Read whole once (a cursor of 2,000 files is 400 KB: reading it twice was a fifth of
        // a run with nothing new); its head alone only when that fails, so that a newer cursor
        // is named as such even if its body changed.
        let whole = serde_json::from_slice::<Cursor>(&text);
        let head = match &whole {
            Ok(c) => Head {
                schema: c.schema.clone(),
                schema_version: c.schema_version,
                store: c.store.clone(),
            },
            Err(_) => serde_json::from_slice(&text)
                .map_err(|e| bad(format!("not a pisess facts cursor ({e})")))?,
        };
        if head.schema != KIND {
            return Err(bad(format!(
                "not a pisess facts cursor (schema {:?})",
                head.schema
            ))
            .into());
        }
        if head.schema_version > VERSION {
            return Err(bad(format!(
                "written by a newer pisess (cursor schema {}; this one reads {VERSION})",
                head.schema_version
            ))
            .into());
        }
        if head.store != store {
            return Err(bad(
                "the cursor of another session store (a cursor follows one store: give each \
                 store its own)"
                    .to_owned(),
            )
            .into());
        }
        whole.map_err(|e| bad(format!("damaged ({e})")).into())
    }

    /// Forgets what was emitted with other options than `options`: it is all emitted again.
    /// Whether it did.
    pub(super) fn keep_if(&mut self, options: &str) -> bool {
        if self.options == options {
            return false;
        }
        self.options = options.to_owned();
        self.files.clear();
        true
    }

    pub(super) fn get(&self, file: &Path) -> Option<&Seen> {
        self.files.get(&*file.to_string_lossy())
    }

    /// Whether `file` is as it was when last read: its rows were all emitted.
    pub(super) fn unchanged(&self, file: &Path, bytes: u64, mtime_ms: i64) -> bool {
        self.get(file)
            .is_some_and(|s| s.bytes == bytes && s.mtime_ms == mtime_ms)
    }

    pub(super) fn record(&mut self, file: &Path, seen: Seen) {
        self.files.insert(file.to_string_lossy().into_owned(), seen);
    }

    /// Writes the cursor beside `path` and renames it into place.
    pub(super) fn write(&self, path: &Path) -> anyhow::Result<()> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
            _ => PathBuf::from("."),
        };
        let shown = path.display();
        let mut tmp = tempfile::NamedTempFile::new_in(&dir)
            .with_context(|| format!("--cursor {shown}: cannot write beside it"))?;
        serde_json::to_writer(&mut tmp, self)?;
        tmp.write_all(b"\n")?;
        tmp.as_file().sync_all()?;
        tmp.persist(path)
            .with_context(|| format!("--cursor {shown}: cannot rename into place"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_bits_read_back() {
        let flags = [
            true, false, true, true, false, false, false, false, true, false,
        ];
        let s = Seen::new(1, 2, flags.iter().copied());
        assert_eq!(s.rows, 10);
        for (i, f) in flags.iter().enumerate() {
            assert_eq!(s.active(i), Some(*f));
        }
        assert_eq!(s.active(10), None);
    }

    #[test]
    fn another_store_a_newer_schema_and_another_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.json");
        let mut c = Cursor::read(&p, "s1").unwrap();
        c.record(Path::new("/a.jsonl"), Seen::new(1, 2, [true].into_iter()));
        c.write(&p).unwrap();
        assert_eq!(Cursor::read(&p, "s1").unwrap().files.len(), 1);
        let err = |p: &Path| Cursor::read(p, "s1").unwrap_err().to_string();
        assert!(Cursor::read(&p, "s2")
            .unwrap_err()
            .to_string()
            .contains("another session store"));
        std::fs::write(
            &p,
            r#"{"schema":"pisess.facts.cursor","schemaVersion":2,"store":"s1"}"#,
        )
        .unwrap();
        assert!(err(&p).contains("newer pisess"));
        std::fs::write(&p, "[]").unwrap();
        assert!(err(&p).contains("not a pisess facts cursor"));
        std::fs::write(&p, r#"{"schema":"x","schemaVersion":1,"store":"s1"}"#).unwrap();
        assert!(err(&p).contains("not a pisess facts cursor"));
    }
}
