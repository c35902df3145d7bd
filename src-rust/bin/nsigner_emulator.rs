//! nsigner-emulator: a software stand-in for a hardware signer. It holds
//! keys and speaks the nsigner line protocol over a Unix socket, TCP, a
//! pseudo-terminal (as a serial device) or stdin/stdout (as a qrexec
//! service), so people and tests can use the nsigner login without a device.

use clap::Parser;
use nostr::{FromBech32, Keys, SecretKey};
use serialport::SerialPort;
use sovereign_browser::identity::nsigner::device::{request_name, Behaviour, Device};
use sovereign_browser::identity::nsigner::protocol::parse_request;
use std::io::{BufRead, BufReader, Write};
use std::sync::Arc;

/// Emulates an nsigner signing device (see docs/nsigner-protocol.md).
#[derive(Parser)]
#[command(name = "nsigner-emulator", version)]
struct Args {
    /// A key to hold (nsec or 64-hex); repeat for more. Index follows order.
    #[arg(long = "key")]
    keys: Vec<String>,
    /// Also hold N freshly generated keys.
    #[arg(long, default_value_t = 0)]
    generate: usize,
    /// Serve on this Unix socket path.
    #[arg(long)]
    unix: Option<std::path::PathBuf>,
    /// Serve on this TCP address (port 0 picks one).
    #[arg(long)]
    tcp: Option<String>,
    /// Serve on a new pseudo-terminal pair; prints the device to open.
    #[arg(long)]
    pty: bool,
    /// Serve one session on stdin/stdout (as a qrexec service does).
    #[arg(long)]
    stdio: bool,
    /// Refuse every signature, encryption and decryption after the login
    /// check, as a person would who logs in and then says no.
    #[arg(long)]
    reject: bool,
    /// Refuse the host's login check, as a person would who declines the login.
    #[arg(long)]
    reject_login: bool,
    /// Behave as a locked device (only `info` answers).
    #[arg(long)]
    locked: bool,
    /// Return signed events with a corrupted signature, after the login
    /// check (to test hosts).
    #[arg(long)]
    bad_signature: bool,
    /// TEST ONLY: report this public key (npub or hex) as the key at index
    /// 0 while signing with the key held there, as a fake device claiming
    /// someone else's key would (to test that hosts refuse it).
    #[arg(long, value_name = "PUBKEY")]
    claim: Option<String>,
    /// Never answer requests of this method, as a device whose person
    /// never confirms (or that hangs) would; repeat for more. The login
    /// check is named login_check here.
    #[arg(long = "silent-on")]
    silent_on: Vec<String>,
}

fn main() {
    let args = Args::parse();
    if let Err(e) = run(args) {
        eprintln!("nsigner-emulator: {e}");
        std::process::exit(1);
    }
}

fn parse_key(text: &str) -> Result<Keys, String> {
    let secret = if text.starts_with("nsec1") {
        SecretKey::from_bech32(text).map_err(|e| format!("bad nsec: {e}"))?
    } else {
        SecretKey::from_hex(text).map_err(|e| format!("bad hex key: {e}"))?
    };
    Ok(Keys::new(secret))
}

fn run(args: Args) -> Result<(), String> {
    let mut keys: Vec<Keys> = args
        .keys
        .iter()
        .map(|k| parse_key(k))
        .collect::<Result<_, _>>()?;
    keys.extend((0..args.generate).map(|_| Keys::generate()));
    if keys.is_empty() {
        keys.push(Keys::generate());
    }
    let claim = args
        .claim
        .as_deref()
        .map(|k| nostr::PublicKey::parse(k).map_err(|e| format!("bad --claim key: {e}")))
        .transpose()?;
    let behaviour = Behaviour {
        reject: args.reject,
        reject_login: args.reject_login,
        locked: args.locked,
        bad_signature: args.bad_signature,
        claim,
    };
    let device = Arc::new(Session {
        device: Device::new(keys, behaviour),
        silent_on: args.silent_on.clone(),
    });
    // With --stdio the stream is the protocol; announce on stderr instead.
    let announce = |line: String| {
        if args.stdio {
            eprintln!("{line}");
        } else {
            println!("{line}");
            let _ = std::io::stdout().flush();
        }
    };
    let listening = if let Some(path) = &args.unix {
        let _ = std::fs::remove_file(path);
        let listener = std::os::unix::net::UnixListener::bind(path).map_err(|e| e.to_string())?;
        accept_in_background(
            std::iter::repeat_with(move || listener.accept().map(|(s, _)| s)),
            |s| s.try_clone(),
            device.clone(),
        );
        format!("unix:{}", path.display())
    } else if let Some(addr) = &args.tcp {
        let listener = std::net::TcpListener::bind(addr).map_err(|e| e.to_string())?;
        let local = listener.local_addr().map_err(|e| e.to_string())?;
        accept_in_background(
            std::iter::repeat_with(move || listener.accept().map(|(s, _)| s)),
            |s| s.try_clone(),
            device.clone(),
        );
        format!("tcp:{local}")
    } else if args.pty {
        let (master, slave) = serialport::TTYPort::pair().map_err(|e| e.to_string())?;
        let name = slave.name().unwrap_or_default();
        let device = device.clone();
        std::thread::spawn(move || {
            // Keep the slave end open so the line stays up between host sessions.
            let _slave = slave;
            let reader = master.try_clone_native().expect("clone the pty");
            serve(&device, BufReader::new(PtyReader(reader)), master);
        });
        format!("pty:{name}")
    } else if args.stdio {
        announce("nsigner-emulator: listening on stdio".into());
        for (i, key) in device.public_keys().iter().enumerate() {
            announce(format!("nsigner-emulator: key {i} {}", key.to_hex()));
        }
        serve(&device, std::io::stdin().lock(), std::io::stdout());
        return Ok(());
    } else {
        return Err("choose where to serve: --unix PATH, --tcp ADDR, --pty or --stdio".into());
    };
    announce(format!("nsigner-emulator: listening on {listening}"));
    for (i, key) in device.public_keys().iter().enumerate() {
        announce(format!("nsigner-emulator: key {i} {}", key.to_hex()));
    }
    // Serve until killed.
    loop {
        std::thread::park();
    }
}

/// The device, and the methods it never answers.
struct Session {
    device: Device,
    silent_on: Vec<String>,
}

impl Session {
    fn public_keys(&self) -> Vec<nostr::PublicKey> {
        self.device.public_keys()
    }
}

/// Serves every connection of a listener, each on its own thread.
fn accept_in_background<S, I>(
    incoming: I,
    clone: fn(&S) -> std::io::Result<S>,
    device: Arc<Session>,
) where
    S: std::io::Read + Write + Send + 'static,
    I: Iterator<Item = std::io::Result<S>> + Send + 'static,
{
    std::thread::spawn(move || {
        for stream in incoming.flatten() {
            let device = device.clone();
            let Ok(reader) = clone(&stream) else { continue };
            std::thread::spawn(move || serve(&device, BufReader::new(reader), stream));
        }
    });
}

/// A pty read that times out is not the end of the session.
struct PtyReader(serialport::TTYPort);

impl std::io::Read for PtyReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => continue,
                other => return other,
            }
        }
    }
}

/// One session: a request line in, a response line out. Each request's
/// method goes to stderr, for tests that count what a host sends (a
/// login check as `login_check`).
fn serve(device: &Session, reader: impl BufRead, writer: impl Write) {
    eprintln!("nsigner-emulator: session opened");
    serve_lines(device, reader, writer);
    eprintln!("nsigner-emulator: session closed");
}

fn serve_lines(session: &Session, reader: impl BufRead, mut writer: impl Write) {
    for line in reader.lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let method = match parse_request(&line) {
            Ok(request) => request_name(&request).to_string(),
            Err(_) => serde_json::from_str::<serde_json::Value>(&line)
                .ok()
                .and_then(|v| v["method"].as_str().map(str::to_string))
                .unwrap_or_default(),
        };
        eprintln!(
            "nsigner-emulator: request {method} ({} bytes)",
            line.len() + 1
        );
        if session.silent_on.contains(&method) {
            continue;
        }
        let response = session.device.answer_line(&line);
        if writer
            .write_all(response.to_line().as_bytes())
            .and_then(|_| writer.flush())
            .is_err()
        {
            break;
        }
    }
}
