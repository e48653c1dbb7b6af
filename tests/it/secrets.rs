//! `grep --secrets` and `check --no-secrets`: recall and false positives on a corpus built as
//! real sessions are, exit codes, the config file, and that no output ever holds a planted
//! value.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{env_in, run_with, Run};
use crate::secrets_corpus::{self, github_style, Rng, KINDS};

fn run_in(root: &Path, args: &[&str]) -> Run {
    run_with(env_in(root, "/home/dev/webshop"), args, b"")
}

/// No planted value in what a run printed.
fn assert_silent(run: &Run, values: &[&str]) {
    for v in values {
        assert!(
            !run.stdout.contains(v) && !run.stderr.contains(v),
            "a planted value was printed (its first characters: {})",
            v.chars().take(4).collect::<String>()
        );
    }
}

#[test]
fn the_corpus_is_found_whole_and_its_look_alikes_never() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = secrets_corpus::write(tmp.path(), 12, 30_000, 3, 520);
    assert!(corpus.look_alikes >= 500);
    let run = run_in(tmp.path(), &["grep", "--secrets", "--all", "--json"]);
    let values: Vec<&str> = corpus.planted.iter().map(|p| p.value.as_str()).collect();
    assert_silent(&run, &values);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let found: Vec<(String, String, String)> = run
        .stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let s = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
            (s("path"), s("fingerprint"), s("kind"))
        })
        .collect();
    let expected: HashSet<(String, String, String)> = corpus
        .planted
        .iter()
        .map(|p| {
            (
                p.file.display().to_string(),
                pisess::views::secrets::fingerprint(&p.value),
                p.kind.to_owned(),
            )
        })
        .collect();
    let got: HashSet<_> = found.iter().cloned().collect();
    let missed: Vec<_> = corpus
        .planted
        .iter()
        .map(|p| {
            (
                p.file.display().to_string(),
                pisess::views::secrets::fingerprint(&p.value),
                p.kind.to_owned(),
            )
        })
        .filter(|t| !got.contains(t))
        .collect();
    let false_positives: Vec<_> = found
        .iter()
        .filter(|f| !expected.contains(*f))
        .map(|(path, fp, kind)| format!("{kind} {fp} in {path}"))
        .collect();
    let kinds_found: HashSet<&str> = corpus
        .planted
        .iter()
        .filter(|p| {
            got.contains(&(
                p.file.display().to_string(),
                pisess::views::secrets::fingerprint(&p.value),
                p.kind.to_owned(),
            ))
        })
        .map(|p| p.form)
        .collect();
    let kinds_missed: Vec<&&str> = KINDS
        .iter()
        .filter(|k| !kinds_found.contains(**k))
        .collect();
    assert!(
        kinds_missed.is_empty(),
        "kinds never found: {kinds_missed:?}"
    );
    let planted = corpus.planted.len();
    assert!(
        (planted - missed.len()) * 100 >= planted * 98,
        "recall {}/{planted}; missed: {:?}",
        planted - missed.len(),
        missed.iter().map(|m| (&m.2, &m.1)).collect::<Vec<_>>()
    );
    assert!(
        false_positives.is_empty(),
        "false positives: {false_positives:#?}"
    );
}

/// A session of one project with the given entry lines.
fn session(root: &Path, id: &str, lines: &[String]) -> std::path::PathBuf {
    let dir = root.join("sessions").join("--home-dev-webshop--");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("2026-07-01T10-00-00-000Z_{id}.jsonl"));
    let mut text = format!(
        r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-07-01T10:00:00.000Z","cwd":"/home/dev/webshop"}}"#
    ) + "\n";
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    fs::write(&path, text).unwrap();
    path
}

fn user(id: &str, text: &str) -> String {
    serde_json::json!({"type": "message", "id": id, "parentId": null, "timestamp": "2026-07-01T10:00:01.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1_782_900_001_000u64}})
    .to_string()
}

#[test]
fn grep_secrets_exits_as_grep_and_prints_no_secret() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(7);
    let token = github_style(&mut rng, "ghp_", true);
    let bad = github_style(&mut rng, "ghp_", false);
    let leaky = session(
        tmp.path(),
        "aaaa0001-0000-7000-8000-000000000001",
        &[user("u1", &format!("push with\nGITHUB_TOKEN={token}"))],
    );
    let clean = session(
        tmp.path(),
        "bbbb0002-0000-7000-8000-000000000002",
        &[user("u1", &format!("a wrong checksum: {bad}"))],
    );
    let (leaky, clean) = (leaky.to_str().unwrap(), clean.to_str().unwrap());

    let found = run_in(tmp.path(), &["grep", "--secrets", leaky]);
    assert_eq!(found.code, 0, "{}", found.stderr);
    let fp = pisess::views::secrets::fingerprint(&token);
    assert!(
        found
            .stdout
            .contains(&format!("u1  message.content:2  github-pat  ghp_…  {fp}")),
        "{}",
        found.stdout
    );
    assert_silent(&found, &[&token, &bad]);

    let json = run_in(tmp.path(), &["grep", "--secrets", "--json", leaky]);
    let v: Value = serde_json::from_str(json.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(v["session"], "aaaa0001-0000-7000-8000-000000000001");
    assert_eq!(v["path"], leaky);
    assert_eq!(v["entry"], "u1");
    assert_eq!(v["field"], "message.content");
    assert_eq!(v["line"], 2);
    assert_eq!(v["kind"], "github-pat");
    assert_eq!(v["fingerprint"], fp.as_str());
    assert_silent(&json, &[&token]);

    let none = run_in(tmp.path(), &["grep", "--secrets", clean]);
    assert_eq!(
        (none.code, none.stdout.as_str()),
        (1, ""),
        "a token with a wrong checksum is no token"
    );
    let scope = run_in(tmp.path(), &["grep", "--secrets", "-c"]);
    assert_eq!(scope.code, 0);
    assert_eq!(scope.stdout, format!("{leaky}:1\n"));
    let missing = run_in(tmp.path(), &["grep", "--secrets", "/nonexistent/x.jsonl"]);
    assert_eq!(missing.code, 2);
    let mixed = run_in(tmp.path(), &["grep", "--secrets", "--all", leaky]);
    assert_eq!(mixed.code, 2, "SESSIONs and --all together");
}

#[test]
fn a_config_file_adds_rules_and_a_bad_one_is_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(9);
    let internal = format!("itk_{}", rng.next());
    let path = session(
        tmp.path(),
        "aaaa0001-0000-7000-8000-000000000001",
        &[user("u1", &format!("use {internal}"))],
    );
    let path = path.to_str().unwrap();
    let config = tmp.path().join("rules.toml");
    fs::write(
        &config,
        "[[rules]]\nid = \"internal-token\"\nregex = '''itk_[0-9]{6,}'''\nkeywords = [\"itk_\"]\n",
    )
    .unwrap();
    let config = config.to_str().unwrap();
    assert_eq!(run_in(tmp.path(), &["grep", "--secrets", path]).code, 1);
    let run = run_in(
        tmp.path(),
        &["grep", "--secrets", "--secrets-config", config, path],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("internal-token"));
    assert_silent(&run, &[&internal]);
    let check = run_in(
        tmp.path(),
        &["check", "--no-secrets", "--secrets-config", config, path],
    );
    assert_eq!(check.code, 1, "{}", check.stderr);

    let broken = tmp.path().join("broken.toml");
    fs::write(&broken, "[[rules]]\nid = 'x'\nregex = 'a(b'\n").unwrap();
    let broken = broken.to_str().unwrap();
    let run = run_in(
        tmp.path(),
        &["grep", "--secrets", "--secrets-config", broken, path],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("broken.toml: rule 'x': bad regex"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run_in(
            tmp.path(),
            &["check", "--no-secrets", "--secrets-config", broken, path]
        )
        .code,
        2
    );
}

#[test]
fn check_no_secrets_fails_naming_each_finding_in_every_report() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(11);
    let password = format!("{}9", rng.next());
    let key = github_style(&mut rng, "npm_", true);
    let leaky = session(
        tmp.path(),
        "aaaa0001-0000-7000-8000-000000000001",
        &[
            user("u1", &format!("DATABASE_URL=postgres://app:{password}@db/app")),
            serde_json::json!({"type": "custom", "id": "c1", "parentId": "u1", "timestamp": "2026-07-01T10:00:02.000Z",
                "customType": "npmrc", "data": {"npmrc": format!("//registry.npmjs.org/:_authToken={key}")}})
            .to_string(),
        ],
    );
    let clean = session(
        tmp.path(),
        "bbbb0002-0000-7000-8000-000000000002",
        &[user("u1", "nothing secret")],
    );
    let (leaky, clean) = (leaky.to_str().unwrap(), clean.to_str().unwrap());
    let secrets = [password.as_str(), key.as_str()];

    let ok = run_in(tmp.path(), &["check", "--no-secrets", clean]);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    assert!(
        ok.stdout.contains("ok   no-secrets: 0 secrets"),
        "{}",
        ok.stdout
    );

    let failed = run_in(tmp.path(), &["check", "--no-secrets", leaky]);
    assert_eq!(failed.code, 1);
    assert!(
        failed
            .stdout
            .contains("FAIL no-secrets: 2 secrets; want none"),
        "{}",
        failed.stdout
    );
    assert!(
        failed.stdout.contains(":2: secret postgres-url"),
        "{}",
        failed.stdout
    );
    assert!(
        failed.stdout.contains(":3: secret npm-token npm_… ["),
        "{}",
        failed.stdout
    );
    assert!(
        failed.stdout.contains("in entry c1 at data.npmrc line 1"),
        "{}",
        failed.stdout
    );
    assert_silent(&failed, &secrets);

    let junit = run_in(
        tmp.path(),
        &["check", "--no-secrets", "--junit", "-", leaky],
    );
    assert_eq!(junit.code, 1);
    assert!(
        junit.stdout.contains(r#"name="no-secrets"><failure"#),
        "{}",
        junit.stdout
    );
    assert!(
        junit.stdout.contains("secret npm-token"),
        "{}",
        junit.stdout
    );
    assert_silent(&junit, &secrets);
    let md = run_in(
        tmp.path(),
        &["check", "--no-secrets", "--summary", "-", leaky],
    );
    assert_eq!(md.code, 1);
    assert!(
        md.stdout.contains("**Secrets:**") && md.stdout.contains("secret postgres-url"),
        "{}",
        md.stdout
    );
    assert_silent(&md, &secrets);
    let json = run_in(tmp.path(), &["check", "--no-secrets", "--json", leaky]);
    let v: Value = serde_json::from_str(json.stdout.trim()).unwrap();
    assert_eq!(v["secrets"].as_array().map(Vec::len), Some(2));
    assert_silent(&json, &secrets);

    // Several sessions: the worst decides.
    assert_eq!(
        run_in(tmp.path(), &["check", "--no-secrets", clean, leaky]).code,
        1
    );
}

/// Writes the benchmark's corpus: `PISESS_CORPUS_DIR` (an agent dir), about
/// `PISESS_CORPUS_MB` megabytes, with `manifest.jsonl` (file, kind, value, fingerprint) and
/// `patterns.txt` (the built-in rules' regexes, for `rg -f`) beside `sessions/`.
#[test]
#[ignore = "run by benches/secrets.sh"]
fn write_corpus_for_the_benchmark() {
    let dir = std::env::var("PISESS_CORPUS_DIR").expect("PISESS_CORPUS_DIR");
    let mb: usize = std::env::var("PISESS_CORPUS_MB").map_or(30, |m| m.parse().unwrap());
    let dir = Path::new(&dir);
    let corpus = secrets_corpus::write(dir, mb * 4, 250_000, 3, 1000);
    let mut manifest = String::new();
    for p in &corpus.planted {
        manifest.push_str(
            &serde_json::json!({"file": p.file, "kind": p.kind, "form": p.form, "value": p.value,
                "fingerprint": pisess::views::secrets::fingerprint(&p.value)})
            .to_string(),
        );
        manifest.push('\n');
    }
    fs::write(dir.join("manifest.jsonl"), manifest).unwrap();
    let patterns: Vec<&str> = pisess::views::secrets::builtin_patterns().collect();
    fs::write(dir.join("patterns.txt"), patterns.join("\n") + "\n").unwrap();
    eprintln!(
        "corpus: {} bytes, {} planted of {} kinds, {} look-alikes",
        corpus.bytes,
        corpus.planted.len(),
        KINDS.len(),
        corpus.look_alikes
    );
}

/// Redacts every string of a decoded entry, as an export does.
fn redact_all(d: &pisess::views::secrets::Detector, v: &mut Value) {
    match v {
        Value::String(s) => *s = d.redact(s).into_owned(),
        Value::Array(items) => items.iter_mut().for_each(|i| redact_all(d, i)),
        Value::Object(map) => map.values_mut().for_each(|i| redact_all(d, i)),
        _ => {}
    }
}

#[test]
fn redacting_every_string_leaves_no_planted_value_and_nothing_to_find() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = secrets_corpus::write(tmp.path(), 6, 10_000, 2, 100);
    let d = pisess::views::secrets::Detector::default();
    let mut forms: Vec<String> = Vec::new();
    let mut form_kind: Vec<&str> = Vec::new();
    for p in &corpus.planted {
        form_kind.extend([p.form; 3]);
        let json = serde_json::to_string(&p.value).unwrap();
        forms.push(p.value.clone());
        forms.push(json[1..json.len() - 1].to_owned());
        forms.push(p.value.replace('/', "\\/"));
    }
    let files: HashSet<&Path> = corpus.planted.iter().map(|p| p.file.as_path()).collect();
    let (mut entries, mut redactions) = (0, 0);
    for file in files {
        for line in fs::read_to_string(file).unwrap().lines().skip(1) {
            let mut v: Value = serde_json::from_str(line).unwrap();
            let before = d.find_in_entry(&v).len();
            redact_all(&d, &mut v);
            let after = d.find_in_entry(&v);
            assert!(
                after.is_empty(),
                "left after redaction: {:?}",
                after
                    .iter()
                    .map(|f| (&f.kind, &f.field))
                    .collect::<Vec<_>>()
            );
            let text = serde_json::to_string(&v).unwrap();
            // The property: no planted value, in any of its stored forms, is left.
            let survived: Vec<&str> = forms
                .iter()
                .zip(&form_kind)
                .filter(|(f, _)| text.contains(f.as_str()))
                .map(|(_, k)| *k)
                .collect();
            assert!(
                survived.is_empty(),
                "a planted value survived redaction: {survived:?}"
            );
            redactions += before;
            entries += 1;
        }
    }
    assert!(
        entries > 0 && redactions >= corpus.planted.len(),
        "{redactions} redactions"
    );
}

#[test]
fn the_bundled_examples_leak_one_stripe_key_in_three_places() {
    let run = crate::common::run(&["-q", "grep", "--secrets", "--all", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let found: Vec<Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let got: Vec<(&str, &str, &str)> = found
        .iter()
        .map(|v| {
            (
                v["entry"].as_str().unwrap(),
                v["field"].as_str().unwrap(),
                v["kind"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("0a17a13d", "message.content", "stripe-secret-key"),
            ("80720be5", "message.content[0].text", "stripe-secret-key"),
            (
                "80720be5",
                "message.content[1].arguments.content",
                "stripe-secret-key"
            ),
        ]
    );
    assert!(
        found
            .iter()
            .all(|v| v["fingerprint"] == found[0]["fingerprint"]),
        "one key"
    );
    assert!(
        !run.stdout.contains("sk_test_51"),
        "the key itself is never printed"
    );
    let check = crate::common::run(&["-q", "check", "--no-secrets", "0196d88e"]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    assert!(!check.stdout.contains("sk_test_51"));
}

/// A gate finds what the file's bytes leak, whatever pi makes of the line: the header, a line
/// pi skips (a byte-order mark, bytes after the JSON, not JSON, a second header), the earlier
/// value of a key written twice, a key, and escapes in any of them. `grep --secrets` and
/// `check --no-secrets` agree, name the line and field, and print none of it.
#[test]
fn a_secret_in_any_line_shape_is_found_by_grep_and_check() {
    let tmp = tempfile::tempdir().unwrap();
    // A Stripe-format test value (not a live key), in pieces so that no scanner takes this
    // file for a leak.
    let key = ["sk_", "live_", "4eC39HqLyjWDarjtT1zdp7dc"].concat();
    let fp = pisess::views::secrets::fingerprint(&key);
    // The key with its first letter after the prefix as a JSON escape.
    let escaped = key.replacen("4eC", "\\u0034eC", 1);
    let header = |cwd: &str| {
        format!(
            r#"{{"type":"session","version":3,"id":"5e000000-0000-7000-8000-000000000001","timestamp":"2025-05-16T10:05:33.900Z","cwd":"{cwd}"}}"#
        )
    };
    let clean = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-05-16T10:05:35.000Z","message":{"role":"user","content":"hello","timestamp":1}}"#;
    let leak = |content: &str| {
        format!(
            r#"{{"type":"message","id":"b","parentId":"a","timestamp":"2025-05-16T10:05:36.000Z","message":{{"role":"user","content":"key {content}","timestamp":2}}}}"#
        )
    };
    let shapes: Vec<(&str, Vec<String>, u64, String)> = vec![
        (
            "header cwd",
            vec![header(&format!("/tmp/{key}")), clean.into()],
            1,
            "cwd".into(),
        ),
        (
            "escaped header cwd",
            vec![header(&format!("/tmp/{escaped}")), clean.into()],
            1,
            "cwd".into(),
        ),
        (
            "byte-order mark",
            vec![
                header("/tmp/p"),
                clean.into(),
                format!("\u{feff}{}", leak(&key)),
            ],
            3,
            "message.content".into(),
        ),
        (
            "trailing bytes",
            vec![header("/tmp/p"), clean.into(), format!("{}x", leak(&key))],
            3,
            "message.content".into(),
        ),
        (
            "trailing bytes, escaped",
            vec![
                header("/tmp/p"),
                clean.into(),
                format!("{}x", leak(&escaped)),
            ],
            3,
            "message.content".into(),
        ),
        (
            "second header",
            vec![
                header("/tmp/p"),
                clean.into(),
                header(&format!("/tmp/{key}")),
            ],
            3,
            "cwd".into(),
        ),
        (
            "duplicate key",
            vec![
                header("/tmp/p"),
                clean.into(),
                leak(&key).replace(r#","timestamp":2"#, r#","content":"clean","timestamp":2"#),
            ],
            3,
            "message.content".into(),
        ),
        (
            "object key",
            vec![
                header("/tmp/p"),
                clean.into(),
                format!(
                    r#"{{"type":"custom","id":"c","parentId":"a","timestamp":"2025-05-16T10:05:37.000Z","customType":"x","data":{{"{key}":1}}}}"#
                ),
            ],
            3,
            format!("data.[REDACTED stripe-secret-key {fp}]@key"),
        ),
        (
            "not JSON",
            vec![header("/tmp/p"), clean.into(), format!("STRIPE {key}")],
            3,
            "(raw line)".into(),
        ),
    ];
    for (i, (shape, lines, line, field)) in shapes.iter().enumerate() {
        let path = tmp.path().join(format!("{i}.jsonl"));
        fs::write(&path, lines.join("\n") + "\n").unwrap();
        let path = path.to_str().unwrap();

        let check = run_in(tmp.path(), &["check", "--no-secrets", path]);
        assert_eq!(check.code, 1, "{shape}: {}{}", check.stdout, check.stderr);
        assert!(
            check.stdout.contains(&format!(
                "{path}:{line}: secret stripe-secret-key sk_l… [{fp}]"
            )) && check.stdout.contains(&format!(" at {field} line 1")),
            "{shape}: {}",
            check.stdout
        );
        assert_silent(&check, &[&key]);

        let grep = run_in(tmp.path(), &["grep", "--secrets", "--json", path]);
        assert_eq!(grep.code, 0, "{shape}: {}", grep.stderr);
        let hits: Vec<Value> = grep
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(hits.len(), 1, "{shape}: one secret, once: {}", grep.stdout);
        assert_eq!(hits[0]["fileLine"], *line, "{shape}");
        assert_eq!(hits[0]["field"], field.as_str(), "{shape}");
        assert_eq!(hits[0]["fingerprint"], fp.as_str(), "{shape}");
        assert_silent(&grep, &[&key]);
        let human = run_in(tmp.path(), &["grep", "--secrets", path]);
        assert_silent(&human, &[&key]);

        // What export writes of the file holds no secret either (a key included).
        let export = run_in(tmp.path(), &["export", "--redact", "-f", "jsonl", path]);
        assert_silent(&export, &[&key]);
    }
}
