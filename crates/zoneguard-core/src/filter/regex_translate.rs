//! Translation of Go RE2 patterns (as external-dns compiles them) into the syntax
//! of Rust's `regex` crate with the same meaning.
//!
//! The two dialects agree on almost everything a domain filter uses. What differs:
//!
//! * Go's Perl classes `\w \d \s` (and `\W \D \S`) and the word boundaries
//!   `\b \B` are ASCII-only; Rust's are Unicode-aware. They become explicit ASCII
//!   classes (`\s` is `[\t\n\f\r ]` in Go: no `\v`) and `(?-u:\b)`.
//! * Go reads `\Q…\E` as literal text; Rust has no such syntax.
//! * Go reads octal escapes (`\0`, `\12`, `\141`); Rust does not by default.
//! * Inside a bracket class, Go takes `[` (unless it opens `[:name:]`), `&&`, `--`
//!   and `~~` literally, where Rust reads nested classes and set operations.
//! * Go reads any escaped ASCII punctuation as itself; Rust reads `\<` and `\>` as
//!   word boundaries.
//! * Go writes a negated Unicode class `\p{^Greek}` as well as `\P{Greek}`; Rust only
//!   the latter. Go knows the surrogates (`\p{Cs}`, `\x{D800}`…), which no string holds;
//!   Rust refuses them.
//! * Go accepts `(?)` (no flags) and one group name used twice; Rust refuses both.
//!   Names do not change what a pattern matches, so named groups become plain ones.
//!
//! Patterns that Go refuses are not always refused here (Rust accepts, e.g.,
//! `(?x)` and `\p{greek}`); such a pattern would stop external-dns at start-up, so it
//! never describes a running cluster. Surrogates as the ends of a class range
//! (`[\x{D800}-\x{DFFF}]`) are refused here, accepted by Go.

/// Go's `\w`, as the body of a class.
const WORD: &str = r"0-9A-Za-z_";
/// Go's `\d`, as the body of a class.
const DIGIT: &str = r"0-9";
/// Go's `\s`, as the body of a class.
const SPACE: &str = r"\t\n\x0C\r\x20";

/// Translates a Go RE2 pattern into an equivalent Rust `regex` pattern.
///
/// Refuses (with Go's message) the repetitions that Go refuses and Rust would accept:
/// nested repetition operators (`a**`, `a+*`, `a*??`) and counts above 1000.
pub(crate) fn translate(go: &str) -> Result<String, String> {
    let mut out = String::with_capacity(go.len() + 16);
    let mut chars = go.chars().peekable();
    let mut last = Last::Other;
    while let Some(c) = chars.next() {
        last = match c {
            '\\' => {
                translate_escape(&mut chars, &mut out, false);
                Last::Other
            }
            '[' => {
                translate_class(&mut chars, &mut out);
                Last::Other
            }
            '*' | '+' | '?' => repetition(c, last, &mut out)?,
            '{' => match counted_repetition(&mut chars)? {
                Some(text) => {
                    if last != Last::Other {
                        return Err(nested_repetition());
                    }
                    out.push_str(&text);
                    Last::Repeat
                }
                None => {
                    out.push_str("\\{");
                    Last::Other
                }
            },
            '}' => {
                out.push_str("\\}");
                Last::Other
            }
            '(' => {
                group_open(&mut chars, &mut out);
                Last::Other
            }
            _ => {
                out.push(c);
                Last::Other
            }
        };
    }
    Ok(out)
}

/// What the previous token was, for Go's nested-repetition check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    /// Anything but a repetition operator.
    Other,
    /// A repetition operator (`*`, `+`, `?`, `{n,m}`).
    Repeat,
    /// A repetition operator made non-greedy by `?`.
    Lazy,
}

/// Go's message for a repetition operator applied to a repetition.
fn nested_repetition() -> String {
    "invalid nested repetition operator (Go RE2 refuses it)".to_owned()
}

/// Handles `*`, `+` or `?` after a token of kind `last`.
fn repetition(op: char, last: Last, out: &mut String) -> Result<Last, String> {
    let next = match (op, last) {
        (_, Last::Other) => Last::Repeat,
        ('?', Last::Repeat) => Last::Lazy,
        _ => return Err(nested_repetition()),
    };
    out.push(op);
    Ok(next)
}

/// Go's largest repetition count.
const MAX_REPEAT: u32 = 1000;

/// Reads `n}`, `n,}` or `n,m}` after a `{`. `None` (nothing consumed) when the text
/// is not a repetition, which Go then reads as a literal `{`.
fn counted_repetition(chars: &mut Chars<'_>) -> Result<Option<String>, String> {
    let rest: String = chars.clone().take_while(|&c| c != '}').collect();
    if chars.clone().nth(rest.chars().count()) != Some('}') {
        return Ok(None);
    }
    let (min, max) = match rest.split_once(',') {
        Some((min, max)) => (min, Some(max)),
        None => (rest.as_str(), None),
    };
    let is_number = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !is_number(min) || max.is_some_and(|m| !m.is_empty() && !is_number(m)) {
        return Ok(None);
    }
    let too_big = |t: &str| t.parse::<u32>().map_or(true, |n| n > MAX_REPEAT);
    if too_big(min) || max.is_some_and(|m| !m.is_empty() && too_big(m)) {
        return Err(format!(
            "invalid repeat count {{{rest}}} (Go RE2 allows at most {MAX_REPEAT})"
        ));
    }
    for _ in 0..=rest.chars().count() {
        chars.next();
    }
    Ok(Some(format!("{{{rest}}}")))
}

type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;

/// Translates the escape after a `\` (outside a class, or inside one when `in_class`).
fn translate_escape(chars: &mut Chars<'_>, out: &mut String, in_class: bool) {
    let Some(c) = chars.next() else {
        // A trailing backslash: invalid in both dialects, let Rust report it.
        out.push('\\');
        return;
    };
    if let Some(body) = perl_class_body(c) {
        push_class(out, body, c.is_ascii_uppercase(), in_class);
        return;
    }
    match c {
        'b' | 'B' if !in_class => {
            out.push_str("(?-u:\\");
            out.push(c);
            out.push(')');
        }
        'Q' if !in_class => push_quoted(chars, out),
        '0'..='7' => push_octal(c, chars, out),
        'x' | 'p' | 'P' if chars.peek() == Some(&'{') => push_braced(c, chars, out),
        // Go: an escaped ASCII character that is not a letter or digit is itself.
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => {
            out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
        }
        _ => {
            out.push('\\');
            out.push(c);
        }
    }
}

/// A class no character is in, and the class every character is in (each valid inside
/// a Rust bracket class too, as a nested class).
const NOTHING: &str = r"[^\x{0}-\x{10FFFF}]";
const ANYTHING: &str = r"[\x{0}-\x{10FFFF}]";

/// Emits `\x{…}`, `\p{…}` or `\P{…}` (`kind`; the `{` not yet read) whole, so that the
/// braces are not read as a repetition: Go's negation `\p{^X}` becomes `\P{X}`, and the
/// surrogates, which no string holds, become [`NOTHING`] (`\P{Cs}`: [`ANYTHING`]).
fn push_braced(kind: char, chars: &mut Chars<'_>, out: &mut String) {
    chars.next(); // the `{`
    let mut body = String::new();
    let mut closed = false;
    for inner in chars.by_ref() {
        if inner == '}' {
            closed = true;
            break;
        }
        body.push(inner);
    }
    let (kind, name) = match body.strip_prefix('^') {
        Some(name) if kind == 'p' => ('P', name),
        Some(name) if kind == 'P' => ('p', name),
        _ => (kind, body.as_str()),
    };
    let surrogate =
        |hex: &str| u32::from_str_radix(hex, 16).is_ok_and(|n| (0xD800..=0xDFFF).contains(&n));
    match (kind, name) {
        ('p', "Cs") => out.push_str(NOTHING),
        ('P', "Cs") => out.push_str(ANYTHING),
        ('x', hex) if closed && surrogate(hex) => out.push_str(NOTHING),
        _ => {
            out.push('\\');
            out.push(kind);
            out.push('{');
            out.push_str(name);
            if closed {
                out.push('}');
            }
        }
    }
}

/// Emits what follows a `(` (read): Go's `(?)` (no flags) is nothing; a named group
/// (`(?P<name>`, `(?<name>`, a name Go accepts) becomes a plain group.
fn group_open(chars: &mut Chars<'_>, out: &mut String) {
    let rest: String = chars.clone().take(256).collect();
    if rest.starts_with("?)") {
        chars.nth(1);
        return;
    }
    out.push('(');
    let Some(named) = rest.strip_prefix("?P<").or_else(|| rest.strip_prefix("?<")) else {
        return;
    };
    let Some(name) = named.split_once('>').map(|(name, _)| name) else {
        return;
    };
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        let skip = rest.len() - named.len() + name.len() + 1;
        chars.nth(skip - 1);
    }
}

/// The ASCII body of Go's Perl class `\c`, if `c` names one.
fn perl_class_body(c: char) -> Option<&'static str> {
    match c.to_ascii_lowercase() {
        'w' => Some(WORD),
        'd' => Some(DIGIT),
        's' => Some(SPACE),
        _ => None,
    }
}

/// Emits an ASCII class: spliced into the enclosing class when possible, else bracketed.
fn push_class(out: &mut String, body: &str, negated: bool, in_class: bool) {
    if in_class && !negated {
        out.push_str(body);
        return;
    }
    out.push_str(if negated { "[^" } else { "[" });
    out.push_str(body);
    out.push(']');
}

/// Emits the text up to `\E` (or the end) as literal characters.
fn push_quoted(chars: &mut Chars<'_>, out: &mut String) {
    let mut literal = String::new();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&'E') {
            chars.next();
            break;
        }
        literal.push(c);
    }
    out.push_str(&regex::escape(&literal));
}

/// Emits Go's octal escape starting with digit `first`, as Go parses it: a lone
/// non-zero digit is a backreference (left for Rust to refuse); otherwise up to
/// three octal digits in all.
fn push_octal(first: char, chars: &mut Chars<'_>, out: &mut String) {
    let is_octal = |c: Option<&char>| matches!(c, Some('0'..='7'));
    if first != '0' && !is_octal(chars.peek()) {
        out.push('\\');
        out.push(first);
        return;
    }
    let mut value = first.to_digit(8).unwrap_or(0);
    for _ in 1..3 {
        match chars.peek().and_then(|c| c.to_digit(8)) {
            Some(digit) => {
                value = value * 8 + digit;
                chars.next();
            }
            None => break,
        }
    }
    out.push_str(&format!("\\x{{{value:X}}}"));
}

/// Translates a bracket class; the opening `[` has been read.
fn translate_class(chars: &mut Chars<'_>, out: &mut String) {
    out.push('[');
    if chars.peek() == Some(&'^') {
        chars.next();
        out.push('^');
    }
    // A `]` first in the class is a literal.
    if chars.peek() == Some(&']') {
        chars.next();
        out.push_str("\\]");
    }
    let mut previous = None;
    while let Some(c) = chars.next() {
        match c {
            ']' => {
                out.push(']');
                return;
            }
            '\\' => translate_escape(chars, out, true),
            '[' if chars.peek() == Some(&':') => push_posix_class(chars, out),
            '[' | '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '-' if previous == Some('-') => out.push_str("\\-"),
            _ => out.push(c),
        }
        previous = Some(c);
    }
    // Unterminated class: leave it unterminated so that Rust reports the error.
}

/// Copies a `[:name:]` class through (same ASCII meaning in both dialects); the `[`
/// has been read. Without a closing `:]`, Go reads a literal `[`.
fn push_posix_class(chars: &mut Chars<'_>, out: &mut String) {
    let rest: String = chars.clone().collect();
    match rest.find(":]") {
        Some(end) if end > 0 => {
            out.push('[');
            out.push_str(&rest[..end + 2]);
            for _ in rest[..end + 2].chars() {
                chars.next();
            }
        }
        _ => out.push_str("\\["),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (Go pattern, Rust pattern)
    const TRANSLATIONS: &[(&str, &str)] = &[
        (r"\w+", r"[0-9A-Za-z_]+"),
        (r"\W", r"[^0-9A-Za-z_]"),
        (r"^\d{3}$", r"^[0-9]{3}$"),
        (r"\s", r"[\t\n\x0C\r\x20]"),
        (r"\bapi\b", r"(?-u:\b)api(?-u:\b)"),
        (r"[\w-]+", r"[0-9A-Za-z_-]+"),
        (r"[^\W\d]", r"[^[^0-9A-Za-z_]0-9]"),
        (r"[]a]", r"[\]a]"),
        (r"[a[b]", r"[a\[b]"),
        (r"[[:alpha:]]", r"[[:alpha:]]"),
        (r"[a&&b]", r"[a\&\&b]"),
        (r"[+--]", r"[+-\-]"),
        (r"\Qa.b\E.c", r"a\.b.c"),
        (r"\101", r"\x{41}"),
        (r"\0", r"\x{0}"),
        (r"example\.com", r"example\.com"),
        (r"\pL\p{Greek}", r"\pL\p{Greek}"),
        (r"\x{fc}\p{Greek}+", r"\x{fc}\p{Greek}+"),
        (r"a{2,3}b{2}c{2,}?", r"a{2,3}b{2}c{2,}?"),
        (r"a{,3}", r"a\{,3\}"),
        (r"a{", r"a\{"),
        (r"a*?", r"a*?"),
        (r"\<api\>", r"<api>"),
        (r"[\<\-\_]\ \~", r"[<\-_] \~"),
        (r"\p{^Greek}\P{^L}[\p{^Lu}]", r"\P{Greek}\p{L}[\P{Lu}]"),
        (r"\p{Cs}|\P{Cs}", r"[^\x{0}-\x{10FFFF}]|[\x{0}-\x{10FFFF}]"),
        (
            r"a\x{D800}[b\x{dfff}]",
            r"a[^\x{0}-\x{10FFFF}][b[^\x{0}-\x{10FFFF}]]",
        ),
        (r"a(?)b(?i)c", r"ab(?i)c"),
        (r"(?P<n>api)|(?<n>www)", r"(api)|(www)"),
    ];

    #[test]
    fn repetitions_that_go_refuses_are_refused() {
        for go in [
            "a**",
            "a+*",
            "a*??",
            "a?+",
            "a{2}*",
            "a*{2}",
            "a{1001}",
            "a{1,1001}",
        ] {
            assert!(translate(go).is_err(), "Go refuses {go:?}");
        }
    }

    #[test]
    fn a_group_name_go_refuses_is_left_for_rust_to_refuse() {
        for go in ["(?P<>b)", "(?P<a-b>c)", "(?P<a"] {
            let translated = translate(go).expect("no repetition problem");
            assert_eq!(translated, go);
            assert!(regex::Regex::new(&translated).is_err(), "{go:?}");
        }
    }

    #[test]
    fn go_patterns_become_ascii_faithful_rust_patterns() {
        for (go, rust) in TRANSLATIONS {
            let translated = translate(go).expect("Go accepts these patterns");
            assert_eq!(translated, *rust, "Go pattern {go:?}");
            assert!(
                regex::Regex::new(&translated).is_ok(),
                "{go:?} must compile"
            );
        }
    }

    /// (Go pattern, haystack, Go's answer)
    const SEARCHES: &[(&str, &str, bool)] = &[
        (r"^\w+$", "münchen", false),
        (r"^\w+$", "munchen", true),
        (r"\d", "٣", false),
        (r"\s", "\u{a0}", false),
        (r"\s", "\u{b}", false),
        (r"\bü", "aü", true),
        (r"\bü", "ü", false),
        (r"a\b", "aü", true),
        (r"[\W]", "ü", true),
        (r"\<api\>", "api.example.com", false),
        (r"\<api\>", "<api>.example.com", true),
        (r"^\p{^N}+$", "api", true),
        (r"^\p{^N}+$", "api1", false),
        (r"\p{Cs}", "api", false),
        (r"^\P{Cs}+$", "api", true),
        (r"^(?P<n>api)$|^(?P<n>www)$", "www", true),
    ];

    #[test]
    fn translated_patterns_search_as_go_does() {
        for (go, haystack, expected) in SEARCHES {
            let re = regex::Regex::new(&translate(go).expect("Go accepts it")).expect("compiles");
            assert_eq!(re.is_match(haystack), *expected, "{go:?} on {haystack:?}");
        }
    }
}
