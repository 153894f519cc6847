//! AWS SDK clients: the shared configuration (default credential chain, endpoint override,
//! rustls with aws-lc-rs), zoneguard's own account, and IAM clients per account (directly, or
//! through a reader role assumed with `sts:AssumeRole`).

use super::fetch::{self, Failure};
use super::metrics::IamMetrics;
use anyhow::Result;
use aws_config::environment::region::EnvironmentVariableRegionProvider;
use aws_config::meta::region::RegionProviderChain;
use aws_config::profile::region::ProfileFileRegionProvider;
use aws_config::retry::RetryConfig;
use aws_config::sts::AssumeRoleProvider;
use aws_config::timeout::TimeoutConfig;
use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_smithy_http_client::tls::{self, rustls_provider::CryptoMode};
use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::Duration;
use zoneguard_core::arn::RoleArn;

/// Where and how zoneguard talks to AWS.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--aws-endpoint-url`; `None` leaves it to the SDK (`AWS_ENDPOINT_URL`, else AWS).
    pub endpoint_url: Option<String>,
    /// Region for signing; `None` = the SDK's chain, else `us-east-1` (IAM is global).
    pub region: Option<String>,
}

/// The session name zoneguard uses when it assumes reader roles.
const SESSION_NAME: &str = "zoneguard";
/// The SDK's own per-attempt bound; zoneguard's per-call timeout (`irsa.callTimeout`) is
/// shorter and is enforced around every call.
const SDK_ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

/// The identity of zoneguard's own credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub account: String,
    pub partition: String,
    /// As STS returns it, for messages.
    pub arn: String,
}

pub struct Clients {
    config: SdkConfig,
    home: aws_sdk_iam::Client,
    sts: aws_sdk_sts::Client,
    readers: Mutex<HashMap<String, aws_sdk_iam::Client>>,
}

impl Clients {
    pub async fn load(options: &Options) -> Result<Self> {
        let http = aws_smithy_http_client::Builder::new()
            .tls_provider(tls::Provider::Rustls(CryptoMode::AwsLc))
            .build_https();
        // IAM is global: the region only picks the partition and signs. No IMDS lookup (it
        // would stall outside EC2); `us-east-1` when nothing is configured.
        let region = RegionProviderChain::first_try(options.region.clone().map(Region::new))
            .or_else(EnvironmentVariableRegionProvider::new())
            .or_else(ProfileFileRegionProvider::builder().build())
            .or_else(Region::new("us-east-1"));
        let mut loader = aws_config::defaults(BehaviorVersion::latest())
            .http_client(http)
            .region(region)
            .retry_config(RetryConfig::standard().with_max_attempts(2))
            .timeout_config(
                TimeoutConfig::builder()
                    .connect_timeout(SDK_ATTEMPT_TIMEOUT)
                    .operation_attempt_timeout(SDK_ATTEMPT_TIMEOUT)
                    .build(),
            );
        if let Some(url) = &options.endpoint_url {
            loader = loader.endpoint_url(url);
        }
        let config = loader.load().await;
        Ok(Self {
            home: aws_sdk_iam::Client::new(&config),
            sts: aws_sdk_sts::Client::new(&config),
            readers: Mutex::new(HashMap::new()),
            config,
        })
    }

    /// Whose credentials zoneguard holds (`sts:GetCallerIdentity`).
    pub async fn own_identity(
        &self,
        timeout: Duration,
        metrics: &IamMetrics,
    ) -> Result<Caller, Failure> {
        let call = self.sts.get_caller_identity().send();
        let out = fetch::timed("GetCallerIdentity", timeout, metrics, call).await?;
        let account = out
            .account()
            .ok_or_else(|| Failure::unavailable("STS GetCallerIdentity returned no account"))?;
        let arn = out.arn().unwrap_or_default();
        let partition = partition_of(arn).ok_or_else(|| {
            Failure::unavailable(format!(
                "STS GetCallerIdentity returned {arn:?}, not an ARN with a partition"
            ))
        })?;
        Ok(Caller {
            account: account.to_owned(),
            partition: partition.to_owned(),
            arn: arn.to_owned(),
        })
    }

    /// The IAM client for `role`'s account: through its reader role when
    /// `irsa.accountReaders` names one, else zoneguard's own credentials when the account is
    /// zoneguard's own (`own`), else "cannot verify". zoneguard reads IAM in one partition
    /// only, its credentials' (or the reader role's): a role in another is "cannot verify".
    pub async fn iam_for(
        &self,
        role: &RoleArn,
        readers: &BTreeMap<String, RoleArn>,
        own: Result<Caller, Failure>,
    ) -> Result<aws_sdk_iam::Client, Failure> {
        let account = &role.account;
        if let Some(reader) = readers.get(account) {
            if reader.partition != role.partition {
                return Err(Failure::unavailable(other_partition(role, &format!("the reader role {reader} (irsa.accountReaders[\"{account}\"]) is in partition {}", reader.partition), &reader.partition)));
            }
            return Ok(self.reader(reader).await);
        }
        match own {
            Ok(own) if own.partition != role.partition => Err(Failure::unavailable(other_partition(role, &format!("zoneguard's credentials ({}) are in partition {}", own.arn, own.partition), &own.partition))),
            Ok(own) if own.account == *account => Ok(self.home.clone()),
            Ok(own) => Err(Failure::unavailable(format!("no reader role for account {account} in irsa.accountReaders, and zoneguard's own credentials are for account {}; add irsa.accountReaders[\"{account}\"] with a role zoneguard may assume there", own.account))),
            Err(f) => Err(Failure::unavailable(format!("cannot tell which account zoneguard's credentials belong to ({})", f.why()))),
        }
    }

    async fn reader(&self, reader: &RoleArn) -> aws_sdk_iam::Client {
        let key = reader.to_string();
        if let Some(client) = self.cached_reader(&key) {
            return client;
        }
        let provider = AssumeRoleProvider::builder(key.clone())
            .session_name(SESSION_NAME)
            .configure(&self.config)
            .build()
            .await;
        let config = aws_sdk_iam::config::Builder::from(&self.config)
            .credentials_provider(provider)
            .build();
        let client = aws_sdk_iam::Client::from_conf(config);
        if let Ok(mut readers) = self.readers.lock() {
            readers.insert(key, client.clone());
        }
        client
    }

    fn cached_reader(&self, key: &str) -> Option<aws_sdk_iam::Client> {
        self.readers.lock().ok()?.get(key).cloned()
    }
}

/// `arn:<partition>:…` → the partition.
fn partition_of(arn: &str) -> Option<&str> {
    let mut parts = arn.split(':');
    (parts.next() == Some("arn"))
        .then(|| parts.next())
        .flatten()
        .filter(|p| !p.is_empty())
}

/// Why a role in another partition cannot be read: `whose` says which IAM zoneguard reads.
fn other_partition(role: &RoleArn, whose: &str, partition: &str) -> String {
    let same = RoleArn {
        partition: partition.to_owned(),
        ..role.clone()
    };
    format!("the role is in partition {}, and {whose}; zoneguard reads IAM in that partition only, and an account there is not the account of the same number in another (if the partition is a slip, the role is {same})", role.partition)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_partition_is_the_second_field_of_an_arn() {
        let rows = [
            ("arn:aws:sts::123456789012:assumed-role/r/s", Some("aws")),
            ("arn:aws-cn:iam::123456789012:user/u", Some("aws-cn")),
            ("arn::iam::1:user/u", None),
            ("not-an-arn", None),
            ("", None),
        ];
        for (arn, partition) in rows {
            assert_eq!(partition_of(arn), partition, "{arn:?}");
        }
    }

    #[test]
    fn a_role_in_another_partition_is_named_with_the_arn_it_may_have_meant() {
        let role = RoleArn::parse("arn:aws-cn:iam::123456789012:role/team/pp")
            .unwrap_or_else(|e| panic!("{e}"));
        let text = other_partition(&role, "zoneguard's credentials (arn:aws:sts::123456789012:assumed-role/z/s) are in partition aws", "aws");
        assert_eq!(text, "the role is in partition aws-cn, and zoneguard's credentials (arn:aws:sts::123456789012:assumed-role/z/s) are in partition aws; zoneguard reads IAM in that partition only, and an account there is not the account of the same number in another (if the partition is a slip, the role is arn:aws:iam::123456789012:role/team/pp)");
    }
}
