//! What commands compute and how it is shown: trees, contexts, checks, searches, stats, and
//! the text and colour helpers their printers share.

pub mod calls;
pub mod check;
pub mod context;
pub mod diff;
pub mod export;
pub mod facts;
pub mod ids;
pub mod paths;
pub(crate) mod preview;
pub mod prices;
pub mod search;
pub mod secrets;
pub mod stats;
pub mod style;
pub(crate) mod text;
pub mod touches;
pub mod tree;
