//! `zoneguard check` run as a process on fixture manifests: verdicts, reasons, output, exit codes.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

const RULES: &str = "tests/fixtures/check/rules.yaml";

/// `zoneguard ARGS` started in the package's directory, its three streams piped.
fn spawn(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_zoneguard"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("zoneguard starts")
}

fn zoneguard(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = spawn(args);
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("write stdin");
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("zoneguard finishes")
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn a_mixed_file_gives_one_result_per_object_in_order_and_exit_1() {
    let out = zoneguard(
        &[
            "check",
            "--rules",
            RULES,
            "--output",
            "json",
            "tests/fixtures/check/mixed.yaml",
        ],
        None,
    );
    assert_exit(&out, 1);
    let doc = json_of(&out);
    let results = doc["results"].as_array().expect("results");
    let names: Vec<&str> = results
        .iter()
        .map(|r| r["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(names, ["ok", "stolen", "api", "external-dns"]);
    let allowed: Vec<bool> = results
        .iter()
        .map(|r| r["allowed"].as_bool().unwrap_or(true))
        .collect();
    assert_eq!(allowed, [true, false, true, false]);
    assert_eq!(
        results[1]["violations"][0]["reason"],
        "hostname-not-delegated"
    );
    assert_eq!(results[1]["violations"][0]["field"], "spec.rules[0].host");
    assert_eq!(results[1]["violations"][0]["value"], "login.example.com");
    assert_eq!(results[2]["namespace"], "default");
    assert_eq!(
        results[2]["patch"][0]["value"]["external-dns.alpha.kubernetes.io/hostname"],
        "api.default.example.com"
    );
    assert_eq!(doc["skipped"][0]["kind"], "Deployment");
}

#[test]
fn the_external_dns_service_account_in_the_wrong_namespace_is_denied_with_the_nearest_miss() {
    let out = zoneguard(
        &[
            "check",
            "--rules",
            RULES,
            "--output",
            "json",
            "tests/fixtures/check/mixed.yaml",
        ],
        None,
    );
    let doc = json_of(&out);
    let sa = &doc["results"][3]["violations"][0];
    assert_eq!(sa["reason"], "role-not-trusted");
    let message = sa["message"].as_str().unwrap_or_default();
    assert!(message.contains("admits `system:serviceaccount:kube-system:external-dns`, not `system:serviceaccount:external-dns:external-dns`"), "{message}");
}

#[test]
fn text_output_groups_violations_under_their_object_with_a_summary() {
    let out = zoneguard(
        &["check", "--rules", RULES, "tests/fixtures/check/mixed.yaml"],
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("tests/fixtures/check/mixed.yaml: Ingress team-a/stolen: DENIED\n  - line 11: spec.rules[0].host \"login.example.com\" is outside this namespace's domains (team-a.example.com)"), "{text}");
    assert!(text.contains("Deployment app: skipped"), "{text}");
    assert!(
        text.ends_with("4 checked: 2 admitted, 2 denied; 1 skipped\n"),
        "{text}"
    );
}

#[test]
fn stdin_json_that_passes_exits_0() {
    let input = std::fs::read("tests/fixtures/check/admitted.json").expect("fixture");
    let out = zoneguard(&["check", "--rules", RULES, "-"], Some(&input));
    assert_exit(&out, 0);
}

#[test]
fn a_directory_is_walked_and_unusable_files_exit_2_naming_file_and_line() {
    let out = zoneguard(&["check", "--rules", RULES, "tests/fixtures/check"], None);
    assert_unusable(
        &out,
        &[
            "tests/fixtures/check/broken.yaml:",
            "non-string-annotation.yaml:6: document 1: Service default/x: metadata.annotations[\"external-dns.alpha.kubernetes.io/ttl\"] is 60, not a string",
            "misshapen.yaml:6: document 1: Ingress default/wrong: spec.rules is a mapping, not a list; Kubernetes would refuse the object",
            "misshapen.yaml:15: document 2, items[1] is not a Kubernetes object",
        ],
    );
}

#[test]
fn bad_rules_exit_2_with_file_line_and_key() {
    let out = zoneguard(
        &[
            "check",
            "--rules",
            "tests/fixtures/check/bad-rules.yaml",
            "tests/fixtures/check/admitted.json",
        ],
        None,
    );
    assert_unusable(
        &out,
        &["tests/fixtures/check/bad-rules.yaml:2: regexDomainFilter: \"(unclosed\" is not a valid regular expression"],
    );
}

#[test]
fn a_rule_file_that_gives_no_rules_does_not_hide_another_file_s_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let keyless = dir.path().join("keyless.yaml");
    std::fs::write(&keyless, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: zoneguard, labels: {zoneguard.io/rules: \"true\"}}\ndata: {other: x}\n").expect("write");
    let bad = rules_file(&dir, "regexDomainFilter: \"(x\"\n");
    let out = zoneguard(
        &[
            "check",
            "--rules",
            &keyless.display().to_string(),
            "--rules",
            &bad,
            "-",
        ],
        Some(b""),
    );
    assert_unusable(
        &out,
        &[
            "keyless.yaml: ConfigMap zoneguard/a: data[\"rules.yaml\"] is missing",
            "rules.yaml:1: regexDomainFilter: \"(x\" is not a valid regular expression",
        ],
    );
}

#[test]
fn an_empty_rules_file_is_unusable_rules() {
    // A byte order mark alone is no text either.
    for text in ["\n", "\u{feff}", "\u{feff}\n "] {
        let dir = tempfile::tempdir().expect("tempdir");
        let empty = rules_file(&dir, text);
        let out = zoneguard(&["check", "--rules", &empty, "-"], Some(b""));
        assert_unusable(
            &out,
            &[
                "rules.yaml: is empty (a file being written, or a mistake)",
                "write {} for a rule set that checks nothing",
            ],
        );
    }
}

#[test]
fn garbage_on_stdin_exits_2_without_a_panic() {
    let out = zoneguard(
        &["check", "--rules", RULES, "-"],
        Some(&[0xde, 0xad, 0xbe, 0xef, 0x00, 0xff]),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn a_ten_megabyte_document_is_read_without_trouble() {
    let padding = "x".repeat(10 * 1024 * 1024);
    let doc = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: big}}\ndata: {{blob: {padding}}}\n"
    );
    let out = zoneguard(&["check", "--rules", RULES, "-"], Some(doc.as_bytes()));
    assert_exit(&out, 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("skipped"));
}

#[test]
fn deeply_nested_json_is_an_input_error() {
    let doc = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let out = zoneguard(&["check", "--rules", RULES, "-"], Some(doc.as_bytes()));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_examples_in_the_readme_run_as_shown() {
    let out = zoneguard(
        &[
            "check",
            "--rules",
            "examples/rules.yaml",
            "examples/manifests",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "examples/manifests/alb-ingress-no-host.yaml: Ingress default/echo: admitted"
        ),
        "{text}"
    );
    assert!(
        text.contains("5 checked: 3 admitted, 2 denied; 0 skipped"),
        "{text}"
    );
}

#[test]
fn an_object_without_a_name_is_checked_and_shown_as_unnamed() {
    let doc = b"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {namespace: team-a}\nspec: {rules: [{host: x.other.org}]}\n";
    let out = zoneguard(&["check", "--rules", RULES, "-"], Some(doc));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("-: Ingress team-a/(unnamed): DENIED"));
}

#[test]
fn a_generate_name_fills_no_name_template_and_is_shown_as_the_name() {
    // The API server makes the name after the mutating webhooks: `{name}` has nothing yet.
    let doc = b"apiVersion: v1\nkind: Service\nmetadata: {generateName: web-, namespace: team-a}\nspec: {type: LoadBalancer}\n";
    let out = zoneguard(
        &["check", "--rules", RULES, "--output", "json", "-"],
        Some(doc),
    );
    assert_exit(&out, 0);
    let result = &json_of(&out)["results"][0];
    assert_eq!(result["name"], "web-");
    assert_eq!(result["allowed"], true);
    assert_eq!(result["patch"], serde_json::json!([]), "{result}");
}

#[test]
fn a_linked_directory_is_not_walked_so_a_link_loop_ends() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("svc.yaml"),
        "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: team-a}\n",
    )
    .expect("write");
    std::os::unix::fs::symlink(".", dir.path().join("self")).expect("link");
    std::os::unix::fs::symlink("..", dir.path().join("up")).expect("link");
    let path = dir.path().to_str().expect("utf-8");
    let out = zoneguard(&["check", "--rules", RULES, "--output", "json", path], None);
    assert_exit(&out, 0);
    assert_eq!(json_of(&out)["results"].as_array().map(Vec::len), Some(1));
}

#[test]
fn hidden_files_and_directories_are_skipped_in_a_walk_but_read_when_named() {
    let dir = tempfile::tempdir().expect("temp dir");
    let service = "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: team-a}\n";
    let workflow = "name: ci\non: [push]\njobs: {}\n";
    let hidden = dir.path().join(".github/workflows");
    std::fs::create_dir_all(&hidden).expect("mkdir");
    std::fs::write(hidden.join("ci.yml"), workflow).expect("write");
    std::fs::write(dir.path().join(".draft.yaml"), service).expect("write");
    std::fs::write(dir.path().join("svc.yaml"), service).expect("write");
    let walked = zoneguard(
        &[
            "check",
            "--rules",
            RULES,
            "--output",
            "json",
            dir.path().to_str().expect("utf-8"),
        ],
        None,
    );
    assert_eq!(
        walked.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&walked.stderr)
    );
    let files: Vec<Value> = json_of(&walked)["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["file"].clone())
        .collect();
    assert_eq!(files, [dir.path().join("svc.yaml").display().to_string()]);
    let named = dir.path().join(".draft.yaml");
    let named = zoneguard(
        &[
            "check",
            "--rules",
            RULES,
            "--output",
            "json",
            named.to_str().expect("utf-8"),
        ],
        None,
    );
    assert_eq!(json_of(&named)["results"].as_array().map(Vec::len), Some(1));
    let workflow = hidden.join("ci.yml");
    let named = zoneguard(
        &["check", "--rules", RULES, workflow.to_str().expect("utf-8")],
        None,
    );
    assert_eq!(
        named.status.code(),
        Some(2),
        "a named non-object is still unusable input"
    );
}

#[test]
fn json_output_keeps_the_spec_s_field_order() {
    let doc = b"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: team-a}\nspec: {rules: [{host: x.other.org}]}\n";
    let out = zoneguard(
        &["check", "--rules", RULES, "--output", "json", "-"],
        Some(doc),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let order = [
        "\"file\"",
        "\"apiVersion\"",
        "\"kind\"",
        "\"namespace\"",
        "\"name\"",
        "\"allowed\"",
        "\"violations\"",
        "\"field\"",
        "\"value\"",
        "\"reason\"",
        "\"message\"",
        "\"warnings\"",
        "\"patch\"",
        "\"skipped\"",
    ];
    let positions: Vec<usize> = order
        .iter()
        .map(|k| text.find(k).unwrap_or(usize::MAX))
        .collect();
    assert!(
        positions.windows(2).all(|w| w[0] < w[1]),
        "{positions:?}\n{text}"
    );
}

#[test]
fn warn_mode_text_shows_each_violation_once_as_an_admitted_warning() {
    let dir = tempfile::tempdir().expect("temp dir");
    let rules = dir.path().join("rules.yaml");
    std::fs::write(&rules, "domainFilters: [example.com]\nenforcement: warn\n").expect("write");
    let doc = b"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: w, namespace: a}\nspec: {rules: [{host: x.other.org}]}\n";
    let out = zoneguard(
        &["check", "--rules", rules.to_str().expect("utf-8"), "-"],
        Some(doc),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(text.matches("x.other.org").count(), 1, "{text}");
    assert!(
        text.contains("  warning: spec.rules[0].host \"x.other.org\" is outside"),
        "{text}"
    );
    assert!(text.contains("(zoneguard warn mode: admitted)"), "{text}");
}

#[test]
fn a_manifest_file_or_stdin_starting_with_a_byte_order_mark_is_read_as_without_it() {
    let mixed = std::fs::read("tests/fixtures/check/mixed.yaml").expect("fixture");
    let with_bom = [b"\xEF\xBB\xBF".as_slice(), &mixed].concat();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bom.yaml");
    std::fs::write(&file, &with_bom).unwrap();
    let file = file.display().to_string();
    let names = |out: &Output| -> Vec<String> {
        json_of(out)["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| r["name"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    let table: [(&str, Option<&[u8]>); 2] = [(&file, None), ("-", Some(&with_bom))];
    for (path, stdin) in table {
        let out = zoneguard(
            &["check", "--rules", RULES, "--output", "json", path],
            stdin,
        );
        assert_eq!(
            out.status.code(),
            Some(1),
            "{path}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            names(&out),
            ["ok", "stolen", "api", "external-dns"],
            "{path}"
        );
    }
}

#[test]
fn rule_configmaps_as_the_cluster_holds_them_give_the_verdicts_of_the_rules_file() {
    let check = |rules: &str| {
        zoneguard(
            &[
                "check",
                "--rules",
                rules,
                "--output",
                "json",
                "tests/fixtures/check/mixed.yaml",
            ],
            None,
        )
    };
    let (file, configmaps) = (
        check(RULES),
        check("tests/fixtures/check/rules-configmaps.yaml"),
    );
    assert_eq!(configmaps.status.code(), Some(1));
    let (mut from_configmaps, from_file) = (json_of(&configmaps), json_of(&file));
    let warnings = from_configmaps["warnings"].take();
    from_configmaps["warnings"] = serde_json::json!([]);
    assert_eq!(from_configmaps, from_file);
    let message = "ConfigMap zoneguard/zoneguard-rules-draft has data[\"rules.yaml\"] but not the label zoneguard.io/rules: \"true\", so zoneguard serve would not read it; not used";
    let source = "tests/fixtures/check/rules-configmaps.yaml";
    assert_eq!(
        warnings,
        serde_json::json!([{"message": message, "source": source}])
    );
    assert_eq!(
        String::from_utf8_lossy(&configmaps.stderr),
        format!("zoneguard check: rules: warning: {source}: {message}\n")
    );
}

#[test]
fn warnings_about_the_rules_files_are_in_the_json_document_and_unchanged_on_stderr() {
    let dir = tempfile::tempdir().expect("tempdir");
    let configmap = |name: &str, namespace: &str, labels: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: {namespace}, labels: {{{labels}}}}}\ndata: {{rules.yaml: 'domainFilters: [example.com]'}}\n")
    };
    let label = "zoneguard.io/rules: \"true\"";
    let text = [
        configmap("a", "zoneguard", label),
        configmap("b", "elsewhere", label),
        configmap("forgot", "zoneguard", ""),
    ]
    .join("---\n");
    let rules = rules_file(&dir, &text);
    let unlabelled = "ConfigMap zoneguard/forgot has data[\"rules.yaml\"] but not the label zoneguard.io/rules: \"true\", so zoneguard serve would not read it; not used";
    let namespaces = "rule ConfigMaps from 2 namespaces (elsewhere, zoneguard) are combined here, while zoneguard serve reads those of one namespace (--rules-namespace); give check the ConfigMaps of that one alone to judge as the cluster does";
    let stderr = format!("zoneguard check: rules: warning: {rules}: {unlabelled}\nzoneguard check: rules: warning: {namespaces}\n");
    let json = serde_json::json!([
        {"message": unlabelled, "source": rules},
        {"message": namespaces},
    ]);
    let ingress = b"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec: {rules: [{host: a.example.com}]}\n";
    let cases: [(&str, &[u8], i32); 2] = [
        ("rules that are used", ingress, 0),
        ("manifests that are not", b"kind: [\n", 2),
    ];
    for (what, stdin, code) in cases {
        let out = zoneguard(
            &["check", "--rules", &rules, "--output", "json", "-"],
            Some(stdin),
        );
        assert_exit(&out, code);
        assert_eq!(json_of(&out)["warnings"], json, "{what}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with(&stderr), "{what}: {err}");
        let text = zoneguard(&["check", "--rules", &rules, "-"], Some(stdin));
        assert_eq!(String::from_utf8_lossy(&text.stderr), err, "{what}");
        let stdout = String::from_utf8_lossy(&text.stdout);
        assert!(!stdout.contains("warning"), "{what}: text stdout: {stdout}");
    }
    let keyless = rules_file(&dir, &(text + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: zoneguard, labels: {zoneguard.io/rules: \"true\"}}\n"));
    let (code, doc) = json_doc(&["--rules", &keyless, "-"], Some(ingress));
    assert_eq!(code, Some(2), "{doc}");
    assert_eq!(doc["enforcement"], Value::Null, "{doc}");
    assert_eq!(
        doc["warnings"], json,
        "unusable rules keep their warnings: {doc}"
    );
}

#[test]
fn valid_rules_that_do_not_do_what_they_look_meant_to_are_warned_about_at_their_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let configmap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: base, namespace: zoneguard, labels: {zoneguard.io/rules: \"true\"}}\ndata:\n  rules.yaml: |\n    domainFilters:\n      - example.com\n      - \"*.example.org\"\n";
    let rules = rules_file(&dir, configmap);
    let message = "\"*.example.org\" is a domain, not a pattern: external-dns compares name suffixes, so it matches the wildcard name *.example.org and the names under it alone, not a.example.org; to admit every name under example.org write example.org";
    let ingress = b"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec: {rules: [{host: a.example.com}]}\n";
    let (code, doc) = json_doc(&["--rules", &rules, "-"], Some(ingress));
    assert_eq!(code, Some(0), "{doc}");
    let want = serde_json::json!([{"message": message, "source": rules, "configMap": "zoneguard/base", "line": 3, "key": "domainFilters[1]"}]);
    assert_eq!(doc["warnings"], want, "{doc}");
    let text = zoneguard(&["check", "--rules", &rules, "-"], Some(ingress));
    assert_exit(&text, 0);
    let stderr = format!("zoneguard check: rules: warning: {rules}: ConfigMap zoneguard/base:3: domainFilters[1]: {message}\n");
    assert_eq!(String::from_utf8_lossy(&text.stderr), stderr);
}

/// Writes rules under which external-dns reads only Ingresses of class `public`; their path.
fn public_class_rules(dir: &tempfile::TempDir) -> String {
    rules_file(
        dir,
        "domainFilters: [example.com]\nsources: {ingressClassNames: [public]}\n",
    )
}

/// `out` exited 2 (unusable input), its stderr saying each of `wants`.
fn assert_unusable(out: &Output, wants: &[&str]) {
    assert_exit(out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    for want in wants {
        assert!(err.contains(want), "{want:?} not in:\n{err}");
    }
}

/// `out` exited with `code`; else the failure shows what it printed.
fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Whether each result of `zoneguard check --output json` was admitted, in order.
fn allowed(results: &[Value]) -> Vec<bool> {
    results
        .iter()
        .map(|r| r["allowed"].as_bool().unwrap_or(false))
        .collect()
}

/// Writes `text` as `rules.yaml` in `dir`; its path.
fn rules_file(dir: &tempfile::TempDir, text: &str) -> String {
    let rules = dir.path().join("rules.yaml");
    std::fs::write(&rules, text).expect("write rules");
    rules.display().to_string()
}

/// `zoneguard check --rules <rules> --output json -` on `manifests`: its exit status (its
/// stderr beside it) and its results.
fn check_json(rules: &str, manifests: &str) -> (Option<i32>, String, Vec<Value>) {
    let out = zoneguard(
        &["check", "--rules", rules, "--output", "json", "-"],
        Some(manifests.as_bytes()),
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let results = json_of(&out)["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    (out.status.code(), stderr, results)
}

#[test]
fn ingresses_of_a_class_external_dns_does_not_read_are_admitted_unchecked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = public_class_rules(&dir);
    let ingress = |name: &str, class: &str, annotations: &str| {
        format!("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {{name: {name}, annotations: {{{annotations}}}}}\nspec: {{ingressClassName: {class}, rules: [{{host: {name}.corp.internal}}]}}\n")
    };
    let manifests = [
        ingress("quiet", "internal", ""),
        ingress(
            "asks",
            "internal",
            "external-dns.alpha.kubernetes.io/ttl: '60'",
        ),
        ingress("public", "public", ""),
    ]
    .join("---\n");
    let (code, _, results) = check_json(&rules, &manifests);
    assert_eq!(code, Some(1));
    let verdicts: Vec<(bool, usize, usize)> = results
        .iter()
        .map(|r| {
            let count = |key: &str| r[key].as_array().map_or(0, Vec::len);
            (
                r["allowed"].as_bool().unwrap_or(false),
                count("violations"),
                count("warnings"),
            )
        })
        .collect();
    assert_eq!(verdicts, [(true, 0, 0), (true, 0, 1), (false, 1, 0)]);
    assert!(
        results[1]["warnings"][0]
            .as_str()
            .unwrap_or_default()
            .starts_with("spec.ingressClassName is \"internal\", not a class external-dns reads (sources.ingressClassNames: public): external-dns skips this Ingress"),
        "{}",
        results[1]["warnings"][0]
    );
    let details = &results[1]["warningDetails"][0];
    assert_eq!(details["reason"], "external-dns-skips", "{details}");
    assert_eq!(details["message"], results[1]["warnings"][0], "{details}");
    assert_eq!(
        results[2]["violations"][0]["reason"],
        "hostname-outside-filters"
    );
}

#[test]
fn an_ingress_without_a_class_skipped_first_by_the_namespace_keeps_that_warning_beside_the_class_one(
) {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = rules_file(
        &dir,
        "domainFilters: [example.com]\nsources: {namespace: dns-public, ingressClassNames: [public]}\n",
    );
    let ingress = b"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: shop, annotations: {external-dns.alpha.kubernetes.io/ttl: '60'}}\nspec: {rules: [{host: web.example.com}]}\n";
    let out = zoneguard(
        &["check", "--rules", &rules, "--output", "json", "-"],
        Some(ingress),
    );
    assert_exit(&out, 0);
    let result = json_of(&out)["results"][0].clone();
    let warnings = &result["warnings"];
    let texts: Vec<&str> = (warnings.as_array().into_iter().flatten())
        .map(|w| w.as_str().unwrap_or_default())
        .collect();
    assert_eq!(texts.len(), 2, "{warnings}");
    assert!(
        texts[0].starts_with(r#"this Ingress is in the namespace "shop", and external-dns reads only "dns-public" (sources.namespace)"#),
        "{warnings}"
    );
    let reason = &result["warningDetails"][0]["reason"];
    assert_eq!(reason, "external-dns-skips", "{result}");
    assert!(
        texts[1].starts_with("this Ingress names no ingress class and external-dns reads only the classes of sources.ingressClassNames (public)"),
        "{warnings}"
    );
}

#[test]
fn an_ingress_without_a_class_is_checked_with_the_default_class_given() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = public_class_rules(&dir);
    let ingress = b"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec: {rules: [{host: web.corp.internal}]}\n";
    let check = |extra: &[&str]| {
        let mut args = vec!["check", "--rules", &rules, "--output", "json"];
        args.extend_from_slice(extra);
        args.push("-");
        let out = zoneguard(&args, Some(ingress));
        (out.status.code(), json_of(&out)["results"][0].clone())
    };
    let (code, result) = check(&[]);
    assert_eq!(
        code,
        Some(0),
        "as written: external-dns reads no class-less Ingress, so its names are not checked"
    );
    let warning = result["warnings"][0].as_str().unwrap_or_default();
    assert!(
        warning.contains(
            "so as written it is skipped and its hostnames were not checked (web.corp.internal)"
        ) && warning
            .contains("pass --default-ingress-class NAME to check them as the cluster will"),
        "{result}"
    );
    let (code, result) = check(&["--default-ingress-class", "public"]);
    assert_eq!(code, Some(1), "{result}");
    assert_eq!(
        result["violations"][0]["reason"],
        "hostname-outside-filters"
    );
    let (code, result) = check(&["--default-ingress-class", "internal"]);
    assert_eq!(code, Some(0), "{result}");
    assert_eq!(result["warnings"], serde_json::json!([]), "{result}");
    // With an external-dns annotation the core warns of the skip too: check's warning, which
    // says what to do, takes its place rather than standing beside it.
    let annotated = b"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, annotations: {external-dns.alpha.kubernetes.io/hostname: a.corp.internal}}\nspec: {rules: [{host: web.corp.internal}]}\n";
    let out = zoneguard(
        &["check", "--rules", &rules, "--output", "json", "-"],
        Some(annotated),
    );
    let warnings = json_of(&out)["results"][0]["warnings"].clone();
    assert_eq!(warnings.as_array().map(Vec::len), Some(1), "{warnings}");
    assert!(
        warnings[0]
            .as_str()
            .unwrap_or_default()
            .contains("its hostnames were not checked (a.corp.internal, web.corp.internal)"),
        "{warnings}"
    );
}

#[test]
fn objects_external_dns_s_label_and_annotation_filters_leave_out_are_admitted_unchecked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "domainFilters: [example.com]\nsources:\n  labelFilter: 'dns in (public)'\n  annotationFilter: '!example.com/no-dns'\n";
    let rules = rules_file(&dir, text);
    let object = |kind: &str, name: &str, labels: &str, annotations: &str| {
        let (api, spec) = match kind {
            "Ingress" => ("networking.k8s.io/v1", format!("{{rules: [{{host: {name}.corp.internal}}]}}")),
            _ => ("externaldns.k8s.io/v1alpha1", format!("{{endpoints: [{{dnsName: {name}.corp.internal, recordType: A, targets: [10.0.0.1]}}]}}")),
        };
        format!("apiVersion: {api}\nkind: {kind}\nmetadata: {{name: {name}, labels: {{{labels}}}, annotations: {{{annotations}}}}}\nspec: {spec}\n")
    };
    let manifests = [
        object("Ingress", "private", "dns: private", ""),
        object(
            "Ingress",
            "opted-out",
            "dns: public",
            "example.com/no-dns: 'yes'",
        ),
        object("DNSEndpoint", "records", "", ""),
        object("Ingress", "public", "dns: public", ""),
    ]
    .join("---\n");
    let (code, stderr, results) = check_json(&rules, &manifests);
    assert_eq!(code, Some(1), "{stderr}");
    let verdicts: Vec<(bool, Vec<&str>)> = results
        .iter()
        .map(|r| {
            let warnings = r["warnings"].as_array().map_or(Vec::new(), |w| {
                w.iter().filter_map(|w| w.as_str()).collect()
            });
            (r["allowed"].as_bool().unwrap_or(false), warnings)
        })
        .collect();
    let skipped = "external-dns skips this";
    assert!(verdicts[0].0 && verdicts[0].1.is_empty(), "{verdicts:?}");
    assert!(verdicts[1].0 && verdicts[1].1.is_empty(), "{verdicts:?}");
    assert!(verdicts[2].0, "{verdicts:?}");
    assert_eq!(verdicts[2].1.len(), 1, "{verdicts:?}");
    assert!(
        verdicts[2].1[0].starts_with("metadata.labels do not meet sources.labelFilter \"dns in (public)\": dns in (public) does not hold, as there is no label \"dns\"")
            && verdicts[2].1[0].contains(&format!("{skipped} DNSEndpoint")),
        "{verdicts:?}"
    );
    assert!(!verdicts[3].0, "{verdicts:?}");
    assert_eq!(
        results[3]["violations"][0]["reason"],
        "hostname-outside-filters"
    );
}

#[test]
fn objects_outside_the_namespace_external_dns_reads_are_admitted_unchecked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "domainFilters: [example.com]\nsources: {namespace: dns-public}\n";
    let rules = rules_file(&dir, text);
    let ingress = |namespace: &str| {
        format!("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {{name: web, namespace: {namespace}}}\nspec: {{rules: [{{host: web.corp.internal}}]}}\n")
    };
    let manifests = [ingress("shop"), ingress("dns-public")].join("---\n");
    let (code, _, results) = check_json(&rules, &manifests);
    assert_eq!(code, Some(1));
    assert_eq!(allowed(&results), [true, false]);
    // Without metadata.namespace, --namespace decides.
    let bare = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\nspec: {rules: [{host: web.corp.internal}]}\n";
    let out = zoneguard(
        &["check", "--rules", &rules, "--namespace", "shop", "-"],
        Some(bare.as_bytes()),
    );
    assert_exit(&out, 0);
}

#[test]
fn objects_without_a_hostname_are_judged_on_the_names_the_fqdn_template_makes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "domainFilters: [example.com]\nsources: {fqdnTemplate: '{{.Name}}.{{.Namespace}}.example.org'}\n";
    let rules = rules_file(&dir, text);
    let manifests = [
        // No host: the template names it, outside the filters.
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: shop}\nspec: {defaultBackend: {service: {name: web, port: {number: 80}}}}\n",
        // A host of its own: the template is not used.
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: api, namespace: shop}\nspec: {rules: [{host: api.example.com}]}\n",
        // A ClusterIP Service is not published, a LoadBalancer is.
        "apiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: shop}\nspec: {type: ClusterIP, clusterIP: 10.0.0.9}\n",
        "apiVersion: v1\nkind: Service\nmetadata: {name: lb, namespace: shop}\nspec: {type: LoadBalancer}\n",
    ]
    .join("---\n");
    let (code, stderr, results) = check_json(&rules, &manifests);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(allowed(&results), [false, true, true, false]);
    let violation = &results[0]["violations"][0];
    assert_eq!(violation["field"], "sources.fqdnTemplate");
    assert_eq!(violation["value"], "web.shop.example.org");
    let message = violation["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(r#"the name "web.shop.example.org" that the cluster's fqdn template (sources.fqdnTemplate) makes of this object is outside the domains this cluster's external-dns manages"#),
        "{message}"
    );
    assert!(
        message.ends_with("; external-dns would skip it and no DNS record would appear; the name comes from the cluster's fqdn template: give this object a hostname of its own (external-dns then does not use the template unless sources.combineFqdnAnnotation is set), or ask the platform team to fix the template"),
        "{message}"
    );
    assert_eq!(results[3]["violations"][0]["value"], "lb.shop.example.org");
}

/// `big: &b "<1 MiB>"` then 8 000 aliases of it: 8 GB once read, unless refused.
fn one_big_anchor_named_8000_times() -> String {
    format!(
        "big: &b \"{}\"\nrefs: [{}]\n",
        "a".repeat(1 << 20),
        vec!["*b"; 8_000].join(", ")
    )
}

#[test]
fn manifests_that_would_be_slow_or_huge_to_read_or_that_kubectl_refuses_exit_2_naming_the_line() {
    let head = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web}\n";
    let table: [(&str, String, &str); 7] = [
        (
            "a big anchor named 8 000 times",
            format!("{head}{}", one_big_anchor_named_8000_times()),
            "-:5: document 1: its aliases (*name) repeat more than 16 MiB",
        ),
        (
            "a billion laughs",
            format!(
                "{head}a: &a [x, x, x, x, x, x, x, x, x]\n{}",
                (0..12)
                    .map(|i| format!(
                        "a{i}: &a{i} [{}]\n",
                        vec![
                            if i == 0 {
                                "*a".to_string()
                            } else {
                                format!("*a{}", i - 1)
                            };
                            9
                        ]
                        .join(", ")
                    ))
                    .collect::<String>()
            ),
            "document 1: its aliases (*name) repeat more than 16 MiB",
        ),
        (
            "a million levels of nesting",
            format!("{head}spec: {}", "[".repeat(1_000_000)),
            "-:4: document 1: nested more than 128 levels deep",
        ),
        (
            "a repeated key",
            format!("{head}spec:\n  rules: []\n  rules: [{{host: shop.other.org}}]\n"),
            "-:6: document 1: duplicate key `rules` (at spec.rules), already set on line 5",
        ),
        (
            "a List whose items are a mapping",
            "apiVersion: v1\nkind: List\nitems: {a: 1}\n".to_string(),
            "-:3: document 1: the items of a List are a mapping, not a list",
        ),
        (
            "a name that is not a string",
            "apiVersion: v1\nkind: Service\nmetadata: {name: 7}\n".to_string(),
            "metadata.name is 7, not a string",
        ),
        (
            "metadata that is not a mapping",
            "apiVersion: v1\nkind: Service\nmetadata: [a]\n".to_string(),
            "metadata is a list, not a mapping",
        ),
    ];
    for (what, manifests, want) in table {
        let out = zoneguard(
            &["check", "--rules", RULES, "-"],
            Some(manifests.as_bytes()),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(err.contains(want), "{what}: {want:?} not in:\n{err}");
    }
}

#[test]
fn rules_files_that_would_be_slow_or_huge_to_read_exit_2_naming_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bomb = format!(
        "irsa:\n  trustPolicies:\n    arn:aws:iam::111122223333:role/a:\n{}",
        one_big_anchor_named_8000_times()
            .lines()
            .map(|l| format!("      {l}\n"))
            .collect::<String>()
    );
    let configmap = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: r, labels: {{zoneguard.io/rules: \"true\"}}}}\ndata: {{rules.yaml: '{{}}'}}\nspec: {}",
        "[".repeat(1_000_000)
    );
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write rules");
        path.display().to_string()
    };
    let table: [(&str, String, &str); 3] = [
        (
            "aliases under a trust policy",
            file("bomb.yaml", &bomb),
            "bomb.yaml:5: (document): its aliases (*name) repeat more than 16 MiB",
        ),
        (
            "a rule ConfigMap nested a million levels",
            file("configmap.yaml", &configmap),
            "configmap.yaml:5: document 1: nested more than 128 levels deep",
        ),
        (
            "a file with no end",
            "/dev/zero".to_string(),
            "rules: /dev/zero: larger than 64 MiB",
        ),
    ];
    for (what, rules, want) in table {
        let out = zoneguard(&["check", "--rules", &rules, "-"], Some(b"{}"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(err.contains(want), "{what}: {want:?} not in:\n{err}");
    }
}

#[test]
fn merge_keys_are_checked_as_kubectl_sends_them() {
    let ingress = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: team-a}\nspec: {<<: {rules: [{host: shop.other.org}]}}\n";
    let (code, stderr, results) = check_json(RULES, ingress);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(results[0]["violations"][0]["value"], "shop.other.org");
}

#[test]
fn an_empty_namespace_is_the_namespace_given_by_flag() {
    let ingress = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: web, namespace: \"\"}\nspec: {rules: [{host: a.team-a.example.com}]}\n";
    let out = zoneguard(
        &[
            "check",
            "--rules",
            RULES,
            "--namespace",
            "team-a",
            "--output",
            "json",
            "-",
        ],
        Some(ingress.as_bytes()),
    );
    assert_exit(&out, 0);
    assert_eq!(json_of(&out)["results"][0]["namespace"], "team-a");
}

/// `zoneguard check --output json` with `args`, `stdin` on stdin: its exit status and the JSON
/// document it printed (which it must, whatever happened).
fn json_doc(args: &[&str], stdin: Option<&[u8]>) -> (Option<i32>, Value) {
    let mut all = vec!["check", "--output", "json"];
    all.extend_from_slice(args);
    let out = zoneguard(&all, stdin);
    (out.status.code(), json_of(&out))
}

#[test]
fn unusable_rules_still_give_one_json_document_with_each_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let keyless = dir.path().join("keyless.yaml");
    std::fs::write(&keyless, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: zoneguard, labels: {zoneguard.io/rules: \"true\"}}\ndata: {rules.yml: x}\n").expect("write");
    let keyless = keyless.display().to_string();
    let bad = rules_file(
        &dir,
        "domainFilters: [example.com]\nregexDomainFilter: \"(x\"\n",
    );
    let (code, doc) = json_doc(&["--rules", &keyless, "--rules", &bad, "-"], Some(b""));
    assert_eq!(code, Some(2), "{doc}");
    assert_eq!(doc["enforcement"], Value::Null, "{doc}");
    assert_eq!(doc["results"], serde_json::json!([]), "{doc}");
    let errors = doc["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 2, "{doc}");
    assert_eq!(errors[0]["input"], "rules");
    assert_eq!(errors[0]["source"], keyless.as_str());
    assert_eq!(errors[0]["configMap"], "zoneguard/a");
    assert_eq!(errors[0]["line"], Value::Null);
    let message = errors[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("data[\"rules.yaml\"] is missing")
            && message.ends_with("(found rules.yml; rename it to rules.yaml)"),
        "{message}"
    );
    assert_eq!(errors[1]["source"], bad.as_str());
    assert_eq!(errors[1]["line"], 2);
    assert_eq!(errors[1]["key"], "regexDomainFilter");
    assert_eq!(
        doc["summary"],
        serde_json::json!({"checked": 0, "admitted": 0, "denied": 0, "skipped": 0, "errors": 2})
    );
    let (code, doc) = json_doc(
        &["--rules", "tests/fixtures/check/none.yaml", "-"],
        Some(b""),
    );
    assert_eq!(code, Some(2), "{doc}");
    assert_eq!(doc["errors"][0]["message"], "cannot read: no such file");
}

#[test]
fn every_misspelt_key_of_a_rules_file_is_its_own_json_error_at_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = rules_file(
        &dir,
        "domainFilter: [example.com]\nirsa:\n  isuer: oidc.example/id/A\n",
    );
    let (code, doc) = json_doc(&["--rules", &rules, "-"], Some(b""));
    assert_eq!(code, Some(2), "{doc}");
    let placed: Vec<(Value, Value)> = doc["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| (e["line"].clone(), e["key"].clone()))
        .collect();
    assert_eq!(
        placed,
        [
            (1.into(), "domainFilter".into()),
            (3.into(), "irsa.isuer".into())
        ],
        "{doc}"
    );
}

#[test]
fn a_command_line_clap_refuses_is_still_one_json_document_under_output_json() {
    let (code, doc) = json_doc(&["--rules", RULES, "--bogus", "-"], Some(b""));
    assert_eq!(code, Some(2), "{doc}");
    assert_eq!(doc["errors"][0]["input"], "arguments", "{doc}");
    assert_eq!(
        doc["errors"][0]["message"],
        "unexpected argument '--bogus' found"
    );
    assert_eq!(doc["summary"]["errors"], 1);
    let (code, doc) = json_doc(&["-"], Some(b""));
    assert_eq!(code, Some(2), "{doc}");
    assert_eq!(
        doc["errors"][0]["message"],
        "the following required arguments were not provided: --rules <FILE>"
    );
    // Text output stays clap's alone, on stderr.
    let out = zoneguard(&["check", "--rules", RULES, "--bogus", "-"], Some(b""));
    assert_exit(&out, 2);
    assert!(out.stdout.is_empty());
}

#[test]
fn unusable_manifests_are_json_errors_beside_the_results_naming_document_item_and_object() {
    let (code, doc) = json_doc(
        &["--rules", RULES, "tests/fixtures/check/misshapen.yaml"],
        None,
    );
    assert_eq!(code, Some(2), "{doc}");
    let names: Vec<&str> = doc["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(names, ["fine"], "{doc}");
    let file = "tests/fixtures/check/misshapen.yaml";
    assert_eq!(
        doc["errors"],
        serde_json::json!([
            {"input": "manifests", "source": file, "line": 15, "document": 2, "item": 1,
             "message": "document 2, items[1] is not a Kubernetes object: it needs string apiVersion and kind fields"},
            {"input": "manifests", "source": file, "line": 6, "document": 1,
             "object": "Ingress default/wrong",
             "message": "document 1: Ingress default/wrong: spec.rules is a mapping, not a list; Kubernetes would refuse the object, and zoneguard cannot read the names in it"},
        ]),
        "{doc}"
    );
    assert_eq!(
        doc["summary"],
        serde_json::json!({"checked": 1, "admitted": 1, "denied": 0, "skipped": 0, "errors": 2})
    );
    let (code, doc) = json_doc(&["--rules", RULES, "-"], Some(b"kind: [\n"));
    assert_eq!(code, Some(2), "{doc}");
    assert_eq!(doc["errors"][0]["source"], "-");
    assert_eq!(doc["errors"][0]["line"], 2);
    assert_eq!(doc["errors"][0]["document"], 1);
    let (code, doc) = json_doc(&["--rules", RULES, "tests/fixtures/check/none.yaml"], None);
    assert_eq!(code, Some(2), "{doc}");
    assert_eq!(doc["errors"][0]["message"], "cannot read: no such file");
}

#[test]
fn json_summary_counts_what_the_text_summary_counts() {
    let (code, doc) = json_doc(&["--rules", RULES, "tests/fixtures/check/mixed.yaml"], None);
    assert_eq!(code, Some(1), "{doc}");
    assert_eq!(doc["enforcement"], "deny");
    assert_eq!(doc["errors"], serde_json::json!([]));
    assert_eq!(
        doc["summary"],
        serde_json::json!({"checked": 4, "admitted": 2, "denied": 2, "skipped": 1, "errors": 0})
    );
}

const OUTSIDE_INGRESS: &[u8] = b"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: w, namespace: a}\nspec: {rules: [{host: x.other.org}]}\n";

#[test]
fn warn_mode_json_lists_each_violation_once_and_says_the_mode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = rules_file(&dir, "domainFilters: [example.com]\nenforcement: warn\n");
    let (code, doc) = json_doc(&["--rules", &rules, "-"], Some(OUTSIDE_INGRESS));
    assert_eq!(code, Some(0), "{doc}");
    assert_eq!(doc["enforcement"], "warn");
    let result = &doc["results"][0];
    assert_eq!(result["allowed"], true);
    assert_eq!(
        result["violations"][0]["reason"],
        "hostname-outside-filters"
    );
    assert_eq!(result["warnings"], serde_json::json!([]), "{result}");
    assert_eq!(doc["summary"]["admitted"], 1);
}

#[test]
fn each_result_and_violation_gives_its_line_in_the_file() {
    let (code, doc) = json_doc(&["--rules", RULES, "tests/fixtures/check/mixed.yaml"], None);
    assert_eq!(code, Some(1), "{doc}");
    let stolen = doc["results"]
        .as_array()
        .expect("results")
        .iter()
        .find(|r| r["name"] == "stolen")
        .expect("stolen");
    // The object starts at its first key, after the `---` line.
    assert_eq!(stolen["line"], 7, "{stolen}");
    assert_eq!(stolen["violations"][0]["field"], "spec.rules[0].host");
    assert_eq!(stolen["violations"][0]["line"], 11, "{stolen}");
    // An annotation's item is on the annotation's line.
    let annotated = b"apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  annotations:\n    external-dns.alpha.kubernetes.io/hostname: a.example.com,b.other.org\nspec: {type: LoadBalancer}\n";
    let (code, doc) = json_doc(&["--rules", RULES, "-"], Some(annotated));
    assert_eq!(code, Some(1), "{doc}");
    let violation = &doc["results"][0]["violations"][0];
    assert_eq!(
        violation["field"],
        "metadata.annotations[\"external-dns.alpha.kubernetes.io/hostname\"][1]"
    );
    assert_eq!(violation["line"], 6, "{doc}");
}

#[test]
fn audit_mode_says_an_admitted_object_would_be_denied() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = rules_file(&dir, "domainFilters: [example.com]\nenforcement: audit\n");
    let out = zoneguard(&["check", "--rules", &rules, "-"], Some(OUTSIDE_INGRESS));
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("-: Ingress a/w: admitted (audit mode: would be denied)\n  - line 4: spec.rules[0].host \"x.other.org\" is outside"),
        "{text}"
    );
    let (code, doc) = json_doc(&["--rules", &rules, "-"], Some(OUTSIDE_INGRESS));
    assert_eq!(code, Some(0), "{doc}");
    assert_eq!(doc["enforcement"], "audit");
    assert_eq!(doc["results"][0]["allowed"], true);
    assert_eq!(
        doc["results"][0]["violations"][0]["reason"],
        "hostname-outside-filters"
    );
}

#[test]
fn a_warning_with_a_reason_code_carries_it_in_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let arn = "arn:aws:iam::111122223333:role/app";
    let policy = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::111122223333:oidc-provider/oidc.example.com"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}}]}"#;
    let rules = rules_file(
        &dir,
        &format!("irsa:\n  issuer: https://oidc.example.com\n  trustPolicies:\n    \"{arn}\": '{policy}'\n"),
    );
    let sa = format!("apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: app, namespace: shop, annotations: {{eks.amazonaws.com/role-arn: \"{arn}\"}}}}\n");
    let (code, doc) = json_doc(&["--rules", &rules, "-"], Some(sa.as_bytes()));
    assert_eq!(code, Some(0), "{doc}");
    let warning = &doc["results"][0]["warningDetails"][0];
    assert_eq!(warning["reason"], "role-unverifiable", "{doc}");
    assert!(warning["message"].is_string(), "{doc}");
    assert_eq!(
        doc["results"][0]["warnings"][0], warning["message"],
        "{doc}"
    );
}

#[test]
fn no_object_in_any_input_is_unusable_input_not_a_pass() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty_dir = dir.path().join("manifests");
    std::fs::create_dir(&empty_dir).expect("mkdir");
    std::fs::write(empty_dir.join("notes.txt"), "not a manifest").expect("write");
    let empty_dir = empty_dir.display().to_string();
    let empty_file = dir.path().join("empty.yaml");
    std::fs::write(&empty_file, "---\n# nothing yet\n").expect("write");
    let empty_file = empty_file.display().to_string();
    /// The manifest paths, stdin, and the error.
    type Case<'a> = (&'a [&'a str], Option<&'a [u8]>, String);
    let table: [Case<'_>; 3] = [
        (&[&empty_dir], None, format!("no objects found in {empty_dir} (a directory is searched for *.yaml, *.yml and *.json files)")),
        (&[&empty_file, "-"], Some(b""), format!("no objects found in {empty_file}, stdin")),
        (&["-"], Some(b"\n"), "no objects found in stdin".to_string()),
    ];
    for (paths, stdin, want) in table {
        let mut args = vec!["check", "--rules", RULES];
        args.extend_from_slice(paths);
        let out = zoneguard(&args, stdin);
        assert_unusable(&out, &[&format!("zoneguard check: {want}\n")]);
        args.extend_from_slice(&["--output", "json"]);
        let doc = json_of(&zoneguard(&args, stdin));
        assert_eq!(doc["errors"][0]["message"], want.as_str(), "{doc}");
        assert_eq!(doc["summary"]["errors"], 1, "{doc}");
    }
    // A skipped object was read: nothing is wrong with the input.
    let deployment = b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\n";
    let out = zoneguard(&["check", "--rules", RULES, "-"], Some(deployment));
    assert_exit(&out, 0);
}

#[test]
fn a_misspelt_checked_kind_is_skipped_with_a_warning_naming_the_kind_meant() {
    let route = b"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTProute\nmetadata: {name: r, namespace: a}\nspec: {hostnames: [x.other.org]}\n";
    let out = zoneguard(&["check", "--rules", RULES, "-"], Some(route));
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    let warning = "kind HTTProute is not a kind zoneguard checks; did you mean HTTPRoute?";
    assert!(
        text.contains(&format!(
            "-: HTTProute r: skipped (zoneguard does not check this kind)\n  warning: {warning}\n"
        )),
        "{text}"
    );
    let (_, doc) = json_doc(&["--rules", RULES, "-"], Some(route));
    assert_eq!(doc["skipped"][0]["warnings"][0], warning, "{doc}");
}

#[test]
fn check_help_gives_the_exit_codes_and_the_rules_value_name() {
    let out = zoneguard(&["check", "--help"], None);
    let help = String::from_utf8_lossy(&out.stdout);
    for want in [
        "--rules <FILE>",
        "comma separates files here and in ZONEGUARD_RULES",
        "Exit status: 0 every object admitted, 1 at least one denied, 2 unusable input",
    ] {
        assert!(help.contains(want), "{want:?} not in:\n{help}");
    }
}

#[test]
fn zoneguard_rules_takes_several_files_comma_separated() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a.yaml"), dir.path().join("b.yaml"));
    std::fs::write(&a, "domainFilters: [example.com]\n").expect("write");
    std::fs::write(&b, "enforcement: warn\n").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_zoneguard"))
        .args(["check", "--output", "json", "-"])
        .env(
            "ZONEGUARD_RULES",
            format!("{},{}", a.display(), b.display()),
        )
        .stdin(Stdio::null())
        .output()
        .expect("zoneguard runs");
    let doc = json_of(&out);
    assert_eq!(doc["enforcement"], "warn", "both files read: {doc}");
}

#[test]
fn an_ingress_of_an_api_version_no_longer_served_is_checked_with_a_warning_to_write_v1() {
    let ingress = |api_version: &str, host: &str| {
        format!("apiVersion: {api_version}\nkind: Ingress\nmetadata: {{name: web, namespace: team-a}}\nspec: {{rules: [{{host: {host}}}]}}\n")
    };
    let table = [
        (
            "networking.k8s.io/v1beta1",
            "web.team-a.example.com",
            0,
            true,
        ),
        ("extensions/v1beta1", "login.example.com", 1, true),
        ("networking.k8s.io/v1", "web.team-a.example.com", 0, false),
    ];
    for (api_version, host, code, warned) in table {
        let manifest = ingress(api_version, host);
        let (got, _, results) = check_json(RULES, &manifest);
        assert_eq!(got, Some(code), "{api_version}: {results:?}");
        assert_eq!(results.len(), 1, "{api_version}: still checked");
        let messages: Vec<&str> = results[0]["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .filter_map(|w| w.as_str())
            .collect();
        let removed = format!("apiVersion {api_version} is no longer served for Ingress since Kubernetes 1.22, so kubectl apply refuses this object (zoneguard checked it as written); write apiVersion: networking.k8s.io/v1, in which spec.backend becomes spec.defaultBackend");
        let found = messages.iter().any(|m| m.starts_with(&removed));
        assert_eq!(found, warned, "{api_version}: {messages:?}");
        let text = zoneguard(&["check", "--rules", RULES, "-"], Some(manifest.as_bytes()));
        let stdout = String::from_utf8_lossy(&text.stdout);
        let line = format!("\n  warning: {removed}");
        assert_eq!(stdout.contains(&line), warned, "{api_version}: {stdout}");
    }
}

#[test]
fn a_namespace_the_api_server_would_refuse_is_a_usage_error() {
    let manifest = b"apiVersion: v1\nkind: Service\nmetadata: {name: s}\n";
    for namespace in ["", "Bad_NS", "a-", &"a".repeat(64)] {
        let out = zoneguard(
            &["check", "--rules", RULES, "--namespace", namespace, "-"],
            Some(manifest),
        );
        assert_eq!(out.status.code(), Some(2), "{namespace:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("is not a namespace name"), "{stderr}");
    }
    let out = zoneguard(
        &["check", "--rules", RULES, "--namespace", "team-a", "-"],
        Some(manifest),
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_reader_that_stops_reading_ends_the_report_without_a_panic() {
    use std::io::{BufRead, BufReader};
    let ingress = |i: usize| {
        format!("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {{name: i{i}}}\nspec:\n  rules: [{{host: x{i}.other.org}}]\n")
    };
    let manifest: Vec<String> = (0..4000).map(ingress).collect();
    let mut child = spawn(&["check", "--rules", RULES, "-"]);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(manifest.join("---\n").as_bytes())
        .expect("write stdin");
    drop(stdin);
    let mut first = String::new();
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    stdout.read_line(&mut first).expect("a first line");
    drop(stdout);
    let out = child.wait_with_output().expect("zoneguard finishes");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(first.contains("DENIED"), "{first}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn rule_configmaps_rendered_by_helm_after_an_empty_document_are_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rules = dir.path().join("rendered.yaml");
    let rendered = "---\n# Source: chart/templates/empty.yaml\n---\n# Source: chart/templates/rules.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rules\n  namespace: zoneguard\n  labels: {zoneguard.io/rules: \"true\"}\ndata:\n  rules.yaml: |\n    domainFilters: [example.com]\n";
    std::fs::write(&rules, rendered).expect("write");
    let rules = rules.display().to_string();
    let ingress = b"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: a}\nspec:\n  rules: [{host: a.other.org}]\n";
    let out = zoneguard(&["check", "--rules", &rules, "-"], Some(ingress));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("outside the domains"));
}

#[test]
fn a_pipe_named_like_a_manifest_in_a_directory_is_an_error_not_a_wait() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pipe = dir.path().join("p.yaml");
    let made = Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let path = dir.path().display().to_string();
    let out = zoneguard(&["check", "--rules", RULES, &path], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("p.yaml: not a regular file"), "{stderr}");
}

#[test]
fn an_empty_name_in_the_rules_list_is_a_usage_error_that_says_so() {
    let out = zoneguard(&["check", "--rules", &format!("{RULES},"), "-"], Some(b""));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("an empty file name"), "{stderr}");
}
