//! The cache folder must be ours (issue 29): one made or changed by someone else, a link or a
//! huge file in it, is passed over with one warning naming it, and the output is `--no-cache`'s.
//! Each test here fails on the cache before issue 29 (which used any folder and file as it
//! found them, followed links, and sized its read by the file's own header).

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use pisess::app::env::{Env, Facts};

use crate::common::{run_with, Run, NOW_MS};

const CWD: &str = "/home/dev/webshop";

/// A store of three sessions, settled (an hour old), in `tmp/agent`; the cache at `tmp/cache`.
fn store() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let agent = tmp.path().join("agent");
    let dir = agent.join("sessions").join("--home-dev-webshop--");
    fs::create_dir_all(&dir).unwrap();
    for n in 1..=3 {
        let sid = format!("01980000-0000-7000-8000-00000000000{n}");
        let path = dir.join(format!("2026-01-0{n}T00-00-00-000Z_{sid}.jsonl"));
        let text = format!(
            "{}\n{}\n",
            format_args!(
                r#"{{"type":"session","version":3,"id":"{sid}","timestamp":"2026-01-0{n}T00:00:00.000Z","cwd":"{CWD}"}}"#
            ),
            format_args!(
                r#"{{"type":"message","id":"0000000{n}","parentId":null,"timestamp":"2026-01-0{n}T00:00:01.000Z","message":{{"role":"user","content":"question {n}","timestamp":1767225601000}}}}"#
            ),
        );
        fs::write(&path, text).unwrap();
        settle(&path);
    }
    let cache = tmp.path().join("cache");
    (tmp, agent, cache)
}

fn settle(path: &Path) {
    let old = SystemTime::now() - Duration::from_secs(3600);
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(old)
        .unwrap();
}

fn env_for(agent: &Path, cache: &Path) -> Env {
    let mut facts = Facts::for_test(CWD, "/home/dev", NOW_MS);
    facts
        .vars
        .insert("PI_CODING_AGENT_DIR", agent.display().to_string());
    facts
        .vars
        .insert("PISESS_CACHE_DIR", cache.display().to_string());
    Env::new(&pisess::app::global::GlobalArgs::default(), facts)
}

fn run(agent: &Path, cache: &Path, args: &[&str]) -> Run {
    run_with(env_for(agent, cache), args, b"")
}

fn ls(agent: &Path, cache: &Path) -> Run {
    run(agent, cache, &["ls", "--all", "--json"])
}

fn plain_ls(agent: &Path, cache: &Path) -> Run {
    run(agent, cache, &["--no-cache", "ls", "--all", "--json"])
}

/// The lines of `stderr` about the cache.
fn cache_warnings(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.contains("cache")).collect()
}

fn summary_files(cache: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = fs::read_dir(cache.join("summaries"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// A cache of the store, written by a first run; its one summaries file.
fn primed(agent: &Path, cache: &Path) -> PathBuf {
    let first = ls(agent, cache);
    assert!(first.stderr.is_empty(), "{}", first.stderr);
    let files = summary_files(cache);
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// The cache file with the first message of every session changed to `forged` (the same
/// length as "question N"), its checksum made right again: what anyone who can write the
/// folder can do. A cache that uses it shows `forged` where the session says otherwise.
fn forge(file: &Path) {
    let mut bytes = fs::read(file).unwrap();
    for n in 1..=3 {
        let was = format!("question {n}");
        let at = bytes
            .windows(was.len())
            .position(|w| w == was.as_bytes())
            .unwrap();
        bytes[at..at + was.len()].copy_from_slice(format!("FORGERY! {n}").as_bytes());
    }
    // The magic line, the format (4 bytes), the index's length and hash (8 each).
    let head = bytes.iter().position(|&b| b == b'\n').unwrap() + 1 + 4;
    let len = u64::from_le_bytes(bytes[head..head + 8].try_into().unwrap()) as usize;
    let body = head + 16;
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes[body..body + len]);
    bytes[head + 8..head + 16].copy_from_slice(&hash.to_le_bytes());
    fs::write(file, bytes).unwrap();
}

/// The run saw what `--no-cache` sees and said one warning, naming `named`, containing `says`.
fn passed_over(got: &Run, want: &Run, named: &Path, says: &str) {
    assert_eq!((got.code, &got.stdout), (want.code, &want.stdout));
    assert!(!got.stdout.contains("FORGERY"), "{}", got.stdout);
    let warnings = cache_warnings(&got.stderr);
    assert_eq!(warnings.len(), 1, "{}", got.stderr);
    let name = format!("{}: ", named.display());
    assert!(
        warnings[0].contains(&name),
        "{} names not {name}",
        warnings[0]
    );
    assert!(
        warnings[0].contains(says),
        "{} says not {says:?}",
        warnings[0]
    );
}

#[cfg(unix)]
fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

#[cfg(unix)]
fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(unix)]
fn chown_nobody(path: &Path) -> bool {
    std::process::Command::new("chown")
        .args(["nobody", &path.display().to_string()])
        .status()
        .is_ok_and(|s| s.success())
}

/// Made 0700 (the folder and the one in it), and the files in it 0600.
#[cfg(unix)]
#[test]
fn the_cache_folder_is_made_private() {
    use std::os::unix::fs::PermissionsExt;
    let (_tmp, agent, cache) = store();
    let file = primed(&agent, &cache);
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&cache), 0o700);
    assert_eq!(mode(&cache.join("summaries")), 0o700);
    assert_eq!(mode(&file), 0o600);
}

/// A folder of another user's: its files are theirs to choose, so it is not read, and not
/// written to either.
#[cfg(unix)]
#[test]
fn a_cache_folder_of_another_user_is_not_used() {
    if !is_root() {
        eprintln!("SKIPPED: chown needs root");
        return;
    }
    let (_tmp, agent, cache) = store();
    let file = primed(&agent, &cache);
    forge(&file);
    assert!(chown_nobody(&cache), "chown nobody");
    let want = plain_ls(&agent, &cache);
    let got = ls(&agent, &cache);
    passed_over(&got, &want, &cache, "cache folder is owned by uid");
    assert!(
        got.stderr.contains("running without a cache"),
        "{}",
        got.stderr
    );
    // Not written either: the forged file is as it was.
    let again = ls(&agent, &cache);
    passed_over(&again, &want, &cache, "not you");
    // So is a `summaries` folder of another user's in a folder of ours.
    let (_tmp, agent, cache) = store();
    let file = primed(&agent, &cache);
    forge(&file);
    assert!(chown_nobody(&cache.join("summaries")));
    let got = ls(&agent, &cache);
    passed_over(
        &got,
        &plain_ls(&agent, &cache),
        &cache.join("summaries"),
        "owned by uid",
    );
}

/// A folder anyone may write to (0777), or its group (0770).
#[cfg(unix)]
#[test]
fn a_cache_folder_others_can_write_is_not_used() {
    for (mode, by) in [
        (0o777, "group and others (mode 0777)"),
        (0o770, "group (mode 0770)"),
    ] {
        let (_tmp, agent, cache) = store();
        let file = primed(&agent, &cache);
        forge(&file);
        chmod(&cache, mode);
        let got = ls(&agent, &cache);
        passed_over(&got, &plain_ls(&agent, &cache), &cache, by);
    }
}

/// A cache file of another user's, or one others can write to, is not read.
#[cfg(unix)]
#[test]
fn a_cache_file_others_can_write_is_not_read() {
    let (_tmp, agent, cache) = store();
    let file = primed(&agent, &cache);
    forge(&file);
    chmod(&file, 0o666);
    let got = ls(&agent, &cache);
    passed_over(
        &got,
        &plain_ls(&agent, &cache),
        &file,
        "writable by group and others",
    );
    if is_root() {
        let file = primed_again(&agent, &cache);
        forge(&file);
        assert!(chown_nobody(&file));
        let got = ls(&agent, &cache);
        passed_over(&got, &plain_ls(&agent, &cache), &file, "owned by uid");
    }
}

/// The cache rebuilt from scratch (the folder emptied).
fn primed_again(agent: &Path, cache: &Path) -> PathBuf {
    fs::remove_dir_all(cache).unwrap();
    primed(agent, cache)
}

/// A symbolic link in a cache file's place is not followed: whoever put it there may point it
/// at anything (a file of forged summaries, a device, a file they can change at will).
#[cfg(unix)]
#[test]
fn a_symlinked_cache_file_is_not_followed() {
    let (tmp, agent, cache) = store();
    let file = primed(&agent, &cache);
    forge(&file);
    let elsewhere = tmp.path().join("elsewhere.bin");
    fs::rename(&file, &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &file).unwrap();
    let got = ls(&agent, &cache);
    passed_over(&got, &plain_ls(&agent, &cache), &file, "symbolic link");
    // Replaced by a file of its own (the link, not its target), which the next run uses.
    assert!(!fs::symlink_metadata(&file)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::read(&elsewhere)
        .unwrap()
        .windows(8)
        .any(|w| w == b"FORGERY!"));
    let again = ls(&agent, &cache);
    assert_eq!(again.stdout, plain_ls(&agent, &cache).stdout);
    assert!(again.stderr.is_empty(), "{}", again.stderr);
}

/// A sparse 1 TB cache file whose head claims an index of nearly all of it: not read (nor
/// allocated for: before issue 29 `ls` aborted asking for 1 TB), one warning naming it.
#[test]
fn a_huge_cache_file_is_not_read() {
    let (_tmp, agent, cache) = store();
    let file = primed(&agent, &cache);
    let bytes = fs::read(&file).unwrap();
    let head = bytes.iter().position(|&b| b == b'\n').unwrap() + 1 + 4;
    let mut huge = bytes[..head].to_vec();
    huge.extend_from_slice(&(1u64 << 40).to_le_bytes());
    huge.extend_from_slice(&[0; 8]);
    fs::write(&file, &huge).unwrap();
    File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(1 << 40)
        .unwrap();
    let got = ls(&agent, &cache);
    passed_over(&got, &plain_ls(&agent, &cache), &file, "more than the");
    // Replaced by a whole one.
    assert!(fs::metadata(&file).unwrap().len() < 1 << 20);
}

/// A session that is big enough for an index cache (8 MB) before issue 29: `tree`, `show` and
/// `context` keep no index between runs and read none (an index cannot be proven to describe
/// the file without reading it whole). A file where one was kept is never opened: before, this
/// one (damaged) was a warning, and one whose checksum was made right again after an edit of
/// the session made pisess blame the session and cut its output short.
#[test]
fn no_index_is_kept_or_read() {
    let (_tmp, agent, cache) = store();
    let dir = agent.join("sessions").join("--home-dev-webshop--");
    let sid = "01980000-0000-7000-8000-0000000000ff";
    let path = dir.join(format!("2026-01-09T00-00-00-000Z_{sid}.jsonl"));
    let mut text = format!(
        r#"{{"type":"session","version":3,"id":"{sid}","timestamp":"2026-01-09T00:00:00.000Z","cwd":"{CWD}"}}"#
    ) + "\n";
    let big = "y".repeat(1 << 20);
    for n in 0..9 {
        let parent = if n == 0 {
            "null".to_owned()
        } else {
            format!("\"{:08x}\"", n - 1)
        };
        text += &format!(
            r#"{{"type":"message","id":"{n:08x}","parentId":{parent},"message":{{"role":"user","content":"q{n} {big}"}}}}"#
        );
        text += "\n";
    }
    fs::write(&path, &text).unwrap();
    settle(&path);
    let p = path.display().to_string();
    let commands: [&[&str]; 3] = [&["tree", &p], &["show", "--json", &p], &["context", &p]];
    for args in commands {
        run(&agent, &cache, args);
    }
    assert!(!cache.join("index").exists(), "an index was kept");
    // Where the index of this file was kept, garbage.
    let canonical = fs::canonicalize(&path)
        .unwrap()
        .into_os_string()
        .into_encoded_bytes();
    let hash = xxhash_rust::xxh3::xxh3_64(&canonical);
    fs::create_dir_all(cache.join("index")).unwrap();
    fs::write(
        cache.join("index").join(format!("{hash:016x}.bin")),
        b"pisess index cache\n\x01\x00\x00\x00garbage",
    )
    .unwrap();
    for args in commands {
        let got = run(&agent, &cache, args);
        let plain = run(&agent, &cache, &[&["--no-cache"], args].concat());
        assert_eq!(
            (got.code, &got.stdout, &got.stderr),
            (plain.code, &plain.stdout, &plain.stderr),
            "{args:?}"
        );
    }
}

/// The tally cache (`stats`) keeps the same rules: its folder or a file of it that others can
/// write is not read, even holding a record whose key is right.
#[cfg(unix)]
#[test]
fn a_tally_cache_others_can_write_is_not_used() {
    for target in ["folder", "file"] {
        let (_tmp, agent, cache) = store();
        let first = run(&agent, &cache, &["stats", "--all", "--by", "day", "--json"]);
        assert!(first.stderr.is_empty(), "{}", first.stderr);
        let folder = cache.join("tallies");
        let file = fs::read_dir(&folder)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let session = fs::read_dir(agent.join("sessions").join("--home-dev-webshop--"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let dir = pisess_store::cache::CacheDir::new(cache.clone());
        assert!(pisess_store::cache::tallies::forge(
            &dir,
            &session,
            None,
            |s, _| {
                s.id = "FORGERY".into();
            }
        ));
        // The forgery shows while the cache is ours (what is checked below could fail).
        let by_session = ["stats", "--all", "--by", "session", "--json"];
        assert!(run(&agent, &cache, &by_session).stdout.contains("FORGERY"));
        let report = by_session;
        let (named, by) = if target == "folder" {
            chmod(&folder, 0o777);
            (folder.clone(), "group and others (mode 0777)")
        } else {
            chmod(&file, 0o666);
            (file.clone(), "writable by group and others")
        };
        let got = run(&agent, &cache, &report);
        let mut plain_args = vec!["--no-cache"];
        plain_args.extend_from_slice(&report);
        passed_over(&got, &run(&agent, &cache, &plain_args), &named, by);
    }
}
