//! set_viewport, set_offline, set_headers, set_credentials, set_user_agent,
//! set_locale, set_geolocation, set_media: how the browser presents itself
//! to sites. Offline, headers and credentials
//! hold for the tab's context (its tabs share one network session); the
//! colour scheme is the whole browser's (WebKitGTK reads it from GTK).

use super::families::Family;
use super::{tab_tool_without_page, Ctx, ToolDef, ToolOutput, ToolResult, ACTION};
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::bridge::{Command, CredentialsChange, Position, SettingsChange, SiteCredentials};
use crate::page_protocol::ops::Settle;
use crate::page_protocol::View;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Map, Value};

/// The longest User-Agent agents may set.
const USER_AGENT_MAX: usize = 512;
/// Sizes a viewport may take.
const VIEWPORT_MIN: u32 = 200;
const VIEWPORT_MAX: u32 = 7680;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool_without_page(
            "set_viewport",
            "Resize the viewport to width x height CSS px. Returns the page's inner size.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: ViewportParams| async move { set_viewport(&ctx, tab, p).await },
        )
        .in_family(Family::Emulation),
        tab_tool_without_page(
            "set_offline",
            "Take the context offline (requests fail, navigator.onLine false, offline/online events) or back online.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: OfflineParams| async move { change(&ctx, tab, SettingsChange::Offline(p.offline)).await },
        )
        .in_family(Family::Network),
        tab_tool_without_page(
            "set_headers",
            "Extra HTTP headers on the browser's own navigations (open, tab_new, reload), not links, forms or sub-resources; {} removes them.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: HeadersParams| async move { set_headers(&ctx, tab, p).await },
        )
        .in_family(Family::Network),
        tab_tool_without_page(
            "set_credentials",
            "Answer an origin's HTTP authentication (Basic, Digest), by default the page's; each origin keeps its own, no other site gets them. No user: forget the origin's (no origin: all), the person answers.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: CredentialsParams| async move { set_credentials(&ctx, tab, p).await },
        )
        .in_family(Family::Network),
        tab_tool_without_page(
            "set_user_agent",
            "Make the context's tabs send and show this User-Agent (navigator.userAgent too); none: the browser's own. Returns what pages now read.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: UserAgentParams| async move {
                let agent = p.user_agent.filter(|a| !a.trim().is_empty());
                if agent.as_deref().is_some_and(|a| a.len() > USER_AGENT_MAX || a.contains(['\r', '\n'])) {
                    return Err(ToolError::invalid_field("user_agent", format!("one line, at most {USER_AGENT_MAX} characters")));
                }
                change(&ctx, tab, SettingsChange::UserAgent(agent)).await
            },
        )
        .in_family(Family::Emulation),
        tab_tool_without_page(
            "set_locale",
            "Make pages asked in and read this language (Accept-Language; navigator.language from the next load); WebKit keeps one language for the whole browser, so every context, the person's too, gets it; none: the system's.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: LocaleParams| async move {
                let locale = p.locale.map(|l| locale_of(&l)).transpose()?;
                change(&ctx, tab, SettingsChange::Locale(locale)).await
            },
        )
        .in_family(Family::Emulation),
        tab_tool_without_page(
            "set_geolocation",
            "Give the context's pages this position (navigator.geolocation), allowing them to ask while it is set; no latitude: none, and they are refused again.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: GeolocationParams| async move { set_geolocation(&ctx, tab, p).await },
        )
        .in_family(Family::Emulation),
        tab_tool_without_page(
            "set_media",
            "Make pages see prefers-color-scheme dark or light (CSS and matchMedia).",
            ACTION,
            |ctx: Ctx, tab: TabId, p: MediaParams| async move {
                change(&ctx, tab, SettingsChange::DarkScheme(matches!(p.color_scheme, Scheme::Dark))).await
            },
        )
        .in_family(Family::Emulation),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewportParams {
    /// CSS px, 200 to 7680.
    width: u32,
    /// CSS px, 200 to 7680.
    height: u32,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OfflineParams {
    /// true: offline; false: back online.
    offline: bool,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeadersParams {
    /// Name to value; {} removes all.
    #[serde(default)]
    headers: Option<Map<String, Value>>,
    /// headers as a JSON string.
    #[serde(default)]
    headers_json: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CredentialsParams {
    /// User name (none: forget).
    #[serde(default)]
    user: Option<String>,
    /// Password.
    #[serde(default)]
    pass: Option<String>,
    /// A URL or origin.
    #[serde(default)]
    origin: Option<String>,
}

async fn set_credentials(ctx: &Ctx, tab: TabId, p: CredentialsParams) -> ToolResult {
    let (user, password) = match (p.user, p.pass) {
        (Some(user), pass) => (user, pass.unwrap_or_default()),
        (None, None) => {
            let origin = p.origin.as_deref().map(origin_given).transpose()?;
            let forget = SettingsChange::Credentials(CredentialsChange::Forget(origin));
            return change(ctx, tab, forget).await;
        }
        (None, Some(_)) => return Err(ToolError::invalid_params("give user with pass")),
    };
    let origin = match p.origin {
        Some(origin) => origin_given(&origin)?,
        None => origin_given(&ctx.tab_info(tab)?.url)?,
    };
    let credentials = SiteCredentials {
        origin,
        user,
        password,
    };
    let answer = SettingsChange::Credentials(CredentialsChange::Answer(credentials));
    change(ctx, tab, answer).await
}

/// The origin of a URL or origin an agent gave, or of the tab's page.
fn origin_given(url: &str) -> Result<String, ToolError> {
    crate::address::origin_of(url).ok_or_else(|| {
        ToolError::invalid_params(format!(
            "origin: {url:?} is not an http(s) site; give origin, or open the site first"
        ))
    })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UserAgentParams {
    /// The whole string (none: the browser's own).
    #[serde(default)]
    user_agent: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LocaleParams {
    /// A language tag: de-DE, fr, pt-BR (none: the system's).
    #[serde(default)]
    locale: Option<String>,
}

/// A BCP 47 language tag as pages write it: a language of 2 or 3 letters,
/// then subtags of letters and digits.
fn locale_of(given: &str) -> Result<String, ToolError> {
    let mut parts = given.split(['-', '_']);
    let language = parts.next().unwrap_or_default();
    let language_ok =
        (2..=3).contains(&language.len()) && language.chars().all(|c| c.is_ascii_alphabetic());
    let rest: Vec<&str> = parts.collect();
    let rest_ok = rest
        .iter()
        .all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()));
    if !language_ok || !rest_ok || given.len() > 35 {
        return Err(ToolError::invalid_field(
            "locale",
            format!("{given:?} is not a language tag like de-DE"),
        ));
    }
    let mut tag = language.to_ascii_lowercase();
    for part in rest {
        tag.push('-');
        // A region is written in capitals (de-DE), other subtags as given.
        if part.len() == 2 && part.chars().all(|c| c.is_ascii_alphabetic()) {
            tag.push_str(&part.to_ascii_uppercase());
        } else {
            tag.push_str(part);
        }
    }
    Ok(tag)
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GeolocationParams {
    /// Degrees, -90 to 90 (none: no position).
    #[serde(default)]
    latitude: Option<f64>,
    /// Degrees, -180 to 180.
    #[serde(default)]
    longitude: Option<f64>,
    /// Metres (default 10).
    #[serde(default)]
    accuracy: Option<f64>,
}

async fn set_geolocation(ctx: &Ctx, tab: TabId, p: GeolocationParams) -> ToolResult {
    let position = match (p.latitude, p.longitude) {
        (None, None) if p.accuracy.is_none() => None,
        (Some(latitude), Some(longitude)) => {
            if !(-90.0..=90.0).contains(&latitude) {
                return Err(ToolError::invalid_field("latitude", "from -90 to 90"));
            }
            if !(-180.0..=180.0).contains(&longitude) {
                return Err(ToolError::invalid_field("longitude", "from -180 to 180"));
            }
            let accuracy = p.accuracy.unwrap_or(10.0);
            if !(accuracy.is_finite() && accuracy >= 0.0) {
                return Err(ToolError::invalid_field("accuracy", "metres, 0 or more"));
            }
            Some(Position {
                latitude,
                longitude,
                accuracy,
            })
        }
        _ => {
            return Err(ToolError::invalid_params(
                "give latitude and longitude (and accuracy), or none of them",
            ))
        }
    };
    change(ctx, tab, SettingsChange::Geolocation(position)).await
}

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    Dark,
    Light,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MediaParams {
    /// dark or light.
    color_scheme: Scheme,
}

async fn change(ctx: &Ctx, tab: TabId, change: SettingsChange) -> ToolResult {
    Ok(ToolOutput::json(setting(ctx, tab, change).await?))
}

/// Changes a setting of the tab's context; answers what the browser says.
pub(super) async fn setting(
    ctx: &Ctx,
    tab: TabId,
    change: SettingsChange,
) -> Result<Value, ToolError> {
    ctx.app
        .browser
        .call_value(Command::Settings { tab, change })
        .await
}

async fn set_viewport(ctx: &Ctx, tab: TabId, p: ViewportParams) -> ToolResult {
    for (name, v) in [("width", p.width), ("height", p.height)] {
        if !(VIEWPORT_MIN..=VIEWPORT_MAX).contains(&v) {
            return Err(ToolError::invalid_params(format!(
                "{name} must be from {VIEWPORT_MIN} to {VIEWPORT_MAX} pixels"
            )));
        }
    }
    let view = viewport(ctx, tab, p.width, p.height).await?;
    Ok(ToolOutput::json(
        json!({"width": view.width, "height": view.height}),
    ))
}

/// Resizes the tab's viewport and answers the size the page then has.
pub(super) async fn viewport(
    ctx: &Ctx,
    tab: TabId,
    width: u32,
    height: u32,
) -> Result<View, ToolError> {
    setting(ctx, tab, SettingsChange::Viewport { width, height }).await?;
    // The window resizes asynchronously: wait (bounded) until the page's
    // resize event says it has the size.
    let resized = Settle::Viewport {
        width,
        height,
        limit_ms: 3000,
    };
    ctx.page(tab, resized).await
}

async fn set_headers(ctx: &Ctx, tab: TabId, p: HeadersParams) -> ToolResult {
    let map = match (p.headers, p.headers_json) {
        (Some(map), None) => map,
        (None, Some(text)) => serde_json::from_str::<Map<String, Value>>(&text).map_err(|e| {
            ToolError::invalid_params(format!("headers_json is not a JSON object: {e}"))
        })?,
        (None, None) => Map::new(),
        (Some(_), Some(_)) => {
            return Err(ToolError::invalid_params(
                "give headers or headers_json, not both",
            ))
        }
    };
    let mut headers = Vec::with_capacity(map.len());
    for (name, value) in map {
        let valid_name = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        let Some(value) = value.as_str().map(str::to_string) else {
            return Err(ToolError::invalid_params(format!(
                "header {name}: the value must be a string"
            )));
        };
        if !valid_name || value.contains(['\r', '\n']) {
            return Err(ToolError::invalid_params(format!(
                "header {name:?} is not a valid header"
            )));
        }
        headers.push((name, value));
    }
    change(ctx, tab, SettingsChange::Headers(headers)).await
}
