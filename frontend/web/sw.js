// The page's service worker: after one visit the page and its engine play offline.
// Every file is asked from the network first (so a new version shows at once) and
// kept; without a network the kept copy answers. Installed with every file the
// page and its engine load, so the first visit is enough.
const CACHE = "blockyard-page";
const FILES = [
  "./", "app.mjs", "engine.mjs", "worker.mjs", "store.mjs", "style.css",
  "manifest.webmanifest", "fonts/NotoSansDevanagari-Regular.ttf",
  "fonts/NotoSansDevanagari-Bold.ttf", "icons/icon.svg", "icons/icon-192.png", "icons/icon-512.png",
  "blockyard.zip", "pyodide/pyodide.mjs", "pyodide/pyodide.asm.mjs",
  "pyodide/pyodide.asm.wasm", "pyodide/python_stdlib.zip", "pyodide/pyodide-lock.json",
];
const ROOT = new URL("./", self.location).href;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

// a page of the site kept for no other path (a game's /play/{id}): the launcher's
// page, its base the site's root
async function pageFor(cache) {
  const kept = await cache.match(ROOT);
  if (!kept) return undefined;
  const text = (await kept.text()).replace(/<base href="[^"]*">/, `<base href="${ROOT}">`);
  return new Response(text, { headers: { "Content-Type": "text/html; charset=utf-8" } });
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(ROOT)) return;
  if (new URL(request.url).pathname.startsWith(new URL(ROOT).pathname + "api/")) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const answer = await fetch(request);
      if (answer.redirected && request.mode === "navigate") {
        return Response.redirect(answer.url, 302);  // a navigation takes no redirected answer
      }
      if (answer.ok) await cache.put(request, answer.clone());
      return answer;
    } catch (error) {
      const kept = await cache.match(request, { ignoreSearch: request.mode === "navigate" });
      if (kept) return kept;
      if (request.mode === "navigate") {
        const page = await pageFor(cache);
        if (page) return page;
      }
      throw error;
    }
  })());
});
