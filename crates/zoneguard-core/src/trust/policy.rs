//! The trust-policy document model, and its parser, whose pieces `permission` shares. Errors
//! name what is wrong and where, e.g.
//! `Statement[1].Condition.StringEquals: expected an object, got a string`.

use super::condition::{self, Condition, Operator, Test, Value};
use super::error::{key, then, Steps};
use super::request::PrincipalKind;
use super::{PolicyError, Step};
use percent_encoding::percent_decode_str;
use serde_json::{Map, Value as Json};

/// The policy language version; policy variables exist only in 2012-10-17.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// Also the version of a policy without `Version`.
    V2008_10_17,
    V2012_10_17,
}

/// A parsed trust policy document.
#[derive(Debug, Clone, PartialEq)]
pub struct TrustPolicy {
    pub(crate) version: Version,
    pub(crate) statements: Vec<Statement>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    Allow,
    Deny,
}

/// Principals named by `Principal` or `NotPrincipal`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Principals {
    /// `"*"` (everyone).
    pub everyone: bool,
    pub members: Vec<(PrincipalKind, String)>,
}

impl Principals {
    pub fn of(&self, kind: PrincipalKind) -> impl Iterator<Item = &str> {
        self.members
            .iter()
            .filter(move |(k, _)| *k == kind)
            .map(|(_, id)| id.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrincipalElement {
    Principal(Principals),
    NotPrincipal(Principals),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionElement {
    Action(Vec<String>),
    NotAction(Vec<String>),
}

/// Two statements are the same when they say the same, wherever each sits: `label` is left out,
/// so `Statement: {…}` and `Statement: [{…}]` hold the same statement.
#[derive(Debug, Clone, Eq)]
pub struct Statement {
    /// Where it sits: `Statement[1]`, or `Statement` when the policy has a single object.
    pub label: String,
    pub sid: Option<String>,
    pub effect: Effect,
    pub principal: PrincipalElement,
    pub action: ActionElement,
    /// AND-ed.
    pub conditions: Vec<Condition>,
}

impl PartialEq for Statement {
    fn eq(&self, other: &Self) -> bool {
        let Self {
            label: _,
            sid,
            effect,
            principal,
            action,
            conditions,
        } = self;
        (sid, effect, principal, action, conditions)
            == (
                &other.sid,
                &other.effect,
                &other.principal,
                &other.action,
                &other.conditions,
            )
    }
}

impl Statement {
    /// `Statement[1]`, with its Sid when it has one: ``Statement[1] (Sid `Dns`)``.
    pub fn describe(&self) -> String {
        statement_name(&self.label, self.sid.as_deref())
    }
}

/// A statement's label, with its Sid when it has a non-empty one.
pub(super) fn statement_name(label: &str, sid: Option<&str>) -> String {
    match sid {
        Some(sid) if !sid.is_empty() => format!("{label} (Sid `{sid}`)"),
        _ => label.to_owned(),
    }
}

const TRUST: &str = "trust policy";

impl TrustPolicy {
    /// From a JSON value: the rules' `trustPolicies` entry as an object, or the JSON text
    /// as a string.
    pub fn from_value(value: &Json) -> Result<Self, PolicyError> {
        from_json(value, TRUST, Some(Self::from_document), parse_policy)
    }

    /// From document text; percent-decoded first when it does not start with `{` (IAM
    /// returns `AssumeRolePolicyDocument` percent-encoded). `+` stays `+`.
    pub fn from_document(text: &str) -> Result<Self, PolicyError> {
        let value = parse_document(text, TRUST)?;
        from_json(&value, TRUST, None, parse_policy)
    }

    pub fn version(&self) -> Version {
        self.version
    }

    pub fn statements(&self) -> &[Statement] {
        &self.statements
    }
}

/// What the parsers return.
type Parsed<T> = Result<T, PolicyError>;

/// A policy from JSON: an object, or (given `text`) a string of document text. `noun`
/// names the kind of policy when the value is neither.
pub(super) fn from_json<P>(
    value: &Json,
    noun: &str,
    text: Option<fn(&str) -> Parsed<P>>,
    object: fn(&Map<String, Json>) -> Parsed<P>,
) -> Parsed<P> {
    match (value, text) {
        (Json::String(s), Some(text)) => text(s),
        (Json::Object(map), _) => object(map),
        (other, _) => Err(PolicyError::whole(format!(
            "a {noun} must be a JSON object, got {}",
            describe(other)
        ))),
    }
}

/// Document text as JSON, percent-decoded first when it does not start with `{` (IAM
/// returns policy documents percent-encoded; `+` stays `+`). Errors name the kind of
/// policy, `noun`, and say when the text was percent-decoded.
pub(super) fn parse_document(text: &str, noun: &str) -> Parsed<Json> {
    let what = if is_percent_encoded(text) {
        "percent-decoded "
    } else {
        ""
    };
    let text = document_text(text).ok_or_else(|| {
        PolicyError::whole(format!("the percent-decoded {noun} is not valid UTF-8"))
    })?;
    serde_json::from_str(&text)
        .map_err(|e| PolicyError::whole(format!("the {what}{noun} is not valid JSON: {e}")))
}

/// Whether policy document text is percent-encoded, as IAM returns it: it does not start with
/// `{`.
fn is_percent_encoded(text: &str) -> bool {
    !text.trim_start().starts_with('{')
}

/// Policy document text as JSON text: percent-decoded when [`is_percent_encoded`] (`+` stays
/// `+`); `None` when the decoded bytes are not UTF-8.
pub(crate) fn document_text(text: &str) -> Option<std::borrow::Cow<'_, str>> {
    if is_percent_encoded(text) {
        percent_decode_str(text).decode_utf8().ok()
    } else {
        Some(text.into())
    }
}

fn err(at: &[Step], problem: impl Into<String>) -> PolicyError {
    PolicyError::new(at, problem)
}

fn describe(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}

fn unknown_key(at: &[Step], name: &str, known: &[&str]) -> PolicyError {
    let hint = crate::suggest::closest(name, known.iter().copied())
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_else(|| format!(" (expected one of {})", known.join(", ")));
    err(
        &then(at, Step::Unknown(name.to_owned())),
        format!("unknown key{hint}"),
    )
}

const POLICY_KEYS: [&str; 3] = ["Version", "Id", "Statement"];

fn parse_policy(map: &Map<String, Json>) -> Result<TrustPolicy, PolicyError> {
    let version = policy_version(map)?;
    let missing = "missing (a trust policy needs at least one statement)";
    let statements = parse_statements(map, version, missing, parse_statement)?;
    Ok(TrustPolicy {
        version,
        statements,
    })
}

/// Checks a policy's keys and its `Id`, and parses its `Version`.
pub(super) fn policy_version(map: &Map<String, Json>) -> Result<Version, PolicyError> {
    if let Some(key) = map.keys().find(|k| !POLICY_KEYS.contains(&k.as_str())) {
        return Err(unknown_key(&[], key, &POLICY_KEYS));
    }
    if let Some(id) = map.get("Id").filter(|id| !id.is_string()) {
        return Err(err(
            &key(&[], "Id"),
            format!("expected a string, got {}", describe(id)),
        ));
    }
    match map.get("Version") {
        None => Ok(Version::V2008_10_17),
        Some(Json::String(v)) if v == "2012-10-17" => Ok(Version::V2012_10_17),
        Some(Json::String(v)) if v == "2008-10-17" => Ok(Version::V2008_10_17),
        Some(other) => Err(err(
            &key(&[], "Version"),
            format!("expected \"2012-10-17\" or \"2008-10-17\", got {other}"),
        )),
    }
}

/// A statement's parser: its object, where it is, and the policy's version.
type ParseStatement<S> = fn(&Map<String, Json>, &[Step], Version) -> Parsed<S>;

/// The `Statement` element: one object, at `Statement`, or a list of them, at
/// `Statement[0]`, `Statement[1]`, …, each parsed by `parse`. `missing` is the complaint
/// when there is no `Statement`.
pub(super) fn parse_statements<S>(
    map: &Map<String, Json>,
    version: Version,
    missing: &str,
    parse: ParseStatement<S>,
) -> Parsed<Vec<S>> {
    let at = key(&[], "Statement");
    let list = match map.get("Statement") {
        None => return Err(err(&at, missing)),
        Some(Json::Object(one)) => return Ok(vec![parse(one, &at, version)?]),
        Some(Json::Array(list)) => list,
        Some(other) => {
            return Err(err(
                &at,
                format!(
                    "expected an object or a list of objects, got {}",
                    describe(other)
                ),
            ))
        }
    };
    list.iter()
        .enumerate()
        .map(|(i, item)| {
            let at = then(&at, Step::Index(i));
            match item {
                Json::Object(map) => parse(map, &at, version),
                other => Err(err(
                    &at,
                    format!("expected an object, got {}", describe(other)),
                )),
            }
        })
        .collect()
}

const STATEMENT_KEYS: [&str; 7] = [
    "Sid",
    "Effect",
    "Principal",
    "NotPrincipal",
    "Action",
    "NotAction",
    "Condition",
];

fn parse_statement(
    map: &Map<String, Json>,
    at: &[Step],
    version: Version,
) -> Result<Statement, PolicyError> {
    let foreign = ["Resource", "NotResource"];
    let why = "not allowed in a trust policy (the role itself is the resource)";
    let (sid, effect) = statement_head(map, at, &STATEMENT_KEYS, foreign, why)?;
    let principal = ["Principal", "NotPrincipal"];
    let missing = "missing Principal (a trust policy statement names who may assume the role)";
    let wrap = [PrincipalElement::Principal, PrincipalElement::NotPrincipal];
    Ok(Statement {
        sid,
        effect,
        principal: parse_element(map, at, principal, missing, parse_principals, wrap)?,
        action: parse_action_element(map, at)?,
        conditions: parse_conditions(map.get("Condition"), at, version)?,
        label: Steps(at).to_string(),
    })
}

/// Checks a statement's keys, refusing the `foreign` ones (of the other kind of policy)
/// because `why`, and parses its `Sid` and `Effect`.
pub(super) fn statement_head(
    map: &Map<String, Json>,
    at: &[Step],
    keys: &[&str],
    foreign: [&str; 2],
    why: &str,
) -> Parsed<(Option<String>, Effect)> {
    if let Some(name) = map.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(if foreign.contains(&name.as_str()) {
            err(&key(at, name), why)
        } else {
            unknown_key(at, name, keys)
        });
    }
    let sid = match map.get("Sid") {
        None => None,
        Some(Json::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(err(
                &key(at, "Sid"),
                format!("expected a string, got {}", describe(other)),
            ))
        }
    };
    Ok((sid, parse_effect(map.get("Effect"), at)?))
}

fn parse_effect(value: Option<&Json>, at: &[Step]) -> Result<Effect, PolicyError> {
    let path = key(at, "Effect");
    match value {
        Some(Json::String(e)) if e == "Allow" => Ok(Effect::Allow),
        Some(Json::String(e)) if e == "Deny" => Ok(Effect::Deny),
        None => Err(err(&path, "missing (expected \"Allow\" or \"Deny\")")),
        Some(other) => Err(err(
            &path,
            format!("expected \"Allow\" or \"Deny\", got {other}"),
        )),
    }
}

/// A statement's `name` or `not` element (`Action` or `NotAction`, …): exactly one of them,
/// parsed by `parse` and wrapped by the matching one of `wrap`. `missing` is the complaint
/// when there is neither.
pub(super) fn parse_element<T, E>(
    map: &Map<String, Json>,
    at: &[Step],
    [name, not]: [&str; 2],
    missing: &str,
    parse: fn(&Json, &[Step]) -> Parsed<T>,
    wrap: [fn(T) -> E; 2],
) -> Parsed<E> {
    match (map.get(name), map.get(not)) {
        (Some(v), None) => Ok(wrap[0](parse(v, &key(at, name))?)),
        (None, Some(v)) => Ok(wrap[1](parse(v, &key(at, not))?)),
        (Some(_), Some(_)) => Err(err(at, format!("has both {name} and {not}"))),
        (None, None) => Err(err(at, missing)),
    }
}

fn parse_principals(value: &Json, path: &[Step]) -> Result<Principals, PolicyError> {
    let map = match value {
        Json::String(s) if s == "*" => {
            return Ok(Principals {
                everyone: true,
                members: Vec::new(),
            })
        }
        Json::Object(map) => map,
        other => {
            return Err(err(
                path,
                format!(
                    "expected \"*\" or an object such as {{\"Federated\": …}}, got {}",
                    describe_short(other)
                ),
            ))
        }
    };
    let mut principals = Principals::default();
    for (name, ids) in map {
        let Some(kind) = PrincipalKind::from_policy_key(name) else {
            return Err(unknown_key(
                path,
                name,
                &["AWS", "Federated", "Service", "CanonicalUser"],
            ));
        };
        for id in strings(ids, &key(path, name))? {
            principals.members.push((kind, id));
        }
    }
    if principals.members.is_empty() {
        return Err(err(path, "names no principal"));
    }
    Ok(principals)
}

fn describe_short(value: &Json) -> String {
    match value {
        Json::String(s) => format!("{s:?}"),
        other => describe(other).to_owned(),
    }
}

/// A string or a non-empty list of strings.
pub(super) fn strings(value: &Json, path: &[Step]) -> Result<Vec<String>, PolicyError> {
    match value {
        Json::String(s) => Ok(vec![s.clone()]),
        Json::Array(items) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Json::String(s) => Ok(s.clone()),
                other => Err(err(
                    &then(path, Step::Index(i)),
                    format!("expected a string, got {}", describe(other)),
                )),
            })
            .collect(),
        Json::Array(_) => Err(err(
            path,
            "expected a string or a list of strings, got an empty list",
        )),
        other => Err(err(
            path,
            format!(
                "expected a string or a list of strings, got {}",
                describe(other)
            ),
        )),
    }
}

pub(super) fn parse_action_element(
    map: &Map<String, Json>,
    at: &[Step],
) -> Result<ActionElement, PolicyError> {
    let missing = "missing Action (e.g. \"sts:AssumeRoleWithWebIdentity\")";
    let wrap = [ActionElement::Action, ActionElement::NotAction];
    parse_element(map, at, ["Action", "NotAction"], missing, strings, wrap)
}

pub(super) fn parse_conditions(
    value: Option<&Json>,
    at: &[Step],
    version: Version,
) -> Result<Vec<Condition>, PolicyError> {
    let path = key(at, "Condition");
    let map = match value {
        None => return Ok(Vec::new()),
        Some(Json::Object(map)) => map,
        Some(other) => {
            return Err(err(
                &path,
                format!("expected an object, got {}", describe(other)),
            ))
        }
    };
    let mut conditions = Vec::new();
    for (name, keys) in map {
        let op_path = key(&path, name);
        let operator = Operator::parse(name).map_err(|m| err(&op_path, m))?;
        let Json::Object(keys) = keys else {
            return Err(err(
                &op_path,
                format!("expected an object, got {}", describe(keys)),
            ));
        };
        if keys.is_empty() {
            return Err(err(&op_path, "names no condition key"));
        }
        for (key, values) in keys {
            let key_path = then(&op_path, Step::ConditionKey(key.clone()));
            let values = condition_values(values, &key_path, &operator, version)?;
            conditions.push(Condition {
                operator: operator.clone(),
                key: key.clone(),
                values,
            });
        }
    }
    Ok(conditions)
}

fn condition_values(
    value: &Json,
    path: &[Step],
    operator: &Operator,
    version: Version,
) -> Result<Vec<Value>, PolicyError> {
    let items: Vec<(Vec<Step>, &Json)> = match value {
        Json::Array(items) if items.is_empty() => {
            return Err(err(
                path,
                "expected a value or a list of values, got an empty list",
            ))
        }
        Json::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (then(path, Step::Index(i)), v))
            .collect(),
        single => vec![(path.to_vec(), single)],
    };
    items
        .into_iter()
        .map(|(at, item)| {
            let raw = scalar(item).ok_or_else(|| {
                err(
                    &at,
                    format!(
                        "expected a string, number or boolean, got {}",
                        describe(item)
                    ),
                )
            })?;
            let value = Value::new(raw, version);
            check_value(operator, &value).map_err(|m| err(&at, m))?;
            Ok(value)
        })
        .collect()
}

fn scalar(value: &Json) -> Option<String> {
    match value {
        Json::String(s) => Some(s.clone()),
        Json::Number(n) => Some(n.to_string()),
        Json::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Checks that a value suits its operator (numbers for Numeric…, dates for Date…).
fn check_value(operator: &Operator, value: &Value) -> Result<(), String> {
    let Some(text) = value.literal() else {
        return Ok(());
    };
    let (ok, expected) = match operator.test {
        Test::Null | Test::Bool => (
            text.eq_ignore_ascii_case("true") || text.eq_ignore_ascii_case("false"),
            "true or false",
        ),
        Test::Numeric(_) => (condition::parse_number(&text).is_some(), "a number"),
        Test::Date(_) => (
            condition::parse_date(&text).is_some(),
            "an ISO 8601 date or epoch seconds",
        ),
        Test::Ip => (
            condition::parse_range(&text).is_some(),
            "an IP address or CIDR range",
        ),
        _ => (true, ""),
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{} expects {expected}, got {text:?}",
            operator.name
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse_err(value: Json) -> String {
        TrustPolicy::from_value(&value)
            .expect_err(&value.to_string())
            .to_string()
    }

    const WEB: &str = "sts:AssumeRoleWithWebIdentity";

    #[test]
    fn malformed_documents_are_refused_naming_what_and_where() {
        let p = json!({"Federated": "arn:aws:iam::111122223333:oidc-provider/x"});
        let rows: Vec<(Json, &str)> = vec![
            (json!([]), "a trust policy must be a JSON object, got a list"),
            (json!(7), "a trust policy must be a JSON object, got a number"),
            (json!({"Version": "2012-10-17"}), "Statement: missing"),
            (json!({"Statement": "x"}), "Statement: expected an object or a list of objects, got a string"),
            (json!({"Version": "2012-10-18", "Statement": []}), "Version: expected \"2012-10-17\" or \"2008-10-17\", got \"2012-10-18\""),
            (json!({"Statment": []}), "`Statment`: unknown key (did you mean `Statement`?)"),
            (json!({"Nope": 1}), "`Nope`: unknown key (expected one of Version, Id, Statement)"),
            (json!({"statement": []}), "`statement`: unknown key (did you mean `Statement`?)"),
            (json!({"Statement": [{"Effect": "Allow", "Principal": p, "Action": WEB}, 3]}), "Statement[1]: expected an object, got a number"),
            (json!({"Statement": [{"Effect": "allow", "Principal": p, "Action": WEB}]}), "Statement[0].Effect: expected \"Allow\" or \"Deny\", got \"allow\""),
            (json!({"Statement": [{"Principal": p, "Action": WEB}]}), "Statement[0].Effect: missing"),
            (json!({"Statement": {"Effect": "Allow", "Action": WEB}}), "Statement: missing Principal"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "NotPrincipal": p, "Action": WEB}}), "Statement: has both Principal and NotPrincipal"),
            (json!({"Statement": {"Effect": "Allow", "Principal": "arn:aws:iam::1:root", "Action": WEB}}), "Statement.Principal: expected \"*\" or an object"),
            (json!({"Statement": {"Effect": "Allow", "Principal": {"Fed": "x"}, "Action": WEB}}), "Statement.Principal.Fed: unknown key"),
            (json!({"Statement": {"Effect": "Allow", "Principal": {"Federated": []}, "Action": WEB}}), "Statement.Principal.Federated: expected a string or a list of strings, got an empty list"),
            (json!({"Statement": {"Effect": "Allow", "Principal": {"Federated": ["a", 1]}, "Action": WEB}}), "Statement.Principal.Federated[1]: expected a string, got a number"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p}}), "Statement: missing Action"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB, "NotAction": WEB}}), "Statement: has both Action and NotAction"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB, "Resource": "*"}}), "Statement.Resource: not allowed in a trust policy"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB, "Condtion": {}}}), "Statement.Condtion: unknown key"),
            (json!({"Statement": [{"Effect": "Allow", "Principal": p, "Action": WEB}, {"Effect": "Allow", "Principal": p, "Action": WEB, "Condition": {"StringEquals": "x"}}]}), "Statement[1].Condition.StringEquals: expected an object, got a string"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB, "Condition": []}}), "Statement.Condition: expected an object, got a list"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB, "Condition": {"StringEqual": {"k": "v"}}}}), "Statement.Condition.StringEqual: unknown condition operator `StringEqual`; did you mean `StringEquals`?"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB, "Condition": {"StringEquals": {"k": {}}}}}), "Statement.Condition.StringEquals[\"k\"]: expected a string, number or boolean, got an object"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB, "Condition": {"StringEquals": {"k": ["a", null]}}}}), "Statement.Condition.StringEquals[\"k\"][1]: expected a string, number or boolean, got null"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB, "Condition": {"StringEquals": {"k": []}}}}), "got an empty list"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB, "Condition": {"NumericLessThan": {"k": "ten"}}}}), "Statement.Condition.NumericLessThan[\"k\"]: NumericLessThan expects a number, got \"ten\""),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB, "Condition": {"DateLessThan": {"k": "yesterday"}}}}), "DateLessThan expects an ISO 8601 date or epoch seconds"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB, "Condition": {"Null": {"k": "maybe"}}}}), "Null expects true or false"),
            (json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB, "Condition": {"IpAddress": {"aws:SourceIp": "10.0.0.0/33"}}}}), "IpAddress expects an IP address or CIDR range"),
        ];
        for (value, expected) in rows {
            let message = parse_err(value.clone());
            assert!(
                message.contains(expected),
                "{value}: {message:?} lacks {expected:?}"
            );
        }
    }

    fn steps(value: Json) -> Vec<Step> {
        TrustPolicy::from_value(&value)
            .expect_err(&value.to_string())
            .at
    }

    fn k(key: &str) -> Step {
        Step::Key(key.to_owned())
    }

    #[test]
    fn an_error_in_a_condition_carries_the_steps_to_its_operator_key_and_value() {
        let p = json!({"Federated": "x"});
        let operator = json!({"Statement": [{"Effect": "Allow", "Principal": p, "Action": WEB,
            "Condition": {"StringEqual": {"k": "v"}}}]});
        let at = [
            k("Statement"),
            Step::Index(0),
            k("Condition"),
            k("StringEqual"),
        ];
        assert_eq!(steps(operator), at);
        let value = json!({"Statement": {"Effect": "Allow", "Principal": p, "Action": WEB,
            "Condition": {"StringEquals": {"aws:SourceIp": ["a", null]}}}});
        let key = Step::ConditionKey("aws:SourceIp".to_owned());
        let at = [
            k("Statement"),
            k("Condition"),
            k("StringEquals"),
            key,
            Step::Index(1),
        ];
        assert_eq!(steps(value), at);
    }

    #[test]
    fn an_error_in_a_statement_of_a_list_carries_its_index() {
        let p = json!({"Federated": "x"});
        let second = json!({"Statement": [{"Effect": "Allow", "Principal": p, "Action": WEB}, 3]});
        assert_eq!(steps(second), [k("Statement"), Step::Index(1)]);
        let effect = json!({"Statement": [{"Effect": "allow", "Principal": p, "Action": WEB}]});
        assert_eq!(steps(effect), [k("Statement"), Step::Index(0), k("Effect")]);
    }

    #[test]
    fn an_unknown_key_is_its_last_step_and_is_shown_in_backticks_only_at_the_top() {
        let top = TrustPolicy::from_value(&json!({"Statment": []})).unwrap_err();
        assert_eq!(top.at, [Step::Unknown("Statment".to_owned())]);
        assert_eq!(top.to_string(), format!("`Statment`: {}", top.problem));
        let inner =
            json!({"Statement": {"Effect": "Allow", "Principal": {"Fed": "x"}, "Action": WEB}});
        let at = [
            k("Statement"),
            k("Principal"),
            Step::Unknown("Fed".to_owned()),
        ];
        assert_eq!(steps(inner), at);
    }

    #[test]
    fn an_error_of_the_whole_document_has_no_steps_and_shows_its_problem_alone() {
        for e in [
            TrustPolicy::from_document("{\"Statement\": ").unwrap_err(),
            TrustPolicy::from_document("%FF%FE").unwrap_err(),
            TrustPolicy::from_value(&json!([])).unwrap_err(),
        ] {
            assert!(e.at.is_empty(), "{e:?}");
            assert_eq!(e.to_string(), e.problem);
        }
    }

    #[test]
    fn statements_may_be_one_object_or_a_list() {
        let statement =
            json!({"Sid": "A", "Effect": "Allow", "Principal": "*", "Action": ["sts:*"]});
        let one = TrustPolicy::from_value(&json!({"Statement": statement})).unwrap();
        assert_eq!(one.statements()[0].label, "Statement");
        let many =
            TrustPolicy::from_value(&json!({"Id": "x", "Statement": [statement, statement]}))
                .unwrap();
        assert_eq!(many.statements()[1].describe(), "Statement[1] (Sid `A`)");
        let none = TrustPolicy::from_value(&json!({"Statement": []})).unwrap();
        assert!(none.statements().is_empty());
    }

    #[test]
    fn the_version_decides_whether_policy_variables_exist() {
        let doc = |v: Option<&str>| {
            let mut policy = json!({"Statement": {"Effect": "Allow", "Principal": "*", "Action": "*",
                "Condition": {"StringEquals": {"k": "${aws:username}"}}}});
            if let Some(v) = v {
                policy["Version"] = json!(v);
            }
            TrustPolicy::from_value(&policy).unwrap()
        };
        let variable = |p: &TrustPolicy| {
            p.statements()[0].conditions[0].values[0]
                .variable()
                .map(str::to_owned)
        };
        assert_eq!(doc(Some("2012-10-17")).version(), Version::V2012_10_17);
        assert_eq!(
            variable(&doc(Some("2012-10-17"))),
            Some("aws:username".to_owned())
        );
        assert_eq!(variable(&doc(Some("2008-10-17"))), None);
        assert_eq!(doc(None).version(), Version::V2008_10_17);
        assert_eq!(variable(&doc(None)), None);
    }

    #[test]
    fn documents_are_percent_decoded_when_they_do_not_start_with_a_brace() {
        let plain = r#"{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"sts:*","Condition":{"StringLike":{"k":"a+b c"}}}}"#;
        let encoded = "%7B%22Version%22%3A%222012-10-17%22%2C%22Statement%22%3A%7B%22Effect%22%3A%22Allow%22%2C%22Principal%22%3A%22%2A%22%2C%22Action%22%3A%22sts%3A%2A%22%2C%22Condition%22%3A%7B%22StringLike%22%3A%7B%22k%22%3A%22a+b%20c%22%7D%7D%7D%7D";
        let a = TrustPolicy::from_document(plain).unwrap();
        let b = TrustPolicy::from_document(encoded).unwrap();
        assert_eq!(a, b, "`+` stays `+`, `%20` is a space");
        let c = TrustPolicy::from_document(&format!("  \n{plain}")).unwrap();
        assert_eq!(a, c);
        let as_string = TrustPolicy::from_value(&Json::String(encoded.to_owned())).unwrap();
        assert_eq!(a, as_string);
    }

    #[test]
    fn undecodable_or_invalid_documents_say_why() {
        let e = TrustPolicy::from_document("%7B%22a")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("the percent-decoded trust policy is not valid JSON"),
            "{e}"
        );
        let e = TrustPolicy::from_document("%FF%FE")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "the percent-decoded trust policy is not valid UTF-8");
        let e = TrustPolicy::from_document("{\"Statement\": ")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("the trust policy is not valid JSON"), "{e}");
        let e = TrustPolicy::from_document("").unwrap_err().to_string();
        assert!(e.contains("not valid JSON"), "{e}");
        let e = TrustPolicy::from_value(&Json::String("[1]".into()))
            .unwrap_err()
            .to_string();
        assert_eq!(e, "a trust policy must be a JSON object, got a list");
    }

    #[test]
    fn condition_values_accept_numbers_and_booleans_as_text() {
        let policy = TrustPolicy::from_value(
            &json!({"Statement": {"Effect": "Allow", "Principal": "*", "Action": "*",
            "Condition": {"Bool": {"aws:SecureTransport": true}, "NumericLessThan": {"n": 5}}}}),
        )
        .unwrap();
        let raws: Vec<&str> = policy.statements()[0]
            .conditions
            .iter()
            .map(|c| c.values[0].raw.as_str())
            .collect();
        assert_eq!(raws, ["true", "5"]);
    }
}
