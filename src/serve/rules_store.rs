//! The rule set in force, swapped atomically, and the sources that feed it.
//!
//! Every source (rules files today, a ConfigMap watcher later) ends in one of two calls:
//! [`RulesStore::install`] with a compiled [`RuleSet`], or [`RulesStore::refuse`] with the reason
//! the new rules were not used. Requests read the current set with one atomic load and never wait
//! for a reload.

use super::metrics::{Metrics, SourceLabels};
use arc_swap::{ArcSwap, ArcSwapOption};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;
use zoneguard_core::rules::{self, RuleSet, RuleSource, RulesError};

/// The rule sources `texts` (name, text) hold, borrowed from them.
pub fn sources_in(texts: &[(String, String)]) -> Vec<RuleSource<'_>> {
    (texts.iter())
        .map(|(name, text)| RuleSource { name, text })
        .collect()
}

/// The rule set `sources` combine into (`RuleSet::from_sources`), for every source of rules. A
/// panic while reading them (a bug) is one error, as invalid rules give: the rule set in force
/// stays, the refusal is logged and counted, and the watch that asked goes on.
pub fn read_rules(sources: &[RuleSource<'_>]) -> Result<RuleSet, Vec<RulesError>> {
    read_guarded(sources, RuleSet::from_sources)
}

fn read_guarded(
    sources: &[RuleSource<'_>],
    read: fn(&[RuleSource<'_>]) -> Result<RuleSet, Vec<RulesError>>,
) -> Result<RuleSet, Vec<RulesError>> {
    std::panic::catch_unwind(|| read(sources)).unwrap_or_else(|_| {
        let names: Vec<&str> = sources.iter().map(|s| s.name).collect();
        Err(vec![RulesError::of_document(
            names.join(", "),
            "zoneguard failed while reading these rules (a bug: its log has the panic); the last valid rule set stays in force",
        )])
    })
}

/// Where a rule set came from, for logs and the reload-error metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    File,
    ConfigMap,
}

impl Origin {
    pub fn label(self) -> &'static str {
        match self {
            Origin::File => "file",
            Origin::ConfigMap => "configmap",
        }
    }
}

/// One rule set in force.
#[derive(Debug)]
pub struct LoadedRules {
    pub rules: RuleSet,
    pub generation: u64,
    /// Human description of the sources (file paths, ConfigMap names).
    pub description: String,
    pub loaded_at: SystemTime,
}

pub struct RulesStore {
    current: ArcSwapOption<LoadedRules>,
    /// The rule ConfigMaps in the cluster (`ConfigMap ns/name`, text), so that an edit of one is
    /// validated together with the others.
    rule_sources: ArcSwap<Vec<(String, String)>>,
    generation: AtomicU64,
    /// The generation of the last rule set installed, for tasks that follow the rules.
    installed: tokio::sync::watch::Sender<u64>,
    metrics: Arc<Metrics>,
}

impl RulesStore {
    pub fn new(metrics: Arc<Metrics>) -> Self {
        RulesStore {
            current: ArcSwapOption::empty(),
            rule_sources: ArcSwap::default(),
            generation: AtomicU64::new(0),
            installed: tokio::sync::watch::Sender::new(0),
            metrics,
        }
    }

    /// The rule set every request in progress uses; `None` until the first valid load.
    pub fn current(&self) -> Option<Arc<LoadedRules>> {
        self.current.load_full()
    }

    pub fn generation(&self) -> u64 {
        self.current.load().as_ref().map_or(0, |l| l.generation)
    }

    /// Put a new rule set in force (from any source). Returns its generation.
    pub fn install(&self, rules: RuleSet, origin: Origin, description: String) -> u64 {
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let loaded_at = SystemTime::now();
        tracing::info!(generation, source = origin.label(), rules = %description, "rule set loaded");
        for warning in rules.warnings.iter().take(MAX_LOGGED) {
            tracing::warn!(generation, source = origin.label(), %warning, "the rules in force have a setting that does not do what it looks meant to");
        }
        if let Some(more) = rules
            .warnings
            .len()
            .checked_sub(MAX_LOGGED)
            .filter(|&n| n > 0)
        {
            tracing::warn!(generation, source = origin.label(), more, "and more warnings about the rules in force, not logged one by one; zoneguard check on the rules lists them all");
        }
        let warnings = rules.warnings.len();
        self.current.store(Some(Arc::new(LoadedRules {
            rules,
            generation,
            description,
            loaded_at,
        })));
        self.metrics.rules_loaded(generation, loaded_at, warnings);
        self.installed.send_replace(generation);
        generation
    }

    /// A receiver that sees each rule set installed from now on (its generation).
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.installed.subscribe()
    }

    /// The rule ConfigMaps as last seen by the watcher.
    pub fn rule_sources(&self) -> Arc<Vec<(String, String)>> {
        self.rule_sources.load_full()
    }

    pub fn set_rule_sources(&self, sources: Arc<Vec<(String, String)>>) {
        self.rule_sources.store(sources);
    }

    /// Record that new rules from `origin` were refused; the set in force stays.
    pub fn refuse(&self, origin: Origin, problems: &[String]) {
        self.metrics
            .rules_reload_errors
            .get_or_create(&SourceLabels {
                source: origin.label(),
            })
            .inc();
        let problems = capped(problems);
        match self.generation() {
            0 => tracing::error!(
                source = origin.label(),
                problems = %problems,
                "rules refused; no rule set is loaded yet, so zoneguard is not ready until they are mended"
            ),
            kept => tracing::error!(
                source = origin.label(),
                problems = %problems,
                kept_generation = kept,
                "new rules refused; the last valid rule set stays in force"
            ),
        }
    }
}

/// How many warnings about a rule set, or problems of refused rules, are logged one by one: a
/// rule set can hold thousands, and every load would repeat them all.
const MAX_LOGGED: usize = 20;

/// The first [`MAX_LOGGED`] of `problems` in one line, and how many more there are.
fn capped(problems: &[String]) -> String {
    let shown = problems[..problems.len().min(MAX_LOGGED)].join("; ");
    match problems.len().saturating_sub(MAX_LOGGED) {
        0 => shown,
        more => format!("{shown}; and {more} more (zoneguard check on the rules lists them all)"),
    }
}

/// Rules read from `--rules` files: re-read together, installed only when their text changed.
pub struct FileRules {
    paths: Vec<PathBuf>,
    last_seen: Mutex<Option<Result<Vec<String>, Vec<String>>>>,
}

impl FileRules {
    pub fn new(paths: Vec<PathBuf>) -> Self {
        FileRules {
            paths,
            last_seen: Mutex::new(None),
        }
    }

    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    fn read_all(&self) -> Result<Vec<String>, Vec<String>> {
        let mut texts = Vec::with_capacity(self.paths.len());
        let mut problems = Vec::new();
        for path in &self.paths {
            match crate::text_file::read(path) {
                Ok(text) => match rules::empty_file_problem(&text) {
                    None => texts.push(text),
                    Some(why) => problems.push(format!("{}: {why}", path.display())),
                },
                Err(e) => problems.push(format!("{}: {e}", path.display())),
            }
        }
        if problems.is_empty() {
            Ok(texts)
        } else {
            Err(problems)
        }
    }

    fn compile(&self, texts: &[String]) -> Result<RuleSet, Vec<RulesError>> {
        let names: Vec<String> = self.paths.iter().map(|p| p.display().to_string()).collect();
        let sources: Vec<RuleSource<'_>> = names
            .iter()
            .zip(texts)
            .map(|(name, text)| RuleSource { name, text })
            .collect();
        read_rules(&sources)
    }

    /// Re-read the files; install them if they changed and are valid. Returns true when a new
    /// rule set was installed. The same failure is reported once, not on every poll.
    pub fn reload(&self, store: &RulesStore) -> bool {
        let read = self.read_all();
        let mut seen = self.last_seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.as_ref() == Some(&read) {
            return false;
        }
        *seen = Some(read.clone());
        drop(seen);
        let texts = match read {
            Ok(texts) => texts,
            Err(problems) => {
                store.refuse(Origin::File, &problems);
                return false;
            }
        };
        match self.compile(&texts) {
            Ok(rules) => {
                let names: Vec<String> =
                    self.paths.iter().map(|p| p.display().to_string()).collect();
                store.install(rules, Origin::File, names.join(", "));
                true
            }
            Err(errors) => {
                store.refuse(
                    Origin::File,
                    &errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
                );
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_while_reading_rules_is_a_refusal_naming_them() {
        fn panics(_: &[RuleSource<'_>]) -> Result<RuleSet, Vec<RulesError>> {
            panic!("a bug in the rules engine")
        }
        let sources = [
            RuleSource {
                name: "ConfigMap zoneguard/a",
                text: "{}",
            },
            RuleSource {
                name: "ConfigMap zoneguard/b",
                text: "{}",
            },
        ];
        let errors = read_guarded(&sources, panics).unwrap_err();
        assert_eq!(
            errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["ConfigMap zoneguard/a, ConfigMap zoneguard/b: (document): zoneguard failed while reading these rules (a bug: its log has the panic); the last valid rule set stays in force"]
        );
        assert!(read_guarded(&sources, RuleSet::from_sources).is_ok());
    }

    fn sample() -> RuleSet {
        let source = RuleSource {
            name: "t",
            text: "domainFilters: [example.com]\n",
        };
        RuleSet::from_sources(&[source]).expect("valid rules")
    }

    #[test]
    fn install_bumps_the_generation_and_refuse_keeps_the_set() {
        let metrics = Arc::new(Metrics::new());
        let store = RulesStore::new(metrics.clone());
        assert!(store.current().is_none());
        assert_eq!(store.install(sample(), Origin::ConfigMap, "cm a".into()), 1);
        store.refuse(Origin::ConfigMap, &["cm b: conflict".into()]);
        let current = store.current().unwrap();
        assert_eq!(
            (current.generation, current.description.as_str()),
            (1, "cm a")
        );
        let text = metrics.encode();
        assert!(
            text.contains("zoneguard_rules_reload_errors_total{source=\"configmap\"} 1"),
            "{text}"
        );
        assert!(text.contains("zoneguard_rules_generation 1"), "{text}");
        assert!(text.contains("zoneguard_rules_warnings 0"), "{text}");
    }

    #[test]
    fn the_warnings_of_the_rules_in_force_are_counted() {
        let metrics = Arc::new(Metrics::new());
        let store = RulesStore::new(metrics.clone());
        let text = "domainFilters: ['*.a.example.com', '*.b.example.com']\n";
        let rules = RuleSet::parse("t", text).expect("valid rules");
        store.install(rules, Origin::File, "t".into());
        assert!(metrics.encode().contains("zoneguard_rules_warnings 2"));
        store.install(sample(), Origin::File, "t".into());
        assert!(metrics.encode().contains("zoneguard_rules_warnings 0"));
    }

    #[test]
    fn refused_rules_log_their_first_problems_and_how_many_more() {
        let problems: Vec<String> = (0..25).map(|i| format!("p{i}")).collect();
        let line = capped(&problems);
        assert!(line.starts_with("p0; p1; "), "{line}");
        assert!(line.contains("; p19; and 5 more ("), "{line}");
        assert!(!line.contains("p20"), "{line}");
        assert_eq!(capped(&problems[..2]), "p0; p1");
    }

    #[test]
    fn unreadable_files_are_reported_once_and_load_when_they_appear() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rules.yaml");
        let store = RulesStore::new(Arc::new(Metrics::new()));
        let files = FileRules::new(vec![path.clone()]);
        assert!(!files.reload(&store));
        assert!(!files.reload(&store));
        assert!(store
            .metrics
            .encode()
            .contains("zoneguard_rules_reload_errors_total{source=\"file\"} 1"));
        std::fs::write(&path, "domainFilters: [example.com]\n").unwrap();
        assert!(files.reload(&store));
        assert!(!files.reload(&store), "unchanged text is not reloaded");
        assert_eq!(store.generation(), 1);
    }

    #[test]
    fn an_emptied_file_is_refused_and_the_rules_in_force_stay() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rules.yaml");
        std::fs::write(&path, "domainFilters: [example.com]\n").unwrap();
        let store = RulesStore::new(Arc::new(Metrics::new()));
        let files = FileRules::new(vec![path.clone()]);
        assert!(files.reload(&store));
        for empty in ["", " \n\t\n"] {
            std::fs::write(&path, empty).unwrap();
            assert!(!files.reload(&store), "{empty:?} installed");
            let rules = store.current().expect("rules in force");
            assert!(!rules.rules.cluster.matches("other.org"), "{empty:?}");
        }
        assert_eq!(store.generation(), 1);
        std::fs::write(&path, "# checks nothing\n{}\n").unwrap();
        assert!(
            files.reload(&store),
            "a written rule set that checks nothing loads"
        );
    }
}
