//! One session in two files (a backup, a `cp`): a report counts it once and says so.
//!
//! Files whose headers hold the same session id are one session: the file with more messages
//! is counted (the first in listing order on a tie: pi's own name sorts before a
//! `<id>-backup.jsonl`), the others are named as its copies and left out of every figure. A
//! copy that went on apart (more entries after the `cp`) is still one session to pi's
//! `--session ID`; its extra entries are not counted, and the note says which file was.

use std::path::PathBuf;

use crate::views::stats::Share;

/// A listed session's part of a report: its share, its runs', and what its runs said.
pub(super) struct Member {
    pub id: String,
    pub path: PathBuf,
    pub share: Share,
    pub runs: Vec<Share>,
    pub warnings: Vec<(PathBuf, String)>,
}

impl Member {
    /// A session without runs or warnings.
    pub(super) fn alone(id: String, path: PathBuf, share: Share) -> Member {
        Member {
            id,
            path,
            share,
            runs: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

/// A session counted once though it is in several files.
pub(super) struct Copied {
    pub id: String,
    /// The file counted.
    pub counted: PathBuf,
    /// The others, not counted.
    pub copies: Vec<PathBuf>,
}

/// The members to count, in listing order, and the sessions found in more than one file.
pub(super) fn once(members: Vec<Member>) -> (Vec<Member>, Vec<Copied>) {
    let mut kept: Vec<Member> = Vec::with_capacity(members.len());
    let mut at: hashbrown::HashMap<String, usize> = hashbrown::HashMap::new();
    let mut copies: hashbrown::HashMap<usize, Vec<PathBuf>> = hashbrown::HashMap::new();
    for m in members {
        // A file without an id (seed-000 keeps its name) is nobody's copy.
        let seen = (!m.id.is_empty()).then(|| at.get(&m.id).copied()).flatten();
        match seen {
            None => {
                if !m.id.is_empty() {
                    at.insert(m.id.clone(), kept.len());
                }
                kept.push(m);
            }
            Some(i) => {
                let mut m = m;
                if m.share.messages() > kept[i].share.messages() {
                    std::mem::swap(&mut kept[i], &mut m);
                }
                copies.entry(i).or_default().push(m.path);
            }
        }
    }
    let mut copied: Vec<Copied> = copies
        .into_iter()
        .map(|(i, copies)| Copied {
            id: kept[i].id.clone(),
            counted: kept[i].path.clone(),
            copies,
        })
        .collect();
    copied.sort_by(|a, b| a.counted.cmp(&b.counted));
    (kept, copied)
}
