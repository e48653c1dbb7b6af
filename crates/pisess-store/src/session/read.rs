//! Reading an indexed entry back from its file: its stored line (by offset, checked against what
//! the index recorded), its line without a long content, and its decoded, migrated value.

use std::io;

use serde_json::Value;

use super::{trim_terminator, without_terminator, Lines, Session, Unchanged};
use pisess_format::json;
use pisess_format::model::{self, Dialect};
use pisess_format::scan::read_exact_at;

/// The error of a read by offset that found other bytes than the index recorded.
#[derive(Debug, thiserror::Error)]
#[error("{0} changed while it was being read")]
struct Changed(String);

impl Session {
    /// The stored bytes of an entry's line, without its terminator.
    pub fn raw_line(&self, i: usize) -> io::Result<Vec<u8>> {
        let mut bytes = self.stored_line(i)?;
        trim_terminator(&mut bytes);
        Ok(bytes)
    }

    /// Entry `i`'s line as [`Session::raw_line`] gives it, but a long `message.content` (a
    /// [`Bulk`]) read as `null`: for readers of the rest of a line (a tool result's role, call
    /// and tool), who then read a few hundred bytes of it, not its output, or none (a short
    /// rest is kept by the index). A file that changed since it was opened is read whole,
    /// with [`Session::stored_line`]'s checks.
    pub fn line_without_content(&self, i: usize) -> io::Result<Vec<u8>> {
        let bulks = &self.tables.bulks;
        let Ok(at) = bulks.binary_search_by_key(&i, |b| b.entry as usize) else {
            return self.raw_line(i);
        };
        let (e, bulk) = (&self.entries[i], &bulks[at]);
        if let Some(rest) = &bulk.rest {
            return Ok(rest.to_vec());
        }
        let (head, tail, len) = (
            bulk.at as usize,
            bulk.at as usize + bulk.len as usize,
            e.len as usize,
        );
        let mut line = match &self.lines {
            Lines::Memory(bytes) => {
                let start = usize::try_from(self.offset(i)).map_err(io::Error::other)?;
                let stored = &bytes[start..start + len];
                [&stored[..head], b"null", &stored[tail..]].concat()
            }
            Lines::File(file, opened_as)
                if file
                    .metadata()
                    .is_ok_and(|m| Unchanged::of(&m) == *opened_as) =>
            {
                let mut line = vec![0; head + 4 + (len - tail)];
                let (before, after) = line.split_at_mut(head);
                let failed = |err: io::Error| self.at_line(i, err.kind(), &err);
                read_exact_at(file, before, self.offset(i)).map_err(failed)?;
                after[..4].copy_from_slice(b"null");
                read_exact_at(file, &mut after[4..], self.offset(i) + tail as u64)
                    .map_err(failed)?;
                line
            }
            _ => return self.raw_line(i),
        };
        trim_terminator(&mut line);
        Ok(line)
    }

    /// The stored bytes of an entry's line exactly as on disk, terminator (`\n`, `\r\n`, or
    /// none on an unterminated last line) included: what `show --json` reproduces.
    pub fn stored_line(&self, i: usize) -> io::Result<Vec<u8>> {
        self.read_entry(i).map_err(|err| self.read_failed(i, err))
    }

    /// [`Session::raw_line`] read into `scratch`, which is kept for the next: a reader of many
    /// lines then allocates and zeroes memory only as its longest line grows.
    pub fn raw_line_in<'b>(&self, i: usize, scratch: &'b mut Vec<u8>) -> io::Result<&'b [u8]> {
        let line = self
            .read_entry_in(i, scratch)
            .map_err(|err| self.read_failed(i, err))?;
        Ok(without_terminator(&scratch[line]))
    }

    /// The lines of `entries` (ascending, as [`Session::raw_line_in`] gives each) read with
    /// one `pread` of the bytes from the first's start to the last's end, and one `fstat`, into
    /// `scratch`: a reader of a run of consecutive entries (an export's branch) made two calls
    /// per entry (68,000 for issue 48's 400 MB session). `None`: read them one at a time, which
    /// names what went wrong: a session held in memory, a file changed since it was opened
    /// (each line is then checked on its own), a failed read, entries out of order.
    pub fn raw_lines_in<'b>(
        &self,
        entries: &[usize],
        scratch: &'b mut Vec<u8>,
    ) -> Option<Vec<&'b [u8]>> {
        let (&first, &last) = (entries.first()?, entries.last()?);
        let Lines::File(file, opened_as) = &self.lines else {
            return None;
        };
        let start = self.offset(first);
        let end = self
            .offset(last)
            .checked_add(self.entries[last].stored_len())?;
        let span = usize::try_from(end.checked_sub(start)?).ok()?;
        if !file
            .metadata()
            .is_ok_and(|m| Unchanged::of(&m) == *opened_as)
        {
            return None;
        }
        if scratch.len() < span {
            scratch.resize(span, 0);
        }
        read_exact_at(file, &mut scratch[..span], start).ok()?;
        let bytes = &scratch[..span];
        let mut from = 0;
        entries
            .iter()
            .map(|&i| {
                let at = usize::try_from(self.offset(i).checked_sub(start)?).ok()?;
                // In order, and each within the bytes read.
                let end = at.checked_add(self.entries[i].len as usize)?;
                let line = bytes.get(at..end).filter(|_| at >= from)?;
                from = end;
                Some(without_terminator(line))
            })
            .collect()
    }

    /// A failed read of entry `i`, named by its line (a file that changed names itself).
    fn read_failed(&self, i: usize, err: io::Error) -> io::Error {
        if err.get_ref().is_some_and(|e| e.is::<Changed>()) {
            err
        } else {
            self.at_line(i, err.kind(), &err)
        }
    }

    /// An error about entry `i`, named `FILE:LINE` as every message about a line is.
    fn at_line(&self, i: usize, kind: io::ErrorKind, e: &dyn std::fmt::Display) -> io::Error {
        let line = self.line(i);
        io::Error::new(kind, format!("{}:{line}: {e}", self.name))
    }

    /// The header's stored line exactly as on disk, terminator included.
    #[cfg(test)]
    pub(crate) fn stored_header(&self) -> io::Result<Vec<u8>> {
        Ok(self.header.stored.clone())
    }

    /// Entry `i`'s stored bytes, read by offset and checked to be the line the index recorded:
    /// pi rewrites a whole file when it migrates it, and bytes at an old offset of a rewritten
    /// file are the middle of other lines. While the file is as it was opened (`fstat`), its
    /// bytes are; once not (an append, or a rewrite), the line read must still be one line of
    /// the recorded length, after a line's end, with the recorded id. Appends pass.
    fn read_entry(&self, i: usize) -> io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        let line = self.read_entry_in(i, &mut buf)?;
        buf.truncate(line.end);
        buf.drain(..line.start);
        Ok(buf)
    }

    /// [`Session::read_entry`] into `buf`, grown when it is shorter than the bytes read (and
    /// zeroed only as far as it grows): where in it the line is.
    fn read_entry_in(&self, i: usize, buf: &mut Vec<u8>) -> io::Result<std::ops::Range<usize>> {
        let e = &self.entries[i];
        let len = e.len as usize;
        let (file, opened_as) = match &self.lines {
            Lines::Memory(bytes) => {
                let start = usize::try_from(self.offset(i)).map_err(io::Error::other)?;
                buf.clear();
                buf.extend_from_slice(&bytes[start..start + len]);
                return Ok(0..len);
            }
            Lines::File(file, opened_as) => (file, *opened_as),
        };
        let changed = || io::Error::other(Changed(self.name.clone()));
        let unchanged = file
            .metadata()
            .is_ok_and(|m| Unchanged::of(&m) == opened_as);
        // The byte before the line too, when checking: it must end a line.
        let before = usize::from(!unchanged && self.offset(i) > 0);
        if buf.len() < len + before {
            buf.resize(len + before, 0);
        }
        match read_exact_at(
            file,
            &mut buf[..len + before],
            self.offset(i) - before as u64,
        ) {
            Err(err) if err.kind() == io::ErrorKind::UnexpectedEof => return Err(changed()),
            other => other?,
        }
        let line = &buf[before..len + before];
        if unchanged {
            return Ok(before..len + before);
        }
        let ends_a_line = before == 0 || buf[0] == b'\n';
        let one_line = memchr::memchr(b'\n', &line[..len.saturating_sub(1)]).is_none();
        if !ends_a_line || !one_line || !self.same_id(i, line) {
            return Err(changed());
        }
        Ok(before..len + before)
    }

    /// Whether a line read again holds entry `i`'s id (v1 ids are assigned by position: the
    /// line's shape is all there is to check).
    fn same_id(&self, i: usize, line: &[u8]) -> bool {
        if self.header.needs_v1_ids() {
            return true;
        }
        pisess_format::scan::stored_id(without_terminator(line), self.header.dialect).as_deref()
            == self.id(i)
    }

    /// The full entry in pi's shape: seed-000 mapped, migrations applied. An error names the
    /// entry's `FILE:LINE`.
    pub fn load(&self, i: usize) -> io::Result<Value> {
        self.decode_entry(i, &self.raw_line(i)?)
    }

    /// Entry `i` decoded from its line ([`Session::raw_line`]), as [`Session::load`] gives it.
    pub fn decode_entry(&self, i: usize, bytes: &[u8]) -> io::Result<Value> {
        let mut value =
            json::decode(bytes).map_err(|e| self.at_line(i, io::ErrorKind::Other, &e))?;
        if self.header.dialect == Dialect::Seed000 {
            value = model::normalize_seed000(value);
        }
        Ok(self.migrated(i, value))
    }

    /// Entry `i` of a pi-dialect file, decoded from its line some other way (`show` decodes
    /// only the start of long texts), in pi's shape: the migrations change ids and roles, never
    /// a text.
    pub fn migrated(&self, i: usize, mut value: Value) -> Value {
        let v1 = self.header.needs_v1_ids().then(|| {
            let first_kept = model::first_kept_entry_index(&value)
                // pi assigns ids in file order and reads the target's id when it reaches the
                // compaction: a target after it has none yet (the header is index 0).
                .filter(|&k| k >= 1 && k <= (i + 1).min(self.entries.len()))
                .map(model::v1_id);
            (self.id(i).unwrap_or(""), self.parent_id(i), first_kept)
        });
        model::migrate_entry(&mut value, &self.header, v1);
        value
    }
}
