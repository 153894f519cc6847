//! zoneguard's admission decisions, free of HTTP, async runtimes and the Kubernetes client.
//!
//! The webhook server, the ConfigMap watcher and the `zoneguard check` CLI are thin layers
//! over this crate: they hand it rules text and objects, and it hands back verdicts.

pub mod admission;
pub mod annotation;
pub mod arn;
pub mod duration;
pub mod fields;
pub mod filter;
pub mod hostname;
pub mod irsa;
pub mod k8s_name;
pub mod mutation;
mod path;
mod quote;
pub mod rules;
pub mod seen;
pub mod selector;
pub mod source;
pub mod suggest;
pub mod target;
pub mod template;
pub mod tree;
pub mod trust;
pub mod verdict;
pub mod yaml;
