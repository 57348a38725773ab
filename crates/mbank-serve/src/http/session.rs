//! Session cookies (the Memory Bank MCP spec's "Session Authentication", `session_id`):
//! `POST /session` with a valid `Authorization: Bearer KEY` gives a `session_id` cookie
//! (HttpOnly, SameSite=Strict, expiring with the session) that authenticates later
//! requests as that key, rate limit included; `DELETE /session` ends it. Only a server
//! with keys hands one out, only for a key (never for another session), and sessions live
//! in memory: a restart ends them all. Tokens are 244 random bits, compared in constant
//! time with every session held.
use axum::http::{HeaderMap, HeaderValue, header};
use parking_lot::Mutex;

/// The cookie's name, as the spec spells it.
pub(crate) const COOKIE: &str = "session_id";
/// How long a session lasts, in seconds.
pub(crate) const LIFETIME_SECS: u64 = 8 * 60 * 60;
/// Sessions held at once; opening one more ends the one that expires first.
pub(crate) const MAX_SESSIONS: usize = 1024;

struct HeldSession {
    token: String,
    /// The key (its index in `api_keys`) the session was opened with.
    key: usize,
    expires: u64,
}

/// The open sessions.
#[derive(Default)]
pub(crate) struct Sessions {
    held: Mutex<Vec<HeldSession>>,
}

impl Sessions {
    /// Opens a session for `key` at `now`: its token.
    pub(crate) fn open(&self, key: usize, now: u64) -> String {
        let token = new_token();
        let mut held = self.held.lock();
        held.retain(|h| h.expires > now);
        if held.len() >= MAX_SESSIONS
            && let Some(first) = held
                .iter()
                .enumerate()
                .min_by_key(|(_, h)| h.expires)
                .map(|(i, _)| i)
        {
            held.swap_remove(first);
        }
        held.push(HeldSession {
            token: token.clone(),
            key,
            expires: now + LIFETIME_SECS,
        });
        token
    }

    /// The key of the session `token` names, while it lasts. Every held token is compared
    /// whole, so the time taken says nothing of how much of one matched.
    pub(crate) fn key_of(&self, token: &str, now: u64) -> Option<usize> {
        let held = self.held.lock();
        let mut found = None;
        for h in held.iter() {
            if super::same_key(&h.token, token) && h.expires > now {
                found = Some(h.key);
            }
        }
        found
    }

    /// Ends the session `token` names, if it is held.
    pub(crate) fn close(&self, token: &str) {
        self.held
            .lock()
            .retain(|h| !super::same_key(&h.token, token));
    }
}

/// 244 random bits (two version-4 UUIDs, from the system's random source), in hex.
fn new_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// The `session_id` a request's `Cookie` headers carry.
pub(crate) fn cookie_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.trim().to_string())
        .filter(|value| !value.is_empty())
}

/// The `Set-Cookie` of a session: HttpOnly (no page script reads it), SameSite=Strict (no
/// other site's page sends it), expiring with the session. Not `Secure`: mbank serve
/// speaks plain HTTP, where a browser would drop such a cookie.
pub(crate) fn set_cookie(token: &str) -> Option<HeaderValue> {
    HeaderValue::from_str(&format!(
        "{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={LIFETIME_SECS}"
    ))
    .ok()
}

/// The `Set-Cookie` that removes the cookie.
pub(crate) fn cleared_cookie() -> HeaderValue {
    HeaderValue::from_static("session_id=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_names_its_key_until_it_expires_or_is_closed() {
        let sessions = Sessions::default();
        let token = sessions.open(1, 100);
        assert_eq!(token.len(), 64);
        assert!(token.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(token, sessions.open(1, 100));
        assert_eq!(sessions.key_of(&token, 100 + LIFETIME_SECS - 1), Some(1));
        assert_eq!(sessions.key_of(&token, 100 + LIFETIME_SECS), None);
        assert_eq!(sessions.key_of(&token[..63], 100), None);
        assert_eq!(sessions.key_of("", 100), None);
        sessions.close(&token);
        assert_eq!(sessions.key_of(&token, 101), None);
    }

    #[test]
    fn the_sessions_held_are_bounded_by_ending_the_first_to_expire() {
        let sessions = Sessions::default();
        let first = sessions.open(0, 0);
        for i in 1..MAX_SESSIONS as u64 {
            sessions.open(0, i);
        }
        assert_eq!(sessions.key_of(&first, 1), Some(0));
        let last = sessions.open(0, MAX_SESSIONS as u64);
        assert_eq!(sessions.key_of(&first, 1), None);
        assert_eq!(sessions.key_of(&last, MAX_SESSIONS as u64), Some(0));
        assert_eq!(sessions.held.lock().len(), MAX_SESSIONS);
    }

    #[test]
    fn the_cookie_is_read_among_others_and_set_http_only_and_strict() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            HeaderValue::from_static("theme=dark; session_id=abc123 ; x=y"),
        );
        assert_eq!(cookie_of(&headers).as_deref(), Some("abc123"));
        headers.insert(header::COOKIE, HeaderValue::from_static("session_idx=1"));
        assert_eq!(cookie_of(&headers), None);
        let set = set_cookie("t").unwrap();
        let set = set.to_str().unwrap();
        assert!(
            set.starts_with("session_id=t;")
                && set.contains("HttpOnly")
                && set.contains("SameSite=Strict")
                && set.contains(&format!("Max-Age={LIFETIME_SECS}")),
            "{set}"
        );
    }
}
