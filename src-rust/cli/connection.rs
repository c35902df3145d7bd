//! One WebSocket connection to a running browser's `/agent`. The token
//! is never sent: the server first proves it holds it (`/api/hello`), and
//! the connection then carries a proof over the server's nonce
//! (`base::proof`), so whatever listens on the port instead gets nothing.

use super::error::CliError;
use crate::base::proof;
use serde_json::{json, Value};
use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::Duration;
use tungstenite::client::IntoClientRequest;
use tungstenite::{Message, WebSocket};

pub struct Connection {
    socket: WebSocket<TcpStream>,
    next_id: u64,
}

/// Why no connection was made.
pub enum ConnectError {
    /// Nothing listens there.
    Unreachable(String),
    /// The browser answered 401: the token is wrong or missing.
    TokenRefused,
    /// Something answered, but not as the browser does.
    Refused(String),
    /// What listens did not prove it holds the token: nothing was sent.
    Unproven(String),
}

/// Most of a hello's answer read.
const HELLO_MAX: u64 = 16 * 1024;

/// The server's nonce, once the server proved it holds `token`.
fn proven_nonce(addr: &str, token: &str) -> Result<String, ConnectError> {
    let mine = crate::profile::random_hex(16);
    let mut stream =
        TcpStream::connect(addr).map_err(|e| ConnectError::Unreachable(e.to_string()))?;
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let ask = format!(
        "GET /api/hello?for=agents&nonce={mine} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(ask.as_bytes())
        .map_err(|e| ConnectError::Unreachable(e.to_string()))?;
    let mut answer = Vec::new();
    stream
        .take(HELLO_MAX)
        .read_to_end(&mut answer)
        .map_err(|e| ConnectError::Unreachable(e.to_string()))?;
    let unproven = |why: &str| ConnectError::Unproven(why.to_string());
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| unproven("it gave no HTTP answer"))?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(unproven(head.lines().next().unwrap_or_default()));
    }
    let said: Value = serde_json::from_str(body.trim()).map_err(|_| unproven("no hello"))?;
    let field = |name: &str| said[name].as_str().unwrap_or_default().to_string();
    let (nonce, instance, given) = (field("nonce"), field("instance"), field("proof"));
    let expected = proof::server_proof(token, &mine, &nonce, &instance);
    if nonce.is_empty() || !crate::base::secret::same(&given, &expected) {
        return Err(unproven("its proof does not match this token"));
    }
    Ok(nonce)
}

impl Connection {
    pub fn open(addr: &str, token: Option<&str>) -> Result<Connection, ConnectError> {
        let stream =
            TcpStream::connect(addr).map_err(|e| ConnectError::Unreachable(e.to_string()))?;
        // Tools have their own time limits; this only guards against a hung server.
        let _ = stream.set_read_timeout(Some(Duration::from_secs(660)));
        let _ = stream.set_nodelay(true);
        let mut request = format!("ws://{addr}/agent")
            .into_client_request()
            .map_err(|e| ConnectError::Refused(e.to_string()))?;
        if let Some(token) = token {
            let nonce = proven_nonce(addr, token)?;
            let proof = proof::client_proof(token, &nonce);
            let value = format!("Proof {nonce} {proof}")
                .parse()
                .map_err(|_| ConnectError::Refused("an unreadable nonce".into()))?;
            request.headers_mut().insert("Authorization", value);
        }
        let (socket, _) =
            tungstenite::client(request, stream).map_err(|e| match e {
                tungstenite::handshake::HandshakeError::Failure(tungstenite::Error::Http(
                    response,
                )) if response.status() == 401 => ConnectError::TokenRefused,
                tungstenite::handshake::HandshakeError::Failure(tungstenite::Error::Http(
                    response,
                )) => ConnectError::Refused(format!("the server answered {}", response.status())),
                other => ConnectError::Refused(other.to_string()),
            })?;
        Ok(Connection { socket, next_id: 1 })
    }

    /// Runs one tool; gives the `{ok, result | error}` reply.
    pub fn call(&mut self, tool: &str, params: Value) -> Result<Value, CliError> {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"id": id, "tool": tool, "params": params}).to_string();
        self.socket
            .send(Message::text(message))
            .map_err(|e| CliError::SendFailed { why: e.to_string() })?;
        loop {
            let message = self
                .socket
                .read()
                .map_err(|e| CliError::Closed { why: e.to_string() })?;
            let Message::Text(text) = message else {
                continue;
            };
            let reply: Value = serde_json::from_str(text.as_str())
                .map_err(|e| CliError::UnreadableReply { why: e.to_string() })?;
            if reply["id"] == id {
                return Ok(reply);
            }
        }
    }

    pub fn close(mut self) {
        let _ = self.socket.close(None);
        let _ = self.socket.flush();
    }
}
