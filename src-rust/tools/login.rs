//! Logging in: from the login tool's parameters, or from a remembered
//! identity, to a signer; optionally remembering it for next time.

use crate::base::caller::Principal;
use crate::base::error::{ErrorCode, ToolError};
use crate::base::secret::SecretString;
use crate::identity::local::KeySigner;
use crate::identity::nip46::{self, Nip46Signer};
use crate::identity::nsigner::transport::{self, Endpoint};
use crate::identity::nsigner::{protocol, ConnectError, NsignerSigner};
use crate::identity::readonly::ReadonlySigner;
use crate::identity::remembered::{self, Remembered};
use crate::identity::{
    describe, seed, IdentityError, IdentityResult, IdentityState, Method, PendingLogin, Signer,
    SignerError,
};
use crate::tools::app::App;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;

// How the browser reaches a hardware signer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Serial,
    Unix,
    Tcp,
    Qrexec,
}

/// The login tool's arguments. The secrets among them wipe themselves when
/// dropped (also when reading the arguments fails partway).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginParams {
    /// Not needed with remembered.
    #[serde(default)]
    pub method: Option<Method>,
    /// nsec1... (local).
    #[serde(default)]
    pub nsec: Option<SecretString>,
    /// 64 hex (local).
    #[serde(default)]
    pub privkey_hex: Option<SecretString>,
    /// 12 or 24 BIP-39 words.
    #[serde(default)]
    pub mnemonic: Option<SecretString>,
    /// BIP-32 account (seed).
    #[serde(default)]
    #[schemars(extend("default" = 0))]
    pub account: Option<u32>,
    /// BIP-39 passphrase (seed).
    #[serde(default)]
    pub passphrase: Option<SecretString>,
    /// npub1... (readonly).
    #[serde(default)]
    pub npub: Option<String>,
    /// 64 hex (readonly).
    #[serde(default)]
    pub pubkey_hex: Option<String>,
    /// bunker://... (nip46).
    #[serde(default)]
    pub bunker_url: Option<SecretString>,
    /// How to reach the signer (nsigner).
    #[serde(default)]
    pub transport: Option<Transport>,
    /// Serial device, socket path, host:port or qube.
    #[serde(default)]
    pub device: Option<String>,
    /// The qrexec service (transport qrexec).
    #[serde(default)]
    #[schemars(extend("default" = "qubes.NsignerRpc"))]
    pub service: Option<String>,
    /// The signer's key slot.
    #[serde(default)]
    #[schemars(extend("default" = 0))]
    pub index: Option<u32>,
    /// Keep the identity across restarts (a private key needs password).
    #[serde(default)]
    pub remember: Option<bool>,
    /// Encrypts (remember) or unlocks (remembered) a key.
    #[serde(default)]
    pub password: Option<SecretString>,
    /// npub of a remembered identity.
    #[serde(default)]
    pub remembered: Option<String>,
}

impl LoginParams {
    /// Parameters with only the method set.
    fn for_method(method: Method) -> Self {
        LoginParams {
            method: Some(method),
            nsec: None,
            privkey_hex: None,
            mnemonic: None,
            account: None,
            passphrase: None,
            npub: None,
            pubkey_hex: None,
            bunker_url: None,
            transport: None,
            device: None,
            service: None,
            index: None,
            remember: None,
            password: None,
            remembered: None,
        }
    }
}

/// A field of the login form. With the login tool's schema this is the
/// whole declaration of the login form: the panel builds its fields from
/// both (`login_form`), and a call giving a field of another method is
/// refused by it. A new field is a field of [`LoginParams`], a row here
/// and its line in `is_given` (a unit test finds one forgotten).
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct FormField {
    pub name: &'static str,
    /// The method it belongs to; none: any method may take it.
    pub method: Option<Method>,
    /// Typed hidden in the panel, and emptied after every submit.
    pub secret: bool,
}

const fn field(name: &'static str, method: Method, secret: bool) -> FormField {
    FormField {
        name,
        method: Some(method),
        secret,
    }
}

/// The login form's fields: each method's own, in the order the panel
/// shows them, then those of every method (keeping the identity, and the
/// password that encrypts or unlocks its key). `method` picks the method
/// and `remembered` logs in a kept identity: the panel shows those apart.
pub const FORM_FIELDS: [FormField; 14] = [
    field("nsec", Method::Local, true),
    field("privkey_hex", Method::Local, true),
    field("mnemonic", Method::Seed, true),
    field("account", Method::Seed, false),
    field("passphrase", Method::Seed, true),
    field("npub", Method::Readonly, false),
    field("pubkey_hex", Method::Readonly, false),
    field("bunker_url", Method::Nip46, true),
    field("transport", Method::Nsigner, false),
    field("index", Method::Nsigner, false),
    field("device", Method::Nsigner, false),
    field("service", Method::Nsigner, false),
    FormField {
        name: "remember",
        method: None,
        secret: false,
    },
    FormField {
        name: "password",
        method: None,
        secret: true,
    },
];

impl LoginParams {
    fn is_given(&self, name: &str) -> bool {
        match name {
            "nsec" => self.nsec.is_some(),
            "privkey_hex" => self.privkey_hex.is_some(),
            "mnemonic" => self.mnemonic.is_some(),
            "account" => self.account.is_some(),
            "passphrase" => self.passphrase.is_some(),
            "npub" => self.npub.is_some(),
            "pubkey_hex" => self.pubkey_hex.is_some(),
            "bunker_url" => self.bunker_url.is_some(),
            "transport" => self.transport.is_some(),
            "device" => self.device.is_some(),
            "service" => self.service.is_some(),
            "index" => self.index.is_some(),
            _ => false,
        }
    }

    /// The method asked for; only a remembered identity needs none.
    fn method(&self) -> Result<Method, ToolError> {
        self.method.ok_or_else(|| {
            bad(
                "method",
                "required: local, seed, readonly, nip46 or nsigner (or give remembered)",
            )
        })
    }

    /// The method-specific fields given, each with the method it belongs to.
    fn method_fields(&self) -> Vec<(&'static str, Method)> {
        FORM_FIELDS
            .iter()
            .filter_map(|f| Some((f.name, f.method?)))
            .filter(|(name, _)| self.is_given(name))
            .collect()
    }

    /// Refuses a call that could mean two things: fields of another method
    /// (which one did the caller mean?), method fields beside remembered,
    /// or a password nothing uses. Nothing given is ever silently ignored.
    fn check_unambiguous(&self) -> Result<(), ToolError> {
        let fields = self.method_fields();
        if self.remembered.is_some() {
            if let Some((name, _)) = fields.first() {
                return Err(bad(
                    name,
                    format!("remembered and {name}: a remembered identity logs in with what was stored; give one or the other"),
                ));
            }
            return Ok(());
        }
        let method = self.method()?;
        if let Some((foreign, owner)) = fields.iter().find(|(_, owner)| *owner != method) {
            let own: Vec<&str> = fields
                .iter()
                .filter(|(_, o)| *o == method)
                .map(|(name, _)| *name)
                .collect();
            let why = match own.first() {
                Some(own) => format!(
                    "{own} and {foreign}: {foreign} belongs to method {}, not {}; give the fields of one method",
                    owner.as_str(),
                    method.as_str()
                ),
                None => format!(
                    "{foreign} belongs to method {}, not {}",
                    owner.as_str(),
                    method.as_str()
                ),
            };
            return Err(bad(foreign, why));
        }
        if self.password.is_some() && self.remember != Some(true) {
            return Err(bad(
                "password",
                "only used with remember (to encrypt the key) or remembered (to unlock it)",
            ));
        }
        Ok(())
    }
}

fn bad(field: &str, why: impl std::fmt::Display) -> ToolError {
    ToolError::invalid_field(field, why)
}

/// Logs in (switching: after releasing the current signer, so a failure
/// leaves the browser logged out, never half-switched). `by` decides what
/// a remember may do (see [`remember_entry`]).
pub async fn login(
    app: &Arc<App>,
    identity: &Arc<IdentityState>,
    mut p: LoginParams,
    switching: bool,
    by: Principal,
) -> Result<Value, ToolError> {
    p.check_unambiguous()?;
    if switching {
        identity.set(None);
    }
    if let Some(key) = p.remembered.take() {
        p = from_remembered(app, &key, p).await?;
    }
    let method = p.method()?;
    let remember = p.remember == Some(true);
    if remember && matches!(method, Method::Local | Method::Seed) && p.password.is_none() {
        return Err(bad(
            "password",
            "required to remember a private key (it is only stored encrypted, NIP-49)",
        ));
    }
    let (signer, entry): (Arc<dyn Signer>, Option<Remembered>) = match method {
        Method::Local | Method::Seed => {
            let signer = key_signer(&p, method)?;
            let entry = match remember {
                true => Some(key_entry(&p, method, &signer).await?),
                false => None,
            };
            (Arc::new(signer), entry)
        }
        Method::Readonly => {
            let signer = readonly_signer(&p)?;
            let entry = remember.then(|| base_entry(method, &signer));
            (Arc::new(signer), entry)
        }
        Method::Nsigner => {
            let signer = nsigner_signer(&p).await?;
            let entry = remember.then(|| nsigner_entry(&p, &signer));
            (Arc::new(signer), entry)
        }
        Method::Nip46 => match nip46_signer(app, identity, &p, remember, by).await? {
            Nip46Outcome::Ready(signer, entry) => (signer, entry),
            Nip46Outcome::AwaitingApproval(answer) => return Ok(answer),
        },
    };
    let mut status = describe(signer.as_ref());
    if let Some(entry) = entry {
        let saved = remember_entry(app, by, entry)?;
        status["remembered"] = saved.into();
        if !saved {
            status["not_remembered"] = NOT_REPLACED.into();
        }
    }
    identity.set(Some(signer));
    tracing::info!(method = method.as_str(), "identity logged in");
    Ok(status)
}

/// Why an agent's remember saved nothing.
const NOT_REPLACED: &str = "an identity with this public key is remembered already; only the person replaces or changes it, in the control panel";

/// Stores a remembered identity: the person's replaces what was stored for
/// that key and method; an agent's never replaces or changes anything
/// stored for that key, by any method. Whether it was saved.
fn remember_entry(app: &App, by: Principal, entry: Remembered) -> IdentityResult<bool> {
    match by {
        Principal::Person => app.remembered.save(entry).map(|()| true),
        Principal::Agent => app.remembered.save_new(entry),
    }
}

/// The parameters a remembered identity stands for (and the password given now).
async fn from_remembered(
    app: &App,
    key: &str,
    given: LoginParams,
) -> Result<LoginParams, ToolError> {
    let entry = app.remembered.find(key).ok_or_else(|| {
        bad(
            "remembered",
            format!("no remembered identity {key} in this profile; the person remembers identities in the control panel (or log in with remember: true)"),
        )
    })?;
    if given.method.is_some_and(|method| method != entry.method) {
        return Err(bad(
            "remembered",
            format!(
                "that identity logs in with method {}",
                entry.method.as_str()
            ),
        ));
    }
    let mut p = LoginParams::for_method(entry.method);
    match entry.method {
        Method::Local | Method::Seed => {
            let ncryptsec = entry
                .ncryptsec
                .as_deref()
                .ok_or_else(|| bad("remembered", "no key was stored for it"))?;
            let password = given
                .password
                .as_deref()
                .ok_or_else(|| bad("password", "required to unlock the remembered key"))?;
            let secret = unlock(app, &entry.npub, ncryptsec, password).await?;
            p.privkey_hex = Some(secret.to_secret_hex().into());
        }
        Method::Readonly => p.npub = Some(entry.npub.clone()),
        Method::Nip46 => p.bunker_url = entry.bunker_url.clone().map(SecretString::from),
        Method::Nsigner => {
            p.transport = entry
                .transport
                .as_deref()
                .and_then(|t| serde_json::from_value(json!(t)).ok());
            p.device = entry.device.clone();
            p.service = entry.service.clone();
            p.index = entry.index;
        }
    }
    // A seed identity comes back as its derived key, still called seed.
    if entry.method == Method::Seed {
        p.account = entry.account;
    }
    Ok(p)
}

/// Decrypts a remembered key, off the server's threads (scrypt takes a
/// fraction of a second and 64 MiB), and slows down guessing.
async fn unlock(
    app: &App,
    npub: &str,
    ncryptsec: &str,
    password: &str,
) -> Result<nostr::SecretKey, ToolError> {
    use crate::identity::unlock::Refused;
    let unlocks = &app.remembered.unlocks;
    match unlocks.begin(npub, std::time::Instant::now()) {
        Ok(()) => {}
        Err(Refused::Wait(wait)) => {
            return Err(bad(
                "password",
                format!(
                    "too many wrong passwords for this identity; try again in {} s",
                    wait.as_secs_f64().ceil() as u64
                ),
            ))
        }
        Err(Refused::Busy) => {
            return Err(bad(
                "password",
                "this identity is being unlocked already; try again when that ends",
            ))
        }
    }
    let ncryptsec = ncryptsec.to_string();
    let password = zeroize::Zeroizing::new(password.to_string());
    let decrypted =
        tokio::task::spawn_blocking(move || remembered::decrypt_key(&ncryptsec, &password)).await;
    let decrypted =
        decrypted.unwrap_or_else(|e| Err(IdentityError::Store(format!("the unlock failed ({e})"))));
    unlocks.end(npub, decrypted.is_ok(), std::time::Instant::now());
    decrypted.map_err(|e| e.at("password"))
}

fn key_signer(p: &LoginParams, method: Method) -> Result<KeySigner, ToolError> {
    if method == Method::Seed && p.privkey_hex.is_none() {
        let words = p
            .mnemonic
            .as_deref()
            .ok_or_else(|| bad("mnemonic", "required for method seed (12 or 24 words)"))?;
        return seed::from_mnemonic(words, p.passphrase.as_deref(), p.account.unwrap_or(0))
            .map_err(|e| e.at("mnemonic"));
    }
    let signer = match (&p.nsec, &p.privkey_hex) {
        (Some(nsec), None) => KeySigner::from_nsec(nsec).map_err(|e| e.at("nsec"))?,
        (None, Some(hex)) => KeySigner::from_hex(hex).map_err(|e| e.at("privkey_hex"))?,
        _ => {
            return Err(ToolError::invalid_params(
                "method local needs exactly one of nsec or privkey_hex",
            ))
        }
    };
    Ok(signer.with_method(method))
}

fn readonly_signer(p: &LoginParams) -> Result<ReadonlySigner, ToolError> {
    match (&p.npub, &p.pubkey_hex) {
        (Some(npub), None) => ReadonlySigner::from_npub(npub).map_err(|e| e.at("npub")),
        (None, Some(hex)) => ReadonlySigner::from_hex(hex).map_err(|e| e.at("pubkey_hex")),
        _ => Err(ToolError::invalid_params(
            "method readonly needs exactly one of npub or pubkey_hex",
        )),
    }
}

fn base_entry(method: Method, signer: &dyn Signer) -> Remembered {
    Remembered::new(method, &signer.public_key())
}

async fn key_entry(
    p: &LoginParams,
    method: Method,
    signer: &KeySigner,
) -> Result<Remembered, ToolError> {
    let password = p.password.as_deref().unwrap_or_default();
    let mut entry = base_entry(method, signer);
    let encrypted = signer.encrypt(password).await;
    entry.ncryptsec = Some(encrypted.map_err(|e| e.at("password"))?);
    entry.account = (method == Method::Seed).then(|| p.account.unwrap_or(0));
    Ok(entry)
}

fn nsigner_entry(p: &LoginParams, signer: &NsignerSigner) -> Remembered {
    let mut entry = base_entry(Method::Nsigner, signer);
    entry.transport = p
        .transport
        .and_then(|t| serde_json::to_value(t).ok())
        .and_then(|v| v.as_str().map(String::from));
    entry.device = p.device.clone();
    entry.service = p.service.clone();
    entry.index = Some(p.index.unwrap_or(0));
    entry
}

/// Where the device is, from transport / device / service.
fn nsigner_endpoint(p: &LoginParams) -> Result<Endpoint, ToolError> {
    let transport = p.transport.ok_or_else(|| {
        bad(
            "transport",
            "required for method nsigner (serial, unix, tcp or qrexec)",
        )
    })?;
    let device = p.device.as_deref().map(str::trim).filter(|d| !d.is_empty()).ok_or_else(|| {
        bad("device", "required for method nsigner (a serial device path, a socket path, host:port or a qube name)")
    })?;
    Ok(match transport {
        Transport::Serial => transport::serial_endpoint(device).map_err(|e| e.at("device"))?,
        Transport::Unix => Endpoint::Unix(device.into()),
        Transport::Tcp => transport::tcp_endpoint(device).map_err(|e| e.at("device"))?,
        Transport::Qrexec => Endpoint::Qrexec {
            qube: device.to_string(),
            service: p
                .service
                .clone()
                .unwrap_or_else(|| protocol::DEFAULT_QREXEC_SERVICE.to_string()),
        },
    })
}

async fn nsigner_signer(p: &LoginParams) -> Result<NsignerSigner, ToolError> {
    let endpoint = nsigner_endpoint(p)?;
    NsignerSigner::connect(endpoint, p.index.unwrap_or(0))
        .await
        .map_err(|e| match e {
            ConnectError::NoSuchKey(why) => bad("index", why),
            ConnectError::NotASerialLine(why) => bad("device", why),
            ConnectError::Rejected(why) => ToolError::new(ErrorCode::SignerRejected, why),
            ConnectError::Unreachable(why) => ToolError::new(ErrorCode::SignerUnavailable, why),
        })
}

enum Nip46Outcome {
    Ready(Arc<dyn Signer>, Option<Remembered>),
    /// The bunker asked for approval at an auth_url; login goes on in the background.
    AwaitingApproval(Value),
}

/// Connects to the bunker. When it answers with an auth_url first, the
/// caller gets that URL at once and the login completes in the background
/// once the person approves (login_status shows it).
async fn nip46_signer(
    app: &Arc<App>,
    identity: &Arc<IdentityState>,
    p: &LoginParams,
    remember: bool,
    by: Principal,
) -> Result<Nip46Outcome, ToolError> {
    let url = p
        .bunker_url
        .as_deref()
        .ok_or_else(|| bad("bunker_url", "required for method nip46 (bunker://...)"))?;
    let uri = nip46::parse_bunker_url(url).map_err(|e| e.at("bunker_url"))?;
    let relays = uri
        .relays()
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let public_url = nip46::without_secret(&uri);
    let challenge = identity.auth_challenge();
    let mut asked = challenge.subscribe();
    let generation = identity.begin_pending(PendingLogin {
        method: Method::Nip46,
        challenge: challenge.clone(),
    });
    let mut task = tokio::spawn(Nip46Signer::connect(
        uri,
        challenge.clone(),
        nip46::REQUEST_TIMEOUT,
    ));
    let entry_for = move |signer: &dyn Signer| {
        remember.then(|| {
            let mut entry = base_entry(Method::Nip46, signer);
            entry.bunker_url = Some(public_url.clone());
            entry
        })
    };
    tokio::select! {
        joined = &mut task => {
            let signer = joined.map_err(|e| ToolError::internal(e.to_string()))?.map_err(|e| {
                identity.finish_pending(generation, None);
                signer_error(e)
            })?;
            let entry = entry_for(&signer);
            Ok(Nip46Outcome::Ready(Arc::new(signer), entry))
        }
        _ = asked.changed() => {
            let auth_url = challenge.current();
            let (app, identity) = (app.clone(), identity.clone());
            tokio::spawn(async move {
                let Some(signer) = task.await.ok().and_then(Result::ok) else {
                    identity.finish_pending(generation, None);
                    return;
                };
                let entry = entry_for(&signer);
                if identity.finish_pending(generation, Some(Arc::new(signer))) {
                    tracing::info!("NIP-46 login finished after approval");
                    if let Some(entry) = entry {
                        let _ = remember_entry(&app, by, entry);
                    }
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
            identity.finish_pending(generation, None);
            Err(ToolError::new(ErrorCode::SignerUnavailable, format!(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn params(value: Value) -> LoginParams {
        serde_json::from_value(value).unwrap()
    }

    fn refusal(value: Value) -> ToolError {
        params(value).check_unambiguous().unwrap_err()
    }

    // The panel's login form is made from FORM_FIELDS and the schema: a
    // field added to LoginParams alone would be missing from it.
    #[test]
    fn the_form_declares_every_login_field_and_each_is_seen_given() {
        let schema = crate::tools::schema::for_params::<LoginParams>();
        let properties = schema["properties"].as_object().unwrap();
        let declared: Vec<&str> = FORM_FIELDS.iter().map(|f| f.name).collect();
        for name in properties.keys() {
            let apart = ["method", "remembered"].contains(&name.as_str());
            assert!(
                apart || declared.contains(&name.as_str()),
                "{name} is not in FORM_FIELDS"
            );
        }
        let mut every = serde_json::Map::new();
        every.insert("method".into(), json!("local"));
        for f in FORM_FIELDS.iter().filter(|f| f.method.is_some()) {
            let value = match properties[f.name]["type"].as_str() {
                Some("integer") => json!(1),
                _ if f.name == "transport" => json!("serial"),
                _ => json!("x"),
            };
            every.insert(f.name.into(), value);
        }
        let given = params(Value::Object(every)).method_fields();
        assert_eq!(given.len(), 12, "is_given misses a field: {given:?}");
    }

    #[test]
    fn fields_of_another_method_are_refused_naming_both() {
        let e = refusal(json!({"method": "seed", "mnemonic": "abandon", "privkey_hex": "00"}));
        assert_eq!(e.code, ErrorCode::InvalidParams);
        assert_eq!(e.field.as_deref(), Some("privkey_hex"));
        assert!(
            e.message.contains("mnemonic and privkey_hex"),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("method local, not seed"),
            "{}",
            e.message
        );

        let e = refusal(json!({"method": "local", "nsec": "nsec1x", "bunker_url": "bunker://x"}));
        assert_eq!(e.field.as_deref(), Some("bunker_url"));
        assert!(e.message.contains("nsec and bunker_url"), "{}", e.message);

        let e = refusal(json!({"method": "readonly", "device": "/dev/ttyACM0"}));
        assert_eq!(e.field.as_deref(), Some("device"));
        assert!(
            e.message.contains("method nsigner, not readonly"),
            "{}",
            e.message
        );
    }

    #[test]
    fn remembered_takes_no_method_fields_and_password_needs_a_use() {
        let e = refusal(json!({"method": "local", "remembered": "npub1x", "nsec": "nsec1x"}));
        assert_eq!(e.field.as_deref(), Some("nsec"));
        let e = refusal(json!({"method": "local", "nsec": "nsec1x", "password": "pw"}));
        assert_eq!(e.field.as_deref(), Some("password"));
    }

    #[test]
    fn each_method_with_its_own_fields_passes() {
        for ok in [
            json!({"method": "local", "nsec": "nsec1x"}),
            json!({"method": "local", "privkey_hex": "00", "remember": true, "password": "pw"}),
            json!({"method": "seed", "mnemonic": "abandon", "account": 1, "passphrase": "p"}),
            json!({"method": "readonly", "npub": "npub1x"}),
            json!({"method": "nip46", "bunker_url": "bunker://x"}),
            json!({"method": "nsigner", "transport": "tcp", "device": "h:1", "index": 2}),
            json!({"method": "seed", "remembered": "npub1x", "password": "pw"}),
        ] {
            let p = params(ok.clone());
            assert!(p.check_unambiguous().is_ok(), "{ok}");
        }
    }
}
