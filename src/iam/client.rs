//! AWS SDK clients: the shared configuration (default credential chain, endpoint override,
//! rustls with ring), zoneguard's own account, and IAM clients per account (directly, or
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
    /// Upper bound of all lookups for one admission request; `None` = 3 seconds.
    pub deadline: Option<Duration>,
}

/// The session name zoneguard uses when it assumes reader roles.
const SESSION_NAME: &str = "zoneguard";
/// The SDK's own per-attempt bound; zoneguard's per-call timeout (`irsa.callTimeout`) is
/// shorter and is enforced around every call.
const SDK_ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Clients {
    config: SdkConfig,
    home: aws_sdk_iam::Client,
    sts: aws_sdk_sts::Client,
    readers: Mutex<HashMap<String, aws_sdk_iam::Client>>,
}

impl Clients {
    pub async fn load(options: &Options) -> Result<Self> {
        let http = aws_smithy_http_client::Builder::new()
            .tls_provider(tls::Provider::Rustls(CryptoMode::Ring))
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

    /// The account of zoneguard's own credentials (`sts:GetCallerIdentity`).
    pub async fn own_account(
        &self,
        timeout: Duration,
        metrics: &IamMetrics,
    ) -> Result<String, Failure> {
        let call = self.sts.get_caller_identity().send();
        let out = fetch::timed("GetCallerIdentity", timeout, metrics, call).await?;
        out.account()
            .map(str::to_owned)
            .ok_or_else(|| Failure::unavailable("STS GetCallerIdentity returned no account"))
    }

    /// The IAM client for a role's account: through its reader role when
    /// `irsa.accountReaders` names one, else zoneguard's own credentials when the account is
    /// zoneguard's own (`own_account`), else "cannot verify".
    pub async fn iam_for(
        &self,
        account: &str,
        readers: &BTreeMap<String, RoleArn>,
        own_account: Result<String, Failure>,
    ) -> Result<aws_sdk_iam::Client, Failure> {
        if let Some(reader) = readers.get(account) {
            return Ok(self.reader(reader).await);
        }
        match own_account {
            Ok(own) if own == account => Ok(self.home.clone()),
            Ok(own) => Err(Failure::unavailable(format!("no reader role for account {account} in irsa.accountReaders, and zoneguard's own credentials are for account {own}; add irsa.accountReaders[\"{account}\"] with a role zoneguard may assume there"))),
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
