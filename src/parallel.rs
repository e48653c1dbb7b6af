//! Work on every core, results in input order as soon as they are ready: `grep` prints the
//! first session's matches while later files are still read, and memory holds the results of
//! at most [`AHEAD`] files, however many there are.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};

use crate::scan::Reading;

/// How far a worker may run ahead of the result handed out last: enough that a large file
/// does not idle the other cores, few enough that the results waiting behind it stay small.
const AHEAD: usize = 64;

/// The threads to work on: the cores this process may use, up to 8 (files are read one per
/// core; more threads add nothing but contention). Asked once: each asking reads the cgroup's
/// files again, and `show` and `tree` ask for every batch of a session's entries.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8)
    })
}

/// Calls `work` on each item on up to 8 threads (files are read one per core; more threads add
/// nothing but contention) and `emit` on each result in input order, on the calling thread.
/// `emit` breaking stops the work: no item after it is started.
pub(crate) fn ordered<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    mut emit: impl FnMut(R) -> ControlFlow<()>,
) {
    let threads = cores();
    if threads <= 1 || items.len() < 2 {
        for item in items {
            if emit(work(item)).is_break() {
                return;
            }
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // The count of results handed out, which workers wait on to stay within `AHEAD`.
    let emitted = (Mutex::new(0usize), Condvar::new());
    let (tx, rx) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        let mut spawned = 0;
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop, emitted, work) = (&next, &stop, &emitted, &work);
            let worker = move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    return;
                }
                let (lock, ready) = emitted;
                let mut done = lock
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                while i >= *done + AHEAD && !stop.load(Ordering::Relaxed) {
                    done = ready
                        .wait(done)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                drop(done);
                if stop.load(Ordering::Relaxed) || tx.send((i, work(&items[i]))).is_err() {
                    return;
                }
            };
            // A worker may decode a line nested as deep as pisess reads (see `stack`).
            let builder = std::thread::Builder::new().stack_size(crate::stack::SIZE);
            spawned += usize::from(builder.spawn_scoped(scope, worker).is_ok());
        }
        drop(tx);
        // No thread could be made (a memory limit below the reservation): this one does it all.
        if spawned == 0 {
            for item in items {
                if emit(work(item)).is_break() {
                    return;
                }
            }
            return;
        }
        let mut waiting = BTreeMap::new();
        let mut at = 0;
        for (i, r) in &rx {
            waiting.insert(i, r);
            while let Some(r) = waiting.remove(&at) {
                at += 1;
                let broke = emit(r).is_break();
                let (lock, ready) = &emitted;
                *lock
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = at;
                if broke {
                    stop.store(true, Ordering::Relaxed);
                }
                ready.notify_all();
                if broke {
                    return;
                }
            }
        }
    });
}

/// Items rendered together by one worker, and at most this much `weight` among them (a row
/// of a tree that keeps branching is megabytes of indentation).
const CHUNK: usize = 128;
const CHUNK_WEIGHT: usize = 128 << 10;
/// Items taken at a time (and at most this much weight): enough to keep every core busy, few
/// enough that memory holds a few megabytes of them and of their output.
const BATCH: usize = 64 * CHUNK;
const BATCH_WEIGHT: usize = 8 * CHUNK_WEIGHT;

/// Renders `items` with `render` on every core, a chunk of them at a time (up to [`CHUNK`]
/// items and [`CHUNK_WEIGHT`] of `weight`, about the bytes each writes), each chunk into its
/// own buffer with its own fresh `S` (what a worker keeps at hand between items), and writes
/// the buffers to `out` in order. Up to a failing item, its chunk is written before the error
/// is returned, as a loop over the items would have.
pub(crate) fn write_in_order<T: Send + Sync, S: Default>(
    mut items: impl Iterator<Item = T>,
    weight: impl Fn(&T) -> usize,
    out: &mut dyn std::io::Write,
    render: impl Fn(&T, &mut S, &mut Vec<u8>) -> anyhow::Result<()> + Sync,
) -> anyhow::Result<()> {
    loop {
        // The batch, and where each of its chunks ends.
        let (mut batch, mut ends) = (Vec::new(), Vec::new());
        let (mut total, mut chunk) = (0, 0);
        while batch.len() < BATCH && total < BATCH_WEIGHT {
            let Some(item) = items.next() else { break };
            let w = weight(&item);
            (total, chunk) = (total + w, chunk + w);
            batch.push(item);
            let start = ends.last().copied().unwrap_or(0);
            if batch.len() - start == CHUNK || chunk >= CHUNK_WEIGHT {
                ends.push(batch.len());
                chunk = 0;
            }
        }
        if batch.is_empty() {
            return Ok(());
        }
        if ends.last() != Some(&batch.len()) {
            ends.push(batch.len());
        }
        let starts = std::iter::once(0).chain(ends.iter().copied());
        let chunks: Vec<&[T]> = starts.zip(&ends).map(|(a, &b)| &batch[a..b]).collect();
        let mut written = Ok(());
        ordered(
            &chunks,
            |chunk| {
                let (mut state, mut buf) = (S::default(), Vec::new());
                let done = chunk
                    .iter()
                    .try_for_each(|item| render(item, &mut state, &mut buf));
                (buf, done)
            },
            |(buf, done)| {
                written = out.write_all(&buf).map_err(Into::into).and(done);
                match written {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(_) => ControlFlow::Break(()),
                }
            },
        );
        written?;
    }
}

/// Runs `each` on every item on the available cores (up to 8); results keep the input order.
/// `each` is told how to read a file: ahead on a second thread when it runs alone.
///
/// Each worker takes the next item, so one large session does not leave the other cores
/// idle at the end of a fixed share (sizes are very uneven: a few sessions hold most bytes).
/// Not `parallel::ordered`: a listing wants every result at once, and that window's hand-over
/// (a channel, a wake-up per file) cost `ls --all --json` 15% on 2,000 sessions.
pub(crate) fn map<I: Sync, T: Send>(items: &[I], each: impl Fn(&I, Reading) -> T + Sync) -> Vec<T> {
    let threads = cores();
    if threads <= 1 || items.len() < 8 {
        return items.iter().map(|p| each(p, Reading::AheadIfBig)).collect();
    }
    let next = AtomicUsize::new(0);
    // Each result goes straight to its slot: gathered per worker and then put in order, 10,000
    // summaries of a warm listing were moved twice more, and the vectors' growth was a quarter
    // of its page faults.
    // (A `Mutex`, not a `OnceLock`, which would ask the results to be `Sync`.)
    let results: Vec<Mutex<Option<T>>> = std::iter::repeat_with(|| Mutex::new(None))
        .take(items.len())
        .collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else {
            return;
        };
        let done = each(item, Reading::OnThisThread);
        *results[i]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(done);
    };
    std::thread::scope(|scope| {
        // Each worker may decode a deeply nested line (see `stack`); one that cannot be made
        // leaves its share to the others, and the last files to this thread.
        let handles: Vec<_> = (0..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .stack_size(crate::stack::SIZE)
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .collect();
        if handles.is_empty() {
            work();
        }
        for h in handles {
            // A panic in a worker is a bug: re-raise it rather than hide it.
            h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .expect("every item is done once")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_input_order_and_a_break_stops_the_work() {
        let items: Vec<u64> = (0..500).collect();
        let mut got = Vec::new();
        // Uneven work, so later items often finish first.
        ordered(
            &items,
            |&n| {
                std::thread::sleep(std::time::Duration::from_micros((n * 7919) % 300));
                n * 2
            },
            |r| {
                got.push(r);
                ControlFlow::Continue(())
            },
        );
        assert_eq!(got, items.iter().map(|n| n * 2).collect::<Vec<_>>());

        let started = AtomicUsize::new(0);
        let mut seen = 0;
        ordered(
            &items,
            |&n| {
                started.fetch_add(1, Ordering::Relaxed);
                n
            },
            |_| {
                seen += 1;
                if seen == 3 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert_eq!(seen, 3);
        // Workers stay within AHEAD of what was handed out.
        assert!(started.load(Ordering::Relaxed) <= 3 + AHEAD + 8);
    }
}
