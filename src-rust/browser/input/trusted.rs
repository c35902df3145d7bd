//! Trusted input: GDK events handed to GTK with `main_do_event`, so pages
//! see real user actions (`isTrusted`, text typed into fields, focus moves).

use super::clipboard::{self, Selection};
use super::receipts::Kind;
use super::seat::{button_mask, Seat, AGENT_KEY_MARK};
use crate::base::error::{ErrorCode, ToolError};
use crate::bridge::MouseAction;
use glib::translate::{from_glib_full, ToGlibPtr};
use gtk::prelude::*;
use std::cell::Cell;
use std::ffi::CString;
use std::rc::Rc;
use webkit2gtk::WebView;

/// What agents hold down on one tab's page, and where they left its
/// pointer: kept by the tab, so an agent's Shift held in one tab never
/// reaches a click another agent makes in another. Its events are counted
/// in the browser's one [`Seat`].
pub struct Hands {
    /// Modifier keys and mouse buttons held down (keydown without keyup,
    /// mouse down without up): later events carry them, as a person's
    /// would (Shift+click, a drag's moves).
    held: Cell<u32>,
    /// Where the last pointer event put the pointer, in viewport pixels.
    pointer: Cell<(f64, f64)>,
    seat: Rc<Seat>,
}

impl Hands {
    /// A tab's hands, empty, counting into the browser's `seat`.
    pub fn new(seat: &Rc<Seat>) -> Hands {
        Hands {
            held: Cell::new(0),
            pointer: Cell::new((0.0, 0.0)),
            seat: seat.clone(),
        }
    }

    /// The browser's count of what agents handed to GTK.
    pub fn seat(&self) -> &Seat {
        &self.seat
    }

    /// Where the pointer is, as the last pointer event left it.
    pub fn pointer(&self) -> (f64, f64) {
        self.pointer.get()
    }

    fn held(&self) -> u32 {
        self.held.get()
    }

    fn hold(&self, bits: u32, down: bool) {
        let now = self.held.get();
        self.held.set(if down { now | bits } else { now & !bits });
    }

    /// The modifiers held down now, by name.
    pub fn held_modifiers(&self) -> Vec<&'static str> {
        let mask = self.held();
        [
            (gdk_sys::GDK_CONTROL_MASK, "Control"),
            (gdk_sys::GDK_SHIFT_MASK, "Shift"),
            (gdk_sys::GDK_MOD1_MASK, "Alt"),
            (gdk_sys::GDK_SUPER_MASK, "Meta"),
        ]
        .into_iter()
        .filter(|(bit, _)| mask & bit != 0)
        .map(|(_, name)| name)
        .collect()
    }
}

/// Whether a key event is an agent's: sent now, or handed back by the page.
pub fn is_agents_key(event: &gdk::EventKey) -> bool {
    event.state().bits() & AGENT_KEY_MARK != 0
}

struct Target {
    window: gdk::Window,
    device: gdk::Device,
    /// Offset of the web view inside `window`, and of `window` on screen.
    dx: f64,
    dy: f64,
    root_x: f64,
    root_y: f64,
}

fn pointer_target(view: &WebView) -> Result<Target, ToolError> {
    let widget = view.upcast_ref::<gtk::Widget>();
    let window = widget
        .window()
        .ok_or_else(|| not_ready("the tab is not shown yet; try again"))?;
    let (dx, dy) = if widget.has_window() {
        (0.0, 0.0)
    } else {
        let a = widget.allocation();
        (a.x() as f64, a.y() as f64)
    };
    let (_, ox, oy) = window.origin();
    let device = window
        .display()
        .default_seat()
        .and_then(|seat| seat.pointer())
        .ok_or_else(|| not_ready("no pointer device on this display"))?;
    Ok(Target {
        window,
        device,
        dx,
        dy,
        root_x: ox as f64,
        root_y: oy as f64,
    })
}

fn event_time() -> u32 {
    (glib::monotonic_time() / 1000) as u32
}

/// Moves the pointer to (x, y), then clicks, presses or releases a button.
pub fn mouse(
    view: &WebView,
    hands: &Hands,
    (x, y): (f64, f64),
    action: &MouseAction,
) -> Result<(), ToolError> {
    let t = pointer_target(view)?;
    let (wx, wy) = (x + t.dx, y + t.dy);
    let held = hands.held();
    let out = hands.seat();
    out.dispatch(motion_event(&t, wx, wy, held), held);
    // A page hears of a move only when the pointer went somewhere.
    if hands.pointer.replace((x, y)) != (x, y) {
        out.count(Kind::MouseMove);
    }
    match *action {
        MouseAction::Move => {}
        MouseAction::Wheel { dx, dy } => out.dispatch(scroll_event(&t, wx, wy, dx, dy, held), held),
        MouseAction::Down { button } => {
            out.note_right_press(button);
            let kind = gdk_sys::GDK_BUTTON_PRESS;
            out.dispatch(button_event(&t, kind, wx, wy, button, held), held);
            hands.hold(button_mask(button), true);
        }
        MouseAction::Up { button } => {
            let kind = gdk_sys::GDK_BUTTON_RELEASE;
            out.dispatch(button_event(&t, kind, wx, wy, button, held), held);
            hands.hold(button_mask(button), false);
        }
        MouseAction::Click { button, count } => click(out, &t, (wx, wy), button, count, held),
    }
    Ok(())
}

fn click(out: &Seat, t: &Target, (wx, wy): (f64, f64), button: u32, count: u32, held: u32) {
    out.note_right_press(button);
    let mask = button_mask(button);
    for n in 1..=count.max(1) {
        // GTK sends a double click as press, release, press, 2BUTTON_PRESS,
        // release; WebKit drops the plain press before a 2BUTTON_PRESS it
        // finds queued. Ours are not queued, so the second press is the
        // 2BUTTON_PRESS alone, or the page would see a triple click.
        let kind = if n == 2 {
            gdk_sys::GDK_DOUBLE_BUTTON_PRESS
        } else {
            gdk_sys::GDK_BUTTON_PRESS
        };
        out.dispatch(button_event(t, kind, wx, wy, button, held), held);
        let release = gdk_sys::GDK_BUTTON_RELEASE;
        out.dispatch(button_event(t, release, wx, wy, button, mask | held), held);
    }
}

fn motion_event(t: &Target, x: f64, y: f64, held: u32) -> gdk::Event {
    // SAFETY: gdk_event_new returns an owned, zeroed event of the asked
    // type; we fill the fields of that type only and hand ownership (and a
    // new reference on the window) to the returned wrapper, which frees it.
    unsafe {
        let raw = gdk_sys::gdk_event_new(gdk_sys::GDK_MOTION_NOTIFY);
        let m = raw as *mut gdk_sys::GdkEventMotion;
        (*m).window = t.window.to_glib_full();
        (*m).send_event = 0;
        (*m).time = event_time();
        (*m).x = x;
        (*m).y = y;
        (*m).x_root = x + t.root_x;
        (*m).y_root = y + t.root_y;
        (*m).state = held;
        gdk_sys::gdk_event_set_device(raw, t.device.to_glib_none().0);
        from_glib_full(raw)
    }
}

/// Pixels WebKitGTK scrolls for one unit of a smooth scroll event (measured:
/// a page's wheel event then reports deltaY equal to the pixels asked).
const PIXELS_PER_SCROLL_UNIT: f64 = 87.0;

fn scroll_event(t: &Target, x: f64, y: f64, dx: f64, dy: f64, held: u32) -> gdk::Event {
    // SAFETY: as in motion_event, for a smooth scroll event.
    unsafe {
        let raw = gdk_sys::gdk_event_new(gdk_sys::GDK_SCROLL);
        let s = raw as *mut gdk_sys::GdkEventScroll;
        (*s).window = t.window.to_glib_full();
        (*s).send_event = 0;
        (*s).time = event_time();
        (*s).x = x;
        (*s).y = y;
        (*s).x_root = x + t.root_x;
        (*s).y_root = y + t.root_y;
        (*s).state = held;
        (*s).direction = gdk_sys::GDK_SCROLL_SMOOTH;
        (*s).delta_x = dx / PIXELS_PER_SCROLL_UNIT;
        (*s).delta_y = dy / PIXELS_PER_SCROLL_UNIT;
        gdk_sys::gdk_event_set_device(raw, t.device.to_glib_none().0);
        from_glib_full(raw)
    }
}

fn button_event(
    t: &Target,
    kind: gdk_sys::GdkEventType,
    x: f64,
    y: f64,
    button: u32,
    state: u32,
) -> gdk::Event {
    // SAFETY: as in motion_event, for a button event.
    unsafe {
        let raw = gdk_sys::gdk_event_new(kind);
        let b = raw as *mut gdk_sys::GdkEventButton;
        (*b).window = t.window.to_glib_full();
        (*b).send_event = 0;
        (*b).time = event_time();
        (*b).x = x;
        (*b).y = y;
        (*b).x_root = x + t.root_x;
        (*b).y_root = y + t.root_y;
        (*b).button = button;
        (*b).state = state;
        gdk_sys::gdk_event_set_device(raw, t.device.to_glib_none().0);
        from_glib_full(raw)
    }
}

/// Gives keyboard focus to the web view. Without a window manager the
/// toplevel is never activated, so tell it it has focus first.
pub fn focus(view: &WebView, hands: &Hands) -> Result<(), ToolError> {
    let toplevel = view
        .toplevel()
        .ok_or_else(|| not_ready("the tab has no window"))?;
    let window = toplevel
        .window()
        .ok_or_else(|| not_ready("the window is not shown yet"))?;
    // SAFETY: an owned focus-change event with its window referenced.
    unsafe {
        let raw = gdk_sys::gdk_event_new(gdk_sys::GDK_FOCUS_CHANGE);
        let f = raw as *mut gdk_sys::GdkEventFocus;
        (*f).window = window.to_glib_full();
        (*f).send_event = 1;
        (*f).in_ = 1;
        if let Some(keyboard) = window.display().default_seat().and_then(|s| s.keyboard()) {
            gdk_sys::gdk_event_set_device(raw, keyboard.to_glib_none().0);
        }
        hands.seat().dispatch(from_glib_full(raw), 0);
    }
    view.grab_focus();
    Ok(())
}

/// One key of a chord, as GDK knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub keyval: u32,
    /// The text the key produces, if any.
    pub text: Option<char>,
}

/// A parsed chord such as `Control+Shift+a`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chord {
    pub modifiers: Vec<Key>,
    pub mask: u32,
    pub key: Key,
}

/// Parses `Enter`, `a`, `Control+a`, `Shift+Tab`, `F5`... (DOM key names
/// or GDK key names).
pub fn parse_chord(combo: &str) -> Result<Chord, ToolError> {
    if combo.is_empty() {
        return Err(ToolError::invalid_params(
            "key is empty; use a name such as Enter, Tab, Escape, ArrowDown or a",
        ));
    }
    let mut parts: Vec<&str> = if combo == "+" {
        vec!["+"]
    } else if let Some(rest) = combo.strip_suffix("++") {
        let mut v: Vec<&str> = rest.split('+').collect();
        v.push("+");
        v
    } else {
        combo.split('+').collect()
    };
    let key_name = parts.pop().unwrap_or_default();
    let mut modifiers = Vec::new();
    let mut mask = 0;
    for m in parts {
        let (name, bit) = match m.to_ascii_lowercase().as_str() {
            "control" | "ctrl" => ("Control_L", gdk_sys::GDK_CONTROL_MASK),
            "shift" => ("Shift_L", gdk_sys::GDK_SHIFT_MASK),
            "alt" | "option" => ("Alt_L", gdk_sys::GDK_MOD1_MASK),
            "meta" | "super" | "command" | "cmd" => ("Super_L", gdk_sys::GDK_SUPER_MASK),
            other => {
                return Err(ToolError::invalid_params(format!(
                    "unknown modifier {other:?} in {combo:?}; use Control, Shift, Alt or Meta"
                )))
            }
        };
        modifiers.push(Key {
            keyval: keyval_from_name(name)
                .ok_or_else(|| ToolError::internal("modifier missing from keymap"))?,
            text: None,
        });
        mask |= bit;
    }
    let key = key_from_name(key_name)
        .ok_or_else(|| ToolError::invalid_params(format!("unknown key {key_name:?}; use a name such as Enter, Tab, Escape, ArrowDown, F5 or a single character")))?;
    Ok(Chord {
        modifiers,
        mask,
        key,
    })
}

/// A single character or a DOM / GDK key name.
fn key_from_name(name: &str) -> Option<Key> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.clone().next()) {
        return Some(char_key(c));
    }
    let gdk_name = match name {
        "Enter" | "Return" => "Return",
        "Escape" | "Esc" => "Escape",
        "Backspace" => "BackSpace",
        "ArrowUp" | "Up" => "Up",
        "ArrowDown" | "Down" => "Down",
        "ArrowLeft" | "Left" => "Left",
        "ArrowRight" | "Right" => "Right",
        "PageUp" => "Page_Up",
        "PageDown" => "Page_Down",
        "Space" | "Spacebar" => "space",
        "Shift" => "Shift_L",
        "Control" | "Ctrl" => "Control_L",
        "Alt" => "Alt_L",
        "Meta" | "Super" => "Super_L",
        other => other,
    };
    let keyval = keyval_from_name(gdk_name)?;
    let text = match gdk_name {
        "Return" => Some('\r'),
        "Tab" => Some('\t'),
        "space" => Some(' '),
        _ => None,
    };
    Some(Key { keyval, text })
}

fn char_key(c: char) -> Key {
    let keyval = match c {
        '\n' | '\r' => keyval_from_name("Return").unwrap_or(0xff0d),
        '\t' => keyval_from_name("Tab").unwrap_or(0xff09),
        // SAFETY: a pure lookup function.
        c => unsafe { gdk_sys::gdk_unicode_to_keyval(c as u32) },
    };
    let text = if c == '\n' { '\r' } else { c };
    Key {
        keyval,
        text: Some(text),
    }
}

fn keyval_from_name(name: &str) -> Option<u32> {
    let name = CString::new(name).ok()?;
    // SAFETY: a pure lookup on a valid C string.
    let keyval = unsafe { gdk_sys::gdk_keyval_from_name(name.as_ptr()) };
    (keyval != 0 && keyval != 0xffffff).then_some(keyval)
}

/// Hardware keycode, group and whether Shift is needed, from the keymap
/// (zeros when no key gives it).
fn keymap_entry(display: &gdk::Display, keyval: u32) -> (u16, u8, bool) {
    // GDK refuses keyval 0 with a critical warning: it is on no key.
    if keyval == 0 {
        return (0, 0, false);
    }
    // SAFETY: the keymap belongs to the display; the returned array is ours to free.
    unsafe {
        let keymap = gdk_sys::gdk_keymap_get_for_display(display.to_glib_none().0);
        let mut keys: *mut gdk_sys::GdkKeymapKey = std::ptr::null_mut();
        let mut n = 0;
        let found = gdk_sys::gdk_keymap_get_entries_for_keyval(keymap, keyval, &mut keys, &mut n);
        let entry = if found != 0 && n > 0 && !keys.is_null() {
            let k = *keys;
            (k.keycode as u16, k.group as u8, k.level == 1)
        } else {
            (0, 0, false)
        };
        if !keys.is_null() {
            glib::ffi::g_free(keys as *mut _);
        }
        entry
    }
}

/// Focuses the view and gives what key events need: its toplevel's
/// window, the display and the keyboard device.
fn keyboard_target(
    view: &WebView,
    hands: &Hands,
) -> Result<(gdk::Window, gdk::Display, gdk::Device), ToolError> {
    focus(view, hands)?;
    let window = view
        .toplevel()
        .and_then(|t| t.window())
        .ok_or_else(|| not_ready("the window is not shown yet"))?;
    let display = window.display();
    let keyboard = display
        .default_seat()
        .and_then(|s| s.keyboard())
        .ok_or_else(|| not_ready("no keyboard device on this display"))?;
    Ok((window, display, keyboard))
}

/// Refuses a key that would paste (Control+V, Shift+Insert, with the
/// modifiers held now) unless the clipboard holds what agents put there.
/// GTK's key bindings match the hardware key an event carries, in any
/// layout group, so every keyval of that key counts: a Control with the
/// Cyrillic letter on the V key pastes too.
fn check_paste(chord: &Chord, hands: &Hands) -> Result<(), ToolError> {
    let held = hands.held();
    let mask = chord
        .modifiers
        .iter()
        .fold(chord.mask | held, |mask, m| mask | modifier_bit(m.keyval));
    let meanings = std::iter::once(chord.key.keyval).chain(keyvals_on_its_key(chord.key.keyval));
    let pastes = meanings
        .filter_map(keyval_name)
        .any(|name| match name.as_str() {
            "v" | "V" => mask & gdk_sys::GDK_CONTROL_MASK != 0,
            "Insert" | "KP_Insert" => mask & gdk_sys::GDK_SHIFT_MASK != 0,
            _ => false,
        });
    match pastes && !hands.seat().clipboards().agents_own(Selection::Clipboard) {
        true => Err(clipboard::not_agents(Selection::Clipboard)),
        false => Ok(()),
    }
}

/// Every keyval of the hardware key an event for `keyval` carries (see
/// `keymap_entry`), in every group and level of the keymap.
fn keyvals_on_its_key(keyval: u32) -> Vec<u32> {
    let Some(display) = gdk::Display::default() else {
        return Vec::new();
    };
    let (keycode, _, _) = keymap_entry(&display, keyval);
    if keycode == 0 {
        return Vec::new();
    }
    // SAFETY: the keymap belongs to the display; both arrays are ours to free.
    unsafe {
        let keymap = gdk_sys::gdk_keymap_get_for_display(display.to_glib_none().0);
        let mut keys: *mut gdk_sys::GdkKeymapKey = std::ptr::null_mut();
        let mut keyvals: *mut u32 = std::ptr::null_mut();
        let mut n = 0;
        let found = gdk_sys::gdk_keymap_get_entries_for_keycode(
            keymap,
            u32::from(keycode),
            &mut keys,
            &mut keyvals,
            &mut n,
        );
        let list = if found != 0 && !keyvals.is_null() && n > 0 {
            std::slice::from_raw_parts(keyvals, n as usize).to_vec()
        } else {
            Vec::new()
        };
        glib::ffi::g_free(keys as *mut _);
        glib::ffi::g_free(keyvals as *mut _);
        list
    }
}

/// Presses and releases a chord on the focused web view.
pub fn press(view: &WebView, hands: &Hands, chord: &Chord) -> Result<(), ToolError> {
    let held = hands.held();
    check_paste(chord, hands)?;
    let (window, display, keyboard) = keyboard_target(view, hands)?;
    let send = |kind, key, mask| {
        let event = key_event(&window, &keyboard, &display, kind, key, (mask, held));
        hands.seat().dispatch(event, held);
    };
    let mut mask = 0;
    for m in &chord.modifiers {
        send(gdk_sys::GDK_KEY_PRESS, *m, mask);
        mask |= modifier_bit(m.keyval);
    }
    let mut key_mask = chord.mask;
    let (_, _, shifted) = keymap_entry(&display, chord.key.keyval);
    if shifted {
        key_mask |= gdk_sys::GDK_SHIFT_MASK;
    }
    send(gdk_sys::GDK_KEY_PRESS, chord.key, key_mask);
    send(gdk_sys::GDK_KEY_RELEASE, chord.key, key_mask);
    for m in chord.modifiers.iter().rev() {
        send(gdk_sys::GDK_KEY_RELEASE, *m, mask);
    }
    Ok(())
}

/// Presses (`down`) or releases a chord's keys without the other half, for
/// keydown/keyup: held modifiers then apply to later keys and clicks.
pub fn key_phase(
    view: &WebView,
    hands: &Hands,
    chord: &Chord,
    down: bool,
) -> Result<(), ToolError> {
    if down {
        check_paste(chord, hands)?;
    }
    let (window, display, keyboard) = keyboard_target(view, hands)?;
    let kind = if down {
        gdk_sys::GDK_KEY_PRESS
    } else {
        gdk_sys::GDK_KEY_RELEASE
    };
    let mut keys: Vec<Key> = chord.modifiers.clone();
    keys.push(chord.key);
    if !down {
        keys.reverse();
    }
    for key in keys {
        let held = hands.held();
        hands.seat().dispatch(
            key_event(&window, &keyboard, &display, kind, key, (0, held)),
            held,
        );
        hands.hold(modifier_bit(key.keyval), down);
    }
    Ok(())
}

/// Types text key by key, as a person would.
pub fn type_text(view: &WebView, hands: &Hands, text: &str) -> Result<(), ToolError> {
    let chords: Vec<Chord> = text
        .chars()
        .map(|c| Chord {
            modifiers: Vec::new(),
            mask: 0,
            key: char_key(c),
        })
        .collect();
    // A refused paste (a v while Control is held) types none of the text.
    chords
        .iter()
        .try_for_each(|chord| check_paste(chord, hands))?;
    chords
        .iter()
        .try_for_each(|chord| press(view, hands, chord))
}

/// A letter typed while an agent holds Shift comes out in capitals.
fn with_held_shift(key: Key, held: u32) -> Key {
    if held & gdk_sys::GDK_SHIFT_MASK == 0 {
        return key;
    }
    match key.text {
        Some(c) if c.is_lowercase() => char_key(c.to_uppercase().next().unwrap_or(c)),
        _ => key,
    }
}

fn modifier_bit(keyval: u32) -> u32 {
    match keyval_name(keyval).as_deref() {
        Some("Control_L") => gdk_sys::GDK_CONTROL_MASK,
        Some("Shift_L") => gdk_sys::GDK_SHIFT_MASK,
        Some("Alt_L") => gdk_sys::GDK_MOD1_MASK,
        Some("Super_L") => gdk_sys::GDK_SUPER_MASK,
        _ => 0,
    }
}

fn keyval_name(keyval: u32) -> Option<String> {
    // SAFETY: returns a static string or null.
    unsafe {
        let p = gdk_sys::gdk_keyval_name(keyval);
        (!p.is_null()).then(|| std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned())
    }
}

fn key_event(
    window: &gdk::Window,
    keyboard: &gdk::Device,
    display: &gdk::Display,
    kind: gdk_sys::GdkEventType,
    key: Key,
    (state, held): (u32, u32),
) -> gdk::Event {
    let key = with_held_shift(key, held);
    let (keycode, group, _) = keymap_entry(display, key.keyval);
    let text = key.text.map(|c| c.to_string()).unwrap_or_default();
    let text = CString::new(text).unwrap_or_default();
    // SAFETY: an owned key event; the string is duplicated with g_strdup
    // because gdk_event_free frees it.
    unsafe {
        let raw = gdk_sys::gdk_event_new(kind);
        let k = raw as *mut gdk_sys::GdkEventKey;
        (*k).window = window.to_glib_full();
        (*k).send_event = 0;
        (*k).time = event_time();
        (*k).state = state | held | AGENT_KEY_MARK;
        (*k).keyval = key.keyval;
        (*k).length = text.as_bytes().len() as i32;
        (*k).string = glib::ffi::g_strdup(text.as_ptr());
        (*k).hardware_keycode = keycode;
        (*k).group = group;
        (*k).is_modifier = u32::from(modifier_bit(key.keyval) != 0);
        gdk_sys::gdk_event_set_device(raw, keyboard.to_glib_none().0);
        from_glib_full(raw)
    }
}

/// The view cannot take input now (not shown yet, no device): the page
/// was not reached.
pub fn not_ready(why: &str) -> ToolError {
    ToolError::new(ErrorCode::NotInteractable, why)
}

#[cfg(test)]
pub(crate) mod ffi_edges {
    use super::*;
    use crate::browser::webkit::ffi_harness::shown_view;

    pub fn run(display: &gdk::Display) {
        lookups(display);
        views_not_shown_or_gone();
    }

    /// GDK's keysym and keymap lookups on what names or maps nothing.
    fn lookups(display: &gdk::Display) {
        // Every char has a keyval: a NUL and the last code point too.
        assert_ne!(char_key('\0').keyval, 0);
        assert_eq!(char_key('\u{10FFFF}').keyval, 0x0110_FFFF);
        assert_eq!(keyval_from_name(""), None);
        assert_eq!(keyval_from_name("Ret\0urn"), None, "a NUL names nothing");
        assert_eq!(keyval_from_name("NoSuchKeyAnywhere"), None);
        // NULL for what has no name; a name (or none) for any number.
        assert_eq!(keyval_name(0), None);
        let _ = keyval_name(u32::MAX);
        let a = keyval_from_name("a").expect("a has a keyval");
        assert_eq!(keyval_name(a).as_deref(), Some("a"));
        // On no key of the keymap: no entries (a NULL list), nothing freed twice.
        assert_eq!(keymap_entry(display, 0), (0, 0, false));
        assert_eq!(keymap_entry(display, 0x0110_FFFF), (0, 0, false));
        assert!(keyvals_on_its_key(0).is_empty());
        let (keycode, _, shifted) = keymap_entry(display, a);
        assert!(keycode != 0 && !shifted, "a is on a key, unshifted");
        assert!(keyvals_on_its_key(a).contains(&a));
        let upper = keyval_from_name("A").expect("A");
        assert!(keymap_entry(display, upper).2, "A needs Shift");
    }

    /// Input to a view that was never shown, is shown, and is gone.
    fn views_not_shown_or_gone() {
        let hands = Hands::new(&Rc::new(super::super::seat::Seat::watch()));
        let click = MouseAction::Click {
            button: 1,
            count: 1,
        };
        let enter = parse_chord("Enter").expect("a chord");
        let never_shown = crate::browser::webkit::ffi_harness::new_view();
        let not_ready = |result: Result<(), ToolError>| {
            assert_eq!(
                result.expect_err("refused").code,
                ErrorCode::NotInteractable
            )
        };
        not_ready(focus(&never_shown, &hands));
        not_ready(mouse(&never_shown, &hands, (5.0, 5.0), &click));
        not_ready(press(&never_shown, &hands, &enter));
        not_ready(key_phase(&never_shown, &hands, &enter, true));
        not_ready(type_text(&never_shown, &hands, "x"));
        // Nothing to type needs no window.
        assert!(type_text(&never_shown, &hands, "").is_ok());

        let (window, view) = shown_view("<input autofocus>");
        let sent = hands.seat().sent();
        for _ in 0..2 {
            focus(&view, &hands).expect("focus, twice");
            mouse(&view, &hands, (10.0, 10.0), &click).expect("a click");
            press(&view, &hands, &enter).expect("a key");
            type_text(&view, &hands, "é\0\u{10FFFF}").expect("odd characters type");
        }
        assert!(sent != hands.seat().sent(), "the events were sent");
        // Keys held while the view goes: released into nothing.
        key_phase(&view, &hands, &parse_chord("Shift").expect("Shift"), true).expect("held");
        // Closed: the window and the view's own GDK window are gone; the
        // wrappers keep the objects alive.
        window.close();
        assert!(
            crate::browser::webkit::ffi_harness::spin_until(
                std::time::Duration::from_secs(5),
                || view.window().is_none()
            ),
            "the view's window goes with its toplevel"
        );
        not_ready(focus(&view, &hands));
        not_ready(mouse(&view, &hands, (10.0, 10.0), &click));
        not_ready(key_phase(
            &view,
            &hands,
            &parse_chord("Shift").expect("Shift"),
            false,
        ));
        not_ready(type_text(&view, &hands, "x"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTROL: u32 = 0xffe3; // Control_L
    const SHIFT: u32 = 0xffe1; // Shift_L

    fn chord(combo: &str) -> Chord {
        parse_chord(combo).unwrap_or_else(|e| panic!("{combo:?}: {}", e.message))
    }

    #[test]
    fn a_named_key_alone() {
        let enter = chord("Enter");
        assert_eq!(
            enter.key,
            Key {
                keyval: 0xff0d,
                text: Some('\r')
            }
        );
        assert!(enter.modifiers.is_empty());
        assert_eq!(enter.mask, 0);
        // DOM names and GDK names alike.
        assert_eq!(chord("Return").key, enter.key);
        assert_eq!(chord("ArrowDown").key.keyval, 0xff54);
        assert_eq!(chord("Down").key.keyval, 0xff54);
        assert_eq!(
            chord("F5").key,
            Key {
                keyval: 0xffc2,
                text: None
            }
        );
        assert_eq!(
            chord("Space").key,
            Key {
                keyval: 0x20,
                text: Some(' ')
            }
        );
        assert_eq!(chord("Tab").key.text, Some('\t'));
    }

    #[test]
    fn modifiers_in_order_with_their_mask() {
        let select_all = chord("Control+a");
        assert_eq!(
            select_all.modifiers,
            [Key {
                keyval: CONTROL,
                text: None
            }]
        );
        assert_eq!(select_all.mask, gdk_sys::GDK_CONTROL_MASK);
        assert_eq!(
            select_all.key,
            Key {
                keyval: 0x61,
                text: Some('a')
            }
        );

        let back = chord("ctrl+Shift+Tab");
        let keys: Vec<u32> = back.modifiers.iter().map(|k| k.keyval).collect();
        assert_eq!(keys, [CONTROL, SHIFT]);
        assert_eq!(
            back.mask,
            gdk_sys::GDK_CONTROL_MASK | gdk_sys::GDK_SHIFT_MASK
        );
        assert_eq!(chord("Alt+x").mask, gdk_sys::GDK_MOD1_MASK);
        assert_eq!(chord("Meta+x").mask, gdk_sys::GDK_SUPER_MASK);
        assert_eq!(chord("Command+x").mask, gdk_sys::GDK_SUPER_MASK);
    }

    #[test]
    fn the_plus_key_itself() {
        assert_eq!(chord("+").key.text, Some('+'));
        let zoom = chord("Control++");
        assert_eq!(zoom.key.text, Some('+'));
        assert_eq!(zoom.mask, gdk_sys::GDK_CONTROL_MASK);
        // A character beyond ASCII is its own key.
        assert_eq!(chord("é").key.text, Some('é'));
    }

    #[test]
    fn what_names_no_key_is_a_clear_error() {
        for (combo, says) in [
            ("", "key is empty"),
            ("Hyper+a", "unknown modifier \"hyper\""),
            ("NoSuchKey", "unknown key \"NoSuchKey\""),
            ("Control+", "unknown key \"\""),
            ("Control+Nope", "unknown key \"Nope\""),
        ] {
            let error = parse_chord(combo).expect_err(combo);
            assert_eq!(error.code, ErrorCode::InvalidParams, "{combo:?}");
            assert!(error.message.contains(says), "{combo:?}: {}", error.message);
        }
    }
}
