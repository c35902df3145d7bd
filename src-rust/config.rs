//! Command-line flags and the settings derived from them.

use clap::Parser;
use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::time::Duration;

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

    /// Window size as WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x900", value_parser = parse_size)]
    pub window_size: (u32, u32),
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once('x')
        .ok_or_else(|| format!("expected WIDTHxHEIGHT, got {s:?}"))?;
    let w: u32 = w
        .trim()
        .parse()
        .map_err(|_| format!("bad width in {s:?}"))?;
    let h: u32 = h
        .trim()
        .parse()
        .map_err(|_| format!("bad height in {s:?}"))?;
    if !(200..=8192).contains(&w) || !(200..=8192).contains(&h) {
        return Err(format!("window size {s:?} out of range (200..8192)"));
    }
    Ok((w, h))
}

impl Args {
    pub fn session_idle(&self) -> Duration {
        Duration::from_secs(self.session_idle.max(1))
    }

    pub fn nostr_prompt_timeout(&self) -> Duration {
        Duration::from_secs(self.nostr_prompt_timeout.clamp(1, 3600))
    }

    /// Checks combinations clap cannot express.
    pub fn validate(&self) -> Result<(), String> {
        if self.no_token && !self.bind.is_loopback() {
            return Err(format!(
                "refusing to serve on {} without a token: drop --no-token or bind to 127.0.0.1",
                self.bind
            ));
        }
        if let Some(token) = &self.token {
            if token.len() < 16 {
                return Err("--token must be at least 16 characters".into());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(args.validate().unwrap_err().contains("without a token"));
    }

    #[test]
    fn window_size_is_checked() {
        assert_eq!(parse_size("800x600"), Ok((800, 600)));
        assert!(parse_size("800").is_err());
        assert!(parse_size("1x1").is_err());
    }
}
