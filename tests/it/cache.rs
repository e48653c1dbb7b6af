//! The summary cache is a pure accelerator: every command that lists gives, byte for byte, what
//! it gives with `--no-cache`, over a store changed between runs in every way a file can be
//! (appends, torn appends, truncations, rewrites in place, renames, deletions), and a damaged,
//! foreign or unwritable cache is passed over with at most one warning.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use pisess::app::env::{Env, Facts};

use crate::common::{run_with, Run, NOW_MS};

/// A small deterministic generator (xorshift64*): the test needs no crate for it.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

pub(crate) const PROJECTS: [&str; 2] = ["/home/dev/webshop", "/home/dev/api"];

fn folder_of(root: &Path, cwd: &str) -> PathBuf {
    root.join("sessions").join(format!(
        "--{}--",
        cwd.trim_start_matches('/').replace('/', "-")
    ))
}

pub(crate) fn env_for(agent_dir: &Path, cache: Option<&Path>) -> Env {
    let mut facts = Facts::for_test(PROJECTS[0], "/home/dev", NOW_MS);
    facts
        .vars
        .insert("PI_CODING_AGENT_DIR", agent_dir.display().to_string());
    if let Some(dir) = cache {
        facts
            .vars
            .insert("PISESS_CACHE_DIR", dir.display().to_string());
    }
    Env::new(&pisess::app::global::GlobalArgs::default(), facts)
}

/// One entry line: an id (pi's 8 hex digits, sometimes a longer foreign one) and a parent.
fn entry(rng: &mut Rng, n: u64, parent: Option<&str>) -> (String, String) {
    let id = if rng.chance(10) {
        format!("entry-{n:04}-of-a-foreign-writer")
    } else {
        format!("{:08x}", rng.next() as u32)
    };
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    let ts = format!("2026-0{}-1{}T10:00:{:02}.000Z", 1 + n % 7, n % 10, n % 60);
    let ms = 1_767_225_600_000 + n * 60_000;
    let line = match rng.below(7) {
        0 => format!(
            r#"{{"type":"session_info","id":"{id}","parentId":{parent},"timestamp":"{ts}","name":"name {n}"}}"#
        ),
        1 => format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"assistant","content":[{{"type":"text","text":"answer {n}"}},{{"type":"toolCall","id":"c{n}","name":"bash","arguments":{{"command":"ls"}}}}],"provider":"anthropic","model":"m{}","usage":{{"input":{n},"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{{"total":0.5}}}},"timestamp":{ms}}}}}"#,
            n % 3
        ),
        2 => format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"toolResult","toolCallId":"c{}","toolName":"bash","content":[{{"type":"text","text":"out {n}{}"}}],"isError":{}}}}}"#,
            // The call of the entry before, when that was an assistant's.
            n - 1,
            // Large ones (which grep without --tools does not read), some with a word found
            // nowhere else.
            if rng.chance(40) {
                format!(" {} secret", "x".repeat(5000))
            } else {
                String::new()
            },
            n.is_multiple_of(2)
        ),
        3 => format!(
            r#"{{"type":"model_change","id":"{id}","parentId":{parent},"timestamp":"{ts}","provider":"openai","modelId":"gpt-{}"}}"#,
            n % 4
        ),
        // Calls only, which tree's filter hides (their results show the calls' one-liners).
        4 => format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c{n}","name":"read","arguments":{{"path":"/home/dev/f{n}.rs","offset":{n}}}}}],"stopReason":"{}","timestamp":{ms}}}}}"#,
            if n.is_multiple_of(5) {
                "error"
            } else {
                "toolUse"
            }
        ),
        _ => format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{ts}","message":{{"role":"user","content":"question {n} \u00e9","timestamp":{ms}}}}}"#
        ),
    };
    (id, line)
}

/// A store under change, and the ids of each file's entries (for parents to point at).
pub(crate) struct Store {
    root: PathBuf,
    pub(crate) files: Vec<(PathBuf, Vec<String>)>,
    pub(crate) rng: Rng,
    counter: u64,
}

impl Store {
    pub(crate) fn new(root: &Path, seed: u64) -> Store {
        let mut store = Store {
            root: root.to_path_buf(),
            files: Vec::new(),
            rng: Rng(seed),
            counter: 0,
        };
        for _ in 0..6 {
            store.create();
        }
        store
    }

    fn create(&mut self) {
        self.counter += 1;
        let n = self.counter;
        let cwd = PROJECTS[self.rng.below(PROJECTS.len())];
        let dir = folder_of(&self.root, cwd);
        fs::create_dir_all(&dir).unwrap();
        let sid = format!("0198{n:04x}-0000-7000-8000-{:012x}", self.rng.next() >> 16);
        let path = dir.join(format!("2026-01-0{}T00-00-00-000Z_{sid}.jsonl", 1 + n % 9));
        let header = format!(
            r#"{{"type":"session","version":3,"id":"{sid}","timestamp":"2026-01-01T00:00:0{}.000Z","cwd":"{cwd}"}}"#,
            n % 10
        );
        fs::write(&path, header + "\n").unwrap();
        self.files.push((path, Vec::new()));
        let k = self.files.len() - 1;
        let count = self.rng.below(6);
        self.append(k, count);
    }

    fn append(&mut self, k: usize, count: usize) {
        let mut text = String::new();
        for _ in 0..count {
            self.counter += 1;
            let ids = &self.files[k].1;
            // Mostly the last entry; sometimes a branch, a new root or a duplicate id.
            let parent = match self.rng.below(10) {
                0 => None,
                1 | 2 if !ids.is_empty() => Some(ids[self.rng.below(ids.len())].clone()),
                _ => ids.last().cloned(),
            };
            let (mut id, mut line) = entry(&mut self.rng, self.counter, parent.as_deref());
            if self.rng.chance(4) && !ids.is_empty() {
                let dup = ids[self.rng.below(ids.len())].clone();
                line = line.replacen(&id, &dup, 1);
                id = dup;
            }
            match self.rng.below(20) {
                0 => line.push('\r'),
                1 => text.push('\n'),
                2 => line = "{not json".to_owned(),
                _ => {}
            }
            text.push_str(&line);
            text.push('\n');
            self.files[k].1.push(id);
        }
        let mut f = OpenOptions::new()
            .append(true)
            .open(&self.files[k].0)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    /// One change of one file (or a new file); its description, for a failure message.
    pub(crate) fn change(&mut self) -> String {
        if self.files.is_empty() || self.rng.chance(5) {
            self.create();
            return "create".to_owned();
        }
        let k = self.rng.below(self.files.len());
        let path = self.files[k].0.clone();
        let what = self.rng.below(9);
        match what {
            0..=2 => {
                let count = 1 + self.rng.below(4);
                self.append(k, count);
            }
            3 => {
                // A torn append: a write pi had not finished, finished (or not) later.
                let (_, line) = entry(&mut self.rng, self.counter, None);
                let cut = 1 + self.rng.below(line.len() - 1);
                let mut f = OpenOptions::new().append(true).open(&path).unwrap();
                f.write_all(&line.as_bytes()[..cut]).unwrap();
                if self.rng.chance(50) {
                    f.write_all(&line.as_bytes()[cut..]).unwrap();
                    f.write_all(b"\n").unwrap();
                }
            }
            4 => {
                let len = fs::metadata(&path).unwrap().len();
                let to = self.rng.next() % (len + 1);
                File::options()
                    .write(true)
                    .open(&path)
                    .unwrap()
                    .set_len(to)
                    .unwrap();
            }
            5 => {
                // Rewritten in place to the same size, its mtime put back.
                let before = fs::metadata(&path).unwrap().modified().unwrap();
                let mut bytes = fs::read(&path).unwrap();
                for b in bytes.iter_mut() {
                    match *b {
                        b'q' => *b = b'Q',
                        b'7' => *b = b'3',
                        _ => {}
                    }
                }
                fs::write(&path, &bytes).unwrap();
                File::options()
                    .write(true)
                    .open(&path)
                    .unwrap()
                    .set_modified(before)
                    .unwrap();
            }
            6 => {
                // Another session written over this one, same inode.
                let other = self.files[self.rng.below(self.files.len())].0.clone();
                let bytes = fs::read(&other).unwrap();
                let mut extra = Vec::new();
                if self.rng.chance(50) {
                    extra.extend_from_slice(b"\n");
                }
                fs::write(&path, [bytes, extra].concat()).unwrap();
            }
            7 => {
                let cwd = PROJECTS[self.rng.below(PROJECTS.len())];
                let dir = folder_of(&self.root, cwd);
                let name = path.file_name().unwrap().to_string_lossy();
                let to = dir.join(format!("r{}-{name}", self.counter));
                fs::rename(&path, &to).unwrap();
                self.files[k].0 = to;
            }
            _ => {
                fs::remove_file(&path).unwrap();
                self.files.remove(k);
            }
        }
        format!("change {what} of {}", path.display())
    }

    /// Files put an hour or more into the past (the cache trusts only files that are not
    /// being written), `percent` of them.
    pub(crate) fn age(&mut self, percent: u64) {
        for (path, _) in &self.files {
            if self.rng.chance(percent) {
                let back = Duration::from_secs(3600 + self.rng.next() % 100_000);
                let when = SystemTime::now() - back;
                if let Ok(f) = File::options().write(true).open(path) {
                    let _ = f.set_modified(when);
                }
            }
        }
    }
}

const COMMANDS: [&[&str]; 13] = [
    &["ls", "--all", "--json"],
    &["ls", "--all"],
    &["ls"],
    &["ls", "--json", "--since", "2026-03-01"],
    &["rm", "--all", "--empty", "--dry-run"],
    &["path", "name 1"],
    &["grep", "--all", "--since", "2026-03-01", "question"],
    &["grep", "--all", "-l", "--until", "2026-04-01", "answer|out"],
    &["grep", "-i", "QUESTION 1"],
    &["check", "--all", "--since", "2026-01-01"],
    &["grep", "--all", "-l", "secret|question 2"],
    &["grep", "--all", "-c", "--tools", "secret"],
    &["grep", "--all", "-c", "x{4000}|answer"],
];

/// The commands of one session, run on a file of the store: no index is kept between runs, so
/// these must not read the cache at all (a damaged one included).
const SESSION_COMMANDS: [&[&str]; 7] = [
    &["tree"],
    &["tree", "--json", "--filter", "all"],
    &["show"],
    &["show", "--json", "--branch"],
    &["context", "--json"],
    &["context"],
    &["check", "--max-turns", "9"],
];

pub(crate) fn same(agent: &Path, cache: &Path, args: &[&str], context: &str) {
    let cached = run_with(env_for(agent, Some(cache)), args, b"");
    let mut plain_args = vec!["--no-cache"];
    plain_args.extend_from_slice(args);
    let plain = run_with(env_for(agent, Some(cache)), &plain_args, b"");
    assert_eq!(
        (cached.code, &cached.stdout),
        (plain.code, &plain.stdout),
        "{args:?} after {context}"
    );
    // What the cached run says besides: only warnings that name a file of the cache (a
    // damaged one), never the sessions.
    let mut extra: Vec<&str> = cached.stderr.lines().collect();
    for line in plain.stderr.lines() {
        let at = extra.iter().position(|l| *l == line);
        assert!(
            at.is_some(),
            "{args:?} after {context}: {line:?} not said with the cache:\n{}",
            cached.stderr
        );
        extra.remove(at.unwrap());
    }
    let cache_dir = cache.display().to_string();
    assert!(
        extra.len() <= 1 && extra.iter().all(|l| l.contains(&cache_dir)),
        "{args:?} after {context}: {extra:?}"
    );
}

/// The cache files of one family (`summaries`, `tallies`) under `cache`, in order.
pub(crate) fn cache_files(cache: &Path, family: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(cache.join(family))
        .map(|d| {
            d.map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "bin"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// One of a family's cache files damaged: a bit flipped, or cut short; what was done.
pub(crate) fn damage(cache: &Path, family: &str, rng: &mut Rng) -> Option<String> {
    let files = cache_files(cache, family);
    let file = files.get(rng.below(files.len().max(1)))?.clone();
    let mut bytes = fs::read(&file).ok()?;
    if bytes.is_empty() {
        return None;
    }
    let what = if rng.chance(50) {
        let at = rng.below(bytes.len());
        let bit = rng.below(8);
        bytes[at] ^= 1 << bit;
        format!("bit {bit} of byte {at} of {} flipped", file.display())
    } else {
        let to = rng.below(bytes.len());
        bytes.truncate(to);
        format!("{} cut to {to} bytes", file.display())
    };
    fs::write(&file, &bytes).unwrap();
    Some(what)
}

#[test]
fn output_is_the_same_with_and_without_the_cache_under_every_change() {
    for seed in [1u64, 2, 3] {
        let tmp = tempfile::tempdir().unwrap();
        let agent = tmp.path().join("agent");
        let cache = tmp.path().join("cache");
        let mut store = Store::new(&agent, seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        store.age(80);
        let mut history = Vec::new();
        for step in 0..60 {
            for _ in 0..1 + store.rng.below(3) {
                history.push(store.change());
            }
            if store.rng.chance(70) {
                store.age(80);
            }
            if store.rng.chance(30) {
                history.extend(damage(&cache, "summaries", &mut store.rng));
            }
            let context = format!("seed {seed} step {step}: {}", history.join(", "));
            // Twice: the first run may read and write, the second reads what it wrote.
            for args in COMMANDS {
                same(&agent, &cache, args, &context);
                same(&agent, &cache, args, &context);
            }
            for _ in 0..2 {
                let Some(k) = (!store.files.is_empty()).then(|| store.rng.below(store.files.len()))
                else {
                    break;
                };
                let path = store.files[k].0.display().to_string();
                for args in SESSION_COMMANDS {
                    let args = [args, &[path.as_str()]].concat();
                    same(&agent, &cache, &args, &context);
                    same(&agent, &cache, &args, &context);
                }
            }
        }
        let files = cache.join("summaries").read_dir().unwrap().count();
        assert!(files > 0, "the cache has no summaries");
    }
}

fn store_with_cache() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let agent = tmp.path().join("agent");
    let cache = tmp.path().join("cache");
    let mut store = Store::new(&agent, 7);
    store.age(100);
    (tmp, agent, cache)
}

fn ls(agent: &Path, cache: Option<&Path>) -> Run {
    run_with(env_for(agent, cache), &["ls", "--all", "--json"], b"")
}

#[test]
fn a_damaged_cache_is_one_warning_and_rebuilt() {
    let (_tmp, agent, cache) = store_with_cache();
    let want = ls(&agent, None);
    assert_eq!(ls(&agent, Some(&cache)).stdout, want.stdout);
    let files = cache_files(&cache, "summaries");
    assert!(files.len() >= 2, "{files:?}");
    // One file cut short, one with a byte flipped in its index (after the magic line, the
    // format, the index's length and hash), one with its last byte (in a blob) flipped.
    let bytes = fs::read(&files[0]).unwrap();
    fs::write(&files[0], &bytes[..bytes.len() / 2]).unwrap();
    let mut bytes = fs::read(&files[1]).unwrap();
    let at = bytes.iter().position(|&b| b == b'\n').unwrap() + 1 + 4 + 8 + 8 + 3;
    bytes[at] ^= 0x20;
    fs::write(&files[1], &bytes).unwrap();
    if let Some(third) = files.get(2) {
        let mut bytes = fs::read(third).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x20;
        fs::write(third, &bytes).unwrap();
    }
    let got = ls(&agent, Some(&cache));
    assert_eq!((got.code, &got.stdout), (want.code, &want.stdout));
    let warnings: Vec<_> = got.stderr.lines().filter(|l| l.contains("cache")).collect();
    assert_eq!(warnings.len(), 1, "{}", got.stderr);
    assert!(warnings[0].contains("damaged"), "{}", warnings[0]);
    // Rebuilt: the next run has nothing to say.
    let again = ls(&agent, Some(&cache));
    assert_eq!(again.stdout, want.stdout);
    assert!(!again.stderr.contains("cache"), "{}", again.stderr);
}

#[test]
fn a_cache_of_another_format_is_replaced_without_a_word() {
    let (_tmp, agent, cache) = store_with_cache();
    let want = ls(&agent, None);
    ls(&agent, Some(&cache));
    for file in cache_files(&cache, "summaries") {
        let mut bytes = fs::read(&file).unwrap();
        // The format number follows the magic line.
        let at = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
        bytes[at] = bytes[at].wrapping_add(1);
        fs::write(&file, &bytes).unwrap();
    }
    let got = ls(&agent, Some(&cache));
    assert_eq!((&got.stdout, &got.stderr), (&want.stdout, &want.stderr));
    // Replaced by this format's: the same bytes as a fresh cache's.
    let fresh = tempfile::tempdir().unwrap();
    ls(&agent, Some(fresh.path()));
    let format = |file: &Path| {
        let bytes = fs::read(file).unwrap();
        let at = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
        bytes[at..at + 4].to_vec()
    };
    assert_eq!(
        format(&cache_files(&cache, "summaries")[0]),
        format(&cache_files(fresh.path(), "summaries")[0])
    );
}

#[test]
fn an_unwritable_cache_is_one_warning_and_no_error() {
    let (tmp, agent, _) = store_with_cache();
    let want = ls(&agent, None);
    // A cache dir under a regular file can be neither made nor written.
    let blocker = tmp.path().join("not-a-dir");
    fs::write(&blocker, "x").unwrap();
    let cache = blocker.join("cache");
    let got = ls(&agent, Some(&cache));
    assert_eq!((got.code, &got.stdout), (want.code, &want.stdout));
    let warnings: Vec<_> = got.stderr.lines().filter(|l| l.contains("cache")).collect();
    assert_eq!(warnings.len(), 1, "{}", got.stderr);
    assert!(
        warnings[0].contains("cannot write the summary cache"),
        "{}",
        warnings[0]
    );
}

#[test]
fn the_cache_is_not_read_again_and_no_cache_writes_nothing() {
    let (_tmp, agent, cache) = store_with_cache();
    run_with(
        env_for(&agent, Some(&cache)),
        &["--no-cache", "ls", "--all"],
        b"",
    );
    assert!(!cache.exists(), "--no-cache wrote a cache");
    ls(&agent, Some(&cache));
    let files = cache_files(&cache, "summaries");
    let written: Vec<_> = files
        .iter()
        .map(|f| fs::metadata(f).unwrap().modified().unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(20));
    // Nothing changed: nothing is rewritten.
    ls(&agent, Some(&cache));
    let again: Vec<_> = files
        .iter()
        .map(|f| fs::metadata(f).unwrap().modified().unwrap())
        .collect();
    assert_eq!(written, again);
}

#[test]
fn concurrent_runs_each_see_a_whole_cache() {
    let (_tmp, agent, cache) = store_with_cache();
    let want = ls(&agent, None);
    std::thread::scope(|s| {
        for _ in 0..6 {
            s.spawn(|| {
                for _ in 0..15 {
                    // Each run rewrites every folder's file (an empty cache, or records
                    // dropped), racing the others' renames.
                    let _ = fs::remove_dir_all(cache.join("summaries"));
                    let got = ls(&agent, Some(&cache));
                    assert_eq!((got.code, &got.stdout), (want.code, &want.stdout));
                    assert!(!got.stderr.contains("damaged"), "{}", got.stderr);
                }
            });
        }
    });
    let last = ls(&agent, Some(&cache));
    assert_eq!(last.stdout, want.stdout);
    assert!(!last.stderr.contains("cache"), "{}", last.stderr);
}

/// A file edited in place (same size) and then appended to is read whole: the fold the cache
/// would go on from is of bytes that are no longer there. On a cache that compared only the
/// 64 KB before the fold's end, the edit (200 KB before it) was not seen: the old first
/// message and count were shown.
#[test]
fn an_edit_before_an_append_is_seen() {
    let tmp = tempfile::tempdir().unwrap();
    let agent = tmp.path().join("agent");
    let cache = tmp.path().join("cache");
    let dir = folder_of(&agent, PROJECTS[0]);
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("2026-01-01T00-00-00-000Z_01980000-0000-7000-8000-000000000001.jsonl");
    let mut text = String::from(
        r#"{"type":"session","version":3,"id":"01980000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/dev/webshop"}"#,
    );
    text.push('\n');
    let filler = "x".repeat(1000);
    for n in 0..200 {
        text.push_str(&format!(
            r#"{{"type":"message","id":"{n:08x}","parentId":{},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"q{n} {filler}","timestamp":1767225601000}}}}"#,
            if n == 0 { "null".to_owned() } else { format!("\"{:08x}\"", n - 1) }
        ));
        text.push('\n');
    }
    fs::write(&path, &text).unwrap();
    let old = SystemTime::now() - Duration::from_secs(7200);
    File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let facts = |run: &Run| {
        let v: serde_json::Value =
            serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
        (
            v["userMessages"].as_u64().unwrap(),
            v["firstMessage"].as_str().unwrap().to_owned(),
        )
    };
    assert_eq!(facts(&ls(&agent, Some(&cache))).0, 200);
    // The first message's text and the 3rd message's role changed in place (same size),
    // then an entry appended.
    let first = text.find(r#""content":"q0 "#).unwrap();
    let at = text.find(r#""role":"user","content":"q2 "#).unwrap();
    let mut bytes = text.into_bytes();
    bytes[first + 11..first + 13].copy_from_slice(b"z0");
    bytes[at + 8..at + 12].copy_from_slice(b"USER");
    bytes.extend_from_slice(br#"{"type":"message","id":"000000c8","parentId":"000000c7","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"appended","timestamp":1767225602000}}"#);
    bytes.push(b'\n');
    fs::write(&path, &bytes).unwrap();
    let cached = ls(&agent, Some(&cache));
    let plain = ls(&agent, None);
    assert_eq!(cached.stdout, plain.stdout);
    let (count, first) = facts(&cached);
    assert_eq!(count, 200);
    assert!(first.starts_with("z0 "), "{first}");
}

/// A FIFO or a device in a cache file's place is neither waited on nor read.
#[cfg(unix)]
#[test]
fn a_fifo_in_the_cache_is_not_waited_on() {
    let (_tmp, agent, cache) = store_with_cache();
    let want = ls(&agent, None);
    ls(&agent, Some(&cache));
    let file = cache_files(&cache, "summaries").remove(0);
    fs::remove_file(&file).unwrap();
    let made = std::process::Command::new("mkfifo").arg(&file).status();
    if !made.is_ok_and(|s| s.success()) {
        crate::common::missing_tool("mkfifo");
        return;
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let (a, c) = (agent.clone(), cache.clone());
    std::thread::spawn(move || tx.send(ls(&a, Some(&c))).unwrap());
    let got = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("ls waited on a FIFO in the cache");
    assert_eq!((got.code, &got.stdout), (want.code, &want.stdout));
    assert!(
        got.stderr.contains("not a regular file (a FIFO)"),
        "{}",
        got.stderr
    );
    // Written again as a regular file: the next run has nothing to say.
    let again = ls(&agent, Some(&cache));
    assert!(!again.stderr.contains("cache"), "{}", again.stderr);
}
