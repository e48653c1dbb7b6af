//! Tests of `tree`.
