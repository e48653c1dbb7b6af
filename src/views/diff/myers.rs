//! Myers' diff of two integer sequences, step for step the `similar` crate's
//! (`similar::algorithms::myers`, 2.7): the same divide and conquer on the same middle snakes,
//! the same hook calls in the same order, so the alignment is the one `similar` gives
//! (the tests hold it to `similar`'s ops on random sequences) — with a cost limit.
//!
//! The limit. Two unrelated runs differ almost everywhere (d near n), and exact Myers is then
//! O(n²): most of `diff`'s time on two long runs. As GNU diff and git's xdiff do, a search
//! for a middle snake stops after [`Limit`] rounds of `d` (a count of steps, never a clock, so
//! the answer is the same on every machine) and splits the range at the furthest point a
//! path of that many differences reached, forward or backward, whichever got further
//! (xdiff's `xdl_split` when `ec >= mxcost`); each half is then aligned on its own. A range
//! whose alignment has at most 2 x the limit differences finds its middle snake within the
//! limit, so runs with few differences are aligned exactly as before, in O(n·d); only runs
//! with very many differences may be aligned with more rows than the fewest possible.

use std::ops::Range;

use similar::algorithms::DiffHook;

/// The diagonals' furthest x, indexed by `k + offset` (`similar`'s `V`).
struct V {
    offset: isize,
    v: Vec<usize>,
}

impl V {
    fn new(max_d: usize) -> V {
        V {
            offset: max_d as isize,
            v: vec![0; 2 * max_d],
        }
    }

    #[inline(always)]
    fn at(&self, k: isize) -> usize {
        self.v[(k + self.offset) as usize]
    }

    #[inline(always)]
    fn set(&mut self, k: isize, x: usize) {
        let at = (k + self.offset) as usize;
        self.v[at] = x;
    }
}

/// How many rounds of `d` a middle-snake search may take: [`Limit::Exact`] has no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Exact,
    Rounds(usize),
}

impl Limit {
    /// xdiff's `mxcost`: the square root of the two lengths' sum, and at least 256 rounds (so
    /// runs differing in up to 512 places are always aligned exactly).
    pub fn of(len1: usize, len2: usize) -> Limit {
        Limit::Rounds((len1 + len2 + 3).isqrt().max(256))
    }
}

fn max_d(len1: usize, len2: usize) -> usize {
    (len1 + len2).div_ceil(2) + 1
}

fn prefix(old: &[u32], new: &[u32]) -> usize {
    old.iter().zip(new).take_while(|(a, b)| a == b).count()
}

fn suffix(old: &[u32], new: &[u32]) -> usize {
    old.iter()
        .rev()
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count()
}

/// `old` and `new` diffed into `d` (then `d.finish()`), as `similar::algorithms::myers::diff`
/// within `limit`; whether the limit cut a search short.
pub fn diff<D: DiffHook>(
    d: &mut D,
    old: &[u32],
    new: &[u32],
    limit: Limit,
) -> Result<bool, D::Error> {
    let max_d = max_d(old.len(), new.len());
    let mut s = Search {
        vf: V::new(max_d),
        vb: V::new(max_d),
        limit: match limit {
            Limit::Exact => usize::MAX,
            Limit::Rounds(n) => n,
        },
        limited: false,
    };
    conquer(d, old, 0..old.len(), new, 0..new.len(), &mut s)?;
    d.finish()?;
    Ok(s.limited)
}

/// The diagonals of both directions, shared by every search, and the limit.
struct Search {
    vf: V,
    vb: V,
    limit: usize,
    /// A search stopped at the limit.
    limited: bool,
}

/// Where to split `old[old_range]` and `new[new_range]`, in whole-sequence positions: the
/// start of the middle snake (`similar`'s `find_middle_snake` without a deadline), or past the
/// limit the furthest point reached ([`furthest`]); `None` only past `max_d`.
fn find_middle_snake(
    old: &[u32],
    old_range: Range<usize>,
    new: &[u32],
    new_range: Range<usize>,
    search: &mut Search,
) -> Option<(usize, usize)> {
    let Search {
        vf,
        vb,
        limit,
        limited,
    } = search;
    let n = old_range.len();
    let m = new_range.len();
    let old = &old[old_range.clone()];
    let new = &new[new_range.clone()];
    let delta = n as isize - m as isize;
    let odd = delta & 1 == 1;
    vf.set(1, 0);
    vb.set(1, 0);
    let d_max = max_d(n, m);
    assert!(vf.v.len() >= d_max && vb.v.len() >= d_max);
    for d in 0..d_max as isize {
        if d as usize > *limit {
            *limited = true;
            let (x, y) = furthest(vf, vb, d - 1, n, m)?;
            return Some((x + old_range.start, y + new_range.start));
        }
        // Forward: k from d down to -d by 2.
        let mut k = d;
        while k >= -d {
            let mut x = if k == -d || (k != d && vf.at(k - 1) < vf.at(k + 1)) {
                vf.at(k + 1)
            } else {
                vf.at(k - 1) + 1
            };
            let y = (x as isize - k) as usize;
            let (x0, y0) = (x, y);
            if x < n && y < m {
                x += prefix(&old[x..], &new[y..]);
            }
            vf.set(k, x);
            if odd && (k - delta).abs() <= (d - 1) && vf.at(k) + vb.at(-(k - delta)) >= n {
                return Some((x0 + old_range.start, y0 + new_range.start));
            }
            k -= 2;
        }
        // Backward.
        let mut k = d;
        while k >= -d {
            let mut x = if k == -d || (k != d && vb.at(k - 1) < vb.at(k + 1)) {
                vb.at(k + 1)
            } else {
                vb.at(k - 1) + 1
            };
            let mut y = (x as isize - k) as usize;
            if x < n && y < m {
                let advance = suffix(&old[..n - x], &new[..m - y]);
                x += advance;
                y += advance;
            }
            vb.set(k, x);
            if !odd && (k - delta).abs() <= d && vb.at(k) + vf.at(-(k - delta)) >= n {
                return Some((n - x + old_range.start, m - y + new_range.start));
            }
            k -= 2;
        }
    }
    None
}

/// After the rounds up to `d` found no middle snake: the point a path of `d` differences
/// reached furthest from its start, forward (most of `x + y`) or backward (most from the
/// end), on a diagonal inside the range (`n` by `m`), forward on a tie; `None` when that is a
/// corner of the range (no split).
fn furthest(vf: &V, vb: &V, d: isize, n: usize, m: usize) -> Option<(usize, usize)> {
    let inside = |x: usize, k: isize| {
        let y = x as isize - k;
        (x <= n && y >= 0 && y as usize <= m).then_some((x, y as usize))
    };
    let (mut forward, mut backward) = (None, None);
    let mut k = d;
    while k >= -d {
        if let Some((x, y)) = inside(vf.at(k), k) {
            if forward.is_none_or(|(fx, fy)| x + y > fx + fy) {
                forward = Some((x, y));
            }
        }
        if let Some((x, y)) = inside(vb.at(k), k) {
            if backward.is_none_or(|(bx, by)| x + y > bx + by) {
                backward = Some((x, y));
            }
        }
        k -= 2;
    }
    let ahead = |p: Option<(usize, usize)>| p.map_or(0, |(x, y)| x + y);
    let (x, y) = if ahead(forward) >= ahead(backward) {
        forward?
    } else {
        backward.map(|(x, y)| (n - x, m - y))?
    };
    ((x, y) != (0, 0) && (x, y) != (n, m)).then_some((x, y))
}

/// `similar`'s `conquer`: the common prefix and suffix, then the halves at the middle snake.
fn conquer<D: DiffHook>(
    d: &mut D,
    old: &[u32],
    mut old_range: Range<usize>,
    new: &[u32],
    mut new_range: Range<usize>,
    search: &mut Search,
) -> Result<(), D::Error> {
    let common_prefix = prefix(&old[old_range.clone()], &new[new_range.clone()]);
    if common_prefix > 0 {
        d.equal(old_range.start, new_range.start, common_prefix)?;
    }
    old_range.start += common_prefix;
    new_range.start += common_prefix;
    let common_suffix = suffix(&old[old_range.clone()], &new[new_range.clone()]);
    let suffix_at = (old_range.end - common_suffix, new_range.end - common_suffix);
    old_range.end -= common_suffix;
    new_range.end -= common_suffix;
    if old_range.is_empty() && new_range.is_empty() {
    } else if new_range.is_empty() {
        d.delete(old_range.start, old_range.len(), new_range.start)?;
    } else if old_range.is_empty() {
        d.insert(old_range.start, new_range.start, new_range.len())?;
    } else if let Some((x, y)) =
        find_middle_snake(old, old_range.clone(), new, new_range.clone(), search)
    {
        conquer(d, old, old_range.start..x, new, new_range.start..y, search)?;
        conquer(d, old, x..old_range.end, new, y..new_range.end, search)?;
    } else {
        d.delete(old_range.start, old_range.len(), new_range.start)?;
        d.insert(old_range.start, new_range.start, new_range.len())?;
    }
    if common_suffix > 0 {
        d.equal(suffix_at.0, suffix_at.1, common_suffix)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use similar::algorithms::{Capture, Compact, Replace};
    use similar::{capture_diff_slices, Algorithm, DiffOp};

    use super::Limit;

    fn ours(a: &[u32], b: &[u32], limit: Limit) -> Vec<DiffOp> {
        let mut d = Compact::new(Replace::new(Capture::new()), a, b);
        super::diff(&mut d, a, b, limit).unwrap();
        d.into_inner().into_inner().into_ops()
    }

    #[test]
    fn the_same_ops_as_similar_on_random_sequences() {
        // xorshift: deterministic, no dependency.
        let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for round in 0..3_000 {
            let alphabet = 1 + (round % 7) as u64;
            // Now and then long enough for deep recursion over the shared `V`s.
            let most = if round % 50 == 0 { 600 } else { 40 };
            let (la, lb) = (next() % most, next() % most);
            let mut a: Vec<u32> = (0..la).map(|_| (next() % alphabet) as u32).collect();
            let mut b: Vec<u32> = (0..lb).map(|_| (next() % alphabet) as u32).collect();
            if round % 3 == 0 {
                // Mostly alike: b is a with a few edits.
                b = a.clone();
                for _ in 0..next() % 4 {
                    let at = (next() % (b.len() as u64 + 1)) as usize;
                    match next() % 3 {
                        0 => b.insert(at, (next() % alphabet) as u32),
                        1 if at < b.len() => {
                            b.remove(at);
                        }
                        _ if at < b.len() => b[at] = (next() % alphabet) as u32,
                        _ => {}
                    }
                }
            }
            if round % 11 == 0 {
                std::mem::swap(&mut a, &mut b);
            }
            let theirs = capture_diff_slices(Algorithm::Myers, &a, &b);
            assert_eq!(ours(&a, &b, Limit::Exact), theirs, "{a:?} {b:?}");
            // Within twice the limit's differences, the same too; past it, not always.
            let differ: usize = (theirs.iter())
                .filter(|op| !matches!(op, DiffOp::Equal { .. }))
                .map(|op| op.old_range().len() + op.new_range().len())
                .sum();
            if differ <= 2 * 256 {
                assert_eq!(ours(&a, &b, Limit::of(a.len(), b.len())), theirs);
            }
            let limit = 3 + (round % 5);
            if differ <= 2 * limit {
                assert_eq!(ours(&a, &b, Limit::Rounds(limit)), theirs);
            }
            // A tiny limit: still every element once, in order (a delete's `new_index` and an
            // insert's `old_index` are only where it stands, which compaction leaves behind).
            let cut = ours(&a, &b, Limit::Rounds(2));
            let (mut i, mut j) = (0, 0);
            for op in &cut {
                let (x, y) = (op.old_range(), op.new_range());
                if !x.is_empty() {
                    assert_eq!(x.start, i, "{a:?} {b:?} {cut:?}");
                    i = x.end;
                }
                if !y.is_empty() {
                    assert_eq!(y.start, j, "{a:?} {b:?} {cut:?}");
                    j = y.end;
                }
                if let DiffOp::Equal { .. } = op {
                    assert_eq!(a[x.clone()], b[y.clone()]);
                }
            }
            assert_eq!((i, j), (a.len(), b.len()));
        }
    }
}
