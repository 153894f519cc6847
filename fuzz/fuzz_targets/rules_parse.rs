//! Fuzz target: Rules parsing and deciding with the parsed rules. See ../checks.rs for what it asserts.
#![no_main]

/// Unused by this target, as `review` below (which decodes objects with it).
#[allow(dead_code)]
#[path = "../../src/serve/object.rs"]
mod object;

/// Unused by this target, as `review` below (which writes its answers with it).
#[allow(dead_code)]
#[path = "../../src/serve/json_text.rs"]
mod json_text;

/// Unused by this target; checks.rs names it.
#[allow(dead_code)]
#[path = "../../src/serve/review.rs"]
mod review;

#[path = "../checks.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::rules_parse(data));
