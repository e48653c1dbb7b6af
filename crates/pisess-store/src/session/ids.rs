//! How the index holds ids: [`IdIndex`], the one id table of the index and of `stream` (the
//! last of each id winning, as pi's `byId`), and [`IdCell`], an id kept inline when short.

use std::hash::BuildHasher;

use hashbrown::{DefaultHashBuilder, HashTable};
use serde::{Deserialize, Serialize};

use super::EntryMeta;
use pisess_format::util::warning::Warning;

/// Ids to what holds them, the last of each id winning (pi's `byId`: later entries
/// overwrite). The one id check of the index and of [`stream`]: the table keeps no strings, the
/// caller's `held` reads the id a value stands for from where the caller keeps ids.
#[derive(Debug)]
pub struct IdIndex<T> {
    pub(super) table: HashTable<T>,
    pub(super) hasher: DefaultHashBuilder,
}

impl<T> Default for IdIndex<T> {
    fn default() -> Self {
        IdIndex {
            table: HashTable::new(),
            hasher: DefaultHashBuilder::default(),
        }
    }
}

impl<T> IdIndex<T> {
    pub(crate) fn with_capacity(n: usize) -> Self {
        IdIndex {
            table: HashTable::with_capacity(n),
            hasher: DefaultHashBuilder::default(),
        }
    }

    /// Records `value` for `id`; returns the value it replaced (a duplicate id). A replaced
    /// value must hold the same id, as the new one does.
    pub fn insert<'s>(&mut self, id: &str, value: T, held: impl Fn(&T) -> &'s str) -> Option<T> {
        let hasher = &self.hasher;
        let slot = self.table.entry(
            hasher.hash_one(id),
            |seen| held(seen) == id,
            |seen| hasher.hash_one(held(seen)),
        );
        match slot {
            hashbrown::hash_table::Entry::Occupied(mut seen) => {
                Some(std::mem::replace(seen.get_mut(), value))
            }
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(value);
                None
            }
        }
    }

    pub fn find<'s>(&self, id: &str, held: impl Fn(&T) -> Option<&'s str>) -> Option<&T> {
        let hash = self.hasher.hash_one(id);
        self.table.find(hash, |seen| held(seen) == Some(id))
    }

    pub(super) fn values(&self) -> impl Iterator<Item = &T> + '_ {
        self.table.iter()
    }
}

pub(super) fn duplicate_id(id: &str, line: u64, earlier: u64) -> Warning {
    Warning {
        line: Some(line),
        message: format!("duplicate id {id} (also on line {earlier}); the later entry wins"),
    }
}

pub(super) fn missing_id(line: u64) -> Warning {
    Warning {
        line: Some(line),
        message: "entry has no string \"id\"; it is not part of the tree".into(),
    }
}

/// An id as the index holds it: up to 8 bytes inline (pi's ids are 8 hex digits, and so are the
/// ids pisess assigns to v1 entries), a longer one as a position in the index's `long_ids`. Any
/// id is kept exactly; only its size decides where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct IdCell {
    pub(super) bytes: [u8; 8],
    /// [`NO_ID`], [`LONG_ID`], or 1 + the length of an inline id.
    pub(super) tag: u8,
}

pub(super) const NO_ID: u8 = 0;
pub(super) const LONG_ID: u8 = 10;
pub(super) const NONE_CELL: IdCell = IdCell {
    bytes: [0; 8],
    tag: NO_ID,
};

impl IdCell {
    pub(super) fn new(text: Option<&str>, long_ids: &mut Vec<Box<str>>) -> IdCell {
        let Some(text) = text else {
            return NONE_CELL;
        };
        let mut bytes = [0; 8];
        if text.len() <= 8 {
            bytes[..text.len()].copy_from_slice(text.as_bytes());
            return IdCell {
                bytes,
                tag: text.len() as u8 + 1,
            };
        }
        bytes = (long_ids.len() as u64).to_le_bytes();
        long_ids.push(text.into());
        IdCell {
            bytes,
            tag: LONG_ID,
        }
    }

    pub(super) fn text<'a>(&'a self, long_ids: &'a [Box<str>]) -> Option<&'a str> {
        cell_text(&self.bytes, self.tag, long_ids)
    }
}

/// The id of an entry, held inline or in `long_ids`.
pub(super) fn entry_id<'a>(e: &'a EntryMeta, long_ids: &'a [Box<str>]) -> Option<&'a str> {
    cell_text(&e.id, e.id_tag(), long_ids)
}

/// The text of an [`IdCell`]'s parts.
pub(super) fn cell_text<'a>(
    bytes: &'a [u8; 8],
    tag: u8,
    long_ids: &'a [Box<str>],
) -> Option<&'a str> {
    match tag {
        NO_ID => None,
        LONG_ID => {
            let at = usize::try_from(u64::from_le_bytes(*bytes)).ok()?;
            long_ids.get(at).map(|s| &**s)
        }
        // Copied from a `str` whole, so always UTF-8.
        tag => std::str::from_utf8(&bytes[..usize::from(tag - 1)]).ok(),
    }
}
