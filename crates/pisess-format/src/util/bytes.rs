//! Byte scans written so they compile to vector instructions: the escaping of terminal output
//! and the decoder of escaped strings both look for a kind of byte in long text.

/// Whether some byte of `b` is `wanted`, 64 bytes at a time with no exit inside a block, so
/// the test compiles to vector instructions (`Iterator::any` stops at each byte).
pub fn any_byte(b: &[u8], wanted: impl Fn(u8) -> bool) -> bool {
    let mut blocks = b.chunks_exact(64);
    let found = blocks
        .by_ref()
        .any(|block| block.iter().fold(false, |seen, &x| seen | wanted(x)));
    found || blocks.remainder().iter().any(|&x| wanted(x))
}

#[cfg(test)]
mod tests {
    #[test]
    fn any_byte_finds_a_byte_in_any_block() {
        for len in [0, 1, 63, 64, 65, 200] {
            for at in 0..len {
                let mut b = vec![b'a'; len];
                b[at] = 1;
                assert!(super::any_byte(&b, |x| x < 0x20), "{len} {at}");
            }
            assert!(!super::any_byte(&vec![b'a'; len], |x| x < 0x20));
        }
    }
}
