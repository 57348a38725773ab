//! The accept loop of `mbank serve`, written out because `axum::serve` has no timeouts:
//! a connection must send its headers within the header timeout, may not go without
//! moving a byte for longer than the idle timeout (unless a request is being answered),
//! a request body may not stall longer than the idle timeout either and must arrive
//! within the body timeout (extended by a second per [`BODY_BYTES_PER_SECOND`] received),
//! at most `max_connections` are served at once and at most `max_per_client` from one
//! client address; one more is answered 503 and closed at once rather than queued. So
//! slow or idle clients cannot starve the server of descriptors, and one client address
//! cannot take every slot.
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use hyper::body::{Frame, Incoming};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt as _;

/// How many connections, and how long they may dawdle.
#[derive(Debug, Clone, Copy)]
pub struct ConnLimits {
    pub max_connections: usize,
    /// Connections one client address may hold at once.
    pub max_per_client: usize,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    /// How long a request body may take, before the extension for what it delivered.
    pub body_timeout: Duration,
}

/// The rate that earns a request body more time: a body delivering at least this many
/// bytes a second is never cut off by the body timeout, one trickling in slower is.
pub(crate) const BODY_BYTES_PER_SECOND: u64 = 64 * 1024;

/// Connections open per client address.
#[derive(Default)]
struct PerClient {
    open: parking_lot::Mutex<HashMap<IpAddr, usize>>,
}

/// One client address's hold on a connection slot, given back when dropped.
struct ClientSlot {
    clients: Arc<PerClient>,
    ip: IpAddr,
}

impl PerClient {
    fn enter(clients: &Arc<PerClient>, ip: IpAddr, max: usize) -> Option<ClientSlot> {
        let mut open = clients.open.lock();
        let count = open.entry(ip).or_insert(0);
        if *count >= max {
            return None;
        }
        *count += 1;
        Some(ClientSlot {
            clients: clients.clone(),
            ip,
        })
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut open = self.clients.open.lock();
        if let Some(count) = open.get_mut(&self.ip) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// What an over-the-cap connection reads before it is closed.
const BUSY_RESPONSE: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
content-type: application/json\r\n\
retry-after: 1\r\n\
connection: close\r\n\
content-length: 97\r\n\r\n\
{\"status\":\"error\",\"error\":{\"code\":\"server_busy\",\"message\":\"too many connections; retry shortly\"}}";

/// What a connection over its address's cap reads before it is closed.
const CLIENT_BUSY_RESPONSE: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\n\
content-type: application/json\r\n\
retry-after: 1\r\n\
connection: close\r\n\
content-length: 115\r\n\r\n\
{\"status\":\"error\",\"error\":{\"code\":\"server_busy\",\"message\":\"too many connections from this address; retry shortly\"}}";

/// When a connection last moved a byte, and how many of its requests are being answered.
struct Activity {
    start: Instant,
    last_ms: AtomicU64,
    busy: AtomicUsize,
}

impl Activity {
    fn touch(&self) {
        let now = self.start.elapsed().as_millis() as u64;
        self.last_ms.store(now, Ordering::Relaxed);
    }

    /// How long the connection has been idle, or zero while a request is answered.
    fn idle_for(&self) -> Duration {
        if self.busy.load(Ordering::Relaxed) > 0 {
            return Duration::ZERO;
        }
        let now = self.start.elapsed().as_millis() as u64;
        Duration::from_millis(now.saturating_sub(self.last_ms.load(Ordering::Relaxed)))
    }
}

/// A socket that records every byte moved.
struct Watched {
    inner: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let result = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(result, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        result
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        result
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(result, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Why a request body was cut off: it stalled, or missed its deadline. Typed so that a
/// handler can answer "too slow" rather than mistake it for a body over a size limit.
#[derive(Debug)]
pub(crate) struct BodyNotInTime(String);

impl std::fmt::Display for BodyNotInTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BodyNotInTime {}

impl BodyNotInTime {
    /// The cut-off somewhere in `error`'s chain of causes, if that is why reading failed.
    pub(crate) fn cause_of<'a>(
        error: &'a (dyn std::error::Error + 'static),
    ) -> Option<&'a BodyNotInTime> {
        let mut cause = Some(error);
        while let Some(e) = cause {
            if let Some(found) = e.downcast_ref::<BodyNotInTime>() {
                return Some(found);
            }
            cause = e.source();
        }
        None
    }
}

/// A request body that fails when no part of it arrives within `timeout`, or when it
/// has not all arrived by its deadline: `body_timeout` after the request began, plus a
/// second for every [`BODY_BYTES_PER_SECOND`] received.
struct StallLimitedBody {
    inner: Incoming,
    timeout: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
    started: tokio::time::Instant,
    body_timeout: Duration,
    received: u64,
}

impl StallLimitedBody {
    fn new(inner: Incoming, timeout: Duration, body_timeout: Duration) -> StallLimitedBody {
        let started = tokio::time::Instant::now();
        let mut body = StallLimitedBody {
            inner,
            timeout,
            deadline: Box::pin(tokio::time::sleep(Duration::ZERO)),
            started,
            body_timeout,
            received: 0,
        };
        let next = body.next_deadline(started);
        body.deadline.as_mut().reset(next);
        body
    }

    /// When the body fails unless more of it arrives: a stall, or its whole deadline.
    fn whole_deadline(&self) -> tokio::time::Instant {
        let earned = Duration::from_secs_f64(self.received as f64 / BODY_BYTES_PER_SECOND as f64);
        self.started + self.body_timeout + earned
    }

    fn next_deadline(&self, now: tokio::time::Instant) -> tokio::time::Instant {
        (now + self.timeout).min(self.whole_deadline())
    }
}

impl hyper::body::Body for StallLimitedBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match Pin::new(&mut self.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                if let Some(Ok(data)) = frame.as_ref().map(|f| f.as_ref().map(Frame::data_ref))
                    && let Some(data) = data
                {
                    self.received += data.len() as u64;
                }
                let next = self.next_deadline(tokio::time::Instant::now());
                self.deadline.as_mut().reset(next);
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) if tokio::time::Instant::now() >= self.whole_deadline() => {
                    Poll::Ready(Some(Err(Box::new(BodyNotInTime(format!(
                        "the request body did not arrive within {} s (plus a second per {} \
                         KiB received)",
                        self.body_timeout.as_secs(),
                        BODY_BYTES_PER_SECOND / 1024
                    ))))))
                }
                Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyNotInTime(format!(
                    "the request body stalled for over {} s",
                    self.timeout.as_secs()
                )))))),
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

/// Counts a request as being answered until its response head is out.
struct BusyGuard(Arc<Activity>);

impl BusyGuard {
    fn enter(activity: &Arc<Activity>) -> BusyGuard {
        activity.busy.fetch_add(1, Ordering::Relaxed);
        BusyGuard(activity.clone())
    }
}

impl Drop for BusyGuard {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether an accept error concerns only the connection being accepted.
fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset | Interrupted | WouldBlock
    )
}

/// Serves `app` on `listener` until `shutdown` completes, then lets open connections
/// finish their requests (for at most a few seconds).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let max = limits.max_connections.clamp(1, 1 << 20);
    let permits = Arc::new(Semaphore::new(max));
    let clients = Arc::new(PerClient::default());
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) if is_connection_error(&e) => continue,
                Err(_) => {
                    // Out of descriptors or memory: wait for connections to close.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Best effort, never waiting: the point is to close it now.
        let Some(slot) = PerClient::enter(&clients, peer.ip(), limits.max_per_client) else {
            let _ = stream.try_write(CLIENT_BUSY_RESPONSE);
            drop(stream);
            continue;
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            let _ = stream.try_write(BUSY_RESPONSE);
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let stop = stop_rx.clone();
        tokio::spawn(async move {
            serve_connection(stream, peer, app, limits, stop).await;
            drop(permit);
            drop(slot);
        });
    }
    let _ = stop_tx.send(true);
    drop(listener);
    let _ = tokio::time::timeout(Duration::from_secs(5), permits.acquire_many(max as u32)).await;
    Ok(())
}

async fn serve_connection(
    stream: TcpStream,
    peer: SocketAddr,
    app: Router,
    limits: ConnLimits,
    mut stop: watch::Receiver<bool>,
) {
    let activity = Arc::new(Activity {
        start: Instant::now(),
        last_ms: AtomicU64::new(0),
        busy: AtomicUsize::new(0),
    });
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: activity.clone(),
    });
    let (stall_timeout, body_timeout) = (limits.idle_timeout, limits.body_timeout);
    let service_activity = activity.clone();
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let guard = BusyGuard::enter(&service_activity);
        let mut request = request.map(|inner| {
            // Most requests have no body: no timer for them.
            if hyper::body::Body::is_end_stream(&inner) {
                Body::new(inner)
            } else {
                Body::new(StallLimitedBody::new(inner, stall_timeout, body_timeout))
            }
        });
        request.extensions_mut().insert(ConnectInfo(peer));
        let answer = app.clone().oneshot(request);
        async move {
            let response = answer.await;
            drop(guard);
            Ok::<_, Infallible>(response.unwrap_or_else(|never| match never {}))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let connection = builder.serve_connection(io, service).with_upgrades();
    let mut connection = std::pin::pin!(connection);
    let mut stopping = false;
    loop {
        let check = limits.idle_timeout.saturating_sub(activity.idle_for());
        tokio::select! {
            _ = connection.as_mut() => return,
            () = tokio::time::sleep(check.max(Duration::from_millis(10))) => {
                if activity.idle_for() >= limits.idle_timeout {
                    // Dropping the connection closes the socket.
                    return;
                }
            }
            changed = stop.changed(), if !stopping => {
                stopping = true;
                if changed.is_ok() {
                    connection.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busy_answers_declare_their_body_length() {
        for answer in [BUSY_RESPONSE, CLIENT_BUSY_RESPONSE] {
            busy_answer_declares_its_body_length(answer);
        }
    }

    #[test]
    fn one_address_holds_at_most_its_share_of_slots() {
        let clients = Arc::new(PerClient::default());
        let attacker: IpAddr = "127.0.0.2".parse().unwrap();
        let client: IpAddr = "127.0.0.3".parse().unwrap();
        let held: Vec<ClientSlot> = (0..3)
            .map(|_| PerClient::enter(&clients, attacker, 3).unwrap())
            .collect();
        assert!(PerClient::enter(&clients, attacker, 3).is_none());
        assert!(PerClient::enter(&clients, client, 3).is_some());
        drop(held);
        assert!(clients.open.lock().is_empty(), "every slot given back");
        assert!(PerClient::enter(&clients, attacker, 3).is_some());
    }

    fn busy_answer_declares_its_body_length(answer: &[u8]) {
        let text = std::str::from_utf8(answer).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let declared: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(declared, body.len());
        let value: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(value["error"]["code"], "server_busy");
    }
}
