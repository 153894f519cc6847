//! `zoneguard check --iam`: ServiceAccounts checked against live IAM (default credential
//! chain), through the same resolver the webhook uses.

use anyhow::{Context, Result};
use zoneguard::iam::{AwsArgs, Resolver};
use zoneguard_core::irsa::Facts;
use zoneguard_core::rules::RuleSet;
use zoneguard_core::tree::Node;

pub struct LiveIam {
    runtime: tokio::runtime::Runtime,
    resolver: Resolver,
}

impl LiveIam {
    pub fn start(args: &AwsArgs) -> Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("cannot start the async runtime for --iam")?;
        let resolver = runtime.block_on(Resolver::new(&args.options()))?;
        Ok(Self { runtime, resolver })
    }

    /// IAM facts for a ServiceAccount; nothing for other kinds.
    pub fn facts(
        &self,
        rules: &RuleSet,
        kind: (&str, &str),
        at: (&str, &str),
        object: &Node<'_>,
    ) -> Facts {
        let (group, kind) = kind;
        if !group.is_empty() || kind != "ServiceAccount" {
            return Facts::none();
        }
        let (namespace, name) = at;
        self.runtime.block_on(
            self.resolver
                .resolve_service_account(rules, namespace, name, object),
        )
    }
}
