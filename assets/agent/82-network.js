  // set_offline: offline and online events in this document and, through their agents, in every frame in it.

  // ---------------------------------------------------------------------------------------
  // Connectivity as pages see it. The page's world script (assets/offline.js) keeps
  // navigator.onLine on the state these events carry.

  function opNetwork(args, table) {
    const offline = args.offline === true;
    window.dispatchEvent(new Event(offline ? 'offline' : 'online'));
    let frames = 0;
    for (const frame of document.querySelectorAll('iframe, frame')) {
      if (!frame.contentWindow) continue;
      askFrame(frame, table, 'network', { offline });
      frames++;
    }
    return { offline, frames };
  }
