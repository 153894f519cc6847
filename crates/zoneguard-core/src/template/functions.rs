//! The functions external-dns gives its templates (its `source/template/functions.go`), with
//! Go's argument checks: a string parameter given no value or another type is an error. Each
//! takes what it reads and builds from the run's [`budget`] before it allocates; so do Go's
//! builtins that build values (`print`, `printf`, `println`, `html`, `js`, `urlquery`,
//! `slice`), which are replaced here by ones that do the same and then answer as gotmpl's do.

use super::budget;
use gotmpl::{Template, TemplateError, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::net::IpAddr;
use std::sync::{Arc, LazyLock};

/// external-dns's source names (`source/types`), which `isSource` accepts.
const KNOWN_SOURCES: [&str; 25] = [
    "node",
    "service",
    "ingress",
    "pod",
    "gateway-httproute",
    "gateway-grpcroute",
    "gateway-tlsroute",
    "gateway-tcproute",
    "gateway-udproute",
    "istio-gateway",
    "istio-virtualservice",
    "ambassador-host",
    "contour-httpproxy",
    "gloo-proxy",
    "traefik-proxy",
    "openshift-route",
    "fake",
    "empty",
    "connector",
    "crd",
    "skipper-routegroup",
    "kong-tcpingress",
    "f5-virtualserver",
    "f5-transportserver",
    "unstructured",
];

/// The names of external-dns's functions.
pub(super) const NAMES: [&str; 11] = [
    "contains",
    "trimPrefix",
    "trimSuffix",
    "trim",
    "toLower",
    "replace",
    "isIPv4",
    "isIPv6",
    "isSource",
    "hasKey",
    "fromJson",
];

/// `template` with external-dns's functions, `isSource` bound to `source`, and Go's builtins
/// that build strings within the run's budget.
pub(super) fn with_all(template: Template, source: &'static str) -> Template {
    with_builtins(template)
        .func("contains", |a| {
            let [s, sub] = strings::<2>("contains", a)?;
            Ok(Value::Bool(s.contains(sub)))
        })
        .func("trimPrefix", |a| {
            let [s, prefix] = strings::<2>("trimPrefix", a)?;
            built("trimPrefix", s.strip_prefix(prefix).unwrap_or(s))
        })
        .func("trimSuffix", |a| {
            let [s, suffix] = strings::<2>("trimSuffix", a)?;
            built("trimSuffix", s.strip_suffix(suffix).unwrap_or(s))
        })
        .func("trim", |a| {
            let [s] = strings::<1>("trim", a)?;
            built("trim", s.trim())
        })
        .func("toLower", |a| {
            let [s] = strings::<1>("toLower", a)?;
            budget::take("toLower", lowered_len(s))?;
            Ok(text(&s.to_lowercase()))
        })
        .func("replace", |a| {
            let [old, new, target] = strings::<3>("replace", a)?;
            budget::take("replace", replaced_len(old, new, target))?;
            Ok(text(&target.replace(old, new)))
        })
        .func("isIPv4", |a| {
            let [s] = strings::<1>("isIPv4", a)?;
            Ok(Value::Bool(
                s.parse::<IpAddr>().is_ok_and(|ip| ip.is_ipv4()),
            ))
        })
        .func("isIPv6", |a| {
            let [s] = strings::<1>("isIPv6", a)?;
            Ok(Value::Bool(
                s.parse::<IpAddr>().is_ok_and(|ip| ip.is_ipv6()),
            ))
        })
        .func("isSource", move |a| {
            let [want] = strings::<1>("isSource", a)?;
            if !KNOWN_SOURCES.iter().any(|k| k.eq_ignore_ascii_case(want)) {
                let valid = KNOWN_SOURCES.join(", ");
                return Err(failed(format!(
                    "isSource: unknown source {want:?} (valid: {valid})"
                )));
            }
            Ok(Value::Bool(source.eq_ignore_ascii_case(want)))
        })
        .func("hasKey", |a| match a {
            [Value::Map(m), Value::String(key)] => Ok(Value::Bool(m.contains_key(key))),
            [Value::Nil, Value::String(_)] => Ok(Value::Bool(false)),
            _ => Err(failed("hasKey: expected a map and a string".into())),
        })
        .func("index", index)
        .func("fromJson", |a| {
            let [s] = strings::<1>("fromJson", a)?;
            budget::take("fromJson", s.len().saturating_mul(JSON_GROWTH))?;
            Ok(serde_json::from_str(s).map_or(Value::Nil, |v| from_json(&v)))
        })
}

/// The most memory a parsed JSON value takes (serde_json's and then gotmpl's, both held while
/// one is converted to the other) for each byte of its text, e.g. `[0,0,…]`.
const JSON_GROWTH: usize = 64;

/// `template` with Go's builtins that build values replaced by ones that first take from the
/// run's budget what they will build, then build as gotmpl's do.
fn with_builtins(template: Template) -> Template {
    template
        .func("print", |a| print("print", a, false))
        .func("println", |a| print("println", a, true))
        .func("printf", printf)
        .func("html", |a| escaped("html", a, gotmpl::html_escape))
        .func("js", |a| escaped("js", a, gotmpl::js_escape))
        .func("urlquery", |a| escaped("urlquery", a, gotmpl::url_encode))
        .func("slice", slice)
}

/// `s`, built within the run's budget.
fn built(function: &str, s: &str) -> Result<Value, TemplateError> {
    budget::take(function, s.len())?;
    Ok(text(s))
}

/// The length of `s.to_lowercase()`, without building it.
fn lowered_len(s: &str) -> usize {
    s.chars()
        .flat_map(char::to_lowercase)
        .map(char::len_utf8)
        .sum()
}

/// The length of `target.replace(old, new)`, without building it: an empty `old` matches
/// before every character and at the end, as in Go.
fn replaced_len(old: &str, new: &str, target: &str) -> usize {
    let count = if old.is_empty() {
        target.chars().count() + 1
    } else {
        target.matches(old).count()
    };
    target
        .len()
        .saturating_sub(count.saturating_mul(old.len()))
        .saturating_add(count.saturating_mul(new.len()))
}

/// Go's `print` (a space between two operands when neither is a string) or `println` (a space
/// between every two, and a newline), as gotmpl's.
fn print(function: &str, args: &[Value], newline: bool) -> Result<Value, TemplateError> {
    let printed = args
        .iter()
        .fold(args.len() + usize::from(newline), |sum, arg| {
            sum.saturating_add(budget::printed_len(arg))
        });
    budget::take(function, printed)?;
    let mut out = String::with_capacity(printed);
    for (i, arg) in args.iter().enumerate() {
        let string = |v: &Value| matches!(v, Value::String(_));
        if i > 0 && (newline || !(string(&args[i - 1]) || string(arg))) {
            out.push(' ');
        }
        _ = write!(out, "{arg}");
    }
    if newline {
        out.push('\n');
    }
    Ok(Value::String(out.into()))
}

/// The most an escaper (`html`, `js`, `urlquery`) makes of one byte: `js`'s `\u003C`.
const ESCAPE_GROWTH: usize = 6;

/// `html`, `js` or `urlquery` of its one argument, as gotmpl's: no value is `<no value>`, a
/// value not a string is escaped as it prints.
fn escaped(
    function: &str,
    args: &[Value],
    escape: fn(&str) -> String,
) -> Result<Value, TemplateError> {
    let [arg] = args else {
        return Err(TemplateError::ArgCount {
            name: function.to_string(),
            expected: 1,
            got: args.len(),
        });
    };
    let read = match arg {
        Value::Nil => NO_VALUE.len(),
        other => budget::printed_len(other),
    };
    budget::take(function, read)?;
    budget::afford(function, read.saturating_mul(ESCAPE_GROWTH))?;
    let input = match arg {
        Value::Nil => Cow::Borrowed(NO_VALUE),
        Value::String(s) => Cow::Borrowed(&**s),
        other => Cow::Owned(other.to_string()),
    };
    let out = escape(&input);
    budget::take(function, out.len())?;
    Ok(Value::String(out.into()))
}

/// What Go's escapers make of no value.
const NO_VALUE: &str = "<no value>";

/// Go's `printf`, by gotmpl's own (run in a template of its own, as it is not public), once
/// the run can afford the most it could build.
fn printf(args: &[Value]) -> Result<Value, TemplateError> {
    let (format, rest) = match args.split_first() {
        Some((Value::String(format), rest)) => (format, rest),
        Some((other, _)) => {
            return Err(failed(format!(
                "printf: first arg must be string, got {other}"
            )))
        }
        None => {
            return Err(TemplateError::ArgCount {
                name: "printf".into(),
                expected: 1,
                got: 0,
            })
        }
    };
    let lens: Vec<usize> = rest.iter().map(budget::printed_len).collect();
    let read = lens
        .iter()
        .fold(format.len(), |sum, n| sum.saturating_add(*n));
    budget::take("printf", read)?;
    budget::afford("printf", printf_bound(format, &lens))?;
    let data = BTreeMap::from([
        (Arc::from("f"), Value::String(format.clone())),
        (Arc::from("a"), Value::List(rest.into())),
    ]);
    let out = printf_template(rest.len())?.execute_to_string(&Value::Map(Arc::new(data)))?;
    budget::take("printf", out.len())?;
    Ok(Value::String(out.into()))
}

/// Go's `slice` of a string or a list, as gotmpl's: `slice x`, `slice x i`, `slice x i j`,
/// and `slice x i j k` of a list (`i <= j <= k <= len`).
fn slice(args: &[Value]) -> Result<Value, TemplateError> {
    let Some((value, bounds)) = args.split_first() else {
        return Err(TemplateError::ArgCount {
            name: "slice".into(),
            expected: 1,
            got: 0,
        });
    };
    if bounds.len() > 3 {
        return Err(failed(format!(
            "wrong number of args for slice: want 1-4 got {}",
            args.len()
        )));
    }
    budget::afford("slice", held(value))?;
    let bounds = bounds
        .iter()
        .map(slice_index)
        .collect::<Result<Vec<_>, _>>()?;
    let sliced = match bounds[..] {
        [] => value.slice(None, None),
        [start] => value.slice(Some(start), None),
        [start, end] => value.slice(Some(start), Some(end)),
        [start, end, max] => slice3(value, start, end, max),
        _ => Err(failed("slice: too many indexes".into())),
    }?;
    budget::take("slice", held(&sliced))?;
    Ok(sliced)
}

/// The 3-index `slice` of a list, as gotmpl's.
fn slice3(value: &Value, start: i64, end: i64, max: i64) -> Result<Value, TemplateError> {
    let Value::List(list) = value else {
        return Err(failed(match value {
            Value::String(_) => "slice: cannot 3-index slice a string".into(),
            other => format!("slice: cannot slice type {}", other.type_name()),
        }));
    };
    let len = i64::try_from(list.len()).unwrap_or(i64::MAX);
    if start < 0 || end < 0 || max < 0 {
        return Err(failed(format!(
            "slice: index out of range [{start}:{end}:{max}]"
        )));
    }
    if start > end || end > max {
        let (low, high) = if start > end {
            (start, end)
        } else {
            (end, max)
        };
        return Err(failed(format!(
            "slice: invalid slice index: {low} > {high}"
        )));
    }
    if max > len {
        return Err(failed(format!(
            "slice: index out of range [{start}:{end}:{max}] with length {len}"
        )));
    }
    value.slice(Some(start), Some(end))
}

/// An index of `slice`, as gotmpl reads it.
fn slice_index(arg: &Value) -> Result<i64, TemplateError> {
    match arg {
        Value::Int(n) => Ok(*n),
        Value::Uint(n) => {
            i64::try_from(*n).map_err(|_| failed(format!("slice: index out of range: {n}")))
        }
        _ => Err(failed(format!(
            "slice: index must be integer, got {}",
            arg.type_name()
        ))),
    }
}

/// The bytes a string or a list of values holds (a list's items are shared, not copied).
fn held(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::List(items) => items.len().saturating_mul(std::mem::size_of::<Value>()),
        _ => 0,
    }
}

/// gotmpl's widest width or precision (it clamps larger ones).
const PRINTF_MAX_PAD: usize = u16::MAX as usize;

/// The most a verb prints besides its padding and its operand: a float of 1e308 in full, or
/// `%!v(BADWIDTH)%!v(BADPREC)` and a type name.
const PRINTF_VERB: usize = 400;

/// The most `printf` makes of `format` and operands that print `lens` long: each verb its
/// widest operand grown six times (`%q`, `% #x`), a width and a precision, and the
/// `%!(EXTRA type=value)` of every operand.
fn printf_bound(format: &str, lens: &[usize]) -> usize {
    let widest = lens.iter().copied().max().unwrap_or(0);
    let verb = widest
        .saturating_mul(ESCAPE_GROWTH)
        .saturating_add(PRINTF_VERB);
    let extra = lens.iter().fold(0, |sum: usize, n| {
        sum.saturating_add(*n).saturating_add(PRINTF_VERB)
    });
    let mut bound = format.len().saturating_add(extra);
    let mut rest = format;
    while let Some(at) = rest.find('%') {
        let spec = &rest[at + 1..];
        let end = spec
            .find(|c: char| !(c.is_ascii_digit() || "+- #0.*[]".contains(c)))
            .unwrap_or(spec.len());
        bound = bound
            .saturating_add(verb)
            .saturating_add(pads(&spec[..end]));
        rest = &spec[end..];
    }
    bound
}

/// The most padding a verb's flags, width and precision (`spec`) can ask for: each number or
/// `*` at gotmpl's widest.
fn pads(spec: &str) -> usize {
    let stars = spec.matches('*').count().saturating_mul(PRINTF_MAX_PAD);
    spec.split(|c: char| !c.is_ascii_digit())
        .filter(|digits| !digits.is_empty())
        .map(|digits| digits.parse().unwrap_or(PRINTF_MAX_PAD).min(PRINTF_MAX_PAD))
        .fold(stars, usize::saturating_add)
}

/// How many operands a `printf` template is kept for (more are parsed when called).
const PRINTF_KEPT: usize = 8;

/// The templates `{{printf .f (index .a 0) …}}` of 0 to [`PRINTF_KEPT`] operands.
static PRINTF_TEMPLATES: LazyLock<Vec<Result<Template, String>>> = LazyLock::new(|| {
    (0..=PRINTF_KEPT)
        .map(|n| printf_parsed(n).map_err(|e| e.to_string()))
        .collect()
});

/// The template that runs gotmpl's `printf` on `.f` and the `operands` items of `.a`.
fn printf_template(operands: usize) -> Result<Cow<'static, Template>, TemplateError> {
    match PRINTF_TEMPLATES.get(operands) {
        Some(Ok(template)) => Ok(Cow::Borrowed(template)),
        Some(Err(e)) => Err(failed(format!("printf: {e}"))),
        None => printf_parsed(operands).map(Cow::Owned),
    }
}

fn printf_parsed(operands: usize) -> Result<Template, TemplateError> {
    let args: String = (0..operands).map(|i| format!(" (index .a {i})")).collect();
    Template::new("printf").parse(&format!("{{{{printf .f{args}}}}}"))
}

/// Go's `index`, but a key missing from a map of strings (labels, annotations, a selector)
/// gives "", that map's zero value, as Go's does for a `map[string]string`.
fn index(args: &[Value]) -> Result<Value, TemplateError> {
    let (first, keys) = args
        .split_first()
        .filter(|(_, keys)| !keys.is_empty())
        .ok_or_else(|| failed("wrong number of args for index: want at least 2".into()))?;
    let mut value = first.clone();
    for key in keys {
        value = match (&value, key) {
            (Value::Map(m), Value::String(k)) if !m.contains_key(k) => {
                let strings = m.values().all(|v| matches!(v, Value::String(_)));
                if strings {
                    text("")
                } else {
                    Value::Nil
                }
            }
            _ => value.index(key)?,
        };
    }
    Ok(value)
}

/// The `N` arguments of `name`, each a string, read within the run's budget.
fn strings<'a, const N: usize>(
    name: &str,
    args: &'a [Value],
) -> Result<[&'a str; N], TemplateError> {
    if args.len() != N {
        return Err(failed(format!(
            "wrong number of args for {name}: want {N} got {}",
            args.len()
        )));
    }
    let mut out = [""; N];
    for (slot, arg) in out.iter_mut().zip(args) {
        *slot = match arg {
            Value::String(s) => s,
            Value::Nil => return Err(failed(format!("{name}: invalid value; expected string"))),
            other => {
                return Err(failed(format!(
                    "{name}: wrong type for value; expected string; got {}",
                    other.type_name()
                )))
            }
        };
    }
    let read = out
        .iter()
        .fold(0, |sum: usize, s| sum.saturating_add(s.len()));
    budget::take(name, read)?;
    Ok(out)
}

fn text(s: &str) -> Value {
    Value::String(s.into())
}

fn failed(message: String) -> TemplateError {
    TemplateError::Exec(message)
}

/// A JSON value as Go's `json.Unmarshal` into `any` gives it: numbers are float64.
fn from_json(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or_default()),
        serde_json::Value::String(s) => text(s),
        serde_json::Value::Array(items) => Value::List(items.iter().map(from_json).collect()),
        serde_json::Value::Object(members) => {
            let map: BTreeMap<Arc<str>, Value> = members
                .iter()
                .map(|(k, v)| (Arc::from(k.as_str()), from_json(v)))
                .collect();
            Value::Map(Arc::new(map))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gotmpl::tmap;

    /// What `template` makes of `data`, with these functions or with gotmpl's builtins alone.
    fn run(template: Template, text: &str, data: &Value) -> Result<String, String> {
        let parsed = template.parse(text).map_err(|e| e.to_string())?;
        budget::within(|| parsed.execute_to_string(data))
            .0
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_builtins_replaced_here_answer_as_gotmpls_own() {
        let data = tmap! {
            "Name" => "web-api",
            "Labels" => tmap! { "team" => "Pay" },
            "List" => Value::List(vec![Value::Int(1), Value::Int(2), Value::Int(3)].into()),
            "Big" => Value::Uint(u64::MAX),
        };
        let table = [
            r#"{{print "a" 1 2 "b" .Labels nil 1.5 true}}"#,
            r#"{{print}}{{print .Name}}{{print 1 2}}"#,
            r#"{{println "a" 1 .Labels}}{{println}}"#,
            r#"{{printf "%s-%03d|%-6s|%q|%x|% X|%#x" .Name 7 "ab" "a\"b" "hi" "hi" "hi"}}"#,
            r#"{{printf "%*d|%-*d|%.*f|%.2s|%[2]s.%[1]s" 5 3 4 2 2 3.14159 "abc" "x" "y"}}"#,
            r#"{{printf "%d"}}{{printf "x" 1 "y"}}{{printf "%!"}}{{printf "%z" 1}}{{printf "%"}}"#,
            r#"{{printf "%v|%d|%t|%c|%U|%#U|%e|%g|%b|%o" .Labels .Big true 65 65 65 1e6 1e21 5 8}}"#,
            r#"{{printf 1}}"#,
            r#"{{printf}}"#,
            r#"{{html "<a href='x'>&\"" }}{{html 1}}{{html nil}}{{html .Labels}}"#,
            r#"{{js "a'b\"c<>&=\\\u2028"}}{{js 2}}{{js nil}}"#,
            r#"{{urlquery "a b&c/d~"}}{{urlquery nil}}"#,
            r#"{{html "a" "b"}}"#,
            r#"{{js}}"#,
            r#"{{slice .Name}}|{{slice .Name 4}}|{{slice .Name 1 3}}|{{slice .List 1}}|{{slice .List 0 1 2}}"#,
            r#"{{slice .Name 5 2}}"#,
            r#"{{slice .Name 1 2 3}}"#,
            r#"{{slice .List 2 1 3}}"#,
            r#"{{slice .List 0 3 2}}"#,
            r#"{{slice .List 0 1 9}}"#,
            r#"{{slice .List -1 1 2}}"#,
            r#"{{slice .List "a"}}"#,
            r#"{{slice .List .Big}}"#,
            r#"{{slice 1 2}}"#,
            r#"{{slice .List 1 2 3 4}}"#,
            r#"{{slice}}"#,
            r#"{{slice "héllo" 2}}"#,
        ];
        for text in table {
            let ours = run(with_all(Template::new("t"), "service"), text, &data);
            let gotmpls = run(Template::new("t"), text, &data);
            assert_eq!(ours, gotmpls, "{text}");
        }
    }

    #[test]
    fn a_bound_before_building_is_never_below_what_is_built() {
        let sizes = |format: &str, args: &[Value]| {
            let mut all = vec![Value::String(format.into())];
            all.extend_from_slice(args);
            let built = budget::within(|| printf(&all)).0.map(|v| v.to_string());
            let lens: Vec<usize> =
                budget::within(|| args.iter().map(budget::printed_len).collect()).0;
            (built.map(|s| s.len()), printf_bound(format, &lens))
        };
        let s = |t: &str| Value::String(t.into());
        let table: [(&str, Vec<Value>); 8] = [
            ("%s.%s", vec![s("web"), s("shop")]),
            ("%q", vec![s("\u{1}\u{1}\u{1}")]),
            ("% #x", vec![s("abc")]),
            ("%.65535f", vec![Value::Float(1e308)]),
            ("%*d", vec![Value::Int(100_000), Value::Int(1)]),
            ("%[1]s%[1]s%[1]s", vec![s("abc")]),
            ("%d %s", vec![s("x"), Value::Int(1), Value::Nil, s("extra")]),
            ("%v", vec![Value::Float(5e-324)]),
        ];
        for (format, args) in table {
            let (built, bound) = sizes(format, &args);
            assert!(built.is_ok_and(|n| n <= bound), "{format}: {bound}");
        }
        let replaced = [
            ("a", "bb", "banana"),
            ("", "-", "héllo"),
            ("aa", "x", "aaaaa"),
            ("", "", ""),
        ];
        for (old, new, target) in replaced {
            assert_eq!(
                replaced_len(old, new, target),
                target.replace(old, new).len(),
                "{old:?} {new:?} {target:?}"
            );
        }
        for s in ["ABC", "İstanbul", "ΣΑΣ", "Ⱥ", "\u{212a}", ""] {
            assert_eq!(lowered_len(s), s.to_lowercase().len(), "{s}");
        }
    }
}
