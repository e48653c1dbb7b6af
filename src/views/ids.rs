//! Short session ids as git abbreviates hashes: each id cut to the fewest characters (at least
//! [`MIN`]) that no other id of the store starts with, so every id printed selects its session.
//! pi's ids are UUIDv7, whose first 8 characters are shared by sessions started within about a
//! minute of each other: a fixed cut would print one short id for two sessions.

use crate::views::style::escape_control;

/// The shortest id shown: pi's own short form, and what `ls` always showed.
pub const MIN: usize = 8;

/// The ids of a store, sorted, each once: what an abbreviation must tell apart.
#[derive(Debug, Clone, Default)]
pub struct ShortIds {
    ids: Vec<Vec<char>>,
}

impl ShortIds {
    /// The abbreviations among `ids` (every session of the store; a copy's id twice is one id).
    pub fn new<'a>(ids: impl IntoIterator<Item = &'a str>) -> ShortIds {
        let mut ids: Vec<Vec<char>> = ids.into_iter().map(|id| id.chars().collect()).collect();
        ids.sort_unstable();
        ids.dedup();
        ShortIds { ids }
    }

    /// How many characters of `id` tell it apart from every other id: one more than the
    /// longest prefix it shares with its neighbours in sorted order, at least [`MIN`], at most
    /// the whole id.
    pub fn len(&self, id: &str) -> usize {
        let id: Vec<char> = id.chars().collect();
        let at = self.ids.binary_search(&id).unwrap_or_else(|at| at);
        let shared = |other: Option<&Vec<char>>| {
            other
                .filter(|o| **o != id)
                .map_or(0, |o| o.iter().zip(&id).take_while(|(a, b)| a == b).count())
        };
        let before = at.checked_sub(1).and_then(|i| self.ids.get(i));
        let after = self
            .ids
            .get(at)
            .filter(|o| **o != id)
            .or(self.ids.get(at + 1));
        let need = shared(before).max(shared(after)) + 1;
        need.max(MIN).min(id.len())
    }

    /// `id` abbreviated ([`ShortIds::len`]) and escaped: ids come from the file like any text.
    pub fn short(&self, id: &str) -> String {
        let kept: String = id.chars().take(self.len(id)).collect();
        escape_control(&kept, false).into_owned()
    }

    /// The widest abbreviation among `ids` (a table's column width).
    pub fn widest<'a>(&self, ids: impl IntoIterator<Item = &'a str>) -> usize {
        ids.into_iter().map(|id| self.len(id)).max().unwrap_or(MIN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_cut_where_they_part() {
        let ids = ShortIds::new([
            "0196aaaa-0000-7000-8000-000000000001",
            "0196aaaa-1111-7000-8000-000000000002",
            "0196aaaa-1111-7abc-8000-000000000003",
            "0196bbbb-0000-7000-8000-000000000004",
            "0196bbbb-0000-7000-8000-000000000004",
            "short",
        ]);
        assert_eq!(
            ids.short("0196aaaa-0000-7000-8000-000000000001"),
            "0196aaaa-0"
        );
        assert_eq!(
            ids.short("0196aaaa-1111-7000-8000-000000000002"),
            "0196aaaa-1111-70"
        );
        assert_eq!(
            ids.short("0196aaaa-1111-7abc-8000-000000000003"),
            "0196aaaa-1111-7a"
        );
        // A copy's id is one id: 8 characters tell it from the rest.
        assert_eq!(
            ids.short("0196bbbb-0000-7000-8000-000000000004"),
            "0196bbbb"
        );
        assert_eq!(ids.short("short"), "short");
        // An id not in the store is still told from those that are.
        assert_eq!(ids.short("0196aaaa-2222"), "0196aaaa-2");
        assert_eq!(ShortIds::default().short("0196cccc-0000"), "0196cccc");
    }

    #[test]
    fn control_characters_are_escaped() {
        let ids = ShortIds::new(["ab\u{1b}cdefghij"]);
        assert!(!ids.short("ab\u{1b}cdefghij").contains('\u{1b}'));
    }
}
