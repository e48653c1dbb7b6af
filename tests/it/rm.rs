//! Tests of `rm`.
