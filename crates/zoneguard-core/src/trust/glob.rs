//! Whole-string globs as IAM uses them: `*` spans any characters (including `:` and `/`),
//! `?` exactly one.

/// One element of a compiled glob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok {
    /// A character that must appear as is.
    Lit(char),
    /// `*`: any run of characters, possibly empty.
    Any,
    /// `?`: exactly one character.
    One,
}

/// Compiles `pattern`, treating `*` and `?` as wildcards.
pub fn compile(pattern: &str) -> Vec<Tok> {
    pattern.chars().map(wild).collect()
}

/// The token for one pattern character.
pub fn wild(c: char) -> Tok {
    match c {
        '*' => Tok::Any,
        '?' => Tok::One,
        other => Tok::Lit(other),
    }
}

/// Whether `text` matches the whole of `pattern`; linear backtracking, never exponential.
pub fn matches(pattern: &[Tok], text: &str) -> bool {
    let pattern = |i: usize| pattern.get(i).copied();
    if text.is_ascii() {
        run(pattern, text.as_bytes(), |c, b| c == char::from(b))
    } else {
        let text: Vec<char> = text.chars().collect();
        run(pattern, &text, |c, t| c == t)
    }
}

/// Whether `text` matches the whole of `pattern` written as text (`*` and `?` wildcards);
/// without allocating when both are ASCII, as IAM's keys and values nearly always are.
pub fn matches_text(pattern: &str, text: &str) -> bool {
    match ascii(pattern, text) {
        Some((p, t)) => run(wild_at(p), t, |c, b| c == char::from(b)),
        None => matches(&compile(pattern), text),
    }
}

/// Case-insensitive glob on ASCII-insensitive text (actions).
pub fn matches_ignore_case(pattern: &str, text: &str) -> bool {
    match ascii(pattern, text) {
        Some((p, t)) => run(wild_at(p), t, |c, b| c.eq_ignore_ascii_case(&char::from(b))),
        None => matches(&compile(&pattern.to_lowercase()), &text.to_lowercase()),
    }
}

fn ascii<'a>(pattern: &'a str, text: &'a str) -> Option<(&'a [u8], &'a [u8])> {
    (pattern.is_ascii() && text.is_ascii()).then_some((pattern.as_bytes(), text.as_bytes()))
}

/// The tokens of an ASCII pattern, one per byte.
fn wild_at(pattern: &[u8]) -> impl Fn(usize) -> Option<Tok> + '_ {
    |i| pattern.get(i).map(|b| wild(char::from(*b)))
}

/// The matcher: `pattern(i)` is the i-th token (`None` past the end), `lit` compares a
/// literal token with one unit of `text` (a byte of ASCII text, else a `char`).
fn run<T: Copy>(
    pattern: impl Fn(usize) -> Option<Tok>,
    text: &[T],
    lit: impl Fn(char, T) -> bool,
) -> bool {
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern(p) {
            Some(Tok::Lit(c)) if lit(c, text[t]) => {
                p += 1;
                t += 1;
            }
            Some(Tok::One) => {
                p += 1;
                t += 1;
            }
            Some(Tok::Any) => {
                star = Some((p, t));
                p += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    (p..).map_while(&pattern).all(|tok| tok == Tok::Any)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_strings_with_star_and_question_mark() {
        let rows = [
            ("*", "", true),
            ("*", "anything:at/all", true),
            ("a*", "a", true),
            ("a*c", "abbbc", true),
            ("a*c", "abbbd", false),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("a?c", "abbc", false),
            (
                "system:serviceaccount:*:dns",
                "system:serviceaccount:ns:dns",
                true,
            ),
            (
                "system:serviceaccount:*",
                "system:serviceaccount:ns:sub/x",
                true,
            ),
            ("abc", "abcd", false),
            ("abc", "ab", false),
            ("*a*a*a*a*a*b", &"a".repeat(60), false),
            ("é?", "éx", true),
        ];
        for (pattern, text, expected) in rows {
            assert_eq!(
                matches(&compile(pattern), text),
                expected,
                "{pattern} ~ {text}"
            );
            assert_eq!(
                matches_text(pattern, text),
                expected,
                "{pattern} ~ {text} (text)"
            );
        }
    }

    #[test]
    fn literal_tokens_do_not_act_as_wildcards() {
        let pattern = [Tok::Lit('a'), Tok::Lit('*')];
        assert!(matches(&pattern, "a*"));
        assert!(!matches(&pattern, "ab"));
    }

    #[test]
    fn action_globs_ignore_case() {
        assert!(matches_ignore_case(
            "STS:AssumeRole*",
            "sts:assumerolewithwebidentity"
        ));
        assert!(!matches_ignore_case(
            "sts:AssumeRole",
            "sts:AssumeRoleWithWebIdentity"
        ));
        // Past ASCII, both sides are lower-cased as Unicode text.
        assert!(matches_ignore_case("ÉTÉ:*", "été:x"));
        assert!(matches_ignore_case("?:x", "É:X"));
    }
}
