//! The `zoneguard` binary's server and certificate parts, as a library so tests can start the
//! webhook in-process.

pub mod allocator;
pub mod certs;
pub mod configmaps;
pub mod iam;
pub mod inject_condition;
pub mod serve;
pub mod text_file;
