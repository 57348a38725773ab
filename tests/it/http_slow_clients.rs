//! Slow request bodies and connection slots in `mbank serve`: one client address trickling
//! POST bodies (one byte at a time) takes at most its share of the connection slots, and
//! each of its bodies is cut off at the body timeout, so a client from another address is
//! served throughout. Attacker and client use distinct loopback sources (127.0.0.2 and
//! 127.0.0.3); everything stays on 127.0.0.x, bounded in count and time.
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::http_serve::{Server, tls};

/// The server's address from its base URL.
fn address(server: &Server) -> SocketAddr {
    server.base.trim_start_matches("http://").parse().unwrap()
}

/// What became of one slow POST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlowEnd {
    /// Answered 503 at once (over a cap).
    Refused,
    /// Closed or answered by the server after this long.
    CutOff(Duration),
    /// Still open when the attacker gave up.
    StillOpen,
}

/// A POST from `source` declaring a 4,000-byte body and sending one byte every 200 ms,
/// for at most `give_up`.
async fn slow_post(server: SocketAddr, source: IpAddr, give_up: Duration) -> SlowEnd {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(source, 0)).unwrap();
    let Ok(stream) = socket.connect(server).await else {
        return SlowEnd::Refused;
    };
    let started = Instant::now();
    let (mut reader, mut writer) = stream.into_split();
    let head = format!(
        "POST /memory-bank/file?project=alpha HTTP/1.1\r\nhost: {server}\r\ncontent-type: application/json\r\ncontent-length: 4000\r\n\r\n"
    );
    if writer.write_all(head.as_bytes()).await.is_err() {
        return SlowEnd::Refused;
    }
    let trickle = async {
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if writer.write_all(b" ").await.is_err() {
                return;
            }
        }
    };
    let mut answer = vec![0u8; 4096];
    let read = tokio::select! {
        read = reader.read(&mut answer) => read,
        () = trickle => Ok(0),
        () = tokio::time::sleep(give_up) => return SlowEnd::StillOpen,
    };
    let elapsed = started.elapsed();
    let text = String::from_utf8_lossy(&answer[..read.unwrap_or(0)]).into_owned();
    // Over a cap the server answers 503 and closes at once (the answer may be lost to
    // the reset of the close).
    if text.starts_with("HTTP/1.1 503") || elapsed < Duration::from_secs(1) {
        SlowEnd::Refused
    } else {
        SlowEnd::CutOff(elapsed)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_body_attacker_takes_only_its_share_and_is_cut_off() {
    tls();
    // 16 slots, 2 per address, bodies cut off after 2 s.
    let server = Server::start(
        "[serve]\nmax_connections = 16\nmax_connections_per_client = 2\nbody_timeout_secs = 2\nidle_timeout_secs = 30\n",
        &[],
    );
    let target = address(&server);
    let attacker: IpAddr = "127.0.0.2".parse().unwrap();
    let held = Arc::new(AtomicUsize::new(0));
    let attacks: Vec<_> = (0..24)
        .map(|_| {
            let held = held.clone();
            tokio::spawn(async move {
                let end = slow_post(target, attacker, Duration::from_secs(8)).await;
                if end != SlowEnd::Refused {
                    held.fetch_add(1, Ordering::Relaxed);
                }
                end
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(400)).await;

    // The client, from another address, while the attack runs.
    let client = reqwest::Client::builder()
        .local_address("127.0.0.3".parse::<IpAddr>().unwrap())
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    for _ in 0..20 {
        let status = client
            .get(server.url("/status"))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16();
        assert_eq!(status, 200, "the client from another address is served");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let mut ends = Vec::new();
    for attack in attacks {
        ends.push(attack.await.unwrap());
    }
    let admitted: Vec<&SlowEnd> = ends.iter().filter(|e| **e != SlowEnd::Refused).collect();
    assert_eq!(
        admitted.len(),
        2,
        "one address holds at most its share of 16 slots: {ends:?}"
    );
    for end in admitted {
        match end {
            SlowEnd::CutOff(after) => assert!(
                *after >= Duration::from_millis(1500) && *after < Duration::from_secs(7),
                "cut off at the body timeout, not before: {after:?}"
            ),
            other => panic!("a trickling body must be cut off: {other:?}"),
        }
    }
}

/// What the server answers to a POST to `path` that declares 4,000 bytes and trickles
/// one byte every 200 ms until the server answers (at most 10 s).
async fn trickled_answer(server: SocketAddr, path: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(server).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: {server}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 4000\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let (mut reader, mut writer) = stream.into_split();
    let trickle = async {
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if writer.write_all(b" ").await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    };
    let mut answer = Vec::new();
    let read_all = async {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = reader.read(&mut chunk).await {
            if n == 0 {
                break;
            }
            answer.extend_from_slice(&chunk[..n]);
            if String::from_utf8_lossy(&answer).contains("\r\n\r\n{") && answer.ends_with(b"}") {
                break;
            }
        }
    };
    tokio::select! {
        () = read_all => {}
        () = trickle => {}
        () = tokio::time::sleep(Duration::from_secs(10)) => {}
    }
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_cut_off_for_slowness_is_answered_as_too_slow_not_too_large() {
    tls();
    let server = Server::start(
        "[serve]\nbody_timeout_secs = 1\nidle_timeout_secs = 30\n",
        &[],
    );
    let target = address(&server);
    for path in ["/mcp", "/memory-bank/file?project=alpha"] {
        let answer = trickled_answer(target, path).await;
        assert!(
            answer.starts_with("HTTP/1.1 408"),
            "{path}: a body that misses its deadline is a timeout: {answer}"
        );
        assert!(
            answer.contains("did not arrive within 1 s") && answer.contains("body_timeout_secs"),
            "{path}: the answer says why and which setting: {answer}"
        );
        assert!(
            !answer.contains("bytes, the most"),
            "{path}: not mistaken for a body over the size limit: {answer}"
        );
    }
}
