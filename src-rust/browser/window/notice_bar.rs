//! A bar across a window: a sign, a line of text, a button. Shown only
//! when asked (not by the window's show_all): the paused agents, a page
//! that ended, window.nostr requests, agents' routes.

use gtk::prelude::*;

pub fn notice_bar(name: &str, sign: &str, text: &gtk::Label, action: &gtk::Button) -> gtk::Box {
    let bar = gtk::Box::new(gtk::Orientation::Horizontal, 8);
    bar.set_border_width(4);
    bar.set_widget_name(name);
    text.set_xalign(0.0);
    text.set_ellipsize(gtk::pango::EllipsizeMode::End);
    action.set_relief(gtk::ReliefStyle::Normal);
    bar.pack_start(&gtk::Label::new(Some(sign)), false, false, 4);
    bar.pack_start(text, true, true, 0);
    bar.pack_end(action, false, false, 0);
    bar.show_all();
    bar.set_no_show_all(true);
    bar
}
