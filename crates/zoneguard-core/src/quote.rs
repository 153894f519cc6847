//! How a message quotes text taken from the user's input: in backticks, with control
//! characters escaped, so that the message stays on one line.

/// `text` in backticks, its control characters written as Rust escapes (`\n`, `\u{1b}`).
pub(crate) fn ticked(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('`');
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out.push('`');
    out
}

#[cfg(test)]
mod tests {
    use super::ticked;

    #[test]
    fn text_is_backticked_with_its_control_characters_escaped() {
        let table = [
            ("", "``"),
            ("role/app", "`role/app`"),
            ("a\nb\tc", "`a\\nb\\tc`"),
            ("\u{1b}[31m", "`\\u{1b}[31m`"),
            ("é ✓ \"q\" \\", "`é ✓ \"q\" \\`"),
        ];
        for (text, want) in table {
            assert_eq!(ticked(text), want, "{text:?}");
        }
    }
}
