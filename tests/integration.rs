//! zoneguard's integration tests, built as one test binary: each file beside this one is a
//! module of it (one link instead of eleven: 77 MB of `target/` where the eleven took 496 MB).
//! Their tests run in one process, so none may change process-wide state that another reads,
//! beyond the IAM tests' AWS credentials, set once before any client exists (`iam_support`).

mod iam_support;
mod serve_support;

mod certs;
mod check_cli;
mod iam_chains;
mod iam_trust;
mod prop_fuzz_regressions;
mod prop_mutation;
mod read_fields;
mod serve_admission;
mod serve_limits;
mod serve_process;
mod serve_reload;

// The fuzz targets' properties, replayed by `prop_fuzz_regressions`; fuzz/checks.rs finds the
// server's wire module at `crate::review`, as it does in the fuzz crate.
#[path = "../fuzz/checks.rs"]
#[allow(dead_code)]
mod checks;
use zoneguard::serve::review;
