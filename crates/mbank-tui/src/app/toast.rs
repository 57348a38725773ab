//! A transient message, shown in the status line until it expires.
use std::time::Instant;

pub struct Toast {
    pub text: String,
    pub error: bool,
    pub until: Instant,
}
