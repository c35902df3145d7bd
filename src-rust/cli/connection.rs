//! One WebSocket connection to a running browser's `/agent`.

use serde_json::{json, Value};
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
            let value = format!("Bearer {token}").parse().map_err(|_| {
                ConnectError::Refused("the token has characters a header cannot carry".into())
            })?;
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
    pub fn call(&mut self, tool: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"id": id, "tool": tool, "params": params}).to_string();
        self.socket
            .send(Message::text(message))
            .map_err(|e| format!("sending failed: {e}"))?;
        loop {
            let message = self
                .socket
                .read()
                .map_err(|e| format!("the browser closed the connection: {e}"))?;
            let Message::Text(text) = message else {
                continue;
            };
            let reply: Value = serde_json::from_str(text.as_str())
                .map_err(|e| format!("unreadable reply: {e}"))?;
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
