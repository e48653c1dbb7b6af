//! Watching a session file pi is writing: the bytes it appends, whole lines at a time.
//!
//! [`FollowedFile`] hands out what was appended since the last call, cut after the last `\n`,
//! so a line pi is half way through writing waits until it is whole (its bytes kept: each byte
//! is read once). What is not a regular file (a FIFO swapped in) is an error, never an open
//! that blocks. It notices a file that shrank (truncated) or whose path now names another file
//! (replaced: pi's rewrite, an editor's save) and says so, to start again from the new file's
//! first byte. It decodes nothing: the caller reads the lines with the one scanner.
//!
//! Not to be confused with `format::scan::Tail`, where a scan of a file stopped (to read it
//! on from there): that one is a position in bytes already read, this one a file still growing.
//!
//! It sleeps between changes: file-system events (`notify`: inotify, FSEvents, ...) wake it, on
//! the file's folder so a replacement is seen too; where events cannot be had, notify's polling
//! watcher stands in. A check every second besides covers events that never come (network
//! file systems). SIGINT wakes it too, so Ctrl-C ends a follow as a finished command (exit 0).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use notify::Watcher as _;

use pisess_format::util::file::FileId;

/// The longest sleep without looking at the file, events or not.
const CHECK_EVERY: Duration = Duration::from_secs(1);

/// What changed since the last call.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// Whole lines appended (each ends with `\n`).
    Appended(Vec<u8>),
    /// The file is shorter than what was read: read again from its start.
    Truncated,
    /// The path names another file now: read it from its start.
    Replaced,
}

/// Why the wait ended without a change.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// SIGINT (Ctrl-C).
    Interrupted,
    /// The deadline passed.
    Idle,
}

enum Wake {
    Fs,
    Interrupt,
}

/// A session file being followed.
pub(crate) struct FollowedFile {
    path: PathBuf,
    /// The file read so far, with its identity; `None` until it exists.
    file: Option<(File, FileId)>,
    /// Bytes read: those handed out (up to just after a `\n`), then [`pending`](Self::pending).
    offset: u64,
    /// The bytes read past the last `\n`: a line pi is still writing. Kept, so that each byte
    /// of the file is read once, however long the line grows before its `\n` comes.
    pending: Vec<u8>,
    /// The last bytes read, to tell a file rewritten to at least the same length (a
    /// truncation and a quick rewrite between two looks) from one appended to.
    seen_tail: Vec<u8>,
    wake: Receiver<Wake>,
    /// Kept alive: dropping it stops the events.
    _watcher: Option<Box<dyn notify::Watcher + Send>>,
}

impl FollowedFile {
    /// Starts watching `path` (which need not exist yet: pi creates a session's file with its
    /// first message).
    pub(crate) fn new(path: &Path) -> FollowedFile {
        let (tx, rx) = mpsc::channel();
        let watcher = watch(path, &tx);
        interrupts(tx);
        FollowedFile {
            path: path.to_path_buf(),
            file: None,
            offset: 0,
            pending: Vec::new(),
            seen_tail: Vec::new(),
            wake: rx,
            _watcher: watcher,
        }
    }

    /// The next change, waiting for one until `deadline` (none: for ever).
    pub(crate) fn next(&mut self, deadline: Option<Instant>) -> io::Result<Result<Change, Stop>> {
        loop {
            if let Some(change) = self.check()? {
                return Ok(Ok(change));
            }
            let now = Instant::now();
            let wait = match deadline {
                Some(d) if d <= now => return Ok(Err(Stop::Idle)),
                Some(d) => (d - now).min(CHECK_EVERY),
                None => CHECK_EVERY,
            };
            match self.wake.recv_timeout(wait) {
                Ok(Wake::Interrupt) => return Ok(Err(Stop::Interrupted)),
                // Several events for one write: take them all before looking once, but not a
                // Ctrl-C among them (dropping it made a follow ignore the first one).
                Ok(Wake::Fs) => {
                    while let Ok(wake) = self.wake.try_recv() {
                        if matches!(wake, Wake::Interrupt) {
                            return Ok(Err(Stop::Interrupted));
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {}
            }
        }
    }

    /// Looks at the file once.
    fn check(&mut self) -> io::Result<Option<Change>> {
        let meta = match std::fs::metadata(&self.path) {
            Ok(meta) => meta,
            // Gone for now (a replacement half done, or not written yet): wait for it.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        // A FIFO, device or directory in its place is refused as the other commands refuse
        // it: opening a FIFO would block until a writer came, deaf to Ctrl-C.
        refuse_irregular(&meta)?;
        let now = FileId::of(&meta);
        match &self.file {
            Some((_, seen)) if *seen != now => {
                self.file = None;
                self.forget();
                return Ok(Some(Change::Replaced));
            }
            Some(_) => {}
            None => self.file = Some(open_regular(&self.path)?),
        }
        let Some((file, _)) = &mut self.file else {
            unreachable!("opened above")
        };
        let len = file.metadata()?.len();
        let read_to = self.offset + self.pending.len() as u64;
        if len < read_to || !still_there(file, read_to, &self.seen_tail)? {
            self.forget();
            return Ok(Some(Change::Truncated));
        }
        if len == read_to {
            return Ok(None);
        }
        // Only what was appended since the last look: the torn line's start is kept.
        let mut bytes = std::mem::take(&mut self.pending);
        let old = bytes.len();
        file.seek(SeekFrom::Start(read_to))?;
        file.take(len - read_to).read_to_end(&mut bytes)?;
        remember_tail(&mut self.seen_tail, &bytes[old..]);
        // A torn last line stays pending until its `\n` comes; only the new bytes are searched.
        let Some(end) = memchr::memrchr(b'\n', &bytes[old..]).map(|at| old + at) else {
            self.pending = bytes;
            return Ok(None);
        };
        self.pending = bytes.split_off(end + 1);
        self.offset += bytes.len() as u64;
        Ok(Some(Change::Appended(bytes)))
    }

    /// Starts again from the first byte (of the same path's new file, or the rewritten one).
    fn forget(&mut self) {
        self.offset = 0;
        self.pending = Vec::new();
        self.seen_tail.clear();
    }
}

/// Keeps the last [`TAIL_KEPT`] bytes of what was read, with `new` the latest.
fn remember_tail(seen: &mut Vec<u8>, new: &[u8]) {
    let keep = new.len().min(TAIL_KEPT);
    let from = (seen.len() + keep).saturating_sub(TAIL_KEPT);
    seen.drain(..from);
    seen.extend_from_slice(&new[new.len() - keep..]);
}

/// An error for what is not a regular file (a symlink to one is followed).
fn refuse_irregular(meta: &std::fs::Metadata) -> io::Result<()> {
    if meta.is_file() {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "not a regular file ({})",
            pisess_format::util::file::kind_of(meta.file_type())
        ),
    ))
}

/// Opens the file without blocking on a FIFO swapped in since it was looked at
/// (`O_NONBLOCK`, which a regular file ignores), and checks what was opened.
fn open_regular(path: &Path) -> io::Result<(File, FileId)> {
    let file = pisess_format::util::file::open_nonblocking(
        path,
        pisess_format::util::file::Links::Follow,
    )?;
    let meta = file.metadata()?;
    refuse_irregular(&meta)?;
    Ok((file, FileId::of(&meta)))
}

/// How many of the last bytes read are checked again before reading on.
const TAIL_KEPT: usize = 256;

/// Whether the file still holds `tail` just before `offset`.
fn still_there(file: &mut File, offset: u64, tail: &[u8]) -> io::Result<bool> {
    if tail.is_empty() {
        return Ok(true);
    }
    let mut now = vec![0; tail.len()];
    file.seek(SeekFrom::Start(offset - tail.len() as u64))?;
    match file.read_exact(&mut now) {
        Ok(()) => Ok(now == tail),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

/// Events on the file's folder (a file replaced by a rename is a new file the old watch would
/// not see); the polling watcher where the platform's events are unavailable (inotify limits).
fn watch(path: &Path, tx: &Sender<Wake>) -> Option<Box<dyn notify::Watcher + Send>> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let handler = {
        let tx = tx.clone();
        move |_: notify::Result<notify::Event>| {
            let _ = tx.send(Wake::Fs);
        }
    };
    if let Ok(mut w) = notify::recommended_watcher(handler.clone()) {
        if w.watch(&dir, notify::RecursiveMode::NonRecursive).is_ok() {
            return Some(Box::new(w));
        }
    }
    let config = notify::Config::default().with_poll_interval(Duration::from_millis(100));
    let mut w = notify::PollWatcher::new(handler, config).ok()?;
    w.watch(path, notify::RecursiveMode::NonRecursive).ok()?;
    Some(Box::new(w))
}

/// SIGINT as a wake-up: the follow ends as a finished command rather than a killed one.
#[cfg(unix)]
fn interrupts(tx: Sender<Wake>) {
    let Ok(mut signals) = signal_hook::iterator::Signals::new([signal_hook::consts::SIGINT]) else {
        return;
    };
    std::thread::spawn(move || {
        for _ in signals.forever() {
            if tx.send(Wake::Interrupt).is_err() {
                return;
            }
        }
    });
}

#[cfg(not(unix))]
fn interrupts(_tx: Sender<Wake>) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn appended(followed: &mut FollowedFile) -> Change {
        let soon = Instant::now() + Duration::from_secs(5);
        followed.next(Some(soon)).unwrap().unwrap()
    }

    #[test]
    fn a_ctrl_c_behind_file_events_is_not_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let (tx, rx) = mpsc::channel();
        let mut followed = FollowedFile {
            path: dir.path().join("none.jsonl"),
            file: None,
            offset: 0,
            pending: Vec::new(),
            seen_tail: Vec::new(),
            wake: rx,
            _watcher: None,
        };
        for wake in [Wake::Fs, Wake::Fs, Wake::Interrupt, Wake::Fs] {
            tx.send(wake).unwrap();
        }
        let soon = Instant::now() + Duration::from_secs(5);
        assert!(matches!(
            followed.next(Some(soon)),
            Ok(Err(Stop::Interrupted))
        ));
    }

    #[test]
    fn whole_lines_then_the_torn_line_when_done_then_truncation_and_replacement() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut followed = FollowedFile::new(&path);
        let soon = Instant::now() + Duration::from_millis(50);
        assert_eq!(
            followed.next(Some(soon)).unwrap(),
            Err(Stop::Idle),
            "no file yet"
        );

        let mut f = File::create(&path).unwrap();
        f.write_all(b"a\nb").unwrap();
        assert_eq!(appended(&mut followed), Change::Appended(b"a\n".to_vec()));
        f.write_all(b"c\n").unwrap();
        assert_eq!(appended(&mut followed), Change::Appended(b"bc\n".to_vec()));

        f.set_len(0).unwrap();
        assert_eq!(appended(&mut followed), Change::Truncated);
        // Rewritten to the same length between two looks: still a new start.
        std::fs::write(&path, b"x\nyz\n").unwrap();
        assert_eq!(
            appended(&mut followed),
            Change::Appended(b"x\nyz\n".to_vec())
        );
        std::fs::write(&path, b"X\nyz\n").unwrap();
        assert_eq!(appended(&mut followed), Change::Truncated);
        assert_eq!(
            appended(&mut followed),
            Change::Appended(b"X\nyz\n".to_vec())
        );
        std::fs::write(&path, b"").unwrap();
        assert_eq!(appended(&mut followed), Change::Truncated);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"d\n").unwrap();
        assert_eq!(appended(&mut followed), Change::Appended(b"d\n".to_vec()));

        let other = dir.path().join("new");
        std::fs::write(&other, b"e\n").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(appended(&mut followed), Change::Replaced);
        assert_eq!(appended(&mut followed), Change::Appended(b"e\n".to_vec()));
    }
}
