//! Runs a tool call for a session: the checks every call passes (the
//! person's own tools, login, pause, arguments), its time limit, and the
//! call log. Every transport comes here.

use super::app::App;
use super::declaration::{reject_nul, TAB_PARAM};
use super::record_step;
use super::ToolResult;
use super::{Ctx, Found, Registry, ToolDef};
use crate::base::call_log::{RequestRange, UNKNOWN_TOOL};
use crate::base::caller::{Principal, Session, Transport};
use crate::base::error::{ErrorCode, ToolError};
use crate::base::secret::Wiped;
use crate::base::tab::TabId;
use crate::hold::Reach;
use futures_util::future::BoxFuture;
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Default limit of one tool call; tools with a `timeout` or `ms`
/// parameter get that plus a margin.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(30);

fn call_limit(registry: &Registry, schema: &Value, params: &Value) -> Duration {
    // A batch may take as long as its commands together.
    if let Some(commands) = params.get("commands").and_then(Value::as_array) {
        let total: Duration = commands
            .iter()
            .map(|c| {
                let tool = c.get("tool").and_then(Value::as_str);
                let def = tool
                    .and_then(|name| registry.find(name))
                    .map(|f| registry.def(f));
                let schema = def.map_or(&Value::Null, |d| &d.input_schema);
                call_limit(registry, schema, c.get("params").unwrap_or(&Value::Null))
            })
            .sum();
        return total.clamp(DEFAULT_TOOL_TIMEOUT, Duration::from_secs(600));
    }
    let margin = |ms: u64| Duration::from_millis(ms.min(600_000)) + Duration::from_secs(5);
    let asked = ["timeout", "ms"]
        .iter()
        .filter_map(|k| params.get(*k).and_then(Value::as_u64))
        .max();
    // Not asked: the tool's own default, when it waits longer than the
    // usual limit (ask_person waits five minutes when not told otherwise).
    let default = ["timeout", "ms"]
        .iter()
        .filter_map(|k| schema["properties"][*k]["default"].as_u64())
        .max();
    match (asked, default) {
        (Some(ms), _) => margin(ms),
        (None, Some(ms)) => margin(ms).max(DEFAULT_TOOL_TIMEOUT),
        (None, None) => DEFAULT_TOOL_TIMEOUT,
    }
}

/// What a call did: its result, and the tab it acted on (tab tools).
pub struct Call {
    pub result: ToolResult,
    pub tab: Option<TabId>,
}

/// Runs a tool by name for a session: the only way any tool runs.
pub async fn dispatch(
    app: &Arc<App>,
    session: &Arc<Session>,
    name: &str,
    params: Value,
) -> ToolResult {
    let named = app.tools.find(name).ok_or(name);
    call(app, session, named, params, 0).await.result
}

/// [`dispatch`] for a tool the transport found already (MCP refuses an
/// unknown name as a protocol error), telling also which tab it acted on.
pub async fn dispatch_found(
    app: &Arc<App>,
    session: &Arc<Session>,
    found: Found,
    params: Value,
) -> Call {
    call(app, session, Ok(found), params, 0).await
}

/// [`dispatch`] for a call `depth` batches deep (boxed: a batch calls it again).
pub fn dispatch_at<'a>(
    app: &'a Arc<App>,
    session: &'a Arc<Session>,
    name: &'a str,
    params: Value,
    depth: u32,
) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move {
        let named = app.tools.find(name).ok_or(name);
        call(app, session, named, params, depth).await.result
    })
}

/// Runs the tool found, or refuses a name no offered tool has.
fn call<'a>(
    app: &'a Arc<App>,
    session: &'a Arc<Session>,
    named: Result<Found, &'a str>,
    params: Value,
    depth: u32,
) -> BoxFuture<'a, Call> {
    Box::pin(async move {
        let started = Instant::now();
        // A stop waits (within its grace) for the calls running.
        let _running = app.health.call_started();
        let def = named.ok().map(|found| app.tools.def(found));
        // Logged under the tool's name, or for a name that is no tool's
        // under a fixed placeholder (the agent chose it, of any length).
        let logged = def.map_or(UNKNOWN_TOOL, |def| def.name);
        // The window shows which agent works on which tab (it reads this itself).
        let shown = def.is_some_and(|d| d.gated);
        let named_tab = params.get(TAB_PARAM).and_then(Value::as_u64);
        if shown {
            let who = session
                .client_name()
                .unwrap_or_else(|| session.transport.as_str().to_string());
            app.activity
                .start(&session.id, &who, logged, named_tab.or(session.tab()));
        }
        // A call dropped midway (its client went away) is still logged,
        // and the window stops showing it.
        let mut unfinished = Unfinished {
            app,
            session,
            logged,
            started,
            shown,
            armed: true,
        };
        let ctx = Ctx::new(app.clone(), session.clone(), depth);
        let recorded = record_step::before(&ctx, named_tab.or(session.tab()), &params);
        let requests_before = app.browser.newest_requests();
        let result = match def {
            Some(def) => run(&ctx, def, params).await,
            None => {
                // They may hold secrets all the same.
                drop(Wiped(params));
                let name = named.err().unwrap_or_default();
                Err(ToolError::new(
                    ErrorCode::UnknownTool,
                    app.tools.why_missing(name),
                ))
            }
        };
        unfinished.armed = false;
        let tab = ctx.acted_tab();
        let requests = tab.and_then(|tab| {
            RequestRange::between(tab, &requests_before, &app.browser.newest_requests())
        });
        if shown {
            let failed = result.as_ref().err().map(|e| e.code);
            app.activity
                .finish(&session.id, tab.or(session.tab()), failed);
        }
        let n = session.record_call();
        let elapsed = started.elapsed();
        if let Some(before) = recorded {
            let done = record_step::Done {
                n,
                tool: logged,
                result: &result,
                took: elapsed,
                tab,
                requests,
            };
            record_step::record(&ctx, before, done);
        }
        let outcome = result.as_ref().err().map_or("ok", |e| e.code.as_str());
        app.metrics.observe(logged, outcome, elapsed);
        // The panel reading the person's own records (audit, recordings,
        // decisions) as they change is no one's work: not logged.
        let panel_read = session.transport == Transport::Panel
            && def.is_some_and(|d| d.person_only && d.hints.read_only);
        if !panel_read {
            app.calls.record(
                session,
                logged,
                elapsed,
                result.as_ref().err().map(|e| e.code),
                requests,
                context_name(app, tab, session),
            );
        }
        match &result {
            Ok(_) => {
                tracing::debug!(tool = logged, session = %session.id, ms = elapsed.as_millis() as u64, "tool ok")
            }
            Err(e) => {
                tracing::debug!(tool = logged, session = %session.id, ms = elapsed.as_millis() as u64, code = %e.code, "tool failed")
            }
        }
        Call { result, tab }
    })
}

/// The name of the context a call worked in: its tab's, else its session's.
fn context_name(app: &App, tab: Option<TabId>, session: &Session) -> Option<String> {
    app.browser.peek(|state| {
        let context = tab
            .and_then(|t| state.tab(t))
            .map_or_else(|| session.context(), |t| t.context);
        state.context(context).map(|c| c.name.clone())
    })
}

/// Logs a call that ended without a result (cancelled) when dropped armed.
struct Unfinished<'a> {
    app: &'a Arc<App>,
    session: &'a Arc<Session>,
    logged: &'static str,
    started: Instant,
    shown: bool,
    armed: bool,
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        if self.shown {
            self.app.activity.finish(
                &self.session.id,
                self.session.tab(),
                Some(ErrorCode::Cancelled),
            );
        }
        self.session.record_call();
        let elapsed = self.started.elapsed();
        let cancelled = ErrorCode::Cancelled;
        self.app
            .metrics
            .observe(self.logged, cancelled.as_str(), elapsed);
        self.app.calls.record(
            self.session,
            self.logged,
            elapsed,
            Some(ErrorCode::Cancelled),
            None,
            context_name(self.app, None, self.session),
        );
        tracing::debug!(tool = self.logged, session = %self.session.id, ms = elapsed.as_millis() as u64, "tool call cancelled");
    }
}

async fn run(ctx: &Ctx, def: &ToolDef, params: Value) -> ToolResult {
    // Arguments may hold secrets: wiped if the call is refused before its
    // handler (which reads and wipes them itself) takes them.
    let mut params = Wiped(params);
    let app = &ctx.app;
    let session = &ctx.session;
    let name = def.name;
    if app.health.is_stopping() {
        return Err(ToolError::new(
            ErrorCode::Busy,
            "the browser is stopping (it was asked to end); call again once it is back",
        ));
    }
    if def.person_only && session.transport.principal() != Principal::Person {
        return Err(ToolError::new(
            ErrorCode::UnknownTool,
            format!(
                "{name} is the person's own action, taken in the control panel; agents may not call it"
            ),
        ));
    }
    if def.shown_when.is_some_and(|shown| !shown(app)) {
        return Err(ToolError::new(
            ErrorCode::UnknownTool,
            format!("{name} is offered only while a person allows it in the control panel"),
        ));
    }
    if def.gated && !ctx.identity()?.is_logged_in() {
        return Err(ToolError::new(
            ErrorCode::NotLoggedIn,
            "no identity is logged in; call login first (method local with an nsec, or readonly with an npub)",
        ));
    }
    if def.gated {
        ctx.check_hold(Reach::Browser)?;
    }
    if def.changes_identity {
        ctx.check_hold(Reach::Identity)?;
    }
    reject_nul(&params)?;
    let limit = call_limit(&app.tools, &def.input_schema, &params);
    let params = std::mem::take(&mut *params);
    let result = tokio::time::timeout(limit, (def.handler)(ctx.clone(), params))
        .await
        .unwrap_or_else(|_| Err(timed_out(name, limit)));
    // The session's tab closed during the call: the call is not run again
    // elsewhere (its refs and effects belong to that tab), but the next
    // call acts on the tab in front.
    if matches!(&result, Err(e) if e.code == ErrorCode::NoTab) {
        if let Some(tab) = session.tab() {
            if app.browser.tab_info(tab).is_err() {
                session.set_tab(None);
            }
        }
    }
    result
}

impl Ctx {
    /// PAUSED when the person holds what this call would reach: the one
    /// check of the pause and of the tab they handle for an agent.
    pub fn check_hold(&self, reach: Reach) -> Result<(), ToolError> {
        self.app
            .holds()
            .check(self.session.transport.principal(), reach)
    }

    /// The tab a tab tool's call acts on, resolved once before its handler
    /// runs: named in the call's result, and refused while the person
    /// handles it for an agent.
    /// The tab a tab tool acts on: the one named, else this session's in
    /// the context named (a tool taking `context`), else this session's.
    pub(super) async fn call_tab(
        &self,
        handle: Option<TabId>,
        context: Option<&str>,
    ) -> Result<TabId, ToolError> {
        let tab = match (handle, context) {
            (None, Some(_)) => self.tab_in(self.context_named(context)?)?,
            (Some(_), Some(_)) => {
                let tab = self.tab_for(handle).await?;
                let wanted = self.context_named(context)?;
                if self.tab_info(tab)?.context != wanted {
                    return Err(ToolError::invalid_params(format!(
                        "tab {tab} is not in context {}; name one of them",
                        context.unwrap_or_default()
                    )));
                }
                tab
            }
            _ => self.tab_for(handle).await?,
        };
        self.acted_on(tab);
        self.check_hold(Reach::Tab(tab))?;
        Ok(tab)
    }
}

fn timed_out(name: &str, limit: Duration) -> ToolError {
    ToolError::timeout(format!(
        "{name} did not finish within {} ms",
        limit.as_millis()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn limits_follow_timeout_parameters_and_the_tools_own_defaults() {
        let registry = Registry::new();
        let limit = |params: Value| call_limit(&registry, &Value::Null, &params);
        assert_eq!(limit(json!({})), DEFAULT_TOOL_TIMEOUT);
        assert_eq!(limit(json!({"timeout": 1000})), Duration::from_millis(6000));
        assert_eq!(limit(json!({"ms": 200})), Duration::from_millis(5200));
        // ask_person waits 300,000 ms by default: its limit follows.
        let ask = registry.def(registry.find("ask_person").unwrap());
        let waits = Duration::from_millis(300_000) + Duration::from_secs(5);
        assert_eq!(
            call_limit(&registry, &ask.input_schema, &json!({"message": "x"})),
            waits
        );
        let batch = json!({"commands": [{"tool": "ask_person", "params": {"message": "x"}}]});
        assert_eq!(limit(batch), waits, "inside a batch too");
    }

    // The dispatch against a fake browser: what runs, how often, and how
    // long it waits, in tokio's paused time (no wall clock involved).
    use crate::bridge::{Acted, Command, ElementInput, Landed, Outcome, Output};
    use crate::page_protocol::Target;
    use crate::tools::fake_browser::{agent_session, log_in, FakeBrowser};
    use crate::tools::output::ToolOutput;
    use tokio::time::Instant;

    /// A program around a fake browser, logged in, and an agent's session.
    fn logged_in() -> (Arc<App>, Arc<FakeBrowser>, Arc<Session>) {
        let (app, fake) = FakeBrowser::app();
        log_in(&app);
        let session = agent_session(&app);
        (app, fake, session)
    }

    fn value(output: ToolOutput) -> Value {
        match output {
            ToolOutput::Json(map) => Value::Object(map),
            other => panic!("expected JSON, got {other:?}"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn browser_tools_refuse_before_login_and_send_nothing() {
        let (app, fake) = FakeBrowser::app();
        let session = agent_session(&app);
        let error = dispatch(&app, &session, "get_url", json!({}))
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::NotLoggedIn);
        assert!(fake.sent().is_empty(), "{:?}", fake.sent());
    }

    #[tokio::test(start_paused = true)]
    async fn a_call_to_no_tool_is_logged_under_the_placeholder_and_refused_briefly() {
        let (app, _fake, session) = logged_in();
        let name = "x".repeat(4 << 20);
        let error = dispatch(&app, &session, &name, json!({}))
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::UnknownTool);
        assert!(error.message.len() < 200, "{}", error.message.len());
        let logged = app.calls.recent();
        assert_eq!(logged.last().unwrap().tool, UNKNOWN_TOOL);
        dispatch(&app, &session, "get_url", json!({})).await.ok();
        assert_eq!(app.calls.recent().last().unwrap().tool, "get_url");
    }

    #[tokio::test(start_paused = true)]
    async fn paused_agents_reach_no_page() {
        let (app, fake, session) = logged_in();
        app.paused.set(true);
        let error = dispatch(&app, &session, "click", json!({"ref": "@e1"}))
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::Paused);
        assert!(fake.sent().is_empty(), "{:?}", fake.sent());
    }

    // Regression: the pause held the panel too, so the person's own view
    // of the network (network_watch) failed while they had paused agents.
    #[tokio::test(start_paused = true)]
    async fn the_persons_own_calls_go_through_while_agents_are_paused() {
        let (app, _fake, agent) = logged_in();
        let person = app
            .sessions
            .create(crate::base::caller::Transport::Panel)
            .unwrap();
        app.paused.set(true);
        let refused = dispatch(&app, &agent, "get_url", json!({})).await;
        assert_eq!(refused.unwrap_err().code, ErrorCode::Paused);
        let url = dispatch(&app, &person, "get_url", json!({})).await.unwrap();
        assert_eq!(value(url)["url"], "http://127.0.0.1:9/page.html");
    }

    // Regression: login, logout and switch_identity were ungated, so an
    // agent changed the identity while the person had paused the agents
    // or worked in a tab an agent handed them.
    #[tokio::test(start_paused = true)]
    async fn the_identity_is_the_persons_while_they_hold_the_browser() {
        let (app, _fake, agent) = logged_in();
        let person = app
            .sessions
            .create(crate::base::caller::Transport::Panel)
            .unwrap();
        let before = app.identity.status().await;
        let calls = [
            ("logout", json!({})),
            (
                "login",
                json!({"method": "readonly", "npub": "npub16sdj9zv4f8sl85e45vgq9n7nsgt5qphpvmf7vk8r5hhvmdjxx4es8rq74h"}),
            ),
            (
                "switch_identity",
                json!({"method": "readonly", "npub": "npub16sdj9zv4f8sl85e45vgq9n7nsgt5qphpvmf7vk8r5hhvmdjxx4es8rq74h"}),
            ),
        ];
        let batch = json!({"commands": [{"tool": "logout"}]});
        app.paused.set(true);
        for (name, params) in calls.clone() {
            let error = dispatch(&app, &agent, name, params).await.unwrap_err();
            assert_eq!(error.code, ErrorCode::Paused, "{name}: {error}");
        }
        let carried = value(
            dispatch(&app, &agent, "batch", batch.clone())
                .await
                .unwrap(),
        );
        assert_eq!(
            carried["results"][0]["error"]["code"], "PAUSED",
            "{carried}"
        );
        assert_eq!(
            app.identity.status().await,
            before,
            "unchanged while paused"
        );
        app.paused.set(false);

        let (id, _answer) = app
            .asks
            .start(
                1,
                "Enter the code",
                ("asker", "s1"),
                Duration::from_secs(60),
            )
            .unwrap();
        for (name, params) in calls.clone() {
            let error = dispatch(&app, &agent, name, params).await.unwrap_err();
            assert_eq!(error.code, ErrorCode::Paused, "{name}: {error}");
            assert!(error.message.contains("Enter the code"), "{error}");
        }
        assert_eq!(
            app.identity.status().await,
            before,
            "unchanged during an ask"
        );
        // The person's own calls go through.
        let out = value(dispatch(&app, &person, "logout", json!({})).await.unwrap());
        assert_eq!(out["logged_in"], false);
        app.asks.end(1, id);
        let back = value(
            dispatch(&app, &agent, "switch_identity", calls[2].1.clone())
                .await
                .unwrap(),
        );
        assert_eq!(
            back["method"], "readonly",
            "once the person is done, agents may again"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn tab_state_is_read_without_a_round_trip() {
        let (app, fake, session) = logged_in();
        let url = dispatch(&app, &session, "get_url", json!({}))
            .await
            .unwrap();
        assert_eq!(value(url)["url"], "http://127.0.0.1:9/page.html");
        assert!(fake.sent().is_empty(), "{:?}", fake.sent());
    }

    #[tokio::test(start_paused = true)]
    async fn a_tab_closed_mid_call_ends_it_once_with_no_tab() {
        let (app, fake, session) = logged_in();
        // A second tab to fall back to, which a retry would act on.
        fake.state.send_modify(|s| {
            s.tabs.push(crate::tools::fake_browser::loaded_tab(
                2,
                "http://127.0.0.1:9/other.html",
            ))
        });
        fake.update_tab(2, |t| t.front = false);
        fake.answer_with(|fake, command, reply| {
            if let Command::Agent { tab, .. } = command {
                // The page closes its window while the operation runs.
                fake.state.send_modify(|s| s.tabs.retain(|t| t.id != tab));
                fake.update_tab(2, |t| t.front = true);
                let _ = reply.send(Err(crate::bridge::tab_closed()));
            }
        });
        let error = dispatch(&app, &session, "get_text", json!({"selector": "p"}))
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::NoTab);
        assert_eq!(fake.sent(), ["Agent"], "the handler ran once");
        assert_eq!(session.tab(), None, "the next call resolves the front tab");
    }

    #[tokio::test(start_paused = true)]
    async fn a_crashed_page_is_refused_at_once_but_the_tab_can_recover() {
        let (app, fake, session) = logged_in();
        let tab = fake.state.borrow().tabs[0].id;
        fake.update_tab(tab, |t| {
            t.crashed = Some(crate::base::tab::PageEnd::Crashed)
        });
        for (tool, args) in [
            ("get_title", json!({})),
            ("get_url", json!({})),
            ("click", json!({"ref": "@e1"})),
            ("snapshot", json!({})),
        ] {
            let error = dispatch(&app, &session, tool, args).await.unwrap_err();
            assert_eq!(error.code, ErrorCode::PageCrashed, "{tool}");
            assert!(error.message.contains("reload"), "{tool}: {error}");
        }
        assert!(
            fake.sent().is_empty(),
            "nothing reached the page: {:?}",
            fake.sent()
        );
        // Reading what the browser kept, and loading a page again, go on
        // to the browser.
        fake.answer_with(|_, _, reply| {
            let _ = reply.send(Err(ToolError::internal("answered")));
        });
        for tool in ["console", "network_requests", "reload"] {
            let error = dispatch(&app, &session, tool, json!({})).await.unwrap_err();
            assert_eq!(error.message, "answered", "{tool} reached the browser");
        }
    }

    /// What the browser answers for an element input that did `outcome`.
    fn acted(outcome: Outcome) -> Output {
        let element = None;
        Output::Acted(Acted { outcome, element })
    }

    #[tokio::test(start_paused = true)]
    async fn a_click_that_asks_for_no_navigation_answers_at_once() {
        let (app, fake, session) = logged_in();
        fake.answer_with(|_, command, reply| {
            let answer = match command {
                Command::Act { .. } => acted(Outcome::Clicked {
                    at: (10.0, 20.0),
                    landed: Landed::OnTarget,
                }),
                _ => Output::Value(json!({})),
            };
            let _ = reply.send(Ok(answer));
        });
        let start = Instant::now();
        let clicked = value(
            dispatch(&app, &session, "click", json!({"ref": "@e1"}))
                .await
                .unwrap(),
        );
        assert_eq!(clicked["navigated"], false);
        // The checks and the click are one command to the browser.
        assert_eq!(fake.sent(), ["Act"]);
        assert_eq!(Instant::now(), start, "no grace was waited");
    }

    // Regression: drag crossed to the main thread 17 times with sleeps
    // between (three checks, then each press, move and release), check
    // three times (read, click, read back), upload four (find the input,
    // arm the tab, click, read what it holds), a fill that submits two.
    #[tokio::test(start_paused = true)]
    async fn drag_check_upload_and_a_submitting_fill_are_each_one_command() {
        let (app, fake, session) = logged_in();
        fake.answer_with(|_, command, reply| {
            let answer = match command {
                Command::Act {
                    input: ElementInput::Drag { ref to, .. },
                    ..
                } => {
                    assert_eq!(
                        to,
                        &Target::Selector("#zone".into()),
                        "the goal goes with it"
                    );
                    acted(Outcome::Dragged {
                        real_pointer: true,
                        note: None,
                    })
                }
                Command::Act {
                    input: ElementInput::Check { want },
                    ..
                } => acted(Outcome::Checked {
                    checked: Some(want),
                    changed: true,
                }),
                Command::Act {
                    input:
                        ElementInput::Fill {
                            ref value, submit, ..
                        },
                    ..
                } => {
                    assert!(submit, "the Enter goes with the fill");
                    acted(Outcome::Field {
                        value: json!({"value": value}),
                        by_script: false,
                    })
                }
                Command::Act {
                    input:
                        ElementInput::Upload {
                            ref files,
                            ref expect,
                        },
                    ..
                } => {
                    assert_eq!(expect, &json!([{"name": "a.txt", "size": 5}]));
                    acted(Outcome::Uploaded {
                        input: "e1".into(),
                        files: files.iter().map(|f| json!(f)).collect(),
                        given: files.len(),
                        opened_by: None,
                    })
                }
                _ => Output::Value(json!({})),
            };
            let _ = reply.send(Ok(answer));
        });
        let dragged = dispatch(
            &app,
            &session,
            "drag",
            json!({"src_selector": "#item", "tgt_selector": "#zone"}),
        )
        .await
        .unwrap();
        let dragged = value(dragged);
        assert_eq!(dragged["dragged"], true);
        assert_eq!(dragged["navigated"], false);
        assert_eq!(fake.sent(), ["Act"]);
        let checked = value(
            dispatch(&app, &session, "uncheck", json!({"selector": "#news"}))
                .await
                .unwrap(),
        );
        assert_eq!(checked, json!({"checked": false, "changed": true}));
        assert_eq!(fake.sent(), ["Act", "Act"]);
        let file = app.files.root().join("a.txt");
        std::fs::write(&file, "hello").expect("a file in the files folder");
        let file = file.to_string_lossy().into_owned();
        let uploaded = dispatch(
            &app,
            &session,
            "upload",
            json!({"selector": "#f", "files": [file]}),
        )
        .await
        .unwrap();
        assert_eq!(value(uploaded)["files"], json!([file]));
        assert_eq!(fake.sent(), ["Act", "Act", "Act"]);
        let filled = dispatch(
            &app,
            &session,
            "fill",
            json!({"selector": "#q", "value": "wool", "submit": true}),
        )
        .await
        .unwrap();
        let filled = value(filled);
        assert_eq!(
            (filled["value"].clone(), filled["submitted"].clone()),
            (json!("wool"), json!(true))
        );
        assert_eq!(fake.sent(), ["Act", "Act", "Act", "Act"]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_click_that_asks_for_a_navigation_waits_for_its_load() {
        let (app, fake, session) = logged_in();
        fake.answer_with(|fake, command, reply| {
            let answer = match command {
                Command::Act { tab, .. } => {
                    // The gesture asked for a navigation; it loads later.
                    fake.update_tab(tab, |t| t.nav.requested += 1);
                    let state = fake.state.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(40)).await;
                        state.send_modify(|s| {
                            let t = &mut s.tabs[0];
                            t.nav.started += 1;
                            t.loading = true;
                        });
                        tokio::time::sleep(Duration::from_millis(60)).await;
                        state.send_modify(|s| {
                            let t = &mut s.tabs[0];
                            t.nav.committed += 1;
                            t.nav.finished = t.nav.started;
                            t.loading = false;
                            t.url = "http://127.0.0.1:9/next.html".into();
                        });
                    });
                    acted(Outcome::Clicked {
                        at: (1.0, 1.0),
                        landed: Landed::OnTarget,
                    })
                }
                _ => Output::Value(json!({})),
            };
            let _ = reply.send(Ok(answer));
        });
        let start = Instant::now();
        let clicked = value(
            dispatch(&app, &session, "click", json!({"ref": "@e1"}))
                .await
                .unwrap(),
        );
        assert_eq!(clicked["navigated"], true, "{clicked}");
        assert_eq!(clicked["url"], "http://127.0.0.1:9/next.html");
        assert_eq!(
            Instant::now() - start,
            Duration::from_millis(100),
            "answered when the load ended"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_browser_that_never_answers_times_the_call_out() {
        let (app, fake, session) = logged_in();
        let start = Instant::now();
        let error = dispatch(&app, &session, "get_text", json!({"selector": "p"}))
            .await
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::Timeout, "{error}");
        assert_eq!(fake.sent(), ["Agent"]);
        assert!(Instant::now() - start <= DEFAULT_TOOL_TIMEOUT);
    }
}
