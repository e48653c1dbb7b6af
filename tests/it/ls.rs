//! Tests of `ls`.
