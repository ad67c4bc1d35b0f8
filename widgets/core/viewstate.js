/**
 * Per-result view state in `localStorage` under the server-sent `viewUUID`:
 * camera, selection, open popup and hidden layers, restored when the host
 * shows the same tool result again (a conversation reopened). A host
 * without storage (opaque sandbox origin) simply gets no persistence.
 */

const PREFIX = "tomtom-view:";
const KEEP = 200;
const UUID = /^[A-Za-z0-9-]{8,64}$/;

/** `window.localStorage` when the sandbox allows it, else null (reading it may throw). */
export function browserStorage() {
  try {
    const s = globalThis.localStorage;
    s.getItem(PREFIX);
    return s;
  } catch {
    return null;
  }
}

/**
 * The state of one result. `load()` is the stored object or null; `save(patch)`
 * merges, stamps and writes it, dropping the oldest entries beyond KEEP.
 */
export function viewState(uuid, storage = browserStorage()) {
  const ok = typeof uuid === "string" && UUID.test(uuid) && storage;
  const key = PREFIX + uuid;
  let current = null;
  function load() {
    if (!ok) return null;
    try {
      const value = JSON.parse(storage.getItem(key) || "null");
      current = value && typeof value === "object" ? value : null;
    } catch {
      current = null;
    }
    return current;
  }
  function save(patch) {
    if (!ok) return false;
    current = { ...(current || {}), ...patch, savedAt: Date.now() };
    try {
      storage.setItem(key, JSON.stringify(current));
      prune(storage);
      return true;
    } catch {
      return false;
    }
  }
  return { enabled: Boolean(ok), load, save };
}

function prune(storage) {
  const entries = [];
  for (let i = 0; i < storage.length; i++) {
    const k = storage.key(i);
    if (!k || !k.startsWith(PREFIX)) continue;
    let at = 0;
    try {
      at = JSON.parse(storage.getItem(k)).savedAt || 0;
    } catch {
      // unreadable: oldest
    }
    entries.push([at, k]);
  }
  if (entries.length <= KEEP) return;
  entries.sort((a, b) => a[0] - b[0]);
  for (const [, k] of entries.slice(0, entries.length - KEEP)) storage.removeItem(k);
}
