//! pi's JSON as pi reads it: the one line reader, the scan, the skim (and its serde face) and its escapes, lone
//! surrogates, JavaScript's numbers, strings and dates, and the entry model.

pub(crate) mod de;
pub(crate) mod escaped;
pub(crate) mod js;
pub(crate) mod json;
pub mod model;
pub(crate) mod reader;
pub mod scan;
pub(crate) mod skim;
pub(crate) mod surrogates;
pub(crate) mod time;
