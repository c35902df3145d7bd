//! What the person does with the window's chrome: the toolbar's buttons,
//! the address bar, the tab strip and the keyboard shortcuts.

use super::event::{ChromeAction, UserEvent};
use super::window::SharedBrowser;
use crate::bridge::Navigation;
use gtk::prelude::*;
use tao::event_loop::EventLoopWindowTarget;
use webkit2gtk::WebViewExt as _;

/// Carries out what the person asked for in the chrome.
pub(super) fn run(
    browser: &SharedBrowser,
    action: ChromeAction,
    target: &EventLoopWindowTarget<UserEvent>,
) {
    use ChromeAction as A;
    let front = browser.borrow().front.get();
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
                    b.chrome.clear_address_error();
                    let _ = b.navigate(front, Navigation::Load(url));
                    if let Ok(tab) = b.tab(front) {
                        tab.webkit.grab_focus();
                    }
                }
                Err(message) => b.chrome.address_error(&message),
            }
        }
        A::NewTab => {
            let mut b = browser.borrow_mut();
            if let Ok(id) = b.add_tab(None) {
                b.show(id);
                b.load(id, "about:blank");
                b.chrome.focus_address();
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
            if let Some(i) = b.index_of(front) {
                let n = b.tabs.len() as i32;
                let next = b.tabs[((i as i32 + step).rem_euclid(n)) as usize].state.id;
                b.show(next);
            }
        }
        A::FocusAddress => browser.borrow().chrome.focus_address(),
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
    }
}
