//! The mechanics of the scan (issue 42, lane sec-engine): work that grows linearly with the
//! secrets of a line, each distinct secret of a line once, seed-000 lines read whole, and
//! redaction that follows JSON inside strings as deep as detection does.

use super::tests::chars;
use super::*;

/// Letters and digits of AWS's alphabet that spell no rule's keyword, so that every line here
/// wakes the same rules whatever its length.
const PLAIN32: &[u8] = b"JQXZ234567";

/// An AWS-format access key id (not a real one: random, built at run time).
fn aws_id(seed: u64) -> String {
    format!("AKIA{}", chars(seed, 16, PLAIN32))
}

/// A stored entry line whose message text holds `n` distinct keys on one line.
fn line_of_keys(n: usize) -> String {
    let text: Vec<String> = (0..n as u64)
        .map(|i| format!("{} n{i:09}", aws_id(i)))
        .collect();
    serde_json::json!({"type": "message", "id": "a1", "parentId": null,
        "timestamp": "2026-07-01T10:00:01.000Z",
        "message": {"role": "user", "content": text.join(" "), "timestamp": 1}})
    .to_string()
}

/// The work (bytes read, comparisons made) of finding the secrets of `line`, and the findings.
fn work_of(d: &Detector, line: &str) -> (u64, usize) {
    let before = work::so_far();
    let found = d.find_in_line(line.as_bytes(), None);
    (work::so_far() - before, found.len())
}

/// Case "the scan is quadratic in the secrets of one line" (64k keys on a 2 MB line took
/// 15-23 s on 63e6fc9: each finding's line number, and each candidate's line for the
/// allowlists, was found by reading the text from its start or to its end). Eight times the
/// keys must cost at most about eight times the work, however the work is measured here (every
/// byte a search reads, every finding's line and dedupe); on 63e6fc9 the line reads alone grew
/// with the square.
#[test]
fn the_work_of_a_line_grows_linearly_with_its_secrets() {
    let d = Detector::default();
    let (small, n_small) = work_of(&d, &line_of_keys(2_000));
    let (large, n_large) = work_of(&d, &line_of_keys(16_000));
    assert!(n_small > 1_900 && n_large > 15_200, "{n_small} {n_large}");
    let ratio = large as f64 / small as f64;
    assert!(
        ratio < 9.0,
        "8 times the keys cost {ratio:.1} times the work ({small} then {large})"
    );
    // And the work is a few passes over the line, not one per key.
    let bytes = line_of_keys(16_000).len() as u64;
    assert!(large < 40 * bytes, "{large} units for {bytes} bytes");
}

/// The same on a line pi does not parse (bytes after the JSON): the lenient passes and the raw
/// line pass too.
#[test]
fn the_work_of_a_malformed_line_grows_linearly_with_its_secrets() {
    let d = Detector::default();
    let (small, _) = work_of(&d, &format!("{} x", line_of_keys(2_000)));
    let (large, n) = work_of(&d, &format!("{} x", line_of_keys(16_000)));
    assert!(n > 15_200, "{n}");
    let ratio = large as f64 / small as f64;
    assert!(ratio < 9.0, "{ratio:.1} ({small} then {large})");
}

/// Case "the same secret twice on one line is reported twice": a key pasted twice on one line
/// of a text is one finding; on two lines, or in two fields, it is one per place.
#[test]
fn a_secret_twice_on_one_line_is_one_finding() {
    let d = Detector::default();
    let key = aws_id(42);
    let entry = |content: serde_json::Value| {
        serde_json::json!({"type": "message", "id": "a1", "parentId": null,
            "timestamp": "2026-07-01T10:00:01.000Z",
            "message": {"role": "user", "content": content, "timestamp": 1}})
        .to_string()
    };
    let places = |line: &str| -> Vec<(String, usize)> {
        d.find_in_line(line.as_bytes(), None)
            .into_iter()
            .map(|f| (f.field, f.line))
            .collect()
    };
    let twice = entry(format!("id {key} and again {key}").into());
    assert_eq!(places(&twice), [("message.content".to_owned(), 1)]);
    let two_lines = entry(format!("id {key}\nagain {key}").into());
    assert_eq!(
        places(&two_lines),
        [
            ("message.content".to_owned(), 1),
            ("message.content".to_owned(), 2)
        ]
    );
    let two_fields = entry(serde_json::json!([
        {"type": "text", "text": format!("{key} {key}")},
        {"type": "text", "text": format!("{key}")}
    ]));
    assert_eq!(
        places(&two_fields),
        [
            ("message.content[0].text".to_owned(), 1),
            ("message.content[1].text".to_owned(), 1)
        ]
    );
    // A line pi skips (bytes after the JSON): its passes agree on one finding too.
    assert_eq!(
        places(&format!("{twice} x")),
        [("message.content".to_owned(), 1)]
    );
}

/// A text holding JSON in a string `levels` times around `inner` (a JSON text).
fn nest(levels: usize, inner: String) -> String {
    let mut text = inner;
    for _ in 0..levels {
        text = serde_json::json!({ "v": text }).to_string();
    }
    text
}

/// Detection and redaction cannot drift: for keys hidden behind an escape at every depth from
/// 0 to 10, plainly, as NDJSON lines, under a secret's name and as keys, every key
/// `find_in_entry` reports is gone from `redact_entry`'s output (escapes undone), and every key
/// it does not report is left as it was.
#[test]
fn redaction_removes_exactly_what_detection_reports_at_every_depth() {
    let d = Detector::default();
    for levels in 0..=10 {
        let k: Vec<String> = (0..4)
            .map(|i| {
                let seed = 1000 + 10 * levels as u64 + i;
                format!(
                    "AKIA{}",
                    chars(seed, 16, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
                )
            })
            .collect();
        let hide = |key: &str| format!("\\u0041{}", &key[1..]);
        let texts = [
            nest(levels, format!("{{\"a\":\"{}\"}}", hide(&k[0]))),
            format!(
                "log\n{}\nend",
                nest(levels, format!("{{\"b\":\"{}\"}}", hide(&k[1])))
            ),
            nest(levels, format!("{{\"c\":{{\"{}\":1}}}}", hide(&k[2]))),
            nest(levels, format!("{{\"d\":[\"x {} y\"]}}", hide(&k[3]))),
        ];
        let entry = serde_json::json!({"type": "message", "id": "a1",
            "message": {"role": "user", "content": [
                {"type": "text", "text": texts[0]}, {"type": "text", "text": texts[1]},
                {"type": "toolCall", "id": "c", "name": "x",
                 "arguments": {"p": texts[2], "q": texts[3]}}]}});
        let reported: Vec<String> = d
            .find_in_entry(&entry)
            .into_iter()
            .map(|f| f.fingerprint)
            .collect();
        let mut redacted = entry.clone();
        d.redact_entry(&mut redacted);
        let mut seen = redacted.to_string();
        for _ in 0..14 {
            seen = seen.replace("\\\\", "\\").replace("\\u0041", "A");
        }
        // The test can fail both ways: shallow keys are found, keys past the depth are not.
        let hits = k
            .iter()
            .filter(|key| reported.contains(&fingerprint(key)))
            .count();
        match levels {
            0..=7 => assert_eq!(
                hits,
                4,
                "{levels} levels: {:?}",
                k.iter()
                    .map(|key| reported.contains(&fingerprint(key)))
                    .collect::<Vec<_>>()
            ),
            10 => assert_eq!(hits, 0, "{levels} levels"),
            _ => {}
        }
        for (i, key) in k.iter().enumerate() {
            let found = reported.contains(&fingerprint(key));
            let left = seen.contains(key.as_str());
            assert_eq!(
                left, !found,
                "{levels} levels, key {i}: reported {found}, left {left}"
            );
        }
    }
}
