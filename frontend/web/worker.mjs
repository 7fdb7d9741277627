// The engine's Web Worker: Pyodide loaded from this site (./pyodide/), Blockyard's
// pure-Python parts unpacked from ./blockyard.zip, and every message of the page
// answered by blockyard.frontend.webbridge.handle (JSON in, JSON out).
import { loadPyodide } from "./pyodide/pyodide.mjs";

const here = new URL("./", import.meta.url);
const SITE = "/home/pyodide/site";

async function start() {
  const [pyodide, archive] = await Promise.all([
    loadPyodide({ indexURL: new URL("pyodide/", here).href, packages: [] }),
    fetch(new URL("blockyard.zip", here)).then((r) => {
      if (!r.ok) throw new Error(`blockyard.zip: HTTP ${r.status}`);
      return r.arrayBuffer();
    }),
  ]);
  pyodide.unpackArchive(archive, "zip", { extractDir: SITE });
  pyodide.runPython(`import sys\nsys.path.insert(0, ${JSON.stringify(SITE)})`);
  const bridge = pyodide.pyimport("blockyard.frontend.webbridge");
  return (request) => bridge.handle(request);
}

const ready = start();
ready.then(() => postMessage({ ready: true }),
           (error) => postMessage({ ready: false, error: String(error) }));

onmessage = async (event) => {
  const { id, request } = event.data;
  let answer;
  try {
    const handle = await ready;
    answer = JSON.parse(handle(JSON.stringify(request)));
  } catch (error) {
    answer = { ok: false, error: String(error) };
  }
  postMessage({ id, answer });
};
