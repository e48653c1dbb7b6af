//! How long a block of `show` may be before it is cut: what the shortened decode
//! ([`super::shorten`]) decodes enough for and the body ([`super::body`]) writes, kept below
//! both so neither reaches into the other for them. What a cut left out is
//! `pisess_format::model::cut`.

/// Text blocks longer than this are cut unless `--full`.
pub(super) const MAX_LINES: usize = 12;
pub(super) const MAX_CHARS: usize = 1500;
/// One-line items (tool calls, JSON data) longer than this are cut unless `--full`.
pub(super) const MAX_LINE_CHARS: usize = 200;
