//! The property behind `grep --secrets`, `check --no-secrets` and `export --redact`
//! (docs/secrets.md, "What is never printed"): for random sessions with secrets planted
//! anywhere (ids, `parentId`, `targetId`, types, the header's id and cwd and so the file's
//! path, tool names, message text, tool arguments and their keys, JSON inside strings, unknown
//! fields, lines pi skips), every planted secret is found, no output of any mode or form holds
//! 5 characters in a row of one, and a redacted jsonl export is still the same tree.
//!
//! The runner's seed is fixed, so a run is the same everywhere (a CI that fails by chance
//! proves nothing); `PROPTEST_CASES` asks for more cases, and changing `SEED` explores others.

use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed, TestRunner};
use serde_json::{json, Value};

use crate::common::{env_in, run_with, Run};
use crate::secrets_corpus::{github_style, Rng};
use crate::secrets_output::{leaks, shape};

const SEED: u64 = 0x5ec2_e75e_ed00_0042;

/// Where a secret is put.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// The first message's id (and so the next entry's `parentId`).
    EntryId,
    /// A `parentId` that names no entry.
    DanglingParent,
    /// A label's `targetId`.
    TargetId,
    /// An entry of an unknown type named by it.
    Type,
    /// The header's id, and so the file's name (`<time>_<id>.jsonl`).
    HeaderId,
    /// The project folder: cwd `/w/<secret>/app`, folder `--w-<secret>-app--`.
    Cwd,
    /// A tool call's name and its result's `toolName`.
    ToolName,
    /// A tool call's id and its result's `toolCallId`.
    CallId,
    /// The id of two side entries (the reader warns of it on stderr).
    DuplicateId,
    /// The first message's role (one pi does not know).
    Role,
    /// The last assistant message's `stopReason` (`check --ended` quotes it).
    StopReason,
    /// A user message's text.
    Text,
    /// A tool call's argument.
    Argument,
    /// A key of a tool call's arguments.
    ArgumentKey,
    /// JSON inside a string inside JSON ..., `n` levels, in a tool result.
    Nested(u8),
    /// An extra field pi does not know, on an entry.
    ExtraField,
    /// A line pi skips (not JSON).
    SkippedLine,
    /// An extra field of a seed-000 dialect entry (the file is then a seed-000 session).
    Seed000Extra,
}

const PLACEMENTS: &[Placement] = &[
    Placement::EntryId,
    Placement::DanglingParent,
    Placement::TargetId,
    Placement::Type,
    Placement::HeaderId,
    Placement::Cwd,
    Placement::ToolName,
    Placement::CallId,
    Placement::DuplicateId,
    Placement::Role,
    Placement::StopReason,
    Placement::Text,
    Placement::Argument,
    Placement::ArgumentKey,
    Placement::Nested(1),
    Placement::Nested(2),
    Placement::Nested(4),
    Placement::Nested(7),
    Placement::Nested(8),
    Placement::ExtraField,
    Placement::SkippedLine,
    Placement::Seed000Extra,
];

/// Formats the detector knows, with random bodies that pass their checks.
#[derive(Debug, Clone, Copy)]
enum Format {
    Stripe,
    StripeRestricted,
    Aws,
    Slack,
    GitHub,
}

fn entropy(s: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in s.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    #[allow(clippy::cast_precision_loss)]
    let n = s.chars().count() as f64;
    counts
        .values()
        .map(|&k| {
            #[allow(clippy::cast_precision_loss)]
            let p = k as f64 / n;
            -p * p.log2()
        })
        .sum()
}

fn make(format: Format, rng: &mut Rng) -> String {
    let pick = |rng: &mut Rng, alphabet: &[u8], n: usize| -> String {
        loop {
            let s: String = (0..n)
                .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize] as char)
                .collect();
            // Above every entropy floor (3.0) with room to spare.
            if entropy(&s) >= 3.4 {
                return s;
            }
        }
    };
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    match format {
        Format::Stripe => format!("sk_live_{}", pick(rng, ALNUM, 24)),
        Format::StripeRestricted => format!("rk_live_{}", pick(rng, ALNUM, 24)),
        Format::Aws => format!("AKIA{}", pick(rng, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)),
        Format::Slack => format!(
            "xoxb-{}-{}-{}",
            1_000_000_000_000 + rng.next() % 9_000_000_000_000,
            1_000_000_000_000 + rng.next() % 9_000_000_000_000,
            pick(rng, ALNUM, 24)
        ),
        Format::GitHub => github_style(rng, "ghp_", true),
    }
}

/// One random session: its secrets and where they went.
#[derive(Debug, Clone)]
struct Plan {
    seed: u64,
    planted: Vec<(Placement, Format, usize)>,
}

fn plan() -> impl Strategy<Value = Plan> {
    let format = prop_oneof![
        Just(Format::Stripe),
        Just(Format::StripeRestricted),
        Just(Format::Aws),
        Just(Format::Slack),
        Just(Format::GitHub),
    ];
    let placement = proptest::sample::select(PLACEMENTS);
    (
        any::<u64>(),
        proptest::collection::vec((placement, format, 0usize..6), 1..5),
    )
        .prop_map(|(seed, planted)| Plan { seed, planted })
}

/// What a plan made: the file, and the secrets in it.
struct Made {
    file: PathBuf,
    secrets: Vec<String>,
}

/// Writes the plan's session under `root` (pi's layout: `sessions/--<cwd>--/<time>_<id>.jsonl`).
fn write(root: &Path, plan: &Plan) -> Made {
    let mut rng = Rng(plan.seed);
    let mut header_id = "0196d88e-694c-7a1c-816a-89e3bcf11f1a".to_owned();
    let mut folder = "home-dev-app".to_owned();
    let mut cwd = "/home/dev/app".to_owned();
    let mut secrets = Vec::new();
    let mut user_id = "u1".to_owned();
    let mut orphan_parent: Option<String> = None;
    let mut target = "u1".to_owned();
    let mut tool = "bash".to_owned();
    let mut call_id = "c1".to_owned();
    let mut duplicates: Vec<String> = Vec::new();
    let mut role = "user".to_owned();
    let mut stop = "stop".to_owned();
    let mut text = String::from("deploy the app");
    let mut arguments = json!({"command": "ls"});
    let mut results: Vec<String> = vec!["ok".to_owned()];
    let mut extra: Vec<String> = Vec::new();
    let mut types: Vec<String> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    // One Seed000Extra makes the whole file a seed-000 session, whose layout has no place for
    // some of pi's fields: a secret planned there goes to an extra field instead.
    let seed000 = plan
        .planted
        .iter()
        .any(|&(p, _, _)| p == Placement::Seed000Extra);
    let seps = [" ", "\n", "\t", "'", "(", ", ", "\""];
    let mut taken: Vec<Placement> = Vec::new();
    for (k, &(placement, format, sep)) in plan.planted.iter().enumerate() {
        let s = make(format, &mut rng);
        let around = |body: &str| format!("see{}{body}{}done", seps[sep], seps[sep]);
        // A place that holds one value, taken already: the secret goes to an extra field.
        let single = matches!(
            placement,
            Placement::EntryId
                | Placement::DanglingParent
                | Placement::TargetId
                | Placement::HeaderId
                | Placement::Cwd
                | Placement::ToolName
                | Placement::CallId
                | Placement::Role
                | Placement::StopReason
        );
        let placement = if single && taken.contains(&placement) {
            Placement::ExtraField
        } else {
            placement
        };
        let placement = if seed000
            && matches!(
                placement,
                Placement::TargetId
                    | Placement::Type
                    | Placement::HeaderId
                    | Placement::DuplicateId
                    | Placement::Role
                    | Placement::StopReason
                    | Placement::SkippedLine
                    | Placement::ExtraField
            ) {
            Placement::Seed000Extra
        } else {
            placement
        };
        taken.push(placement);
        match placement {
            Placement::EntryId => {
                target = if target == user_id { s.clone() } else { target };
                user_id.clone_from(&s);
            }
            Placement::DanglingParent => orphan_parent = Some(s.clone()),
            Placement::TargetId => target.clone_from(&s),
            Placement::Type => types.push(s.clone()),
            Placement::HeaderId => header_id.clone_from(&s),
            Placement::Cwd => {
                cwd = format!("/w/{s}/app");
                folder = format!("w-{s}-app");
            }
            Placement::ToolName => tool.clone_from(&s),
            Placement::CallId => call_id.clone_from(&s),
            Placement::DuplicateId => duplicates.push(s.clone()),
            Placement::Role => role.clone_from(&s),
            Placement::StopReason => stop.clone_from(&s),
            Placement::Text => text.push_str(&around(&s)),
            Placement::Argument => arguments[format!("url{k}")] = around(&s).into(),
            Placement::ArgumentKey => arguments[s.as_str()] = "1".into(),
            Placement::Nested(n) => {
                let mut v = json!({"value": around(&s)}).to_string();
                for _ in 1..n {
                    v = json!({"inner": v}).to_string();
                }
                results.push(v);
            }
            Placement::ExtraField => extra.push(around(&s)),
            Placement::SkippedLine => skipped.push(format!("not json {}", around(&s))),
            Placement::Seed000Extra => extra.push(around(&s)),
        }
        secrets.push(s);
    }
    let blocks: Vec<Value> = results
        .iter()
        .map(|t| json!({"type": "text", "text": t}))
        .collect();
    let dir = root.join("sessions").join(format!("--{folder}--"));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("2026-07-01T10-00-00-000Z_{header_id}.jsonl"));
    let t = "2026-07-01T10:00:01.000Z";
    let ms = 1_782_900_001_000u64;
    let mut lines: Vec<String> = Vec::new();
    if seed000 {
        lines.push(json!({"type": "session_header", "version": 1, "createdAt": "2026-07-01T10:00:00Z", "cwd": cwd}).to_string());
        let mut u = json!({"type": "user_message", "id": user_id, "parentId": null, "timestamp": t,
            "content": [{"type": "text", "text": text}]});
        for (k, e) in extra.iter().enumerate() {
            u[format!("extra{k}")] = e.clone().into();
        }
        lines.push(u.to_string());
        lines.push(json!({"type": "assistant_message", "id": "a1", "parentId": orphan_parent.clone().unwrap_or(user_id.clone()), "timestamp": t, "modelId": "m",
            "content": [{"type": "tool_use", "id": call_id, "name": tool, "input": arguments}],
            "usage": {"inputTokens": 9, "outputTokens": 2, "cacheReadTokens": 0, "cacheWriteTokens": 0}, "cost": 0.003}).to_string());
        lines.push(json!({"type": "user_message", "id": "r1", "parentId": "a1", "timestamp": t,
            "content": [{"type": "tool_result", "toolUseId": call_id, "content": blocks, "isError": true}]}).to_string());
    } else {
        lines.push(json!({"type": "session", "version": 3, "id": header_id, "timestamp": "2026-07-01T10:00:00.000Z", "cwd": cwd}).to_string());
        let mut u = json!({"type": "message", "id": user_id, "parentId": null, "timestamp": t,
            "message": {"role": role, "content": text, "timestamp": ms}});
        for (k, e) in extra.iter().enumerate() {
            u[format!("extra{k}")] = e.clone().into();
        }
        lines.push(u.to_string());
        lines.push(json!({"type": "message", "id": "a1", "parentId": orphan_parent.clone().unwrap_or(user_id.clone()), "timestamp": t,
            "message": {"role": "assistant", "content": [{"type": "toolCall", "id": call_id, "name": tool, "arguments": arguments}],
                "provider": "p", "model": "m", "stopReason": "toolUse", "timestamp": ms}}).to_string());
        lines.push(
            json!({"type": "message", "id": "r1", "parentId": "a1", "timestamp": t,
            "message": {"role": "toolResult", "toolCallId": call_id, "toolName": tool, "isError": true,
                "content": blocks, "timestamp": ms}})
            .to_string(),
        );
        lines.push(json!({"type": "label", "id": "l1", "parentId": "r1", "timestamp": t, "targetId": target, "label": "here"}).to_string());
        for d in &duplicates {
            for _ in 0..2 {
                lines.push(
                    json!({"type": "custom", "id": d, "parentId": "l1", "timestamp": t, "customType": "x"})
                        .to_string(),
                );
            }
        }
        let mut parent = "l1".to_owned();
        for (k, ty) in types.iter().enumerate() {
            let id = format!("x{k}");
            lines.push(
                json!({"type": ty, "id": id, "parentId": parent, "timestamp": t}).to_string(),
            );
            parent = id;
        }
        lines.push(
            json!({"type": "message", "id": "z9", "parentId": parent, "timestamp": t,
            "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}],
                "provider": "p", "model": "m", "stopReason": stop, "timestamp": ms}})
            .to_string(),
        );
    }
    for (k, s) in skipped.iter().enumerate() {
        lines.insert(2 + k.min(lines.len() - 2), s.clone());
    }
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&file, body).unwrap();
    Made { file, secrets }
}

fn run_in(root: &Path, args: &[&str]) -> Run {
    run_with(env_in(root, "/home/dev/webshop"), args, b"")
}

/// Every output of every mode on one session: none holds a part of a planted secret.
fn check_plan(plan: &Plan) -> Result<(), TestCaseError> {
    let tmp = tempfile::tempdir().unwrap();
    let made = write(tmp.path(), plan);
    let f = made.file.to_str().unwrap();
    let mut runs: Vec<(String, Run)> = Vec::new();
    let mut go = |args: &[&str]| {
        let run = run_in(tmp.path(), args);
        runs.push((args.join(" "), run));
        runs.last().unwrap().1.stdout.clone()
    };
    let json = go(&["grep", "--secrets", "--json", f]);
    for args in [
        &["grep", "--secrets", f][..],
        &["grep", "--secrets", "-l", f],
        &["grep", "--secrets", "-c", f],
        &["grep", "--secrets", "--all", "--json"],
        &["check", "--no-secrets", "--integrity", "--ended", f],
        &["check", "--no-secrets", "--integrity", "--json", f],
        &[
            "check",
            "--no-secrets",
            "--integrity",
            "--ended",
            "--summary",
            "-",
            f,
        ],
        &["check", "--no-secrets", "--integrity", "--junit", "-", f],
        &["check", "--no-secrets", "--all"],
    ] {
        go(args);
    }
    let mut exports = Vec::new();
    for format in ["jsonl", "md", "html"] {
        exports.push(go(&["export", f, "--format", format, "--redact"]));
    }
    for (what, run) in &runs {
        prop_assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);
        for s in &made.secrets {
            for (stream, out) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
                if let Some(w) = leaks(out, s) {
                    return Err(TestCaseError::fail(format!(
                        "{what}: {stream} holds {w:?}, a part of a planted secret:\n{out}"
                    )));
                }
            }
        }
    }
    // The one vocabulary's names (docs/json.md) are the old ones' values, redacted alike: a
    // name added beside an old one must not bring back what the old one hides.
    for (what, run) in &runs {
        if !what.contains("--json") {
            continue;
        }
        for v in run
            .stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        {
            let pairs: &[(&str, &str)] = if what.starts_with("grep") {
                &[
                    ("sessionId", "session"),
                    ("entryId", "entry"),
                    ("lineNumber", "line"),
                ]
            } else {
                &[("sessionId", "session")]
            };
            for (new, old) in pairs {
                prop_assert!(v.get(*new).is_some(), "{what}: no {new} in {v}");
                prop_assert_eq!(&v[*new], &v[*old], "{}: {} is not {}", what, new, old);
            }
            if let Some(of) = v.get("subagentOf") {
                prop_assert_eq!(&of["sessionId"], &of["session"], "{}", what);
            }
        }
    }
    // Every planted secret is found (a secret not found is never redacted).
    let reported: std::collections::HashSet<String> = json
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["fingerprint"].as_str().map(str::to_owned))
        .collect();
    for s in &made.secrets {
        let fp = pisess::views::secrets::fingerprint(s);
        prop_assert!(
            reported.contains(&fp),
            "a planted {}… ({fp}) was not found",
            &s[..4]
        );
    }
    // The redacted jsonl is the same tree as the plain one.
    let plain = run_in(tmp.path(), &["-q", "export", f, "--format", "jsonl"]);
    let tree_of = |name: &str, text: &str| -> Vec<Value> {
        let file = tmp.path().join(name);
        fs::write(&file, text).unwrap();
        run_in(
            tmp.path(),
            &["tree", "--json", "--filter", "all", file.to_str().unwrap()],
        )
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
    };
    let (a, b) = (
        tree_of("plain.jsonl", &plain.stdout),
        tree_of("redacted.jsonl", &exports[0]),
    );
    prop_assert!(!a.is_empty());
    prop_assert_eq!(shape(&a), shape(&b));
    Ok(())
}

#[test]
fn no_output_holds_a_part_of_a_planted_secret() {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(16);
    let config = Config {
        cases,
        rng_seed: RngSeed::Fixed(SEED),
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    if let Err(e) = runner.run(&plan(), |p| check_plan(&p)) {
        panic!("{e}");
    }
}

const FORMATS: [Format; 5] = [
    Format::Stripe,
    Format::StripeRestricted,
    Format::Aws,
    Format::Slack,
    Format::GitHub,
];

/// Each of `placements` on its own, the formats taken in turn, ended by a newline: the hardest
/// end (escaped in JSON, `\n` has no word boundary before the secret until it is decoded).
fn each_alone(placements: &[Placement]) {
    for (k, &placement) in placements.iter().enumerate() {
        let format = FORMATS[k % FORMATS.len()];
        let plan = Plan {
            seed: k as u64,
            planted: vec![(placement, format, 1)],
        };
        if let Err(e) = check_plan(&plan) {
            panic!("{placement:?} {format:?}: {e}");
        }
    }
}

/// Each placement on its own: whatever the generator draws, all are tried.
#[test]
fn every_placement_holds_alone() {
    each_alone(PLACEMENTS);
}
