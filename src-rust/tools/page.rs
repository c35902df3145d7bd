//! Shared steps of the tools that act on a page: which tab, waiting for
//! loads, calling the agent library, naming a target element.

use super::Ctx;
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::{Command, TabId};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// How often waits look at the page again.
pub const POLL: Duration = Duration::from_millis(25);

impl Ctx {
    /// This session's tab: the one it switched to, else the front tab.
    pub async fn tab(&self) -> Result<TabId, ToolError> {
        if let Some(tab) = self.session.tab() {
            return Ok(tab);
        }
        let front = self.app.browser.call_value(Command::FrontTab).await?;
        let id = front["id"]
            .as_u64()
            .ok_or_else(|| ToolError::new(ErrorCode::NoTab, "no tab is open"))?;
        // Pin it: tabs that pages open later must not steal this session.
        self.session.set_tab(Some(id));
        Ok(id)
    }

    /// The ids of every open tab, in order.
    pub async fn tab_ids(&self) -> Result<Vec<TabId>, ToolError> {
        let list = self.app.browser.call_value(Command::ListTabs).await?;
        Ok(list["tabs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["id"].as_u64())
            .collect())
    }

    pub async fn tab_state(&self, tab: TabId) -> Result<Value, ToolError> {
        self.app.browser.call_value(Command::TabState { tab }).await
    }

    /// Runs an agent-library operation once the page is ready for it, in
    /// the frame this session chose with frame_switch, if any.
    pub async fn agent(
        &self,
        tab: TabId,
        op: &'static str,
        mut args: Value,
    ) -> Result<Value, ToolError> {
        self.wait_until_loaded(tab, Duration::from_secs(10)).await?;
        if let (Some(frame), Value::Object(map)) = (self.session.frame(tab), &mut args) {
            map.insert("frame".into(), frame.into());
        }
        self.app
            .browser
            .call_value(Command::Agent { tab, op, args })
            .await
    }

    /// Waits (bounded) while the tab is mid-navigation, so page operations
    /// see the new document rather than the old one or none.
    pub async fn wait_until_loaded(&self, tab: TabId, limit: Duration) -> Result<(), ToolError> {
        let start = Instant::now();
        loop {
            let state = self.tab_state(tab).await?;
            let nav = &state["nav"];
            // A tab that never finished a load is still loading its first
            // page (every tab starts one), even before WebKit says so.
            let finished = nav["finished"].as_u64().unwrap_or(0);
            let busy = finished == 0 || Some(finished) < nav["started"].as_u64();
            if !busy || start.elapsed() >= limit {
                return Ok(());
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// After an action that may navigate: waits up to `grace` for a load to
    /// start and then up to `limit` for it to end. Returns whether one did.
    pub async fn settle(
        &self,
        tab: TabId,
        started_before: u64,
        grace: Duration,
        limit: Duration,
    ) -> Result<bool, ToolError> {
        let start = Instant::now();
        loop {
            let state = self.tab_state(tab).await?;
            let nav = &state["nav"];
            let started = nav["started"].as_u64().unwrap_or(0);
            let finished = nav["finished"].as_u64().unwrap_or(0);
            if let (true, Some(site)) = (started > started_before, state["auth_required"].as_str())
            {
                return Err(ToolError::new(
                    ErrorCode::NavigationFailed,
                    format!("{site} asks for a user name and password (HTTP authentication); call set_credentials, then open the page again"),
                ));
            }
            if started > started_before {
                if let Some(failure) = nav["failure"].as_object() {
                    if failure["seq"].as_u64().unwrap_or(0) > started_before {
                        return Err(ToolError::new(
                            ErrorCode::NavigationFailed,
                            failure["message"]
                                .as_str()
                                .unwrap_or("the page failed to load")
                                .to_string(),
                        ));
                    }
                }
                // Another load may have begun meanwhile (a redirect, a superseding
                // navigation): done only when the view has stopped loading too.
                if finished >= started && state["loading"] == false {
                    return Ok(true);
                }
            } else if start.elapsed() >= grace {
                return Ok(false);
            }
            if start.elapsed() >= limit {
                return Err(ToolError::timeout(format!(
                    "the page was still loading after {} ms",
                    limit.as_millis()
                )));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The document's URL, title and readyState, asked at once (even mid-load).
    pub async fn page_info(&self, tab: TabId) -> Result<Value, ToolError> {
        let args = json!({});
        let op = "page_info";
        self.app
            .browser
            .call_value(Command::Agent { tab, op, args })
            .await
    }

    /// URL and title of the tab's current page.
    pub async fn page_summary(&self, tab: TabId) -> Result<Value, ToolError> {
        let state = self.tab_state(tab).await?;
        let mut title = state["title"].as_str().unwrap_or_default().to_string();
        if title.is_empty() {
            // The title notification can lag the load; ask the document.
            if let Ok(info) = self.page_info(tab).await {
                title = info["title"].as_str().unwrap_or_default().to_string();
            }
        }
        Ok(json!({"url": state["url"], "title": title}))
    }
}

impl Ctx {
    /// How many downloads this run has seen (to spot new ones).
    pub async fn download_count(&self) -> Result<usize, ToolError> {
        let list = self
            .app
            .browser
            .call_value(Command::Downloads { from: usize::MAX })
            .await?;
        Ok(list["count"].as_u64().unwrap_or(0) as usize)
    }

    /// Downloads started since `from`, after waiting (bounded) for them to end.
    pub async fn downloads_since(
        &self,
        from: usize,
        limit: Duration,
    ) -> Result<Vec<Value>, ToolError> {
        let start = Instant::now();
        loop {
            let list = self
                .app
                .browser
                .call_value(Command::Downloads { from })
                .await?;
            let items = list["downloads"].as_array().cloned().unwrap_or_default();
            let busy = items.iter().any(|d| d["state"] == "in_progress");
            if !busy || start.elapsed() >= limit {
                return Ok(items);
            }
            tokio::time::sleep(POLL * 4).await;
        }
    }
}

/// The element a tool acts on: a snapshot ref or a CSS selector.
pub fn target(reference: &Option<String>, selector: &Option<String>) -> Result<Value, ToolError> {
    match (reference.as_deref(), selector.as_deref()) {
        (Some(r), None) => Ok(json!({"ref": r})),
        (None, Some(s)) => Ok(json!({"selector": s})),
        (Some(_), Some(_)) => Err(ToolError::invalid_params(
            "give either ref or selector, not both",
        )),
        (None, None) => Err(ToolError::invalid_params(
            "give ref (e.g. @e5 from snapshot) or selector (CSS)",
        )),
    }
}

/// Adds `extra` fields to a target object.
pub fn with(mut target: Value, extra: Value) -> Value {
    if let (Value::Object(t), Value::Object(e)) = (&mut target, extra) {
        t.extend(e);
    }
    target
}

pub use crate::address::normalize_url;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_needs_exactly_one_of_ref_and_selector() {
        assert_eq!(
            target(&Some("@e1".into()), &None).unwrap(),
            json!({"ref": "@e1"})
        );
        assert_eq!(
            target(&None, &Some("#a".into())).unwrap(),
            json!({"selector": "#a"})
        );
        assert!(target(&None, &None).is_err());
        assert!(target(&Some("e1".into()), &Some("#a".into())).is_err());
    }
}
