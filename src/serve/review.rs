//! AdmissionReview (`admission.k8s.io/v1`) in and out: the only place that knows the wire format.
//!
//! Parsing turns a request body into a [`Review`]; [`Review::core_request`] hands the core a
//! borrowed [`Request`]; [`respond`] turns the core's [`Decision`] back into an AdmissionReview,
//! which [`ReviewResponse::to_json`] writes out byte for byte as serde_json would.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use zoneguard_core::admission::{Decision, Operation, Request};
use zoneguard_core::mutation::AddOp;
use zoneguard_core::tree::Node;
use zoneguard_core::verdict::Warning;

use super::json_text;

pub const API_VERSION: &str = "admission.k8s.io/v1";
pub const KIND: &str = "AdmissionReview";

/// Why a body is not a usable AdmissionReview (always answered with 400).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ReviewError {
    #[error("malformed JSON: {0}")]
    Json(String),
    #[error("not an AdmissionReview (kind {0:?})")]
    WrongKind(String),
    #[error("unsupported apiVersion {0:?}: zoneguard speaks {API_VERSION}")]
    WrongApiVersion(String),
    #[error("AdmissionReview has no request")]
    MissingRequest,
    #[error("invalid AdmissionReview request: {0}")]
    InvalidRequest(String),
    #[error("unknown operation {0:?}")]
    UnknownOperation(String),
}

/// The outer object. `R` is [`Review`] for the one-pass decode, or a borrowed `RawValue` that
/// only delimits `request` (no allocation), so that a body that is not a valid review is refused
/// for the first thing wrong with it: `kind` and `apiVersion` before anything inside `request`.
#[derive(Deserialize)]
#[serde(
    rename_all = "camelCase",
    bound(deserialize = "R: Deserialize<'de>"),
    expecting = "an AdmissionReview object"
)]
struct Envelope<'a, R> {
    #[serde(default, borrow)]
    api_version: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    request: Option<R>,
}

/// A string of the review, borrowed from the request body unless the JSON wrote it with
/// escapes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Text<'a>(Cow<'a, str>);

impl Text<'_> {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Text<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::DeserializeSeed as _;
        super::object::Borrowed("a string")
            .deserialize(deserializer)
            .map(Text)
    }
}

impl Serialize for Text<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

#[derive(Debug, Deserialize, Default)]
pub struct GroupVersionKind<'a> {
    #[serde(default, borrow)]
    pub group: Text<'a>,
    #[serde(default, borrow)]
    pub version: Text<'a>,
    #[serde(default, borrow)]
    pub kind: Text<'a>,
}

/// The parts of `AdmissionRequest` zoneguard uses. Its strings borrow from the request body.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", expecting = "an AdmissionRequest object")]
pub struct Review<'a> {
    #[serde(borrow)]
    pub uid: Text<'a>,
    #[serde(borrow)]
    pub kind: GroupVersionKind<'a>,
    #[serde(default, borrow)]
    pub sub_resource: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub name: Option<Text<'a>>,
    #[serde(default, borrow)]
    pub namespace: Option<Text<'a>>,
    #[serde(borrow)]
    pub operation: Text<'a>,
    /// Without `status` and `metadata.managedFields` (see `object.rs`).
    #[serde(default, deserialize_with = "super::object::deserialize")]
    pub object: Option<Node<'a>>,
    #[serde(default, deserialize_with = "super::object::deserialize")]
    pub old_object: Option<Node<'a>>,
    #[serde(default)]
    pub dry_run: Option<bool>,
    /// Who asked (`authentication.k8s.io/v1` `UserInfo`), its text as the body holds it: read
    /// only for the log line of a request with violations ([`Review::username`]), so the
    /// others pay for no more than passing over it.
    #[serde(default, borrow)]
    pub user_info: Option<&'a RawValue>,
}

/// Keep parse errors short: they end up in a 400 body and in logs.
fn short(err: &serde_json::Error) -> String {
    let mut text = err.to_string();
    if text.len() > 160 {
        let mut cut = 160;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}

/// Parse a request body as an `admission.k8s.io/v1` AdmissionReview.
///
/// A valid review is decoded in one pass. Any body that pass refuses is decoded again in two
/// steps (`diagnose`) to name what is wrong: the answer is the same, the error more precise.
// Kept out of line so that `scripts/instructions.sh` can count it in the LTO build (one call a
// request).
#[inline(never)]
pub fn parse(body: &[u8]) -> Result<Review<'_>, ReviewError> {
    // UTF-8 checked once for the whole body, not string by string, by simdutf8: the same
    // answer as `std::str::from_utf8`, several bytes an instruction on CPUs with SIMD.
    let text = simdutf8::basic::from_utf8(body)
        .ok()
        .filter(|_| is_object(body));
    let Some(envelope) = text.and_then(|t| serde_json::from_str::<Envelope<Review>>(t).ok()) else {
        return diagnose(body).map(|r| r.compacted(body.len()));
    };
    check_type(envelope.kind, envelope.api_version)?;
    let review = envelope.request.ok_or(ReviewError::MissingRequest)?;
    review.operation()?;
    Ok(review.compacted(body.len()))
}

/// Bodies of this many bytes and more have their trees compacted ([`Node::compact`]) once
/// decoded; the reviews of ordinary objects, a few KiB, are answered before the room matters.
const COMPACT_FROM: usize = 64 * 1024;

/// The two-step decode: the envelope, its `kind` and `apiVersion`, then the request.
pub(super) fn diagnose(body: &[u8]) -> Result<Review<'_>, ReviewError> {
    let envelope: Envelope<&RawValue> =
        serde_json::from_slice(body).map_err(|e| ReviewError::Json(short(&e)))?;
    // serde's derived structs also take a JSON array, its items as the fields in order.
    if !is_object(body) {
        return Err(ReviewError::Json(
            "an AdmissionReview is a JSON object, not an array".into(),
        ));
    }
    check_type(envelope.kind, envelope.api_version)?;
    let request = envelope
        .request
        .filter(|raw| raw.get() != "null")
        .ok_or(ReviewError::MissingRequest)?;
    if !is_object(request.get().as_bytes()) {
        return Err(ReviewError::InvalidRequest(
            "request is not a JSON object".into(),
        ));
    }
    let review: Review =
        serde_json::from_str(request.get()).map_err(|e| ReviewError::InvalidRequest(short(&e)))?;
    review.operation()?;
    Ok(review)
}

/// Whether the JSON text is an object (its first byte after any whitespace is `{`).
fn is_object(json: &[u8]) -> bool {
    json.trim_ascii_start().first() == Some(&b'{')
}

fn check_type(kind: Option<Cow<str>>, api_version: Option<Cow<str>>) -> Result<(), ReviewError> {
    let kind = kind.unwrap_or_default();
    if kind != KIND {
        return Err(ReviewError::WrongKind(kind.into_owned()));
    }
    let api_version = api_version.unwrap_or_default();
    if api_version != API_VERSION {
        return Err(ReviewError::WrongApiVersion(api_version.into_owned()));
    }
    Ok(())
}

impl Review<'_> {
    pub fn operation(&self) -> Result<Operation, ReviewError> {
        match self.operation.as_str() {
            "CREATE" => Ok(Operation::Create),
            "UPDATE" => Ok(Operation::Update),
            "DELETE" => Ok(Operation::Delete),
            "CONNECT" => Ok(Operation::Connect),
            other => Err(ReviewError::UnknownOperation(other.to_owned())),
        }
    }

    pub fn namespace(&self) -> &str {
        self.namespace.as_ref().map_or("", Text::as_str)
    }

    /// The object's name: the request's, else the object's own; empty while the API server has
    /// yet to generate it (a mutating review of an object with only `generateName`), so that
    /// no `{name}` template is filled with the prefix.
    pub fn name(&self) -> &str {
        if let Some(name) = self
            .name
            .as_ref()
            .map(Text::as_str)
            .filter(|n| !n.is_empty())
        {
            return name;
        }
        self.metadata_str("name").unwrap_or("")
    }

    /// The name to show in messages and logs: [`Review::name`], else the `generateName` prefix.
    pub fn shown_name(&self) -> &str {
        Some(self.name())
            .filter(|n| !n.is_empty())
            .or_else(|| self.metadata_str("generateName"))
            .unwrap_or("")
    }

    /// A non-empty string field of the object's `metadata`.
    fn metadata_str(&self, key: &str) -> Option<&str> {
        let meta = self.object.as_ref().and_then(|o| o.get("metadata"))?;
        meta.get(key)
            .and_then(Node::as_str)
            .filter(|v| !v.is_empty())
    }

    /// The review read from a body of `len` bytes, its objects compacted when the body is large.
    fn compacted(mut self, len: usize) -> Self {
        if len >= COMPACT_FROM {
            let objects = self.object.iter_mut().chain(&mut self.old_object);
            objects.for_each(Node::compact);
        }
        self
    }

    /// The `userInfo.username` of the request; empty when it has none.
    pub fn username(&self) -> Cow<'_, str> {
        #[derive(Deserialize)]
        struct UserInfo<'u> {
            #[serde(default, borrow)]
            username: Text<'u>,
        }
        let user = self
            .user_info
            .and_then(|raw| serde_json::from_str::<UserInfo>(raw.get()).ok());
        user.map_or(Cow::Borrowed(""), |u| u.username.0)
    }

    pub fn is_dry_run(&self) -> bool {
        self.dry_run.unwrap_or(false)
    }

    /// The core's view of this request. `parse` has already checked the operation.
    pub fn core_request(&self) -> Request<'_> {
        Request {
            operation: self.operation().unwrap_or(Operation::Connect),
            group: &self.kind.group,
            version: &self.kind.version,
            kind: &self.kind.kind,
            namespace: self.namespace(),
            name: self.name(),
            object: self.object.as_ref(),
            old_object: self.old_object.as_ref(),
            sub_resource: self
                .sub_resource
                .as_ref()
                .map(Text::as_str)
                .filter(|s| !s.is_empty()),
        }
    }
}

/// The answer to a review; it borrows the review's `uid` and the decision's warnings. Its
/// `Serialize` is the wire format's reference; [`ReviewResponse::to_json`] writes the same bytes.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewResponse<'a> {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub response: AdmissionResponse<'a>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionResponse<'a> {
    pub uid: &'a str,
    pub allowed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// Their texts alone, the wire's array of strings.
    #[serde(
        skip_serializing_if = "<[Warning]>::is_empty",
        serialize_with = "warning_texts"
    )]
    pub warnings: &'a [Warning],
    /// `reasons`: the reason codes of the violations found, whatever the verdict. The API
    /// server writes it into its audit log as `<webhook name>/reasons`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit_annotations: Option<AuditAnnotations>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch: Option<Base64>,
}

/// What the API server adds to its audit event of the request.
#[derive(Debug, Serialize)]
pub struct AuditAnnotations {
    /// The distinct reason codes, comma-separated, in order of first appearance.
    pub reasons: String,
}

/// The warnings as the API server takes them: their texts.
fn warning_texts<S: serde::Serializer>(
    warnings: &&[Warning],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(warnings.iter().map(|w| w.message()))
}

/// Bytes the answer carries as a base64 string: the JSON Patch's text.
#[derive(Debug, PartialEq, Eq)]
pub struct Base64(pub Vec<u8>);

impl Serialize for Base64 {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&base64::engine::general_purpose::STANDARD.encode(&self.0))
    }
}

impl ReviewResponse<'_> {
    /// The answer's JSON: the bytes `serde_json::to_vec(self)` gives, written field by field
    /// into a buffer sized for them up front (a fraction of serde_json's instructions, whose
    /// string escaping dominated the encode).
    // Kept out of line so that `scripts/instructions.sh` can count it (one call a request).
    #[inline(never)]
    pub fn to_json(&self) -> Vec<u8> {
        let response = &self.response;
        let mut out = Vec::with_capacity(self.size_hint());
        out.extend_from_slice(b"{\"apiVersion\":");
        json_text::string(&mut out, self.api_version);
        out.extend_from_slice(b",\"kind\":");
        json_text::string(&mut out, self.kind);
        out.extend_from_slice(b",\"response\":{\"uid\":");
        json_text::string(&mut out, response.uid);
        out.extend_from_slice(match response.allowed {
            true => b",\"allowed\":true",
            false => b",\"allowed\":false",
        });
        if let Some(status) = &response.status {
            status.write_json(&mut out);
        }
        if !response.warnings.is_empty() {
            out.extend_from_slice(b",\"warnings\":");
            let texts = response.warnings.iter().map(|w| w.message());
            json_text::string_array(&mut out, texts);
        }
        if let Some(audit) = &response.audit_annotations {
            out.extend_from_slice(b",\"auditAnnotations\":{\"reasons\":");
            json_text::string(&mut out, &audit.reasons);
            out.push(b'}');
        }
        if let Some(patch_type) = response.patch_type {
            out.extend_from_slice(b",\"patchType\":");
            json_text::string(&mut out, patch_type);
        }
        if let Some(patch) = &response.patch {
            out.extend_from_slice(b",\"patch\":");
            json_text::base64_string(&mut out, &patch.0);
        }
        out.extend_from_slice(b"}}");
        out
    }

    /// Bytes enough for the answer in most cases (escapes may add a few).
    fn size_hint(&self) -> usize {
        let response = &self.response;
        let mut size = 128 + response.uid.len();
        if let Some(status) = &response.status {
            size += 64 + status.reason.len() + status.message.len() * 11 / 10;
        }
        if let Some(audit) = &response.audit_annotations {
            size += 40 + audit.reasons.len();
        }
        size += response
            .warnings
            .iter()
            .map(|w| w.message().len() + 8)
            .sum::<usize>();
        size + response
            .patch
            .as_ref()
            .map_or(0, |p| p.0.len() * 4 / 3 + 32)
    }
}

/// `metav1.Status` as the API server expects it in a denial: `Forbidden`, 403, as Gatekeeper
/// and every controller-runtime webhook answer, so that kubectl prints `Error from server
/// (Forbidden)` and clients that test for a forbidden request see one. The reason codes are in
/// the answer's audit annotations.
#[derive(Debug, Serialize)]
pub struct Status {
    pub status: &'static str,
    pub code: u16,
    pub reason: &'static str,
    pub message: String,
}

impl Status {
    /// Appends `,"status":{…}`, as `ReviewResponse::to_json` writes its fields.
    fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b",\"status\":{\"status\":");
        json_text::string(out, self.status);
        out.extend_from_slice(b",\"code\":");
        out.extend_from_slice(itoa::Buffer::new().format(self.code).as_bytes());
        out.extend_from_slice(b",\"reason\":");
        json_text::string(out, self.reason);
        out.extend_from_slice(b",\"message\":");
        json_text::string(out, &self.message);
        out.push(b'}');
    }
}

/// Distinct reason codes of a decision's violations and tolerated ones, in order of first
/// appearance.
fn reason_codes(decision: &Decision) -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = Vec::new();
    for v in decision.counted() {
        let code = v.reason.as_str();
        if !codes.contains(&code) {
            codes.push(code);
        }
    }
    codes
}

/// The audit annotations of a decision with violations (none for one without).
fn audit_annotations(decision: &Decision) -> Option<AuditAnnotations> {
    let codes = reason_codes(decision);
    (!codes.is_empty()).then(|| AuditAnnotations {
        reasons: codes.join(","),
    })
}

/// The JSON Patch's text: the bytes `serde_json::to_vec(patch)` gives.
pub(super) fn patch_json(patch: &[AddOp]) -> Base64 {
    let mut out = Vec::with_capacity(patch.len() * 128);
    out.push(b'[');
    for (i, op) in patch.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"op\":\"add\",\"path\":");
        json_text::string(&mut out, &op.path);
        out.extend_from_slice(b",\"value\":");
        // serde_json for the value (a string or a map of strings): writing a `Value` into a
        // `Vec` cannot fail, and it costs ~90 instructions more a patch than a writer of our own.
        let _ = serde_json::to_writer(&mut out, &op.value);
        out.push(b'}');
    }
    out.push(b']');
    Base64(out)
}

/// Build the AdmissionReview answer for `review` from the core's decision.
// Kept out of line so that `scripts/instructions.sh` can count it (one call a request).
#[inline(never)]
pub fn respond<'a>(
    review: &'a Review<'_>,
    decision: &'a Decision,
    max_lines: usize,
) -> ReviewResponse<'a> {
    let status = (!decision.allowed).then(|| Status {
        status: "Failure",
        code: 403,
        reason: "Forbidden",
        message: decision.summary(
            &review.kind.kind,
            review.namespace(),
            review.shown_name(),
            max_lines,
        ),
    });
    let patch =
        (decision.allowed && !decision.patch.is_empty()).then(|| patch_json(&decision.patch));
    ReviewResponse {
        api_version: API_VERSION,
        kind: KIND,
        response: AdmissionResponse {
            uid: review.uid.as_str(),
            allowed: decision.allowed,
            status,
            warnings: &decision.warnings,
            audit_annotations: audit_annotations(decision),
            patch_type: patch.as_ref().map(|_| "JSONPatch"),
            patch,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_wrong_api_version_and_kind() {
        let v1beta1 =
            br#"{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{}}"#;
        assert!(matches!(
            parse(v1beta1),
            Err(ReviewError::WrongApiVersion(_))
        ));
        let pod = br#"{"apiVersion":"v1","kind":"Pod"}"#;
        assert_eq!(
            parse(pod).unwrap_err(),
            ReviewError::WrongKind("Pod".into())
        );
        assert!(matches!(parse(b"{nope"), Err(ReviewError::Json(_))));
    }

    #[test]
    fn a_body_refused_by_the_one_pass_decode_is_diagnosed_field_by_field() {
        let table: [(&[u8], ReviewError); 8] = [
            (b"null", ReviewError::Json("invalid type: null, expected an AdmissionReview object at line 1 column 4".into())),
            (br#"["admission.k8s.io/v1","AdmissionReview",{"uid":"u","kind":{},"operation":"CREATE"}]"#,
             ReviewError::Json("an AdmissionReview is a JSON object, not an array".into())),
            (br#"{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":["u"]}"#,
             ReviewError::InvalidRequest("request is not a JSON object".into())),
            (br#"{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":5}"#,
             ReviewError::InvalidRequest("request is not a JSON object".into())),
            // The request is broken, but the kind is wrong first.
            (br#"{"kind":"Pod","apiVersion":"v1","request":{"uid":5}}"#, ReviewError::WrongKind("Pod".into())),
            (br#"{"request":{"uid":5},"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1"}"#,
             ReviewError::InvalidRequest("invalid type: integer `5`, expected a string at line 1 column 8".into())),
            (br#"{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":null}"#, ReviewError::MissingRequest),
            (br#"{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u","kind":{},"operation":"PATCH"}}"#,
             ReviewError::UnknownOperation("PATCH".into())),
        ];
        for (body, want) in table {
            assert_eq!(
                parse(body).unwrap_err(),
                want,
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn strings_are_borrowed_from_the_body_unless_written_with_escapes() {
        let body = br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
            "uid":"u-1","kind":{"group":"","version":"v1","kind":"Serv\u0069ce"},
            "operation":"CREATE","namespace":"a\/b","name":"web"}}"#;
        let review = parse(body).unwrap();
        let table = [
            (&review.uid, "u-1", true),
            (&review.kind.kind, "Service", false),
            (review.namespace.as_ref().unwrap(), "a/b", false),
            (review.name.as_ref().unwrap(), "web", true),
        ];
        for (text, want, borrowed) in table {
            assert_eq!(text.as_str(), want);
            assert_eq!(matches!(text.0, Cow::Borrowed(_)), borrowed, "{want}");
        }
    }

    #[test]
    fn the_answer_is_the_json_of_the_response() {
        let body = br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
            "uid":"u\"1","kind":{"group":"","version":"v1","kind":"Service"},"operation":"CREATE"}}"#;
        let review = parse(body).unwrap();
        let denied = Decision {
            warnings: vec!["w\n".into()],
            violations: vec![zoneguard_core::verdict::Violation::whole(
                "spec",
                "v",
                zoneguard_core::verdict::Reason::HostnameInvalid,
                "m é \"q\"",
            )],
            ..Decision::default()
        };
        let patched = Decision {
            allowed: true,
            warnings: vec!["a".into(), "b\u{1}".into()],
            patch: vec![AddOp {
                path: "/metadata/annotations/a~1b".into(),
                value: serde_json::json!({"k": "v \"é\""}),
            }],
            ..Decision::default()
        };
        assert_eq!(
            patch_json(&patched.patch).0,
            serde_json::to_vec(&patched.patch).unwrap()
        );
        for decision in [Decision::default(), denied, patched] {
            let answer = respond(&review, &decision, 5);
            assert_eq!(answer.to_json(), serde_json::to_vec(&answer).unwrap());
        }
    }

    #[test]
    fn the_name_comes_from_the_object_and_a_generate_name_is_only_shown() {
        let review_of = |metadata: &str| {
            let body = format!(
                r#"{{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{{
                "uid":"u","kind":{{"group":"","version":"v1","kind":"Service"}},"operation":"CREATE",
                "namespace":"a","object":{{"metadata":{metadata}}}}}}}"#
            );
            parse(body.as_bytes()).map(|r| (r.name().to_owned(), r.shown_name().to_owned()))
        };
        let table = [
            (r#"{"generateName":"svc-"}"#, ("", "svc-")),
            (r#"{"name":"","generateName":"svc-"}"#, ("", "svc-")),
            (r#"{"name":"web","generateName":"svc-"}"#, ("web", "web")),
            (r#"{}"#, ("", "")),
        ];
        for (metadata, (name, shown)) in table {
            let got = review_of(metadata).unwrap();
            assert_eq!(
                (got.0.as_str(), got.1.as_str()),
                (name, shown),
                "{metadata}"
            );
        }
    }
}
