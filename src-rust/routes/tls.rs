//! TLS for https through the routing proxy. Toward the engine: a
//! certificate per site, made for this run and accepted by that context's
//! engine for that site alone (never a CA anything else trusts). Toward
//! the site: TLS verified against the system's roots (`SSL_CERT_FILE`
//! names other roots), as the engine would verify it.

use crate::base::error::ToolError;
use rustls_pki_types::pem::PemObject as _;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tokio_rustls::rustls::{self, ClientConfig, RootCertStore, ServerConfig};

/// Sites' certificates kept at most; past it they are made again.
const KEPT: usize = 1000;
/// Where Debian and Ubuntu keep the system's roots.
const SYSTEM_ROOTS: &str = "/etc/ssl/certs/ca-certificates.crt";

/// Why TLS through the proxy cannot be done: its certificates could not
/// be made (https then passes through as it is), the roots to verify
/// sites against could not be read (https requests then fail), or a
/// context's engine was not made to accept a site's certificate (that
/// site's `CONNECT` is then dropped).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TlsError {
    #[error("cannot make a site certificate: {0}")]
    Certificate(String),
    #[error("{0}")]
    Roots(String),
    /// The browser has not said how its engines accept a certificate.
    #[error("no way to reach the engine")]
    NoEngine,
    /// The engine did not take the certificate: the browser's error.
    #[error("{}", .0.message)]
    NotAccepted(ToolError),
}

/// A site's certificate: what the proxy serves, and what the engine is
/// told to accept.
pub struct SiteCertificate {
    pub server: Arc<ServerConfig>,
    pub pem: String,
}

pub struct Certificates {
    key: rcgen::KeyPair,
    made: Mutex<HashMap<String, Arc<SiteCertificate>>>,
    client: OnceLock<Result<Arc<ClientConfig>, TlsError>>,
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

impl Certificates {
    pub fn new() -> Result<Certificates, TlsError> {
        let key = rcgen::KeyPair::generate().map_err(certificate)?;
        Ok(Certificates {
            key,
            made: Mutex::default(),
            client: OnceLock::new(),
        })
    }

    /// The certificate for `host`, made the first time.
    pub fn site(&self, host: &str) -> Result<Arc<SiteCertificate>, TlsError> {
        let mut made = self.made.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(site) = made.get(host) {
            return Ok(site.clone());
        }
        let mut params =
            rcgen::CertificateParams::new(vec![host.to_string()]).map_err(certificate)?;
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, host);
        let cert = params.self_signed(&self.key).map_err(certificate)?;
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key.serialize_der()));
        let mut server = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(certificate)?
            .with_no_client_auth()
            .with_single_cert(vec![cert.der().clone()], key)
            .map_err(certificate)?;
        server.alpn_protocols = vec![b"http/1.1".to_vec()];
        let site = Arc::new(SiteCertificate {
            server: Arc::new(server),
            pem: cert.pem(),
        });
        if made.len() >= KEPT {
            made.clear();
        }
        made.insert(host.to_string(), site.clone());
        Ok(site)
    }

    /// How the proxy talks TLS to sites (the roots read once).
    pub fn client(&self) -> Result<Arc<ClientConfig>, TlsError> {
        self.client.get_or_init(client_config).clone()
    }
}

fn certificate(error: impl std::fmt::Display) -> TlsError {
    TlsError::Certificate(error.to_string())
}

fn client_config() -> Result<Arc<ClientConfig>, TlsError> {
    let file = std::env::var("SSL_CERT_FILE").unwrap_or_else(|_| SYSTEM_ROOTS.to_string());
    let mut roots = RootCertStore::empty();
    let certs = CertificateDer::pem_file_iter(&file)
        .map_err(|e| TlsError::Roots(format!("cannot read the TLS roots in {file}: {e}")))?;
    for cert in certs.flatten() {
        let _ = roots.add(cert);
    }
    if roots.is_empty() {
        return Err(TlsError::Roots(format!("no TLS roots in {file}")));
    }
    let mut config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Roots(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_site_gets_one_certificate_naming_it() {
        let certificates = Certificates::new().unwrap();
        let a = certificates.site("a.test").unwrap();
        assert!(a.pem.starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(Arc::ptr_eq(&a, &certificates.site("a.test").unwrap()));
        let ip = certificates.site("127.0.0.1").unwrap();
        assert_ne!(a.pem, ip.pem);
    }

    #[test]
    fn an_engine_that_did_not_accept_says_so_in_the_browser_s_words() {
        let refused = TlsError::NotAccepted(ToolError::new(
            crate::base::error::ErrorCode::NoContext,
            "the context was closed",
        ));
        assert_eq!(refused.to_string(), "the context was closed");
        assert_eq!(TlsError::NoEngine.to_string(), "no way to reach the engine");
    }
}
