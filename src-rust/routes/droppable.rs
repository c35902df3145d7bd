//! A connection whose request may be dropped. The engine tries a request
//! again when a connection it used before closes without an answer, so a
//! dropped request gets an answer no one can read instead (inside TLS on
//! an https connection): the engine fails it as a network error, once.

use std::io::Write as _;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// What the engine reads instead of an answer.
const UNREADABLE: &[u8] = b"dropped by a route\r\n\r\n";

/// A stream that can send a few bytes now, without waiting (the socket's
/// buffer takes them at once), as it is dropped.
pub trait SendNow {
    fn send_now(&mut self, bytes: &[u8]);
    /// Sends `UNREADABLE` as the peer reads this stream.
    fn send_unreadable(&mut self) {
        self.send_now(UNREADABLE);
    }
}

impl SendNow for TcpStream {
    fn send_now(&mut self, bytes: &[u8]) {
        let _ = self.try_write(bytes);
    }
}

impl<S: SendNow + AsyncRead + AsyncWrite + Unpin> SendNow for tokio_rustls::server::TlsStream<S> {
    fn send_now(&mut self, bytes: &[u8]) {
        self.get_mut().0.send_now(bytes);
    }

    fn send_unreadable(&mut self) {
        let (io, tls) = self.get_mut();
        if tls.writer().write_all(UNREADABLE).is_err() {
            return;
        }
        let mut sealed = Vec::new();
        while tls.wants_write() {
            if tls.write_tls(&mut sealed).is_err() {
                return;
            }
        }
        io.send_now(&sealed);
    }
}

pub struct Droppable<S: SendNow> {
    inner: S,
    dropped: Arc<AtomicBool>,
}

impl<S: SendNow> Droppable<S> {
    pub fn new(inner: S) -> Droppable<S> {
        Droppable {
            inner,
            dropped: Arc::default(),
        }
    }

    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// Set when the request on it is dropped.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.dropped.clone()
    }
}

impl<S: SendNow> SendNow for Droppable<S> {
    fn send_now(&mut self, bytes: &[u8]) {
        self.inner.send_now(bytes);
    }
}

impl<S: SendNow> Drop for Droppable<S> {
    fn drop(&mut self) {
        if self.dropped.load(Ordering::Relaxed) {
            self.inner.send_unreadable();
        }
    }
}

impl<S: SendNow + AsyncRead + Unpin> AsyncRead for Droppable<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: SendNow + AsyncWrite + Unpin> AsyncWrite for Droppable<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
