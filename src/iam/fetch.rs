//! The IAM calls, each bounded by its own timeout, with failures classified into "not found"
//! and `unavailable: <why>` (never an error that escapes, never a hang).

use super::metrics::IamMetrics;
use aws_credential_types::provider::error::CredentialsError;
use aws_sdk_iam::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_iam::Client;
use futures_util::future::join_all;
use std::fmt::Debug;
use std::future::Future;
use std::time::{Duration, Instant};
use zoneguard_core::irsa::{IamRole, Lookup, NamedPolicy, OidcProvider};

/// Why a lookup has no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    NotFound(String),
    Unavailable(String),
}

impl Failure {
    pub fn unavailable(why: impl Into<String>) -> Self {
        Failure::Unavailable(why.into())
    }

    pub fn why(&self) -> &str {
        match self {
            Failure::NotFound(why) | Failure::Unavailable(why) => why,
        }
    }

    pub fn into_lookup<T>(self) -> Lookup<T> {
        match self {
            Failure::NotFound(why) => Lookup::NotFound(why),
            Failure::Unavailable(why) => Lookup::Unavailable(why),
        }
    }

    /// A "not found" of a follow-up call (a policy deleted meanwhile) is no answer either.
    fn not_found_is_unavailable(self) -> Self {
        match self {
            Failure::NotFound(why) => Failure::Unavailable(why),
            other => other,
        }
    }
}

/// Most pages of a list call zoneguard reads (IAM's default page is 100 items).
const MAX_PAGES: usize = 10;
/// Longest error detail kept in a message.
const MAX_DETAIL: usize = 300;

/// Runs one SDK call with `timeout`, recording latency and errors.
pub async fn timed<T, E, R, F>(
    operation: &'static str,
    timeout: Duration,
    metrics: &IamMetrics,
    call: F,
) -> Result<T, Failure>
where
    F: Future<Output = Result<T, SdkError<E, R>>>,
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: Debug + 'static,
{
    let started = Instant::now();
    // Boxed: the SDK's futures are deep, and callers nest several of them.
    let result = tokio::time::timeout(timeout, Box::pin(call)).await;
    metrics.observe(operation, started.elapsed().as_secs_f64());
    let service = service_of(operation);
    match result {
        Ok(Ok(value)) => Ok(value),
        Err(_) => {
            metrics.error(operation, "timeout");
            Err(Failure::unavailable(format!(
                "{service} {operation} did not answer within {} (irsa.callTimeout)",
                human(timeout)
            )))
        }
        Ok(Err(e)) => {
            let (class, failure) = classify(operation, &e);
            metrics.error(operation, class);
            Err(failure)
        }
    }
}

fn service_of(operation: &str) -> &'static str {
    if operation == "GetCallerIdentity" {
        "STS"
    } else {
        "IAM"
    }
}

fn human(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

fn detail<E, R>(e: &SdkError<E, R>) -> String
where
    E: std::error::Error + Send + Sync + 'static,
    R: Debug,
{
    let mut text = DisplayErrorContext(e).to_string();
    // The chain of messages is enough; drop the Debug dump the SDK appends.
    for variant in [
        " (DispatchFailure(",
        " (ConstructionFailure(",
        " (ResponseError(",
        " (TimeoutError(",
        " (ServiceError(",
    ] {
        if let Some(at) = text.find(variant) {
            text.truncate(at);
        }
    }
    if text.chars().count() > MAX_DETAIL {
        format!("{}…", text.chars().take(MAX_DETAIL).collect::<String>())
    } else {
        text
    }
}

/// Sorts an SDK error into a metric class and a failure with a readable reason.
fn classify<E, R>(operation: &'static str, e: &SdkError<E, R>) -> (&'static str, Failure)
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: Debug + 'static,
{
    let service = service_of(operation);
    match e {
        SdkError::ServiceError(_) => service_error(operation, e),
        SdkError::TimeoutError(_) => (
            "timeout",
            Failure::unavailable(format!("{service} {operation} timed out")),
        ),
        SdkError::DispatchFailure(d) if d.is_timeout() => (
            "timeout",
            Failure::unavailable(format!("{service} {operation} timed out")),
        ),
        SdkError::DispatchFailure(_) if from_credentials(e) => (
            "credentials",
            Failure::unavailable(format!(
                "cannot sign {service} {operation}: no usable AWS credentials ({})",
                first_line(&detail(e))
            )),
        ),
        SdkError::DispatchFailure(_) => (
            "unreachable",
            Failure::unavailable(format!(
                "cannot reach the {service} endpoint for {operation}: {}",
                detail(e)
            )),
        ),
        SdkError::ConstructionFailure(_) => (
            "credentials",
            Failure::unavailable(format!(
                "cannot sign {service} {operation}: no usable AWS credentials or reader role ({})",
                detail(e)
            )),
        ),
        _ => (
            "other",
            Failure::unavailable(format!("{service} {operation} failed: {}", detail(e))),
        ),
    }
}

/// The SDK's message without the list of providers it tried, one per line.
fn first_line(text: &str) -> &str {
    let line = text.lines().next().unwrap_or_default();
    line.strip_suffix(" Attempted:").unwrap_or(line)
}

/// Whether the SDK failed before sending because its credentials provider had none to give
/// (it reports that as a dispatch failure, with the provider's error among the sources).
fn from_credentials(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(error) = cause {
        if error.is::<CredentialsError>() {
            return true;
        }
        cause = error.source();
    }
    false
}

fn service_error<E, R>(operation: &'static str, e: &SdkError<E, R>) -> (&'static str, Failure)
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: Debug,
{
    let service = service_of(operation);
    let code = e.code().unwrap_or("UnknownError");
    let message = e.message().unwrap_or("");
    match code {
        "NoSuchEntity" | "NoSuchEntityException" => (
            "not_found",
            Failure::NotFound(format!("{code}: {message}")),
        ),
        c if c.contains("Throttl") || c == "RequestLimitExceeded" => (
            "throttled",
            Failure::unavailable(format!(
                "{service} throttled {operation} ({c}); it recovers by itself, and a longer irsa.cacheTTL makes fewer calls"
            )),
        ),
        "AccessDenied" | "AccessDeniedException" => (
            "access_denied",
            Failure::unavailable(format!(
                "{service} denied {operation} to zoneguard ({message}); grant {}:{operation} to zoneguard's role, or to the account's reader role (see manifests/iam/)",
                service.to_lowercase()
            )),
        ),
        "InvalidClientTokenId" | "ExpiredToken" | "SignatureDoesNotMatch" | "UnrecognizedClientException" => (
            "credentials",
            Failure::unavailable(format!("{service} refused zoneguard's credentials for {operation} ({code}: {message})")),
        ),
        _ => (
            "other",
            Failure::unavailable(format!("{service} {operation} failed: {code}: {message}")),
        ),
    }
}

/// `GetRole`: the role's ARN and trust policy.
pub async fn get_role(
    client: &Client,
    name: &str,
    timeout: Duration,
    metrics: &IamMetrics,
) -> Lookup<IamRole> {
    let call = client.get_role().role_name(name).send();
    match timed("GetRole", timeout, metrics, call).await {
        Ok(out) => match out.role() {
            Some(role) => Lookup::Found(IamRole {
                permissions_boundary: role
                    .permissions_boundary()
                    .and_then(|b| b.permissions_boundary_arn())
                    .map(str::to_owned),
                ..IamRole::from_get_role(
                    role.arn(),
                    role.assume_role_policy_document().unwrap_or_default(),
                )
            }),
            None => Lookup::Unavailable("IAM GetRole returned no role".into()),
        },
        Err(f) => f.into_lookup(),
    }
}

/// `GetOpenIDConnectProvider`: the provider's client IDs.
pub async fn get_provider(
    client: &Client,
    arn: &str,
    timeout: Duration,
    metrics: &IamMetrics,
) -> Lookup<OidcProvider> {
    let call = client
        .get_open_id_connect_provider()
        .open_id_connect_provider_arn(arn)
        .send();
    match timed("GetOpenIDConnectProvider", timeout, metrics, call).await {
        Ok(out) => Lookup::Found(OidcProvider {
            client_ids: out.client_id_list().to_vec(),
        }),
        Err(f) => f.into_lookup(),
    }
}

/// The role's inline and attached (managed) permission policies, and its permissions
/// boundary (the managed policy `boundary`, from `GetRole`) when it has one.
pub async fn permissions(
    client: &Client,
    role: &str,
    boundary: Option<&str>,
    timeout: Duration,
    metrics: &IamMetrics,
) -> Lookup<Vec<NamedPolicy>> {
    let boundary_policy = async {
        match boundary {
            Some(arn) => managed_document(client, arn, timeout, metrics)
                .await
                .map(|document| Some(NamedPolicy::boundary(arn, &document))),
            None => Ok(None),
        }
    };
    let (inline, attached, boundary) = tokio::join!(
        inline_policies(client, role, timeout, metrics),
        attached_policies(client, role, timeout, metrics),
        boundary_policy
    );
    match (inline, attached, boundary) {
        (Ok(mut all), Ok(attached), Ok(boundary)) => {
            all.extend(attached);
            all.extend(boundary);
            Lookup::Found(all)
        }
        (Err(f), _, _) | (_, Err(f), _) | (_, _, Err(f)) => f.into_lookup(),
    }
}

async fn inline_policies(
    client: &Client,
    role: &str,
    timeout: Duration,
    metrics: &IamMetrics,
) -> Result<Vec<NamedPolicy>, Failure> {
    let mut names = Vec::new();
    let mut marker: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let call = client
            .list_role_policies()
            .role_name(role)
            .set_marker(marker.take())
            .send();
        let page = timed("ListRolePolicies", timeout, metrics, call).await?;
        names.extend(page.policy_names().iter().cloned());
        match page.marker().filter(|_| page.is_truncated()) {
            Some(next) => marker = Some(next.to_owned()),
            None => break,
        }
    }
    let documents = names.iter().map(|name| async move {
        let call = client
            .get_role_policy()
            .role_name(role)
            .policy_name(name)
            .send();
        let out = timed("GetRolePolicy", timeout, metrics, call)
            .await
            .map_err(Failure::not_found_is_unavailable)?;
        Ok(NamedPolicy::from_document(
            format!("inline policy {name}"),
            out.policy_document(),
        ))
    });
    join_all(documents).await.into_iter().collect()
}

async fn attached_policies(
    client: &Client,
    role: &str,
    timeout: Duration,
    metrics: &IamMetrics,
) -> Result<Vec<NamedPolicy>, Failure> {
    let mut arns = Vec::new();
    let mut marker: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let call = client
            .list_attached_role_policies()
            .role_name(role)
            .set_marker(marker.take())
            .send();
        let page = timed("ListAttachedRolePolicies", timeout, metrics, call).await?;
        arns.extend(
            page.attached_policies()
                .iter()
                .filter_map(|p| p.policy_arn().map(str::to_owned)),
        );
        match page.marker().filter(|_| page.is_truncated()) {
            Some(next) => marker = Some(next.to_owned()),
            None => break,
        }
    }
    let documents = arns.iter().map(|arn| async move {
        let document = managed_document(client, arn, timeout, metrics).await?;
        Ok(NamedPolicy::from_document(
            format!("managed policy {arn}"),
            &document,
        ))
    });
    join_all(documents).await.into_iter().collect()
}

/// The default version's document of the managed policy `arn`, as IAM returns it.
async fn managed_document(
    client: &Client,
    arn: &str,
    timeout: Duration,
    metrics: &IamMetrics,
) -> Result<String, Failure> {
    let call = client.get_policy().policy_arn(arn).send();
    let policy = timed("GetPolicy", timeout, metrics, call)
        .await
        .map_err(Failure::not_found_is_unavailable)?;
    let version = policy
        .policy()
        .and_then(|p| p.default_version_id())
        .ok_or_else(|| {
            Failure::unavailable(format!(
                "IAM GetPolicy returned no default version for {arn}"
            ))
        })?;
    let call = client
        .get_policy_version()
        .policy_arn(arn)
        .version_id(version)
        .send();
    let out = timed("GetPolicyVersion", timeout, metrics, call)
        .await
        .map_err(Failure::not_found_is_unavailable)?;
    Ok(out
        .policy_version()
        .and_then(|v| v.document())
        .unwrap_or_default()
        .to_owned())
}
