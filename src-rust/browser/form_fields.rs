//! A submitted form's text fields, as WebKit tells them before the page
//! posts them: its network log shows them as the request's body (WebKit
//! hands over no body of a form's post itself).

use glib::translate::ToGlibPtr;
use webkit2gtk::FormSubmissionRequest;

/// Fields kept of one form, and bytes of their names and values together.
const FIELDS_MAX: usize = 256;
const BYTES_MAX: usize = 64 * 1024;

extern "C" {
    // The binding lacks it.
    fn webkit_form_submission_request_list_text_fields(
        request: *mut webkit2gtk::ffi::WebKitFormSubmissionRequest,
        field_names: *mut *mut glib::ffi::GPtrArray,
        field_values: *mut *mut glib::ffi::GPtrArray,
    ) -> glib::ffi::gboolean;
}

/// The form's text fields as `application/x-www-form-urlencoded` writes
/// them, bounded; none when it has none.
pub fn urlencoded(request: &FormSubmissionRequest) -> Option<String> {
    let mut names = std::ptr::null_mut();
    let mut values = std::ptr::null_mut();
    // SAFETY: a live request; the arrays (of C strings) stay the request's
    // (transfer none) and are read before it can go.
    let pairs = unsafe {
        let has = webkit_form_submission_request_list_text_fields(
            request.to_glib_none().0,
            &mut names,
            &mut values,
        );
        if has == 0 || names.is_null() || values.is_null() {
            return None;
        }
        let count = (*names).len.min((*values).len) as usize;
        let text = |array: *mut glib::ffi::GPtrArray, i: usize| {
            let p = *(*array).pdata.add(i) as *const std::ffi::c_char;
            if p.is_null() {
                String::new()
            } else {
                std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        (0..count.min(FIELDS_MAX))
            .map(|i| (text(names, i), text(values, i)))
            .collect::<Vec<_>>()
    };
    let mut out = String::new();
    for (name, value) in pairs {
        let pair = format!("{}={}", encode(&name), encode(&value));
        if out.len() + pair.len() + 1 > BYTES_MAX {
            break;
        }
        if !out.is_empty() {
            out.push('&');
        }
        out.push_str(&pair);
    }
    Some(out)
}

/// The urlencoded form of `text`: letters, digits and `*-._` as they are,
/// a space as `+`, every other byte as `%XX`.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'*' | b'-' | b'.' | b'_' => {
                out.push(byte as char)
            }
            b' ' => out.push('+'),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::encode;

    #[test]
    fn fields_are_encoded_as_a_form_posts_them() {
        assert_eq!(encode("Ada Lovelace"), "Ada+Lovelace");
        assert_eq!(encode("pw&1=é"), "pw%261%3D%C3%A9");
    }
}
