  // Web storage: reading, setting and clearing the page origin's local or session storage.

  // ---------------------------------------------------------------------------------------
  // Web storage of the page's origin: local or session.

  function opStorage(args, table) {
    const area = args.area === 'session' ? 'sessionStorage' : 'localStorage';
    const where = scopeOf(table).location;
    const origin = where.origin === 'null' ? where.href : where.origin;
    let store;
    try {
      store = scopeOf(table).defaultView[area];
    } catch (e) {
      throw fail('UNSUPPORTED', `this page (${origin}) has no ${area}: ${e && e.message}`);
    }
    if (!store) throw fail('UNSUPPORTED', `this page (${origin}) has no ${area}`);
    const key = () => {
      if (typeof args.key !== 'string') throw fail('INVALID_PARAMS', 'key must be a string');
      return args.key;
    };
    switch (args.action) {
      case 'get': {
        const items = {};
        for (let i = 0; i < store.length; i++) {
          const k = store.key(i);
          items[k] = store.getItem(k);
        }
        return { origin, count: store.length, items };
      }
      case 'get_key':
        return { origin, key: key(), value: store.getItem(key()) };
      case 'set':
        try {
          store.setItem(key(), String(args.value));
        } catch (e) {
          throw fail('INVALID_PARAMS', `${area} refused the value: ${e && e.message}`);
        }
        return { origin, key: key(), value: store.getItem(key()) };
      case 'clear': {
        const cleared = store.length;
        store.clear();
        return { origin, cleared };
      }
      default:
        throw fail('INTERNAL', `unknown storage action ${String(args.action)}`);
    }
  }
