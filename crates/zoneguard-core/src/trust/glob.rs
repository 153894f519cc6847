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
    let text: Vec<char> = text.chars().collect();
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(Tok::Lit(c)) if *c == text[t] => {
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
    pattern[p.min(pattern.len())..]
        .iter()
        .all(|tok| *tok == Tok::Any)
}

/// Case-insensitive glob on ASCII-insensitive text (actions).
pub fn matches_ignore_case(pattern: &str, text: &str) -> bool {
    matches(&compile(&pattern.to_lowercase()), &text.to_lowercase())
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
    }
}
