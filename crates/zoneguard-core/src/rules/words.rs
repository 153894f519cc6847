//! The YAML parser's messages in the words of a rules document: serde names the Rust types a
//! value should have been (`expected struct NamespaceDoc`, `unit value`), which mean nothing to
//! the platform team that wrote the rules.

/// What each struct of `document.rs` is, as a rules document writes it.
pub(super) const SHAPES: [(&str, &str); 7] = [
    (
        "RulesDoc",
        "a mapping of rule keys (annotationPrefix, domainFilters, excludeDomains, regexDomainFilter, regexDomainExclusion, sources, registry, namespaces, inject, irsa, enforcement, exemptNamespaces)",
    ),
    (
        "SourcesDoc",
        "a mapping with ignoreHostnameAnnotation/ignoreIngressTLSSpec/ignoreIngressRulesSpec/publishInternalServices/ingressClassNames/serviceTypeFilter/labelFilter/annotationFilter/gatewayLabelFilter/namespace/gatewayNamespace/gatewayName/compatibility/fqdnTemplate/combineFqdnAnnotation",
    ),
    (
        "RegistryDoc",
        "a mapping with txtPrefix/txtSuffix/txtWildcardReplacement",
    ),
    (
        "NamespaceDoc",
        "a mapping with domainFilters/excludeDomains/regexDomainFilter/regexDomainExclusion",
    ),
    (
        "InjectDoc",
        "a mapping with kinds/serviceTypes/namespaces/annotations",
    ),
    (
        "IrsaDoc",
        "a mapping with issuer/audience/accounts/unknownRole/trustPolicies/source/accountReaders/chains/checkProvider/cacheTTL/negativeCacheTTL/callTimeout",
    ),
    ("ChainDoc", "a mapping with serviceAccount and assumes"),
];

/// The keys that hold an enum of `document.rs`, its name, and the words it is written in.
/// A mapping, a list or a YAML tag there makes serde say `expected a YAML tag starting with
/// '!'` or `expected unit`, naming nothing a user wrote.
pub(super) const CHOICES: [(&str, &str, &str); 3] = [
    (
        "enforcement",
        "Enforcement",
        "one of `deny`, `warn`, `audit`",
    ),
    (
        "irsa.unknownRole",
        "UnknownRole",
        "one of `deny`, `warn`, `allow`",
    ),
    ("irsa.source", "IrsaSource", "one of `static`, `iam`"),
];

/// What serde says a value was, and what a rules document calls it.
const FOUND: [(&str, &str); 5] = [
    ("unit value", "null (no value)"),
    ("map", "a mapping"),
    ("sequence", "a sequence"),
    ("enum", "a value with a YAML tag (!…)"),
    ("floating point", "number"),
];

/// `message` (serde's, about the value at `key`) with every Rust type name replaced.
pub(super) fn in_user_words(message: &str, key: &str) -> String {
    let mismatch = ["invalid type: ", "invalid value: "]
        .into_iter()
        .find_map(|lead| Some((lead, message.strip_prefix(lead)?.split_once(", expected ")?)));
    let Some((lead, (found, expected))) = mismatch else {
        return type_names_replaced(message);
    };
    let found = FOUND
        .iter()
        .find_map(|(serde, ours)| {
            let rest = found.strip_prefix(serde)?;
            (rest.is_empty() || rest.starts_with(' ')).then(|| format!("{ours}{rest}"))
        })
        .unwrap_or_else(|| found.to_string());
    let expected = match CHOICES.iter().find(|(k, _, _)| *k == key) {
        Some((_, _, words)) => (*words).to_string(),
        None => expectation(expected),
    };
    format!("{lead}{found}, expected {expected}")
}

/// serde's expectation in a rules document's words.
fn expectation(expected: &str) -> String {
    if let Some(name) = expected.strip_prefix("struct ") {
        if let Some((_, words)) = SHAPES.iter().find(|(n, _)| *n == name) {
            return (*words).to_string();
        }
    }
    match expected {
        "a map" => "a mapping".to_string(),
        "unit" | "null" => "no value".to_string(),
        "a YAML tag starting with '!'" => "a plain value".to_string(),
        other => type_names_replaced(other),
    }
}

/// Any other `struct Name` or `enum Name` (a type added later and missing above) as what it
/// stands for, never the Rust name.
fn type_names_replaced(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = ["struct ", "enum "]
            .into_iter()
            .filter_map(|lead| Some((rest.find(lead)?, lead)))
            .min();
        let Some((at, lead)) = next else { break };
        let after = &rest[at + lead.len()..];
        let name_len = after
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(after.len());
        let is_type = after.starts_with(|c: char| c.is_ascii_uppercase());
        out.push_str(&rest[..at]);
        if is_type {
            out.push_str(if lead == "struct " {
                "a mapping"
            } else {
                "one of the values this key takes"
            });
            rest = &after[name_len..];
        } else {
            out.push_str(lead);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_of_types_not_listed_become_what_they_stand_for() {
        let table = [
            ("expected struct NewDoc", "expected a mapping"),
            (
                "expected enum Mode or struct X",
                "expected one of the values this key takes or a mapping",
            ),
            ("a struct named lower", "a struct named lower"),
            ("nothing to replace", "nothing to replace"),
        ];
        for (text, want) in table {
            assert_eq!(type_names_replaced(text), want, "{text}");
        }
    }
}
