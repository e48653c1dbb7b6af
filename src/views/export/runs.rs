//! The branch of an export read a run of nearby entries at a time (issue 48): one `fstat` and
//! one `pread` per run ([`Session::raw_lines_in`]), where each entry took one of each.

use pisess_store::session::Session;

use super::transcript::{decoded, Decode, Loaded};

/// The most bytes one read of a run of the branch's entries takes ([`runs`]): a worker's
/// buffer, kept from one run to the next (1 MiB made the peak RSS 2 MB larger).
const RUN_BYTES: u64 = 256 << 10;
/// A worker's buffer grown past this by a long line is not kept.
const KEEP_BYTES: usize = 1 << 20;
/// The most bytes between two entries of a run (lines off the branch) read and passed over.
const RUN_GAP: u64 = 16 << 10;

/// The branch cut into runs of entries whose lines lie close together in the file, each read
/// with one `pread` ([`Session::raw_lines_in`]): position ranges into `path`.
pub(super) fn runs(session: &Session, path: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut runs = Vec::new();
    let mut start = 0;
    for k in 1..=path.len() {
        let joins = path.get(k).is_some_and(|&i| {
            let (first, last) = (path[start], path[k - 1]);
            let last_end = session.offset(last) + session.entries[last].stored_len();
            let end = session.offset(i) + session.entries[i].stored_len();
            i > last
                && session.offset(i) >= last_end
                && session.offset(i) - last_end <= RUN_GAP
                && end - session.offset(first) <= RUN_BYTES
        });
        if !joins {
            runs.push(start..k);
            start = k;
        }
    }
    runs
}

/// The entries of a run read and decoded (on a worker): typed where [`decode::message`]
/// reads them.
pub(super) fn load_run(
    session: &Session,
    entries: &[usize],
    how: Decode,
) -> Vec<(usize, std::io::Result<Loaded>)> {
    thread_local! {
        // Each worker's buffer for the lines it reads, kept from one run to the next: a fresh
        // one a line was allocated and zeroed each time (3% of an export).
        static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    SCRATCH.with_borrow_mut(|scratch| {
        // Made its full size at once: grown a run at a time, it was copied and zeroed again
        // at each doubling (2% more instructions).
        if scratch.len() < RUN_BYTES as usize {
            scratch.resize(RUN_BYTES as usize, 0);
        }
        let loaded = match session.raw_lines_in(entries, scratch) {
            Some(lines) => entries
                .iter()
                .zip(lines)
                .map(|(&i, line)| (i, decoded(session, i, how, line)))
                .collect(),
            // One at a time: each read names its own failure.
            None => entries
                .iter()
                .map(|&i| {
                    let line = session.raw_line_in(i, scratch);
                    (i, line.and_then(|line| decoded(session, i, how, line)))
                })
                .collect(),
        };
        // A long line's buffer is not kept by an idle worker.
        if scratch.capacity() > KEEP_BYTES {
            *scratch = Vec::new();
        }
        loaded
    })
}
