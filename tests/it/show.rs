//! Tests of `show`.
