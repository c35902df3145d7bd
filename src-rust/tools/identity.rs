//! login_status, login, logout, switch_identity: the identity gate.

use super::error::{ErrorCode, ToolError};
use super::{tool, Ctx, ToolDef, ToolOutput, ToolResult, ACTION, READ_ONLY};
use crate::identity::local::KeySigner;
use crate::identity::nip46::{self, Nip46Signer};
use crate::identity::nsigner::transport::{self, Endpoint};
use crate::identity::nsigner::{protocol, ConnectError, NsignerSigner};
use crate::identity::readonly::ReadonlySigner;
use crate::identity::{describe, seed, Method, PendingLogin, Signer, SignerError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use zeroize::Zeroize;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tool(
            "login_status",
            "Whether an identity is logged in; gives method, pubkey (hex) and npub. Never returns secrets.",
            READ_ONLY,
            |ctx: Ctx, _: NoParams| async move {
                Ok(ToolOutput::json(ctx.app.identity.status().await))
            },
        )
        .ungated(),
        tool(
            "login",
            "Log in with a Nostr identity; browser tools refuse to work until you do. Methods: local (nsec or privkey_hex), seed (BIP-39 mnemonic + account), readonly (npub or pubkey_hex), nip46 (bunker_url), nsigner (hardware signer: transport, device, index).",
            ACTION,
            |ctx: Ctx, p: LoginParams| async move { login(&ctx, p, false).await },
        )
        .ungated(),
        tool(
            "logout",
            "Log out and forget the current identity; browser tools stop working until the next login.",
            ACTION,
            |ctx: Ctx, _: NoParams| async move {
                ctx.app.identity.set(None);
                Ok(ToolOutput::json(ctx.app.identity.status().await))
            },
        )
        .ungated(),
        tool(
            "switch_identity",
            "Switch to another Nostr identity (same parameters as login). Releases the old signer first; if the new login fails you are logged out.",
            ACTION,
            |ctx: Ctx, p: LoginParams| async move { login(&ctx, p, true).await },
        )
        .ungated(),
    ]
}

/// Tools without parameters.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// Hardware signer link.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Serial,
    Unix,
    Tcp,
    Qrexec,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginParams {
    /// Login method.
    method: Method,
    /// nsec1... private key (local).
    #[serde(default)]
    nsec: Option<String>,
    /// 64-hex private key (local).
    #[serde(default)]
    privkey_hex: Option<String>,
    /// 12 or 24 BIP-39 words (seed).
    #[serde(default)]
    mnemonic: Option<String>,
    /// Account index, default 0 (seed).
    #[serde(default)]
    account: Option<u32>,
    /// Optional BIP-39 passphrase (seed).
    #[serde(default)]
    passphrase: Option<String>,
    /// npub1... public key (readonly).
    #[serde(default)]
    npub: Option<String>,
    /// 64-hex public key (readonly).
    #[serde(default)]
    pubkey_hex: Option<String>,
    /// bunker://... URL (nip46).
    #[serde(default)]
    bunker_url: Option<String>,
    /// Link to the signer (nsigner).
    #[serde(default)]
    transport: Option<Transport>,
    /// Device path, socket path, host:port or qube name (nsigner).
    #[serde(default)]
    device: Option<String>,
    /// Qrexec service, default qubes.NsignerRpc (nsigner).
    #[serde(default)]
    service: Option<String>,
    /// Key index on the device, default 0 (nsigner).
    #[serde(default)]
    index: Option<u32>,
}

impl Drop for LoginParams {
    fn drop(&mut self) {
        self.nsec.zeroize();
        self.privkey_hex.zeroize();
        self.mnemonic.zeroize();
        self.passphrase.zeroize();
        self.bunker_url.zeroize();
    }
}

async fn login(ctx: &Ctx, p: LoginParams, switching: bool) -> ToolResult {
    if switching {
        // Release the old signer before anything else; a failed login below
        // leaves the browser logged out, never half-switched.
        ctx.app.identity.set(None);
    }
    let signer = match p.method {
        Method::Nsigner => nsigner_signer(&p).await?,
        Method::Nip46 => match nip46_signer(ctx, &p).await? {
            Nip46Outcome::Ready(signer) => signer,
            Nip46Outcome::AwaitingApproval(answer) => return Ok(ToolOutput::json(answer)),
        },
        _ => signer_for(&p)?,
    };
    let status = describe(signer.as_ref());
    ctx.app.identity.set(Some(signer));
    tracing::info!(method = p.method.as_str(), "identity logged in");
    Ok(ToolOutput::json(status))
}

fn signer_for(p: &LoginParams) -> Result<Arc<dyn Signer>, ToolError> {
    let bad = |field: &str, why: String| ToolError::invalid_params(format!("{field}: {why}"));
    match p.method {
        Method::Local => match (&p.nsec, &p.privkey_hex) {
            (Some(nsec), None) => Ok(Arc::new(
                KeySigner::from_nsec(nsec).map_err(|e| bad("nsec", e))?,
            )),
            (None, Some(hex)) => Ok(Arc::new(
                KeySigner::from_hex(hex).map_err(|e| bad("privkey_hex", e))?,
            )),
            _ => Err(ToolError::invalid_params(
                "method local needs exactly one of nsec or privkey_hex",
            )),
        },
        Method::Readonly => match (&p.npub, &p.pubkey_hex) {
            (Some(npub), None) => Ok(Arc::new(
                ReadonlySigner::from_npub(npub).map_err(|e| bad("npub", e))?,
            )),
            (None, Some(hex)) => Ok(Arc::new(
                ReadonlySigner::from_hex(hex).map_err(|e| bad("pubkey_hex", e))?,
            )),
            _ => Err(ToolError::invalid_params(
                "method readonly needs exactly one of npub or pubkey_hex",
            )),
        },
        Method::Seed => {
            let words = p.mnemonic.as_deref().ok_or_else(|| {
                ToolError::invalid_params("method seed needs mnemonic (12 or 24 words)")
            })?;
            let signer =
                seed::from_mnemonic(words, p.passphrase.as_deref(), p.account.unwrap_or(0))
                    .map_err(|e| bad("mnemonic", e))?;
            Ok(Arc::new(signer))
        }
        Method::Nsigner | Method::Nip46 => {
            Err(ToolError::internal("remote signers connect asynchronously"))
        }
    }
}

/// Where the device is, from transport / device / service.
fn nsigner_endpoint(p: &LoginParams) -> Result<Endpoint, ToolError> {
    let transport = p.transport.ok_or_else(|| {
        ToolError::invalid_params(
            "transport: required for method nsigner (serial, unix, tcp or qrexec)",
        )
    })?;
    let device = p.device.as_deref().map(str::trim).filter(|d| !d.is_empty()).ok_or_else(|| {
        ToolError::invalid_params(
            "device: required for method nsigner (a serial device path, a socket path, host:port or a qube name)",
        )
    })?;
    Ok(match transport {
        Transport::Serial => transport::serial_endpoint(device)
            .map_err(|e| ToolError::invalid_params(format!("device: {e}")))?,
        Transport::Unix => Endpoint::Unix(device.into()),
        Transport::Tcp => {
            if !device.contains(':') {
                return Err(ToolError::invalid_params("device: tcp needs host:port"));
            }
            Endpoint::Tcp(device.to_string())
        }
        Transport::Qrexec => Endpoint::Qrexec {
            qube: device.to_string(),
            service: p
                .service
                .clone()
                .unwrap_or_else(|| protocol::DEFAULT_QREXEC_SERVICE.to_string()),
        },
    })
}

async fn nsigner_signer(p: &LoginParams) -> Result<Arc<dyn Signer>, ToolError> {
    let endpoint = nsigner_endpoint(p)?;
    match NsignerSigner::connect(endpoint, p.index.unwrap_or(0)).await {
        Ok(signer) => Ok(Arc::new(signer)),
        Err(ConnectError::NoSuchKey(why)) => {
            Err(ToolError::invalid_params(format!("index: {why}")))
        }
        Err(ConnectError::Rejected(why)) => Err(ToolError::new(ErrorCode::SignerRejected, why)),
        Err(ConnectError::Unreachable(why)) => {
            Err(ToolError::new(ErrorCode::SignerUnavailable, why))
        }
    }
}

enum Nip46Outcome {
    Ready(Arc<dyn Signer>),
    /// The bunker asked for approval at an auth_url; login goes on in the background.
    AwaitingApproval(serde_json::Value),
}

/// Connects to the bunker. When it answers with an auth_url first, the
/// caller gets that URL at once and the login completes in the background
/// once the person approves (login_status shows it).
async fn nip46_signer(ctx: &Ctx, p: &LoginParams) -> Result<Nip46Outcome, ToolError> {
    let url = p.bunker_url.as_deref().ok_or_else(|| {
        ToolError::invalid_params("bunker_url: required for method nip46 (bunker://...)")
    })?;
    let uri = nip46::parse_bunker_url(url)
        .map_err(|e| ToolError::invalid_params(format!("bunker_url: {e}")))?;
    let relays = uri
        .relays()
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let challenge = nip46::AuthChallenge::default();
    let client = Nip46Signer::client(uri, &challenge, nip46::REQUEST_TIMEOUT)
        .map_err(|e| ToolError::invalid_params(format!("bunker_url: {e}")))?;
    let mut asked = challenge.subscribe();
    let generation = ctx.app.identity.begin_pending(PendingLogin {
        method: Method::Nip46,
        challenge: challenge.clone(),
    });
    let mut task = tokio::spawn(Nip46Signer::connect(client, challenge.clone()));
    let unavailable = |why: String| ToolError::new(ErrorCode::SignerUnavailable, why);
    tokio::select! {
        joined = &mut task => {
            let signer = joined.map_err(|e| ToolError::internal(e.to_string()))?.map_err(|e| {
                ctx.app.identity.finish_pending(generation, None);
                signer_error(e)
            })?;
            Ok(Nip46Outcome::Ready(Arc::new(signer)))
        }
        _ = asked.changed() => {
            let auth_url = challenge.current();
            let app = ctx.app.clone();
            tokio::spawn(async move {
                let signer = task.await.ok().and_then(Result::ok).map(|s| Arc::new(s) as Arc<dyn Signer>);
                if app.identity.finish_pending(generation, signer) {
                    tracing::info!("NIP-46 login finished after approval");
                }
            });
            Ok(Nip46Outcome::AwaitingApproval(json!({
                "logged_in": false,
                "pending": {"method": "nip46", "auth_url": auth_url},
                "message": "the bunker asks for approval: open auth_url; login_status shows when the login completes",
            })))
        }
        _ = tokio::time::sleep(nip46::LOGIN_TIMEOUT) => {
            task.abort();
            ctx.app.identity.finish_pending(generation, None);
            Err(unavailable(format!(
                "the bunker did not answer within {} s (relays: {relays}); is it running and connected?",
                nip46::LOGIN_TIMEOUT.as_secs()
            )))
        }
    }
}

fn signer_error(error: SignerError) -> ToolError {
    match error {
        SignerError::Unavailable(why) => ToolError::new(ErrorCode::SignerUnavailable, why),
        SignerError::Rejected(why) => ToolError::new(ErrorCode::SignerRejected, why),
        SignerError::BadInput(why) => ToolError::invalid_params(why),
    }
}
