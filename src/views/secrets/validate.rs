//! What a candidate must pass beyond its regex: a format's checksum, an entropy floor, and the
//! filters that tell hashes, identifiers and placeholders from secrets.

use super::rules::{Check, Filters};

/// CRC-32 (IEEE 802.3, reflected, as zlib's `crc32`), bit by bit: candidates are few and
/// 30 bytes long, a table would buy nothing.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// `n` in base62, left-padded with `0` to 6 digits (62^6 > 2^32).
pub(crate) fn base62_6(mut n: u32) -> [u8; 6] {
    let mut out = [b'0'; 6];
    for slot in out.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    out
}

/// GitHub's token format (and npm's, which shares it): after the prefix `xxx_`, 30 random
/// base62 characters and 6 that are the base62 CRC32 of those 30.
pub(crate) fn crc32_base62_ok(token: &str) -> bool {
    let Some((_, body)) = token.split_once('_') else {
        return false;
    };
    let body = body.as_bytes();
    if body.len() != 36 {
        return false;
    }
    let (random, checksum) = body.split_at(30);
    base62_6(crc32(random)) == checksum
}

/// Shannon entropy in bits per byte.
pub(crate) fn entropy(s: &str) -> f64 {
    let bytes = s.as_bytes();
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in bytes {
        counts[b as usize] += 1;
    }
    #[allow(clippy::cast_precision_loss)]
    let n = bytes.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// Standard or URL-safe base64, padding optional; `None` when it is not.
pub(crate) fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in s.as_bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Whether a candidate passes its format's own check.
pub(crate) fn check(kind: Check, secret: &str) -> bool {
    match kind {
        Check::None => true,
        Check::Crc32Base62 => crc32_base62_ok(secret),
        Check::JwtHeader => {
            let header = secret.split('.').next().unwrap_or_default();
            base64_decode(header)
                .and_then(|h| serde_json::from_slice::<serde_json::Value>(&h).ok())
                .is_some_and(|h| h.get("alg").is_some_and(serde_json::Value::is_string))
        }
        Check::BasicAuth => base64_decode(secret).is_some_and(|d| {
            // `user:password`, printable, with a password.
            d.iter().all(|b| (0x20..0x7f).contains(b))
                && d.iter()
                    .position(|&b| b == b':')
                    .is_some_and(|at| at + 1 < d.len())
        }),
        Check::PemBody => {
            // Between the BEGIN line's closing dashes and the END line (a key pasted on one
            // line has spaces for its line breaks), but for headers such as `Proc-Type:`.
            let open = secret
                .get(5..)
                .and_then(|s| s.find("-----"))
                .map_or(secret.len(), |at| at + 10);
            let close = secret.rfind("-----END").unwrap_or(secret.len());
            let body = secret
                .get(open..close)
                .unwrap_or_default()
                .lines()
                .filter(|l| !l.contains(':'))
                .flat_map(str::bytes)
                .filter(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/'))
                .count();
            body >= 64
        }
    }
}

/// Words that mark a value as a stand-in for a secret, not one (lowercase; matched inside).
const PLACEHOLDERS: &[&str] = &[
    "example",
    "placeholder",
    "changeme",
    "change_me",
    "change-me",
    "your_",
    "your-",
    "yourpass",
    "xxxx",
    "****",
    "....",
    "dummy",
    "redacted",
    "fake",
    "${",
    "{{",
    "$(",
    "%s",
    "<",
    ">",
];

/// Prefixes of the formats with their own check ([`Check`]).
const OWNED_PREFIXES: &[&str] = &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "npm_", "eyJ"];

/// Values that are a word standing for a secret.
const PLACEHOLDER_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pass",
    "pwd",
    "secret",
    "token",
    "null",
    "none",
    "undefined",
    "true",
    "false",
    "user",
    "username",
    "admin",
    "root",
];

/// Whether `value` is not a secret by the filters a rule asks for; `stopwords` are the
/// configuration's, lowercase.
pub(crate) fn filtered(filters: Filters, value: &str, stopwords: &[String]) -> bool {
    let lower = value.to_ascii_lowercase();
    if stopwords.iter().any(|w| lower.contains(w.as_str())) {
        return true;
    }
    if filters >= Filters::Placeholder
        && (value.starts_with('$')
            || value.starts_with('%')
            || PLACEHOLDERS.iter().any(|p| lower.contains(p))
            || PLACEHOLDER_WORDS.contains(&lower.as_str())
            || value.bytes().all(|b| Some(b) == value.bytes().next()))
    {
        return true;
    }
    if filters == Filters::Generic && is_digest(value) {
        return true;
    }
    if filters == Filters::Generic && !mixed(value) {
        return true;
    }
    // A value in a format that checks itself belongs to that format's rule, which judged it
    // (a GitHub token with a wrong checksum is not a generic secret either).
    if filters == Filters::Generic && OWNED_PREFIXES.iter().any(|p| value.starts_with(p)) {
        return true;
    }
    false
}

/// A value that says it is a digest or an id: an integrity string (`sha512-…`), go.sum's
/// `h1:`, a UUID, an old-style Feishu/Lark document id (`wikcn…`, `doxcn…`). A bare hex or
/// base64 value of a digest's length is not judged here: under a secret's name it is a
/// secret (`SECRET_KEY_BASE`, `openssl rand -hex 32`), and the generic rule lets the name
/// say digest (`…_sha256`, `…_hash`, `checksum`).
pub(crate) fn is_digest(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    for prefix in ["sha1-", "sha256-", "sha384-", "sha512-", "md5-", "h1:"] {
        if lower.starts_with(prefix) {
            return true;
        }
    }
    is_uuid(value) || is_feishu_doc_id(value)
}

/// Feishu/Lark's older document tokens: a type (`wik` wiki, `dox` docx, `doc`, `sht` sheet,
/// `bas` base, `fld` folder, `box` file, `bmn` mindnote, `sld` slides), `cn`, 18-30
/// alphanumerics. Ids of documents, printed in URLs, never credentials.
fn is_feishu_doc_id(value: &str) -> bool {
    let b = value.as_bytes();
    b.len() >= 23
        && b.len() <= 35
        && [
            "wik", "dox", "doc", "sht", "bas", "fld", "box", "bmn", "sld",
        ]
        .iter()
        .any(|p| value.starts_with(p))
        && &b[3..5] == b"cn"
        && b.iter().all(u8::is_ascii_alphanumeric)
}

fn is_uuid(value: &str) -> bool {
    let b = value.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A letter and a digit, and not an identifier path (`e.apiKey`, `config.token2`) or a file
/// path.
fn mixed(value: &str) -> bool {
    let letters = value.bytes().any(|b| b.is_ascii_alphabetic());
    let digits = value.bytes().any(|b| b.is_ascii_digit());
    if !(letters && digits) {
        return false;
    }
    if value.starts_with('/') || value.starts_with("./") || value.starts_with("../") {
        return false;
    }
    let identifier = |part: &str| {
        part.bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    !(value.contains('.') && value.split('.').all(identifier))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_zlibs() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(&base62_6(0), b"000000");
        assert_eq!(&base62_6(61), b"00000z");
        assert_eq!(&base62_6(62), b"000010");
    }

    #[test]
    fn digests_and_uuids_are_recognised() {
        // Hex of a digest's length is judged by its name (the generic rule), not here.
        assert!(!is_digest(&"0f".repeat(32)));
        assert!(is_digest("doxcnAbCdEfGhIjKlMnOpQrStUv"));
        assert!(!is_digest("doxAbCdEfGhIjKlMnOpQrStUvWx"));
        assert!(is_digest("123e4567-e89b-12d3-a456-426614174000"));
        assert!(is_digest("h1:abc"));
        assert!(!is_digest("Zx9Qv2Lm8Rt4Wk6Yp3Nb"));
    }

    #[test]
    fn entropy_grows_with_variety() {
        assert!(entropy("aaaaaaaa") < 0.1);
        assert!((entropy("abcdefgh") - 3.0).abs() < 1e-9);
    }
}
