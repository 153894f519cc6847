//! Live IAM for IRSA checks (`irsa.source: iam`, `zoneguard check --iam`): reads roles,
//! permission policies and OIDC providers with the AWS SDK (default credential chain,
//! `--aws-endpoint-url` or `AWS_ENDPOINT_URL`), caches them, and hands them to the core as
//! `zoneguard_core::irsa::Facts` for `admission::validate_with`.
//!
//! Wiring into a request path (as `serve::routes` does): `resolver.resolve(&rules, &request)`
//! gives the facts (`Facts::none()` unless a ServiceAccount needs them), then
//! `admission::validate_full(&rules, &request, &other_rule_sources, &facts)` decides.

pub mod cache;
mod client;
mod fetch;
pub mod metrics;
mod resolver;

pub use client::Options;
pub use fetch::Failure;
pub use metrics::IamMetrics;
pub use resolver::Resolver;

/// The help heading of the IAM-mode flags.
const IAM_HEADING: &str = "IAM mode (rules irsa.source: iam)";

/// The command-line flags of IAM mode, shared by `serve` and `check`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct AwsArgs {
    /// AWS endpoint for IAM and STS (tests, air-gapped partitions); default: the SDK's
    /// `AWS_ENDPOINT_URL`, else AWS itself.
    #[arg(long, env = "ZONEGUARD_AWS_ENDPOINT_URL", help_heading = IAM_HEADING)]
    pub aws_endpoint_url: Option<String>,
    /// Region used to sign IAM and STS calls; default: the SDK's chain, else us-east-1.
    #[arg(long, env = "ZONEGUARD_AWS_REGION", help_heading = IAM_HEADING)]
    pub aws_region: Option<String>,
}

impl AwsArgs {
    pub fn options(&self) -> Options {
        Options {
            endpoint_url: self.aws_endpoint_url.clone(),
            region: self.aws_region.clone(),
        }
    }
}
