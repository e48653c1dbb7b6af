//! pi's session format as pisess sees it: the header, the eleven entry types, message roles,
//! usage, the v1/v2 migrations and the seed-000 dialect.
//!
//! Two views of a line exist. [`LineView`] ([`view`]) is a borrowed, lenient parse of only the
//! fields the index and listings need (wrong JSON types become `None`, never an error), cheap
//! enough to run on every line of every file: [`LineView::skim`] finds its fields with
//! `crate::skim`, and serde_json reads the lines the skim is unsure of. Full entries are
//! `serde_json::Value`s in pi's own shape, decoded only for the lines a command shows, so
//! nothing pi wrote is dropped on the floor. [`entry`] holds the types every command shares,
//! [`seed000`] the one mapping of the other dialect onto pi's shape.

pub mod content;
pub mod cut;
mod entry;
mod line;
mod seed000;
mod spans;
mod typed;
mod view;

pub use content::ToolCall;
pub use entry::*;
pub use line::EntryLine;
pub use seed000::normalize_seed000;
pub(crate) use spans::walk_content;
pub use spans::{object_members, serde_json_str, CallBlockSpans, ContentWalk, Item};
pub use typed::{Entry, EntryKind, Field, Message, MessageMut, Role, PI_ENTRY_TYPES, PI_ROLES};
pub use view::*;
