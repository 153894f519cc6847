//! Fuzz target: Rules parsing and deciding with the parsed rules. See ../checks.rs for what it asserts.
#![no_main]

#[path = "../decoder.rs"]
mod decoder;
use decoder::review;

#[path = "../checks.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::rules_parse(data));
