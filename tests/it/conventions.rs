//! Tests of `conventions`.
