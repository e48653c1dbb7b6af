//! Two runs' tool calls aligned: Myers' diff (O(n·d) for n calls and d differences, in linear
//! space: the `similar` crate's, with its compaction and grouping, and a cost limit for runs
//! with very many differences, [`super::myers`]) over their keys
//! ([`crate::views::calls::key`]), each key first numbered so that the diff compares integers,
//! not strings.

use std::collections::HashMap;

use similar::algorithms::{Capture, Compact, DiffHook, Replace};
use similar::DiffOp;

use super::myers::{self, Limit};

/// What one row of the alignment holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Op {
    /// A call both made (the same key), at this place in each sequence.
    Same,
    /// A call only A made here.
    OnlyA,
    /// A call only B made here.
    OnlyB,
}

/// One row: the op and the calls' positions in each sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub op: Op,
    pub a: Option<usize>,
    pub b: Option<usize>,
}

/// The alignment of `a` and `b`: every call of each once, in order, A's before B's where they
/// differ; the fewest rows when `minimal`, else within [`Limit::of`] the two lengths (the
/// same but for runs with very many differences).
pub fn align<S: AsRef<str>>(a: &[S], b: &[S], minimal: bool) -> Vec<Step> {
    let mut numbers: HashMap<&str, u32> = HashMap::new();
    let mut na = Vec::with_capacity(a.len());
    let mut nb = Vec::with_capacity(b.len());
    for (keys, into) in [(a, &mut na), (b, &mut nb)] {
        for k in keys {
            let next = u32::try_from(numbers.len()).unwrap_or(u32::MAX);
            into.push(*numbers.entry(k.as_ref()).or_insert(next));
        }
    }
    let mut steps = Vec::with_capacity(a.len().max(b.len()));
    let only_a = |steps: &mut Vec<Step>, from: usize, len: usize| {
        steps.extend((from..from + len).map(|i| Step {
            op: Op::OnlyA,
            a: Some(i),
            b: None,
        }));
    };
    let only_b = |steps: &mut Vec<Step>, from: usize, len: usize| {
        steps.extend((from..from + len).map(|j| Step {
            op: Op::OnlyB,
            a: None,
            b: Some(j),
        }));
    };
    // What `similar::capture_diff_slices(Algorithm::Myers, ..)` does, on the numbered keys.
    let limit = if minimal {
        Limit::Exact
    } else {
        Limit::of(na.len(), nb.len())
    };
    let mut raw = Capture::new();
    let Ok(limited) = myers::diff(&mut raw, &na, &nb, limit);
    // `similar`'s compaction (runs of differences slid to join others) moves ops about a
    // vector, O(ops²): most of the time for two long unrelated runs. Such runs were cut by
    // the limit, and are left as found; every other alignment is compacted as before.
    let ops = if limited {
        let mut hook = Replace::new(Capture::new());
        replay(raw.ops(), &mut hook);
        hook.into_inner().into_ops()
    } else {
        let mut hook = Compact::new(Replace::new(Capture::new()), &na[..], &nb[..]);
        replay(raw.ops(), &mut hook);
        hook.into_inner().into_inner().into_ops()
    };
    for op in ops {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                steps.extend((0..len).map(|k| Step {
                    op: Op::Same,
                    a: Some(old_index + k),
                    b: Some(new_index + k),
                }));
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => only_a(&mut steps, old_index, old_len),
            DiffOp::Insert {
                new_index, new_len, ..
            } => only_b(&mut steps, new_index, new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                only_a(&mut steps, old_index, old_len);
                only_b(&mut steps, new_index, new_len);
            }
        }
    }
    steps
}

/// `ops` given to `hook` as Myers gave them, then `hook.finish()`.
fn replay<D: DiffHook<Error = std::convert::Infallible>>(ops: &[DiffOp], hook: &mut D) {
    for op in ops {
        let Ok(()) = op.apply_to_hook(hook);
    }
    let Ok(()) = hook.finish();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(steps: &[Step], a: &[&str], b: &[&str]) -> String {
        steps
            .iter()
            .map(|s| match s.op {
                Op::Same => format!(" {}", a[s.a.unwrap()]),
                Op::OnlyA => format!("-{}", a[s.a.unwrap()]),
                Op::OnlyB => format!("+{}", b[s.b.unwrap()]),
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    #[test]
    fn b_ran_the_tests_twice_and_edited_another_file() {
        let a = ["read x", "edit x", "bash cargo"];
        let b = ["read x", "edit x", "bash cargo", "edit y", "bash cargo"];
        let steps = align(&a, &b, false);
        assert_eq!(
            shown(&steps, &a, &b),
            " read x, edit x, bash cargo,+edit y,+bash cargo"
        );
        let steps = align(&b, &a, false);
        assert_eq!(steps.iter().filter(|s| s.op == Op::OnlyA).count(), 2);
        assert!(align::<&str>(&[], &[], false).is_empty());
    }

    #[test]
    fn a_hundred_thousand_calls_a_side_with_few_differences_align_quickly() {
        let a: Vec<String> = (0..100_000).map(|i| format!("read f{}", i % 97)).collect();
        let mut b = a.clone();
        for at in [10, 5_000, 50_000, 99_990] {
            b[at] = "bash cargo".to_owned();
        }
        b.insert(70_000, "edit new".to_owned());
        let started = std::time::Instant::now();
        let steps = align(&a, &b, false);
        let took = started.elapsed();
        assert_eq!(steps.iter().filter(|s| s.op == Op::OnlyB).count(), 5);
        assert_eq!(steps.iter().filter(|s| s.op == Op::OnlyA).count(), 4);
        // A debug build on a busy machine: still far below what O(n²) would take.
        assert!(took.as_secs() < 5, "{took:?}");
    }
}
