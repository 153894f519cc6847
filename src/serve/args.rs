//! `zoneguard serve` flags (each also read from a `ZONEGUARD_…` environment variable).

use super::listener::ConnLimits;
use super::routes::RequestLimits;
use super::server::Config;
use super::tls::TlsSource;
use super::watch::WatchTiming;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// JSON when stderr is not a terminal, text when it is.
    Auto,
    Json,
    Text,
}

/// Exactly one of `--rules` and `--rules-namespace` says where the rules come from.
#[derive(Debug, Clone, clap::Args)]
#[command(group = clap::ArgGroup::new("rule_source").args(["rules", "rules_namespace"]).required(true))]
pub struct Args {
    /// HTTPS address for POST /validate and POST /mutate.
    #[arg(long, env = "ZONEGUARD_LISTEN", default_value = "0.0.0.0:8443")]
    pub listen: SocketAddr,
    /// Plain-HTTP address for /healthz, /readyz and /metrics.
    #[arg(long, env = "ZONEGUARD_PROBE_LISTEN", default_value = "0.0.0.0:8080")]
    pub probe_listen: SocketAddr,
    /// Rules file (YAML or JSON); repeat or separate with commas for several. Reloaded when
    /// it changes. This or --rules-namespace is required.
    #[arg(
        long = "rules",
        value_name = "FILE",
        env = "ZONEGUARD_RULES",
        value_delimiter = ',',
        conflicts_with = "rules_namespace"
    )]
    pub rules: Vec<PathBuf>,
    /// Read rules from the labelled ConfigMaps (key rules.yaml) in this namespace, live. This
    /// or --rules is required.
    #[arg(long, env = "ZONEGUARD_RULES_NAMESPACE")]
    pub rules_namespace: Option<String>,
    /// Keep this MutatingWebhookConfiguration's `zoneguard-inject-rules` match condition in step
    /// with the inject rules, so the API server calls /mutate only for objects an inject rule may
    /// change (needs list, watch and patch on it).
    #[arg(
        long,
        env = "ZONEGUARD_MUTATING_WEBHOOK_CONFIGURATION",
        value_name = "NAME"
    )]
    pub mutating_webhook_configuration: Option<String>,
    /// PEM certificate chain; reloaded when it changes. Without it, a self-signed certificate for
    /// localhost is generated.
    #[arg(long, env = "ZONEGUARD_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// PEM private key matching --tls-cert.
    #[arg(long, env = "ZONEGUARD_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Log format.
    #[arg(long, env = "ZONEGUARD_LOG_FORMAT", value_enum, default_value_t = LogFormat::Auto)]
    pub log_format: LogFormat,
    /// Log filter (tracing env-filter syntax), e.g. `info` or `info,zoneguard=debug`.
    #[arg(long, env = "ZONEGUARD_LOG_LEVEL", default_value = "info")]
    pub log_level: String,
    #[command(flatten)]
    pub tuning: Box<Tuning>,
    /// Live IAM lookups (rules `irsa.source: iam`).
    #[command(flatten)]
    pub aws: crate::iam::AwsArgs,
}

/// The default of `--max-body-bytes`: an UPDATE's review carries the object and the old
/// object, each up to the API server's 3 MiB, and the review around them.
pub const MAX_BODY_BYTES: usize = 7 * 1024 * 1024;

/// Limits, timeouts and reload timing (boxed: they are many and rarely changed). Durations
/// are Go durations (`500ms`, `25s`, `2m`, `1m30s`) or plain seconds (`7`, `0.5`).
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Limits and timeouts (durations: 500ms, 25s, 1m30s, or seconds)")]
pub struct Tuning {
    /// Largest request body accepted (bytes); larger gets 413.
    #[arg(long, env = "ZONEGUARD_MAX_BODY_BYTES", default_value_t = MAX_BODY_BYTES)]
    pub max_body_bytes: usize,
    /// Request-body bytes held at once, all requests together; a request that does not fit
    /// waits for those in flight (one larger than this is judged alone).
    #[arg(long, env = "ZONEGUARD_MAX_IN_FLIGHT_BODY_BYTES", default_value_t = super::body_budget::DEFAULT_BYTES)]
    pub max_in_flight_body_bytes: usize,
    /// Requests handled at once; more get 503.
    #[arg(long, env = "ZONEGUARD_MAX_IN_FLIGHT", default_value_t = 128)]
    pub max_in_flight: usize,
    /// Longest time to answer one request (body read included).
    #[arg(long, env = "ZONEGUARD_REQUEST_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub request_timeout: Duration,
    /// Longest time for a client to send request headers.
    #[arg(long, env = "ZONEGUARD_HEADER_READ_TIMEOUT", default_value = "5s", value_parser = parse_duration)]
    pub header_read_timeout: Duration,
    /// Close a connection on which no request has been in flight for this long (HTTP/2 pings
    /// do not count).
    #[arg(long, env = "ZONEGUARD_IDLE_TIMEOUT", default_value = "90s", value_parser = parse_duration)]
    pub idle_timeout: Duration,
    /// Longest time for a TLS handshake.
    #[arg(long, env = "ZONEGUARD_TLS_HANDSHAKE_TIMEOUT", default_value = "5s", value_parser = parse_duration)]
    pub tls_handshake_timeout: Duration,
    /// After SIGTERM, how long requests in flight may take before the process exits.
    #[arg(long, env = "ZONEGUARD_GRACE_PERIOD", default_value = "25s", value_parser = parse_duration)]
    pub grace_period: Duration,
    /// After SIGTERM, keep accepting new requests this long (with /readyz failing) so the
    /// endpoint removal reaches the API server first; counted within --grace-period.
    #[arg(long, env = "ZONEGUARD_SHUTDOWN_DELAY", default_value = "0s", value_parser = parse_duration)]
    pub shutdown_delay: Duration,
    /// Violations listed in a denial message before "and N more".
    #[arg(long, env = "ZONEGUARD_MAX_MESSAGE_LINES", default_value_t = 5)]
    pub max_message_lines: usize,
    /// Quiet time after a file change before reloading.
    #[arg(long, env = "ZONEGUARD_RELOAD_DEBOUNCE", default_value = "200ms", value_parser = parse_duration)]
    pub reload_debounce: Duration,
    /// Re-check rules and certificate files this often even without change events.
    #[arg(long, env = "ZONEGUARD_RELOAD_POLL_INTERVAL", default_value = "30s", value_parser = parse_duration)]
    pub reload_poll_interval: Duration,
}

/// A Go duration (`250ms`, `5s`, `2m`, `1m30s`) or a plain number of seconds (`7`, `0.5`).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    if let Some(d) = zoneguard_core::duration::parse(text) {
        return Ok(d);
    }
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a duration (e.g. 500ms, 25s, 2m, 1m30s)"))?;
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("{text:?}: {e}"))
}

impl Args {
    pub fn config(&self) -> Config {
        let t = &self.tuning;
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => TlsSource::Files {
                cert: cert.clone(),
                key: key.clone(),
            },
            _ => TlsSource::SelfSigned,
        };
        Config {
            listen: self.listen,
            probe_listen: self.probe_listen,
            tls,
            rules_files: self.rules.clone(),
            aws: self.aws.options(),
            rules_namespace: self.rules_namespace.clone(),
            inject_condition: self.mutating_webhook_configuration.clone(),
            requests: RequestLimits {
                body_limit: t.max_body_bytes,
                body_budget: t.max_in_flight_body_bytes,
                max_in_flight: t.max_in_flight,
                request_timeout: t.request_timeout,
                max_message_lines: t.max_message_lines.max(1),
            },
            connections: ConnLimits {
                handshake_timeout: t.tls_handshake_timeout,
                header_read_timeout: t.header_read_timeout,
                idle_timeout: t.idle_timeout,
            },
            watch: WatchTiming {
                debounce: t.reload_debounce,
                poll: t.reload_poll_interval,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use clap::Parser;
    use std::time::Duration;

    #[derive(Parser)]
    struct Serve {
        #[command(flatten)]
        args: super::Args,
    }

    #[test]
    fn rules_files_and_rule_configmaps_are_one_or_the_other() {
        let parse = |args: &[&str]| Serve::try_parse_from([&["serve"], args].concat());
        assert!(parse(&["--rules", "r.yaml"]).is_ok());
        assert!(parse(&["--rules-namespace", "zoneguard"]).is_ok());
        let both = parse(&["--rules", "r.yaml", "--rules-namespace", "zoneguard"]);
        let err = both.err().expect("refused").to_string();
        assert!(err.contains("cannot be used with"), "{err}");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("25s"), Ok(Duration::from_secs(25)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("7"), Ok(Duration::from_secs(7)));
        assert_eq!(parse_duration("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("1d").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("inf").is_err());
        assert!(parse_duration("NaN").is_err());
    }
}
