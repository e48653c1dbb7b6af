//! One stream read by several readers at once: standard input can be read only once, and
//! `check -` needs it for its summary, its index and its secrets scan, `stats -` for its summary
//! and its index. Each reader runs on a thread of its own and is handed the bytes through a
//! bounded channel, so memory holds a few chunks, never the stream (a pipe of NUL bytes held
//! whole grew by a gigabyte a second).

use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

/// The bytes read from the stream at a time.
const CHUNK: usize = 256 * 1024;
/// The chunks a reader may lag behind the fastest.
const QUEUED: usize = 4;

/// One reader's end: the stream's bytes as they are read.
pub(crate) struct Branch {
    rx: Receiver<io::Result<Arc<[u8]>>>,
    chunk: Arc<[u8]>,
    at: usize,
}

impl Read for Branch {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.chunk.len() {
            match self.rx.recv() {
                Ok(Ok(chunk)) => {
                    self.chunk = chunk;
                    self.at = 0;
                }
                Ok(Err(e)) => return Err(e),
                // The stream ended.
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A reader of the stream, run on its own thread; it keeps what it finds in what it borrows.
pub(crate) type Reader<'a> = Box<dyn FnOnce(&mut Branch) + Send + 'a>;

/// Reads `input` once, handing every byte to each of `readers` as they run side by side, and
/// returns how many bytes were read. A reader that stops early (an error, or all it needs)
/// is let go; the stream is read no further once none is left. An error reading `input` ends
/// every reader's stream with that error.
pub(crate) fn tee(input: &mut dyn Read, readers: Vec<Reader<'_>>) -> u64 {
    let mut total = 0;
    std::thread::scope(|scope| {
        let mut senders = Vec::with_capacity(readers.len());
        for reader in readers {
            let (tx, rx) = sync_channel(QUEUED);
            senders.push(tx);
            // The stack every reading thread gets: a line nested thousands deep decodes
            // recursively (a default stack overflowed at about 1,000 levels).
            pisess_store::util::stack::spawn_scoped(scope, move || {
                let mut branch = Branch {
                    rx,
                    chunk: Arc::from(&[][..]),
                    at: 0,
                };
                reader(&mut branch);
            });
        }
        let mut buf = vec![0; CHUNK];
        while !senders.is_empty() {
            let chunk = match input.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    total += n as u64;
                    Ok(Arc::from(&buf[..n]))
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => Err(e),
            };
            let failed = chunk.is_err();
            senders.retain(|tx| {
                let sent = match &chunk {
                    Ok(bytes) => Ok(Arc::clone(bytes)),
                    Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
                };
                tx.send(sent).is_ok()
            });
            if failed {
                break;
            }
        }
        // Dropping the senders ends every reader's stream.
        drop(senders);
    });
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream of `len` zero bytes, read in pieces of any size, that counts what was asked.
    struct Zeros {
        left: u64,
    }

    impl Read for Zeros {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = usize::try_from(self.left)
                .unwrap_or(usize::MAX)
                .min(buf.len());
            buf[..n].fill(0);
            self.left -= n as u64;
            Ok(n)
        }
    }

    #[test]
    fn every_reader_sees_every_byte_and_one_may_stop_early() {
        let len = 10 * CHUNK as u64 + 123;
        let (mut a, mut b, mut c) = (0_u64, 0_u64, Vec::new());
        let readers: Vec<Reader> = vec![
            Box::new(|r| a = io::copy(r, &mut io::sink()).unwrap()),
            Box::new(|r| {
                let mut buf = vec![0; 7];
                while let Ok(n @ 1..) = r.read(&mut buf) {
                    b += n as u64;
                }
            }),
            // Reads 10 bytes and goes: the others are not held up.
            Box::new(|r| {
                let mut head = [1_u8; 10];
                r.read_exact(&mut head).unwrap();
                c = head.to_vec();
            }),
        ];
        let total = tee(&mut Zeros { left: len }, readers);
        assert_eq!((total, a, b), (len, len, len));
        assert_eq!(c, vec![0; 10]);
    }

    #[test]
    fn a_read_error_reaches_every_reader() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("gone"))
            }
        }
        let mut got = None;
        let readers: Vec<Reader> = vec![Box::new(|r| {
            got = Some(io::copy(r, &mut io::sink()).unwrap_err().to_string());
        })];
        tee(&mut Broken, readers);
        assert_eq!(got.as_deref(), Some("gone"));
    }
}
