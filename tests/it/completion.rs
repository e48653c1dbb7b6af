//! Issue 29: dynamic completion with hostile session names and ids, through each shell's own
//! completion machinery. A name is whatever a `session_info` entry says and an id whatever a
//! header says: each must reach the command line as one literal word (no `$()`, backquote, glob,
//! `~` or variable expansion), or not at all when it holds a control character, and no escape
//! sequence may reach the terminal. A shell that is not installed is skipped with a note
//! (.ci/run installs bash, zsh, fish and elvish; PowerShell is not a Debian package, so its
//! quoting is unit-tested in `src/complete/shells.rs`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pisess");

/// Sessions with hostile names and ids in the project `proj` (the current directory of the
/// shells), a folder `DIR` with files in it for `DIR/*` to glob, and where the marker files of
/// the `touch` names would go.
struct Hostile {
    tmp: tempfile::TempDir,
    /// The words that must be offered, each exactly once: every name and id with no control
    /// character.
    words: Vec<String>,
    /// Names and ids that must not be offered (control characters), nor any part of them.
    left_out: Vec<String>,
}

impl Hostile {
    fn new() -> Hostile {
        let tmp = tempfile::tempdir().unwrap();
        let proj = tmp.path().join("proj");
        fs::create_dir_all(proj.join("DIR")).unwrap();
        fs::write(proj.join("DIR/one"), "").unwrap();
        fs::write(proj.join("DIR/two"), "").unwrap();
        let proj = proj.canonicalize().unwrap();
        let mark = |n: &str| tmp.path().join(format!("owned-{n}")).display().to_string();
        let cwd = proj.display().to_string();
        let folder = tmp.path().join("agent/sessions").join(format!(
            "--{}--",
            cwd.trim_start_matches('/').replace('/', "-")
        ));
        fs::create_dir_all(&folder).unwrap();
        // (id, name, first message)
        let dollar = format!("$(touch {})", mark("dollar"));
        let backquote = format!("`touch {}`", mark("backquote"));
        let id_attack = format!("$(touch {}) id", mark("id"));
        let sessions: Vec<(String, Option<String>, &str)> = vec![
            (
                "0197aaaa-0000-7000-8000-000000000001".into(),
                Some(dollar),
                "a",
            ),
            // `keep 0197aaaa` split in two would select the session above.
            (
                "01970002-0000-7000-8000-000000000002".into(),
                Some("keep 0197aaaa".into()),
                "b",
            ),
            (
                "01970003-0000-7000-8000-000000000003".into(),
                Some("DIR/*".into()),
                "c",
            ),
            (
                "01970004-0000-7000-8000-000000000004".into(),
                Some("~root".into()),
                "d",
            ),
            (
                "01970005-0000-7000-8000-000000000005".into(),
                Some("$HOME".into()),
                "e",
            ),
            (
                "01970006-0000-7000-8000-000000000006".into(),
                Some(backquote),
                "f",
            ),
            (
                "01970007-0000-7000-8000-000000000007".into(),
                Some("it's \"q\" \\".into()),
                "g",
            ),
            (
                "01970008-0000-7000-8000-000000000008".into(),
                Some("k:v=w".into()),
                "h",
            ),
            (
                "01970009-0000-7000-8000-000000000009".into(),
                Some("!!x".into()),
                "i",
            ),
            (
                "0197000a-0000-7000-8000-00000000000a".into(),
                Some("line\nbreak".into()),
                "j",
            ),
            (
                "0197000b-0000-7000-8000-00000000000b".into(),
                Some("esc\u{1b}[31mred".into()),
                "k",
            ),
            (
                "0197000c-0000-7000-8000-00000000000c".into(),
                Some("tab\there".into()),
                "l",
            ),
            // No name: the title (the help shown beside the id) has an OSC and a CSI in it.
            (
                "0197000d-0000-7000-8000-00000000000d".into(),
                None,
                "title \u{1b}]0;pwned\u{7} \u{1b}[2J",
            ),
            (id_attack, None, "m"),
            ("id\u{1b}[1m-bold".into(), None, "n"),
        ];
        let mut words = Vec::new();
        let mut left_out = Vec::new();
        for (i, (id, name, said)) in sessions.iter().enumerate() {
            let header = serde_json::json!({"type": "session", "version": 3, "id": id,
                "timestamp": "2026-07-01T10:00:00.000Z", "cwd": cwd});
            let user = serde_json::json!({"type": "message", "id": "e1", "parentId": null,
                "timestamp": "2026-07-01T10:00:01.000Z",
                "message": {"role": "user", "content": said, "timestamp": 1}});
            let mut text = format!("{header}\n{user}\n");
            if let Some(name) = name {
                let info = serde_json::json!({"type": "session_info", "id": "n1",
                    "parentId": "e1", "timestamp": "2026-07-01T10:00:02.000Z", "name": name});
                text.push_str(&format!("{info}\n"));
            }
            fs::write(
                folder.join(format!("2026-07-01T10-00-{i:02}-000Z_s{i}.jsonl")),
                text,
            )
            .unwrap();
            for w in std::iter::once(id).chain(name) {
                if w.chars().any(char::is_control) {
                    left_out.push(w.clone());
                } else {
                    words.push(w.clone());
                }
            }
        }
        Hostile {
            tmp,
            words,
            left_out,
        }
    }

    fn proj(&self) -> PathBuf {
        self.tmp.path().join("proj").canonicalize().unwrap()
    }

    fn agent(&self) -> PathBuf {
        self.tmp.path().join("agent")
    }

    /// No `touch` name ran.
    fn assert_nothing_ran(&self, shell: &str) {
        let owned: Vec<_> = fs::read_dir(self.tmp.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("owned"))
            .collect();
        assert!(owned.is_empty(), "{shell} ran a session name: {owned:?}");
    }

    /// A shell's command, in the project, with only what the shells need of the environment.
    fn shell(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(self.proj())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.tmp.path())
            .env("TERM", "xterm")
            .env("LANG", "C.UTF-8")
            .env("PI_CODING_AGENT_DIR", self.agent());
        cmd
    }

    /// Each offered word once, the left-out ones nowhere, no ESC anywhere in what the shell
    /// printed.
    fn assert_offered(&self, shell: &str, offered: &[String], raw: &[u8]) {
        let mut count = BTreeMap::new();
        for w in offered {
            *count.entry(w.as_str()).or_insert(0) += 1;
        }
        for w in &self.words {
            assert_eq!(
                count.get(w.as_str()),
                Some(&1),
                "{shell}: {w:?} once in {offered:#?}"
            );
        }
        for bad in &self.left_out {
            for part in bad.split(char::is_control).filter(|p| p.len() > 2) {
                assert!(
                    !offered.iter().any(|w| w.contains(part)),
                    "{shell}: {bad:?} is left out, not mangled: {offered:#?}"
                );
            }
        }
        self.assert_clean(shell, raw);
    }

    /// No ESC in what the shell printed, and no `touch` name ran.
    fn assert_clean(&self, shell: &str, raw: &[u8]) {
        assert!(
            !raw.contains(&0x1b),
            "{shell}: ESC reached the terminal: {}",
            String::from_utf8_lossy(raw)
        );
        self.assert_nothing_ran(shell);
    }
}

fn installed(shell: &str) -> bool {
    let found = Command::new(shell)
        .arg("-c")
        .arg("exit 0")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        crate::common::missing_tool(shell);
    }
    found
}

fn ok(out: Output, what: &str) -> Output {
    assert!(out.status.success(), "{what}: {out:?}");
    out
}

/// What `pisess` receives, NUL-separated, from a shell function standing in for it.
fn args_in(file: &Path) -> Vec<String> {
    let got = fs::read(file).unwrap();
    String::from_utf8(got)
        .unwrap()
        .split_terminator('\0')
        .map(str::to_owned)
        .collect()
}

// ---- bash, as the brief's `complete -F` hook: COMP_WORDS set, the registered function called ----

/// Calls the function `complete -F` registered for pisess with the current word `typed` (and
/// `replaced`, what readline would replace: after an opening quote, the text after it), then
/// re-parses each candidate as bash would read it once inserted: the words it makes, printed
/// NUL-separated, a candidate a line.
const BASH_DRIVER: &str = r#"
source <(COMPLETE=bash "$PISESS")
typed="$1" replaced="$2"
COMP_WORDS=(pisess show "$typed"); COMP_CWORD=2
COMP_LINE="pisess show $typed"; COMP_POINT=${#COMP_LINE}; COMP_TYPE=9
fn=$(complete -p pisess | sed 's/.* -F \([^ ]*\) .*/\1/')
"$fn" pisess "$replaced" show
for candidate in "${COMPREPLY[@]}"; do
    eval "words=( $candidate )"
    printf '%s\0' "${#words[@]}" "${words[@]}"
    printf '\n'
done
"#;

fn bash_candidates(h: &Hostile, typed: &str, replaced: &str) -> Vec<String> {
    let out = ok(
        h.shell("bash")
            .args(["-c", BASH_DRIVER, "driver", typed, replaced])
            .env("PISESS", BIN)
            .output()
            .unwrap(),
        "bash",
    );
    let mut words = Vec::new();
    for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let text = String::from_utf8(line.to_vec()).unwrap();
        let fields: Vec<&str> = text.split_terminator('\0').collect();
        assert_eq!(fields[0], "1", "one candidate, one word: {fields:?}");
        words.push(fields[1].to_owned());
    }
    h.assert_clean("bash", &out.stdout);
    words
}

#[test]
fn bash_offers_each_hostile_name_and_id_as_one_literal_word() {
    if !installed("bash") {
        return;
    }
    let h = Hostile::new();
    let offered = bash_candidates(&h, "", "");
    let sessions: Vec<String> = offered
        .into_iter()
        .filter(|w| !w.starts_with("--"))
        .collect();
    h.assert_offered("bash", &sessions, b"");
    // After an opening quote readline replaces what follows it, and backs up over the quote
    // when the candidate starts with it (readline's insert_match): the candidate is the word.
    let single = bash_candidates(&h, "'kee", "kee");
    assert_eq!(single, ["keep 0197aaaa"]);
    let double = bash_candidates(&h, "\"it", "it");
    assert_eq!(double, ["it's \"q\" \\"]);
    let double = bash_candidates(&h, "\"!", "!");
    assert!(
        double.is_empty(),
        "`!` in double quotes would be expanded: {double:?}"
    );
    // A word readline split at `:` (COMP_WORDBREAKS) is not completed.
    let out = ok(
        h.shell("bash")
            .args(["-c", BASH_DRIVER, "driver", "k:v", "v"])
            .env("PISESS", BIN)
            .output()
            .unwrap(),
        "bash",
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

// ---- each shell at a terminal: type a prefix, TAB, Enter; see what pisess receives ----

/// Runs `shell` interactively under a pseudo-terminal with `setup` (which defines a `pisess`
/// function writing its arguments to `ARGS`), and for each `(typed, expected)` types
/// `pisess show {typed}`, TAB and Enter, and checks the arguments the function got.
fn at_a_terminal(h: &Hostile, program: &[&str], setup: &[String], cases: &[(&str, &str)]) {
    let shell = program[0];
    let args_file = h.tmp.path().join("args");
    let mut cmd = h.shell(program[0]);
    cmd.args(&program[1..]).env("ARGS", &args_file);
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    for line in setup {
        p.send_line(line).unwrap();
    }
    // The shell has read the setup once it prints READY (typed as RE''ADY, so the echo of the
    // line is not taken for it).
    p.send_line("echo RE''ADY").unwrap();
    p.exp_string("READY").unwrap();
    for (typed, expected) in cases {
        let _ = fs::remove_file(&args_file);
        p.send(&format!("pisess show {typed}\t")).unwrap();
        p.flush().unwrap();
        // Let the completion run before Enter (it calls the binary).
        std::thread::sleep(Duration::from_millis(1500));
        p.send("\r").unwrap();
        p.flush().unwrap();
        let start = Instant::now();
        while !args_file.exists() && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(100));
            if shell == "elvish" && start.elapsed() > Duration::from_millis(500) {
                // Elvish's first Enter accepts the completion.
                let _ = p.send("\r");
                let _ = p.flush();
            }
        }
        assert!(
            args_file.exists(),
            "{shell}: `pisess show {typed}` TAB Enter ran nothing"
        );
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(
            args_in(&args_file),
            ["show", expected],
            "{shell}: typed {typed:?}"
        );
        h.assert_nothing_ran(shell);
    }
    let _ = p.send_control('d');
}

/// What every shell's test types: plain prefixes of hostile names.
const PLAIN_CASES: &[(&str, &str)] = &[
    ("kee", "keep 0197aaaa"),
    ("DI", "DIR/*"),
    ("it", "it's \"q\" \\"),
    ("01970008", "01970008-0000-7000-8000-000000000008"),
];

#[test]
fn bash_inserts_hostile_names_literally() {
    if !installed("bash") {
        return;
    }
    let h = Hostile::new();
    let setup = [
        "PS1='$ '".to_owned(),
        format!("source <(COMPLETE=bash '{BIN}')"),
        r#"pisess() { printf '%s\0' "$@" > "$ARGS"; }"#.to_owned(),
    ];
    let mut cases = PLAIN_CASES.to_vec();
    // The `$(touch …)` name and id share their start: type up to where they part.
    let dollar = h
        .words
        .iter()
        .find(|w| w.ends_with("-dollar)"))
        .unwrap()
        .clone();
    let dollar_typed = format!("'{}", &dollar[..dollar.len() - "ollar)".len()]);
    let backquote = h.words.iter().find(|w| w.starts_with('`')).unwrap().clone();
    cases.extend([
        ("'kee", "keep 0197aaaa"),
        ("\"kee", "keep 0197aaaa"),
        (dollar_typed.as_str(), dollar.as_str()),
        ("\"\\`", backquote.as_str()),
        ("'~", "~root"),
        ("'$H", "$HOME"),
        ("'!", "!!x"),
        ("'k:", "k:v=w"),
    ]);
    at_a_terminal(&h, &["bash", "--norc", "--noprofile", "-i"], &setup, &cases);
}

#[test]
fn zsh_inserts_hostile_names_literally() {
    if !installed("zsh") {
        return;
    }
    let h = Hostile::new();
    let setup = [
        "PS1='$ '".to_owned(),
        "autoload -U compinit && compinit -u".to_owned(),
        format!("source <(COMPLETE=zsh '{BIN}')"),
        r#"pisess() { printf '%s\0' "$@" > "$ARGS"; }"#.to_owned(),
    ];
    at_a_terminal(&h, &["zsh", "-f", "-i"], &setup, PLAIN_CASES);
}

#[test]
fn fish_inserts_hostile_names_literally() {
    if !installed("fish") {
        return;
    }
    let h = Hostile::new();
    let setup = [
        format!("COMPLETE=fish '{BIN}' | source"),
        r#"function pisess; printf '%s\0' $argv > "$ARGS"; end"#.to_owned(),
    ];
    at_a_terminal(&h, &["fish", "--no-config", "-i"], &setup, PLAIN_CASES);
}

#[test]
fn elvish_inserts_hostile_names_literally() {
    if !installed("elvish") {
        return;
    }
    let h = Hostile::new();
    let setup = [
        format!("eval (E:COMPLETE=elvish '{BIN}' | slurp)"),
        "use str".to_owned(),
        r#"fn pisess {|@a| print (str:join "\x00" $a)"\x00" > $E:ARGS }"#.to_owned(),
    ];
    at_a_terminal(&h, &["elvish", "-norc"], &setup, PLAIN_CASES);
}

// ---- every candidate at once, as the shell lists them ----

#[test]
fn fish_lists_each_hostile_name_once_with_clean_descriptions() {
    if !installed("fish") {
        return;
    }
    let h = Hostile::new();
    let script = format!("COMPLETE=fish '{BIN}' | source; complete -C 'pisess show '");
    let out = ok(
        h.shell("fish")
            .args(["--no-config", "-c", &script])
            .output()
            .unwrap(),
        "fish",
    );
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let offered: Vec<String> = text
        .lines()
        .map(|l| l.split('\t').next().unwrap().to_owned())
        .filter(|w| !w.starts_with('-'))
        .collect();
    h.assert_offered("fish", &offered, &out.stdout);
    assert!(
        text.contains("title \\u{1b}]0;pwned"),
        "the title, escaped: {text}"
    );
}

#[test]
fn zsh_and_elvish_hooks_get_each_hostile_name_once() {
    for shell in ["zsh", "elvish"] {
        if !installed(shell) {
            continue;
        }
        let h = Hostile::new();
        // What the hook runs: clap's protocol, a candidate a line (zsh: `value:help`).
        let out = ok(
            h.shell(BIN)
                .args(["--", "pisess", "show", ""])
                .env("_CLAP_COMPLETE_INDEX", "2")
                .env("_CLAP_IFS", "\n")
                .env("COMPLETE", shell)
                .output()
                .unwrap(),
            shell,
        );
        let text = String::from_utf8(out.stdout.clone()).unwrap();
        let offered: Vec<String> = text
            .lines()
            .map(|l| match shell {
                // `\:` and `\\` are zsh's escapes of the value; the first bare `:` ends it.
                "zsh" => {
                    let mut v = String::new();
                    let mut chars = l.chars();
                    while let Some(c) = chars.next() {
                        match c {
                            '\\' => v.extend(chars.next()),
                            ':' => break,
                            c => v.push(c),
                        }
                    }
                    v
                }
                _ => l.to_owned(),
            })
            .filter(|w| !w.starts_with('-'))
            .collect();
        h.assert_offered(shell, &offered, &out.stdout);
    }
}
