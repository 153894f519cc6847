//! Which include filters share an admitted name with a filter's plain lists.
//!
//! The names a filter admits form a domain's subtree (without the domain itself, for a
//! leading-dot filter), and two subtrees meet only when one domain is at or under the other,
//! so one filter's names hold the other's. A filter `f` therefore shares a name with the names
//! a filter's lists admit exactly when
//!
//! * an include filter holds every name of `f` (or there is none), and no exclusion covers
//!   `f`'s domain read as a name; or
//! * `f` holds the names of an include filter `i`, and no exclusion covers `i`.
//!
//! "No exclusion covers it" is exact for a whole subtree because coverage is closed under
//! subdomains: what covers `n` covers every name under it, and what covers `.n` (read as a
//! name) covers every proper subdomain of `n`.

use super::suffix_index::SuffixIndex;
use std::collections::HashMap;

/// For each prepared filter of `filters` (`None`: one empty once trimmed, which admits no
/// name), whether some name it admits is admitted by `include` and not excluded by `exclude`.
///
/// The first case is one lookup per filter. The second is one pass over the include filters
/// for every filter the first leaves open, probing each include filter's suffixes, so its cost
/// does not multiply the two counts.
pub(super) fn reaching(
    include: &SuffixIndex,
    exclude: &SuffixIndex,
    filters: &[Option<String>],
) -> Vec<bool> {
    let held = |f: &str| include.is_empty() || include.covers(f);
    let mut reached: Vec<bool> = filters
        .iter()
        .map(|f| f.as_deref().is_some_and(|f| held(f) && !exclude.covers(f)))
        .collect();
    let mut waiting: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, f) in filters.iter().enumerate() {
        if let Some(f) = f.as_deref().filter(|f| !held(f)) {
            waiting.entry(f).or_default().push(i);
        }
    }
    for member in include.iter().filter(|m| !exclude.covers(m)) {
        if waiting.is_empty() {
            break;
        }
        for i in suffixes(member).flat_map(|s| waiting.remove(s).unwrap_or_default()) {
            reached[i] = true;
        }
    }
    reached
}

/// The suffixes of `name` that a filter covering it equals: the name, and from each dot the
/// rest with the dot (a leading-dot filter) and without it (any other).
fn suffixes(name: &str) -> impl Iterator<Item = &str> {
    let dots = name.bytes().enumerate().filter(|(_, b)| *b == b'.');
    let cuts = dots.flat_map(move |(d, _)| [&name[d..], &name[d + 1..]]);
    std::iter::once(name).chain(cuts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suffixes_a_covering_filter_can_equal_are_every_cut_at_a_dot() {
        let got: Vec<&str> = suffixes("a.b.c").collect();
        assert_eq!(got, ["a.b.c", ".b.c", "b.c", ".c", "c"]);
        let got: Vec<&str> = suffixes(".b").collect();
        assert_eq!(got, [".b", ".b", "b"]);
    }
}
