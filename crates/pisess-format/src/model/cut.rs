//! What a shortened decode of an entry left out of its long texts, known by where each text
//! stands in the entry ([`Place`]): a reader that shows only the start of long texts (`show`'s
//! cut blocks) decodes only that start and counts the rest from its escaped bytes
//! ([`crate::escaped::rest`]). The kept start is the string in the decoded value; a string in
//! the value cannot say it was cut (a marker in it could be written by the session), so this
//! says it beside the value, by place.

use crate::escaped::Rest;

/// Where a text a block shows stands in its entry: the fields a shortened decode may cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The content string (of the message, or of the entry that has no message).
    Content,
    /// The content's block at this index: its text, thinking or image data.
    Block(usize),
    /// A bash execution's `output`.
    Output,
    /// The summary (of a summary message, or of a compaction or branch summary entry).
    Summary,
}

/// What a cut text left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Left {
    /// A text's rest.
    Text(Rest),
    /// Base64 data: the digits of the whole.
    Base64(u64),
}

/// The cut texts of one decoded entry (none when it was decoded whole).
#[derive(Debug, Default)]
pub struct Cuts(pub Vec<(Place, Left)>);

impl Cuts {
    pub fn add(&mut self, place: Place, left: Left) {
        self.forget(|p| p == place);
        self.0.push((place, left));
    }

    /// Forgets the cuts at the places `gone` names: a key given twice has its last value, so
    /// what the first one's texts left out is no longer in the entry.
    pub fn forget(&mut self, gone: impl Fn(Place) -> bool) {
        self.0.retain(|&(p, _)| !gone(p));
    }

    /// What was left out of the text at `place`, if it was cut.
    pub fn at(&self, place: Place) -> Option<Left> {
        self.0
            .iter()
            .find(|(p, _)| *p == place)
            .map(|&(_, left)| left)
    }
}
