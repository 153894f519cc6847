//! The inject-rules condition keeper: holds zoneguard's MutatingWebhookConfiguration's
//! `zoneguard-inject-rules` match condition in step with the inject rules in force, so the API
//! server calls `/mutate` only for objects an inject rule may change.
//!
//! It watches the one configuration (by name) and the rule store, and writes the condition on
//! every webhook of the configuration by server-side apply (field manager `zoneguard`), which
//! leaves every other field, and any condition of the platform team's own, alone. It writes
//! when its own rules change and differ from the condition, and when a webhook lacks the
//! condition (the configuration re-created, the condition removed); it does not overwrite a
//! condition another writer changed while its rules stayed the same, so two replicas whose
//! rules differ for a moment (a rolling upgrade, a lagging watch) do not overwrite each other
//! in turn. Until a rule set is loaded it changes nothing (the shipped configuration, without
//! the condition, sends every object). A condition the API server refuses is replaced by
//! `true` (send every object, as without it), logged and counted.

use crate::serve::metrics::{Metrics, ResultLabels};
use crate::serve::rules_store::RulesStore;
use futures_util::StreamExt;
use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
use kube::api::{Patch, PatchParams};
use kube::runtime::watcher::{self, Event};
use kube::runtime::WatchStreamExt;
use kube::{Api, Client};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use zoneguard_core::mutation::condition;

/// The field manager of the condition.
const MANAGER: &str = "zoneguard";
/// How long to wait before trying again after the API server could not be reached or refused.
const RETRY: Duration = Duration::from_secs(10);

/// Whether to write `expression` on `config`: when a webhook lacks the condition, or when the
/// rules changed (`rules_changed`) and a webhook's condition is another expression.
pub fn should_write(
    config: &MutatingWebhookConfiguration,
    expression: &str,
    rules_changed: bool,
) -> bool {
    config
        .webhooks
        .as_deref()
        .unwrap_or_default()
        .iter()
        .any(|w| {
            let ours = w
                .match_conditions
                .as_deref()
                .unwrap_or_default()
                .iter()
                .find(|c| c.name == condition::NAME);
            match ours {
                None => true,
                Some(c) => rules_changed && c.expression != expression,
            }
        })
}

/// The server-side apply body that sets the condition on every webhook of `config`: the apply
/// names them all, since a webhook it left out would lose the condition it set before.
pub fn apply_body(config: &MutatingWebhookConfiguration, expression: &str) -> Value {
    let webhooks: Vec<Value> = config
        .webhooks
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|w| {
            json!({
                "name": w.name,
                "matchConditions": [{"name": condition::NAME, "expression": expression}],
            })
        })
        .collect();
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": config.metadata.name},
        "webhooks": webhooks,
    })
}

/// Keeps the condition of the MutatingWebhookConfiguration `name` in step until the process ends.
pub async fn keep(client: Client, name: String, store: Arc<RulesStore>, metrics: Arc<Metrics>) {
    let api: Api<MutatingWebhookConfiguration> = Api::all(client);
    let selector = format!("metadata.name={name}");
    let mut events = watcher::watcher(api.clone(), watcher::Config::default().fields(&selector))
        .default_backoff()
        .boxed();
    let mut rules = store.subscribe();
    let (mut live, mut relisted) = (None, None);
    // The rules in force at the start count as a change: they may differ from what an earlier
    // version of zoneguard wrote.
    let (mut rules_changed, mut retry) = (true, false);
    tracing::info!(configuration = %name, "keeping the mutating webhook's inject-rules condition in step");
    loop {
        tokio::select! {
            changed = rules.changed() => {
                if changed.is_err() {
                    tracing::warn!("the rule store is gone; the inject-rules condition is no longer kept");
                    return;
                }
                rules_changed = true;
            }
            event = events.next() => match event {
                Some(Ok(Event::Apply(config))) => live = Some(config),
                Some(Ok(Event::Delete(_))) => live = None,
                Some(Ok(Event::Init)) => relisted = None,
                Some(Ok(Event::InitApply(config))) => relisted = Some(config),
                Some(Ok(Event::InitDone)) => live = relisted.take(),
                Some(Err(e)) => {
                    count(&metrics, "error");
                    tracing::warn!(error = %e, configuration = %name, "cannot watch the MutatingWebhookConfiguration; retrying with backoff");
                }
                None => {
                    tracing::warn!(configuration = %name, "the MutatingWebhookConfiguration watch ended; the inject-rules condition is no longer kept");
                    return;
                }
            },
            () = tokio::time::sleep(RETRY), if retry => {}
        }
        let (Some(config), Some(loaded)) = (&live, store.current()) else {
            continue;
        };
        let expression = condition::expression(&loaded.rules.inject);
        retry = should_write(config, &expression, rules_changed)
            && !write(&api, config, &expression, &metrics).await;
        rules_changed &= retry;
    }
}

fn count(metrics: &Metrics, result: &'static str) {
    metrics
        .inject_condition_updates
        .get_or_create(&ResultLabels { result })
        .inc();
}

/// Writes `expression` on `config`; returns false when it should be tried again.
async fn write(
    api: &Api<MutatingWebhookConfiguration>,
    config: &MutatingWebhookConfiguration,
    expression: &str,
    metrics: &Metrics,
) -> bool {
    let name = config.metadata.name.as_deref().unwrap_or_default();
    match apply(api, config, expression).await {
        Ok(()) => {
            count(metrics, "updated");
            tracing::info!(configuration = %name, length = expression.len(), "mutating webhook's inject-rules condition updated");
            tracing::debug!(configuration = %name, %expression, "the inject-rules condition");
            true
        }
        Err(kube::Error::Api(status))
            if status.is_invalid() && status.message.contains("matchConditions") =>
        {
            count(metrics, "refused");
            tracing::error!(configuration = %name, error = %status.message, %expression,
                "the API server refused the inject rules' match condition; every object goes to /mutate instead");
            expression == "true" || apply(api, config, "true").await.is_ok()
        }
        Err(e) => {
            count(metrics, "error");
            tracing::warn!(configuration = %name, error = %e, "cannot update the mutating webhook's inject-rules condition; trying again in 10s");
            false
        }
    }
}

async fn apply(
    api: &Api<MutatingWebhookConfiguration>,
    config: &MutatingWebhookConfiguration,
    expression: &str,
) -> Result<(), kube::Error> {
    let name = config.metadata.name.as_deref().unwrap_or_default();
    let params = PatchParams::apply(MANAGER).force();
    let body = apply_body(config, expression);
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
    fn a_webhook_without_the_condition_is_written_whatever_changed() {
        let c = config(&[
            ("a.zoneguard.io", &[(condition::NAME, "x")]),
            ("b.zoneguard.io", &[("team", "true")]),
        ]);
        assert!(should_write(&c, "x", false));
        assert!(should_write(&c, "x", true));
    }

    #[test]
    fn another_expression_is_overwritten_only_when_the_rules_changed() {
        let c = config(&[(
            "a.zoneguard.io",
            &[("team", "true"), (condition::NAME, "y")],
        )]);
        assert!(
            !should_write(&c, "x", false),
            "another writer's expression is left"
        );
        assert!(should_write(&c, "x", true));
        assert!(!should_write(&c, "y", true), "in step");
        assert!(
            !should_write(&config(&[]), "x", true),
            "no webhook, nothing to write"
        );
    }

    #[test]
    fn the_apply_body_names_every_webhook_and_only_the_condition() {
        let c = config(&[
            ("a.zoneguard.io", &[(condition::NAME, "false")]),
            ("b.zoneguard.io", &[]),
        ]);
        let condition = json!([{"name": "zoneguard-inject-rules", "expression": "false"}]);
        assert_eq!(
            apply_body(&c, "false"),
            json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "MutatingWebhookConfiguration",
                "metadata": {"name": "zoneguard"},
                "webhooks": [{"name": "a.zoneguard.io", "matchConditions": condition},
                             {"name": "b.zoneguard.io", "matchConditions": condition}],
            })
        );
    }
}
