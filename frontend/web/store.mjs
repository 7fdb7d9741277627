// The games in progress, saved in the browser (IndexedDB) after every move: one per
// ruleset, the engine's own snapshot (Game.snapshot), brought back by a reload, a
// closed tab or a phone that killed the browser.
const DB = "blockyard";
const GAMES = "games";

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(GAMES, { keyPath: "ruleset" });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function run(mode, work) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const transaction = db.transaction(GAMES, mode);
      const request = work(transaction.objectStore(GAMES));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  } finally {
    db.close();
  }
}

/** Save the game in progress of a ruleset: {ruleset, seed, over, snapshot}. */
export function saveGame(record) {
  return run("readwrite", (store) => store.put(record));
}

/** The saved game of a ruleset, or undefined. */
export function loadGame(ruleset) {
  return run("readonly", (store) => store.get(ruleset));
}
