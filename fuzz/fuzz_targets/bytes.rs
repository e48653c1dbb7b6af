//! Raw bytes as a session file: the reader, the line parser and everything after them.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pisess_fuzz::check(data));
