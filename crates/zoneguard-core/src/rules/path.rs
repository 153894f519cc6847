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

    /// The path `shown` names, written as [`KeyPath`]'s `Display` writes one and as
    /// violations name their fields (`spec.rules[0].host`,
    /// `metadata.annotations["external-dns.alpha.kubernetes.io/hostname"][1]`); where the text
    /// stops being such a path (the fqdn template's pseudo-field), the path as far as it went.
    pub fn parse_shown(shown: &str) -> Self {
        let mut path = Self::root();
        let mut rest = shown;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix("[\"") {
                let Some(end) = after.find("\"]") else { break };
                path.0.push(Seg::Key(after[..end].to_string()));
                rest = &after[end + 2..];
            } else if let Some(after) = rest.strip_prefix('[') {
                let Some((index, tail)) = after.split_once(']') else {
                    break;
                };
                let Ok(index) = index.parse() else { break };
                path.0.push(Seg::Index(index));
                rest = tail;
            } else {
                let keyed = rest.strip_prefix('.').unwrap_or(rest);
                let end = keyed.find(['.', '[']).unwrap_or(keyed.len());
                if !is_plain(&keyed[..end]) {
                    break;
                }
                path.0.push(Seg::Key(keyed[..end].to_string()));
                rest = &keyed[end..];
            }
        }
        path
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

    #[test]
    fn a_path_shown_reads_back_as_itself_as_far_as_it_is_one() {
        let root = KeyPath::root();
        let whole = [
            root.key("spec").key("rules").index(0).key("host"),
            root.key("spec").key("tls").index(1).key("hosts").index(2),
            root.key("metadata")
                .key("annotations")
                .key("external-dns.alpha.kubernetes.io/hostname")
                .index(1),
            root.key("irsa")
                .key("trust-policies")
                .key("arn:aws:iam::1:role/x"),
        ];
        for path in whole {
            assert_eq!(KeyPath::parse_shown(&path.to_string()), path);
        }
        let partial = [
            ("spec.hostnames[x]", root.key("spec").key("hostnames")),
            ("(sources.fqdnTemplate)", root.clone()),
            ("", root.clone()),
        ];
        for (shown, want) in partial {
            assert_eq!(KeyPath::parse_shown(shown), want, "{shown}");
        }
    }
}
