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

    /// The path `Display` wrote as `text` (`a.b[0]["k"]`), as far as it reads: up to a part
    /// that is not a key or index; empty when a plain key holds a space (a sentence, not a
    /// path).
    pub fn parse_shown(text: &str) -> Self {
        let mut rest = text;
        let mut steps = Vec::new();
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('.') {
                rest = after;
            } else if let Some(after) = rest.strip_prefix("[\"") {
                let Some(end) = after.find("\"]") else {
                    break;
                };
                steps.push(Seg::Key(after[..end].to_string()));
                rest = &after[end + 2..];
            } else if let Some(after) = rest.strip_prefix('[') {
                let Some((index, after)) = after.split_once(']') else {
                    break;
                };
                let Ok(index) = index.parse() else { break };
                steps.push(Seg::Index(index));
                rest = after;
            } else {
                let end = rest.find(['.', '[']).unwrap_or(rest.len());
                if rest[..end].contains(' ') {
                    return Self::root();
                }
                steps.push(Seg::Key(rest[..end].to_string()));
                rest = &rest[end..];
            }
        }
        Self(steps)
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
    fn a_shown_path_reads_back_as_far_as_it_is_one() {
        let policy = KeyPath::root()
            .key("Statement")
            .index(0)
            .key("Condition")
            .key("StringEquals")
            .key("oidc.example/id/A:sub");
        let table = [
            (policy.to_string(), policy.clone()),
            (
                "irsa.issuer".to_string(),
                KeyPath::parse_dotted("irsa.issuer"),
            ),
            (
                "Statement[0].Condition[x".to_string(),
                KeyPath::root().key("Statement").index(0).key("Condition"),
            ),
            ("the policy is empty".to_string(), KeyPath::root()),
            (String::new(), KeyPath::root()),
        ];
        for (text, want) in table {
            assert_eq!(KeyPath::parse_shown(&text), want, "{text}");
        }
    }

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
