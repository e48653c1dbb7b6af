//! The progress line of a long run over a store (issue 49): when stderr is a terminal and a
//! run over files ([`pisess_store::util::progress`]) passes [`AFTER`], one line on stderr says
//! the files and bytes done of the total, the rate and the time left; it is cleared when the
//! run ends. Never without a terminal, never with `-q`, never when `CI` is set unless
//! `PISESS_PROGRESS=1` asks for it, never with `PISESS_PROGRESS=0`; never in stdout. A run that
//! ends sooner draws nothing.
//!
//! indicatif draws it on its own ticker thread and erases it; the workers only add to two
//! atomics per file. Whatever else is written to the terminal while the line is shown (a
//! warning, `grep`'s matches) goes through [`Suspending`], which takes the line away around
//! whole lines of text.

use std::ffi::OsStr;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use pisess_store::util::progress::{Watch, TEST_HOOKS};

use crate::app::env::Env;

/// How long a run goes unreported: most runs (a warm listing, one session) end before it, and
/// draw nothing.
pub const AFTER: Duration = Duration::from_millis(300);

/// How the line is drawn, when it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// After [`AFTER`], redrawn by indicatif's ticker.
    Steady,
    /// A test hook (`PISESS_PROGRESS_FRAMES` set, in builds with test hooks): shown at once and
    /// drawn once per file, so a test sees every count without depending on time. Whether the
    /// line is shown at all is decided as ever.
    Frames,
}

/// Whether this run shows progress: `setting` is `$PISESS_PROGRESS` (`0` never, `1` even when
/// `CI` is set), `ci` whether `$CI` is set, `frames` the test hook.
pub fn wanted(env: &Env, setting: Option<&OsStr>, ci: bool, frames: bool) -> Option<Mode> {
    if !env.stderr_tty || env.quiet {
        return None;
    }
    let on = match setting.and_then(OsStr::to_str) {
        Some("0") => false,
        Some("1") => true,
        _ => !ci,
    };
    let mode = if frames && TEST_HOOKS {
        Mode::Frames
    } else {
        Mode::Steady
    };
    on.then_some(mode)
}

/// Reads `$PISESS_PROGRESS` and `$CI` and installs the display when they, the terminal and
/// `-q` want it. Called once by the binary, after completion (which never shows progress).
pub fn install(env: &Env) {
    let setting = std::env::var_os("PISESS_PROGRESS");
    let set = |var| std::env::var_os(var).is_some_and(|v| !v.is_empty());
    let mode = wanted(
        env,
        setting.as_deref(),
        set("CI"),
        set("PISESS_PROGRESS_FRAMES"),
    );
    if let Some(mode) = mode {
        let display: &'static Display = Box::leak(Box::new(Display::new(mode)));
        pisess_store::util::progress::watch(display);
    }
}

/// What the workers count, read by the line when it is drawn.
#[derive(Default)]
struct Counts {
    files: AtomicU64,
    bytes: AtomicU64,
}

/// The display: the run in progress, if any.
pub struct Display {
    mode: Mode,
    counts: Arc<Counts>,
    current: Mutex<Option<Current>>,
}

/// A run: its line (hidden until shown), whether it has ended, and the thread that shows the
/// line once [`AFTER`] has passed.
struct Current {
    bar: ProgressBar,
    ended: Arc<(Mutex<bool>, Condvar)>,
    timer: Option<std::thread::JoinHandle<()>>,
}

/// The line shown now, for [`Suspending`] writers.
static SHOWN: Mutex<Option<ProgressBar>> = Mutex::new(None);
/// Whether [`SHOWN`] holds one: a writer with nothing shown takes no lock.
static SHOWING: AtomicBool = AtomicBool::new(false);

fn shown() -> Option<ProgressBar> {
    if !SHOWING.load(Ordering::Acquire) {
        return None;
    }
    SHOWN.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

impl Display {
    fn new(mode: Mode) -> Display {
        Display {
            mode,
            counts: Arc::default(),
            current: Mutex::new(None),
        }
    }

    fn current(&self) -> std::sync::MutexGuard<'_, Option<Current>> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Watch for Display {
    fn begin(&self, files: &[PathBuf]) {
        // A run begun inside another (none is, today) ends the outer one's line: one line, one
        // count, never a line left behind.
        if let Some(outer) = self.current().take() {
            outer.finish();
        }
        self.counts.files.store(0, Ordering::Relaxed);
        self.counts.bytes.store(0, Ordering::Relaxed);
        let bar = ProgressBar::hidden();
        let ended = Arc::new((Mutex::new(false), Condvar::new()));
        let started = Instant::now();
        let timer = match self.mode {
            Mode::Frames => {
                show(&bar, files, &self.counts, started, &ended);
                bar.force_draw();
                None
            }
            Mode::Steady => {
                let (bar, files, counts, ended) = (
                    bar.clone(),
                    files.to_vec(),
                    Arc::clone(&self.counts),
                    Arc::clone(&ended),
                );
                // No thread (a memory limit): the run goes unreported.
                std::thread::Builder::new()
                    .name("progress".into())
                    .spawn(move || {
                        let (lock, ring) = &*ended;
                        let waited = ring.wait_timeout_while(
                            lock.lock().unwrap_or_else(PoisonError::into_inner),
                            AFTER,
                            |ended| !*ended,
                        );
                        let ended_early = waited.map_or(true, |(ended, _)| *ended);
                        if !ended_early {
                            show(&bar, &files, &counts, started, &ended);
                            bar.enable_steady_tick(Duration::from_millis(100));
                        }
                    })
                    .ok()
            }
        };
        *self.current() = Some(Current { bar, ended, timer });
    }

    fn done(&self, file: &Path) {
        // The file's size as it is now: what was read of it, give or take an append.
        let bytes = std::fs::metadata(file).map_or(0, |m| m.len());
        self.counts.files.fetch_add(1, Ordering::Relaxed);
        self.counts.bytes.fetch_add(bytes, Ordering::Relaxed);
        if self.mode == Mode::Frames {
            if let Some(c) = &*self.current() {
                c.bar.force_draw();
            }
        }
    }

    fn end(&self) {
        if let Some(c) = self.current().take() {
            c.finish();
        }
    }
}

impl Current {
    /// Ends the run: its line, if shown, is erased, and the timer is gone before that.
    fn finish(mut self) {
        {
            let (lock, ring) = &*self.ended;
            *lock.lock().unwrap_or_else(PoisonError::into_inner) = true;
            ring.notify_all();
        }
        // Once the timer is gone, nothing can show the line again.
        if let Some(timer) = self.timer.take() {
            let _ = timer.join();
        }
        SHOWING.store(false, Ordering::Release);
        SHOWN.lock().unwrap_or_else(PoisonError::into_inner).take();
        // A hidden line (a run shorter than `AFTER`) clears nothing: nothing was drawn.
        self.bar.finish_and_clear();
    }
}

/// Shows `bar` for a run over `files`, unless the run has ended: the totals, the line's
/// format, stderr as its target. The check and the showing are one step under `ended`'s lock,
/// so `end` either finds the line shown or keeps it from ever showing.
fn show(
    bar: &ProgressBar,
    files: &[PathBuf],
    counts: &Arc<Counts>,
    started: Instant,
    ended: &(Mutex<bool>, Condvar),
) {
    let total_bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum();
    let line = Line {
        counts: Arc::clone(counts),
        files: files.len() as u64,
        bytes: total_bytes,
    };
    let ended = ended.0.lock().unwrap_or_else(PoisonError::into_inner);
    if *ended {
        return;
    }
    let style = ProgressStyle::with_template("{line}")
        .expect("a valid template")
        .with_key(
            "line",
            move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}", line.text(started.elapsed()));
            },
        );
    bar.set_style(style);
    bar.set_draw_target(ProgressDrawTarget::stderr());
    *SHOWN.lock().unwrap_or_else(PoisonError::into_inner) = Some(bar.clone());
    SHOWING.store(true, Ordering::Release);
}

/// What the line says, from the counts and the totals.
#[derive(Clone)]
struct Line {
    counts: Arc<Counts>,
    files: u64,
    bytes: u64,
}

impl Line {
    /// `1204/10000 files  512.00 MiB/2.20 GiB  180.00 MiB/s  10s left` (`1m 05s left`).
    fn text(&self, elapsed: Duration) -> String {
        let files = self.counts.files.load(Ordering::Relaxed);
        let bytes = self.counts.bytes.load(Ordering::Relaxed);
        let mut text = format!(
            "{files}/{} files  {}/{}",
            self.files,
            HumanBytes(bytes),
            HumanBytes(self.bytes)
        );
        let secs = elapsed.as_secs_f64();
        if bytes > 0 && secs > 0.0 {
            let rate = bytes as f64 / secs;
            let left = (self.bytes.saturating_sub(bytes) as f64 / rate).ceil() as u64;
            let left = if left < 60 {
                format!("{left}s")
            } else {
                format!("{}m {:02}s", left / 60, left % 60)
            };
            text.push_str(&format!("  {}/s  {left} left", HumanBytes(rate as u64)));
        }
        text
    }
}

/// A writer to the terminal the line is on: while the line is shown, text is written a whole
/// line at a time with the line taken away (and drawn again after), so neither cuts into the
/// other; otherwise straight through, as if this were not here.
pub struct Suspending<W: Write> {
    inner: W,
    /// The part of a line written while the line is shown, until its newline.
    held: Vec<u8>,
}

impl<W: Write> Suspending<W> {
    pub fn new(inner: W) -> Self {
        Suspending {
            inner,
            held: Vec::new(),
        }
    }

    fn write_held(&mut self, bar: Option<&ProgressBar>, upto: usize) -> io::Result<()> {
        let lines: Vec<u8> = self.held.drain(..upto).collect();
        let inner = &mut self.inner;
        let mut write = || inner.write_all(&lines).and_then(|()| inner.flush());
        match bar {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
    }
}

impl<W: Write> Write for Suspending<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(bar) = shown() else {
            if !self.held.is_empty() {
                self.write_held(None, self.held.len())?;
            }
            return self.inner.write(buf);
        };
        self.held.extend_from_slice(buf);
        if let Some(last) = memchr::memrchr(b'\n', &self.held) {
            self.write_held(Some(&bar), last + 1)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.held.is_empty() {
            self.write_held(shown().as_ref(), self.held.len())?;
        }
        self.inner.flush()
    }
}

impl<W: Write> Drop for Suspending<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_files_bytes_rate_and_time_left() {
        let counts = Arc::new(Counts::default());
        counts.files.store(3, Ordering::Relaxed);
        counts.bytes.store(3 << 20, Ordering::Relaxed);
        let line = Line {
            counts,
            files: 10,
            bytes: 10 << 20,
        };
        assert_eq!(
            line.text(Duration::from_secs(1)),
            "3/10 files  3.00 MiB/10.00 MiB  3.00 MiB/s  3s left"
        );
        assert_eq!(
            line.text(Duration::from_secs(40)),
            "3/10 files  3.00 MiB/10.00 MiB  76.80 KiB/s  1m 34s left"
        );
        let empty = Line {
            counts: Arc::default(),
            ..line
        };
        assert_eq!(empty.text(Duration::ZERO), "0/10 files  0 B/10.00 MiB");
    }

    fn env(stderr_tty: bool, quiet: bool) -> Env {
        let mut facts = crate::app::env::Facts::for_test("/home/dev", "/home/dev", 0);
        facts.stderr_tty = stderr_tty;
        let global = crate::app::global::GlobalArgs {
            quiet,
            ..Default::default()
        };
        Env::new(&global, facts)
    }

    #[test]
    fn shown_on_a_terminal_without_q_and_on_ci_only_when_asked() {
        let (one, zero) = (Some(OsStr::new("1")), Some(OsStr::new("0")));
        let tty = env(true, false);
        assert_eq!(wanted(&tty, None, false, false), Some(Mode::Steady));
        assert_eq!(
            wanted(&tty, Some(OsStr::new("")), false, false),
            Some(Mode::Steady)
        );
        assert_eq!(wanted(&tty, None, true, false), None);
        assert_eq!(wanted(&tty, one, true, false), Some(Mode::Steady));
        assert_eq!(wanted(&tty, zero, false, false), None);
        for asked in [None, one] {
            assert_eq!(wanted(&env(false, false), asked, false, false), None);
            assert_eq!(wanted(&env(true, true), asked, false, false), None);
        }
        // The test hook changes how, never whether.
        assert_eq!(wanted(&tty, None, true, true), None);
        assert_eq!(wanted(&env(false, false), one, false, true), None);
    }

    /// A run that ends before `AFTER` shows nothing: the timer is told, and gone, before it
    /// could draw.
    #[test]
    fn a_short_run_shows_nothing() {
        let display = Display::new(Mode::Steady);
        let files = vec![PathBuf::from("/nonexistent/a.jsonl")];
        for _ in 0..3 {
            display.begin(&files);
            display.done(&files[0]);
            assert!(shown().is_none());
            display.end();
            assert!(shown().is_none());
            assert!(display.current().is_none());
        }
        assert_eq!(display.counts.files.load(Ordering::Relaxed), 1);
        // A run begun inside another ends it; the last end finds nothing left.
        display.begin(&files);
        display.begin(&files);
        display.end();
        display.end();
        assert!(display.current().is_none());
    }

    #[test]
    fn a_writer_with_no_line_shown_writes_straight_through() {
        let mut w = Suspending::new(Vec::new());
        w.write_all(b"part").unwrap();
        assert_eq!(w.inner, b"part");
        w.write_all(b" two\n").unwrap();
        assert_eq!(w.inner, b"part two\n");
    }
}
