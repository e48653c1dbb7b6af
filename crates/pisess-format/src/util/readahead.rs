//! A `BufRead` that reads the next chunk of a file on a second thread while the caller works
//! through the current one.
//!
//! Copying a file out of the page cache (`read`) is most of what `cat` does, and it took a
//! third of a scan's time: done beside the scan instead of before each buffer, it costs the
//! scan almost nothing on a machine with two cores. Only worth a thread for a big file: a
//! small one is read whole at once ([`Slurp`](super::slurp::Slurp)), and `ls` already reads
//! one file per core.

use std::io::{self, BufRead, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread;

/// Bytes per chunk. At most four exist: two read and waiting, one being read, one the caller's.
const CHUNK: usize = 1 << 20;
const AHEAD: usize = 2;

/// Files smaller than this are read on the caller's thread: a thread costs more than it saves.
pub(crate) const WORTH_A_THREAD: u64 = 8 << 20;

pub(crate) struct ReadAhead {
    /// Chunks with how many of their bytes were read; the channel closes after the last.
    chunks: Receiver<io::Result<(Vec<u8>, usize)>>,
    /// Emptied chunks go back to the reading thread, so a few buffers serve a whole file (and
    /// are not zeroed again: each keeps its full length).
    spent: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    filled: usize,
    pos: usize,
    done: bool,
    /// The reading thread. Dropping the handle detaches it: it stops by itself at its next
    /// send once the receiver is gone; tests join it to see that it does.
    _thread: thread::JoinHandle<()>,
}

impl ReadAhead {
    pub(crate) fn new<R: Read + Send + 'static>(mut input: R) -> io::Result<ReadAhead> {
        let (chunk_tx, chunks) = sync_channel(AHEAD);
        let (spent, spent_rx) = sync_channel::<Vec<u8>>(AHEAD + 1);
        let thread = thread::Builder::new()
            .name("readahead".into())
            .spawn(move || loop {
                let mut buf = spent_rx.try_recv().unwrap_or_else(|_| vec![0; CHUNK]);
                let (n, error) = read_full(&mut input, &mut buf);
                // A send fails when the caller went away: stop reading.
                if n > 0 && chunk_tx.send(Ok((buf, n))).is_err() {
                    break;
                }
                if let Some(e) = error {
                    let _ = chunk_tx.send(Err(e));
                    break;
                }
                if n < CHUNK {
                    break;
                }
            })?;
        Ok(ReadAhead {
            chunks,
            spent,
            current: Vec::new(),
            filled: 0,
            pos: 0,
            done: false,
            _thread: thread,
        })
    }
}

/// Fills `buf` as far as the input goes (a short count means the end), and the error that
/// stopped it, if one did: the bytes before an error are still delivered.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> (usize, Option<io::Error>) {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return (n, Some(e)),
        }
    }
    (n, None)
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, out)
    }
}

/// `Read` of a reader that holds its bytes in its own buffer ([`ReadAhead`], `Slurp`): copied
/// out of what `fill_buf` gives.
pub(crate) fn read_buffered(r: &mut impl BufRead, out: &mut [u8]) -> io::Result<usize> {
    let available = r.fill_buf()?;
    let n = available.len().min(out.len());
    out[..n].copy_from_slice(&available[..n]);
    r.consume(n);
    Ok(n)
}

impl BufRead for ReadAhead {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.filled && !self.done {
            match self.chunks.recv() {
                Ok(Ok((chunk, filled))) => {
                    let spent = std::mem::replace(&mut self.current, chunk);
                    if !spent.is_empty() {
                        let _ = self.spent.try_send(spent);
                    }
                    (self.filled, self.pos) = (filled, 0);
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                // The thread has sent its last chunk and gone.
                Err(_) => self.done = true,
            }
        }
        Ok(&self.current[self.pos..self.filled])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.filled);
    }
}

/// How a whole file is read (the scan and the parallel map both choose it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reading {
    /// A big file is read ahead on a second thread (see [`ReadAhead`]).
    #[default]
    AheadIfBig,
    /// On the caller's thread only: `ls` already reads one file per core.
    OnThisThread,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i % 251) as u8).collect()
    }

    #[test]
    fn reads_every_byte_in_order() {
        for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17] {
            let input = bytes(n);
            let mut out = Vec::new();
            ReadAhead::new(io::Cursor::new(input.clone()))
                .unwrap()
                .read_to_end(&mut out)
                .unwrap();
            assert!(out == input, "{n} bytes");
        }
    }

    /// A read error reaches the caller after the bytes read before it.
    #[test]
    fn errors_arrive_in_order() {
        struct Failing(io::Cursor<Vec<u8>>);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                match self.0.read(buf)? {
                    0 => Err(io::Error::other("disk gone")),
                    n => Ok(n),
                }
            }
        }
        let mut reader = ReadAhead::new(Failing(io::Cursor::new(bytes(CHUNK + 5)))).unwrap();
        let mut out = Vec::new();
        let err = reader.read_to_end(&mut out).unwrap_err();
        assert_eq!(err.to_string(), "disk gone");
        assert!(out == bytes(CHUNK + 5));
    }

    /// A caller that stops early (`show | head`) does not wait for the rest of the file.
    #[test]
    fn dropping_early_stops_the_thread() {
        let mut reader = ReadAhead::new(io::repeat(b'x')).unwrap();
        assert_eq!(reader.fill_buf().unwrap().len(), CHUNK);
        // The caller goes away: its end of the channel with it (a partial move would keep the
        // rest of `reader` alive to the end of the scope).
        let ReadAhead {
            chunks,
            _thread: thread,
            ..
        } = reader;
        drop(chunks);
        // An endless input: the thread ends only because the reader went away.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !thread.is_finished() {
            assert!(
                std::time::Instant::now() < deadline,
                "the thread still reads"
            );
            thread::sleep(std::time::Duration::from_millis(5));
        }
        thread.join().unwrap();
    }
}
