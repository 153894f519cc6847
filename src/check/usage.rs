//! A usage error of `zoneguard check` (an unknown flag, a missing `--rules`) under
//! `--output json`: stdout is one JSON document whatever the outcome, so a pipeline that parses
//! it learns what was wrong instead of meeting empty output.

use super::input_error::{Input, InputError};
use super::report::{self, Inputs};
use std::ffi::OsString;

/// Whether `args` (the whole command line) run `check` with `--output json` (or
/// `ZONEGUARD_OUTPUT=json`), as far as a command line clap refused can tell.
pub fn wants_json(args: &[OsString]) -> bool {
    let args: Vec<&str> = args.iter().filter_map(|a| a.to_str()).collect();
    let Some(check) = args.iter().position(|a| *a == "check") else {
        return false;
    };
    let after = &args[check + 1..];
    let flag = after.iter().enumerate().rev().find_map(|(i, a)| match *a {
        "--output" => after.get(i + 1).copied(),
        _ => a.strip_prefix("--output="),
    });
    match flag {
        Some(value) => value == "json",
        None => std::env::var("ZONEGUARD_OUTPUT").is_ok_and(|v| v == "json"),
    }
}

/// Prints the JSON report of a command line clap refused with `message`: no results, one error
/// of input `arguments`. Stderr has clap's own text.
pub fn print_json(message: &str) {
    let errors = [InputError::new(
        Input::Arguments,
        None,
        None,
        first_paragraph(message),
    )];
    let inputs = Inputs {
        errors: &errors,
        warnings: &[],
    };
    report::print_json(None, &report::Outcome::default(), inputs);
}

/// clap's error on one line, without its `error: ` lead and without the tips, usage and help
/// lines after it.
fn first_paragraph(message: &str) -> String {
    let text = message.trim_start().trim_start_matches("error: ");
    let end = text.find("\n\n").unwrap_or(text.len());
    let lines: Vec<&str> = text[..end].lines().map(str::trim).collect();
    lines.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(words: &str) -> Vec<OsString> {
        words.split(' ').map(OsString::from).collect()
    }

    #[test]
    fn json_is_wanted_when_checks_last_output_flag_says_json() {
        let table = [
            ("zoneguard check --output json --bogus -", true),
            ("zoneguard check --output=json -", true),
            ("zoneguard check --output text --output json -", true),
            ("zoneguard check --output json --output text -", false),
            ("zoneguard check --output yaml -", false),
            ("zoneguard check --bogus -", false),
            ("zoneguard serve --output json", false),
        ];
        for (words, want) in table {
            assert_eq!(wants_json(&line(words)), want, "{words}");
        }
    }

    #[test]
    fn clap_s_message_keeps_its_first_paragraph() {
        let clap = "error: unexpected argument '--bogus' found\n\n  tip: to pass '--bogus' as a value, use '-- --bogus'\n\nUsage: zoneguard check [OPTIONS] --rules <FILE> <PATH>...\n";
        assert_eq!(first_paragraph(clap), "unexpected argument '--bogus' found");
        let missing = "error: the following required arguments were not provided:\n  --rules <FILE>\n\nUsage: zoneguard check --rules <FILE> <PATH>...\n";
        assert_eq!(
            first_paragraph(missing),
            "the following required arguments were not provided: --rules <FILE>"
        );
    }
}
