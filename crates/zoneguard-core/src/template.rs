//! external-dns's `--fqdn-template`: the Go template that names an object which has no
//! hostname of its own, parsed with external-dns's functions and run on the object as Go sees
//! it ([`go_object`]).

mod functions;
mod go_object;
mod syntax;
#[cfg(test)]
mod tests;

use crate::tree::Node;
use gotmpl::Template;
use std::fmt;
use std::sync::Arc;

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

/// The parsed `--fqdn-template` values, once per source they may be run for (in the order of
/// [`SOURCES`]).
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
    /// commas into one template; `None` when they are all blank. The error is the parser's.
    pub fn parse(templates: &[String]) -> Result<Option<Self>, String> {
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
                .map_err(|e| format!("[{i}] {one:?}: {e}"))?;
        }
        let bound = SOURCES
            .iter()
            .map(|source| {
                functions::with_all(Template::new("endpoint"), source)
                    .max_range_iters(MAX_RANGE)
                    .parse(&text)
                    .map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        let roots = syntax::check(&text, &functions::NAMES)?;
        Ok(Some(Self {
            text: text.into(),
            bound: bound.into(),
            roots: Arc::new(roots),
        }))
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
        let index = source_index(kind);
        let data = go_object::value(kind, namespace, object, &self.roots);
        let mut out = Capped(String::new());
        self.bound[index]
            .execute_fmt(&mut out, &data)
            .map_err(|e| match e {
                gotmpl::TemplateError::Write => {
                    format!("its output passes {MAX_OUTPUT} bytes, far more than any list of names")
                }
                e => e.to_string(),
            })?;
        let out = out.0;
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
