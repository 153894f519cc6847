//! Violations and their stable reason codes.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    HostnameOutsideFilters,
    HostnameNotDelegated,
    HostnameInvalid,
    HostnameTxtTooLong,
    AnnotationInvalid,
    RoleArnInvalid,
    RoleAccountNotAllowed,
    RoleNotTrusted,
    RoleUnknown,
    RoleUnverifiable,
    RulesInvalid,
    /// A warning, never a violation: external-dns's own filter flags skip the object whole.
    ExternalDnsSkips,
}

impl Reason {
    pub const ALL: [Reason; 12] = [
        Reason::HostnameOutsideFilters,
        Reason::HostnameNotDelegated,
        Reason::HostnameInvalid,
        Reason::HostnameTxtTooLong,
        Reason::AnnotationInvalid,
        Reason::RoleArnInvalid,
        Reason::RoleAccountNotAllowed,
        Reason::RoleNotTrusted,
        Reason::RoleUnknown,
        Reason::RoleUnverifiable,
        Reason::RulesInvalid,
        Reason::ExternalDnsSkips,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::HostnameOutsideFilters => "hostname-outside-filters",
            Reason::HostnameNotDelegated => "hostname-not-delegated",
            Reason::HostnameInvalid => "hostname-invalid",
            Reason::HostnameTxtTooLong => "hostname-txt-too-long",
            Reason::AnnotationInvalid => "annotation-invalid",
            Reason::RoleArnInvalid => "role-arn-invalid",
            Reason::RoleAccountNotAllowed => "role-account-not-allowed",
            Reason::RoleNotTrusted => "role-not-trusted",
            Reason::RoleUnknown => "role-unknown",
            Reason::RoleUnverifiable => "role-unverifiable",
            Reason::RulesInvalid => "rules-invalid",
            Reason::ExternalDnsSkips => "external-dns-skips",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing wrong with an object: where, what, why, and how to fix it.
///
/// Its message (`Display`, [`Violation::message`]) is most often the subject,
/// `<field> "<value>"`, then what is wrong with it ([`Violation::new`]); a message that tells
/// its subject its own way, or not at all, is kept whole ([`Violation::whole`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Field path, e.g. `spec.rules[0].host`.
    pub field: String,
    /// The offending value.
    pub value: String,
    pub reason: Reason,
    wording: Wording,
}

/// How a violation's message is made.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Wording {
    /// What is wrong, told after the subject: the message is `<field> "<value>" <fault>`.
    /// Shared: the names of an object refused for the same cause share one text.
    Fault(Arc<str>),
    /// The message as it is.
    Whole(String),
}

impl Violation {
    /// A violation whose message is `<field> "<value>" <fault>` (the value quoted as `{:?}`
    /// writes it): `fault` says what is wrong with the value, and the fix. Pass an
    /// `Arc<str>` to share one text between violations.
    pub fn new(
        field: impl Into<String>,
        value: impl Into<String>,
        reason: Reason,
        fault: impl Into<Arc<str>>,
    ) -> Self {
        Self::worded(field, value, reason, Wording::Fault(fault.into()))
    }

    /// A violation whose message is `message` as it is, for one that does not start with
    /// `<field> "<value>" `.
    pub fn whole(
        field: impl Into<String>,
        value: impl Into<String>,
        reason: Reason,
        message: impl Into<String>,
    ) -> Self {
        Self::worded(field, value, reason, Wording::Whole(message.into()))
    }

    fn worded(
        field: impl Into<String>,
        value: impl Into<String>,
        reason: Reason,
        wording: Wording,
    ) -> Self {
        Self {
            field: field.into(),
            value: value.into(),
            reason,
            wording,
        }
    }

    /// What is wrong with the value, as the message tells it after `<field> "<value>" `;
    /// `None` for a message made whole.
    pub fn fault(&self) -> Option<&str> {
        match &self.wording {
            Wording::Fault(fault) => Some(fault),
            Wording::Whole(_) => None,
        }
    }

    /// The human sentence with the fix, as `Display` writes it. Each call formats it anew:
    /// a caller that writes it somewhere writes the violation itself.
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// About the length of the message, without formatting it (the value's escapes aside).
    pub(crate) fn message_len_hint(&self) -> usize {
        match &self.wording {
            Wording::Fault(fault) => self.field.len() + self.value.len() + fault.len() + 4,
            Wording::Whole(message) => message.len(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.wording {
            Wording::Fault(fault) => write!(f, "{} {:?} {fault}", self.field, self.value),
            Wording::Whole(message) => f.write_str(message),
        }
    }
}

/// Why a warning that repeats a violation admits it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admitted {
    /// Enforcement `warn`: the violation stands in `Decision::violations`, and the request is
    /// admitted anyway.
    WarnMode,
    /// On an UPDATE: the violation is tolerated (`Decision::tolerated`), as the old object
    /// had it already or an inject rule refused by the rules was left out of the patch.
    Tolerated,
}

/// Something the caller is told about an admitted object (kubectl prints it as a warning).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    text: Text,
    /// A reason code: `role-unverifiable` for a condition zoneguard cannot verify,
    /// `role-unknown` for a role without a trust policy under `irsa.unknownRole: warn`,
    /// `external-dns-skips` for an object external-dns's filter flags skip whole, and a
    /// violation's own for the copy of one admitted.
    pub reason: Option<Reason>,
    /// Set when the warning is a violation admitted (by warn mode, or on an UPDATE).
    pub admitted: Option<Admitted>,
}

/// A warning's text: as written, or worded from the violation it admits when it is shown. An
/// UPDATE that keeps 100 000 names the rules refuse has a warning for each, and the API server
/// is sent a few.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Text {
    Written(String),
    /// `<violation's message> (<why>)`.
    Admitting(Violation, &'static str),
}

impl Warning {
    /// A warning in its own right, with no reason code.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            text: Text::Written(message.into()),
            reason: None,
            admitted: None,
        }
    }

    /// A warning with a reason code.
    pub fn with_reason(reason: Reason, message: impl Into<String>) -> Self {
        Self {
            reason: Some(reason),
            ..Self::new(message)
        }
    }

    /// `violation` admitted, its message followed by ` (<why>)`.
    pub fn admitting(violation: Violation, admitted: Admitted, why: &'static str) -> Self {
        Self {
            reason: Some(violation.reason),
            admitted: Some(admitted),
            text: Text::Admitting(violation, why),
        }
    }

    /// The text, as shown: worded anew on each call for a violation admitted.
    pub fn message(&self) -> Cow<'_, str> {
        match &self.text {
            Text::Written(message) => Cow::Borrowed(message),
            Text::Admitting(..) => Cow::Owned(self.to_string()),
        }
    }

    /// Replaces the text, keeping the reason code and what the warning admits.
    pub(crate) fn reword(&mut self, message: String) {
        self.text = Text::Written(message);
    }
}

impl From<String> for Warning {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for Warning {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.text {
            Text::Written(message) => f.write_str(message),
            Text::Admitting(violation, why) => write!(f, "{violation} ({why})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_the_subject_then_the_fault_or_the_whole_wording() {
        let reason = Reason::HostnameOutsideFilters;
        let ann = r#"metadata.annotations["external-dns.alpha.kubernetes.io/hostname"]"#;
        let led = Violation::new(ann, "a\"b.org", reason, "is outside");
        let whole = Violation::whole(ann, "a.org", reason, "another shape");
        let want = format!("{ann} \"a\\\"b.org\" is outside");
        assert_eq!((led.message(), led.fault()), (want, Some("is outside")));
        assert_eq!(
            (whole.to_string(), whole.fault()),
            ("another shape".into(), None)
        );
    }

    #[test]
    fn a_warning_admitting_a_violation_is_worded_from_it_and_a_rewording_keeps_its_codes() {
        let v = Violation::new("f", "a.org", Reason::HostnameOutsideFilters, "is outside");
        let mut w = Warning::admitting(v, Admitted::Tolerated, "kept");
        assert_eq!(w.message(), "f \"a.org\" is outside (kept)");
        assert_eq!(w.to_string(), w.message());
        w.reword("cut…".into());
        assert_eq!(w.message(), "cut…");
        assert_eq!(
            (w.reason, w.admitted),
            (
                Some(Reason::HostnameOutsideFilters),
                Some(Admitted::Tolerated)
            )
        );
    }
}
