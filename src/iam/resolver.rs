//! Reads from IAM what the core needs to decide on one ServiceAccount, through the cache,
//! and hands it over as `Facts`.

use super::cache::TtlCache;
use super::client::{Caller, Clients, Options};
use super::fetch::{self, Failure};
use super::metrics::IamMetrics;
use anyhow::Result;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use zoneguard_core::admission::{Operation, Request};
use zoneguard_core::annotation;
use zoneguard_core::arn::RoleArn;
use zoneguard_core::irsa::{self, Facts, IamRole, Lookup, NamedPolicy, OidcProvider};
use zoneguard_core::rules::{IrsaSource, RuleSet};
use zoneguard_core::tree::Node;
use zoneguard_core::trust::WebIdentity;

/// Bounds of all lookups for one admission request: twice `irsa.callTimeout` (a call to STS
/// for zoneguard's own identity, then the IAM calls, which run side by side), at least 3 s
/// and at most 9 s, inside the ServiceAccount webhook's `timeoutSeconds: 10`.
const MIN_DEADLINE: Duration = Duration::from_secs(3);
const MAX_DEADLINE: Duration = Duration::from_secs(9);

/// Looks roles, permission policies and OIDC providers up in IAM, with a TTL cache and
/// single-flight. Cheap to clone; share one per process.
#[derive(Clone)]
pub struct Resolver {
    inner: Arc<Inner>,
}

struct Inner {
    clients: Clients,
    identity: TtlCache<Result<Caller, Failure>>,
    roles: TtlCache<Lookup<IamRole>>,
    permissions: TtlCache<Lookup<Vec<NamedPolicy>>>,
    providers: TtlCache<Lookup<OidcProvider>>,
    metrics: IamMetrics,
}

/// The TTLs and timeout of one resolution, from the rules in force.
#[derive(Clone, Copy)]
struct Timing {
    ttl: Duration,
    negative_ttl: Duration,
    call: Duration,
    deadline: Duration,
}

impl Timing {
    fn of(irsa: &zoneguard_core::rules::Irsa) -> Self {
        Timing {
            ttl: irsa.cache_ttl,
            negative_ttl: irsa.negative_cache_ttl,
            call: irsa.call_timeout,
            deadline: deadline_for(irsa.call_timeout),
        }
    }
}

/// The bound of one request's lookups for a per-call timeout (see [`MIN_DEADLINE`]).
fn deadline_for(call: Duration) -> Duration {
    (call * 2).clamp(MIN_DEADLINE, MAX_DEADLINE)
}

impl Resolver {
    /// Builds the SDK configuration (default credential chain; endpoint from `options`, else
    /// `AWS_ENDPOINT_URL`). No network call happens here.
    pub async fn new(options: &Options) -> Result<Self> {
        Ok(Self {
            inner: Arc::new(Inner {
                clients: Clients::load(options).await?,
                identity: TtlCache::new(),
                roles: TtlCache::new(),
                permissions: TtlCache::new(),
                providers: TtlCache::new(),
                metrics: IamMetrics::new(),
            }),
        })
    }

    /// The metrics, for the server to register (`metrics().register(&mut registry)`).
    pub fn metrics(&self) -> &IamMetrics {
        &self.inner.metrics
    }

    /// Forgets every cached answer.
    pub fn clear_cache(&self) {
        let i = &self.inner;
        i.identity.clear();
        i.roles.clear();
        i.permissions.clear();
        i.providers.clear();
    }

    /// Whether `validate_with` needs IAM facts for this request: a ServiceAccount CREATE or
    /// UPDATE outside the exempt namespaces, with `irsa.source: iam`.
    pub fn wants(rules: &RuleSet, req: &Request<'_>) -> bool {
        rules.irsa.source == IrsaSource::Iam
            && req.group.is_empty()
            && req.kind == "ServiceAccount"
            && matches!(req.operation, Operation::Create | Operation::Update)
            && req.sub_resource.is_none_or(str::is_empty)
            && req.object.is_some()
            && !rules.exempt_namespaces.contains(req.namespace)
    }

    /// The facts for an admission request: empty unless [`Resolver::wants`] it. Never fails
    /// and never takes longer than the deadline: what cannot be read is `Unavailable`.
    pub async fn resolve(&self, rules: &RuleSet, req: &Request<'_>) -> Facts {
        match req.object.filter(|_| Self::wants(rules, req)) {
            Some(object) => {
                Box::pin(self.resolve_service_account(rules, req.namespace, req.name, object)).await
            }
            None => Facts::none(),
        }
    }

    /// The facts for one ServiceAccount object, whatever `irsa.source` says (`zoneguard
    /// check --iam`).
    pub async fn resolve_service_account(
        &self,
        rules: &RuleSet,
        namespace: &str,
        name: &str,
        object: &Node<'_>,
    ) -> Facts {
        let mut facts = Facts {
            resolved: true,
            ..Facts::default()
        };
        let Some(role) = role_to_look_up(rules, object) else {
            return facts;
        };
        let irsa = &rules.irsa;
        let timing = Timing::of(irsa);
        let targets: Vec<RoleArn> = irsa
            .chains_of(namespace, name)
            .map(|c| c.assumes.clone())
            .collect();
        let provider = irsa
            .issuer
            .as_deref()
            .filter(|_| irsa.check_provider)
            .map(|issuer| provider_arn(&role, issuer));
        let (own, chains) = (&role, !targets.is_empty());
        let (role_lookup, target_lookups, permissions, provider_lookup) = tokio::join!(
            bounded(timing, Box::pin(self.role(rules, own, timing))),
            futures_util::future::join_all(
                targets
                    .iter()
                    .map(|t| bounded(timing, Box::pin(self.role(rules, t, timing))))
            ),
            bounded_opt(
                timing,
                chains.then(|| Box::pin(self.permissions(rules, own, timing)))
            ),
            bounded_opt(
                timing,
                provider
                    .as_deref()
                    .map(|p| Box::pin(self.provider(rules, own, p, timing)))
            ),
        );
        if let Some(lookup) = role_lookup {
            facts.insert_role(&role, lookup);
        }
        for (target, lookup) in targets.iter().zip(target_lookups) {
            if let Some(lookup) = lookup {
                facts.insert_role(target, lookup);
            }
        }
        if let Some(lookup) = permissions {
            facts.insert_permissions(&role, lookup);
        }
        if let (Some(arn), Some(lookup)) = (provider, provider_lookup) {
            facts.insert_provider(&arn, lookup);
        }
        facts
    }

    /// `GetRole`, unless the rules list the role's trust policy (static wins).
    async fn role(&self, rules: &RuleSet, role: &RoleArn, t: Timing) -> Option<Lookup<IamRole>> {
        if rules.irsa.trust_policies.contains_key(&role.to_string()) {
            return None;
        }
        Some(self.get_role(rules, role, t).await)
    }

    /// `GetRole` through the cache (one call for concurrent lookups of one role).
    async fn get_role(&self, rules: &RuleSet, role: &RoleArn, t: Timing) -> Lookup<IamRole> {
        let key = role.to_string();
        let i = &self.inner;
        let (lookup, hit) = i
            .roles
            .get_or_fetch(
                &key,
                || {
                    Box::pin(async {
                        match self.client(rules, role, t).await {
                            Ok(client) => {
                                fetch::get_role(&client, &role.name, t.call, &i.metrics).await
                            }
                            Err(f) => f.into_lookup(),
                        }
                    })
                },
                |l| ttl_of(l, t),
            )
            .await;
        i.metrics.hit("role", hit);
        lookup
    }

    async fn permissions(
        &self,
        rules: &RuleSet,
        role: &RoleArn,
        t: Timing,
    ) -> Option<Lookup<Vec<NamedPolicy>>> {
        let i = &self.inner;
        let (lookup, hit) = i
            .permissions
            .get_or_fetch(
                &role.to_string(),
                || {
                    Box::pin(async {
                        // The boundary's ARN comes from GetRole, shared with the trust check.
                        let boundary = match self.get_role(rules, role, t).await {
                            Lookup::Found(found) => found.permissions_boundary,
                            Lookup::NotFound(why) => return Lookup::NotFound(why),
                            Lookup::Unavailable(why) => return Lookup::Unavailable(why),
                        };
                        match self.client(rules, role, t).await {
                            Ok(client) => {
                                let (name, boundary) = (&role.name, boundary.as_deref());
                                fetch::permissions(&client, name, boundary, t.call, &i.metrics)
                                    .await
                            }
                            Err(f) => f.into_lookup(),
                        }
                    })
                },
                |l| ttl_of(l, t),
            )
            .await;
        i.metrics.hit("permissions", hit);
        Some(lookup)
    }

    async fn provider(
        &self,
        rules: &RuleSet,
        role: &RoleArn,
        arn: &str,
        t: Timing,
    ) -> Option<Lookup<OidcProvider>> {
        let i = &self.inner;
        let (lookup, hit) = i
            .providers
            .get_or_fetch(
                arn,
                || {
                    Box::pin(async {
                        match self.client(rules, role, t).await {
                            Ok(client) => {
                                fetch::get_provider(&client, arn, t.call, &i.metrics).await
                            }
                            Err(f) => f.into_lookup(),
                        }
                    })
                },
                |l| ttl_of(l, t),
            )
            .await;
        i.metrics.hit("provider", hit);
        Some(lookup)
    }

    /// The IAM client for `role`'s account; zoneguard's own identity is asked of STS once per
    /// TTL.
    async fn client(
        &self,
        rules: &RuleSet,
        role: &RoleArn,
        t: Timing,
    ) -> Result<aws_sdk_iam::Client, Failure> {
        let i = &self.inner;
        let readers = &rules.irsa.account_readers;
        let own = if readers.contains_key(&role.account) {
            Err(Failure::unavailable("not needed"))
        } else {
            let (own, hit) = i
                .identity
                .get_or_fetch(
                    "caller",
                    || i.clients.own_identity(t.call, &i.metrics),
                    |r| if r.is_ok() { t.ttl } else { t.negative_ttl },
                )
                .await;
            i.metrics.hit("identity", hit);
            own
        };
        i.clients.iam_for(role, readers, own).await
    }
}

/// Runs a lookup within the request's deadline; `None` passes through (nothing to look up).
async fn bounded<T>(
    t: Timing,
    lookup: impl Future<Output = Option<Lookup<T>>>,
) -> Option<Lookup<T>> {
    tokio::time::timeout(t.deadline, Box::pin(lookup))
        .await
        .unwrap_or_else(|_| {
            Some(Lookup::Unavailable(format!(
                "the IAM lookups did not finish within {}s: twice irsa.callTimeout, at least 3s and at most 9s",
                t.deadline.as_secs_f32()
            )))
        })
}

async fn bounded_opt<T, F>(t: Timing, lookup: Option<F>) -> Option<Lookup<T>>
where
    F: Future<Output = Option<Lookup<T>>>,
{
    match lookup {
        Some(f) => bounded(t, f).await,
        None => None,
    }
}

fn ttl_of<T>(lookup: &Lookup<T>, t: Timing) -> Duration {
    match lookup {
        Lookup::Found(_) => t.ttl,
        Lookup::NotFound(_) | Lookup::Unavailable(_) => t.negative_ttl,
    }
}

/// The OIDC provider ARN in the role's account for `issuer`, as the core builds it.
fn provider_arn(role: &RoleArn, issuer: &str) -> String {
    WebIdentity {
        role,
        issuer,
        namespace: "",
        service_account: "",
        audience: "",
    }
    .provider_arn()
}

/// The role a ServiceAccount's annotation names, when it is one to look up: a role ARN, in one
/// of the accounts the rules list (any account when they list none).
fn role_to_look_up(rules: &RuleSet, object: &Node<'_>) -> Option<RoleArn> {
    let role = annotation::get(object, irsa::ROLE_ARN)
        .and_then(|text| RoleArn::parse(text.trim()).ok())?;
    let accounts = &rules.irsa.accounts;
    (accounts.is_empty() || accounts.contains(&role.account)).then_some(role)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>(_: &T) {}
    fn assert_send_sync<T: Send + Sync + Clone + 'static>() {}

    #[test]
    fn the_deadline_is_twice_the_call_timeout_within_three_to_nine_seconds() {
        let ms = Duration::from_millis;
        let rows = [
            (100, 3_000),
            (1_000, 3_000),
            (2_000, 4_000),
            (4_000, 8_000),
            (10_000, 9_000),
        ];
        for (call, deadline) in rows {
            assert_eq!(
                deadline_for(ms(call)),
                ms(deadline),
                "callTimeout {call} ms"
            );
        }
    }

    /// The server awaits `resolve` inside its request handlers: the future must be `Send`.
    #[tokio::test]
    async fn resolve_is_send_and_the_resolver_is_shareable() {
        assert_send_sync::<Resolver>();
        let options = Options {
            endpoint_url: Some("http://127.0.0.1:9".into()),
            region: Some("us-east-1".into()),
        };
        let resolver = Resolver::new(&options).await.expect("resolver");
        let rules = RuleSet::parse("r", "").expect("rules");
        let value = serde_json::json!({"kind": "ConfigMap"});
        let object = Node::from(&value);
        let req = Request {
            operation: Operation::Create,
            group: "",
            version: "v1",
            kind: "ConfigMap",
            namespace: "default",
            name: "x",
            object: Some(&object),
            old_object: None,
            sub_resource: None,
        };
        let future = resolver.resolve(&rules, &req);
        assert_send(&future);
        let facts = future.await;
        assert!(!facts.resolved, "not a ServiceAccount: no lookups");
    }
}
