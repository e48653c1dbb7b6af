//! Tests of `path`.
