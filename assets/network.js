// Sovereign Browser network recorder. The web process extension
// (src-rust/web-extension/network.c) evaluates this in each frame's page
// world before any page script and calls the function it returns with
// `report`, a native function only this closure holds, and the most bytes
// to keep of one body. WebKit tells the browser about every request itself;
// this only hands over what WebKit does not keep: the bodies of fetch() and
// XMLHttpRequest responses, as the page received them, and the bodies their
// requests sent. A report never makes a request exist in the browser's list.
//
// Everything the recorder calls is taken now, before page scripts can
// replace it, and nothing it does may change what the page sees: the page
// gets the same promise and response, and a failure here stays here. It
// uses no iteration protocol, no prototype getter looked up later, and no
// method that consults a constructor the page could replace (species):
// bytes are copied with indexed, captured operations only.
(function () {
  'use strict';
  return function install(report, max) {
    const W = window;
    const apply = Reflect.apply;
    const now = Date.now;
    const U8 = W.Uint8Array;
    const then = W.Promise.prototype.then;
    const Request = W.Request;
    const Response = W.Response;
    const requestClone = Request && Request.prototype.clone;
    const requestBytes = Request && Request.prototype.arrayBuffer;
    const PromiseClass = W.Promise;
    const promiseResolve = W.Promise.resolve;
    const resolved = (value) => apply(promiseResolve, PromiseClass, [value]);
    const XHR = W.XMLHttpRequest && W.XMLHttpRequest.prototype;
    if (!W.fetch || !Request || !Response || !W.ReadableStream) return;

    const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
    const originalFetch = W.fetch;
    const requestMethod = getter(Request.prototype, 'method');
    const requestUrl = getter(Request.prototype, 'url');
    const responseUrl = getter(Response.prototype, 'url');
    const responseBody = getter(Response.prototype, 'body');
    const clone = Response.prototype.clone;
    const getReader = W.ReadableStream.prototype.getReader;
    const read = W.ReadableStreamDefaultReader.prototype.read;
    const cancel = W.ReadableStreamDefaultReader.prototype.cancel;
    const TypedArray = Object.getPrototypeOf(U8.prototype);
    const lengthOf = getter(TypedArray, 'length');
    const bufferOf = getter(TypedArray, 'buffer');
    const offsetOf = getter(TypedArray, 'byteOffset');
    const typedSet = TypedArray.set;
    const toText = W.String;
    const isView = W.ArrayBuffer.isView;
    const larger = W.Math.max;
    const encode = (() => {
      const encoder = new W.TextEncoder();
      const method = W.TextEncoder.prototype.encode;
      return (text) => apply(method, encoder, [text]);
    })();

    // `sent`: a promise of the request's body, { bytes, truncated, note } or null.
    function hand(kind, method, url, started, body, truncated, note, sent) {
      apply(then, sent, [(kept) => {
        try {
          report(kind, method, url, started, body, truncated, note,
            kept ? kept.bytes : null, kept ? kept.truncated : false, kept ? kept.note : '');
        } catch (_) {
          // Never the page's concern.
        }
      }]);
    }

    // The body a request sends, read from a copy (the page's own is sent
    // untouched): a promise of { bytes, truncated, note }, or of null when
    // the method sends none.
    function sentBody(request, method, note) {
      if (method === 'GET' || method === 'HEAD') return resolved(null);
      try {
        const copy = apply(requestClone, request, []);
        return apply(then, apply(requestBytes, copy, []), [(buffer) => {
          const bytes = new U8(buffer);
          const n = apply(lengthOf, bytes, []);
          return { bytes: n > max ? head(bytes, max) : bytes, truncated: n > max, note };
        }, () => null]);
      } catch (_) {
        return resolved(null);
      }
    }

    // The first `n` bytes of `bytes`, as a view: no species lookup.
    const head = (bytes, n) => new U8(apply(bufferOf, bytes, []), apply(offsetOf, bytes, []), n);

    // A body read chunk by chunk into one buffer that grows.
    function collector() {
      let all = new U8(0);
      let size = 0;
      return {
        add(chunk, n) {
          if (size + n > apply(lengthOf, all, [])) {
            const grown = new U8(larger(size + n, apply(lengthOf, all, []) * 2));
            apply(typedSet, grown, [all]);
            all = grown;
          }
          apply(typedSet, all, [head(chunk, n), size]);
          size += n;
        },
        size: () => size,
        bytes: () => head(all, size),
      };
    }

    // Reads a clone of the response to `max` bytes, then lets it go: the
    // page's own copy streams on untouched.
    function capture(method, started, response, sent) {
      let url;
      let copy;
      try {
        url = apply(responseUrl, response, []);
        copy = apply(clone, response, []);
      } catch (_) {
        return; // an opaque or already-read response: nothing to keep
      }
      const body = apply(responseBody, copy, []);
      if (!body) {
        hand('fetch', method, url, started, new U8(0), false, '', sent);
        return;
      }
      const reader = apply(getReader, body, []);
      const kept = collector();
      const finish = (truncated, note) => hand('fetch', method, url, started, kept.bytes(), truncated, note, sent);
      const step = (result) => {
        if (result.done) return finish(false, '');
        const chunk = result.value;
        if (!apply(isView, null, [chunk])) return finish(true, 'the body ended in an error');
        const n = apply(lengthOf, chunk, []);
        if (kept.size() + n > max) {
          kept.add(chunk, max - kept.size());
          apply(cancel, reader, []);
          return finish(true, '');
        }
        kept.add(chunk, n);
        apply(then, apply(read, reader, []), [step, () => finish(true, 'the body ended in an error')]);
      };
      apply(then, apply(read, reader, []), [step, () => finish(true, 'the body ended in an error')]);
    }

    // Declared with fetch's own length: a page may look.
    W.fetch = function fetch(input) {
      const init = arguments[1];
      const started = now();
      let request;
      try {
        request = new Request(input, init);
      } catch (error) {
        // What fetch itself does with arguments it cannot take.
        return apply(originalFetch, this, arguments);
      }
      const method = apply(requestMethod, request, []);
      // The copy is taken before the request goes: its body can be read once.
      const sent = sentBody(request, method, '');
      const promise = apply(originalFetch, this, [request]);
      // The copy of the response is taken at once, before the page reads it.
      apply(then, promise, [(response) => capture(method, started, response, sent), () => {}]);
      return promise;
    };

    // A beacon's response is never read, but what it sent is kept.
    const Nav = W.Navigator && W.Navigator.prototype;
    const originalBeacon = Nav && Nav.sendBeacon;
    if (originalBeacon) {
      Nav.sendBeacon = function sendBeacon(url) {
        const started = now();
        let target = null;
        let sent = resolved(null);
        try {
          const data = arguments.length > 1 ? arguments[1] : null;
          const request = new Request(url, { method: 'POST', body: data === undefined ? null : data });
          target = apply(requestUrl, request, []);
          sent = sentBody(request, 'POST', '');
        } catch (_) {
          // sendBeacon itself says what is wrong with its arguments.
        }
        const queued = apply(originalBeacon, this, arguments);
        if (queued && target) hand('beacon', 'POST', target, started, null, false, "a beacon's response is never read", sent);
        return queued;
      };
    }

    if (!XHR) return;
    const originalOpen = XHR.open;
    const originalSend = XHR.send;
    const addListener = W.EventTarget.prototype.addEventListener;
    const xhrUrl = getter(XHR, 'responseURL');
    const xhrType = getter(XHR, 'responseType');
    const xhrStatus = getter(XHR, 'status');
    const xhrText = getter(XHR, 'responseText');
    const xhrResponse = getter(XHR, 'response');
    const blobBytes = W.Blob.prototype.arrayBuffer;
    const ArrayBuffer = W.ArrayBuffer;
    const Blob = W.Blob;
    const methods = new W.WeakMap();
    const getMethod = W.WeakMap.prototype.get;
    const setMethod = W.WeakMap.prototype.set;
    const upper = String.prototype.toUpperCase;
    // The Fetch standard's normalization: only these are upper-cased.
    const NORMALIZED = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];
    const includes = Array.prototype.includes;

    function normalize(method) {
      const text = toText(method);
      const up = apply(upper, text, []);
      return apply(includes, NORMALIZED, [up]) ? up : text;
    }

    function captureXhr(xhr, method, started, sent) {
      const url = apply(xhrUrl, xhr, []);
      if (!url || apply(xhrStatus, xhr, []) === 0) return; // failed: no response
      const type = apply(xhrType, xhr, []);
      const keep = (bytes, note) => {
        const truncated = apply(lengthOf, bytes, []) > max;
        hand('xhr', method, url, started, truncated ? head(bytes, max) : bytes, truncated, note, sent);
      };
      if (type === '' || type === 'text') {
        keep(encode(apply(xhrText, xhr, [])), 'the text the page decoded, as UTF-8');
      } else if (type === 'arraybuffer') {
        const buffer = apply(xhrResponse, xhr, []);
        if (buffer instanceof ArrayBuffer) keep(new U8(buffer), '');
      } else if (type === 'blob') {
        const blob = apply(xhrResponse, xhr, []);
        if (blob instanceof Blob) {
          apply(then, apply(blobBytes, blob, []), [(buffer) => keep(new U8(buffer), ''), () => {}]);
        }
      } else {
        hand('xhr', method, url, started, null, false, `responseType "${type}" keeps no bytes`, sent);
      }
    }

    XHR.open = function open(method, url) {
      try {
        apply(setMethod, methods, [this, normalize(method)]);
      } catch (_) {
        // open itself reports what is wrong with its arguments.
      }
      return apply(originalOpen, this, arguments);
    };

    // What send() sends, encoded as a request would encode it (a FormData's
    // multipart boundary is then not the one sent).
    function xhrSent(method, body) {
      if (body === undefined || body === null) return resolved(null);
      let request;
      try {
        request = new Request(W.location.href, { method: 'POST', body });
      } catch (_) {
        return resolved(null); // a Document: not read here
      }
      const note = body instanceof W.FormData ? 'a FormData re-encoded: its multipart boundary is not the one sent' : '';
      return sentBody(request, method, note);
    }

    XHR.send = function send() {
      const method = apply(getMethod, methods, [this]);
      if (method !== undefined) {
        const started = now();
        const xhr = this;
        try {
          const sent = xhrSent(method, arguments[0]);
          apply(addListener, xhr, ['loadend', () => captureXhr(xhr, method, started, sent)]);
        } catch (_) {
          // Not an XMLHttpRequest: send throws below, as it would.
        }
      }
      return apply(originalSend, this, arguments);
    };
  };
})()
