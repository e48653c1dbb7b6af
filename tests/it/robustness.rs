//! Tests of `robustness`.
