//! Myers' diff of two integer sequences, step for step the `similar` crate's
//! (`similar::algorithms::myers`, 2.7): the same divide and conquer on the same middle snakes,
//! the same hook calls in the same order, so the alignment is the one `similar` gives. What
//! differs is the cost of a step: `similar` is generic over any `Index` and walks the
//! diagonals with an iterator adaptor; on slices of `u32` with plain loops a step is a few
//! times cheaper, which is what two long unrelated runs (many differences, so O(n·d) is
//! O(n²)) spend their time on. The tests hold it to `similar`'s ops on random sequences.

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

/// `old` and `new` diffed into `d` (then `d.finish()`), as `similar::algorithms::myers::diff`.
pub fn diff<D: DiffHook>(d: &mut D, old: &[u32], new: &[u32]) -> Result<(), D::Error> {
    let max_d = max_d(old.len(), new.len());
    let mut vf = V::new(max_d);
    let mut vb = V::new(max_d);
    conquer(d, old, 0..old.len(), new, 0..new.len(), &mut vf, &mut vb)?;
    d.finish()
}

/// The start of the middle snake of `old[old_range]` and `new[new_range]`, in whole-sequence
/// positions (`similar`'s `find_middle_snake` without a deadline; `None` only past `max_d`).
fn find_middle_snake(
    old: &[u32],
    old_range: Range<usize>,
    new: &[u32],
    new_range: Range<usize>,
    vf: &mut V,
    vb: &mut V,
) -> Option<(usize, usize)> {
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

/// `similar`'s `conquer`: the common prefix and suffix, then the halves at the middle snake.
fn conquer<D: DiffHook>(
    d: &mut D,
    old: &[u32],
    mut old_range: Range<usize>,
    new: &[u32],
    mut new_range: Range<usize>,
    vf: &mut V,
    vb: &mut V,
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
        find_middle_snake(old, old_range.clone(), new, new_range.clone(), vf, vb)
    {
        conquer(d, old, old_range.start..x, new, new_range.start..y, vf, vb)?;
        conquer(d, old, x..old_range.end, new, y..new_range.end, vf, vb)?;
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

    fn ours(a: &[u32], b: &[u32]) -> Vec<DiffOp> {
        let mut d = Compact::new(Replace::new(Capture::new()), a, b);
        super::diff(&mut d, a, b).unwrap();
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
            assert_eq!(
                ours(&a, &b),
                capture_diff_slices(Algorithm::Myers, &a, &b),
                "{a:?} {b:?}"
            );
        }
    }
}
