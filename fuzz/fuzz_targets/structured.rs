//! Generated sessions of pi's shape (see `gen.rs`): the tree, context and renderers get inputs
//! that parse, with cycles, duplicates, orphans and wrong JSON types.
#![no_main]

use pisess_fuzz::gen::SessionFile;

libfuzzer_sys::fuzz_target!(|file: SessionFile| pisess_fuzz::check(&file.0));
