//! Fuzz target: external-dns's fqdn templates. See ../checks.rs for what it asserts.
#![no_main]

#[path = "../decoder.rs"]
mod decoder;
use decoder::review;

#[path = "../checks.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::fqdn_template(data));
