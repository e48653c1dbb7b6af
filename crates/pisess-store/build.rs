//! One fact for the code: `PISESS_CODE_HASH`, a hash of the code that fills the caches (this
//! crate's and pisess-format's sources, `Cargo.lock`), which stamps the summary and tally
//! caches (`cache::key::stamp`) so that a build of other code never serves what this one would
//! compute differently.

#[path = "src/cache/code_hash.rs"]
mod code_hash;

fn main() {
    let base = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo"));
    let hash = code_hash::hash(&base, code_hash::ROOTS).expect("the sources are readable");
    println!("cargo:rustc-env=PISESS_CODE_HASH={hash:016x}");
    for root in code_hash::ROOTS {
        println!("cargo:rerun-if-changed={root}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
