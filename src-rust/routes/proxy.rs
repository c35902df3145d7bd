//! The routing proxy: an HTTP/1.1 proxy on loopback that the engine of a
//! context with routes sends its requests through. It asks the engine
//! for its per-run credential (407), tunnels `CONNECT` as it is, and
//! answers each plain request by the context's newest route that takes
//! it, or passes it on unchanged.

use super::rule::{kind_of_dest, Action, Asked, Reply};
use super::upstream::{self, Unreachable};
use super::Routing;
use axum::body::Body;
use axum::http::{header, HeaderName, HeaderValue, Request, Response, StatusCode};
use base64::Engine as _;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::net::{Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// Connections served at once; more wait to be accepted.
const CONNECTIONS: usize = 512;
/// How long a client may take to send a request's head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
const REALM: &str = "Basic realm=\"Sovereign Browser\"";

/// Listens on a free loopback port and serves from there.
pub(super) async fn start(routing: Arc<Routing>) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
    let own = listener.local_addr()?;
    tokio::spawn(accept(listener, routing, own));
    tracing::info!(%own, "routing proxy listening");
    Ok(own)
}

async fn accept(listener: TcpListener, routing: Arc<Routing>, own: SocketAddr) {
    let slots = Arc::new(Semaphore::new(CONNECTIONS));
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of file descriptors, most likely: wait, do not spin.
                tracing::warn!("routing proxy: accept failed: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let routing = routing.clone();
        tokio::spawn(async move {
            let stream = Droppable::new(stream);
            let dropped = stream.dropped.clone();
            let service = service_fn(move |request| {
                let (routing, dropped) = (routing.clone(), dropped.clone());
                async move {
                    let served = serve(routing, own, request).await;
                    if served.is_err() {
                        dropped.store(true, Ordering::Relaxed);
                    }
                    served
                }
            });
            let served = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .preserve_header_case(true)
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades()
                .await;
            if let Err(error) = served {
                tracing::debug!("routing proxy: connection ended: {error}");
            }
            drop(slot);
        });
    }
}

/// A connection whose request may be dropped. The engine tries a request
/// again when a connection it used before closes without an answer, so a
/// dropped request gets an answer no one can read instead: the engine
/// fails it as a network error, once.
struct Droppable {
    stream: TcpStream,
    dropped: Arc<AtomicBool>,
}

impl Droppable {
    fn new(stream: TcpStream) -> Droppable {
        Droppable {
            stream,
            dropped: Arc::default(),
        }
    }
}

impl Drop for Droppable {
    fn drop(&mut self) {
        if self.dropped.load(Ordering::Relaxed) {
            // A few bytes: the socket's buffer takes them at once.
            let _ = self.stream.try_write(b"dropped by a route\r\n\r\n");
        }
    }
}

impl AsyncRead for Droppable {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Droppable {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// A request the proxy drops: the engine fails it as a network error, as
/// with a server that cannot be reached.
#[derive(Debug)]
pub struct Dropped;

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dropped by the routing proxy")
    }
}

impl std::error::Error for Dropped {}

impl From<Unreachable> for Dropped {
    fn from(_: Unreachable) -> Self {
        Dropped
    }
}

async fn serve(
    routing: Arc<Routing>,
    own: SocketAddr,
    request: Request<Incoming>,
) -> Result<Response<Body>, Dropped> {
    let Some(context) = authorized(&routing, &request) else {
        return Ok(challenge());
    };
    if request.method() == hyper::Method::CONNECT {
        return upstream::tunnel(request, own).await.map_err(Dropped::from);
    }
    if request.uri().scheme().is_none() {
        return Ok(plain(
            StatusCode::BAD_REQUEST,
            "a proxy takes absolute URLs",
        ));
    }
    let url = request.uri().to_string();
    let method = request.method().as_str().to_string();
    let dest = request
        .headers()
        .get("sec-fetch-dest")
        .and_then(|v| v.to_str().ok());
    let asked = Asked {
        method: &method,
        url: &url,
        kind: kind_of_dest(dest),
    };
    let Some(decision) = routing.pick(context, &asked) else {
        return Ok(upstream::forward(request, &Default::default(), own).await?);
    };
    tracing::debug!(
        route = decision.route,
        action = decision.action.name(),
        "routed"
    );
    if !decision.delay.is_zero() {
        tokio::time::sleep(decision.delay).await;
    }
    match decision.action {
        Action::Abort(_) => Err(Dropped),
        Action::Fulfill(reply) => Ok(fulfilled(reply)),
        Action::Continue(change) => Ok(upstream::forward(request, &change, own).await?),
    }
}

/// The context whose credential the request carries, if any.
fn authorized(routing: &Routing, request: &Request<Incoming>) -> Option<u64> {
    let value = request.headers().get(header::PROXY_AUTHORIZATION)?;
    let encoded = value.to_str().ok()?.strip_prefix("Basic ")?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let decoded = zeroize::Zeroizing::new(decoded);
    let text = std::str::from_utf8(&decoded).ok()?;
    let (user, password) = text.split_once(':')?;
    routing.context_of(user, password)
}

fn challenge() -> Response<Body> {
    let mut response = plain(
        StatusCode::PROXY_AUTHENTICATION_REQUIRED,
        "proxy authentication required",
    );
    response
        .headers_mut()
        .insert(header::PROXY_AUTHENTICATE, HeaderValue::from_static(REALM));
    response
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}

/// A route's own response. Its body sets the length: a length or
/// transfer coding the route gave is not sent.
fn fulfilled(reply: Reply) -> Response<Body> {
    let mut response = Response::new(Body::from(reply.body));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::OK);
    let headers = response.headers_mut();
    for (name, value) in reply.headers {
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) else {
            continue;
        };
        if name == header::CONTENT_LENGTH || name == header::TRANSFER_ENCODING {
            continue;
        }
        headers.append(name, value);
    }
    response
}
