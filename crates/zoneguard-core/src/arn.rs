//! IAM role ARNs as IRSA's `eks.amazonaws.com/role-arn` annotation carries them.
//!
//! Grammar: `arn:<partition>:iam::<12 digits>:role<path><name>` where the path is `/` or
//! `/…/` (printable ASCII other than space, at most 512 characters) and the name is
//! `[A-Za-z0-9_+=,.@-]{1,64}`.

use std::fmt;
use thiserror::Error;

use crate::quote::ticked;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RoleArn {
    pub partition: String,
    pub account: String,
    /// `/` or `/a/b/`.
    pub path: String,
    pub name: String,
}

/// Why a text is not a role ARN: the problem names the part that is wrong, and the fix, where
/// the parser knows one, says what to write instead (`problem; fix`).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{problem}{}", fix.as_ref().map(|f| format!("; {f}")).unwrap_or_default())]
pub struct ArnError {
    pub problem: String,
    pub fix: Option<String>,
}

/// The partitions IAM exists in.
pub const PARTITIONS: [&str; 8] = [
    "aws",
    "aws-cn",
    "aws-us-gov",
    "aws-iso",
    "aws-iso-b",
    "aws-iso-e",
    "aws-iso-f",
    "aws-eusc",
];

const MAX_PATH: usize = 512;
const MAX_NAME: usize = 64;
const FORM: &str = "arn:<partition>:iam::<account>:role/<name>";

impl RoleArn {
    pub fn parse(text: &str) -> Result<Self, ArnError> {
        if text.trim() != text {
            return Err(whitespace_problem(text));
        }
        let Some(rest) = text.strip_prefix("arn:") else {
            return Err(fail(format!(
                "it does not start with `arn:` (a role ARN is {FORM})"
            )));
        };
        let parts: Vec<&str> = rest.splitn(5, ':').collect();
        let [partition, service, region, account, resource] = parts[..] else {
            return Err(colons_problem(&parts));
        };
        check_partition(partition)?;
        check_service(service)?;
        check_region(region)?;
        check_account(account)?;
        let (path, name) = split_resource(resource)?;
        check_path(path)?;
        check_name(name)?;
        Ok(Self {
            partition: partition.to_owned(),
            account: account.to_owned(),
            path: path.to_owned(),
            name: name.to_owned(),
        })
    }

    /// The ARN's text, `arn:<partition>:iam::<account>:role<path><name>`, built in one
    /// allocation: the key of the rules' and IAM facts' maps, and what `Display` writes.
    pub fn arn(&self) -> String {
        let (partition, account) = (self.partition.as_str(), self.account.as_str());
        [
            "arn:", partition, ":iam::", account, ":role", &self.path, &self.name,
        ]
        .concat()
    }
}

impl fmt::Display for RoleArn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.arn())
    }
}

/// Whitespace around an ARN, and how to remove it: a trailing newline is what a YAML block
/// scalar (`|` or `>`) leaves.
fn whitespace_problem(text: &str) -> ArnError {
    let end = &text[text.trim_end().len()..];
    let (problem, fix) = if end.contains('\n') {
        (
            "it ends with a newline, as a YAML block scalar (`|` or `>`) writes it".to_owned(),
            "remove the trailing newline: write the value on the key's line or use `|-`",
        )
    } else if !end.is_empty() {
        (format!("it ends with whitespace ({end:?})"), "remove it")
    } else {
        let start = &text[..text.len() - text.trim_start().len()];
        (
            format!("it starts with whitespace ({start:?})"),
            "remove it",
        )
    };
    fail_with(problem, fix.to_owned())
}

/// Why an ARN without its five colon-separated parts after `arn:` is not one: the part it
/// lacks when it can tell (`iam:` with one colon before the account), else the count.
fn colons_problem(parts: &[&str]) -> ArnError {
    let digits = |p: &str| p.len() == 12 && p.bytes().all(|b| b.is_ascii_digit());
    match parts {
        [_, "iam", account, resource] if digits(account) && resource.starts_with("role") => {
            fail_with(
                "it has one colon after `iam` where a role ARN has two (`iam::`, for IAM's empty region)".to_owned(),
                format!("write `iam::{account}`"),
            )
        }
        _ => fail(format!(
            "it has {} colons where a role ARN has 5 ({FORM})",
            parts.len()
        )),
    }
}

fn fail(problem: String) -> ArnError {
    ArnError { problem, fix: None }
}

fn fail_with(problem: String, fix: String) -> ArnError {
    ArnError {
        problem,
        fix: Some(fix),
    }
}

fn check_partition(partition: &str) -> Result<(), ArnError> {
    if PARTITIONS.contains(&partition) {
        return Ok(());
    }
    Err(fail(format!(
        "the partition must be one of {}, got {}",
        PARTITIONS.join(", "),
        ticked(partition)
    )))
}

fn check_service(service: &str) -> Result<(), ArnError> {
    if service == "iam" {
        return Ok(());
    }
    Err(fail(format!(
        "the service must be `iam`, got {}",
        ticked(service)
    )))
}

fn check_region(region: &str) -> Result<(), ArnError> {
    if region.is_empty() {
        return Ok(());
    }
    Err(fail(format!(
        "the region must be empty (IAM is global), got {}",
        ticked(region)
    )))
}

fn check_account(account: &str) -> Result<(), ArnError> {
    if account.len() == 12 && account.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(());
    }
    Err(fail(format!(
        "the account must be 12 digits, got {}",
        ticked(account)
    )))
}

/// Splits `role/a/b/name` into the path `/a/b/` and the name `name`.
fn split_resource(resource: &str) -> Result<(&str, &str), ArnError> {
    let Some(after) = resource.strip_prefix("role").filter(|a| a.starts_with('/')) else {
        return Err(fail(format!(
            "the resource must be `role/<name>`, got {}",
            ticked(resource)
        )));
    };
    // `after` starts with `/`, so it has a last one.
    let slash = after.rfind('/').unwrap_or(0);
    Ok((&after[..=slash], &after[slash + 1..]))
}

fn check_path(path: &str) -> Result<(), ArnError> {
    let count = path.chars().count();
    if count > MAX_PATH {
        return Err(fail(format!(
            "the role path must be at most {MAX_PATH} characters, got {count}"
        )));
    }
    if let Some(bad) = path.chars().find(|c| !('!'..='~').contains(c)) {
        return Err(fail(format!(
            "the role path may contain only printable ASCII characters other than space, got {} (with {})",
            ticked(path),
            ticked(&bad.to_string())
        )));
    }
    // IAM's path pattern is `/`, or `/`, at least one character and `/`: `//` is neither.
    if path == "//" {
        return Err(fail(
            "the role path must be `/` or `/<text>/`, got `//`".to_owned(),
        ));
    }
    Ok(())
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_+=,.@-".contains(c)
}

fn check_name(name: &str) -> Result<(), ArnError> {
    if name.is_empty() {
        return Err(fail("the role name is empty".to_owned()));
    }
    let count = name.chars().count();
    if count > MAX_NAME {
        return Err(fail(format!(
            "the role name must be at most {MAX_NAME} characters, got {count}"
        )));
    }
    if let Some(bad) = name.chars().find(|c| !is_name_char(*c)) {
        return Err(fail(format!(
            "the role name may contain only letters, digits and `_+=,.@-`, got {} (with {})",
            ticked(name),
            ticked(&bad.to_string())
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> RoleArn {
        RoleArn::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn the_arn_text_is_the_annotation_and_what_display_writes() {
        for text in [
            "arn:aws:iam::111122223333:role/external-dns",
            "arn:aws-cn:iam::111122223333:role/a/b/c",
        ] {
            let role = ok(text);
            assert_eq!(role.arn(), text);
            assert_eq!(role.arn(), role.to_string());
        }
    }

    #[test]
    fn well_formed_role_arns_parse_and_display_unchanged() {
        let rows: &[(&str, &str, &str, &str, &str)] = &[
            (
                "arn:aws:iam::111122223333:role/external-dns",
                "aws",
                "111122223333",
                "/",
                "external-dns",
            ),
            (
                "arn:aws-cn:iam::111122223333:role/a",
                "aws-cn",
                "111122223333",
                "/",
                "a",
            ),
            (
                "arn:aws-us-gov:iam::000000000000:role/x",
                "aws-us-gov",
                "000000000000",
                "/",
                "x",
            ),
            (
                "arn:aws-iso:iam::111122223333:role/x",
                "aws-iso",
                "111122223333",
                "/",
                "x",
            ),
            (
                "arn:aws-iso-b:iam::111122223333:role/x",
                "aws-iso-b",
                "111122223333",
                "/",
                "x",
            ),
            (
                "arn:aws-iso-e:iam::111122223333:role/x",
                "aws-iso-e",
                "111122223333",
                "/",
                "x",
            ),
            (
                "arn:aws-iso-f:iam::111122223333:role/x",
                "aws-iso-f",
                "111122223333",
                "/",
                "x",
            ),
            (
                "arn:aws-eusc:iam::111122223333:role/x",
                "aws-eusc",
                "111122223333",
                "/",
                "x",
            ),
            (
                "arn:aws:iam::111122223333:role/team/dns/external-dns",
                "aws",
                "111122223333",
                "/team/dns/",
                "external-dns",
            ),
            (
                "arn:aws:iam::111122223333:role/service-role/A_b+c=d,e.f@g-h",
                "aws",
                "111122223333",
                "/service-role/",
                "A_b+c=d,e.f@g-h",
            ),
        ];
        for (text, partition, account, path, name) in rows {
            let arn = ok(text);
            assert_eq!(
                (
                    arn.partition.as_str(),
                    arn.account.as_str(),
                    arn.path.as_str(),
                    arn.name.as_str()
                ),
                (*partition, *account, *path, *name),
                "{text}"
            );
            assert_eq!(arn.to_string(), *text);
        }
    }

    #[test]
    fn a_name_of_64_characters_and_a_path_of_512_are_accepted() {
        let name = "n".repeat(64);
        ok(&format!("arn:aws:iam::111122223333:role/{name}"));
        let path = format!("/{}/", "p".repeat(510));
        ok(&format!("arn:aws:iam::111122223333:role{path}x"));
    }

    #[test]
    fn malformed_role_arns_are_refused_naming_the_wrong_part() {
        let long_name = format!("arn:aws:iam::111122223333:role/{}", "n".repeat(65));
        let long_path = format!("arn:aws:iam::111122223333:role/{}/x", "p".repeat(511));
        let rows: Vec<(&str, &str)> = vec![
            ("", "it does not start with `arn:`"),
            ("external-dns", "it does not start with `arn:`"),
            ("arn:aws:iam::111122223333", "it has 4 colons where a role ARN has 5"),
            ("arn:aws:iam:111122223333:role/app", "it has one colon after `iam` where a role ARN has two (`iam::`, for IAM's empty region); write `iam::111122223333`"),
            (" arn:aws:iam::111122223333:role/x", "it starts with whitespace (\" \"); remove it"),
            ("arn:aws:iam::111122223333:role/x ", "it ends with whitespace (\" \"); remove it"),
            ("arn:aws:iam::111122223333:role/x\n", "it ends with a newline, as a YAML block scalar (`|` or `>`) writes it; remove the trailing newline: write the value on the key's line or use `|-`"),
            ("arn:aws-foo:iam::111122223333:role/x", "the partition must be one of aws, aws-cn, aws-us-gov, aws-iso, aws-iso-b, aws-iso-e, aws-iso-f, aws-eusc, got `aws-foo`"),
            ("arn:AWS:iam::111122223333:role/x", "the partition must be one of"),
            ("arn:aws:sts::111122223333:role/x", "the service must be `iam`, got `sts`"),
            ("arn:aws:iam:us-east-1:111122223333:role/x", "the region must be empty (IAM is global), got `us-east-1`"),
            ("arn:aws:iam::11112222333:role/x", "the account must be 12 digits, got `11112222333`"),
            ("arn:aws:iam::1111222233334:role/x", "the account must be 12 digits, got `1111222233334`"),
            ("arn:aws:iam::11112222333a:role/x", "the account must be 12 digits, got `11112222333a`"),
            ("arn:aws:iam::١١١١٢٢٢٢٣٣٣٣:role/x", "the account must be 12 digits"),
            ("arn:aws:iam::111122223333:user/x", "the resource must be `role/<name>`, got `user/x`"),
            ("arn:aws:iam::111122223333:Role/x", "the resource must be `role/<name>`"),
            ("arn:aws:iam::111122223333:role", "the resource must be `role/<name>`"),
            ("arn:aws:iam::111122223333:rolex/y", "the resource must be `role/<name>`"),
            ("arn:aws:iam::111122223333:role/", "the role name is empty"),
            ("arn:aws:iam::111122223333:role/team/", "the role name is empty"),
            ("arn:aws:iam::111122223333:role/a b", "the role name may contain only letters, digits and `_+=,.@-`, got `a b` (with ` `)"),
            ("arn:aws:iam::111122223333:role/a:b", "the role name may contain only"),
            ("arn:aws:iam::111122223333:role/é", "the role name may contain only"),
            ("arn:aws:iam::111122223333:role/team dns/x", "the role path may contain only printable ASCII"),
            ("arn:aws:iam::111122223333:role//x", "the role path must be `/` or `/<text>/`, got `//`"),
            (&long_name, "the role name must be at most 64 characters, got 65"),
            (&long_path, "the role path must be at most 512 characters, got 513"),
        ];
        for (text, expected) in rows {
            let err = RoleArn::parse(text).expect_err(text).to_string();
            assert!(
                err.contains(expected),
                "{text:?}: {err:?} lacks {expected:?}"
            );
        }
    }
}
