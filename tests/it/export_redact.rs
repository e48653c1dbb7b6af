//! `export --redact`: in every format, none of the secrets planted in a corpus built as real
//! sessions are (the secrets tests' own corpus) is left, each is named by its fingerprint, and
//! a redacted jsonl is still the same tree.

use serde_json::Value;

use crate::common::{env_in, run_with};
use crate::secrets_corpus;

#[test]
fn redacted_exports_hold_none_of_the_planted_secrets() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = secrets_corpus::write(tmp.path(), 6, 10_000, 2, 100);
    let mut files: Vec<_> = corpus.planted.iter().map(|p| p.file.clone()).collect();
    files.sort();
    files.dedup();
    let env = || env_in(tmp.path(), "/home/dev/webshop");
    let (mut checked, mut named) = (0, 0);
    for file in &files {
        let f = file.to_str().unwrap();
        let planted: Vec<_> = corpus.planted.iter().filter(|p| &p.file == file).collect();
        for (format, tools) in [
            ("jsonl", None),
            ("md", Some("collapsed")),
            ("html", Some("full")),
        ] {
            let mut args = vec!["-q", "export", f, "--format", format];
            if let Some(t) = tools {
                args.extend(["--tools", t]);
            }
            let plain = run_with(env(), &args, b"");
            args.push("--redact");
            let redacted = run_with(env(), &args, b"");
            assert_eq!(redacted.code, 0, "{}", redacted.stderr);
            for p in &planted {
                let fp = pisess::views::secrets::fingerprint(&p.value);
                assert!(
                    !redacted.stdout.contains(&p.value),
                    "{format}: a planted {} is left (its first characters: {}) in {f}",
                    p.kind,
                    p.value.chars().take(4).collect::<String>()
                );
                // Named where it was: jsonl holds every entry whole; md and html show the
                // texts a reader reads (not, say, a tool result's `details`).
                let shown = format == "jsonl" || plain.stdout.contains(&p.value);
                assert!(
                    !shown || redacted.stdout.contains(&fp),
                    "{format}: {} {fp} not named in {f}",
                    p.kind
                );
                // The test could fail: without --redact the value is there (where JSON writes
                // it as it is: JSON inside a tool result's JSON writes `/` as `\/`).
                if format == "jsonl" && !p.value.contains(['\n', '"', '\\', '/']) {
                    assert!(
                        plain.stdout.contains(&p.value),
                        "{format}: {} not in the plain export",
                        p.kind
                    );
                }
                if shown {
                    named += 1;
                }
                checked += 1;
            }
            if format == "jsonl" {
                // The same entries, ids and parents, line for line.
                let ids = |out: &str| -> Vec<(Value, Value, Value)> {
                    out.lines()
                        .skip(1)
                        .map(|l| {
                            let v: Value = serde_json::from_str(l).unwrap();
                            (v["type"].clone(), v["id"].clone(), v["parentId"].clone())
                        })
                        .collect()
                };
                assert_eq!(ids(&redacted.stdout), ids(&plain.stdout));
            }
        }
    }
    assert!(checked >= 3 * corpus.planted.len(), "{checked}");
    assert!(
        named >= corpus.planted.len() * 2,
        "most are shown in md or html too: {named}"
    );
    eprintln!("export --redact: {} planted secrets in {} sessions, none left in jsonl, md or html ({named} of {checked} named where shown)", corpus.planted.len(), files.len());
}
