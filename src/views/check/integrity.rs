//! The integrity findings of `check`: what is wrong with a file's structure, each at its line.

use serde_json::Value;

use super::Finding;
use pisess_format::model::{Dialect, Entry, EntryKind, PI_ROLES};
use pisess_store::session::Session;

/// The file's structural faults: the reader's own warnings (malformed lines, duplicate and
/// missing ids, a second header), then a bad header, a torn last line, missing parents,
/// cycles, targets that name no entry, and types and roles pi does not write. By line.
/// Each message passes through `name` (`check --no-secrets` takes secrets out of the ids,
/// types and roles it quotes); a value cut short is named before it is cut.
pub fn integrity(session: &Session, name: &dyn Fn(&str) -> String) -> Vec<Finding> {
    let mut findings: Vec<Finding> = session
        .warnings
        .iter()
        .map(|w| Finding {
            line: w.line,
            message: name(&w.message),
        })
        .collect();
    let mut add = |line: Option<u64>, message: String| {
        findings.push(Finding {
            line,
            message: name(&message),
        });
    };
    let header = &session.header;
    let at_header = Some(session.header_line);
    if header.dialect == Dialect::Pi {
        // pi writes the whole numbers 1 to 3; anything else it compares as JavaScript does.
        let stored = header.stored_version();
        let whole = stored.is_none_or(|v| v.as_u64().is_some_and(|n| (1..=3).contains(&n)));
        if !whole {
            add(
                at_header,
                format!(
                    "header version {} is not one pi writes (1 to 3); read as version {}",
                    crate::views::style::one_line(
                        &stored.map(Value::to_string).unwrap_or_default()
                    ),
                    header.version
                ),
            );
        }
        if header.timestamp_ms.is_none() {
            add(at_header, "header has no valid \"timestamp\"".into());
        }
        if header.cwd.is_none() {
            add(at_header, "header has no string \"cwd\"".into());
        }
    }
    if let Some(line) = session.torn_line {
        add(
            Some(line),
            "the last line is cut short (no newline, not JSON): pi may still be writing it".into(),
        );
    }
    let roles_ok = |role: &str| {
        PI_ROLES.contains(&role) || (role == "hookMessage" && header.renames_hook_messages())
    };
    for i in 0..session.entries.len() {
        let line = Some(session.line(i));
        let kind = session.kind(i);
        let id = session.id(i).unwrap_or("?");
        if let (Some(parent), None) = (session.parent_id(i), session.parent_of(i)) {
            add(
                line,
                format!("entry {id}: parent {parent} is not in the file"),
            );
        } else if session.parent_of(i).is_none()
            && !header.needs_v1_ids()
            && session.id(i).is_some()
        {
            // Drawn as a root. pi's getTree roots only `parentId === null` (or its own id);
            // any other value (absent, "", a number, an object) is an orphan there, as a
            // missing parent is. Only roots are read again: a file has few.
            if let Some(why) = session.load(i).ok().and_then(|v| not_a_root(&v, name)) {
                add(line, format!("entry {id}: {why}"));
            }
        }
        match kind {
            EntryKind::Unknown(t) if t.is_empty() => {
                add(line, format!("entry {id} has no \"type\""))
            }
            EntryKind::Unknown(t) => add(line, format!("entry {id}: unknown type \"{t}\"")),
            EntryKind::ToolCall | EntryKind::Thinking if header.dialect == Dialect::Pi => add(
                line,
                format!("entry {id}: unknown type \"{}\"", kind.as_str()),
            ),
            EntryKind::Message => match session.role(i) {
                Some(role) if !roles_ok(role) => {
                    add(line, format!("entry {id}: unknown message role \"{role}\""));
                }
                Some(_) => {}
                None => add(line, format!("entry {id}: message has no \"role\"")),
            },
            EntryKind::Label | EntryKind::ContextEdit => match session.target(i) {
                Some(t) if session.find(t).is_none() => add(
                    line,
                    format!("entry {id}: {} targetId {t} names no entry", kind.as_str()),
                ),
                Some(_) => {}
                None => add(
                    line,
                    format!("entry {id}: {} has no targetId", kind.as_str()),
                ),
            },
            EntryKind::Compaction if header.dialect == Dialect::Pi => {
                let entry = session.load(i).ok();
                let kept = match entry.as_ref().map(|v| Entry::of_kind(kind, v)) {
                    Some(Entry::Compaction {
                        first_kept_entry_id: k,
                        ..
                    }) => k.and_then(Value::as_str),
                    _ => None,
                };
                match kept {
                    Some(k) if session.find(k).is_none() => add(
                        line,
                        format!("entry {id}: compaction firstKeptEntryId {k} names no entry"),
                    ),
                    Some(_) => {}
                    None => add(
                        line,
                        format!("entry {id}: compaction has no firstKeptEntryId"),
                    ),
                }
            }
            _ => {}
        }
    }
    for (line, id) in cycles(session) {
        add(
            Some(line),
            format!("entry {id}: its parents loop back to it (a cycle; pi would hang)"),
        );
    }
    // By line; the one without a line (the malformed lines past the first, counted) last.
    findings.sort_by_key(|f| (f.line.is_none(), f.line));
    findings
}

/// Why an entry pisess draws as a root is an orphan for pi: its `parentId` is not `null`.
fn not_a_root(entry: &Value, name: &dyn Fn(&str) -> String) -> Option<String> {
    match Entry::parent_id(entry) {
        Some(Value::Null) => None,
        None => Some("no parentId (pi's tree takes it for an orphan; a root has null)".into()),
        Some(p) => {
            // Named before it is cut: a cut secret is still a part of one.
            let mut shown = name(&p.to_string());
            if shown.len() > 40 {
                let cut = (0..=40)
                    .rev()
                    .find(|&n| shown.is_char_boundary(n))
                    .unwrap_or(0);
                shown.truncate(cut);
                shown.push('…');
            }
            Some(format!("parent {shown} is not in the file (pi's tree takes it for an orphan; a root has null)"))
        }
    }
}

/// Each parent cycle once, named by the entry where the walk up from it closes: its line and id.
fn cycles(session: &Session) -> Vec<(u64, String)> {
    // 0: not seen, 1: on the walk in hand, 2: known to reach a root or a known cycle.
    let mut state = vec![0u8; session.entries.len()];
    let mut found = Vec::new();
    let mut walk = Vec::new();
    for start in 0..session.entries.len() {
        let mut at = Some(start);
        while let Some(i) = at {
            match state[i] {
                0 => {
                    state[i] = 1;
                    walk.push(i);
                    at = session.parent_of(i);
                }
                1 => {
                    let id = session.id(i).unwrap_or("?").to_owned();
                    found.push((session.line(i), id));
                    break;
                }
                _ => break,
            }
        }
        for i in walk.drain(..) {
            state[i] = 2;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use pisess_store::session::test_session;
    use serde_json::json;

    #[test]
    fn a_sound_session_has_no_findings() {
        assert_eq!(integrity(&test_session(&[]), &str::to_owned), []);
        let s = test_session(&[
            json!({"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}),
            json!({"type":"label","id":"b","parentId":"a","targetId":"a","label":"l"}),
            json!({"type":"compaction","id":"c","parentId":"b","firstKeptEntryId":"a","summary":"s","tokensBefore":1}),
        ]);
        assert_eq!(integrity(&s, &str::to_owned), []);
    }

    #[test]
    fn structural_faults_are_found_once_each_by_line() {
        let s = test_session(&[
            json!({"type":"message","id":"a","parentId":"c","message":{"role":"user","content":"x"}}),
            json!({"type":"message","id":"b","parentId":"a","message":{"role":"robot","content":"x"}}),
            json!({"type":"message","id":"c","parentId":"b","message":{"role":"user","content":"x"}}),
            json!({"type":"label","id":"d","parentId":"zz","targetId":"nope"}),
            json!({"type":"context_edit","id":"e","parentId":"d"}),
            json!({"type":"compaction","id":"f","parentId":"e","firstKeptEntryId":"gone"}),
            json!({"type":"weird","id":"g","parentId":"f"}),
            json!({"type":"custom","id":"g","parentId":"f"}),
        ]);
        let found = integrity(&s, &str::to_owned);
        let has = |line: u64, part: &str| {
            assert!(
                found
                    .iter()
                    .any(|f| f.line == Some(line) && f.message.contains(part)),
                "no finding on line {line} with {part:?} in {found:#?}"
            );
        };
        has(3, "unknown message role \"robot\"");
        has(5, "parent zz is not in the file");
        has(5, "targetId nope names no entry");
        has(6, "context_edit has no targetId");
        has(7, "firstKeptEntryId gone names no entry");
        has(8, "unknown type \"weird\"");
        has(9, "duplicate id g");
        // The loop a → c → b → a is one cycle, reported once.
        let cycles = found.iter().filter(|f| f.message.contains("cycle"));
        assert_eq!(cycles.count(), 1);
        let lines: Vec<_> = found.iter().map(|f| f.line).collect();
        let mut sorted = lines.clone();
        sorted.sort();
        assert_eq!(lines, sorted);
    }

    #[test]
    fn a_parent_id_that_is_not_null_and_names_no_entry_is_an_orphan_as_in_pi() {
        let s = test_session(&[
            json!({"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}),
            json!({"type":"message","id":"b","parentId":"","message":{"role":"user","content":"x"}}),
            json!({"type":"message","id":"c","parentId":5,"message":{"role":"user","content":"x"}}),
            json!({"type":"message","id":"d","parentId":{"x":1},"message":{"role":"user","content":"x"}}),
            json!({"type":"message","id":"e","message":{"role":"user","content":"x"}}),
            json!({"type":"message","id":"f","parentId":"a","message":{"role":"user","content":"x"}}),
        ]);
        let found = integrity(&s, &str::to_owned);
        let lines: Vec<_> = found.iter().map(|f| f.line).collect();
        assert_eq!(lines, [Some(3), Some(4), Some(5), Some(6)], "{found:#?}");
        assert!(found[0].message.contains("parent \"\" is not in the file"));
        assert!(found[1].message.contains("parent 5 is not"));
        assert!(found[3].message.contains("entry e: no parentId"));
    }

    #[test]
    fn torn_lines_and_bad_headers_are_findings() {
        let text = "{\"type\":\"session\",\"version\":7,\"id\":\"s\"}\n{\"type\":\"custom\",\"id\":\"a\",\"parentId\":null}\nnot json\n{\"type\":\"cus";
        let s = Session::read(
            pisess_format::scan::Input::Bytes(text.as_bytes(), "t"),
            pisess_store::session::IndexOptions::default(),
        )
        .unwrap();
        let found = integrity(&s, &str::to_owned);
        let at = |line: u64| {
            found
                .iter()
                .filter(|f| f.line == Some(line))
                .map(|f| f.message.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(at(1).len(), 3, "{found:?}");
        assert!(at(1)[0].contains("version 7"));
        assert_eq!(at(3).len(), 1);
        assert!(at(4)[0].contains("cut short"));
    }
}
