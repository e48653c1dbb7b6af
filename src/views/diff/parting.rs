//! Where two branches part: the last entry they share and the first entry of each after it.
//!
//! Entries are shared by id: two leaves of one session share their common ancestors, and a
//! copy pi made (`createBranchedSession`, `forkFrom`) keeps the ids of what it copied. Two
//! files that share no id at their roots (two runs of one prompt) are compared by what the
//! model was sent: pi's context at each leaf ([`context::plan`], [`context::project`]), one
//! selected entry at a time, its messages by role and content (not timestamps, not ids of
//! their own), until the first that differs. Only the shared prefix and one entry past it are
//! decoded.

use std::io;

use serde_json::Value;

use pisess_store::session::Session;

use crate::views::context;

/// How the shared entries were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum By {
    /// The same entry ids from the root on.
    Id,
    /// The same messages sent to the model.
    Context,
}

/// Where two branches part; positions are in each side's session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parting {
    pub by: By,
    /// The last shared entry, A's and B's (the same entry when both are of one session);
    /// `None` when they share none.
    pub common: Option<(usize, usize)>,
    /// The first entry of each side after it (after the start when nothing is shared); `None`
    /// where a side ends there.
    pub next: (Option<usize>, Option<usize>),
}

/// One side: its session, the branch (root to leaf) and that leaf.
pub struct Side<'s> {
    pub session: &'s Session,
    pub path: &'s [usize],
}

/// Where `a` and `b` part.
pub fn find(a: &Side, b: &Side) -> io::Result<Parting> {
    let same_file = std::ptr::eq(a.session, b.session);
    let shared = a
        .path
        .iter()
        .zip(b.path)
        .take_while(|(&i, &j)| {
            if same_file {
                i == j
            } else {
                a.session.id(i).is_some() && a.session.id(i) == b.session.id(j)
            }
        })
        .count();
    if shared > 0 || same_file {
        return Ok(at(By::Id, shared, a.path, b.path));
    }
    by_context(a, b)
}

/// The parting after `shared` common entries of `a` and `b`.
fn at(by: By, shared: usize, a: &[usize], b: &[usize]) -> Parting {
    Parting {
        by,
        common: shared.checked_sub(1).map(|last| (a[last], b[last])),
        next: (a.get(shared).copied(), b.get(shared).copied()),
    }
}

/// The longest common prefix of the contexts pi builds at each leaf.
fn by_context(a: &Side, b: &Side) -> io::Result<Parting> {
    let leaf = |s: &Side| s.path.last().copied();
    let (pa, pb) = (
        context::plan(a.session, leaf(a))?,
        context::plan(b.session, leaf(b))?,
    );
    let mut shared = 0;
    for (x, y) in pa.items.iter().zip(&pb.items) {
        let (mx, _) = context::project(a.session, x)?;
        let (my, _) = context::project(b.session, y)?;
        if !same_messages(&mx, &my) {
            break;
        }
        shared += 1;
    }
    let entries = |p: &context::Plan| p.items.iter().map(|i| i.entry).collect::<Vec<_>>();
    Ok(at(By::Context, shared, &entries(&pa), &entries(&pb)))
}

/// The same messages, by role and content. The messages pi makes of a summary or a bash run
/// hold no `content` (`summary`, `command`, `output`...): those are compared whole but for
/// their timestamp, else any two compactions would look alike.
fn same_messages(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_message(x, y))
}

fn same_message(x: &Value, y: &Value) -> bool {
    if x.get("role") != y.get("role") {
        return false;
    }
    match (x.get("content"), y.get("content")) {
        (None, None) => but_timestamp(x) == but_timestamp(y),
        (cx, cy) => cx == cy,
    }
}

fn but_timestamp(v: &Value) -> Option<Vec<(&String, &Value)>> {
    let fields = v.as_object()?.iter().filter(|(k, _)| *k != "timestamp");
    Some(fields.collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pisess_store::session::test_session;
    use serde_json::json;

    fn message(id: &str, parent: Option<&str>, role: &str, text: &str, at: u32) -> Value {
        json!({"type": "message", "id": id, "parentId": parent,
            "timestamp": format!("2026-01-01T00:00:{at:02}.000Z"),
            "message": {"role": role, "content": [{"type": "text", "text": text}], "timestamp": at}})
    }

    fn session(lines: Vec<Value>) -> Session {
        test_session(&lines)
    }

    #[test]
    fn summaries_are_compared_by_what_they_say() {
        let summary = |text: &str, at: u64| json!({"role": "compactionSummary", "summary": text, "tokensBefore": 10, "timestamp": at});
        assert!(same_messages(&[summary("a", 1)], &[summary("a", 2)]));
        assert!(!same_messages(&[summary("a", 1)], &[summary("b", 1)]));
        let user = |text: &str, at: u64| json!({"role": "user", "content": text, "timestamp": at});
        assert!(same_messages(&[user("go", 1)], &[user("go", 2)]));
        assert!(!same_messages(&[user("go", 1)], &[summary("go", 1)]));
    }

    #[test]
    fn two_leaves_part_at_their_last_common_ancestor() {
        let s = session(vec![
            message("u1", None, "user", "go", 1),
            message("a1", Some("u1"), "assistant", "ok", 2),
            message("x", Some("a1"), "user", "left", 3),
            message("y", Some("a1"), "user", "right", 4),
        ]);
        let (pa, pb) = (s.path_to(2).0, s.path_to(3).0);
        let p = find(
            &Side {
                session: &s,
                path: &pa,
            },
            &Side {
                session: &s,
                path: &pb,
            },
        )
        .unwrap();
        assert_eq!(
            p,
            Parting {
                by: By::Id,
                common: Some((1, 1)),
                next: (Some(2), Some(3))
            }
        );
        // A leaf and its own ancestor: B ends where they part.
        let pb = s.path_to(1).0;
        let p = find(
            &Side {
                session: &s,
                path: &pa,
            },
            &Side {
                session: &s,
                path: &pb,
            },
        )
        .unwrap();
        assert_eq!(p.common, Some((1, 1)));
        assert_eq!(p.next, (Some(2), None));
    }

    #[test]
    fn unrelated_files_compare_what_the_model_was_sent_not_times_or_ids() {
        let a = session(vec![
            message("u1", None, "user", "go", 1),
            message("a1", Some("u1"), "assistant", "ok", 2),
            message("a2", Some("a1"), "user", "left", 3),
        ]);
        let b = session(vec![
            message("v1", None, "user", "go", 7),
            message("b1", Some("v1"), "assistant", "ok", 8),
            message("b2", Some("b1"), "user", "right", 9),
        ]);
        let (pa, pb) = (a.path_to(2).0, b.path_to(2).0);
        let p = find(
            &Side {
                session: &a,
                path: &pa,
            },
            &Side {
                session: &b,
                path: &pb,
            },
        )
        .unwrap();
        assert_eq!(
            p,
            Parting {
                by: By::Context,
                common: Some((1, 1)),
                next: (Some(2), Some(2))
            }
        );
        let c = session(vec![message("w1", None, "user", "other", 1)]);
        let pc = c.path_to(0).0;
        let p = find(
            &Side {
                session: &a,
                path: &pa,
            },
            &Side {
                session: &c,
                path: &pc,
            },
        )
        .unwrap();
        assert_eq!(
            p,
            Parting {
                by: By::Context,
                common: None,
                next: (Some(0), Some(0))
            }
        );
    }
}
