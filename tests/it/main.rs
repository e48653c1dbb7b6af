//! The integration tests: one binary, one module per command or concern.
//! Most drive `pisess::run` in-process with a hand-built `Env`; a few run the real binary
//! for exit codes, pipes and terminals.

// Tests report what they measured and skipped on stderr: the print lints guard the product.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod common;

mod architecture;
mod baseline;
mod cache;
mod cache_stamp;
mod cache_trust;
mod check;
mod completion;
mod context;
mod conventions;
mod diff;
mod export;
mod export_archive;
mod export_browser;
mod export_fixture;
mod export_md;
mod export_redact;
mod facts;
mod family_cache;
mod family_check;
mod family_forks;
mod family_rm;
mod family_stats;
mod files;
mod first_use;
mod grep;
mod grep_reference;
mod json_controls;
mod ls;
mod ls_touched;
mod ls_tree;
mod markdown;
mod numbers;
mod path;
mod prices;
mod progress;
mod rm;
mod robustness;
mod secrets;
mod secrets_corpus;
mod secrets_engine;
mod secrets_output;
mod secrets_property;
mod show;
mod stats;
mod stats_cache;
mod stats_report;
mod streams;
mod subagent_reading;
mod subagents;
mod surrogates;
mod terminal;
mod tree;
mod trust;
mod vocabulary;
mod warnings;
