//! Rules from ConfigMaps: watches the labelled rule ConfigMaps and installs their combined rules.
//!
//! Every change re-combines all rule ConfigMaps with the one rules parser; changes already
//! waiting when one is taken are taken with it, and read once. A valid combination
//! is installed atomically; an invalid one is refused (logged, counted, and recorded as a
//! Warning Event on the ConfigMap at fault) and the last valid rule set stays in force. When the
//! last rule ConfigMap is deleted, the rule set in force is kept and the state is reported: an
//! empty rules document (`rules.yaml: "{}"`) is the explicit way to run with no rules.

use crate::serve::rules_store::{read_rules, sources_in, Origin, RulesStore};
use futures_util::{FutureExt, Stream, StreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, ObjectReference};
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::watcher::{self, Event as WatchEvent};
use kube::runtime::WatchStreamExt;
use kube::{Api, Client, Resource};
use std::collections::BTreeMap;
use std::sync::Arc;
use zoneguard_core::admission::{RULES_KEY, RULES_LABEL};
use zoneguard_core::rules::{RuleSet, RulesError};

/// One rule ConfigMap as last seen.
#[derive(Debug)]
struct Entry {
    /// `data["rules.yaml"]`; `None` when the key is missing.
    text: Option<String>,
    /// Where a Warning Event about it goes; a change of it alone (the ConfigMap deleted and
    /// created again with the same text, unseen between two lists) changes no rules.
    reference: ObjectReference,
}

type State = BTreeMap<String, Entry>;

/// Each rule ConfigMap's name and rules text, as `sources_of` lists them.
type Sources = Arc<Vec<(String, String)>>;

/// `ConfigMap ns/name`, the source name rules errors carry.
fn source_name(cm: &ConfigMap) -> String {
    let meta = &cm.metadata;
    format!(
        "ConfigMap {}/{}",
        meta.namespace.as_deref().unwrap_or_default(),
        meta.name.as_deref().unwrap_or_default()
    )
}

fn entry(cm: &ConfigMap) -> Entry {
    Entry {
        text: cm.data.as_ref().and_then(|d| d.get(RULES_KEY)).cloned(),
        reference: cm.object_ref(&()),
    }
}

/// Watches the rule ConfigMaps of `namespace` until the process ends: those labelled
/// `zoneguard.io/rules: "true"`, the label the `rules.zoneguard.io` webhook and `zoneguard
/// check` know them by. Watch errors are retried with backoff.
pub async fn watch(client: Client, namespace: String, store: Arc<RulesStore>) {
    let selector = format!("{RULES_LABEL}=true");
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), &namespace);
    let reporter = Reporter {
        controller: "zoneguard".into(),
        instance: std::env::var("POD_NAME").ok(),
    };
    let recorder = Recorder::new(client, reporter);
    let mut stream = watcher::watcher(api, watcher::Config::default().labels(&selector))
        .default_backoff()
        .boxed();
    let (mut state, mut buffer) = (State::new(), State::new());
    let mut installed = None::<Sources>;
    tracing::info!(%namespace, %selector, "watching rule ConfigMaps");
    while let Some(changed) = next_batch(&mut stream, &mut state, &mut buffer).await {
        if changed {
            let sources = Arc::new(sources_of(&state));
            store.set_rule_sources(sources.clone());
            if !in_force(&state, &sources, installed.as_ref())
                && reconcile(&state, sources.clone(), &store, &recorder).await
            {
                installed = Some(sources);
            }
        }
    }
}

/// Whether the rules of `state` (whose texts are `sources`) are those in force, read from the
/// texts `installed`: then there is nothing to read. A state with a ConfigMap that lacks the
/// key never is: its rules were refused.
fn in_force(state: &State, sources: &Sources, installed: Option<&Sources>) -> bool {
    state.values().all(|e| e.text.is_some()) && installed == Some(sources)
}

/// Waits for the next watch event and takes it, with every event already waiting behind it
/// (several ConfigMaps applied at once, or edits made while the last rules were read), so the
/// rules are read once for all of them. Returns whether the rule ConfigMaps changed; `None` when
/// the watch ended.
async fn next_batch<S>(stream: &mut S, state: &mut State, buffer: &mut State) -> Option<bool>
where
    S: Stream<Item = Result<WatchEvent<ConfigMap>, watcher::Error>> + Unpin,
{
    let mut changed = take(stream.next().await?, state, buffer);
    while let Some(Some(event)) = stream.next().now_or_never() {
        changed |= take(event, state, buffer);
    }
    Some(changed)
}

/// Takes one watch event into `state` (`buffer` holds a re-list until it is done); returns
/// whether the rule ConfigMaps' rules changed: which ConfigMaps there are, or a text.
fn take(
    event: Result<WatchEvent<ConfigMap>, watcher::Error>,
    state: &mut State,
    buffer: &mut State,
) -> bool {
    match event {
        Ok(WatchEvent::Init) => {
            buffer.clear();
            false
        }
        Ok(WatchEvent::InitApply(cm)) => {
            buffer.insert(source_name(&cm), entry(&cm));
            false
        }
        Ok(WatchEvent::InitDone) => {
            *state = std::mem::take(buffer);
            true
        }
        Ok(WatchEvent::Apply(cm)) => {
            let (name, new) = (source_name(&cm), entry(&cm));
            match state.get_mut(&name) {
                Some(old) => std::mem::replace(old, new).text != old.text,
                None => state.insert(name, new).is_none(),
            }
        }
        Ok(WatchEvent::Delete(cm)) => state.remove(&source_name(&cm)).is_some(),
        Err(e) => {
            tracing::warn!(error = %e, "rule ConfigMap watch failed; retrying with backoff");
            false
        }
    }
}

/// Each rule ConfigMap's name and rules text, those without the key left out.
fn sources_of(state: &State) -> Vec<(String, String)> {
    state
        .iter()
        .filter_map(|(name, e)| e.text.clone().map(|t| (name.clone(), t)))
        .collect()
}

/// The rule set the rule ConfigMaps' `texts` (name, text) combine into, read on the blocking
/// pool: a large one takes the better part of a second, which would hold up the admissions of an
/// async worker. A panic while reading is a refusal (`read_rules`), so the watch goes on.
async fn combined(texts: Sources) -> Result<RuleSet, Vec<RulesError>> {
    let task = tokio::task::spawn_blocking(move || read_rules(&sources_in(&texts)));
    task.await.unwrap_or_else(|e| {
        Err(vec![RulesError::of_document(
            "the rule ConfigMaps",
            format!("their read did not finish ({e})"),
        )])
    })
}

/// Combines `state` (whose texts are `sources`, as `sources_of` lists them) and installs it;
/// returns whether it was installed.
async fn reconcile(
    state: &State,
    sources: Sources,
    store: &RulesStore,
    recorder: &Recorder,
) -> bool {
    if state.is_empty() {
        let problem = "no rule ConfigMap exists: the last valid rule set stays in force (apply an empty rules document to run with no rules)".to_string();
        store.refuse(Origin::ConfigMap, &[problem]);
        return false;
    }
    let mut problems: Vec<(String, String)> = state
        .iter()
        .filter(|(_, e)| e.text.is_none())
        .map(|(name, _)| {
            (
                name.clone(),
                format!("{name}: the key {RULES_KEY} is missing"),
            )
        })
        .collect();
    if problems.is_empty() {
        match combined(sources).await {
            Ok(rules) => {
                store.install(
                    rules,
                    Origin::ConfigMap,
                    state.keys().cloned().collect::<Vec<_>>().join(", "),
                );
                return true;
            }
            Err(errors) => {
                problems = errors
                    .iter()
                    .map(|e| (e.source_name.clone(), e.to_string()))
                    .collect()
            }
        }
    }
    store.refuse(
        Origin::ConfigMap,
        &problems.iter().map(|(_, p)| p.clone()).collect::<Vec<_>>(),
    );
    for (name, problem) in &problems {
        if let Some(e) = state.get(name) {
            publish(recorder, &e.reference, problem).await;
        }
    }
    false
}

async fn publish(recorder: &Recorder, reference: &ObjectReference, problem: &str) {
    let note: String = problem.chars().take(1000).collect();
    let event = Event {
        type_: EventType::Warning,
        reason: "RulesRefused".into(),
        note: Some(format!("{note}; the last valid rule set stays in force")),
        action: "LoadRules".into(),
        secondary: None,
    };
    if let Err(e) = recorder.publish(&event, reference).await {
        tracing::warn!(error = %e, "cannot record an Event for a refused rule ConfigMap");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::stream;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    fn rule_configmap(name: &str, text: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.to_string()),
                namespace: Some("zoneguard".to_string()),
                ..ObjectMeta::default()
            },
            data: Some([(RULES_KEY.to_string(), text.to_string())].into()),
            ..ConfigMap::default()
        }
    }

    /// The state of one rule ConfigMap, `name`, whose rules are `{}`.
    fn holding(name: &str) -> State {
        let cm = rule_configmap(name, "{}");
        State::from([(source_name(&cm), entry(&cm))])
    }

    fn applied(name: &str, text: &str) -> Result<WatchEvent<ConfigMap>, watcher::Error> {
        Ok(WatchEvent::Apply(rule_configmap(name, text)))
    }

    #[tokio::test]
    async fn events_waiting_together_are_taken_in_one_batch() {
        let ready = stream::iter([applied("a", "{}"), applied("b", "{}"), applied("a", "x: 1")]);
        let mut events = ready.chain(stream::pending()).boxed();
        let (mut state, mut buffer) = (State::new(), State::new());
        let batch = next_batch(&mut events, &mut state, &mut buffer).await;
        assert_eq!(batch, Some(true));
        let texts = sources_of(&state);
        assert_eq!(
            texts,
            [
                ("ConfigMap zoneguard/a".to_string(), "x: 1".to_string()),
                ("ConfigMap zoneguard/b".to_string(), "{}".to_string())
            ]
        );
    }

    #[tokio::test]
    async fn a_batch_that_changes_nothing_says_so_and_an_ended_watch_ends_the_batches() {
        let (mut state, mut buffer) = (holding("a"), State::new());
        let mut events = stream::iter([applied("a", "{}")]).boxed();
        assert_eq!(
            next_batch(&mut events, &mut state, &mut buffer).await,
            Some(false)
        );
        assert_eq!(next_batch(&mut events, &mut state, &mut buffer).await, None);
    }

    #[tokio::test]
    async fn a_configmap_recreated_with_the_same_text_changes_no_rules_but_its_reference_is_kept() {
        let (mut state, mut buffer) = (holding("a"), State::new());
        let mut recreated = rule_configmap("a", "{}");
        recreated.metadata.uid = Some("2".to_string());
        let mut events = stream::iter([Ok(WatchEvent::Apply(recreated))]).boxed();
        assert_eq!(
            next_batch(&mut events, &mut state, &mut buffer).await,
            Some(false)
        );
        let reference = &state["ConfigMap zoneguard/a"].reference;
        assert_eq!(reference.uid.as_deref(), Some("2"));
    }

    #[test]
    fn rules_are_in_force_when_their_texts_were_installed_and_no_configmap_lacks_the_key() {
        let mut state = holding("a");
        let sources = Arc::new(sources_of(&state));
        let other = Arc::new(vec![(
            "ConfigMap zoneguard/a".to_string(),
            "x: 1".to_string(),
        )]);
        assert!(in_force(&state, &sources, Some(&sources.clone())));
        assert!(!in_force(&state, &sources, Some(&other)));
        assert!(!in_force(&state, &sources, None));
        let mut keyless = rule_configmap("b", "");
        keyless.data = None;
        state.insert("ConfigMap zoneguard/b".to_string(), entry(&keyless));
        assert_eq!(sources_of(&state), *sources);
        assert!(!in_force(&state, &sources, Some(&sources.clone())));
    }

    #[tokio::test]
    async fn a_relist_replaces_the_state_only_when_it_is_done() {
        let (mut state, mut buffer) = (holding("old"), State::new());
        let relist = [
            Ok(WatchEvent::Init),
            Ok(WatchEvent::InitApply(rule_configmap("new", "{}"))),
        ];
        let mut events = stream::iter(relist).chain(stream::pending()).boxed();
        assert_eq!(
            next_batch(&mut events, &mut state, &mut buffer).await,
            Some(false)
        );
        assert!(state.contains_key("ConfigMap zoneguard/old"));
        let mut done = stream::iter([Ok(WatchEvent::InitDone)]).boxed();
        assert_eq!(
            next_batch(&mut done, &mut state, &mut buffer).await,
            Some(true)
        );
        assert_eq!(
            state.keys().collect::<Vec<_>>(),
            ["ConfigMap zoneguard/new"]
        );
    }

    #[tokio::test]
    async fn rule_configmaps_are_read_into_a_rule_set_on_the_blocking_pool() {
        let texts = vec![("ConfigMap zoneguard/rules".to_string(), "{}\n".to_string())];
        let rules = combined(Arc::new(texts)).await;
        assert!(rules.is_ok(), "{rules:?}");
    }
}
