  // IndexedDB of the page's origin, read and written for state_save and state_load.

  // ---------------------------------------------------------------------------------------
  // IndexedDB: every database, store, index and record that JSON can carry. A record JSON
  // cannot carry (a Date, Blob, typed array, Map... in its value or key) is counted, not
  // saved, and each count is reported with its reason.

  const IDB_RECORDS_MAX = 50000;

  function idbRequest(request) {
    return new Promise((resolve, reject) => {
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  }

  function jsonSafe(v, depth) {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
    if (typeof v === 'number') return Number.isFinite(v);
    if (depth > 100 || typeof v !== 'object') return false;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (!(i in v) || !jsonSafe(v[i], depth + 1)) return false;
      return true;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const key of Object.keys(v)) if (!jsonSafe(v[key], depth + 1)) return false;
    return true;
  }

  function idbOpen(name, version, upgrade) {
    return new Promise((resolve, reject) => {
      const request = version === undefined ? indexedDB.open(name) : indexedDB.open(name, version);
      request.onupgradeneeded = () => upgrade && upgrade(request.result);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error('another connection blocks it'));
    });
  }

  async function idbDatabases() {
    if (typeof indexedDB === 'undefined' || !indexedDB) throw new Error('this page has no IndexedDB');
    if (typeof indexedDB.databases !== 'function') throw new Error('IndexedDB cannot list databases here');
    return indexedDB.databases();
  }

  async function idbDump() {
    const databases = [];
    const skipped = [];
    let total = 0;
    for (const info of await idbDatabases()) {
      const db = await idbOpen(info.name);
      try {
        const names = [...db.objectStoreNames];
        const tx = names.length ? db.transaction(names, 'readonly') : null;
        // Every request at once: the transaction ends when none is pending.
        const reads = names.map((name) => {
          const store = tx.objectStore(name);
          const indexes = [...store.indexNames].map((i) => {
            const index = store.index(i);
            return { name: i, keyPath: index.keyPath, unique: index.unique, multiEntry: index.multiEntry };
          });
          const shape = { name, keyPath: store.keyPath, autoIncrement: store.autoIncrement, indexes };
          return Promise.all([shape, idbRequest(store.getAllKeys()), idbRequest(store.getAll())]);
        });
        const stores = [];
        for (const [shape, keys, values] of await Promise.all(reads)) {
          const records = [];
          let unsafe = 0;
          let over = 0;
          for (let i = 0; i < keys.length; i++) {
            if (!jsonSafe(keys[i], 0) || !jsonSafe(values[i], 0)) unsafe++;
            else if (total >= IDB_RECORDS_MAX) over++;
            else {
              total++;
              records.push(shape.keyPath === null ? { key: keys[i], value: values[i] } : { value: values[i] });
            }
          }
          const where = `${db.name}/${shape.name}`;
          if (unsafe) skipped.push(`${where}: ${unsafe} records JSON cannot hold (Date, Blob, binary...)`);
          if (over) skipped.push(`${where}: ${over} records past the limit of ${IDB_RECORDS_MAX}`);
          stores.push(Object.assign(shape, { records }));
        }
        databases.push({ name: db.name, version: db.version, stores });
      } finally {
        db.close();
      }
    }
    return { origin: location.origin, databases, skipped };
  }

  async function idbRestoreOne(saved) {
    const existing = (await idbDatabases()).find((d) => d.name === saved.name);
    const create = (db) => {
      for (const s of saved.stores) {
        if (db.objectStoreNames.contains(s.name)) continue;
        const store = db.createObjectStore(s.name, { keyPath: s.keyPath, autoIncrement: !!s.autoIncrement });
        for (const i of s.indexes || []) store.createIndex(i.name, i.keyPath, { unique: !!i.unique, multiEntry: !!i.multiEntry });
      }
    };
    const db = existing ? await idbOpen(saved.name) : await idbOpen(saved.name, saved.version, create);
    try {
      const names = saved.stores.map((s) => s.name);
      const missing = names.filter((n) => !db.objectStoreNames.contains(n));
      if (db.version !== saved.version || missing.length) {
        // Upgrading it would break the site's own version checks: left as it is.
        return `a database of that name is here already at version ${db.version}` +
          (missing.length ? ` without the stores ${missing.join(', ')}` : '') + '; left as it is';
      }
      if (!names.length) return null;
      const tx = db.transaction(names, 'readwrite');
      const done = new Promise((resolve, reject) => {
        tx.oncomplete = resolve;
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error || new Error('the transaction was aborted'));
      });
      for (const s of saved.stores) {
        const store = tx.objectStore(s.name);
        for (const r of s.records || []) {
          if (store.keyPath === null) store.put(r.value, r.key);
          else store.put(r.value);
        }
      }
      await done;
      return null;
    } finally {
      db.close();
    }
  }

  async function idbRestore(databases) {
    const restored = [];
    const failed = [];
    for (const saved of databases || []) {
      let why;
      try {
        why = await idbRestoreOne(saved);
      } catch (e) {
        why = (e && e.message) || String(e);
      }
      if (why) failed.push(`${saved.name}: ${why}`);
      else restored.push(saved.name);
    }
    return { origin: location.origin, restored, failed };
  }

  function opIndexedDb(args) {
    if (args.action === 'dump') return idbDump();
    if (args.action === 'restore') return idbRestore(args.databases);
    throw fail('INTERNAL', `unknown indexeddb action ${String(args.action)}`);
  }
