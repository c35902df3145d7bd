//! cookies_get, cookies_set, cookies_clear (the profile's cookie store,
//! HttpOnly cookies included) and storage_local_* / storage_session_* (web
//! storage of the page's origin).

use super::families::Family;
use super::identity::NoParams;
use super::{
    tab_tool, tab_tool_without_page, Ctx, ToolDef, ToolOutput, ToolResult, ACTION, READ_ONLY,
};
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::bridge::{Command, CookieOp, CookieSpec};
use crate::page_protocol::ops::{Storage, StorageAction, StorageArea};
use schemars::JsonSchema;
use serde::Deserialize;

/// One web storage area and how its four tools are called.
struct Area {
    area: StorageArea,
    /// get, get_key, set, clear.
    names: [&'static str; 4],
    descriptions: [&'static str; 4],
}

const LOCAL: Area = Area {
    area: StorageArea::Local,
    names: [
        "storage_local_get",
        "storage_local_get_key",
        "storage_local_set",
        "storage_local_clear",
    ],
    descriptions: [
        "The page's localStorage items.",
        "One item of the page's localStorage (null when absent).",
        "Set an item of the page's localStorage.",
        "Clear the page's localStorage.",
    ],
};

const SESSION: Area = Area {
    area: StorageArea::Session,
    names: [
        "storage_session_get",
        "storage_session_get_key",
        "storage_session_set",
        "storage_session_clear",
    ],
    descriptions: [
        "The page's sessionStorage items.",
        "One item of the page's sessionStorage (null when absent).",
        "Set an item of the page's sessionStorage.",
        "Clear the page's sessionStorage.",
    ],
};

fn storage_tools(a: &'static Area) -> Vec<ToolDef> {
    let area = a.area;
    vec![
        tab_tool(
            a.names[0],
            a.descriptions[0],
            READ_ONLY,
            move |ctx: Ctx, tab: TabId, _: NoParams| async move {
                storage(&ctx, tab, area, StorageAction::Get).await
            },
        ),
        tab_tool(
            a.names[1],
            a.descriptions[1],
            READ_ONLY,
            move |ctx: Ctx, tab: TabId, p: KeyParams| async move {
                storage(&ctx, tab, area, StorageAction::GetKey { key: p.key }).await
            },
        ),
        tab_tool(
            a.names[2],
            a.descriptions[2],
            ACTION,
            move |ctx: Ctx, tab: TabId, p: SetParams| async move {
                let set = StorageAction::Set {
                    key: p.key,
                    value: p.value,
                };
                storage(&ctx, tab, area, set).await
            },
        ),
        tab_tool(
            a.names[3],
            a.descriptions[3],
            ACTION,
            move |ctx: Ctx, tab: TabId, _: NoParams| async move {
                storage(&ctx, tab, area, StorageAction::Clear).await
            },
        ),
    ]
}

pub fn tools() -> Vec<ToolDef> {
    let mut tools = cookie_tools();
    tools.extend(storage_tools(&LOCAL));
    tools.extend(storage_tools(&SESSION));
    // Every one of them is listed once an agent asks for storage.
    tools
        .into_iter()
        .map(|t| t.in_family(Family::Storage))
        .collect()
}

fn cookie_tools() -> Vec<ToolDef> {
    vec![
        tab_tool_without_page(
            "cookies_get",
            "Cookies with all attributes (HttpOnly too): the page's, those a request to url would carry, or all.",
            READ_ONLY,
            |ctx: Ctx, tab: TabId, p: CookiesGetParams| async move {
                let url = match (p.all.unwrap_or(false), p.url) {
                    (true, _) => None,
                    (false, Some(url)) => Some(url),
                    (false, None) => Some(page_url(&ctx, tab).await?),
                };
                let op = CookieOp::Get { url };
                Ok(ToolOutput::json(ctx.app.browser.call_value(Command::Cookies { tab, op }).await?))
            },
        ),
        tab_tool_without_page(
            "cookies_set",
            "Set a cookie. Domain defaults to the page's host; without expires (Unix seconds), a session cookie.",
            super::ACTION,
            |ctx: Ctx, tab: TabId, p: CookieSetParams| async move { cookies_set(&ctx, tab, p).await },
        ),
        tab_tool_without_page(
            "cookies_clear",
            "Delete every cookie, or a domain's and its subdomains' (never its parent's).",
            ACTION,
            |ctx: Ctx, tab: TabId, p: CookiesClearParams| async move {
                let op = CookieOp::Clear { domain: p.domain };
                Ok(ToolOutput::json(ctx.app.browser.call_value(Command::Cookies { tab, op }).await?))
            },
        ),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CookiesGetParams {
    /// Cookies a request there carries (default: the page's).
    #[serde(default)]
    url: Option<String>,
    /// Every cookie of the profile.
    #[serde(default)]
    all: Option<bool>,
}

#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum SameSite {
    Strict,
    Lax,
    None,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CookieSetParams {
    /// Cookie name.
    name: String,
    /// Cookie value.
    value: String,
    /// Default: the page's host.
    #[serde(default)]
    domain: Option<String>,
    /// Cookie path.
    #[serde(default)]
    #[schemars(extend("default" = "/"))]
    path: Option<String>,
    /// Unix seconds (default: session).
    #[serde(default)]
    expires: Option<i64>,
    /// HTTPS only.
    #[serde(default)]
    secure: Option<bool>,
    /// Hidden from scripts.
    #[serde(default, rename = "httpOnly")]
    http_only: Option<bool>,
    /// strict, lax or none.
    #[serde(default, rename = "sameSite")]
    #[schemars(extend("default" = "lax"))]
    same_site: Option<SameSite>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CookiesClearParams {
    /// Only this domain and its subdomains.
    #[serde(default)]
    domain: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyParams {
    /// Storage key.
    key: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetParams {
    /// Storage key.
    key: String,
    /// String to store.
    value: String,
}

async fn page_url(ctx: &Ctx, tab: u64) -> Result<String, ToolError> {
    let url = ctx.tab_info(tab)?.url;
    if !url.starts_with("http://") && !url.starts_with("https://") {
        return Err(ToolError::invalid_params(format!(
            "the current page ({url}) has no cookies; give url, or all: true"
        )));
    }
    Ok(url)
}

async fn cookies_set(ctx: &Ctx, tab: TabId, p: CookieSetParams) -> ToolResult {
    if p.name.is_empty() || p.name.contains([';', '=', ' ', '\t', '\n', '\r', ',']) {
        return Err(ToolError::invalid_params(
            "name must be non-empty, without ; = , or whitespace",
        ));
    }
    if p.value.contains([';', '\n', '\r']) {
        return Err(ToolError::invalid_params(
            "value must not contain ; or line breaks",
        ));
    }
    let domain = match p.domain {
        Some(domain) if !domain.trim().is_empty() => domain.trim().to_string(),
        _ => {
            let url = page_url(ctx, tab).await?;
            host_of(&url).ok_or_else(|| ToolError::invalid_params("give domain"))?
        }
    };
    let same_site = match p.same_site.unwrap_or(SameSite::Lax) {
        SameSite::Strict => "strict",
        SameSite::Lax => "lax",
        SameSite::None => "none",
    };
    let spec = CookieSpec {
        name: p.name,
        value: p.value,
        domain,
        path: p.path.unwrap_or_else(|| "/".into()),
        expires: p.expires,
        secure: p.secure.unwrap_or(false),
        http_only: p.http_only.unwrap_or(false),
        same_site: same_site.into(),
    };
    let op = CookieOp::Set(spec);
    Ok(ToolOutput::json(
        ctx.app
            .browser
            .call_value(Command::Cookies { tab, op })
            .await?,
    ))
}

/// The host part of an http(s) URL.
fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split_inclusive(']').next()?
    } else {
        host.split(':').next()?
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

async fn storage(ctx: &Ctx, tab: TabId, area: StorageArea, action: StorageAction) -> ToolResult {
    Ok(ToolOutput::json(
        ctx.page(tab, Storage { area, action }).await?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_come_from_urls() {
        assert_eq!(
            host_of("http://127.0.0.1:8080/a?b").as_deref(),
            Some("127.0.0.1")
        );
        assert_eq!(
            host_of("https://user@Example.COM/x").as_deref(),
            Some("example.com")
        );
        assert_eq!(host_of("http://[::1]:80/").as_deref(), Some("[::1]"));
        assert_eq!(host_of("about:blank"), None);
    }
}
