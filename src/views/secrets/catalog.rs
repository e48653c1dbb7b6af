//! Every built-in rule in priority order, from the files that hold them: where matches
//! overlap, the earlier rule's wins. Specific token formats first, then the vendors' tokens
//! (gitleaks's families), then URLs and headers, then values known by a vendor's name, then
//! the generic assignment.

use super::rules::{Def, ASSIGNMENTS, CONTEXT, FORMATS};

pub(crate) fn all() -> impl Iterator<Item = &'static Def> {
    FORMATS
        .iter()
        .chain(super::vendors::TOKENS)
        .chain(CONTEXT)
        .chain(super::named::NAMED)
        .chain(ASSIGNMENTS)
}

/// Whether `def` answers to `id`: its own id, or gitleaks's id for it (an alias).
pub(crate) fn answers_to(def: &Def, id: &str) -> bool {
    def.kind == id || def.aliases.contains(&id)
}
