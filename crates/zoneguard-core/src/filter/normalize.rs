//! external-dns's `normalizeDomain`, rebuilt on the `idna` crate.
//!
//! external-dns strips one trailing dot and calls golang.org/x/net/idna's
//! `ToUnicode` (UTS-46 mapping, non-transitional, STD3 rules off) and keeps the
//! result even when it reports an error. That result is, label by label:
//!
//! 1. the input mapped (case folding, width mapping, ignored code points dropped)
//!    and NFC-normalised, with code points UTS-46 disallows left as they are;
//! 2. split on `.`; every label that then starts with `xn--` is replaced by its
//!    Punycode decoding when that decoding succeeds, and kept as it is otherwise.
//!    The decoded label is neither mapped nor validated again.
//!
//! ASCII text (almost every real name) never reaches the `idna` crate: it is
//! lower-cased and its `xn--` labels are decoded here, with Go's Punycode edge
//! cases. Non-ASCII text goes to the crate's ToUnicode; where the crate reports an
//! error it marks it with U+FFFD instead of keeping the partial result, so the
//! partial result is rebuilt from the crate's mapping of smaller pieces
//! ([`map_code_points`]). Trimming uses `str::trim`, which removes the same
//! White_Space characters as Go's `strings.TrimSpace`.

use std::borrow::Cow;

use idna::uts46::{AsciiDenyList, Hyphens, Uts46};

/// The prefix of a Punycode (ACE) label.
const ACE_PREFIX: &str = "xn--";

/// Normalises a name as external-dns's `normalizeDomain` does.
///
/// Borrows when the name is already in normal form (lower-case ASCII without
/// `xn--` labels and without a trailing dot), which keeps matching allocation-free.
pub(crate) fn normalize(name: &str) -> Cow<'_, str> {
    let stripped = name.strip_suffix('.').unwrap_or(name);
    if stripped.is_ascii() {
        return normalize_ascii(stripped);
    }
    let pieces: Vec<String> = stripped.split('.').map(normalize_piece).collect();
    Cow::Owned(pieces.join("."))
}

/// external-dns's filter preparation (`prepareFilters`): trim white space, normalise.
///
/// external-dns v0.22 builds its filter with `NewDomainFilterWithOptions`, whose
/// `WithDomainFilter` / `WithDomainExclude` prepare the list and whose constructor
/// prepares it again, so every filter goes through this twice: `"example.com.."`
/// loses both dots. `None` means the filter is dropped (empty).
pub(crate) fn prepare_filter(raw: &str) -> Option<String> {
    with_prepared(raw, str::to_owned)
}

/// Whether external-dns drops `raw` as empty once it has prepared it (`prepare_filter`:
/// spaces and dots alone, such as `""` or `" . "`), without the copy that keeps the filter.
pub fn is_dropped(raw: &str) -> bool {
    with_prepared(raw, |_| ()).is_none()
}

/// `keep` of the filter `raw` prepared, or `None` when the preparation drops it as empty.
fn with_prepared<T>(raw: &str, keep: impl FnOnce(&str) -> T) -> Option<T> {
    let once = normalize(raw.trim());
    if once.is_empty() {
        return None;
    }
    let twice = normalize(once.trim());
    (!twice.is_empty()).then(|| keep(&twice))
}

/// The ASCII case: lower-case, then decode `xn--` labels; no copy when neither applies.
fn normalize_ascii(ascii: &str) -> Cow<'_, str> {
    let lower = if ascii.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(ascii.to_ascii_lowercase())
    } else {
        Cow::Borrowed(ascii)
    };
    if has_ace_label(&lower) {
        Cow::Owned(decode_ace_labels(&lower))
    } else {
        lower
    }
}

/// True when some label of the (lower-case) text starts with [`ACE_PREFIX`]: the prefix at
/// the start or right after a dot. Bytes, not `split`: this runs for every name judged.
fn has_ace_label(text: &str) -> bool {
    let bytes = text.as_bytes();
    let prefix = ACE_PREFIX.as_bytes();
    (0..bytes.len()).any(|i| (i == 0 || bytes[i - 1] == b'.') && bytes[i..].starts_with(prefix))
}

/// LATIN CAPITAL LETTER SHARP S. UTS-46 for Unicode 15 (the tables of the Go release
/// that builds external-dns v0.22.0) maps it to `ss`; the `idna` crate follows
/// Unicode 16, which maps it to `ß`. external-dns's answer wins.
const CAPITAL_SHARP_S: char = '\u{1e9e}';

/// Normalises the text between two ASCII dots of the input.
///
/// Mapping and NFC never reach across an ASCII dot, so pieces are independent.
/// A piece may still become several labels (U+3002 IDEOGRAPHIC FULL STOP maps to `.`).
fn normalize_piece(piece: &str) -> String {
    if piece.is_ascii() {
        return decode_ace_labels(&piece.to_ascii_lowercase());
    }
    let piece = piece.replace(CAPITAL_SHARP_S, "ss");
    let piece = piece.as_str();
    let (unicode, result) = to_unicode(piece);
    if result.is_ok() {
        // No error: the crate's output is exactly mapping + NFC + (one) Punycode
        // decoding per label, which is what Go produces.
        return unicode;
    }
    decode_ace_labels(&map_code_points(piece))
}

/// UTS-46 ToUnicode as external-dns configures it (non-transitional, STD3 off,
/// no hyphen checks).
fn to_unicode(text: &str) -> (String, Result<(), idna::Errors>) {
    let (out, result) =
        Uts46::new().to_unicode(text.as_bytes(), AsciiDenyList::EMPTY, Hyphens::Allow);
    (out.into_owned(), result)
}

/// Maps a piece that the `idna` crate refuses as a whole, as Go maps it: code point
/// by code point, keeping the ones UTS-46 disallows, then NFC over each stretch
/// between kept code points and dots.
fn map_code_points(piece: &str) -> String {
    let mut out = String::with_capacity(piece.len());
    let mut run = String::new();
    let mut buf = [0u8; 4];
    for c in piece.chars() {
        let mapped = if c.is_ascii() {
            Some(c.to_ascii_lowercase().to_string())
        } else {
            with_guard(c.encode_utf8(&mut buf))
        };
        match mapped {
            Some(mapped) => {
                for m in mapped.chars() {
                    if m == '.' {
                        flush_run(&mut run, &mut out);
                        out.push('.');
                    } else {
                        run.push(m);
                    }
                }
            }
            None => {
                flush_run(&mut run, &mut out);
                out.push(c);
            }
        }
    }
    flush_run(&mut run, &mut out);
    out
}

/// Appends `run` in NFC and empties it. When the `idna` crate refuses the run as a
/// whole (say, left-to-right and right-to-left letters mixed), each cluster (a code
/// point with the combining marks and conjoining jamo after it) is normalised alone.
fn flush_run(run: &mut String, out: &mut String) {
    if run.is_ascii() {
        out.push_str(run);
    } else if let Some(normalised) = with_guard(run) {
        out.push_str(&normalised);
    } else {
        for cluster in clusters(run) {
            out.push_str(&with_guard(&cluster).unwrap_or(cluster));
        }
    }
    run.clear();
}

/// Splits text into clusters: a code point followed by the code points that NFC may
/// compose with it (combining marks, which UTS-46 refuses at the start of a label,
/// and Hangul vowel and trailing jamo).
fn clusters(text: &str) -> Vec<String> {
    let mut clusters: Vec<String> = Vec::new();
    let mut buf = [0u8; 4];
    for c in text.chars() {
        let attaches = is_conjoining_jamo(c) || is_combining(c.encode_utf8(&mut buf));
        match clusters.last_mut() {
            Some(last) if attaches => last.push(c),
            _ => clusters.push(c.to_string()),
        }
    }
    clusters
}

/// True for a code point UTS-46 refuses at the start of a label but accepts after
/// a letter: a combining mark.
fn is_combining(c: &str) -> bool {
    to_unicode(c).1.is_err() && to_unicode(&format!("{}{c}", GUARDS[1])).1.is_ok()
}

/// Hangul vowel and trailing-consonant jamo, which NFC composes with what precedes.
fn is_conjoining_jamo(c: char) -> bool {
    matches!(c, '\u{1160}'..='\u{11ff}' | '\u{d7b0}'..='\u{d7ff}')
}

/// Characters put in front of text so that the `idna` crate maps and normalises it
/// without refusing it for where it stands: alone, then after a left-to-right and a
/// right-to-left letter. Neither guard composes with anything under NFC, and either
/// keeps an `xn--` in the text from being read as a label prefix.
const GUARDS: [&str; 3] = ["", "\u{4e00}", "\u{5d0}"];

/// The UTS-46 mapping + NFC of dot-free `text`, or `None` when the `idna` crate
/// refuses it after every guard (a disallowed code point, a misplaced joiner...).
fn with_guard(text: &str) -> Option<String> {
    GUARDS.iter().find_map(|guard| {
        let (out, result) = to_unicode(&format!("{guard}{text}"));
        result.ok()?;
        out.strip_prefix(guard).map(str::to_owned)
    })
}

/// Replaces every `xn--` label by its Punycode decoding, keeping labels that do not decode.
fn decode_ace_labels(mapped: &str) -> String {
    let labels: Vec<Cow<'_, str>> = mapped
        .split('.')
        .map(|label| match label.strip_prefix(ACE_PREFIX) {
            Some(encoded) => punycode_decode(encoded).map_or(Cow::Borrowed(label), Cow::Owned),
            None => Cow::Borrowed(label),
        })
        .collect();
    labels.join(".")
}

/// RFC 3492 parameters.
const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 128;
/// Go's decoder refuses outputs of this many code points or more.
const MAX_DECODED: usize = 1024;

/// Punycode decoding with the edge cases of golang.org/x/net/idna's `decode`:
/// `""` decodes to `""`; a trailing `-` yields the basic code points alone; a lone
/// leading `-` is an error; arithmetic is checked against `i32` overflow; a decoded
/// surrogate becomes U+FFFD (Go's rune-to-string conversion).
fn punycode_decode(encoded: &str) -> Option<String> {
    if encoded.is_empty() {
        return Some(String::new());
    }
    let delimiter = encoded.rfind('-');
    let (mut output, digits): (Vec<u32>, &str) = match delimiter {
        Some(0) => return None,
        Some(at) if at + 1 == encoded.len() => return Some(encoded[..at].to_owned()),
        Some(at) => (
            encoded[..at].chars().map(u32::from).collect(),
            &encoded[at + 1..],
        ),
        None => (Vec::new(), encoded),
    };
    insert_code_points(&mut output, digits.as_bytes())?;
    Some(
        output
            .into_iter()
            .map(|cp| char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
    )
}

/// The RFC 3492 decoding loop over the digits after the delimiter.
fn insert_code_points(output: &mut Vec<u32>, digits: &[u8]) -> Option<()> {
    let (mut i, mut n, mut bias) = (0u32, INITIAL_N, INITIAL_BIAS);
    let mut pos = 0;
    while pos < digits.len() {
        let old_i = i;
        let mut w = 1u32;
        let mut k = BASE;
        loop {
            let digit = decode_digit(*digits.get(pos)?)?;
            pos += 1;
            i = checked_madd(i, digit, w)?;
            let t = threshold(k, bias);
            if digit < t {
                break;
            }
            w = checked_madd(0, w, BASE - t)?;
            k += BASE;
        }
        if output.len() >= MAX_DECODED {
            return None;
        }
        let x = u32::try_from(output.len() + 1).ok()?;
        bias = adapt(i - old_i, x, old_i == 0);
        n = n.checked_add(i / x)?;
        i %= x;
        if n > u32::from(char::MAX) {
            return None;
        }
        output.insert(usize::try_from(i).ok()?, n);
        i += 1;
    }
    Some(())
}

/// `a + b * c`, or `None` when it leaves Go's `int32` range.
fn checked_madd(a: u32, b: u32, c: u32) -> Option<u32> {
    let sum = u64::from(a) + u64::from(b) * u64::from(c);
    u32::try_from(sum)
        .ok()
        .filter(|&v| v <= i32::MAX.unsigned_abs())
}

/// The digit value of a Punycode character (either case).
fn decode_digit(byte: u8) -> Option<u32> {
    match byte {
        b'0'..=b'9' => Some(u32::from(byte - b'0') + 26),
        b'A'..=b'Z' => Some(u32::from(byte - b'A')),
        b'a'..=b'z' => Some(u32::from(byte - b'a')),
        _ => None,
    }
}

/// RFC 3492's `t(k)`.
fn threshold(k: u32, bias: u32) -> u32 {
    if k <= bias {
        T_MIN
    } else if k >= bias + T_MAX {
        T_MAX
    } else {
        k - bias
    }
}

/// RFC 3492's bias adaptation.
fn adapt(delta: u32, num_points: u32, first_time: bool) -> u32 {
    let mut delta = if first_time { delta / DAMP } else { delta / 2 };
    delta += delta / num_points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + (BASE - T_MIN + 1) * delta / (delta + SKEW)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (input, expected normal form)
    const NAMES: &[(&str, &str)] = &[
        ("example.com", "example.com"),
        ("Example.COM.", "example.com"),
        ("example.com..", "example.com."),
        ("xn--mnchen-3ya.de", "münchen.de"),
        ("XN--MNCHEN-3YA.DE", "münchen.de"),
        ("MÜNCHEN.de", "münchen.de"),
        ("ｅｘａｍｐｌｅ．com", "example.com"),
        ("a。b", "a.b"),
        ("straße.de", "straße.de"),
        ("_acme-challenge.Example.com", "_acme-challenge.example.com"),
        ("*.Example.com", "*.example.com"),
        ("xn--abc-.example.com", "abc.example.com"),
        ("xn--.example.com", ".example.com"),
        ("xn---abc.example.com", "xn---abc.example.com"),
        ("xn--zz!.example.com", "xn--zz!.example.com"),
        ("", ""),
        (".", ""),
        // Unicode 15 mapping, as in the Go build of external-dns v0.22.0.
        ("STRAẞE.de", "strasse.de"),
        // A decoded label is neither mapped nor validated again.
        ("xn--wca.com", "Ü.com"),
        // Invalid IDNs keep their partly processed form, NFC included.
        ("xn--mnchen-3ya\u{301}.de", "xn--mnchen-3y\u{e1}.de"),
        ("\u{ff8a}\u{ff9f}\u{661}.jp", "\u{30d1}\u{661}.jp"),
        ("a\u{7}B.com", "a\u{7}b.com"),
    ];

    #[test]
    fn names_normalise_as_external_dns_does() {
        for (input, expected) in NAMES {
            assert_eq!(normalize(input), *expected, "input {input:?}");
        }
    }

    #[test]
    fn filters_are_trimmed_and_prepared_twice() {
        assert_eq!(
            prepare_filter("  Example.com. ").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            prepare_filter("example.com..").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            prepare_filter("example.com ."),
            Some("example.com".to_owned())
        );
        assert_eq!(prepare_filter("   "), None);
        assert_eq!(prepare_filter(".."), None);
        assert_eq!(
            prepare_filter(".example.com").as_deref(),
            Some(".example.com")
        );
        // The second pass maps what the first one decoded.
        assert_eq!(prepare_filter("xn--wca.com").as_deref(), Some("ü.com"));
    }

    #[test]
    fn punycode_decoding_round_trips_known_labels() {
        assert_eq!(punycode_decode("mnchen-3ya").as_deref(), Some("münchen"));
        assert_eq!(punycode_decode("bcher-kva").as_deref(), Some("bücher"));
        assert_eq!(punycode_decode("-abc"), None);
        assert_eq!(punycode_decode("99999999999999"), None);
    }
}
