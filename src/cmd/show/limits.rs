//! How long a block of `show` may be before it is cut, and what a cut left out: what the
//! shortened decode ([`super::shorten`]) records and the body ([`super::body`]) writes, kept
//! below both so neither reaches into the other for them.

use pisess_format::escaped::Rest;

/// Text blocks longer than this are cut unless `--full`.
pub(super) const MAX_LINES: usize = 12;
pub(super) const MAX_CHARS: usize = 1500;
/// One-line items (tool calls, JSON data) longer than this are cut unless `--full`.
pub(super) const MAX_LINE_CHARS: usize = 200;

/// What the shortened strings of an entry left out.
pub(super) enum Left {
    /// A text's rest.
    Text(Rest),
    /// Base64 data: the digits of the whole.
    Base64(u64),
}

/// The shortened strings of one decoded entry, each known by the address of its text: the
/// text lives as long as the entry does and no other string shares its buffer, and a borrowed
/// `&str` of it (what the block passes to its body) has that address and length.
#[derive(Default)]
pub(super) struct Rests(pub(super) Vec<(usize, usize, Left)>);

impl Rests {
    pub(super) fn add(&mut self, kept: &str, left: Left) {
        self.0.push((kept.as_ptr() as usize, kept.len(), left));
    }

    /// What was left out of `s`, if it is a shortened string (whole, not a slice of one).
    pub(super) fn of(&self, s: &str) -> Option<&Left> {
        let key = (s.as_ptr() as usize, s.len());
        self.0
            .iter()
            .find(|(at, len, _)| (*at, *len) == key)
            .map(|(.., left)| left)
    }
}
