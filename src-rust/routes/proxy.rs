//! The routing proxy: an HTTP/1.1 proxy on loopback that the engine of a
//! context with routes sends its requests through. It asks the engine
//! for its per-run credential (407), speaks TLS as the site inside each
//! `CONNECT` (`tls`), and answers each request by the context's newest
//! route that takes it, or passes it on unchanged.

use super::droppable::{Droppable, SendNow};
use super::rule::{kind_of_dest, Asked, Reply};
use super::upstream::{self, Unreachable};
use super::{Outcome, Routing};
use crate::base::context::ContextId;
use axum::body::Body;
use axum::http::{header, HeaderName, HeaderValue, Request, Response, StatusCode};
use base64::Engine as _;
use futures_util::future::BoxFuture;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// Connections served at once; more wait to be accepted.
const CONNECTIONS: usize = 512;
/// How long a client may take to send a request's head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
const REALM: &str = "Basic realm=\"Sovereign Browser\"";

/// Starts the proxy (once) and answers where it listens.
pub async fn listen(routing: &Arc<Routing>) -> std::io::Result<SocketAddr> {
    let me = routing.clone();
    let addr = routing
        .listening
        .get_or_try_init(|| async move { start(me).await })
        .await?;
    Ok(*addr)
}

/// Listens on a free loopback port and serves from there.
async fn start(routing: Arc<Routing>) -> std::io::Result<SocketAddr> {
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
        // Heads and bodies go in separate writes: Nagle would hold the
        // second until the engine's delayed acknowledgement.
        let _ = stream.set_nodelay(true);
        let routing = routing.clone();
        tokio::spawn(async move {
            let answer: Answer =
                Arc::new(move |request| Box::pin(serve(routing.clone(), own, request)));
            serve_on(Droppable::new(stream), answer).await;
            drop(slot);
        });
    }
}

/// How a connection's requests are answered.
type Answer = Arc<
    dyn Fn(Request<Incoming>) -> BoxFuture<'static, Result<Response<Body>, Dropped>> + Send + Sync,
>;

/// Serves one connection (plain, or TLS inside a `CONNECT`) until it ends.
async fn serve_on<S>(stream: Droppable<S>, answer: Answer)
where
    S: SendNow + AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let dropped = stream.flag();
    let service = service_fn(move |request| {
        let (answer, dropped) = (answer.clone(), dropped.clone());
        async move {
            let answered = answer(request).await;
            if answered.is_err() {
                dropped.store(true, Ordering::Relaxed);
            }
            answered
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
        if routing.intercepts() {
            return intercept(routing, own, context, request).await;
        }
        return upstream::tunnel(request, own).await.map_err(Dropped::from);
    }
    if request.uri().scheme().is_none() {
        return Ok(plain(
            StatusCode::BAD_REQUEST,
            "a proxy takes absolute URLs",
        ));
    }
    answer(routing, own, context, request).await
}

/// Answers a request (its URI absolute) by the context's newest route
/// that takes it, or from its server.
async fn answer(
    routing: Arc<Routing>,
    own: SocketAddr,
    context: ContextId,
    request: Request<Incoming>,
) -> Result<Response<Body>, Dropped> {
    let url = request.uri().to_string();
    let method = request.method().as_str().to_string();
    tracing::trace!(%method, %url, "routing proxy: a request");
    let dest = request
        .headers()
        .get("sec-fetch-dest")
        .and_then(|v| v.to_str().ok());
    let asked = Asked {
        method: &method,
        url: &url,
        kind: kind_of_dest(dest),
    };
    let tls = routing.certificates.as_ref().ok();
    let Some(decision) = routing.pick(context, &asked) else {
        return Ok(upstream::forward(request, &Default::default(), own, tls).await?);
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
        Outcome::Abort => Err(Dropped),
        Outcome::Fulfill(reply) => Ok(fulfilled(reply)),
        Outcome::Continue(change) => Ok(upstream::forward(request, &change, own, tls).await?),
    }
}

/// Answers a `CONNECT` and speaks TLS inside it as the site, with a
/// certificate of this run that the context's engine was told to accept
/// for this site: its requests are then answered as plain ones are.
async fn intercept(
    routing: Arc<Routing>,
    own: SocketAddr,
    context: ContextId,
    mut request: Request<Incoming>,
) -> Result<Response<Body>, Dropped> {
    let authority = request.uri().authority().cloned().ok_or(Dropped)?;
    let host = authority.host().trim_matches(['[', ']']).to_string();
    let certificates = routing.certificates.as_ref().map_err(|_| Dropped)?;
    let site = certificates.site(&host).map_err(|error| {
        tracing::warn!("routing proxy: no certificate for a site: {error}");
        Dropped
    })?;
    routing
        .trust(context, &host, &site.pem)
        .await
        .map_err(|error| {
            tracing::warn!("routing proxy: the engine did not take a site's certificate: {error}");
            Dropped
        })?;
    let on_upgrade = hyper::upgrade::on(&mut request);
    tokio::spawn(async move {
        let Ok(upgraded) = on_upgrade.await else {
            return;
        };
        let Ok(parts) = upgraded.downcast::<TokioIo<Droppable<TcpStream>>>() else {
            return;
        };
        // The engine waits for the answer before its TLS hello.
        if !parts.read_buf.is_empty() {
            return;
        }
        let stream = parts.io.into_inner();
        // A tunnel carries TLS (its first byte starts a handshake record),
        // or plain HTTP: the engine tunnels ws:// too.
        let mut first = [0u8; 1];
        let tls = matches!(stream.inner().peek(&mut first).await, Ok(1) if first[0] == 0x16);
        let scheme = if tls { "https" } else { "http" };
        let origin = match authority.port_u16() {
            // The URL as the engine writes it: no port when it is the scheme's own.
            Some(443) if tls => format!("https://{}", authority.host()),
            Some(80) if !tls => format!("http://{}", authority.host()),
            _ => format!("{scheme}://{authority}"),
        };
        let answer: Answer = Arc::new(move |mut request| {
            let (routing, origin) = (routing.clone(), origin.clone());
            Box::pin(async move {
                let path = request.uri().path_and_query().map_or("/", |p| p.as_str());
                *request.uri_mut() = format!("{origin}{path}").parse().map_err(|_| Dropped)?;
                answer(routing, own, context, request).await
            })
        });
        if !tls {
            serve_on(stream, answer).await;
            return;
        }
        let acceptor = tokio_rustls::TlsAcceptor::from(site.server.clone());
        let Ok(tls) = acceptor.accept(stream).await else {
            return;
        };
        serve_on(Droppable::new(tls), answer).await;
    });
    Ok(Response::new(Body::empty()))
}

/// The context whose credential the request carries, if any.
fn authorized(routing: &Routing, request: &Request<Incoming>) -> Option<ContextId> {
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
