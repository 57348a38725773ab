//! Session cookies of `mbank serve` (the Memory Bank MCP spec's `session_id`), end to end:
//! a key exchanged for an HttpOnly, SameSite=Strict cookie that authenticates as that key
//! (its rate limit included) until it is closed; a cookie the server does not hold is
//! refused where a key is needed; a server without keys hands none out and ignores them;
//! and a cookie never lets a cross-site request through.
use crate::http_serve::{Server, client, error_code, json_of};

use serde_json::json;

const KEY: &str = "test-key-number-1";

const KEYED: &str = r#"
[serve]
require_key = true
api_keys = ["test-key-number-1", "test-key-number-2"]
rate_limit_per_minute = 6
"#;

fn cookie(token: &str) -> String {
    format!("theme=dark; session_id={token}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_is_exchanged_for_a_cookie_that_authenticates_as_the_key() {
    let server = Server::start(KEYED, &[]);
    let c = client();
    let files = server.url("/memory-bank/files?project=alpha");
    let session = server.url("/session");

    // Without the key there is no session.
    let (code, body) = json_of(c.post(&session).json(&json!({})).send().await.unwrap()).await;
    assert_eq!((code, error_code(&body)), (401, "unauthorized"));

    let response = c
        .post(&session)
        .bearer_auth(KEY)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let set = response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_string();
    let (code, body) = json_of(response).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["expiresIn"], 8 * 3600);
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=28800"] {
        assert!(set.contains(attribute), "{attribute}: {set}");
    }
    let token = set
        .strip_prefix("session_id=")
        .and_then(|rest| rest.split(';').next())
        .unwrap()
        .to_string();
    assert_eq!(token.len(), 64, "{set}");

    // The cookie authenticates, counted against its key's limit (6 a minute: one spent
    // opening the session).
    let response = c
        .get(&files)
        .header("cookie", cookie(&token))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-ratelimit-remaining"], "4");
    let (code, body) = json_of(response).await;
    assert_eq!(code, 200, "{body}");
    let response = c.get(&files).bearer_auth(KEY).send().await.unwrap();
    assert_eq!(response.headers()["x-ratelimit-remaining"], "3");

    // A token the server does not hold is refused, and says how to get one.
    let (code, body) = json_of(
        c.get(&files)
            .header("cookie", cookie(&"0".repeat(64)))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((code, error_code(&body)), (401, "unauthorized"));
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("POST /session")
    );
    // A session does not open another.
    let (code, body) = json_of(
        c.post(&session)
            .header("cookie", cookie(&token))
            .json(&json!({}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((code, error_code(&body)), (401, "unauthorized"), "{body}");

    // A cross-site request is refused whatever cookie it carries.
    let response = c
        .get(&files)
        .header("cookie", cookie(&token))
        .header("sec-fetch-site", "cross-site")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 403);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(error_code(&body), "forbidden_origin");

    // Closed: the cookie is cleared and no longer accepted.
    let response = c
        .delete(&session)
        .header("cookie", cookie(&token))
        .send()
        .await
        .unwrap();
    let cleared = response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        cleared.starts_with("session_id=;") && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
    assert_eq!(response.status().as_u16(), 200);
    let response = c
        .get(&files)
        .header("cookie", cookie(&token))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_keys_hands_out_no_session_and_ignores_cookies() {
    let server = Server::start("[serve]\nrate_limit_per_minute = 1000\n", &[]);
    let c = client();
    let (code, body) = json_of(
        c.post(server.url("/session"))
            .json(&json!({}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (code, error_code(&body)),
        (400, "invalid_request"),
        "{body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("MBANK_API_KEY")
    );
    let (code, body) = json_of(
        c.get(server.url("/memory-bank/files?project=alpha"))
            .header("cookie", cookie("anything"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(code, 200, "{body}");
}
