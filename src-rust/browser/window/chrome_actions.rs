//! What the person does with the window's chrome: the toolbar's buttons,
//! the address bar, the tab strip and the keyboard shortcuts.

use super::browser::SharedBrowser;
use super::event::{ChromeAction, UserEvent};
use crate::base::context::ContextId;
use crate::bridge::Navigation;
use gtk::prelude::*;
use tao::event_loop::EventLoopWindowTarget;
use webkit2gtk::WebViewExt as _;

/// Carries out what the person asked for in the chrome.
pub(crate) fn run(
    browser: &SharedBrowser,
    context: ContextId,
    action: ChromeAction,
    target: &EventLoopWindowTarget<UserEvent>,
) {
    use ChromeAction as A;
    // The window may have closed since the person's click was posted.
    let Ok(front) = browser.borrow().context(context).map(|c| c.front.get()) else {
        return;
    };
    let chrome = |b: &super::browser::Browser| b.context(context).map(|c| c.chrome.clone());
    match action {
        A::Back => {
            let _ = browser.borrow().navigate(front, Navigation::Back);
        }
        A::Forward => {
            let _ = browser.borrow().navigate(front, Navigation::Forward);
        }
        A::ReloadOrStop => {
            let b = browser.borrow();
            if let Ok(tab) = b.tab(front) {
                if tab.webkit.is_loading() {
                    tab.webkit.stop_loading();
                } else {
                    tab.webkit.reload();
                }
            }
        }
        A::Navigate(text) => {
            let b = browser.borrow();
            match crate::address::from_typed(&text, b.search_url.as_deref()) {
                Ok(url) => {
                    if let Ok(chrome) = chrome(&b) {
                        chrome.clear_address_error();
                    }
                    let _ = b.navigate(front, Navigation::Load(url));
                    if let Ok(tab) = b.tab(front) {
                        tab.webkit.grab_focus();
                    }
                }
                Err(message) => {
                    if let Ok(chrome) = chrome(&b) {
                        chrome.address_error(&message);
                    }
                }
            }
        }
        A::NewTab => {
            let mut b = browser.borrow_mut();
            if let Ok(id) = b.add_tab(None, context) {
                b.show(id);
                b.load(id, "about:blank");
                if let Ok(chrome) = chrome(&b) {
                    chrome.focus_address();
                }
            }
        }
        A::Select(id) => browser.borrow_mut().show(id),
        A::Close(id) => {
            let _ = browser.borrow_mut().close_tab(id);
        }
        A::CloseFront => {
            let _ = browser.borrow_mut().close_tab(front);
        }
        A::Cycle(step) => {
            let mut b = browser.borrow_mut();
            let strip = b.strip(context);
            if let Some(i) = strip.iter().position(|&id| id == front) {
                let n = strip.len() as i32;
                b.show(strip[((i as i32 + step).rem_euclid(n)) as usize]);
            }
        }
        A::FocusAddress => {
            if let Ok(chrome) = chrome(&browser.borrow()) {
                chrome.focus_address();
            }
        }
        A::OpenPanel => {
            let url = browser.borrow().panel_url.clone();
            match url {
                Some(url) => {
                    if let Err(e) = browser.borrow_mut().open_panel(target, &url) {
                        tracing::warn!("cannot open the control panel window: {e}");
                    }
                }
                None => tracing::warn!("no panel address known"),
            }
        }
        A::RemoveRoutes => {
            tracing::info!(context, "the person removes the window's routes");
            if !browser.borrow().remove_routes(context) {
                // An agent is adding or removing a route: the person's
                // click is carried out right after.
                let proxy = browser.borrow().proxy.clone();
                glib::timeout_add_local_once(std::time::Duration::from_millis(20), move || {
                    let _ = proxy.send_event(UserEvent::Chrome(context, A::RemoveRoutes));
                });
            }
        }
    }
}
