//! A table of values by text key for the tally's pass ([`Keyed`]): the entries' parents
//! ([`Links`]) and the tool calls, by id. The keys and texts of a session live in one string,
//! so a session of thousands of entries makes a few allocations, not two an entry.

use std::hash::BuildHasher as _;

/// Values kept by a text key (an entry's id, a tool call's id), the keys and any text the
/// values hold in one string, the values in a list and a table of where each lies in it: not
/// an allocation for each key and each text (with their frees, a tenth of a first `stats`).
/// A key is known by its place in the list, so the rows and the active branch are matched by
/// number ([`Tally::finish`](super::Tally::finish)), not by hashing each id again.
#[derive(Debug, Clone)]
pub(super) struct Keyed<V> {
    pub(super) text: String,
    /// Each key's place in `text`, and its value.
    pub(super) entries: Vec<(Span, V)>,
    /// Indices into `entries`, by the hash of the key.
    table: hashbrown::HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
}

/// Where a text lies in [`Keyed::text`].
pub(super) type Span = (usize, usize);

impl<V> Default for Keyed<V> {
    fn default() -> Self {
        Keyed {
            text: String::new(),
            entries: Vec::new(),
            table: hashbrown::HashTable::new(),
            hasher: hashbrown::DefaultHashBuilder::default(),
        }
    }
}

/// A row of no entry with an id, in [`Tally::row_links`].
pub(super) const NO_LINK: u32 = u32::MAX;

impl<V: Default> Keyed<V> {
    /// Room made at the first key for a session of a few dozen: each doubling from nothing
    /// was an allocation, a copy and a free (three tables, a string and a list for a session
    /// of ten entries).
    pub(super) const FIRST: usize = 32;

    /// Keeps `s` in the text.
    pub(super) fn keep(&mut self, s: &str) -> Span {
        let start = self.text.len();
        self.text.push_str(s);
        (start, self.text.len())
    }

    pub(super) fn at(&self, (start, end): Span) -> &str {
        &self.text[start..end]
    }

    /// The place of `key`, made (with the default value) if it has none: as a map's entry.
    pub(super) fn slot(&mut self, key: &str) -> u32 {
        if self.entries.is_empty() {
            self.text.reserve(Self::FIRST * 20);
            self.entries.reserve(Self::FIRST);
            self.table.reserve(Self::FIRST, |_| 0);
        }
        let hash = self.hasher.hash_one(key);
        if let Some(i) = self.find_hashed(hash, key) {
            return i;
        }
        let i = u32::try_from(self.entries.len()).unwrap_or(NO_LINK);
        let span = self.keep(key);
        self.entries.push((span, V::default()));
        let Keyed {
            text,
            entries,
            table,
            hasher,
        } = self;
        table.insert_unique(hash, i, |i| {
            let (start, end) = entries[*i as usize].0;
            hasher.hash_one(&text[start..end])
        });
        i
    }

    /// The place of `key`, if it has one.
    pub(super) fn find(&self, key: &str) -> Option<u32> {
        self.find_hashed(self.hasher.hash_one(key), key)
    }

    fn find_hashed(&self, hash: u64, key: &str) -> Option<u32> {
        let is_key = |i: &u32| self.at(self.entries[*i as usize].0) == key;
        self.table.find(hash, is_key).copied()
    }

    /// The value of `key`, if it has one.
    pub(super) fn get(&self, key: &str) -> Option<&V> {
        self.find(key).map(|i| &self.entries[i as usize].1)
    }

    /// The value of `key`, made if it has none.
    pub(super) fn value(&mut self, key: &str) -> &mut V {
        let i = self.slot(key);
        &mut self.entries[i as usize].1
    }
}

/// Every entry's parent (`None`: none), by the entry's id.
pub(super) type Links = Keyed<Option<Span>>;

impl Links {
    /// As a map's insert: a later entry with the same id replaces the parent. The entry's
    /// place, which a later entry with the same id shares.
    pub(super) fn insert(&mut self, id: &str, parent: Option<&str>) -> u32 {
        let parent = parent.map(|p| self.keep(p));
        let i = self.slot(id);
        self.entries[i as usize].1 = parent;
        i
    }

    /// The place of the parent of the entry at `i`, if it has one and it is an entry.
    pub(super) fn parent(&self, i: u32) -> Option<u32> {
        self.find(self.at(self.entries[i as usize].1?))
    }
}
