//! Command-line flags and the settings derived from them.

mod error;
mod panel_address;

use clap::Parser;
pub use error::ConfigError;
pub use panel_address::parse_panel_address;
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::time::Duration;
use zeroize::Zeroizing;

/// The control panel window's size, in logical pixels.
pub const PANEL_WINDOW_SIZE: (u32, u32) = (1100, 820);

/// A desktop browser with a Nostr identity, driven by AI assistants over MCP
/// and by scripts over a WebSocket.
#[derive(Debug, Clone, Parser)]
#[command(name = "sovereign-browser", version, about)]
pub struct Args {
    /// TCP port of the MCP / agent / panel server (0 picks a free port).
    #[arg(long, default_value_t = 17777, env = "SOVEREIGN_PORT")]
    pub port: u16,

    /// Address the server binds to. Anything but loopback requires the token.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST), env = "SOVEREIGN_BIND")]
    pub bind: IpAddr,

    /// Profile directory (cookies, site data, token).
    /// Default: $XDG_DATA_HOME/sovereign-browser.
    #[arg(long, env = "SOVEREIGN_PROFILE", conflicts_with = "ephemeral")]
    pub profile: Option<PathBuf>,

    /// Use a throwaway profile that is removed on exit.
    #[arg(long)]
    pub ephemeral: bool,

    /// Page the first tab opens.
    #[arg(long, default_value = "about:blank")]
    pub start_url: String,

    /// Run on a private Xvfb display (real, mapped windows; nothing on your
    /// screen). Implied when DISPLAY is not set.
    #[arg(long)]
    pub headless: bool,

    /// Log level: error, warn, info, debug or trace (logs go to stderr).
    #[arg(long, default_value = "info", env = "SOVEREIGN_LOG")]
    pub log_level: String,

    /// Turn the bearer token off (only allowed on a loopback bind).
    #[arg(long)]
    pub no_token: bool,

    /// Use this bearer token instead of the one kept in the profile.
    #[arg(long, env = "SOVEREIGN_TOKEN", hide_env_values = true)]
    pub token: Option<String>,

    /// Read the agents' bearer token from this file (e.g. a mounted
    /// Kubernetes Secret) instead of the profile's.
    #[arg(long, env = "SOVEREIGN_TOKEN_FILE", conflicts_with = "token")]
    pub token_file: Option<PathBuf>,

    /// Use this key for the control panel instead of the one kept in the
    /// profile; the panel's address is then printed without it. Prefer
    /// the environment or a file: a command line is seen by other users.
    #[arg(long, env = "SOVEREIGN_PANEL_KEY", hide_env_values = true)]
    pub panel_key: Option<String>,

    /// Read the control panel's key from this file (see --panel-key).
    #[arg(long, env = "SOVEREIGN_PANEL_KEY_FILE", conflicts_with = "panel_key")]
    pub panel_key_file: Option<PathBuf>,

    /// The address the person reaches the control panel at, when it is not
    /// the server's own (a container behind a forwarded port or an
    /// ingress): links to the panel that agents' clients show are built
    /// from it. An http(s) address without user, query or fragment.
    #[arg(long, env = "SOVEREIGN_PANEL_ADDRESS", value_parser = parse_panel_address)]
    pub panel_address: Option<String>,

    /// A read-only credential for `/metrics` (a monitoring system's), in
    /// place of the one kept in the profile; it opens nothing else.
    #[arg(long, env = "SOVEREIGN_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<String>,

    /// Read the metrics token from this file (see --metrics-token).
    #[arg(
        long,
        env = "SOVEREIGN_METRICS_TOKEN_FILE",
        conflicts_with = "metrics_token"
    )]
    pub metrics_token_file: Option<PathBuf>,

    /// Keep no recording of agents' calls (see record_sessions).
    #[arg(long)]
    pub no_record: bool,

    /// Megabytes the recordings of agents' calls may take in the profile;
    /// past it the oldest sessions go.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub record_max_mb: u64,

    /// Seconds a stop (SIGTERM, SIGINT) lets running tool calls finish
    /// before the browser ends; new calls are refused meanwhile.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(0..=600))]
    pub stop_grace: u64,

    /// Seconds an idle MCP session lives before it expires.
    #[arg(long, default_value_t = 1800)]
    pub session_idle: u64,

    /// Seconds a web page's window.nostr request waits for a person's
    /// answer before it is rejected.
    #[arg(long, default_value_t = 60)]
    pub nostr_prompt_timeout: u64,

    /// The folder agents' tools read files from and write files to (upload,
    /// pdf, state files by path). Default: the profile's downloads folder.
    #[arg(long)]
    pub files_dir: Option<PathBuf>,

    /// Let tabs open file: URLs (local files, which agents could then read).
    #[arg(long)]
    pub allow_file_urls: bool,

    /// Do not open the control panel window at start-up (it stays reachable
    /// at the printed address).
    #[arg(long)]
    pub no_panel: bool,

    /// Accept invalid TLS certificates (for testing against self-signed servers).
    #[arg(long)]
    pub ignore_certificate_errors: bool,

    /// Send all web traffic through this proxy (http://host:port or socks5://host:port).
    #[arg(long)]
    pub proxy: Option<String>,

    /// Search page for address-bar words that are not an address; %s stands
    /// for the words (e.g. https://duckduckgo.com/?q=%s). Without it such
    /// words are refused with a message.
    #[arg(long)]
    pub search_url: Option<String>,

    /// Tools to offer: all (the default), core (the 30 basic tools), or a
    /// comma-separated list of tool names and sets, e.g. core,cookies_get.
    /// The identity tools are always offered.
    #[arg(long, default_value = "all")]
    pub tools: String,

    /// How many contexts agents may have open at once besides the
    /// person's (context_new answers BUSY beyond it).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(0..=64))]
    pub contexts_max: u16,

    /// The most memory (resident, in MiB) a tab's web process may hold:
    /// past it the process is ended and its tabs say they ran out of
    /// memory (PAGE_CRASHED for agents), the rest of the browser unharmed.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(128..=1_048_576))]
    pub page_memory_mb: u32,

    /// The most a context's downloads of this run may write, in MiB (a
    /// page's downloads come unasked): past it a download is cancelled and
    /// its part removed, and new ones are refused, saying why.
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u32).range(1..=1_048_576))]
    pub downloads_max_mb: u32,

    /// The most the files folder may hold, in MiB: past it agents' tools
    /// write no new file there (pdf, state files, response bodies,
    /// screenshots by path), saying why.
    #[arg(long, default_value_t = 8192, value_parser = clap::value_parser!(u32).range(1..=4_194_304))]
    pub files_max_mb: u32,

    /// Window size as WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x900", value_parser = parse_size)]
    pub window_size: (u32, u32),
}

fn parse_size(s: &str) -> Result<(u32, u32), ConfigError> {
    let given = || s.to_string();
    let (w, h) = s
        .split_once('x')
        .ok_or_else(|| ConfigError::NotASize { given: given() })?;
    let w: u32 = w
        .trim()
        .parse()
        .map_err(|_| ConfigError::BadWidth { given: given() })?;
    let h: u32 = h
        .trim()
        .parse()
        .map_err(|_| ConfigError::BadHeight { given: given() })?;
    if !(200..=8192).contains(&w) || !(200..=8192).contains(&h) {
        return Err(ConfigError::SizeOutOfRange { given: given() });
    }
    Ok((w, h))
}

impl Args {
    /// Whether the browser runs on a display of its own (Xvfb): asked for,
    /// or no display to use.
    pub fn wants_private_display(&self) -> bool {
        self.headless || std::env::var_os("DISPLAY").is_none()
    }

    pub fn session_idle(&self) -> Duration {
        Duration::from_secs(self.session_idle.max(1))
    }

    pub fn nostr_prompt_timeout(&self) -> Duration {
        Duration::from_secs(self.nostr_prompt_timeout.clamp(1, 3600))
    }

    /// Checks combinations clap cannot express.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.no_token && !self.bind.is_loopback() {
            return Err(ConfigError::NoTokenInPublic { bind: self.bind });
        }
        if let Some(token) = &self.token {
            if token.len() < 16 {
                return Err(ConfigError::ShortToken);
            }
        }
        if let Some(key) = &self.panel_key {
            check_given("--panel-key", key)?;
        }
        Ok(())
    }

    /// The agents' token given from outside (flag, environment or file),
    /// if any; never printed.
    pub fn given_token(&self) -> Result<Option<Zeroizing<String>>, ConfigError> {
        given_secret("--token", self.token.as_deref(), self.token_file.as_deref())
    }

    /// The panel's key given from outside, if any; never printed.
    pub fn given_panel_key(&self) -> Result<Option<Zeroizing<String>>, ConfigError> {
        given_secret(
            "--panel-key",
            self.panel_key.as_deref(),
            self.panel_key_file.as_deref(),
        )
    }

    /// The metrics token given from outside, if any; never printed.
    pub fn given_metrics_token(&self) -> Result<Option<Zeroizing<String>>, ConfigError> {
        given_secret(
            "--metrics-token",
            self.metrics_token.as_deref(),
            self.metrics_token_file.as_deref(),
        )
    }

    pub fn stop_grace(&self) -> Duration {
        Duration::from_secs(self.stop_grace)
    }
}

/// A secret given as a value or in a file (its one line; the newline a
/// Secret or an editor adds is dropped).
fn given_secret(
    what: &'static str,
    value: Option<&str>,
    file: Option<&std::path::Path>,
) -> Result<Option<Zeroizing<String>>, ConfigError> {
    let secret = match (value, file) {
        (Some(value), _) => Zeroizing::new(value.to_string()),
        (None, Some(path)) => {
            let text = Zeroizing::new(std::fs::read_to_string(path).map_err(|e| {
                ConfigError::SecretFile {
                    flag: what,
                    path: path.to_path_buf(),
                    why: e.to_string(),
                }
            })?);
            Zeroizing::new(text.trim_end_matches(['\n', '\r']).to_string())
        }
        (None, None) => return Ok(None),
    };
    check_given(what, &secret)?;
    Ok(Some(secret))
}

fn check_given(what: &'static str, secret: &str) -> Result<(), ConfigError> {
    if secret.len() < 16 || secret.len() > 4096 {
        return Err(ConfigError::SecretLength { flag: what });
    }
    if secret.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(ConfigError::SecretCharacters { flag: what });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_come_from_a_value_or_a_file_and_are_checked() {
        let dir = std::env::temp_dir().join(format!("sovereign-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("token");
        std::fs::write(&file, "0123456789abcdef0123\n").unwrap();
        let path = file.to_str().unwrap();
        let args = Args::parse_from(["sovereign-browser", "--token-file", path]);
        assert_eq!(
            args.given_token().unwrap().unwrap().as_str(),
            "0123456789abcdef0123"
        );
        let args = Args::parse_from(["sovereign-browser", "--panel-key-file", path]);
        assert_eq!(
            args.given_panel_key().unwrap().unwrap().as_str(),
            "0123456789abcdef0123"
        );
        assert!(Args::parse_from(["sovereign-browser"])
            .given_panel_key()
            .unwrap()
            .is_none());
        std::fs::write(&file, "short\n").unwrap();
        let args = Args::parse_from(["sovereign-browser", "--token-file", path]);
        assert!(args
            .given_token()
            .unwrap_err()
            .to_string()
            .contains("16 to 4096"));
        let args = Args::parse_from(["sovereign-browser", "--token-file", "/nonexistent/token"]);
        assert!(args
            .given_token()
            .unwrap_err()
            .to_string()
            .contains("/nonexistent/token"));
        let args = Args::parse_from([
            "sovereign-browser",
            "--panel-key",
            "has a space in it, long",
        ]);
        assert!(args
            .validate()
            .unwrap_err()
            .to_string()
            .contains("no spaces"));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn defaults_are_loopback_and_port_17777() {
        let args = Args::parse_from(["sovereign-browser"]);
        assert_eq!(args.port, 17777);
        assert!(args.bind.is_loopback());
        assert_eq!(args.window_size, (1280, 900));
        assert!(args.validate().is_ok());
    }

    #[test]
    fn no_token_on_a_public_address_is_refused() {
        let args = Args::parse_from(["sovereign-browser", "--bind", "0.0.0.0", "--no-token"]);
        assert!(args
            .validate()
            .unwrap_err()
            .to_string()
            .contains("without a token"));
    }

    #[test]
    fn window_size_is_checked() {
        assert_eq!(parse_size("800x600"), Ok((800, 600)));
        assert!(parse_size("800").is_err());
        assert!(parse_size("1x1").is_err());
    }

    #[test]
    fn a_panel_address_is_checked_when_given() {
        let given = [
            "sovereign-browser",
            "--panel-address",
            "https://b.example.org",
        ];
        let args = Args::try_parse_from(given).unwrap();
        assert_eq!(
            args.panel_address.as_deref(),
            Some("https://b.example.org/")
        );
        let with_key = [
            "sovereign-browser",
            "--panel-address",
            "https://b.example.org/?key=x",
        ];
        let refused = Args::try_parse_from(with_key).unwrap_err().to_string();
        assert!(
            refused.contains("no query (?) or fragment (#)"),
            "{refused}"
        );
    }
}
