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
    ("enforcement", "Enforcement", "one of deny, warn, audit"),
    (
        "irsa.unknownRole",
        "UnknownRole",
        "one of deny, warn, allow",
    ),
    ("irsa.source", "IrsaSource", "one of static, iam"),
];

/// What serde says a value was, and what a rules document calls it.
const FOUND: [(&str, &str); 7] = [
    ("unit value", "null (no value)"),
    ("map", "a mapping"),
    ("sequence", "a list"),
    ("enum", "a value with a YAML tag (!…)"),
    ("string", "the string"),
    ("integer", "the number"),
    ("floating point", "the number"),
];

/// `message` (serde's, about the value at `key`) in the words of a rules document: an unknown
/// key or value says which known one is nearest and lists them, and a value of the wrong
/// type says what to write, with no Rust type name.
pub(super) fn in_user_words(message: &str, key: &str) -> String {
    if let Some(words) = unknown_key(message).or_else(|| unknown_value(message, key)) {
        return words;
    }
    let mismatch = ["invalid type: ", "invalid value: "]
        .into_iter()
        .find_map(|lead| message.strip_prefix(lead)?.split_once(", expected "));
    let Some((found, expected)) = mismatch else {
        return type_names_replaced(message);
    };
    let expected = match CHOICES.iter().find(|(k, _, _)| *k == key) {
        Some((_, _, words)) => (*words).to_string(),
        None => expectation(expected),
    };
    let example = match scalar(found) {
        Some(value) if expected == "a list" => list_example(key, value),
        _ => String::new(),
    };
    format!("must be {expected}, not {}{example}", found_words(found))
}

/// serde's "unknown field `x`, expected one of `a`, `b`" as "unknown key `x`; did you mean
/// `a`? (the keys here are a, b)" or "…; write one of a, b, or remove it".
fn unknown_key(message: &str) -> Option<String> {
    let (field, rest) = unknown_field(message)?;
    let known = listed(rest);
    let list = known.join(", ");
    Some(
        match crate::suggest::closest(field, known.iter().copied()) {
            Some(near) => {
                format!("unknown key `{field}`; did you mean `{near}`? (the keys here are {list})")
            }
            None if known.is_empty() => {
                format!("unknown key `{field}`; this mapping takes no keys: remove it")
            }
            None => format!("unknown key `{field}`; write one of {list}, or remove it"),
        },
    )
}

/// `foo` from serde's "unknown field `foo`, expected …", and what follows it.
pub(super) fn unknown_field(message: &str) -> Option<(&str, &str)> {
    message.strip_prefix("unknown field `")?.split_once('`')
}

/// serde's "unknown variant `x`, expected one of `a`, `b`" as "\"x\" is not a valid <key>;
/// write one of a, b" (with the nearest first asked after, when one is near).
fn unknown_value(message: &str, key: &str) -> Option<String> {
    let (value, rest) = message.strip_prefix("unknown variant `")?.split_once('`')?;
    let known = listed(rest);
    let name = key.rsplit('.').next().unwrap_or(key);
    let near = crate::suggest::closest(value, known.iter().copied())
        .map_or_else(String::new, |near| format!(" (did you mean {near}?)"));
    Some(format!(
        "{value:?} is not a valid {name}; write one of {}{near}",
        known.join(", ")
    ))
}

/// The items serde lists in backquotes after "expected" (`one of `a`, `b``, `` `a` or `b` ``).
fn listed(rest: &str) -> Vec<&str> {
    rest.split('`').skip(1).step_by(2).collect()
}

/// What serde says was found (`string "x"`, `integer `5``, `sequence`), as YAML calls it.
fn found_words(found: &str) -> String {
    let words = FOUND.iter().find_map(|(serde, ours)| {
        let rest = found.strip_prefix(serde)?;
        (rest.is_empty() || rest.starts_with(' ')).then(|| format!("{ours}{}", unquoted(rest)))
    });
    match words {
        Some(words) => words,
        None => match found.strip_prefix("boolean ") {
            Some(value) => format!("the boolean {}", value.trim_matches('`')),
            None => found.to_string(),
        },
    }
}

/// serde's `` `5` `` around a number or boolean, dropped (a string keeps its quotes).
fn unquoted(rest: &str) -> String {
    let trimmed = rest.trim_start();
    match trimmed.strip_prefix('`').and_then(|t| t.strip_suffix('`')) {
        Some(inner) => format!(" {inner}"),
        None => rest.to_string(),
    }
}

/// The scalar serde found, as text (`example.com`, `5`), if it found one.
fn scalar(found: &str) -> Option<String> {
    if let Some(quoted) = found.strip_prefix("string ") {
        return serde_json::from_str::<String>(quoted)
            .ok()
            .or_else(|| Some(quoted.trim_matches('"').to_string()));
    }
    ["integer ", "floating point ", "boolean "]
        .into_iter()
        .find_map(|lead| found.strip_prefix(lead))
        .map(|v| v.trim_matches('`').to_string())
}

/// "; write domainFilters: [example.com]": the scalar a list key was given, as a list. Only
/// for a plain key, and with the value quoted unless it is plain.
fn list_example(key: &str, value: String) -> String {
    let name = key.rsplit('.').next().unwrap_or(key);
    if !name.chars().all(|c| c.is_ascii_alphanumeric()) || name.is_empty() {
        return String::new();
    }
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '/'));
    let item = if plain { value } else { format!("{value:?}") };
    format!("; write {name}: [{item}]")
}

/// serde's expectation in a rules document's words.
fn expectation(expected: &str) -> String {
    if let Some(name) = expected.strip_prefix("struct ") {
        if let Some((_, words)) = SHAPES.iter().find(|(n, _)| *n == name) {
            return (*words).to_string();
        }
    }
    match expected {
        "a sequence" => "a list".to_string(),
        "a map" => "a mapping (key: value)".to_string(),
        "a boolean" => "true or false".to_string(),
        "a string" | "a borrowed string" => "a string".to_string(),
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" => {
            "a whole number".to_string()
        }
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
