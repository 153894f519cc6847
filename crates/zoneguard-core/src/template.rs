//! external-dns's `--fqdn-template`: the Go template that names an object which has no
//! hostname of its own, parsed with external-dns's functions and run on the object as Go sees
//! it (module `go_object`).

mod budget;
mod functions;
mod go_object;
mod syntax;
#[cfg(test)]
mod tests;

use crate::tree::Node;
use gotmpl::{Template, TemplateError, Value};
use std::fmt;
use std::sync::Arc;
use thiserror::Error;

/// The sources a template is bound to, by external-dns's source names (its `isSource`), that
/// zoneguard runs templates for.
const SOURCES: [&str; 7] = [
    "ingress",
    "service",
    "gateway-httproute",
    "gateway-grpcroute",
    "gateway-tlsroute",
    "gateway-tcproute",
    "gateway-udproute",
];

/// The kind of object each of [`SOURCES`] reads.
const KINDS: [&str; 7] = [
    "Ingress",
    "Service",
    "HTTPRoute",
    "GRPCRoute",
    "TLSRoute",
    "TCPRoute",
    "UDPRoute",
];

/// Why a template is refused with the rules.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// external-dns refuses it too: the parser's message.
    #[error("{0}")]
    Syntax(String),
    /// It passes a bound of zoneguard's (`MAX_OUTPUT`, or what its functions may read and
    /// build) on an object with only a name and a namespace, so it would on any object.
    #[error("run on an object of kind {kind} with only a name and a namespace: {why}")]
    Unbounded { kind: &'static str, why: String },
}

/// The parsed `--fqdn-template` values, once per source they may be run for (in the order of
/// `SOURCES`).
#[derive(Clone)]
pub struct FqdnTemplate {
    text: Arc<str>,
    bound: Arc<[Template]>,
    /// The fields at the top of the object the template reads.
    roots: Arc<go_object::Roots>,
}

impl fmt::Debug for FqdnTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("FqdnTemplate").field(&self.text).finish()
    }
}

impl PartialEq for FqdnTemplate {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl FqdnTemplate {
    /// Parses `templates` as external-dns parses its `--fqdn-template` flags: joined with
    /// commas into one template; `None` when they are all blank. The error is the parser's,
    /// or says which of zoneguard's bounds the template passes on an object with nothing in
    /// it but a name and a namespace (it is run once on one of each kind).
    pub fn parse(templates: &[String]) -> Result<Option<Self>, ParseError> {
        let text = templates.join(",");
        if text.trim().is_empty() {
            return Ok(None);
        }
        // Each value alone first, as external-dns checks them, so the error names the value
        // (one value is the whole text, checked below).
        for (i, one) in templates.iter().enumerate().filter(|_| templates.len() > 1) {
            functions::with_all(Template::new("endpoint"), "")
                .parse(one)
                .map_err(|e| e.to_string())
                .and_then(|_| syntax::check(one, &functions::NAMES))
                .map_err(|e| ParseError::Syntax(format!("[{i}] {one:?}: {e}")))?;
        }
        let bound = SOURCES
            .iter()
            .map(|source| {
                functions::with_all(Template::new("endpoint"), source)
                    .max_range_iters(MAX_RANGE)
                    .parse(&text)
                    .map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(ParseError::Syntax)?;
        let roots = syntax::check(&text, &functions::NAMES).map_err(ParseError::Syntax)?;
        let template = Self {
            text: text.into(),
            bound: bound.into(),
            roots: Arc::new(roots),
        };
        template.dry_run()?;
        Ok(Some(template))
    }

    /// Runs the template once on an object of each kind with only a name and a namespace:
    /// refused if it passes one of zoneguard's bounds there, since it then passes them on
    /// every object. Another failure depends on what the object holds, so it is not refused.
    fn dry_run(&self) -> Result<(), ParseError> {
        for (index, kind) in KINDS.iter().enumerate() {
            let object = serde_json::json!({"kind": kind,
                "metadata": {"name": "name", "namespace": "namespace"}});
            let data = go_object::value(kind, "namespace", &Node::from(&object), &self.roots);
            match self.run(index, &data) {
                Err(e @ (RunError::Output | RunError::Work(_))) => {
                    return Err(ParseError::Unbounded {
                        kind,
                        why: e.to_string(),
                    })
                }
                Ok(_) | Err(RunError::Failed(_)) => {}
            }
        }
        Ok(())
    }

    /// The templates as written, joined with commas.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The names the template makes of `object` (of `kind`, as its `kind` field says, in
    /// `namespace`), as external-dns's `ExecFQDN` returns them: the output cut at commas,
    /// each trimmed and stripped of one trailing dot, the empty ones dropped, sorted, each
    /// once. The error is the template's, when it fails on this object.
    pub fn names(
        &self,
        kind: &str,
        namespace: &str,
        object: &Node<'_>,
    ) -> Result<Vec<String>, String> {
        let data = go_object::value(kind, namespace, object, &self.roots);
        let out = self
            .run(source_index(kind), &data)
            .map_err(|e| e.to_string())?;
        let mut names: Vec<String> = out
            .split(',')
            .map(|name| {
                let name = name.trim();
                name.strip_suffix('.').unwrap_or(name).to_string()
            })
            .filter(|name| !name.is_empty())
            .collect();
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// The output of the template bound to [`SOURCES`]`[index]` on `data`, within zoneguard's
    /// bounds.
    fn run(&self, index: usize, data: &Value) -> Result<String, RunError> {
        let Some(template) = self.bound.get(index) else {
            return Ok(String::new());
        };
        let mut out = Capped(String::new());
        let (result, spent) = budget::within(|| template.execute_fmt(&mut out, data));
        match result {
            Ok(()) => Ok(out.0),
            Err(TemplateError::Write) => Err(RunError::Output),
            Err(e) if spent => Err(RunError::Work(e.to_string())),
            Err(e) => Err(RunError::Failed(e.to_string())),
        }
    }
}

/// Why a run of a template made no names.
#[derive(Debug, Error)]
enum RunError {
    #[error("its output passes {MAX_OUTPUT} bytes, far more than any list of names")]
    Output,
    /// A function would have passed the run's budget ([`budget::MAX_WORK`]).
    #[error("{0}")]
    Work(String),
    /// The template failed on the object, as Go's would.
    #[error("{0}")]
    Failed(String),
}

/// The most a template may write for one object. Go sets no bound, but names are at most 253
/// bytes each, and an object's own text (its annotations, ranged over) must not be able to make
/// a template write without end.
const MAX_OUTPUT: usize = 1 << 20;

/// The most `{{range}}` iterations one run may take: far more than an object has items.
const MAX_RANGE: u64 = 200_000;

/// A template's output, refused past [`MAX_OUTPUT`].
struct Capped(String);

impl fmt::Write for Capped {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.0.len() + s.len() > MAX_OUTPUT {
            return Err(fmt::Error);
        }
        self.0.push_str(s);
        Ok(())
    }
}

/// The index in [`SOURCES`] of external-dns's source for objects of `kind` (`gateway-` and the
/// kind lower-cased for a route); the first for another kind.
fn source_index(kind: &str) -> usize {
    SOURCES
        .iter()
        .position(|source| match kind {
            "Ingress" => *source == "ingress",
            "Service" => *source == "service",
            route => source
                .strip_prefix("gateway-")
                .is_some_and(|name| name.eq_ignore_ascii_case(route)),
        })
        .unwrap_or(0)
}
