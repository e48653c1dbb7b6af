//! Lines alone, against the scan's shortcut: `LineView::skim` must take only what serde_json
//! reads the same way. Thousands of times faster per input than the full `check`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pisess_fuzz::check_skim(data));
