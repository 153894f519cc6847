//! A suffix hash over normalised filters: lookups cost O(labels of the name),
//! whatever the number of filters.
//!
//! external-dns's `matchFilter` says a filter `f` covers a normalised name `s` when
//!
//! * `f` starts with `.` and `s` ends with `f`, or
//! * `s == f`, or
//! * `s` ends with `"." + f`.
//!
//! All three are equalities between `f` and a suffix of `s` that starts at a label
//! boundary:
//!
//! * a leading-dot `f` covers `s` iff `s[i..] == f` for some `i` where `s[i] == '.'`
//!   (the suffix `s` ends with must begin with `f`'s dot);
//! * any other `f` covers `s` iff `s == f` or `s[i + 1..] == f` for some `i` where
//!   `s[i] == '.'`. (For a leading-dot `f`, `s` ending with `"." + f` implies the
//!   first case, so it adds nothing.)
//!
//! So the index keeps two hash sets and probes each dot of the name once. A `*` is
//! an ordinary character, and a wildcard name `*.example.com` is covered by
//! `example.com` and `.example.com` through the same suffix rule.

use std::collections::HashSet;

/// Normalised filters, split by whether they start with a dot.
#[derive(Debug, Clone, Default)]
pub(crate) struct SuffixIndex {
    /// Filters without a leading dot: the name itself and every subdomain.
    whole: LengthKeyedSet,
    /// Filters with a leading dot (stored with it): proper subdomains only.
    dotted: LengthKeyedSet,
    /// Number of distinct filters.
    len: usize,
}

impl SuffixIndex {
    /// Builds the index from already prepared (normalised, non-empty) filters.
    pub(crate) fn new<I, S>(filters: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut index = Self::default();
        for filter in filters {
            let filter: String = filter.into();
            let inserted = if filter.starts_with('.') {
                index.dotted.insert(filter)
            } else {
                index.whole.insert(filter)
            };
            index.len += usize::from(inserted);
        }
        index
    }

    /// True when the index holds no filter.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every filter, in no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        let whole = self.whole.members.iter();
        whole.chain(self.dotted.members.iter()).map(|m| &**m)
    }

    /// The most specific filter that covers the normalised `name`, if any.
    pub(crate) fn find<'a>(&'a self, name: &str) -> Option<&'a str> {
        if let Some(hit) = self.whole.get(name) {
            return Some(hit);
        }
        // A byte scan: names are short, and a `char` searcher costs more to set up than to run.
        let dots = name.bytes().enumerate().filter(|(_, b)| *b == b'.');
        for (dot, _) in dots {
            if let Some(hit) = self.dotted.get(&name[dot..]) {
                return Some(hit);
            }
            if let Some(hit) = self.whole.get(&name[dot + 1..]) {
                return Some(hit);
            }
        }
        None
    }

    /// True when some filter covers the normalised `name`.
    pub(crate) fn covers(&self, name: &str) -> bool {
        self.find(name).is_some()
    }
}

/// A string set that skips hashing when no member has the probe's length.
#[derive(Debug, Clone, Default)]
struct LengthKeyedSet {
    /// foldhash rather than std's SipHash: probing costs a few hashes per name, on every
    /// request, and only the rules (not requests) insert, so SipHash's resistance to crafted
    /// keys buys nothing here.
    members: HashSet<Box<str>, foldhash::fast::RandomState>,
    /// `lengths[n]` is true when some member is `n` bytes long.
    lengths: Vec<bool>,
}

impl LengthKeyedSet {
    /// Adds `member`; false when it was already present.
    fn insert(&mut self, member: String) -> bool {
        let len = member.len();
        if self.lengths.len() <= len {
            self.lengths.resize(len + 1, false);
        }
        self.lengths[len] = true;
        self.members.insert(member.into_boxed_str())
    }

    /// The stored member equal to `probe`.
    fn get(&self, probe: &str) -> Option<&str> {
        if !self.lengths.get(probe.len()).copied().unwrap_or(false) {
            return None;
        }
        self.members.get(probe).map(|m| &**m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (filters, name, covered)
    const CASES: &[(&[&str], &str, bool)] = &[
        (&["example.org"], "example.org", true),
        (&["example.org"], "x.example.org", true),
        (&["example.org"], "anexample.org", false),
        (&["example.org"], ".example.org", true),
        (&[".example.org"], "example.org", false),
        (&[".example.org"], "x.example.org", true),
        (&[".example.org"], ".example.org", true),
        (&["example.com"], "*.example.com", true),
        (&[".example.com"], "*.example.com", true),
        (&["*.example.com"], "a.example.com", false),
        (&["*.example.com"], "*.example.com", true),
        (&["."], "a.", true),
        (&["."], "a", false),
        (&["a..b"], "x.a..b", true),
        (&[], "example.org", false),
    ];

    #[test]
    fn filters_cover_names_at_label_boundaries_only() {
        for (filters, name, covered) in CASES {
            let index = SuffixIndex::new(filters.iter().copied());
            assert_eq!(
                index.covers(name),
                *covered,
                "filters {filters:?} name {name:?}"
            );
        }
    }

    #[test]
    fn the_most_specific_filter_is_reported() {
        let index = SuffixIndex::new(["example.org", "team.example.org"]);
        assert_eq!(index.find("a.team.example.org"), Some("team.example.org"));
    }
}
