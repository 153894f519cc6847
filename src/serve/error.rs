//! Every way a webhook request can fail, and the one mapping from failure to HTTP.

use super::review::ReviewError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("request body is larger than the limit")]
    BodyTooLarge,
    #[error("cannot read request body: {0}")]
    Body(String),
    #[error("{0}")]
    Review(#[from] ReviewError),
    #[error("no valid rule set is loaded yet")]
    RulesNotLoaded,
    #[error("too many requests in flight; retry")]
    Overloaded,
    #[error("request took too long")]
    Timeout,
    #[error("internal error while evaluating the request")]
    Internal,
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BodyTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Body(_) | ApiError::Review(_) => StatusCode::BAD_REQUEST,
            ApiError::RulesNotLoaded | ApiError::Overloaded => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Timeout => StatusCode::REQUEST_TIMEOUT,
            ApiError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The error, logged first as the answer to a request for `endpoint`: at warn for what a
    /// client got wrong (400, 408, 413); at debug when zoneguard is busy or not ready (503:
    /// counted in the metrics, and `/readyz` says it), which a burst would repeat line by line.
    /// A 500 is logged where it happens.
    pub fn logged(self, endpoint: &str) -> Self {
        let status = self.status().as_u16();
        match self {
            ApiError::Overloaded | ApiError::RulesNotLoaded => {
                tracing::debug!(endpoint, status, error = %self, "request refused")
            }
            ApiError::Internal => {}
            _ => tracing::warn!(endpoint, status, error = %self, "request refused"),
        }
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status(), format!("{self}\n")).into_response();
        if matches!(self, ApiError::Overloaded | ApiError::RulesNotLoaded) {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("1"),
            );
        }
        response
    }
}
