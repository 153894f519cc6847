//! Fuzz target: AdmissionReview decoding (src/serve/review.rs, object.rs and json_text.rs, compiled in: the
//! zoneguard crate would bring the Kubernetes and AWS clients into every fuzz build). See
//! ../checks.rs for what it asserts.
#![no_main]

#[path = "../../src/serve/object.rs"]
mod object;

#[path = "../../src/serve/json_text.rs"]
mod json_text;

#[path = "../../src/serve/review.rs"]
#[allow(dead_code)]
mod review;

#[path = "../checks.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::review_decode(data));
