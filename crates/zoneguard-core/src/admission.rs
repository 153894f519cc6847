//! One admission request in, one decision out: the contract between the core and its callers.

mod hosts;
mod rules_configmap;

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::irsa;
use crate::mutation;
use crate::rules::{Enforcement, RuleSet, RuleSource};
use crate::seen::Seen;
use crate::source::{self, Kind};
use crate::tree::Node;
use crate::verdict::{Admitted, Reason, Violation, Warning};

pub use hosts::describe as describe_filter;
pub use rules_configmap::{is_rules_configmap, rules_text, RULES_KEY, RULES_LABEL};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
    Delete,
    Connect,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
            Operation::Connect => "CONNECT",
        }
    }
}

/// What the caller knows about the request (decoded from an AdmissionReview or a manifest).
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub operation: Operation,
    /// API group ("" for core), version and kind of the object.
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
    pub namespace: &'a str,
    pub name: &'a str,
    pub object: Option<&'a Node<'a>>,
    pub old_object: Option<&'a Node<'a>>,
    pub sub_resource: Option<&'a str>,
}

/// The answer for one request.
#[derive(Debug, Clone, Default)]
pub struct Decision {
    /// False only when enforcement is `deny` and some violation stands.
    pub allowed: bool,
    /// False when the kind/operation is not one zoneguard checks (admitted, no patch).
    pub checked: bool,
    /// Every violation found, whatever the enforcement mode (for logs and metrics).
    pub violations: Vec<Violation>,
    /// What kubectl prints as warnings (`Display` of each), in order.
    pub warnings: Vec<Warning>,
    /// The filter flag that makes external-dns skip the object whole, if one does.
    pub skipped: Option<source::SkippedBy>,
    /// RFC 6902 operations (mutate only); empty = nothing to change.
    pub patch: Vec<crate::mutation::AddOp>,
    /// On an UPDATE, what is admitted with a warning though the rules refuse it: violations the
    /// old object already had, and injections the rules refuse (left out of the patch). Counted
    /// and logged like violations, so that a rule change that leaves objects wrong shows.
    pub tolerated: Vec<Violation>,
    pub enforcement: Enforcement,
}

impl Decision {
    fn admit() -> Self {
        Self {
            allowed: true,
            ..Self::default()
        }
    }

    /// Every violation the request is counted and logged for: those that stand, then those
    /// tolerated on an UPDATE.
    pub fn counted(&self) -> impl Iterator<Item = &Violation> {
        self.violations.iter().chain(&self.tolerated)
    }

    /// Admits `violations` on an UPDATE with a warning each (`<message> (<why>)`, worded when
    /// shown), keeping them for logs and metrics.
    fn tolerate(&mut self, violations: Vec<Violation>, why: &'static str) {
        let warnings = violations
            .iter()
            .map(|v| Warning::admitting(v.clone(), Admitted::Tolerated, why));
        self.warnings.extend(warnings);
        self.tolerated.extend(violations);
    }

    /// The denial text kubectl shows after `admission webhook "…" denied the request: `:
    /// `Ingress team-a/web: <violation>` one line per violation, at most `max_lines`, then
    /// `and N more`.
    pub fn summary(&self, kind: &str, namespace: &str, name: &str, max_lines: usize) -> String {
        let shown = &self.violations[..self.violations.len().min(max_lines.max(1))];
        let object_len = kind.len() + namespace.len() + name.len() + 4;
        let size: usize = shown
            .iter()
            .map(|v| object_len + v.message_len_hint())
            .sum();
        let mut text = String::with_capacity(size + 16);
        for (i, violation) in shown.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(kind);
            text.push(' ');
            if !namespace.is_empty() {
                text.push_str(namespace);
                text.push('/');
            }
            text.push_str(name);
            text.push_str(": ");
            // Writing into a `String` cannot fail.
            let _ = write!(text, "{violation}");
        }
        let rest = self.violations.len() - shown.len();
        if rest > 0 {
            text.push_str(&format!("\nand {rest} more"));
        }
        text
    }

    /// Fits the warnings for the API server, which passes them on as HTTP `Warning` headers:
    /// each on one line (the API server drops a warning with a control character, a newline
    /// included, without a word), lines joined by `; `; then the first `max` (at least one)
    /// that fit in [`WARNING_RUNES`] together, and a last one saying how many more there were.
    /// Past that many runes the API server would cut every warning to 256 runes and drop the
    /// rest without saying so; a single warning longer than the budget is cut here, with `…`.
    /// `zoneguard check` prints them as they are, every one.
    pub fn fit_warnings(&mut self, max: usize) {
        let all = self.warnings.len();
        // Room for the last line, `and N more warnings`.
        let budget = WARNING_RUNES - 32;
        let mut used = 0;
        let mut shown = 0;
        // Only the warnings shown are worded: those left out may be many.
        for warning in self.warnings.iter_mut().take(max.max(1)) {
            let mut message = warning.message();
            if message.contains(char::is_control) {
                message = Cow::Owned(one_line(&message));
            }
            let runes = message.chars().count();
            if used + runes > budget {
                if shown > 0 {
                    break;
                }
                cut_to_runes(message.to_mut(), budget);
            }
            // A warning written as shown stays as it is.
            if let Cow::Owned(text) = message {
                warning.reword(text);
            }
            used += runes.min(budget);
            shown += 1;
        }
        if all > shown {
            self.warnings.truncate(shown);
            let rest = all - shown;
            self.warnings
                .push(Warning::new(format!("and {rest} more warnings")));
        }
    }

    /// Applies the enforcement mode to the violations found.
    fn enforce(mut self, mode: Enforcement) -> Self {
        self.enforcement = mode;
        self.allowed = match mode {
            Enforcement::Deny => self.violations.is_empty(),
            Enforcement::Warn => {
                let why = "zoneguard warn mode: admitted";
                let warnings = self
                    .violations
                    .iter()
                    .map(|v| Warning::admitting(v.clone(), Admitted::WarnMode, why));
                self.warnings.extend(warnings);
                true
            }
            Enforcement::Audit => true,
        };
        self
    }
}

/// The runes of warnings the API server passes on whole: beyond them it cuts each to 256 and
/// drops the rest (k8s.io/apiserver's warning recorder).
pub const WARNING_RUNES: usize = 4096;

/// `text` cut to at most `runes` characters, the last of them `…` when it is cut.
fn cut_to_runes(text: &mut String, runes: usize) {
    if let Some((at, _)) = text.char_indices().nth(runes.saturating_sub(1)) {
        text.truncate(at);
        text.push('…');
    }
}

/// `text` on one line: its lines trimmed and joined by `; ` (by a space after a line that
/// ends in `:`, which introduces the next), other control characters spaces.
fn one_line(text: &str) -> String {
    let mut joined = String::with_capacity(text.len());
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !joined.is_empty() {
            joined.push_str(if joined.ends_with(':') { " " } else { "; " });
        }
        joined.push_str(line);
    }
    joined
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn in_scope(rules: &RuleSet, req: &Request<'_>) -> bool {
    writes_an_object(req) && !rules.exempt_namespaces.contains(req.namespace)
}

/// A create or update of an object itself (not of a subresource).
fn writes_an_object(req: &Request<'_>) -> bool {
    matches!(req.operation, Operation::Create | Operation::Update)
        && req.sub_resource.is_none_or(str::is_empty)
        && req.object.is_some()
}

/// Validates a request with the rules in force (no IAM facts: `irsa.source: iam` roles get
/// the `unknownRole` verdict).
pub fn validate(rules: &RuleSet, req: &Request<'_>) -> Decision {
    validate_with_rule_sources(rules, req, &[])
}

/// Validates a request with facts the caller read from IAM for it (see
/// [`irsa::Facts`]); with `Facts::none()` this is [`validate`].
pub fn validate_with(rules: &RuleSet, req: &Request<'_>, facts: &irsa::Facts) -> Decision {
    validate_full(rules, req, &[], facts)
}

/// Validates a request; a rule ConfigMap is checked together with `other_sources`, the other
/// rule ConfigMaps in force, so a conflicting edit is refused.
pub fn validate_with_rule_sources(
    rules: &RuleSet,
    req: &Request<'_>,
    other_sources: &[RuleSource<'_>],
) -> Decision {
    validate_full(rules, req, other_sources, &irsa::Facts::none())
}

/// Validation with every input: other rule sources (for rule ConfigMaps) and IAM facts.
pub fn validate_full(
    rules: &RuleSet,
    req: &Request<'_>,
    other_sources: &[RuleSource<'_>],
    facts: &irsa::Facts,
) -> Decision {
    // A rule ConfigMap is checked even in an exempt namespace: exempting zoneguard's own
    // namespace must not let a broken rule edit through.
    if req.group.is_empty() && req.kind == "ConfigMap" {
        return match req.object.filter(|_| writes_an_object(req)) {
            Some(object) => rules_configmap::validate(req, object, other_sources),
            None => Decision::admit(),
        };
    }
    let Some(object) = req
        .object
        .filter(|o| in_scope(rules, req) && !being_deleted(o))
    else {
        return Decision::admit();
    };
    let Some(kind) = Kind::of(req.group, req.kind) else {
        return Decision::admit();
    };
    let names = source::Names::All;
    let mut decision = findings(rules, kind, req.namespace, req.name, object, facts, names);
    if let (Operation::Update, Some(old)) = (req.operation, req.old_object) {
        let before = findings(rules, kind, req.namespace, req.name, old, facts, names);
        keep_old_violations_as_warnings(&mut decision, &before.violations);
    }
    decision.enforce(rules.enforcement)
}

/// Every violation and warning for one object.
fn findings(
    rules: &RuleSet,
    kind: Kind,
    namespace: &str,
    name: &str,
    object: &Node<'_>,
    facts: &irsa::Facts,
    names: source::Names,
) -> Decision {
    let mut d = Decision {
        checked: true,
        ..Decision::default()
    };
    if kind == Kind::ServiceAccount {
        let f = irsa::check_with(rules, namespace, name, object, facts);
        d.violations = f.violations;
        d.warnings = f.warnings;
        return d;
    }
    let extracted = source::extract_names(rules, kind, namespace, object, names);
    // The names of an inject rule alone are judged for the rule's fault, whose fix the
    // caller gives: a hostname message's own fix is for the owner of a name written by hand.
    let advice = match names {
        source::Names::All => hosts::Advice::Owner,
        source::Names::Own => hosts::Advice::None,
    };
    d.violations = extracted.violations;
    d.warnings = extracted.warnings;
    d.skipped = extracted.skipped;
    // A name often appears twice (an Ingress rule's host and its TLS host). A verdict depends
    // on the name alone unless it had spaces, so a name that passed once passes again.
    let mut passed: Seen<&str> = Seen::default();
    // The fields of the candidates refused.
    let mut refused: Seen<&source::Field> = Seen::default();
    let mut faults = hosts::Faults::default();
    for c in &extracted.candidates {
        if !c.interior_space && passed.contains(&c.name.as_str()) {
            continue;
        }
        // An SRV name is made of a hostname: once that hostname, or another SRV name made of
        // it, is refused, the item has its violation and this one is not listed too.
        if matches!(c.record, source::Record::Srv { .. }) && refused.contains(&&c.field) {
            continue;
        }
        match hosts::judge(rules, namespace, c, advice, &mut faults) {
            Some(violation) => {
                d.violations.push(violation);
                refused.insert(&c.field);
            }
            None => {
                passed.insert(&c.name);
            }
        }
    }
    d
}

/// A violation the old object already had is a warning on UPDATE: the same value with the
/// same reason in the same field, whatever its index (a host moved from `spec.rules[0]` to
/// `spec.rules[1]` by an item added before it was there already).
fn keep_old_violations_as_warnings(decision: &mut Decision, before: &[Violation]) {
    let shapes: Vec<String> = before.iter().map(|b| unindexed(&b.field)).collect();
    let mut had: Seen<(Reason, &str, &str)> = Seen::default();
    for (b, shape) in before.iter().zip(&shapes) {
        had.insert((b.reason, b.value.as_str(), shape.as_str()));
    }
    let (old, new): (Vec<Violation>, Vec<Violation>) = std::mem::take(&mut decision.violations)
        .into_iter()
        .partition(|v| had.contains(&(v.reason, v.value.as_str(), unindexed(&v.field).as_str())));
    decision.violations = new;
    decision.tolerate(
        old,
        "already present before this update, so admitted; please fix it",
    );
}

/// A field path without its list indices: `spec.rules[1].host` → `spec.rules[].host`
/// (a key in brackets, `annotations["…"]`, stays).
fn unindexed(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with(']') {
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// Computes the patch that adds missing annotations. An injected value the rules would refuse
/// is the rule's fault: it is never written, and it is reported as such: a violation on
/// CREATE, a warning on UPDATE (the object exists already; blocking its updates, finalizer
/// removal included, would not make the rule right).
pub fn mutate(rules: &RuleSet, req: &Request<'_>) -> Decision {
    let Some(object) = req
        .object
        .filter(|o| in_scope(rules, req) && !being_deleted(o))
    else {
        return Decision::admit();
    };
    let Some(kind) = Kind::of(req.group, req.kind) else {
        return Decision::admit();
    };
    if kind == Kind::ServiceAccount || kind == Kind::DnsEndpoint {
        return Decision::admit();
    }
    let name = req
        .name
        .is_empty()
        .then(|| crate::path::at(object, &["metadata", "name"]).and_then(Node::as_str))
        .flatten()
        .unwrap_or(req.name);
    let mut injections = mutation::plan(rules, req.kind, req.namespace, name, object);
    let faults = take_refused(rules, kind, req.namespace, name, object, &mut injections);
    let mut decision = Decision {
        checked: true,
        patch: mutation::to_patch(object, &injections),
        ..Decision::default()
    };
    if name.is_empty() {
        decision
            .warnings
            .extend(unnamed_warnings(rules, req, object));
    }
    match req.operation {
        Operation::Update => {
            decision.tolerate(faults, "not injected; the update is admitted without it")
        }
        _ => decision.violations = faults,
    }
    decision.enforce(rules.enforcement)
}

/// A warning for each annotation left out because its template uses `{name}` and the object
/// has only `generateName`: the API server makes the name after admission, so no later call
/// can add it.
fn unnamed_warnings(rules: &RuleSet, req: &Request<'_>, object: &Node<'_>) -> Vec<Warning> {
    mutation::waiting_for_name(rules, req.kind, req.namespace, object)
        .into_iter()
        .map(|(rule, key)| {
            Warning::new(format!(
                "metadata.annotations[{key:?}] is not injected: {} makes it from a template that uses {{name}}, and this {} has no name yet (only generateName; the API server makes it after admission); set the annotation yourself, or give the object a name",
                rules.inject_rule_name(rule),
                req.kind
            ))
        })
        .collect()
}

/// An object whose deletion has begun (`metadata.deletionTimestamp`): its remaining updates
/// (finalizers removed by controllers) are never blocked nor changed.
fn being_deleted(object: &Node<'_>) -> bool {
    crate::path::at(object, &["metadata", "deletionTimestamp"])
        .is_some_and(|t| !matches!(t, Node::Null))
}

/// Takes out of `injections` those whose value the rules refuse, and returns their violations,
/// each blaming its inject rule.
fn take_refused(
    rules: &RuleSet,
    kind: Kind,
    namespace: &str,
    name: &str,
    object: &Node<'_>,
    injections: &mut Vec<mutation::Injection>,
) -> Vec<Violation> {
    if injections.is_empty() {
        return Vec::new();
    }
    // Only the annotations are judged again: a violation of an injected value is all that is
    // looked for, and the spec's hostnames, like the fqdn template's names of the final
    // object, were judged (or will be) by validation.
    let annotated = mutation::annotations_after(rules, object, injections);
    let none = irsa::Facts::none();
    let after = findings(
        rules,
        kind,
        namespace,
        name,
        &annotated,
        &none,
        source::Names::Own,
    );
    let mut faults = Vec::new();
    if after.violations.is_empty() {
        return faults;
    }
    injections.retain(|inj| {
        let field = crate::annotation::field(&inj.key);
        let before = faults.len();
        for v in after.violations.iter().filter(|v| v.field.starts_with(&field)) {
            let rule = rules.inject_rule_name(inj.rule);
            let what = injected_fault(v, &inj.value);
            let message = format!("the inject rule {rule} would set {field} to {:?}, which the rules themselves refuse: {what}; ask the platform team to fix that inject rule, or set the annotation on this object yourself (an inject rule adds only what is missing)", inj.value);
            faults.push(Violation::whole(v.field.clone(), v.value.clone(), v.reason, message));
        }
        faults.len() == before
    });
    faults
}

/// What is wrong with an injected `value`, from violation `v` of it, without the field and
/// value the blame already names: "it is outside …" for the whole value, `"<name>" is …` for
/// one name made of it (a list item); the message of a violation worded whole (an SRV or TXT
/// record's, for one), as it is.
fn injected_fault(v: &Violation, value: &str) -> String {
    match v.fault() {
        Some(fault) if v.value == value => format!("it {fault}"),
        Some(fault) => format!("{:?} {fault}", v.value),
        None => v.message(),
    }
}

#[cfg(test)]
mod tests;
