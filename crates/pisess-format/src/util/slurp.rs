//! A `BufRead` over a whole small file, read at once into a buffer its thread keeps.
//!
//! `ls` reads thousands of files of a few hundred KB, one per core. Through a `BufReader` of its
//! own, each file cost a 256 KB allocation (fresh pages the kernel zeroed, 3% of `ls`), a
//! duplicated descriptor (`fcntl` and `close`), a read per buffer, and a copy of every line that
//! crossed a buffer's end. Read whole into a buffer its thread reuses, a file takes two reads
//! (the bytes, then the end) and no line is ever copied: each lies whole in the buffer.

use std::cell::Cell;
use std::io::{self, BufRead, Read};

/// The files read whole: those smaller than this. The buffer (a power of two, no larger than
/// this) then stays in a core's L2 cache (1 MB here) between the read's copy and the scan; a
/// bigger file is read a buffer at a time, and its per-file costs are small beside its bytes.
pub(crate) const BELOW: u64 = 1 << 20;

/// A buffer kept for the thread's next file, when it is no larger than this (the buffer of a
/// file that grew while it was read may be larger).
const KEEP: usize = 1 << 20;

/// The least buffer made: a file of a few KB does not start a row of small growths.
const LEAST: usize = 64 << 10;

/// The most a slurp holds: a file that grows past it while it is read (a writer that never
/// stops) is read on a buffer at a time ([`Slurp::stopped_short`]), so memory stays bounded.
const MOST: usize = 4 * BELOW as usize;

thread_local! {
    /// The buffer a thread's last [`Slurp`] gave back: its full length is initialized (zeroed
    /// once, when it grew), so reading into it again touches no fresh page.
    static SPARE: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// A whole input, read before the first byte is handed out; the bytes read before an error
/// come first, then the error.
pub(crate) struct Slurp {
    buf: Vec<u8>,
    filled: usize,
    pos: usize,
    error: Option<io::Error>,
    /// It stopped at [`MOST`] bytes, with the input perhaps not at its end.
    short: bool,
}

impl Slurp {
    /// Reads `input` to its end; `size` (what its metadata says) sizes the buffer, but every
    /// byte up to the end is read, however many there are by then.
    pub(crate) fn new(mut input: impl Read, size: u64) -> Slurp {
        let mut buf = SPARE.try_with(Cell::take).unwrap_or_default();
        // One byte more than the file holds: the read that finds the end needs room to try.
        let want = usize::try_from(size).map_or(usize::MAX, |s| s.saturating_add(1));
        if buf.len() < want {
            // Nothing in it to keep: a new one, by powers of two so that a thread's buffer
            // grows only a few times over a store.
            buf = vec![0; want.checked_next_power_of_two().unwrap_or(want).max(LEAST)];
        }
        let (mut filled, mut error, mut short) = (0, None, false);
        loop {
            if filled == buf.len() {
                // The file grew since its size was taken.
                if filled >= MOST {
                    short = true;
                    break;
                }
                let more = buf.len().saturating_mul(2).clamp(LEAST, MOST.max(filled));
                buf.resize(more, 0);
            }
            match input.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        Slurp {
            buf,
            filled,
            pos: 0,
            error,
            short,
        }
    }

    /// It holds [`MOST`] bytes and the input may have more: the caller reads the rest from
    /// where the slurp stopped.
    pub(crate) fn stopped_short(&self) -> bool {
        self.short
    }
}

impl Read for Slurp {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        super::readahead::read_buffered(self, out)
    }
}

impl BufRead for Slurp {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.filled {
            if let Some(e) = self.error.take() {
                return Err(e);
            }
        }
        Ok(&self.buf[self.pos..self.filled])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.filled);
    }
}

impl Drop for Slurp {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        if buf.len() <= KEEP {
            // A thread that is ending keeps nothing.
            let _ = SPARE.try_with(|spare| spare.set(buf));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i % 251) as u8).collect()
    }

    fn read_all(mut r: impl Read) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        r.read_to_end(&mut out).map(|_| out)
    }

    /// Every byte, whether the size given is right, too small (the file grew since its
    /// metadata was taken) or too large (it shrank); and a reused buffer's old bytes never
    /// show through.
    #[test]
    fn reads_every_byte_whatever_the_size_said() {
        for n in [0, 1, LEAST - 1, LEAST, LEAST + 1, 5 * LEAST + 17, 3] {
            let input = bytes(n);
            for size in [n as u64, 0, n as u64 / 2, n as u64 * 3 + 10] {
                let got = read_all(Slurp::new(io::Cursor::new(input.clone()), size)).unwrap();
                assert!(got == input, "{n} bytes, size {size}");
            }
        }
    }

    /// A slurp holds at most `MOST` bytes, however far its input grew; the rest is still in
    /// the input, where the caller reads it on.
    #[test]
    fn a_growing_input_stops_at_the_most() {
        let input = bytes(MOST + 3 * LEAST + 5);
        let mut cursor = io::Cursor::new(input.clone());
        let slurp = Slurp::new(&mut cursor, 10);
        assert!(slurp.stopped_short());
        assert_eq!(slurp.buf.len(), MOST);
        assert_eq!(cursor.position(), MOST as u64);
        assert!(read_all(slurp.chain(cursor)).unwrap() == input);
        let whole = Slurp::new(io::Cursor::new(bytes(MOST - 1)), 10);
        assert!(!whole.stopped_short());
    }

    /// The buffer goes back to the thread, and serves the next file without growing.
    #[test]
    fn the_buffer_is_kept_for_the_next_file() {
        let first = Slurp::new(io::Cursor::new(bytes(100_000)), 100_000);
        let at = first.buf.as_ptr();
        drop(first);
        let second = Slurp::new(io::Cursor::new(bytes(50_000)), 50_000);
        assert_eq!(second.buf.as_ptr(), at);
        // A slurp inside another one's life (a nested scan) takes a buffer of its own.
        let third = Slurp::new(io::Cursor::new(bytes(10)), 10);
        assert_ne!(third.buf.as_ptr(), at);
    }

    /// A read error reaches the caller after the bytes read before it.
    #[test]
    fn errors_arrive_after_the_bytes() {
        struct Failing(io::Cursor<Vec<u8>>);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(1000);
                match self.0.read(&mut buf[..n])? {
                    0 => Err(io::Error::other("disk gone")),
                    n => Ok(n),
                }
            }
        }
        let mut reader = Slurp::new(Failing(io::Cursor::new(bytes(5000))), 5000);
        let mut out = Vec::new();
        let err = reader.read_to_end(&mut out).unwrap_err();
        assert_eq!(err.to_string(), "disk gone");
        assert!(out == bytes(5000));
    }
}
