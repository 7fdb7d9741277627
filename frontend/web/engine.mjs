// The page's side of the message interface to the engine's worker (worker.mjs):
// engine.ask({op, ...}) posts one request and resolves with the bridge's answer
// ({ok: true, ...} or {ok: false, error}); see blockyard.frontend.webbridge.
export class Engine {
  constructor(url = "worker.mjs") {
    this.worker = new Worker(new URL(url, document.baseURI), { type: "module" });
    this.pending = new Map();
    this.next = 1;
    this.ready = new Promise((resolve, reject) => {
      this.worker.addEventListener("message", (event) => {
        const data = event.data;
        if ("ready" in data) {
          if (data.ready) resolve(); else reject(new Error(data.error));
          return;
        }
        const done = this.pending.get(data.id);
        this.pending.delete(data.id);
        if (done) done(data.answer);
      });
      this.worker.addEventListener("error", (event) => reject(new Error(event.message)));
    });
  }

  /** One request to the bridge: {op: "new" | "preview" | "place" | "act" | ...}. */
  ask(request) {
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ id, request });
    });
  }
}
