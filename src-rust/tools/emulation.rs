//! set_timezone and set_device: the zone and the device pages of a context
//! believe they run in, from a small built-in table of devices.

use super::families::Family;
use super::settings::{setting, viewport};
use super::{tab_tool_without_page, Ctx, ToolDef, ToolOutput, ToolResult, ACTION};
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::bridge::{DeviceLook, SettingsChange};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// The longest time-zone name taken (the IANA database's are under 40).
const ZONE_MAX: usize = 64;

pub fn tools() -> Vec<ToolDef> {
    vec![
        tab_tool_without_page(
            "set_timezone",
            "Make the context's pages see this IANA time zone (Date, Intl) from the next load; none: the machine's.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: TimezoneParams| async move { set_timezone(&ctx, tab, p).await },
        )
        .in_family(Family::Emulation),
        tab_tool_without_page(
            "set_device",
            "Emulate a device: viewport and User-Agent now; screen, devicePixelRatio and touch for scripts from the next load. Desktop: back to this browser's.",
            ACTION,
            |ctx: Ctx, tab: TabId, p: DeviceParams| async move { set_device(&ctx, tab, p).await },
        )
        .in_family(Family::Emulation),
    ]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimezoneParams {
    /// An IANA name: Europe/Berlin, America/New_York, UTC (none: the machine's).
    #[serde(default)]
    timezone: Option<String>,
}

async fn set_timezone(ctx: &Ctx, tab: TabId, p: TimezoneParams) -> ToolResult {
    let Some(name) = p.timezone.filter(|z| !z.trim().is_empty()) else {
        let set = setting(ctx, tab, SettingsChange::Timezone(None)).await?;
        return Ok(ToolOutput::json(set));
    };
    let zone = time_zone(&name)?;
    let now = glib::DateTime::now(&zone)
        .map_err(|_| ToolError::internal("the clock cannot be read in that zone"))?;
    let offset = now.utc_offset().as_seconds() / 60;
    let sign = if offset < 0 { '-' } else { '+' };
    let shown = json!({
        "timezone": name,
        "utc_offset": format!("{sign}{:02}:{:02}", offset.abs() / 60, offset.abs() % 60),
        "local_time": now.format("%Y-%m-%dT%H:%M").map(|t| t.to_string()).unwrap_or_default(),
    });
    setting(ctx, tab, SettingsChange::Timezone(Some(name))).await?;
    Ok(ToolOutput::json(shown))
}

/// A zone of the time-zone database, by its IANA name.
fn time_zone(name: &str) -> Result<glib::TimeZone, ToolError> {
    let well_formed = name.len() <= ZONE_MAX
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/_+-".contains(c))
        && !name.starts_with('/')
        && !name.contains("..");
    well_formed
        .then(|| glib::TimeZone::from_identifier(Some(name)))
        .flatten()
        .ok_or_else(|| {
            ToolError::invalid_field(
                "timezone",
                format!("{name:?} is not a time zone; give an IANA name like Europe/Berlin"),
            )
        })
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeviceParams {
    /// iPhone 15, iPhone SE, Pixel 8, Galaxy S24, iPad Air, or Desktop.
    name: String,
}

/// A device of the table.
struct Device {
    name: &'static str,
    width: u32,
    height: u32,
    scale: f64,
    touch: bool,
    /// None: this browser's own.
    user_agent: Option<&'static str>,
}

const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
const IPAD: &str = "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

/// Portrait viewports in CSS px, as the makers give them.
const DEVICES: [Device; 6] = [
    Device {
        name: "iPhone 15",
        width: 393,
        height: 852,
        scale: 3.0,
        touch: true,
        user_agent: Some(IPHONE),
    },
    Device {
        name: "iPhone SE",
        width: 375,
        height: 667,
        scale: 2.0,
        touch: true,
        user_agent: Some(IPHONE),
    },
    Device {
        name: "Pixel 8",
        width: 412,
        height: 915,
        scale: 2.625,
        touch: true,
        user_agent: Some("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36"),
    },
    Device {
        name: "Galaxy S24",
        width: 360,
        height: 780,
        scale: 3.0,
        touch: true,
        user_agent: Some("Mozilla/5.0 (Linux; Android 14; SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36"),
    },
    Device {
        name: "iPad Air",
        width: 820,
        height: 1180,
        scale: 2.0,
        touch: true,
        user_agent: Some(IPAD),
    },
    Device {
        name: "Desktop",
        width: 1280,
        height: 720,
        scale: 1.0,
        touch: false,
        user_agent: None,
    },
];

/// A device by name, in any case and spacing.
fn device(name: &str) -> Result<&'static Device, ToolError> {
    let key = |n: &str| n.to_ascii_lowercase().replace([' ', '-', '_'], "");
    DEVICES
        .iter()
        .find(|d| key(d.name) == key(name))
        .ok_or_else(|| {
            let names: Vec<&str> = DEVICES.iter().map(|d| d.name).collect();
            ToolError::invalid_field("name", format!("one of: {}", names.join(", ")))
        })
}

async fn set_device(ctx: &Ctx, tab: TabId, p: DeviceParams) -> ToolResult {
    let device = device(&p.name)?;
    let agent = device.user_agent.map(str::to_string);
    let shown = setting(ctx, tab, SettingsChange::UserAgent(agent)).await?;
    let user_agent = shown.get("user_agent").cloned().unwrap_or(Value::Null);
    let look = (device.name != "Desktop").then_some(DeviceLook {
        width: device.width,
        height: device.height,
        scale: device.scale,
        touch: device.touch,
    });
    setting(ctx, tab, SettingsChange::DeviceLook(look)).await?;
    let view = viewport(ctx, tab, device.width, device.height).await?;
    Ok(ToolOutput::json(json!({
        "device": device.name,
        "viewport": {"width": view.width, "height": view.height},
        "user_agent": user_agent,
        "device_pixel_ratio": device.scale,
        "touch": device.touch,
        "scripts_see_from": "the next load",
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_are_found_in_any_spelling() {
        assert_eq!(device("pixel 8").unwrap().width, 412);
        assert_eq!(device("IPHONE-15").unwrap().scale, 3.0);
        assert_eq!(device("iphone_se").unwrap().height, 667);
        let error = device("Nokia 3310").err().unwrap().to_string();
        assert!(
            error.contains("iPhone 15") && error.contains("Desktop"),
            "{error}"
        );
    }

    #[test]
    fn zones_are_iana_names() {
        assert!(time_zone("Europe/Berlin").is_ok());
        assert!(time_zone("UTC").is_ok());
        for bad in [
            "Mars/Olympus_Mons",
            "../etc/passwd",
            "/etc/localtime",
            "Europe/Berlin\n",
            "",
        ] {
            assert!(time_zone(bad).is_err(), "{bad:?}");
        }
    }
}
