//! JSON strings written straight into a byte buffer (plain, base64, arrays of them), for the
//! answer's hand-written encoder (`review::ReviewResponse::to_json`): the same bytes serde_json
//! writes for them, without its `io::Write` and formatter machinery per string.

use base64::Engine as _;

/// What a byte turns into inside a JSON string, as serde_json writes it: `0` kept as it is,
/// `u` written `\u00XX`, any other letter written after a backslash.
const ESCAPE: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = b'u';
        byte += 1;
    }
    table[0x08] = b'b';
    table[0x09] = b't';
    table[0x0a] = b'n';
    table[0x0c] = b'f';
    table[0x0d] = b'r';
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table
};

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `text` as a JSON string, quotes included. Control characters, `"` and `\` are
/// escaped as serde_json escapes them; everything else, non-ASCII included, is copied.
pub fn string(out: &mut Vec<u8>, text: &str) {
    let mut rest = text.as_bytes();
    out.reserve(rest.len() + 2);
    out.push(b'"');
    loop {
        let clean = clean_prefix(rest);
        out.extend_from_slice(&rest[..clean]);
        let Some(&byte) = rest.get(clean) else {
            break;
        };
        match ESCAPE[usize::from(byte)] {
            b'u' => {
                let digits = [HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0xf)]];
                out.extend_from_slice(b"\\u00");
                out.extend_from_slice(&digits);
            }
            escape => out.extend_from_slice(&[b'\\', escape]),
        }
        rest = &rest[clean + 1..];
    }
    out.push(b'"');
}

/// How many of `bytes` come before the first one that needs an escape: eight bytes at a time
/// (a control byte, `"` or `\` sets the high bit of its lane; a lane above a true match may be
/// set too, never one below, so the lowest set lane is the first match), then byte by byte.
fn clean_prefix(bytes: &[u8]) -> usize {
    const LANES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = LANES << 7;
    let zero_lanes = |word: u64| word.wrapping_sub(LANES) & !word & HIGH;
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let control = word.wrapping_sub(LANES * 0x20) & !word & HIGH;
        let found = control
            | zero_lanes(word ^ (LANES * u64::from(b'"')))
            | zero_lanes(word ^ (LANES * u64::from(b'\\')));
        if found != 0 {
            return at + found.trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    let tail = bytes[at..]
        .iter()
        .position(|&b| ESCAPE[usize::from(b)] != 0);
    at + tail.unwrap_or(bytes.len() - at)
}

/// Appends `bytes` in standard base64 (padded) as a JSON string; its alphabet needs no escapes.
pub fn base64_string(out: &mut Vec<u8>, bytes: &[u8]) {
    let engine = &base64::engine::general_purpose::STANDARD;
    let len = base64::encoded_len(bytes.len(), true).unwrap_or(0);
    out.push(b'"');
    let at = out.len();
    out.resize(at + len, 0);
    // `len` is exactly what the engine writes, so the slice is never too short.
    let written = engine.encode_slice(bytes, &mut out[at..]).unwrap_or(0);
    out.truncate(at + written);
    out.push(b'"');
}

/// Appends `items` as a JSON array of strings.
pub fn string_array<T: AsRef<str>>(out: &mut Vec<u8>, items: impl IntoIterator<Item = T>) {
    out.push(b'[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, item.as_ref());
    }
    out.push(b']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn written(text: &str) -> String {
        let mut out = Vec::new();
        string(&mut out, text);
        String::from_utf8(out).expect("UTF-8 in, UTF-8 out")
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let table = [
            ("", r#""""#),
            ("plain", r#""plain""#),
            ("a \"quote\" and a \\", r#""a \"quote\" and a \\""#),
            ("\u{8}\t\n\u{c}\r", r#""\b\t\n\f\r""#),
            ("\u{0}\u{1f}\u{7f}", "\"\\u0000\\u001f\u{7f}\""),
            ("é ✓ /", "\"é ✓ /\""),
            ("eight ok\"then\\ \u{1} é", r#""eight ok\"then\\ \u0001 é""#),
            (
                "\u{80}\u{7ff}\"\u{ffff}\u{10ffff}\\",
                "\"\u{80}\u{7ff}\\\"\u{ffff}\u{10ffff}\\\\\"",
            ),
        ];
        for (text, want) in table {
            assert_eq!(written(text), want, "{text:?}");
            assert_eq!(written(text), serde_json::to_string(text).unwrap());
        }
    }

    #[test]
    fn base64_strings_are_padded_standard_base64() {
        let table: [(&[u8], &str); 4] = [
            (b"", r#""""#),
            (b"a", r#""YQ==""#),
            (b"ab", r#""YWI=""#),
            (b"[{\"op\":\"add\"}]", r#""W3sib3AiOiJhZGQifV0=""#),
        ];
        for (bytes, want) in table {
            let mut out = b"x".to_vec();
            base64_string(&mut out, bytes);
            assert_eq!(out, [b"x", want.as_bytes()].concat());
        }
    }

    #[test]
    fn arrays_of_strings_are_written_as_serde_json_writes_them() {
        for items in [vec![], vec!["a"], vec!["a", "b\"", "\n"]] {
            let items: Vec<String> = items.into_iter().map(String::from).collect();
            let mut out = Vec::new();
            string_array(&mut out, items.iter().map(String::as_str));
            assert_eq!(out, serde_json::to_vec(&items).unwrap());
        }
    }

    proptest! {
        #[test]
        fn any_string_is_written_as_serde_json_writes_it(text in any::<String>()) {
            prop_assert_eq!(written(&text), serde_json::to_string(&text).unwrap());
        }

        #[test]
        fn any_text_of_escapes_is_written_as_serde_json_writes_it(text in "(?s)[\\x00-\\x7f\"\\\\é✓]{0,40}") {
            prop_assert_eq!(written(&text), serde_json::to_string(&text).unwrap());
        }

        #[test]
        fn any_bytes_are_written_as_their_base64(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let mut out = Vec::new();
            base64_string(&mut out, &bytes);
            let want = base64::engine::general_purpose::STANDARD.encode(&bytes);
            prop_assert_eq!(out, serde_json::to_vec(&want).unwrap());
        }
    }
}
