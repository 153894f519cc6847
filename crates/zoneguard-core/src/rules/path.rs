//! Key paths inside a rules document (`irsa.trustPolicies["arn:…"]`, `inject[0].kinds`).

use crate::trust::Step;
use std::fmt;

/// One step of a key path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// A path from the document root to a key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyPath(pub Vec<Seg>);

impl KeyPath {
    pub fn root() -> Self {
        Self(Vec::new())
    }

    pub fn key(&self, key: &str) -> Self {
        let mut segs = self.0.clone();
        segs.push(Seg::Key(key.to_string()));
        Self(segs)
    }

    pub fn index(&self, index: usize) -> Self {
        let mut segs = self.0.clone();
        segs.push(Seg::Index(index));
        Self(segs)
    }

    /// Builds a path from dotted plain keys (`"irsa.issuer"`).
    pub fn parse_dotted(text: &str) -> Self {
        Self(
            text.split('.')
                .filter(|s| !s.is_empty())
                .map(|s| Seg::Key(s.to_string()))
                .collect(),
        )
    }
}

/// A step into a trust policy as a step below the policy's key, so that an error inside a
/// policy written as a mapping is on the line of the key at fault.
impl From<&Step> for Seg {
    fn from(step: &Step) -> Self {
        match step {
            Step::Key(key) | Step::Unknown(key) | Step::ConditionKey(key) => Seg::Key(key.clone()),
            Step::Index(i) => Seg::Index(*i),
        }
    }
}

fn is_plain(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Key(k) if is_plain(k) && i == 0 => write!(f, "{k}")?,
                Seg::Key(k) if is_plain(k) => write!(f, ".{k}")?,
                Seg::Key(k) => write!(f, "[{k:?}]")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        if self.0.is_empty() {
            f.write_str("(document)")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_print_like_the_fields_a_user_wrote() {
        let p = KeyPath::root()
            .key("irsa")
            .key("trustPolicies")
            .key("arn:aws:iam::1:role/x");
        assert_eq!(
            p.to_string(),
            r#"irsa.trustPolicies["arn:aws:iam::1:role/x"]"#
        );
        assert_eq!(
            KeyPath::root()
                .key("inject")
                .index(2)
                .key("kinds")
                .to_string(),
            "inject[2].kinds"
        );
        assert_eq!(KeyPath::root().to_string(), "(document)");
    }
}
