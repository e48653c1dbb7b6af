//! One fact for the code: `PISESS_CODE_HASH`, a hash of `src/` and `Cargo.lock`, which stamps
//! the summary and tally caches (`store::cache::key::stamp`) so that a build of other code
//! never serves what this one would compute differently.

#[path = "src/store/cache/code_hash.rs"]
mod code_hash;

fn main() {
    let base = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo"));
    let hash = code_hash::hash(&base, &["src", "Cargo.lock"]).expect("the sources are readable");
    println!("cargo:rustc-env=PISESS_CODE_HASH={hash:016x}");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=build.rs");
}
