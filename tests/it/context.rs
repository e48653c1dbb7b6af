//! Tests of `context`.
