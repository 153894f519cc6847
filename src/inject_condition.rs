//! The inject-rules condition keeper: holds zoneguard's MutatingWebhookConfiguration's
//! `zoneguard-inject-rules` match condition in step with the inject rules in force, so the API
//! server calls `/mutate` only for objects an inject rule may change.
//!
//! It watches the one configuration (by name) and the rule store; whenever either changes, each
//! webhook of the configuration whose condition differs from the rules' gets it by server-side
//! apply (field manager `zoneguard`), which leaves every other field, and any condition of the
//! platform team's own, alone. Until a rule set is loaded it changes nothing (the shipped
//! configuration, without the condition, sends every object). A condition the API server
//! refuses is replaced by `true` (send every object, as without it), logged and counted.

use crate::serve::metrics::{Metrics, ResultLabels};
use crate::serve::rules_store::RulesStore;
use futures_util::StreamExt;
use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
use kube::api::{Patch, PatchParams};
use kube::runtime::{watcher, WatchStreamExt};
use kube::{Api, Client};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use zoneguard_core::mutation::condition;

/// The field manager of the condition.
const MANAGER: &str = "zoneguard";
/// How long to wait before trying again after the API server could not be reached or refused.
const RETRY: Duration = Duration::from_secs(10);

/// The names of the webhooks of `config` whose condition is not `expression`.
pub fn out_of_step(config: &MutatingWebhookConfiguration, expression: &str) -> Vec<String> {
    let webhooks = config.webhooks.as_deref().unwrap_or_default();
    webhooks
        .iter()
        .filter(|w| {
            let ours = w.match_conditions.as_deref().unwrap_or_default();
            !ours
                .iter()
                .any(|c| c.name == condition::NAME && c.expression == expression)
        })
        .map(|w| w.name.clone())
        .collect()
}

/// The server-side apply body that sets the condition on each of `webhooks` of `config_name`.
pub fn apply_body(config_name: &str, webhooks: &[String], expression: &str) -> Value {
    let webhooks: Vec<Value> = webhooks
        .iter()
        .map(|name| {
            json!({
                "name": name,
                "matchConditions": [{"name": condition::NAME, "expression": expression}],
            })
        })
        .collect();
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": config_name},
        "webhooks": webhooks,
    })
}

/// Keeps the condition of the MutatingWebhookConfiguration `name` in step until the process ends.
pub async fn keep(client: Client, name: String, store: Arc<RulesStore>, metrics: Arc<Metrics>) {
    let api: Api<MutatingWebhookConfiguration> = Api::all(client);
    let selector = format!("metadata.name={name}");
    let mut configs = watcher::watcher(api.clone(), watcher::Config::default().fields(&selector))
        .default_backoff()
        .applied_objects()
        .boxed();
    let mut rules = store.subscribe();
    let mut live: Option<MutatingWebhookConfiguration> = None;
    let mut retry = false;
    tracing::info!(configuration = %name, "keeping the mutating webhook's inject-rules condition in step");
    loop {
        tokio::select! {
            changed = rules.changed() => if changed.is_err() { return },
            event = configs.next() => match event {
                Some(Ok(config)) => live = Some(config),
                Some(Err(e)) => tracing::warn!(error = %e, configuration = %name, "MutatingWebhookConfiguration watch failed; retrying with backoff"),
                None => return,
            },
            () = tokio::time::sleep(RETRY), if retry => {}
        }
        let (Some(config), Some(loaded)) = (&live, store.current()) else {
            continue;
        };
        let expression = condition::expression(&loaded.rules.inject);
        retry = !bring_in_step(&api, &name, config, &expression, &metrics).await;
    }
}

/// Applies `expression` where `config` lacks it; returns false when it should be tried again.
async fn bring_in_step(
    api: &Api<MutatingWebhookConfiguration>,
    name: &str,
    config: &MutatingWebhookConfiguration,
    expression: &str,
    metrics: &Metrics,
) -> bool {
    let webhooks = out_of_step(config, expression);
    if webhooks.is_empty() {
        return true;
    }
    let count = |result| {
        metrics
            .inject_condition_updates
            .get_or_create(&ResultLabels { result })
            .inc()
    };
    match apply(api, name, &webhooks, expression).await {
        Ok(()) => {
            count("updated");
            tracing::info!(configuration = %name, ?webhooks, %expression, "mutating webhook's inject-rules condition updated");
            true
        }
        Err(kube::Error::Api(status)) if status.is_invalid() && expression != "true" => {
            count("refused");
            tracing::error!(configuration = %name, error = %status.message, %expression,
                "the API server refused the inject rules' match condition; every object goes to /mutate instead");
            let fallback = out_of_step(config, "true");
            fallback.is_empty() || apply(api, name, &fallback, "true").await.is_ok()
        }
        Err(e) => {
            count("error");
            tracing::warn!(configuration = %name, error = %e, "cannot update the mutating webhook's inject-rules condition; trying again in 10s");
            false
        }
    }
}

async fn apply(
    api: &Api<MutatingWebhookConfiguration>,
    name: &str,
    webhooks: &[String],
    expression: &str,
) -> Result<(), kube::Error> {
    let body = apply_body(name, webhooks, expression);
    let params = PatchParams::apply(MANAGER).force();
    api.patch(name, &params, &Patch::Apply(&body))
        .await
        .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(conditions: &[(&str, &[(&str, &str)])]) -> MutatingWebhookConfiguration {
        let webhooks: Vec<Value> = conditions
            .iter()
            .map(|(name, conds)| {
                let conds: Vec<Value> = conds
                    .iter()
                    .map(|(n, e)| json!({"name": n, "expression": e}))
                    .collect();
                json!({"name": name, "clientConfig": {}, "sideEffects": "None",
                       "admissionReviewVersions": ["v1"], "matchConditions": conds})
            })
            .collect();
        serde_json::from_value(json!({"metadata": {"name": "zoneguard"}, "webhooks": webhooks}))
            .expect("a configuration")
    }

    #[test]
    fn a_webhook_without_the_condition_or_with_another_expression_is_out_of_step() {
        let c = config(&[
            ("a.zoneguard.io", &[]),
            ("b.zoneguard.io", &[(condition::NAME, "false")]),
            (
                "c.zoneguard.io",
                &[("team", "true"), (condition::NAME, "x")],
            ),
        ]);
        assert_eq!(out_of_step(&c, "x"), ["a.zoneguard.io", "b.zoneguard.io"]);
        assert!(out_of_step(&c, "x").iter().all(|w| w != "c.zoneguard.io"));
        assert_eq!(out_of_step(&config(&[]), "x"), Vec::<String>::new());
    }

    #[test]
    fn the_apply_body_names_only_the_webhooks_and_the_condition() {
        let body = apply_body("zoneguard", &["a.zoneguard.io".into()], "false");
        assert_eq!(
            body,
            json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "MutatingWebhookConfiguration",
                "metadata": {"name": "zoneguard"},
                "webhooks": [{"name": "a.zoneguard.io",
                              "matchConditions": [{"name": "zoneguard-inject-rules", "expression": "false"}]}],
            })
        );
    }
}
