//! One connection to a device: writes request lines, reads response lines
//! (skipping noise), and routes each response to the request with its id.

use super::protocol::{parse_response, DeviceError, Request, Response, MAX_LINE};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::oneshot;

pub type Reader = Box<dyn AsyncRead + Send + Unpin>;
pub type Writer = Box<dyn AsyncWrite + Send + Unpin>;

#[derive(Debug, Clone, thiserror::Error)]
pub enum LinkError {
    #[error("the link to the device closed")]
    Closed,
    /// The host ended the link (a logout or a switch of identity).
    #[error("{0}")]
    Ended(String),
    #[error(
        "the request is {0} bytes on the line; a device takes lines of at most {MAX_LINE} bytes"
    )]
    TooLong(usize),
    #[error("the device did not answer within {0} ms")]
    Timeout(u128),
    #[error("cannot write to the device: {0}")]
    Write(String),
    #[error("the device answered {}: {}", serde_json::to_string(&.0.code).unwrap_or_default(), .0.message)]
    Device(DeviceError),
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Response>>>>;

pub struct Link {
    /// None once the link is closed: its stream is released.
    writer: Arc<tokio::sync::Mutex<Option<Writer>>>,
    pending: Pending,
    next_id: AtomicU64,
    alive: Arc<AtomicBool>,
    /// When the device last answered anything.
    heard: Arc<Mutex<Instant>>,
    /// Why the host ended the link, once it did.
    ended: Mutex<Option<String>>,
    reader: tokio::task::JoinHandle<()>,
}

impl Link {
    pub fn new(reader: Reader, writer: Writer) -> Link {
        let pending: Pending = Arc::default();
        let alive = Arc::new(AtomicBool::new(true));
        let heard = Arc::new(Mutex::new(Instant::now()));
        let reader = tokio::spawn(read_responses(
            reader,
            pending.clone(),
            alive.clone(),
            heard.clone(),
        ));
        Link {
            writer: Arc::new(tokio::sync::Mutex::new(Some(writer))),
            pending,
            next_id: AtomicU64::new(1),
            alive,
            heard,
            ended: Mutex::new(None),
            reader,
        }
    }

    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::Relaxed)
    }

    /// How long since the device last answered.
    pub fn silent_for(&self) -> Duration {
        lock(&self.heard).elapsed()
    }

    /// Ends the link now: waiting requests fail at once with `reason`, the
    /// reader stops, and the stream is released (a serial port can be
    /// opened again), however many holders the link still has.
    pub fn close(&self, reason: &str) {
        *lock(&self.ended) = Some(reason.to_string());
        self.alive.store(false, Ordering::Relaxed);
        lock(&self.pending).clear();
        self.reader.abort();
        let released = match self.writer.try_lock() {
            Ok(mut slot) => {
                drop(slot.take());
                true
            }
            Err(_) => false,
        };
        if !released {
            // A write is under way: release the stream when it is done.
            let writer = self.writer.clone();
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move { drop(writer.lock().await.take()) });
            }
        }
    }

    /// The error for a link that is gone: the host's reason, when it ended it.
    fn gone(&self) -> LinkError {
        match lock(&self.ended).clone() {
            Some(reason) => LinkError::Ended(reason),
            None => LinkError::Closed,
        }
    }

    /// Sends one request and waits (bounded) for its response.
    pub async fn request(
        &self,
        method: &str,
        params: Value,
        limit: Duration,
    ) -> Result<Value, LinkError> {
        if !self.is_alive() {
            return Err(self.gone());
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let line = Request::new(id, method, params).to_line();
        // The document's promise: the host never sends a longer line.
        if line.len() > MAX_LINE {
            return Err(LinkError::TooLong(line.len()));
        }
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, tx);
        let written = async {
            let mut slot = self.writer.lock().await;
            let writer = slot.as_mut().ok_or(std::io::ErrorKind::NotConnected)?;
            writer.write_all(line.as_bytes()).await?;
            writer.flush().await
        };
        if let Err(e) = tokio::time::timeout(limit, written)
            .await
            .unwrap_or_else(|_| Err(std::io::ErrorKind::TimedOut.into()))
        {
            lock(&self.pending).remove(&id);
            if !self.is_alive() {
                return Err(self.gone());
            }
            return Err(LinkError::Write(e.to_string()));
        }
        let outcome = tokio::time::timeout(limit, rx).await;
        lock(&self.pending).remove(&id);
        match outcome {
            Ok(Ok(response)) => response.into_result().map_err(LinkError::Device),
            Ok(Err(_)) => Err(self.gone()),
            Err(_) => Err(LinkError::Timeout(limit.as_millis())),
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

async fn read_responses(
    reader: Reader,
    pending: Pending,
    alive: Arc<AtomicBool>,
    heard: Arc<Mutex<Instant>>,
) {
    let mut reader = BufReader::new(reader);
    let mut line = Vec::with_capacity(1024);
    loop {
        line.clear();
        let read = (&mut reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .await;
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) if !line.ends_with(b"\n") && line.len() > MAX_LINE => {
                // Too long: drop the rest of this line.
                if skip_line(&mut reader).await.is_err() {
                    break;
                }
                continue;
            }
            Ok(_) => {}
        }
        let Some(response) = std::str::from_utf8(&line).ok().and_then(parse_response) else {
            continue;
        };
        *lock(&heard) = Instant::now();
        if let Some(tx) = lock(&pending).remove(&response.id) {
            let _ = tx.send(response);
        }
    }
    alive.store(false, Ordering::Relaxed);
    // Waiting requests learn at once that the link is gone.
    lock(&pending).clear();
}

async fn skip_line(reader: &mut BufReader<Reader>) -> std::io::Result<()> {
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        if let Some(pos) = buf.iter().position(|b| *b == b'\n') {
            reader.consume(pos + 1);
            return Ok(());
        }
        let n = buf.len();
        reader.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::super::protocol::{DeviceErrorCode, Response};
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn responses_find_their_request_and_noise_is_skipped() {
        let (host, device) = tokio::io::duplex(1 << 20);
        let (hr, hw) = tokio::io::split(host);
        let link = Link::new(Box::new(hr), Box::new(hw));
        let (dr, mut dw) = tokio::io::split(device);
        tokio::spawn(async move {
            let mut lines = BufReader::new(dr).lines();
            dw.write_all(b"booting nsigner...\n").await.unwrap();
            dw.write_all(&vec![b'x'; MAX_LINE + 10]).await.unwrap();
            dw.write_all(b"\n").await.unwrap();
            while let Ok(Some(line)) = lines.next_line().await {
                let req: Request = serde_json::from_str(&line).unwrap();
                let resp = match req.method.as_str() {
                    "fail" => Response::err(req.id, DeviceErrorCode::Rejected, "no"),
                    _ => Response::ok(req.id, json!({"echo": req.params})),
                };
                dw.write_all(resp.to_line().as_bytes()).await.unwrap();
            }
        });
        let limit = Duration::from_secs(5);
        let (a, b) = tokio::join!(
            link.request("x", json!(1), limit),
            link.request("y", json!(2), limit)
        );
        assert_eq!(a.unwrap()["echo"], 1);
        assert_eq!(b.unwrap()["echo"], 2);
        match link.request("fail", json!({}), limit).await {
            Err(LinkError::Device(e)) => assert_eq!(e.code, DeviceErrorCode::Rejected),
            other => panic!("expected a device error, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn closing_ends_waiting_requests_at_once_and_long_lines_are_refused() {
        let (host, device) = tokio::io::duplex(1 << 20);
        let (hr, hw) = tokio::io::split(host);
        let link = Arc::new(Link::new(Box::new(hr), Box::new(hw)));
        let waiting = {
            let link = link.clone();
            tokio::spawn(async move {
                link.request("sign_event", json!({}), Duration::from_secs(60))
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        link.close("logged out");
        let ended = tokio::time::timeout(Duration::from_secs(1), waiting)
            .await
            .unwrap()
            .unwrap();
        assert!(
            matches!(ended, Err(LinkError::Ended(ref r)) if r == "logged out"),
            "{ended:?}"
        );
        assert!(matches!(
            link.request("info", json!({}), Duration::from_secs(1))
                .await,
            Err(LinkError::Ended(_))
        ));
        drop(device);

        let (host, _device) = tokio::io::duplex(1 << 20);
        let (hr, hw) = tokio::io::split(host);
        let link = Link::new(Box::new(hr), Box::new(hw));
        let long = json!({"content": "x".repeat(MAX_LINE)});
        match link
            .request("sign_event", long, Duration::from_secs(1))
            .await
        {
            Err(LinkError::TooLong(n)) => assert!(n > MAX_LINE),
            other => panic!("expected TooLong, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn silence_times_out_and_a_closed_link_says_so() {
        let (host, device) = tokio::io::duplex(1024);
        let (hr, hw) = tokio::io::split(host);
        let link = Link::new(Box::new(hr), Box::new(hw));
        let r = link
            .request("info", json!({}), Duration::from_millis(50))
            .await;
        assert!(matches!(r, Err(LinkError::Timeout(50))));
        drop(device);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!link.is_alive());
        assert!(matches!(
            link.request("info", json!({}), Duration::from_millis(50))
                .await,
            Err(LinkError::Closed)
        ));
    }
}
