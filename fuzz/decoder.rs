//! The webhook's AdmissionReview decoder and answer writer (src/serve/review.rs, object.rs and
//! json_text.rs), compiled into each fuzz target: the zoneguard crate would bring the
//! Kubernetes and AWS clients into every fuzz build. The targets that do not decode reviews
//! still compile it, since ../checks.rs names `crate::review`.
#![allow(dead_code)]

#[path = "../src/serve/object.rs"]
mod object;

#[path = "../src/serve/json_text.rs"]
mod json_text;

#[path = "../src/serve/review.rs"]
pub mod review;
