//! A set of values already seen that scans while it is small and hashes once it is large: the
//! few names of a usual object cost no hashing, and the tens of thousands a hostile object may
//! carry (within the API server's size limit) keep the work linear in their number.

use std::collections::HashSet;
use std::hash::Hash;

/// Values held before the set hashes them (also where `source::Extracted` starts indexing its
/// candidates, which it scans in place while they are few).
pub(crate) const SCAN: usize = 32;

/// The set; [`Seen::insert`] says whether a value is new.
#[derive(Debug)]
pub struct Seen<K> {
    few: Vec<K>,
    many: Option<HashSet<K>>,
}

impl<K> Default for Seen<K> {
    fn default() -> Self {
        Self {
            few: Vec::new(),
            many: None,
        }
    }
}

impl<K: Eq + Hash> Seen<K> {
    /// Whether `value` has been inserted.
    pub fn contains(&self, value: &K) -> bool {
        match &self.many {
            Some(many) => many.contains(value),
            None => self.few.contains(value),
        }
    }

    /// Adds `value`; false when it was there already.
    pub fn insert(&mut self, value: K) -> bool {
        if let Some(many) = &mut self.many {
            return many.insert(value);
        }
        if self.few.contains(&value) {
            return false;
        }
        self.few.push(value);
        if self.few.len() > SCAN {
            self.many = Some(self.few.drain(..).collect());
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_new_once_whether_the_set_is_small_or_large() {
        let mut seen = Seen::default();
        for n in 0..200 {
            assert!(seen.insert(n), "{n} is new");
            assert!(!seen.insert(n), "{n} is not new again");
            assert!(seen.contains(&n));
            assert!(!seen.contains(&(n + 1)));
        }
        for n in 0..200 {
            assert!(!seen.insert(n), "{n} was kept when the set grew");
        }
    }
}
