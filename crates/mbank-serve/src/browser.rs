//! What keeps web pages out of `mbank serve`: a page the user visits can make the browser
//! send requests to a local server, and with DNS rebinding even read the answers. So
//! every request must name the server itself in `Host` (a rebinding name is refused),
//! carry no foreign `Origin` and no `Sec-Fetch-Site: cross-site`, and send a body only as
//! `application/json` (a form or `text/plain` post needs no CORS preflight). `OPTIONS`
//! grants CORS only to the origins `allowed_origins` names.
use std::net::{IpAddr, SocketAddr};

use axum::http::{HeaderMap, HeaderValue, Method, header};

/// Why a request was refused: its status, code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BrowserRefusal {
    pub code: &'static str,
    pub message: String,
}

/// A `Host` or origin host, lowercased, without brackets or a trailing dot.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Authority {
    host: String,
    port: Option<u16>,
}

fn normalize_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

fn parse_authority(text: &str) -> Option<Authority> {
    let authority = axum::http::uri::Authority::try_from(text.trim()).ok()?;
    // `user@host` is no Host a browser sends.
    if authority.as_str().contains('@') || authority.host().is_empty() {
        return None;
    }
    Some(Authority {
        host: normalize_host(authority.host()),
        port: authority.port_u16(),
    })
}

/// A configured name: `name` (any port) or `name:port`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct AllowedName {
    host: String,
    port: Option<u16>,
}

/// A configured origin, compared by scheme, host and port.
#[derive(Debug, Clone, PartialEq, Eq)]
enum AllowedOrigin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: u16,
    },
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// `scheme://host[:port]` as (scheme, host, port with the scheme's default filled in).
fn parse_origin(text: &str) -> Option<(String, Authority, u16)> {
    let uri = axum::http::Uri::try_from(text.trim()).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = parse_authority(uri.authority()?.as_str())?;
    // An origin is scheme and authority only.
    if uri
        .path_and_query()
        .is_some_and(|p| p.as_str() != "/" && !p.as_str().is_empty())
    {
        return None;
    }
    let port = authority.port.or_else(|| default_port(&scheme))?;
    Some((scheme, authority, port))
}

/// The Host and Origin rules of one listening address.
#[derive(Debug, Clone)]
pub(crate) struct BrowserPolicy {
    listen: SocketAddr,
    names: Vec<AllowedName>,
    origins: Vec<AllowedOrigin>,
}

/// Request headers a configured origin may send (what MCP clients and the REST API use).
const CORS_ALLOW_HEADERS: &str = "authorization, content-type, if-match, mcp-session-id, \
                                  mcp-protocol-version, last-event-id";
const CORS_EXPOSE_HEADERS: &str = "mcp-session-id, etag, retry-after, x-api-version, \
                                   x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset";
const ALLOWED_METHODS: &str = "GET, POST, DELETE, OPTIONS";

/// What the middleware does with a request that passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Pass {
    /// Serve it.
    Serve { cors_origin: Option<HeaderValue> },
    /// Answer this preflight (or plain `OPTIONS`) at once.
    Options { cors_origin: Option<HeaderValue> },
}

impl BrowserPolicy {
    /// The rules for a server bound to `listen` (its real port), with the configured
    /// extra names and CORS origins. A malformed entry is an error naming it.
    pub fn new(
        listen: SocketAddr,
        allowed_hosts: &[String],
        allowed_origins: &[String],
    ) -> Result<BrowserPolicy, String> {
        let mut names = Vec::new();
        for entry in allowed_hosts
            .iter()
            .map(|e| e.trim())
            .filter(|e| !e.is_empty())
        {
            let Some(authority) = parse_authority(entry) else {
                return Err(format!(
                    "allowed_hosts under [serve]: {entry:?} is not a host name or host:port"
                ));
            };
            names.push(AllowedName {
                host: authority.host,
                port: authority.port,
            });
        }
        let mut origins = Vec::new();
        for entry in allowed_origins
            .iter()
            .map(|e| e.trim())
            .filter(|e| !e.is_empty())
        {
            if entry.eq_ignore_ascii_case("null") {
                origins.push(AllowedOrigin::Null);
                continue;
            }
            let Some((scheme, authority, port)) = parse_origin(entry) else {
                return Err(format!(
                    "allowed_origins under [serve]: {entry:?} is not an origin such as \
                     https://app.example.com or http://localhost:5173"
                ));
            };
            origins.push(AllowedOrigin::Tuple {
                scheme,
                host: authority.host,
                port,
            });
        }
        Ok(BrowserPolicy {
            listen,
            names,
            origins,
        })
    }

    /// Whether `authority` (from `Host`, or an origin with its port filled in) names
    /// this server: the listening address, a loopback name on loopback, any address
    /// literal when bound to all addresses (a rebinding page always uses a name), or a
    /// configured name.
    fn is_ours(&self, authority: &Authority, default: u16) -> bool {
        let port = authority.port.unwrap_or(default);
        let configured = self
            .names
            .iter()
            .any(|n| n.host == authority.host && n.port.is_none_or(|p| p == port));
        if configured {
            return true;
        }
        if port != self.listen.port() {
            return false;
        }
        let ip = self.listen.ip();
        let literal = authority.host.parse::<IpAddr>().ok();
        if ip.is_unspecified() {
            return literal.is_some() || authority.host == "localhost";
        }
        if literal == Some(ip) {
            return true;
        }
        ip.is_loopback() && authority.host == "localhost"
    }

    fn configured_origin(&self, origin: &str) -> bool {
        if origin.trim().eq_ignore_ascii_case("null") {
            return self.origins.contains(&AllowedOrigin::Null);
        }
        let Some((scheme, authority, port)) = parse_origin(origin) else {
            return false;
        };
        self.origins.iter().any(|o| match o {
            AllowedOrigin::Tuple {
                scheme: s,
                host: h,
                port: p,
            } => *s == scheme && *h == authority.host && *p == port,
            AllowedOrigin::Null => false,
        })
    }

    /// Checks one request's Host, Origin, Sec-Fetch-Site and, for a body-carrying method,
    /// Content-Type.
    pub fn check(&self, method: &Method, headers: &HeaderMap) -> Result<Pass, BrowserRefusal> {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
        let Some(host) = host.and_then(parse_authority) else {
            return Err(BrowserRefusal {
                code: "forbidden_host",
                message: "the request has no valid Host header".into(),
            });
        };
        if !self.is_ours(&host, 80) {
            return Err(BrowserRefusal {
                code: "forbidden_host",
                message: format!(
                    "Host {} is not this server's address ({}); add the name to \
                     allowed_hosts under [serve] if it is",
                    show(&host),
                    self.listen
                ),
            });
        }
        let mut cors_origin = None;
        if let Some(origin) = headers.get(header::ORIGIN) {
            let text = origin.to_str().unwrap_or("");
            if self.configured_origin(text) {
                cors_origin = Some(origin.clone());
            } else {
                let ours = parse_origin(text).is_some_and(|(scheme, authority, port)| {
                    (scheme == "http" || scheme == "https")
                        && self.is_ours(
                            &Authority {
                                host: authority.host,
                                port: Some(port),
                            },
                            port,
                        )
                });
                if !ours {
                    return Err(BrowserRefusal {
                        code: "forbidden_origin",
                        message: format!(
                            "Origin {} is not this server; web pages may not call it \
                             (add the origin to allowed_origins under [serve] to allow it)",
                            mbank_core::markup::sanitize::line(text)
                        ),
                    });
                }
            }
        }
        let cross_site = headers
            .get("sec-fetch-site")
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"cross-site"));
        if cross_site && cors_origin.is_none() {
            return Err(BrowserRefusal {
                code: "forbidden_origin",
                message: "a cross-site request (Sec-Fetch-Site: cross-site) is refused".into(),
            });
        }
        if method == Method::OPTIONS {
            return Ok(Pass::Options { cors_origin });
        }
        if matches!(*method, Method::POST | Method::PUT | Method::PATCH) && !json_body(headers) {
            let given = headers
                .get(header::CONTENT_TYPE)
                .map(|v| {
                    mbank_core::markup::sanitize::line(&String::from_utf8_lossy(v.as_bytes()))
                        .into_owned()
                })
                .unwrap_or_else(|| "none".into());
            return Err(BrowserRefusal {
                code: "unsupported_media_type",
                message: format!(
                    "the body must be sent as Content-Type: application/json (got {given})"
                ),
            });
        }
        Ok(Pass::Serve { cors_origin })
    }
}

fn show(authority: &Authority) -> String {
    let host = mbank_core::markup::sanitize::line(&authority.host).into_owned();
    match authority.port {
        Some(port) => format!("{host}:{port}"),
        None => host,
    }
}

/// `Content-Type: application/json`, with or without parameters.
fn json_body(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// The headers of an `OPTIONS` answer: `Allow`, and CORS only for a configured origin.
pub(crate) fn options_headers(headers: &mut HeaderMap, cors_origin: Option<HeaderValue>) {
    headers.insert(header::ALLOW, HeaderValue::from_static(ALLOWED_METHODS));
    if let Some(origin) = cors_origin {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static(ALLOWED_METHODS),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(CORS_ALLOW_HEADERS),
        );
        headers.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("600"),
        );
        headers.insert(header::VARY, HeaderValue::from_static("Origin"));
    }
}

/// The CORS headers of an answer to a configured origin.
pub(crate) fn cors_headers(headers: &mut HeaderMap, origin: HeaderValue) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(CORS_EXPOSE_HEADERS),
    );
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(listen: &str, hosts: &[&str], origins: &[&str]) -> BrowserPolicy {
        let hosts: Vec<String> = hosts.iter().map(|s| s.to_string()).collect();
        let origins: Vec<String> = origins.iter().map(|s| s.to_string()).collect();
        BrowserPolicy::new(listen.parse().unwrap(), &hosts, &origins).unwrap()
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    fn code(p: &BrowserPolicy, method: Method, pairs: &[(&str, &str)]) -> Option<&'static str> {
        p.check(&method, &headers(pairs)).err().map(|r| r.code)
    }

    #[test]
    fn only_the_listening_address_and_loopback_names_pass_as_host() {
        let p = policy("127.0.0.1:3000", &[], &[]);
        for ok in [
            "127.0.0.1:3000",
            "localhost:3000",
            "LOCALHOST:3000",
            "localhost.:3000",
        ] {
            assert_eq!(code(&p, Method::GET, &[("host", ok)]), None, "{ok}");
        }
        for bad in [
            "evil.example:3000",
            "127.0.0.1:3001",
            "localhost",
            "[::1]:3000",
            "user@127.0.0.1:3000",
            "",
        ] {
            assert_eq!(
                code(&p, Method::GET, &[("host", bad)]),
                Some("forbidden_host"),
                "{bad}"
            );
        }
        assert_eq!(code(&p, Method::GET, &[]), Some("forbidden_host"));
        let v6 = policy("[::1]:3000", &[], &[]);
        assert_eq!(code(&v6, Method::GET, &[("host", "[::1]:3000")]), None);
        assert_eq!(code(&v6, Method::GET, &[("host", "localhost:3000")]), None);
        let all = policy("0.0.0.0:8080", &[], &[]);
        assert_eq!(
            code(&all, Method::GET, &[("host", "192.168.1.5:8080")]),
            None
        );
        assert_eq!(
            code(&all, Method::GET, &[("host", "attacker.example:8080")]),
            Some("forbidden_host")
        );
        let named = policy(
            "0.0.0.0:8080",
            &["mbank.example.com", "other.example:9"],
            &[],
        );
        assert_eq!(
            code(&named, Method::GET, &[("host", "mbank.example.com")]),
            None
        );
        assert_eq!(
            code(&named, Method::GET, &[("host", "other.example:9")]),
            None
        );
        assert_eq!(
            code(&named, Method::GET, &[("host", "other.example:10")]),
            Some("forbidden_host")
        );
    }

    #[test]
    fn foreign_origins_and_cross_site_fetches_are_refused() {
        let p = policy("127.0.0.1:3000", &[], &[]);
        let host = ("host", "127.0.0.1:3000");
        for ok in [
            "http://localhost:3000",
            "http://127.0.0.1:3000",
            "https://localhost:3000",
        ] {
            assert_eq!(code(&p, Method::GET, &[host, ("origin", ok)]), None, "{ok}");
        }
        for bad in [
            "http://evil.example",
            "http://localhost:8080",
            "null",
            "file://",
            "ftp://localhost:3000",
            "http://localhost:3000/path",
        ] {
            assert_eq!(
                code(&p, Method::GET, &[host, ("origin", bad)]),
                Some("forbidden_origin"),
                "{bad}"
            );
        }
        assert_eq!(
            code(&p, Method::GET, &[host, ("sec-fetch-site", "cross-site")]),
            Some("forbidden_origin")
        );
        assert_eq!(
            code(&p, Method::GET, &[host, ("sec-fetch-site", "same-origin")]),
            None
        );
    }

    #[test]
    fn bodies_must_be_json_and_options_grants_cors_only_when_configured() {
        let p = policy("127.0.0.1:3000", &[], &["http://localhost:5173"]);
        let host = ("host", "127.0.0.1:3000");
        for bad in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
        ] {
            assert_eq!(
                code(&p, Method::POST, &[host, ("content-type", bad)]),
                Some("unsupported_media_type"),
                "{bad}"
            );
        }
        assert_eq!(
            code(&p, Method::POST, &[host]),
            Some("unsupported_media_type")
        );
        assert_eq!(
            code(
                &p,
                Method::POST,
                &[host, ("content-type", "Application/JSON; charset=utf-8")]
            ),
            None
        );
        assert_eq!(code(&p, Method::DELETE, &[host]), None);
        assert_eq!(
            p.check(&Method::OPTIONS, &headers(&[host])).unwrap(),
            Pass::Options { cors_origin: None }
        );
        let configured = p
            .check(
                &Method::OPTIONS,
                &headers(&[
                    host,
                    ("origin", "http://localhost:5173"),
                    ("sec-fetch-site", "cross-site"),
                ]),
            )
            .unwrap();
        assert_eq!(
            configured,
            Pass::Options {
                cors_origin: Some(HeaderValue::from_static("http://localhost:5173"))
            }
        );
        assert!(
            BrowserPolicy::new(
                "127.0.0.1:1".parse().unwrap(),
                &[],
                &["not an origin".into()]
            )
            .is_err()
        );
        assert!(BrowserPolicy::new("127.0.0.1:1".parse().unwrap(), &["a b".into()], &[]).is_err());
    }
}
