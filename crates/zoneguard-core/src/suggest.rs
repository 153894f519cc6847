//! "Did you mean …?": the known word nearest a misspelt one.

/// The candidate `word` most likely misspells: one that differs only in case, else the
/// nearest by edit distance (case ignored) when it is at most 2 edits away (1 for a word of
/// 3 characters or fewer); the first of equally near ones. `None` when none is that near.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    let max = if word.chars().count() <= 3 { 1 } else { 2 };
    let mut best: Option<(usize, &'a str)> = None;
    let length = lower.chars().count();
    for candidate in candidates {
        // The distance is at least the difference in length: a long word (a key of hostile
        // input, say) costs nothing against short candidates.
        if length.abs_diff(candidate.chars().count()) > max {
            continue;
        }
        let distance = edit_distance(&lower, &candidate.to_lowercase());
        if distance <= max && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// Levenshtein distance in characters: the fewest insertions, deletions and substitutions
/// that turn `a` into `b`.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        let table = [
            ("", "", 0),
            ("abc", "", 3),
            ("", "abc", 3),
            ("kitten", "sitting", 3),
            ("domainFilter", "domainFilters", 1),
            ("StringEqual", "StringEquals", 1),
            ("flaw", "lawn", 2),
            ("éa", "ea", 1),
        ];
        for (a, b, want) in table {
            assert_eq!(edit_distance(a, b), want, "{a:?} {b:?}");
            assert_eq!(edit_distance(b, a), want, "{b:?} {a:?}");
        }
    }

    #[test]
    fn a_near_known_word_is_suggested_and_a_far_one_is_not() {
        let keys = [
            "domainFilters",
            "excludeDomains",
            "exemptNamespaces",
            "irsa",
        ];
        let table = [
            ("domainFilter", Some("domainFilters")),
            ("DomainFilters", Some("domainFilters")),
            ("DOMAINFILTER", Some("domainFilters")),
            ("exemptNamespace", Some("exemptNamespaces")),
            ("excludedomain", Some("excludeDomains")),
            ("irs", Some("irsa")),
            ("isa", Some("irsa")),
            ("foo", None),
            ("domain", None),
            ("is", None),
            (&"x".repeat(100_000), None),
        ];
        for (word, want) in table {
            assert_eq!(closest(word, keys), want, "{word}");
        }
    }
}
