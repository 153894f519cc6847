//! The parse-time checks of Go's text/template that gotmpl does not make: a stray `{{end}}` or
//! `{{else}}` at the top (gotmpl stops reading there), and a function no one defined (gotmpl
//! finds out only when it runs). external-dns refuses to start with either.

use super::go_object::Roots;
use gotmpl::parse::{Expr, ListNode, Node, Parser, PipeNode};

/// Go's builtin functions (text/template's `builtins`).
const BUILTINS: [&str; 19] = [
    "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf",
    "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne",
];

/// Text after the template: present at the end of what was parsed only when the parser read
/// the whole template.
const SENTINEL: &str = "\u{1}zoneguard-end\u{1}";

/// Checks `src` as Go's parser would, beyond what gotmpl checks; `functions` are the names
/// the template may call besides Go's builtins. The fields at the top of the object it reads.
pub(super) fn check(src: &str, functions: &[&str]) -> Result<Roots, String> {
    let text = [src, SENTINEL].concat();
    let (top, defines) = Parser::new(&text, "{{", "}}")
        .and_then(Parser::parse)
        .map_err(|e| e.to_string())?;
    let whole = matches!(top.nodes.last(), Some(Node::Text(t)) if t.text.ends_with(SENTINEL));
    if !whole {
        return Err("unexpected {{end}} or {{else}}".into());
    }
    let mut walk = Walk {
        functions,
        vars: vec!["$".into()],
        error: None,
        roots: Some(Vec::new()),
    };
    walk.list(&top);
    for define in &defines {
        walk.define(&define.body);
    }
    walk.error.map_or(Ok(walk.roots), Err)
}

/// A walk over a parse tree, in Go's parser's order, that finds the first call of an undefined
/// function or use of an undeclared variable.
struct Walk<'f> {
    functions: &'f [&'f str],
    /// The variables in scope: a control structure's end drops those declared since its start.
    vars: Vec<String>,
    error: Option<String>,
    /// The first field of every field chain, wherever its dot is (a superset of the fields read
    /// at the top of the object), and of every chain on `$`; `None` once `.` itself or `$`
    /// alone is used, which may read anything.
    roots: Roots,
}

impl Walk<'_> {
    fn fail(&mut self, message: String) {
        self.error.get_or_insert(message);
    }

    fn list(&mut self, list: &ListNode) {
        for node in &list.nodes {
            self.node(node);
        }
    }

    /// A `{{define}}` body: only `$` is in scope.
    fn define(&mut self, body: &ListNode) {
        let outer = std::mem::replace(&mut self.vars, vec!["$".into()]);
        self.list(body);
        self.vars = outer;
    }

    fn node(&mut self, node: &Node) {
        match node {
            Node::List(list) => self.list(list),
            Node::Action(action) => self.pipe(&action.pipe),
            Node::If(b) | Node::Range(b) | Node::With(b) => {
                let mark = self.vars.len();
                self.pipe(&b.pipe);
                self.list(&b.body);
                if let Some(other) = &b.else_body {
                    self.list(other);
                }
                self.vars.truncate(mark);
            }
            Node::Template(t) => {
                if let Some(pipe) = &t.pipe {
                    self.pipe(pipe);
                }
            }
            Node::Define(d) => self.define(&d.body),
            Node::Text(_) | Node::Break(_) | Node::Continue(_) => {}
        }
    }

    fn pipe(&mut self, pipe: &PipeNode) {
        // Go's parser puts an assigned variable in scope as it does a declared one (running the
        // template finds one never declared).
        self.vars.extend(pipe.decl.iter().map(ToString::to_string));
        for command in &pipe.commands {
            for arg in &command.args {
                self.expr(arg);
            }
        }
    }

    /// Notes a read of `field` at the top of the object, or of the whole object (`None`).
    fn root(&mut self, field: Option<&str>) {
        match (field, self.roots.as_mut()) {
            (Some(field), Some(roots)) if !roots.iter().any(|r| r == field) => {
                roots.push(field.to_string());
            }
            (None, _) => self.roots = None,
            _ => {}
        }
    }

    fn variable(&mut self, name: &str) {
        if !self.vars.iter().any(|v| v == name) {
            self.fail(format!("undefined variable {name:?}"));
        }
    }

    fn expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Identifier(_, name) => {
                let name = name.as_str();
                if !BUILTINS.contains(&name) && !self.functions.contains(&name) {
                    self.fail(format!("function {name:?} not defined"));
                }
            }
            Expr::Variable(_, name, chain) => {
                self.variable(name);
                if name == "$" {
                    self.root(chain.first().map(|f| f.as_str()));
                }
            }
            Expr::Field(_, chain) => self.root(chain.first().map(|f| f.as_str())),
            Expr::Dot(_) => self.root(None),
            Expr::Pipe(_, pipe) => self.pipe(pipe),
            Expr::Chain(_, inner, _) => self.expr(inner),
            _ => {}
        }
    }
}
