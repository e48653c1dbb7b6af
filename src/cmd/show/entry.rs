//! One entry read for output: decoded for its block (shortened unless `--full`), or its stored
//! line written as it is. Shared by `show` and `show -f`, which is why it is not in `show.rs`.

use std::cell::RefCell;
use std::io::{self, Write};

use serde_json::Value;

use super::shorten;
use pisess_format::model::cut::Cuts;
use pisess_format::model::Dialect;
use pisess_store::session::Session;

/// Entry `i` decoded for its block. A cut block decodes only the start of long texts;
/// `--full` and seed 000's files (whose entries are rebuilt) decode the line whole.
pub(super) fn decode_for_block(
    session: &Session,
    i: usize,
    full: bool,
) -> io::Result<(Value, Cuts)> {
    thread_local! {
        /// Each worker's line buffer: one allocated (and zeroed) per block was a tenth of
        /// `show`'s instructions on the 400 MB benchmark session.
        static LINE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    LINE.with_borrow_mut(|scratch| {
        let bytes = session.raw_line_in(i, scratch)?;
        let shortened = (!full && session.header.dialect == Dialect::Pi)
            .then(|| shorten::decode(bytes, session.kind(i)))
            .flatten();
        let decoded = match shortened {
            Some((value, cuts)) => (session.migrated(i, value), cuts),
            None => (session.decode_entry(i, bytes)?, Cuts::default()),
        };
        // A huge line's buffer is not held for the rest of the run.
        if scratch.len() > SCRATCH_KEPT {
            *scratch = Vec::new();
        }
        Ok(decoded)
    })
}

/// The longest line buffer a worker keeps between blocks.
const SCRATCH_KEPT: usize = 4 << 20;

/// A stored line, byte for byte (CRLF kept); a last line without `\n` gets one, so the output
/// is always NDJSON. On a terminal (`escape`), the C1 and bidi controls in it are written as
/// `\u` escapes (`format::surrogates::escape_json_line`): the same value, which the terminal does not act on.
pub(super) fn write_line(out: &mut dyn Write, bytes: &[u8], escape: bool) -> io::Result<()> {
    if escape {
        out.write_all(&pisess_format::surrogates::escape_json_line(bytes))?;
    } else {
        out.write_all(bytes)?;
    }
    if bytes.last() != Some(&b'\n') {
        out.write_all(b"\n")?;
    }
    Ok(())
}
