//! Kubernetes label selectors as external-dns's `--label-filter`, `--annotation-filter` and
//! `--gateway-label-filter` take them: apimachinery's `labels.Parse` grammar, the narrower
//! `metav1.ParseToLabelSelector` reading of it, and matching over a string map.

use crate::k8s_name::{is_label_value, is_qualified_name};
use std::fmt;

/// Why a selector text is refused, in the words of the grammar.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SelectorError(String);

/// A parsed selector: every requirement must hold. No requirement selects everything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selector {
    requirements: Vec<Requirement>,
    /// As written, for messages.
    text: String,
}

/// One `key <op> values` of a selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    key: String,
    op: Op,
    /// Sorted and without repeats, as apimachinery keeps them.
    values: Vec<String>,
}

/// A requirement's operator; `=` and `==` are one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Exists,
    DoesNotExist,
    Equals,
    NotEquals,
    In,
    NotIn,
    GreaterThan,
    LessThan,
}

impl Selector {
    /// `labels.Parse`: what external-dns's `--label-filter` accepts.
    pub fn parse_labels(text: &str) -> Result<Self, SelectorError> {
        let mut requirements = Parser::new(text).selector()?;
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        let text = text.trim().to_string();
        Ok(Self { requirements, text })
    }

    /// `metav1.ParseToLabelSelector` then `LabelSelectorAsSelector`: what external-dns's
    /// `--annotation-filter` and `--gateway-label-filter` accept. `!=`, `>` and `<` are refused,
    /// and of several `key=value` for one key only the last counts (they fill a map).
    pub fn parse_set_based(text: &str) -> Result<Self, SelectorError> {
        let parsed = Self::parse_labels(text)?;
        let mut requirements: Vec<Requirement> = Vec::with_capacity(parsed.requirements.len());
        for r in parsed.requirements {
            match r.op {
                Op::NotEquals => {
                    return Err(SelectorError(format!(
                        "\"!=\" in {r} is not a valid operator here; write {} notin ({})",
                        r.key,
                        r.values.join(",")
                    )))
                }
                Op::GreaterThan | Op::LessThan => {
                    return Err(SelectorError(format!(
                        "{r}: \"{}\" is not supported here, only by --label-filter",
                        r.op.symbol()
                    )))
                }
                Op::Equals => requirements.retain(|o| o.op != Op::Equals || o.key != r.key),
                _ => {}
            }
            requirements.push(r);
        }
        Ok(Self {
            requirements,
            text: parsed.text,
        })
    }

    /// Whether `lookup` (a key's value, if the key is there) meets every requirement.
    pub fn matches<'v>(&self, lookup: impl Fn(&str) -> Option<&'v str>) -> bool {
        self.first_unmet(lookup).is_none()
    }

    /// The first requirement `lookup` does not meet, with the value it found for its key.
    pub fn first_unmet<'v>(
        &self,
        lookup: impl Fn(&str) -> Option<&'v str>,
    ) -> Option<(&Requirement, Option<&'v str>)> {
        self.requirements.iter().find_map(|r| {
            let value = lookup(&r.key);
            (!r.matches(value)).then_some((r, value))
        })
    }

    /// The requirements, sorted by key.
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// Whether any requirement is about `key`.
    pub fn names(&self, key: &str) -> bool {
        self.requirements.iter().any(|r| r.key == key)
    }

    /// The selector as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the selector selects everything.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }
}

impl Requirement {
    pub fn key(&self) -> &str {
        &self.key
    }

    /// apimachinery's `Requirement.Matches` for the key's `value`, if the key is there.
    pub fn matches(&self, value: Option<&str>) -> bool {
        let listed = |v: &str| self.values.iter().any(|x| x == v);
        match (self.op, value) {
            (Op::Exists, v) => v.is_some(),
            (Op::DoesNotExist, v) => v.is_none(),
            (Op::Equals | Op::In, v) => v.is_some_and(listed),
            (Op::NotEquals | Op::NotIn, v) => !v.is_some_and(listed),
            (Op::GreaterThan | Op::LessThan, None) => false,
            (op, Some(v)) => {
                let bound = self.values.first().and_then(|b| b.parse::<i64>().ok());
                match (v.parse::<i64>().ok(), bound) {
                    (Some(v), Some(b)) if op == Op::GreaterThan => v > b,
                    (Some(v), Some(b)) => v < b,
                    _ => false,
                }
            }
        }
    }
}

impl fmt::Display for Requirement {
    /// The requirement as a selector writes it: `env in (prod,staging)`, `!env`, `n>3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = &self.key;
        let values = self.values.join(",");
        match self.op {
            Op::Exists => write!(f, "{key}"),
            Op::DoesNotExist => write!(f, "!{key}"),
            Op::In | Op::NotIn => write!(f, "{key} {} ({values})", self.op.symbol()),
            op => write!(f, "{key}{}{values}", op.symbol()),
        }
    }
}

impl Op {
    fn symbol(self) -> &'static str {
        match self {
            Op::Exists | Op::DoesNotExist => "",
            Op::Equals => "=",
            Op::NotEquals => "!=",
            Op::In => "in",
            Op::NotIn => "notin",
            Op::GreaterThan => ">",
            Op::LessThan => "<",
        }
    }
}

/// A token of the selector grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token<'a> {
    Ident(&'a str),
    In,
    NotIn,
    Bang,
    Equals,
    DoubleEquals,
    NotEquals,
    Greater,
    Less,
    Open,
    Close,
    Comma,
    End,
}

impl Token<'_> {
    /// The token as written, for messages.
    fn text(&self) -> &str {
        match self {
            Token::Ident(s) => s,
            Token::In => "in",
            Token::NotIn => "notin",
            Token::Bang => "!",
            Token::Equals => "=",
            Token::DoubleEquals => "==",
            Token::NotEquals => "!=",
            Token::Greater => ">",
            Token::Less => "<",
            Token::Open => "(",
            Token::Close => ")",
            Token::Comma => ",",
            Token::End => "end of string",
        }
    }
}

impl<'a> Token<'a> {
    /// In a value position `in` and `notin` are plain words (`x in (in)`).
    fn into_value(self) -> Token<'a> {
        match self {
            Token::In => Token::Ident("in"),
            Token::NotIn => Token::Ident("notin"),
            other => other,
        }
    }
}

fn is_special(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Splits a selector into tokens as apimachinery's lexer does. Its reads return 0 at the end
/// of the text, so a NUL byte there ends the text, and one right after a token is skipped.
fn tokens(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        while is_space(at(i)) {
            i += 1;
        }
        let token = match at(i) {
            0 => {
                out.push(Token::End);
                return out;
            }
            b if is_special(b) => {
                let (token, len) = match (b, at(i + 1)) {
                    (b'=', b'=') => (Token::DoubleEquals, 2),
                    (b'!', b'=') => (Token::NotEquals, 2),
                    (b'=', _) => (Token::Equals, 1),
                    (b'!', _) => (Token::Bang, 1),
                    (b'(', _) => (Token::Open, 1),
                    (b')', _) => (Token::Close, 1),
                    (b',', _) => (Token::Comma, 1),
                    (b'>', _) => (Token::Greater, 1),
                    _ => (Token::Less, 1),
                };
                i += len;
                token
            }
            _ => {
                let start = i;
                while !matches!(at(i), 0) && !is_special(at(i)) && !is_space(at(i)) {
                    i += 1;
                }
                match &text[start..i] {
                    "in" => Token::In,
                    "notin" => Token::NotIn,
                    word => Token::Ident(word),
                }
            }
        };
        out.push(token);
        if i < bytes.len() && bytes[i] == 0 {
            i += 1;
        }
    }
}

/// apimachinery's recursive-descent selector parser.
struct Parser<'a> {
    tokens: Vec<Token<'a>>,
    at: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            tokens: tokens(text),
            at: 0,
        }
    }

    fn peek(&self) -> Token<'a> {
        self.tokens[self.at].clone().into_value()
    }

    fn next_token(&mut self) -> Token<'a> {
        let token = self.tokens[self.at].clone();
        self.at = (self.at + 1).min(self.tokens.len() - 1);
        token
    }

    fn next_value(&mut self) -> Token<'a> {
        self.next_token().into_value()
    }

    fn selector(&mut self) -> Result<Vec<Requirement>, SelectorError> {
        let mut out = Vec::new();
        loop {
            match self.peek() {
                Token::End => return Ok(out),
                Token::Ident(_) | Token::Bang => {}
                other => return Err(expected(&other, "!, a key, or the end")),
            }
            out.push(self.requirement()?);
            match self.next_value() {
                Token::End => return Ok(out),
                Token::Comma => match self.peek() {
                    Token::Ident(_) | Token::Bang => {}
                    other => return Err(expected(&other, "a key after ','")),
                },
                other => return Err(expected(&other, "',' or the end")),
            }
        }
    }

    fn requirement(&mut self) -> Result<Requirement, SelectorError> {
        let negated = self.peek() == Token::Bang;
        if negated {
            self.next_token();
        }
        let key = match self.next_value() {
            Token::Ident(key) => key.to_string(),
            other => return Err(expected(&other, "a key")),
        };
        if !is_qualified_name(&key) {
            return Err(SelectorError(format!("{key:?} is not a valid key: a name of at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit, with an optional DNS subdomain prefix and '/'")));
        }
        // `!key` takes nothing more: what follows must end the requirement.
        let op = match self.peek() {
            _ if negated => Some(Op::DoesNotExist),
            Token::End | Token::Comma => Some(Op::Exists),
            _ => None,
        };
        if let Some(op) = op {
            return Ok(Requirement {
                key,
                op,
                values: Vec::new(),
            });
        }
        let op = self.operator()?;
        let values = match op {
            Op::In | Op::NotIn => self.value_set()?,
            _ => vec![self.exact_value()?],
        };
        requirement(key, op, values)
    }

    fn operator(&mut self) -> Result<Op, SelectorError> {
        Ok(match self.next_token() {
            Token::In => Op::In,
            Token::NotIn => Op::NotIn,
            Token::Equals | Token::DoubleEquals => Op::Equals,
            Token::NotEquals => Op::NotEquals,
            Token::Greater => Op::GreaterThan,
            Token::Less => Op::LessThan,
            other => return Err(expected(&other, "in, notin, =, ==, !=, > or <")),
        })
    }

    /// `( v, ... )`; an empty item is the empty value, and `()` holds only that.
    fn value_set(&mut self) -> Result<Vec<String>, SelectorError> {
        match self.next_value() {
            Token::Open => {}
            other => return Err(expected(&other, "'('")),
        }
        let mut values = Vec::new();
        let mut last_winto_value = false;
        loop {
            match self.next_value() {
                Token::Ident(v) if !last_winto_value => {
                    values.push(v.to_string());
                    last_winto_value = true;
                }
                Token::Comma => {
                    if !last_winto_value {
                        values.push(String::new());
                    }
                    last_winto_value = false;
                }
                Token::Close => {
                    if !last_winto_value {
                        values.push(String::new());
                    }
                    return Ok(values);
                }
                other if last_winto_value => return Err(expected(&other, "',' or ')'")),
                other => return Err(expected(&other, "',', ')' or a value")),
            }
        }
    }

    /// The one value after `=`, `==`, `!=`, `>` or `<`; none before ',' or the end is "".
    fn exact_value(&mut self) -> Result<String, SelectorError> {
        match self.peek() {
            Token::End | Token::Comma => Ok(String::new()),
            Token::Ident(v) => {
                self.next_token();
                Ok(v.to_string())
            }
            other => Err(expected(&other, "a value")),
        }
    }
}

/// apimachinery's `NewRequirement`: values must be label values, and `>` / `<` take an integer.
fn requirement(key: String, op: Op, mut values: Vec<String>) -> Result<Requirement, SelectorError> {
    if let Some(bad) = values.iter().find(|v| !is_label_value(v)) {
        return Err(SelectorError(format!("{bad:?} (for {key}) is not a valid value: empty, or at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit")));
    }
    if matches!(op, Op::GreaterThan | Op::LessThan) && values[0].parse::<i64>().is_err() {
        return Err(SelectorError(format!(
            "{:?} (for {key}{}) is not an integer",
            values[0],
            op.symbol()
        )));
    }
    values.sort();
    values.dedup();
    Ok(Requirement { key, op, values })
}

fn expected(found: &Token<'_>, want: &str) -> SelectorError {
    SelectorError(format!("found '{}', expected {want}", found.text()))
}

#[cfg(test)]
mod tests;
