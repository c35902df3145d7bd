//! Routes each command from the bridge to the part of the browser that
//! does it. Replies now, or from the callback of the work it started.

use super::act::front::{with_chord, with_front_tab};
use super::act::{delivery, element};
use super::input::trusted;
use super::network::{cookies, har, network_body};
use super::page::{audit, capture, script};
use super::tab::state;
use super::window::browser::{SharedBrowser, Tab};
use super::window::event::UserEvent;
use super::window::settings;
use crate::base::error::ToolError;
use crate::base::tab::TabId;
use crate::bridge::{Command, MouseAction, Output, Reply, SettingsChange};
use serde_json::{json, Value};
use std::time::Duration;
use tao::event_loop::EventLoopWindowTarget;

/// Starts `command`; work it starts in WebKit is cancelled after `limit`.
pub(super) fn execute(
    browser: &SharedBrowser,
    command: Command,
    reply: Reply,
    limit: Duration,
    target: &EventLoopWindowTarget<UserEvent>,
) {
    let value = |r: Result<Value, ToolError>| r.map(Output::Value);
    match command {
        Command::SetPaused { paused } => {
            browser.borrow().show_paused(paused);
            let _ = reply.send(Ok(Output::Value(json!({"paused": paused}))));
        }
        Command::WindowScreenshot { context } => {
            let png = browser.borrow().window_png(context);
            let _ = reply.send(png.map(Output::Png));
        }
        Command::ChromeLayout { context } => {
            let _ = reply.send(value(browser.borrow().chrome_layout(context)));
        }
        Command::NewTab {
            url,
            behind,
            context,
        } => {
            let result = browser
                .borrow_mut()
                .open_tab(url.as_deref(), behind, context);
            let _ = reply.send(value(result));
        }
        Command::NewContext {
            name,
            ephemeral,
            max,
        } => {
            let result = browser
                .borrow_mut()
                .open_context(target, name.as_deref(), ephemeral, max);
            let _ = reply.send(value(result));
        }
        Command::CloseContext { context } => {
            let result = browser.borrow_mut().close_context(context);
            let _ = reply.send(value(result));
        }
        Command::TrustSite { context, host, pem } => {
            browser.borrow().trust_site(context, &host, &pem, reply)
        }
        Command::MayRoute { context } => {
            let _ = reply.send(value(browser.borrow().may_route(context)));
        }
        Command::RouteContext { context, access } => {
            let result = browser.borrow().route_context(context, access);
            // Answered once the proxy is in place: the next request goes by it.
            let views = browser.borrow().views_of(context);
            settings::after_network_process(&views, move || {
                let _ = reply.send(value(result));
            });
        }
        Command::BringToFront { tab } => {
            let result = browser.borrow_mut().bring_to_front(tab);
            let _ = reply.send(value(result));
        }
        Command::CloseTab { tab } => {
            let result = browser.borrow_mut().close_tab(tab);
            let _ = reply.send(value(result));
        }
        Command::Navigate { tab, nav } => {
            let _ = reply.send(browser.borrow().navigate(tab, nav));
        }
        Command::Settings { tab, change } => {
            let through_proxy = matches!(change, SettingsChange::Offline(_));
            let result = browser.borrow().change_setting(tab, change);
            let views = match (through_proxy, browser.borrow().context_of(tab)) {
                // Offline is a proxy setting too: answered once in place.
                (true, Ok(context)) => browser.borrow().views_of(context.id()),
                _ => Vec::new(),
            };
            settings::after_network_process(&views, move || {
                let _ = reply.send(value(result));
            });
        }
        Command::Clipboard { write } => {
            let clipboards = browser.borrow().seat().clipboards().clone();
            clipboards.run(write, reply)
        }
        Command::Agent { tab, op, args } => on_tab(browser, tab, reply, |t, reply| {
            script::call_agent(&t.webkit, &t.state, op, args, reply, limit)
        }),
        Command::Act {
            tab,
            target,
            input,
            wait,
        } => element::run(browser, tab, target, input, wait, reply, limit),
        Command::Eval {
            tab,
            script: source,
        } => on_tab(browser, tab, reply, |t, reply| {
            script::eval(&t.webkit, &t.state, &source, reply, limit)
        }),
        Command::Console {
            tab,
            errors,
            level,
            limit,
            clear,
        } => on_tab(browser, tab, reply, |t, reply| {
            let read = t
                .state
                .console()
                .read(errors, level.as_deref(), limit, clear);
            let _ = reply.send(Ok(Output::Value(read)));
        }),
        Command::NetworkList {
            tab,
            after,
            all,
            last,
        } => on_tab(browser, tab, reply, |t, reply| {
            let _ = reply.send(Ok(Output::Value(t.state.requests().list(after, all, last))));
        }),
        Command::NetworkHar { tab, all } => on_tab(browser, tab, reply, |t, reply| {
            let title = webkit2gtk::WebViewExt::title(&t.webkit)
                .map(|t| t.to_string())
                .unwrap_or_default();
            let _ = reply.send(Ok(Output::Value(har::log(t.state.requests(), all, &title))));
        }),
        Command::NetworkRequest { tab, id } => on_tab(browser, tab, reply, |t, reply| {
            let log = t.state.requests();
            let detail = log
                .read(id, |entry| entry.detail())
                .ok_or_else(|| network_body::not_kept(log, id));
            let _ = reply.send(detail.map(Output::Value));
        }),
        Command::NetworkBody { tab, id } => on_tab(browser, tab, reply, |t, reply| {
            network_body::read(&t.webkit, t.state.requests(), id, reply)
        }),
        Command::Cookies { tab, op } => on_tab(browser, tab, reply, |t, reply| {
            cookies::run(&t.webkit, op, reply, limit)
        }),
        Command::Edit {
            tab,
            command,
            argument,
        } => on_tab(browser, tab, reply, |t, reply| {
            delivery::edit(&t.webkit, &t.state, command, argument, reply)
        }),
        Command::Pdf { tab, path } => on_tab(browser, tab, reply, |t, reply| {
            capture::pdf(&t.webkit, path, reply)
        }),
        Command::Screenshot { tab, marks } => {
            on_tab(browser, tab, reply, |t, reply| match t.state.blocked() {
                Some(e) => {
                    let _ = reply.send(Err(e));
                }
                None => capture::screenshot(&t.webkit, marks, reply, limit),
            })
        }
        Command::CancelDownload { context, id } => {
            let result = browser.borrow().cancel_download(context, id);
            let _ = reply.send(value(result));
        }
        Command::Audit { tab, asked } => on_tab(browser, tab, reply, |t, reply| {
            audit::run(&t.webkit, &t.state, asked, reply, limit)
        }),
        Command::Picture { tab, shot } => {
            on_tab(browser, tab, reply, |t, reply| match t.state.blocked() {
                Some(e) => {
                    let _ = reply.send(Err(e));
                }
                None => capture::picture(&t.webkit, shot, reply, limit),
            })
        }
        Command::Thumbnail { tab } => on_tab(browser, tab, reply, |t, reply| {
            capture::thumbnail(&t.webkit, reply, limit)
        }),
        Command::Dialog { tab, action } => on_tab(browser, tab, reply, |t, reply| {
            let _ = reply.send(value(state::dialog_action(&t.webkit, &t.state, action)));
        }),
        Command::Mouse { tab, at, action } => {
            let clipboards = browser.borrow().seat().clipboards().clone();
            let browser = browser.clone();
            let send = move |reply: Reply| {
                with_front_tab(&browser, tab, reply, move |view, hands| {
                    let (x, y) = at.unwrap_or_else(|| hands.pointer());
                    trusted::mouse(view, hands, (x, y), &action).map(|_| json!({"x": x, "y": y}))
                })
            };
            // A middle click pastes the primary selection: not the person's.
            match action {
                MouseAction::Down { button: 2 } | MouseAction::Click { button: 2, .. } => {
                    clipboards.check_middle_click(move |allowed| match allowed {
                        Ok(()) => send(reply),
                        Err(error) => {
                            let _ = reply.send(Err(error));
                        }
                    })
                }
                _ => send(reply),
            }
        }
        Command::TypeText { tab, text } => {
            with_front_tab(browser, tab, reply, move |view, hands| {
                trusted::focus(view, hands)?;
                trusted::type_text(view, hands, &text).map(|_| json!({}))
            });
        }
        Command::PressKey { tab, combo } => {
            with_chord(browser, tab, &combo, reply, |view, hands, chord| {
                trusted::press(view, hands, chord).map(|_| json!({}))
            });
        }
        Command::KeyPhase { tab, combo, down } => {
            with_chord(browser, tab, &combo, reply, move |view, hands, chord| {
                trusted::key_phase(view, hands, chord, down)
                    .map(|_| json!({"held": hands.held_modifiers()}))
            });
        }
    }
}

/// Runs `work` on an open tab, or answers NO_TAB.
fn on_tab(browser: &SharedBrowser, id: TabId, reply: Reply, work: impl FnOnce(&Tab, Reply)) {
    let b = browser.borrow();
    match b.tab(id) {
        Ok(t) => work(t, reply),
        Err(e) => {
            let _ = reply.send(Err(e));
        }
    }
}
