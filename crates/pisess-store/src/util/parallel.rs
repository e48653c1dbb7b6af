//! Work on every core, results in input order as soon as they are ready: `grep` prints the
//! first session's matches while later files are still read, and memory holds the results of
//! at most [`AHEAD`] files, however many there are.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};

use pisess_format::util::readahead::Reading;

use crate::util::progress;

/// How far a worker may run ahead of the result handed out last: enough that a large file
/// does not idle the other cores, few enough that the results waiting behind it stay small.
const AHEAD: usize = 64;

/// The threads to work on: the cores this process may use, up to 8 (files are read one per
/// core; more threads add nothing but contention). Asked once: each asking reads the cgroup's
/// files again, and `show` and `tree` used to ask for every batch of a session's entries.
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8)
    })
}

/// Calls `work` on each item on up to 8 threads and `emit` on each result in input order, on
/// the calling thread. `emit` breaking stops the work: no item after it is started.
pub fn ordered<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
    mut emit: impl FnMut(R) -> ControlFlow<()>,
) {
    if items.len() < 2 {
        for item in items {
            if emit(work(item)).is_break() {
                return;
            }
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let take = || {
        let i = next.fetch_add(1, Ordering::Relaxed);
        items.get(i).map(|item| (i, item))
    };
    in_order(take, AHEAD, work, emit);
}

/// Calls `work` on each item `take` gives on every core and `emit` on each result in the
/// order of the numbers `take` gave them (0, 1, 2...), on the calling thread, with no worker
/// more than `ahead` items past the result emitted last. `emit` breaking stops the work.
///
/// The calling thread is one of the workers: between its own items it emits what the others
/// have sent, and it sleeps only when its next item lies past the window. (Waiting on the
/// channel while the others worked cost a wake-up and a switch per result, and a `notify_all`
/// per result emitted cost a `futex` call more: 9,000 of them for `grep` of 2,000 files.)
fn in_order<T, R: Send>(
    take: impl Fn() -> Option<(usize, T)> + Sync,
    ahead: usize,
    work: impl Fn(T) -> R + Sync,
    mut emit: impl FnMut(R) -> ControlFlow<()>,
) {
    let alone = |emit: &mut dyn FnMut(R) -> ControlFlow<()>| {
        while let Some((_, item)) = take() {
            if emit(work(item)).is_break() {
                return;
            }
        }
    };
    if cores() <= 1 {
        return alone(&mut emit);
    }
    let stop = AtomicBool::new(false);
    // The count of results emitted and of the workers waiting for it to grow (to stay
    // within `ahead`): woken only when one is.
    let gate = (Mutex::new(Gate::default()), Condvar::new());
    let (tx, rx) = mpsc::channel::<(usize, R)>();
    std::thread::scope(|scope| {
        for _ in 1..cores() {
            let tx = tx.clone();
            let (stop, gate, take, work) = (&stop, &gate, &take, &work);
            let worker = move || {
                while let Some((i, item)) = take() {
                    let (lock, ready) = gate;
                    let mut g = lock
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    while i >= g.emitted + ahead && !stop.load(Ordering::Relaxed) {
                        g.sleeping += 1;
                        g = ready
                            .wait(g)
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        g.sleeping -= 1;
                    }
                    drop(g);
                    if stop.load(Ordering::Relaxed) || tx.send((i, work(item))).is_err() {
                        return;
                    }
                }
            };
            // A worker may decode a line nested as deep as pisess reads (see `stack`).
            let builder = std::thread::Builder::new().stack_size(crate::util::stack::SIZE);
            // No thread could be made (a memory limit below the reservation): this one does
            // the rest.
            let _ = builder.spawn_scoped(scope, worker);
        }
        drop(tx);
        let publish = |at: usize, broke: bool| {
            let (lock, ready) = &gate;
            let mut g = lock
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            g.emitted = at;
            stop.store(broke, Ordering::Relaxed);
            if g.sleeping > 0 || broke {
                ready.notify_all();
            }
        };
        let mut waiting = BTreeMap::new();
        let mut at = 0;
        // This thread's next item, and whether `take` has none left.
        let mut own: Option<(usize, T)> = None;
        let mut exhausted = false;
        // Whether every other worker has ended (the channel is closed and empty).
        let mut alone_now = false;
        loop {
            let was = at;
            while let Some(r) = waiting.remove(&at) {
                at += 1;
                if emit(r).is_break() {
                    return publish(at, true);
                }
            }
            if at != was {
                publish(at, false);
            }
            if own.is_none() && !exhausted {
                own = take();
                exhausted = own.is_none();
            }
            match own.take() {
                // Past the window only while others may still send what comes before it.
                Some((i, item)) if i < at + ahead || alone_now => {
                    waiting.insert(i, work(item));
                }
                mine => {
                    own = mine;
                    match rx.recv() {
                        Ok((i, r)) => {
                            waiting.insert(i, r);
                        }
                        Err(_) if own.is_some() => alone_now = true,
                        // Nothing left to take or to receive: the loop's top emitted the last.
                        Err(_) => return,
                    }
                }
            }
            while let Ok((i, r)) = rx.try_recv() {
                waiting.insert(i, r);
            }
        }
    });
}

/// What the workers of [`in_order`] wait on.
#[derive(Default)]
struct Gate {
    emitted: usize,
    sleeping: usize,
}

/// Items rendered together by one worker, and at most this much `weight` among them (a row
/// of a tree that keeps branching is megabytes of indentation).
const CHUNK: usize = 128;
const CHUNK_WEIGHT: usize = 128 << 10;
/// Chunks a worker may run ahead of the one written last: enough to keep every core busy
/// past a slow chunk, few enough that memory holds a few megabytes of output (`tree` of a
/// million entries peaked 7 MB higher at 16).
const CHUNKS_AHEAD: usize = 8;

/// Renders `items` with `render` on every core, a chunk of them at a time (up to [`CHUNK`]
/// items and [`CHUNK_WEIGHT`] of `weight`, about the bytes each writes), each chunk into its
/// own buffer with its own fresh `S` (what a worker keeps at hand between items), and writes
/// the buffers to `out` in order. Up to a failing item, its chunk is written before the error
/// is returned, as a loop over the items would have.
///
/// The workers take chunks from the items as they go, and stay for the whole run: in batches
/// that each started its threads, every batch's end left a core idle, and `show` of a
/// 400 MB session made 119 of them.
pub fn write_in_order<T: Send, S: Default>(
    items: impl Iterator<Item = T> + Send,
    weight: impl Fn(&T) -> usize + Sync,
    out: &mut dyn std::io::Write,
    render: impl Fn(&T, &mut S, &mut Vec<u8>) -> anyhow::Result<()> + Sync,
) -> anyhow::Result<()> {
    // The items and the number of the next chunk taken from them, taken together.
    let source = Mutex::new((items.fuse(), 0usize));
    let take = || {
        let mut source = source
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (items, taken) = &mut *source;
        let (mut chunk, mut total) = (Vec::new(), 0);
        while chunk.len() < CHUNK && total < CHUNK_WEIGHT {
            let Some(item) = items.next() else { break };
            total += weight(&item);
            chunk.push(item);
        }
        *taken += 1;
        (!chunk.is_empty()).then(|| (*taken - 1, chunk))
    };
    let render_chunk = |chunk: Vec<T>| {
        let (mut state, mut buf) = (S::default(), Vec::new());
        let done = chunk
            .iter()
            .try_for_each(|item| render(item, &mut state, &mut buf));
        (buf, done)
    };
    let mut written = Ok(());
    in_order(take, CHUNKS_AHEAD, render_chunk, |(buf, done)| {
        written = out.write_all(&buf).map_err(Into::into).and(done);
        match written {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    });
    written
}

/// Runs `each` on every item on the available cores (up to 8); results keep the input order.
/// `each` is told how to read a file: ahead on a second thread when it runs alone.
///
/// Each worker takes the next item, so one large session does not leave the other cores
/// idle at the end of a fixed share (sizes are very uneven: a few sessions hold most bytes).
/// Not `parallel::ordered`: a listing wants every result at once, and that window's hand-over
/// (a channel, a wake-up per file) cost `ls --all --json` 15% on 2,000 sessions.
pub(crate) fn map<I: Sync, T: Send>(items: &[I], each: impl Fn(&I, Reading) -> T + Sync) -> Vec<T> {
    map_from(8, items, each)
}

/// [`map`] over session files, a run the progress display is told of ([`progress`]): each
/// file is done as its result is made, on the worker that made it.
pub(crate) fn map_files<T: Send>(
    files: &[PathBuf],
    each: impl Fn(&PathBuf, Reading) -> T + Sync,
) -> Vec<T> {
    let _run = progress::begin(files);
    map(files, |path, reading| {
        let done = each(path, reading);
        progress::done(path);
        done
    })
}

/// [`map`] on one thread for fewer than `least` items (a few files are read sooner than
/// threads are made; a few large tasks are not).
pub(crate) fn map_from<I: Sync, T: Send>(
    least: usize,
    items: &[I],
    each: impl Fn(&I, Reading) -> T + Sync,
) -> Vec<T> {
    let threads = cores();
    if threads <= 1 || items.len() < least.max(2) {
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
                    .stack_size(crate::util::stack::SIZE)
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

    /// A slow first item holds every worker, the calling thread among them, within the
    /// window: no more than `AHEAD` items past it (and one in hand each) are started before
    /// it is emitted, and none is lost or emitted twice.
    #[test]
    fn a_slow_item_holds_the_window() {
        let items: Vec<u64> = (0..400).collect();
        let started = AtomicUsize::new(0);
        let mut at_first = None;
        let mut got = Vec::new();
        ordered(
            &items,
            |&n| {
                started.fetch_add(1, Ordering::Relaxed);
                if n == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(200));
                }
                n
            },
            |r| {
                at_first.get_or_insert(started.load(Ordering::Relaxed));
                got.push(r);
                ControlFlow::Continue(())
            },
        );
        assert_eq!(got, items);
        let at_first = at_first.expect("emitted");
        assert!(at_first <= AHEAD + cores() + 1, "{at_first} started");
        if cores() > 1 {
            // The others did not idle while the first item was in hand.
            assert!(at_first >= AHEAD, "{at_first} started");
        }
    }

    /// Written as a loop over the items would write them, whatever the chunks: in order, each
    /// chunk with a fresh state; up to a failing item and its error; a failing writer's error.
    #[test]
    fn chunks_are_written_as_a_loop_writes_the_items() {
        let items = || (0..20_000u64).map(|n| (n, (n * 7919) % 40_000));
        let render = |&(n, _): &(u64, u64), seen: &mut u64, buf: &mut Vec<u8>| {
            if n % 997 == 0 {
                // Uneven work, so later chunks often finish first.
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            *seen += 1;
            buf.extend(format!("{n}\n").bytes());
            anyhow::ensure!(n != 13_333, "item {n} failed");
            Ok(())
        };
        let weight = |&(_, w): &(u64, u64)| w as usize;
        let mut out = Vec::new();
        let err = write_in_order(items(), weight, &mut out, render).unwrap_err();
        assert_eq!(err.to_string(), "item 13333 failed");
        let want: String = (0..=13_333).map(|n| format!("{n}\n")).collect();
        assert_eq!(String::from_utf8(out).unwrap(), want);

        // Each chunk starts from a fresh state: no chunk renders more than `CHUNK` items.
        let mut out = Vec::new();
        let fresh = |&(n, _): &(u64, u64), seen: &mut usize, buf: &mut Vec<u8>| {
            *seen += 1;
            assert!(*seen <= CHUNK);
            buf.extend(format!("{n}\n").bytes());
            Ok(())
        };
        write_in_order((0..5_000u64).map(|n| (n, 1)), weight, &mut out, fresh).unwrap();
        let want: String = (0..5_000).map(|n| format!("{n}\n")).collect();
        assert_eq!(String::from_utf8(out).unwrap(), want);

        struct Full(usize);
        impl std::io::Write for Full {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                if self.0 < buf.len() {
                    return Err(std::io::ErrorKind::BrokenPipe.into());
                }
                self.0 -= buf.len();
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let err = write_in_order(items(), weight, &mut Full(1 << 16), |_, _: &mut (), buf| {
            buf.extend(b"0123456789");
            Ok(())
        })
        .unwrap_err();
        assert!(err.to_string().contains("roken pipe"), "{err}");
    }
}
