//! Passing requests on: a plain request to its server (changed as a
//! `continue` route says), a `CONNECT` as a blind tunnel (TLS stays
//! between the engine and the site, verified by the engine), and a
//! WebSocket's upgrade both ways.

use super::rule::{Change, HeaderChanges};
use super::tls::Certificates;
use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Request, Response, StatusCode};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rustls_pki_types::ServerName;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

/// How long reaching a server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// The server could not be reached (or is the proxy itself).
#[derive(Debug)]
pub struct Unreachable;

/// Sends `request` to its server and answers with the server's response,
/// both changed as `change` says.
pub async fn forward(
    mut request: Request<Incoming>,
    change: &Change,
    own: SocketAddr,
    tls: Option<&Certificates>,
) -> Result<Response<Body>, Unreachable> {
    let uri = request.uri().clone();
    let host = uri.host().ok_or(Unreachable)?.trim_matches(['[', ']']);
    // The engine asks for a WebSocket by its own URL (ws://) in absolute form.
    let stream: Box<dyn Io> = match (uri.scheme_str(), tls) {
        (Some("http" | "ws"), _) => {
            Box::new(connect(host, uri.port_u16().unwrap_or(80), own).await?)
        }
        (Some("https" | "wss"), Some(certificates)) => {
            let tcp = connect(host, uri.port_u16().unwrap_or(443), own).await?;
            Box::new(verified(certificates, host, tcp).await?)
        }
        _ => return Err(Unreachable),
    };
    let upgrading = request.headers().contains_key(header::UPGRADE);
    strip_hop_by_hop(request.headers_mut(), upgrading);
    apply(request.headers_mut(), &change.request_headers);
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    *request.uri_mut() = path.parse().map_err(|_| Unreachable)?;
    let engine_side = upgrading.then(|| hyper::upgrade::on(&mut request));

    let (mut sender, connection) = hyper::client::conn::http1::Builder::new()
        .preserve_header_case(true)
        .handshake::<_, Incoming>(TokioIo::new(stream))
        .await
        .map_err(|_| Unreachable)?;
    tokio::spawn(async move {
        if let Err(error) = connection.with_upgrades().await {
            tracing::debug!("routing proxy: server connection ended: {error}");
        }
    });
    let mut response = sender
        .send_request(request)
        .await
        .map_err(|_| Unreachable)?;

    if response.status() == StatusCode::SWITCHING_PROTOCOLS {
        let server_side = hyper::upgrade::on(&mut response);
        if let Some(engine_side) = engine_side {
            tokio::spawn(splice(engine_side, server_side));
        }
    } else {
        strip_hop_by_hop(response.headers_mut(), false);
    }
    if let Some(status) = change.status.and_then(|s| StatusCode::from_u16(s).ok()) {
        *response.status_mut() = status;
    }
    apply(response.headers_mut(), &change.response_headers);
    Ok(response.map(Body::new))
}

/// Answers a `CONNECT` once its server is reached, then carries the bytes
/// both ways as they are.
pub async fn tunnel(
    mut request: Request<Incoming>,
    own: SocketAddr,
) -> Result<Response<Body>, Unreachable> {
    let authority = request.uri().authority().ok_or(Unreachable)?.clone();
    let host = authority.host().trim_matches(['[', ']']);
    let port = authority.port_u16().unwrap_or(443);
    let mut server = connect(host, port, own).await?;
    let engine_side = hyper::upgrade::on(&mut request);
    tokio::spawn(async move {
        let Ok(upgraded) = engine_side.await else {
            return;
        };
        let mut engine = TokioIo::new(upgraded);
        let _ = tokio::io::copy_bidirectional(&mut engine, &mut server).await;
    });
    Ok(Response::new(Body::empty()))
}

async fn splice(engine: hyper::upgrade::OnUpgrade, server: hyper::upgrade::OnUpgrade) {
    let (Ok(engine), Ok(server)) = (engine.await, server.await) else {
        return;
    };
    let (mut engine, mut server) = (TokioIo::new(engine), TokioIo::new(server));
    let _ = tokio::io::copy_bidirectional(&mut engine, &mut server).await;
}

/// A connection to a server, plain or TLS.
trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// TLS to `host` over `tcp`, its certificate verified against the roots.
async fn verified(
    certificates: &Certificates,
    host: &str,
    tcp: TcpStream,
) -> Result<tokio_rustls::client::TlsStream<TcpStream>, Unreachable> {
    let config = certificates.client().map_err(|error| {
        tracing::warn!("routing proxy: {error}");
        Unreachable
    })?;
    let name = ServerName::try_from(host.to_string()).map_err(|_| Unreachable)?;
    let connecting = tokio_rustls::TlsConnector::from(config).connect(name, tcp);
    match tokio::time::timeout(CONNECT_TIMEOUT, connecting).await {
        Ok(Ok(stream)) => Ok(stream),
        Ok(Err(error)) => {
            tracing::info!(host, "routing proxy: TLS to a site failed: {error}");
            Err(Unreachable)
        }
        Err(_) => Err(Unreachable),
    }
}

/// A connection to `host:port`, never to the proxy itself.
async fn connect(host: &str, port: u16, own: SocketAddr) -> Result<TcpStream, Unreachable> {
    let connecting = TcpStream::connect((host, port));
    let stream = tokio::time::timeout(CONNECT_TIMEOUT, connecting)
        .await
        .map_err(|_| Unreachable)?
        .map_err(|_| Unreachable)?;
    let peer = stream.peer_addr().map_err(|_| Unreachable)?;
    if peer.port() == own.port() && peer.ip().is_loopback() {
        return Err(Unreachable);
    }
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

/// Headers for one connection only, which a proxy does not pass on
/// (RFC 9110, 7.6.1); an upgrade keeps what asks for it.
fn strip_hop_by_hop(headers: &mut HeaderMap, upgrading: bool) {
    let listed: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    for name in listed {
        if !(upgrading && name == header::UPGRADE) {
            headers.remove(name);
        }
    }
    for name in [
        header::PROXY_AUTHORIZATION,
        header::PROXY_AUTHENTICATE,
        header::TE,
        header::TRAILER,
        header::TRANSFER_ENCODING,
    ] {
        headers.remove(name);
    }
    headers.remove("proxy-connection");
    headers.remove("keep-alive");
    if upgrading {
        headers.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
    } else {
        headers.remove(header::CONNECTION);
        headers.remove(header::UPGRADE);
    }
}

/// Sets or removes headers by name (checked when the route was added).
fn apply(headers: &mut HeaderMap, changes: &HeaderChanges) {
    for (name, value) in changes {
        let Ok(name) = HeaderName::from_bytes(name.as_bytes()) else {
            continue;
        };
        match value.as_deref().map(HeaderValue::from_str) {
            Some(Ok(value)) => {
                headers.insert(name, value);
            }
            Some(Err(_)) => {}
            None => {
                headers.remove(name);
            }
        }
    }
}
