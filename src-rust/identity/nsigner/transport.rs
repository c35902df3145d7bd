//! The byte streams a device is reached over: a serial line, a Unix socket,
//! TCP, or a Qubes qrexec service (through `qrexec-client-vm`).

use super::link::{Link, Reader, Writer};
use crate::identity::{IdentityError, IdentityResult};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::PathBuf;
use std::time::Duration;

/// Where the device is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Serial { path: PathBuf, baud: u32 },
    Unix(PathBuf),
    Tcp(String),
    Qrexec { qube: String, service: String },
}

pub const DEFAULT_BAUD: u32 = 115_200;
/// The speeds a serial `device` may name (those Linux terminals take).
pub const BAUD_RATES: [u32; 16] = [
    1200, 2400, 4800, 9600, 19_200, 38_400, 57_600, 115_200, 230_400, 460_800, 500_000, 576_000,
    921_600, 1_000_000, 2_000_000, 4_000_000,
];
const CONNECT_LIMIT: Duration = Duration::from_secs(5);

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Serial { path, baud } => write!(f, "serial:{}@{baud}", path.display()),
            Endpoint::Unix(path) => write!(f, "unix:{}", path.display()),
            Endpoint::Tcp(addr) => write!(f, "tcp:{addr}"),
            Endpoint::Qrexec { qube, service } => write!(f, "qrexec:{qube}/{service}"),
        }
    }
}

/// A serial `device` may carry its speed: `/dev/ttyACM0@9600`.
pub fn serial_endpoint(device: &str) -> IdentityResult<Endpoint> {
    let (path, baud) = match device.rsplit_once('@') {
        Some((path, baud)) => (
            path,
            baud.parse::<u32>()
                .ok()
                .filter(|b| BAUD_RATES.contains(b))
                .ok_or_else(|| {
                    let rates: Vec<String> = BAUD_RATES.iter().map(u32::to_string).collect();
                    IdentityError::Malformed(format!(
                        "bad baud rate {baud:?} (one of {})",
                        rates.join(", ")
                    ))
                })?,
        ),
        None => (device, DEFAULT_BAUD),
    };
    if path.is_empty() {
        return Err(IdentityError::Malformed(
            "a serial device path is required, e.g. /dev/ttyACM0".into(),
        ));
    }
    Ok(Endpoint::Serial {
        path: PathBuf::from(path),
        baud,
    })
}

/// A TCP `device`: host:port, the port a number from 1 to 65535.
pub fn tcp_endpoint(device: &str) -> IdentityResult<Endpoint> {
    let malformed = IdentityError::Malformed;
    let (host, port) = device
        .rsplit_once(':')
        .ok_or_else(|| malformed(format!("{device:?} is not host:port")))?;
    if host.is_empty() {
        return Err(malformed(format!("{device:?} has no host before the port")));
    }
    match port.parse::<u16>() {
        Ok(p) if p > 0 => Ok(Endpoint::Tcp(device.to_string())),
        _ => Err(malformed(format!("bad port {port:?} (1 to 65535)"))),
    }
}

/// An open connection; keeps alive what must outlive the streams.
pub struct Connection {
    pub link: Link,
    /// The qrexec client process, or the configured serial port.
    pub guard: Guard,
}

pub enum Guard {
    None,
    Child(tokio::process::Child),
    Serial(#[allow(dead_code)] serialport::TTYPort),
}

impl Connection {
    /// Why the link ended, when a child process tells (qrexec policy
    /// refusal). The child may still be exiting: give it a moment.
    pub async fn exit_reason(&mut self) -> Option<String> {
        let Guard::Child(child) = &mut self.guard else {
            return None;
        };
        let status = tokio::time::timeout(Duration::from_secs(2), child.wait())
            .await
            .ok()?
            .ok()?;
        if status.code() == Some(126) {
            return Some(
                "the Qubes policy refused the call (qrexec-client-vm exited with 126)".into(),
            );
        }
        Some(format!("qrexec-client-vm exited ({status})"))
    }
}

/// Why a link could not be opened.
#[derive(Debug)]
pub enum OpenError {
    /// The serial `device` is not a serial line that may be opened
    /// (`serial_line`); nothing was opened.
    NotASerialLine(String),
    Failed(String),
}

impl From<String> for OpenError {
    fn from(why: String) -> Self {
        OpenError::Failed(why)
    }
}

impl From<&str> for OpenError {
    fn from(why: &str) -> Self {
        OpenError::Failed(why.to_string())
    }
}

pub async fn open(endpoint: &Endpoint) -> Result<Connection, OpenError> {
    let (reader, writer, guard): (Reader, Writer, Guard) = match endpoint {
        Endpoint::Unix(path) => {
            let stream = tokio::time::timeout(CONNECT_LIMIT, tokio::net::UnixStream::connect(path))
                .await
                .map_err(|_| "timed out connecting".to_string())?
                .map_err(|e| e.to_string())?;
            let (r, w) = stream.into_split();
            (Box::new(r), Box::new(w), Guard::None)
        }
        Endpoint::Tcp(addr) => {
            let stream =
                tokio::time::timeout(CONNECT_LIMIT, tokio::net::TcpStream::connect(addr.as_str()))
                    .await
                    .map_err(|_| "timed out connecting".to_string())?
                    .map_err(|e| e.to_string())?;
            let _ = stream.set_nodelay(true);
            let (r, w) = stream.into_split();
            (Box::new(r), Box::new(w), Guard::None)
        }
        Endpoint::Serial { path, baud } => {
            let line = super::serial_line::check(path).map_err(OpenError::NotASerialLine)?;
            open_serial(&line, *baud)?
        }
        Endpoint::Qrexec { qube, service } => {
            let mut helper = std::process::Command::new("qrexec-client-vm");
            crate::speech_stand_in::other_program(&mut helper);
            let mut child = tokio::process::Command::from(helper)
                .arg(qube)
                .arg(service)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| format!("cannot run qrexec-client-vm ({e}); is this a Qubes qube?"))?;
            let r = child
                .stdout
                .take()
                .ok_or("no stdout from qrexec-client-vm")?;
            let w = child.stdin.take().ok_or("no stdin to qrexec-client-vm")?;
            (Box::new(r), Box::new(w), Guard::Child(child))
        }
    };
    Ok(Connection {
        link: Link::new(reader, writer),
        guard,
    })
}

/// Configures the line (speed, 8N1, raw) and opens it for async I/O. The
/// configured port stays open beside the stream so the settings hold.
fn open_serial(path: &std::path::Path, baud: u32) -> Result<(Reader, Writer, Guard), OpenError> {
    let path_str = path.to_str().ok_or("the device path is not UTF-8")?;
    let port = serialport::new(path_str, baud)
        .timeout(Duration::from_millis(100))
        .open_native()
        .map_err(|e| format!("cannot open {path_str}: {e}"))?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| format!("cannot open {path_str}: {e}"))?;
    let reader = SerialStream::new(file.try_clone().map_err(|e| e.to_string())?)?;
    let writer = SerialStream::new(file)?;
    Ok((Box::new(reader), Box::new(writer), Guard::Serial(port)))
}

/// A serial line read and written without blocking a thread: when the
/// link ends, nothing is left reading the line (a blocking read on a
/// thread would go on, and take the next link's answers).
struct SerialStream(tokio::io::unix::AsyncFd<std::fs::File>);

impl SerialStream {
    fn new(file: std::fs::File) -> Result<SerialStream, OpenError> {
        // SAFETY: the File owns its descriptor, open and unchanged until
        // the AsyncFd (which owns the File) is dropped.
        unsafe { tokio::io::unix::AsyncFd::register(file) }
            .map(SerialStream)
            .map_err(|e| OpenError::Failed(format!("cannot watch the serial line: {e}")))
    }
}

impl tokio::io::AsyncRead for SerialStream {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::io::Read as _;
        loop {
            let mut ready = std::task::ready!(self.0.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            match ready.try_io(|fd| fd.get_ref().read(unfilled)) {
                Ok(Ok(n)) => {
                    buf.advance(n);
                    return std::task::Poll::Ready(Ok(()));
                }
                Ok(Err(e)) => return std::task::Poll::Ready(Err(e)),
                Err(_would_block) => continue,
            }
        }
    }
}

impl tokio::io::AsyncWrite for SerialStream {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        data: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        use std::io::Write as _;
        loop {
            let mut ready = std::task::ready!(self.0.poll_write_ready(cx))?;
            match ready.try_io(|fd| fd.get_ref().write(data)) {
                Ok(result) => return std::task::Poll::Ready(result),
                Err(_would_block) => continue,
            }
        }
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_devices_may_carry_a_speed() {
        assert_eq!(
            serial_endpoint("/dev/ttyACM0").unwrap(),
            Endpoint::Serial {
                path: "/dev/ttyACM0".into(),
                baud: DEFAULT_BAUD
            }
        );
        assert_eq!(
            serial_endpoint("/dev/ttyUSB1@9600").unwrap(),
            Endpoint::Serial {
                path: "/dev/ttyUSB1".into(),
                baud: 9600
            }
        );
        assert!(serial_endpoint("/dev/x@fast").is_err());
        assert!(serial_endpoint("/dev/x@1234")
            .unwrap_err()
            .to_string()
            .contains("115200"));
        assert!(tcp_endpoint("127.0.0.1:99999")
            .unwrap_err()
            .to_string()
            .contains("bad port"));
        assert!(tcp_endpoint("127.0.0.1:0").is_err());
        assert!(tcp_endpoint(":80").is_err());
        assert_eq!(
            tcp_endpoint("[::1]:4000").unwrap(),
            Endpoint::Tcp("[::1]:4000".into())
        );
        assert_eq!(
            Endpoint::Tcp("127.0.0.1:9".into()).to_string(),
            "tcp:127.0.0.1:9"
        );
    }
}
