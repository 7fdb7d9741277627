// Blockyard's web page: the launcher and the game screen of tray rulesets.
// Every number and word shown comes from the engine (worker.mjs, running
// blockyard.frontend.webbridge in Pyodide): the page only draws its answers and
// turns touch, mouse and keys into requests. docs/web.md describes the page.
import { Engine } from "./engine.mjs";
import { loadGame, saveGame } from "./store.mjs";

const LIFT_CELLS = 1.25;   // a piece held by a finger floats this many cells above it
const DRAG_PIXELS = 6;     // a press that moves less is a click (choose the piece)
const $ = (id) => document.getElementById(id);

const state = {
  engine: null,
  language: localStorage.getItem("blockyard.language") || guessLanguage(),
  theme: localStorage.getItem("blockyard.theme") || "dark",
  words: {},
  game: null,        // the bridge's view of the game being played
  held: null,        // {slot, how: "drag" | "chosen", pointerId, pointerType, x0, y0, moved}
  anchor: null,      // [row, col] the held piece would take, or null off the board
  preview: null,     // the bridge's preview of held.slot at anchor
  pending: null,     // an action waiting for its slot or cell: {name, target, slot}
  busy: false,       // a move is on its way to the engine
};

function guessLanguage() {
  for (const tag of navigator.languages || []) {
    const code = tag.slice(0, 2).toLowerCase();
    if (["en", "de", "es", "ne"].includes(code)) return code;
  }
  return "en";
}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style") Object.assign(node.style, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function showError(message) {
  const status = $("status");
  status.hidden = false;
  status.classList.add("error");
  status.textContent = message;
}

async function ask(request) {
  const answer = await state.engine.ask({ language: state.language, ...request });
  if (!answer.ok) showError(answer.error);
  return answer;
}

// -- routes: "/" the launcher, "play/{ruleset_id}[?seed=N]" a new game --------------

function route() {
  const base = new URL(document.baseURI).pathname;
  const rest = decodeURIComponent(location.pathname.slice(base.length));
  const match = /^play\/([^/]+)\/?$/.exec(rest);
  if (match) {
    const seed = new URLSearchParams(location.search).get("seed");
    return { ruleset: match[1], seed: seed !== null && /^\d+$/.test(seed) ? Number(seed) : null };
  }
  return null;
}

function go(path) {
  history.pushState(null, "", new URL(path, document.baseURI));
  show();
}

async function show() {
  const wanted = route();
  $("status").classList.remove("error");
  if (wanted) await startGame(wanted.ruleset, wanted.seed);
  else await showLauncher();
}

// -- the launcher ------------------------------------------------------------------

async function showLauncher() {
  const answer = await ask({ op: "rulesets" });
  if (!answer.ok) return;
  applyWords(answer.words, answer.version);
  state.game = null;
  dropHeld();
  $("play").hidden = true;
  $("summary-layer").hidden = true;
  $("home").hidden = true;
  $("status").hidden = true;
  $("title").textContent = "Blockyard";
  const launcher = $("launcher");
  launcher.replaceChildren(...answer.rulesets.map((r) => {
    const entry = el("div", { class: "entry" }, el("button", {
      class: "ruleset", type: "button", "data-testid": "ruleset", "data-ruleset-id": r.id,
      ...(r.playable ? {} : { disabled: "" }), title: r.error || "",
      onclick: () => go(`play/${encodeURIComponent(r.id)}`),
    }, el("span", { class: "name" }, r.name), el("span", { class: "family" }, r.family),
       el("div", { class: "description" }, r.error || r.description)));
    if (r.rules) {
      entry.append(el("details", { class: "rules", "data-testid": "rules" },
        el("summary", {}, answer.words.how_to_play), el("div", { class: "text" }, r.rules)));
    }
    return entry;
  }));
  launcher.hidden = false;
}

function applyWords(words, version) {
  state.words = words;
  for (const option of $("theme").options) option.textContent = words[option.value];
  $("theme").setAttribute("aria-label", words.theme);
  $("language").setAttribute("aria-label", words.language);
  $("home").title = words.back;
  if (version) $("version").textContent = version;
}

// -- the game screen ---------------------------------------------------------------

async function startGame(ruleset, seed, fresh = false) {
  // the game in progress of this ruleset (of this seed, when one is asked) comes back
  const saved = fresh ? undefined : await loadGame(ruleset).catch(() => undefined);
  let answer;
  if (saved && !saved.over && (seed === null || saved.seed === seed)) {
    answer = await ask({ op: "restore", snapshot: saved.snapshot });
  }
  if (!answer || !answer.ok) answer = await ask({ op: "new", ruleset, seed });
  if (!answer.ok) return;
  // the address names the game's seed: a reload brings this game back
  const here = new URL(`play/${encodeURIComponent(ruleset)}?seed=${answer.game.seed}`, document.baseURI);
  if (route() && here.href !== location.href) history.replaceState(null, "", here);
  $("launcher").hidden = true;
  $("status").hidden = true;
  $("home").hidden = false;
  $("play").hidden = false;
  setGame(answer.game);
}

async function save() {
  const game = state.game;
  const answer = await state.engine.ask({ op: "snapshot" });
  if (!answer.ok || state.game !== game) return;
  await saveGame({ ruleset: game.ruleset, seed: game.seed, over: game.over,
                   snapshot: answer.snapshot }).catch(() => {});
  document.body.dataset.saved = String(game.moves);
}

function setGame(view) {
  state.game = view;
  save();
  state.pending = null;
  applyWords(view.words, view.version);
  $("title").textContent = view.name;
  const falling = view.kind === "falling";
  $("tray").hidden = falling;
  $("stones").hidden = !falling;
  drawBoard();
  if (falling) drawStones(); else drawTray();
  drawFigures();
  drawActions();
  drawSummary();
}

function drawFigures() {
  const game = state.game;
  $("score").textContent = String(game.score);
  $("combo").textContent = game.kind === "falling" ? `✗ ${game.errors_text}` : game.combo_text;
  $("clock").textContent = game.clock_text;
  $("clock").hidden = !game.clock_text;
}

// -- the clock of timed rulesets: the time played, told to the engine ---------------
// (the engine decides when time is up; the page only measures the time shown on screen)

const clock = { last: null, asking: false };

async function tickClock() {
  const now = performance.now();
  const game = state.game;
  const runs = game && (game.time_left !== null || game.kind === "falling");
  if (!runs || game.over || document.hidden || clock.asking) {
    clock.last = clock.asking ? clock.last : null;  // hidden or over: the clock stands
    return;
  }
  if (clock.last === null) { clock.last = now; return; }
  const seconds = (now - clock.last) / 1000;
  clock.last = now;
  clock.asking = true;
  const answer = await state.engine.ask({ op: "tick", language: state.language, seconds });
  clock.asking = false;
  if (!answer.ok || state.game !== game) return;  // a move answered meanwhile: its view is newer
  if (answer.game.over || answer.game.moves !== game.moves) {
    dropHeld();
    setGame(answer.game);  // over, or a stone landed: drawn and saved
  } else {
    state.game = answer.game;
    if (game.kind === "falling") drawBoard();  // the stone fell
    drawFigures();
  }
}

// the board element at the game's size (its data-rows and data-cols, the grid's)
function sizedBoard(game) {
  const board = $("board");
  board.dataset.rows = game.rows;
  board.dataset.cols = game.cols;
  board.style.setProperty("--rows", game.rows);
  board.style.setProperty("--cols", game.cols);
  return board;
}

// the cells the engine's view says are shaded (every other block of a ruleset
// with blocks), as "row,col"
function shadedCells(game) {
  return new Set(game.shaded.map(([r, c]) => `${r},${c}`));
}

function drawBoard() {
  if (state.game.kind === "falling") { drawFallingBoard(); return; }
  const game = state.game;
  const board = sizedBoard(game);
  const shaded = shadedCells(game);
  const cells = [];
  for (let r = 0; r < game.rows; r++) {
    for (let c = 0; c < game.cols; c++) {
      const colour = game.board[r][c];
      const shade = shaded.has(`${r},${c}`);
      cells.push(el("div", {
        class: `cell${colour ? ` c${(colour - 1) % 9 + 1}` : ""}${shade ? " shade" : ""}`,
        "data-testid": "cell", "data-row": r, "data-col": c, "data-filled": colour ? "1" : "0",
      }));
    }
  }
  board.replaceChildren(...cells);
  drawGhost();
}

// -- falling games (Sudoku Bloxx): the board of stones, the falling one, where it lands

function stoneClass(stone) {
  return `stone${stone.golden ? " golden" : ""}${stone.text === "S" ? " symbol" : ""}${stone.text === "J" ? " joker" : ""}`;
}

function drawFallingBoard() {
  const game = state.game;
  const board = sizedBoard(game);
  const shaded = shadedCells(game);
  const current = game.current;
  const cells = [];
  for (let r = 0; r < game.rows; r++) {
    for (let c = 0; c < game.cols; c++) {
      const stone = game.board[r][c];
      const shade = shaded.has(`${r},${c}`);
      const node = el("div", {
        class: `cell${shade ? " shade" : ""}${stone ? ` ${stoneClass(stone)}` : ""}`,
        "data-testid": "cell", "data-row": r, "data-col": c, "data-filled": stone ? "1" : "0",
        ...(stone ? { "data-stone": stone.text } : {}),
      }, stone ? stone.text.replace("S", "✦").replace("J", "★") : "");
      if (current && !stone && current.col === c && current.row === r) {
        node.classList.add("falling", ...stoneClass(current.stone).split(" "));
        node.dataset.falling = current.stone.text;
        node.textContent = current.stone.text.replace("S", "✦");
      } else if (current && !stone && current.col === c && game.landing_row === r) {
        node.classList.add("landing");
      }
      cells.push(node);
    }
  }
  board.replaceChildren(...cells);
}

function drawStones() {
  const game = state.game;
  const box = $("stones");
  const controls = [["◀", () => fallingOp({ op: "move", dx: -1 })],
                    ["⤓", () => fallingOp({ op: "hard_drop" })],
                    ["▶", () => fallingOp({ op: "move", dx: 1 })]];
  box.replaceChildren(
    el("div", { class: "upcoming", "data-testid": "upcoming" }, ...game.upcoming.map((stone) =>
      el("span", { class: `cell ${stoneClass(stone)}` }, stone.text.replace("S", "✦")))),
    el("div", { class: "controls" }, ...controls.map(([label, act]) =>
      el("button", { type: "button", "data-testid": "control", onclick: act }, label))));
}

async function fallingOp(request) {
  if (!state.game || state.game.kind !== "falling" || state.game.over) return;
  const answer = await ask(request);
  if (answer.ok) setGame(answer.game);
}

function miniPiece(piece, cellSize) {
  let rows = 0, cols = 0;
  for (const [r, c] of piece.cells) { rows = Math.max(rows, r + 1); cols = Math.max(cols, c + 1); }
  const mini = el("div", { class: `mini c${(piece.colour - 1) % 9 + 1}`, style: {
    gridTemplateColumns: `repeat(${cols}, var(--m))`, gridTemplateRows: `repeat(${rows}, var(--m))`,
  } });
  mini.style.setProperty("--m", cellSize);
  for (const [r, c] of piece.cells) {
    mini.append(el("div", { class: "mcell", style: { gridRow: r + 1, gridColumn: c + 1 } }));
  }
  return mini;
}

function drawTray() {
  const tray = $("tray");
  tray.replaceChildren(...state.game.tray.map((slot) => {
    const node = el("div", {
      class: "slot", "data-testid": "tray-slot", "data-slot": slot.slot, "data-piece": slot.piece,
      onpointerdown: (event) => pressSlot(event, slot.slot),
    });
    if (slot.piece) {
      node.append(miniPiece(slot, "calc(var(--size) / 22)"));
      if (!slot.fits) node.classList.add("nofit");
    }
    return node;
  }));
  markSlots();
}

// the held or chosen slot marked, without rebuilding the tray (a finger's drag keeps its target)
function markSlots() {
  for (const node of $("tray").children) {
    const held = state.held && state.held.slot === Number(node.dataset.slot);
    node.classList.toggle("held", Boolean(held && state.held.how === "drag"));
    node.classList.toggle("chosen", Boolean(held && state.held.how === "chosen"));
  }
}

function drawActions() {
  const box = $("actions");
  box.replaceChildren(...state.game.actions.map((action) => el("button", {
    type: "button", "data-testid": "action", "data-action": action.name, title: action.help,
    onclick: () => startAction(action),
  }, action.key ? `${action.label} [${action.key.toUpperCase()}]` : action.label)));
}

function drawSummary() {
  const layer = $("summary-layer");
  const summary = state.game.summary;
  if (!summary) { layer.hidden = true; layer.replaceChildren(); return; }
  const [reason, ...texts] = summary.texts;
  const card = el("div", { class: "summary", "data-testid": "summary", "data-score": summary.score },
    el("div", { class: "muted" }, reason),
    ...texts.map((text, i) => el("div", { class: i === 0 ? "big" : "" }, text)));
  if (summary.failed.length) {
    card.append(el("div", { class: "muted" }, summary.failed_heading),
      el("div", { class: "failed", "data-testid": "failed" },
        ...summary.failed.map((p) => miniPiece(p, "14px"))));
  }
  if (summary.tip) card.append(el("div", { class: "tip", "data-testid": "tip" }, summary.tip));
  const words = state.words;
  card.append(el("div", { class: "buttons" },
    el("button", { type: "button", "data-testid": "play-again",
      onclick: () => startGame(state.game.ruleset, null, true) }, words.play_again),
    el("button", { type: "button", onclick: () => go("./") }, words.change)));
  layer.replaceChildren(card);
  layer.hidden = false;
}

// -- the held piece, its ghost and the preview -------------------------------------

function boardGeometry() {
  const cells = $("board").querySelectorAll("[data-testid=cell]");
  const first = cells[0].getBoundingClientRect();
  const last = cells[cells.length - 1].getBoundingClientRect();
  const game = state.game;
  const pitchX = game.cols > 1 ? (last.left - first.left) / (game.cols - 1) : first.width;
  const pitchY = game.rows > 1 ? (last.top - first.top) / (game.rows - 1) : first.height;
  return { left: first.left, top: first.top, pitchX, pitchY, size: first.width };
}

function heldPiece() {
  return state.held ? state.game.tray[state.held.slot] : null;
}

function pieceSpan(piece) {
  let rows = 0, cols = 0;
  for (const [r, c] of piece.cells) { rows = Math.max(rows, r + 1); cols = Math.max(cols, c + 1); }
  return [rows, cols];
}

function setAnchor(anchor) {
  const same = anchor && state.anchor && anchor[0] === state.anchor[0] && anchor[1] === state.anchor[1];
  if (same || (!anchor && !state.anchor)) return;
  state.anchor = anchor;
  state.preview = null;
  drawGhost();
  if (!anchor || !state.held) return;
  const [row, col] = anchor;
  const slot = state.held.slot;
  state.engine.ask({ op: "preview", language: state.language, slot, row, col }).then((answer) => {
    const now = state.anchor;
    if (!answer.ok || !state.held || state.held.slot !== slot || !now || now[0] !== row || now[1] !== col) return;
    state.preview = answer.preview;
    drawGhost();
  });
}

function drawGhost() {
  const board = $("board");
  for (const cell of board.querySelectorAll(".glow")) cell.classList.remove("glow");
  board.querySelector("#ghost")?.remove();
  board.querySelector("#points")?.remove();
  const preview = state.preview;
  if (!preview || !state.game) return;
  const game = state.game;
  const piece = game.tray[preview.slot];
  const ghost = el("div", {
    id: "ghost", "data-testid": "ghost", "data-row": preview.row, "data-col": preview.col,
    "data-fits": preview.fits ? "1" : "0", class: `c${(piece.colour - 1) % 9 + 1}`,
  });
  const rect = board.getBoundingClientRect();
  const geo = boardGeometry();
  Object.assign(ghost.style, {
    left: `${geo.left - rect.left}px`, top: `${geo.top - rect.top}px`,
    gridTemplateColumns: `repeat(${game.cols}, ${geo.size}px)`,
    gridTemplateRows: `repeat(${game.rows}, ${geo.size}px)`,
    gap: `${geo.pitchY - geo.size}px ${geo.pitchX - geo.size}px`,
  });
  for (const [r, c] of preview.cells) {
    if (r < 0 || c < 0 || r >= game.rows || c >= game.cols) continue;
    ghost.append(el("div", { class: "gcell", style: { gridRow: r + 1, gridColumn: c + 1 } }));
  }
  board.append(ghost);
  for (const [r, c] of preview.cleared) {
    board.querySelector(`[data-testid=cell][data-row="${r}"][data-col="${c}"]`)?.classList.add("glow");
  }
  if (preview.fits && preview.points_text) {
    const cols = pieceSpan(piece)[1];
    const x = geo.left - rect.left + (preview.col + cols / 2) * geo.pitchX;
    const y = geo.top - rect.top + preview.row * geo.pitchY;
    board.append(el("div", { id: "points", "data-testid": "points", style: { left: `${x}px`, top: `${y}px` } },
      preview.points_text));
  }
}

function dropHeld() {
  state.held = null;
  state.anchor = null;
  state.preview = null;
  $("floating")?.remove();
  if (state.game) { markSlots(); drawGhost(); }
}

function choose(slot) {
  const piece = state.game?.tray[slot];
  if (!piece || !piece.piece || state.game.over || state.busy) return false;
  state.held = { slot, how: "chosen" };
  state.anchor = null;
  state.preview = null;
  markSlots();
  drawGhost();
  return true;
}

async function placeHeld() {
  const preview = state.preview;
  if (!state.held || !preview || !preview.fits || state.busy) return;
  state.busy = true;
  const answer = await ask({ op: "place", slot: preview.slot, row: preview.row, col: preview.col });
  state.busy = false;
  dropHeld();
  if (answer.ok) setGame(answer.game);
}

// the anchor under a point of the screen for the held piece, its top-left cell there
function anchorAt(x, y) {
  const geo = boardGeometry();
  const [rows, cols] = pieceSpan(heldPiece());
  const row = Math.round((y - geo.top) / geo.pitchY);
  const col = Math.round((x - geo.left) / geo.pitchX);
  const game = state.game;
  if (row + rows <= 0 || col + cols <= 0 || row >= game.rows || col >= game.cols) return null;
  return [row, col];
}

// where the dragged piece's top-left is drawn for a pointer at (x, y)
function floatingCorner(x, y, pointerType) {
  const geo = boardGeometry();
  const [rows, cols] = pieceSpan(heldPiece());
  const left = x - (cols * geo.pitchX) / 2;
  const top = pointerType === "touch"
    ? y - (rows + LIFT_CELLS) * geo.pitchY
    : y - (rows * geo.pitchY) / 2;
  return [left, top];
}

function pressSlot(event, slot) {
  if (state.pending && state.pending.target.includes("slot")) {
    event.preventDefault();
    state.pending.slot = slot;
    if (state.pending.target === "slot") finishAction([slot]);
    return;
  }
  const piece = state.game?.tray[slot];
  if (!piece || !piece.piece || state.game.over || state.busy) return;
  event.preventDefault();
  const wasChosen = state.held && state.held.how === "chosen" && state.held.slot === slot;
  state.held = { slot, how: "press", pointerId: event.pointerId, pointerType: event.pointerType,
                 x0: event.clientX, y0: event.clientY, moved: false, wasChosen };
  state.anchor = null;
  state.preview = null;
  event.target.setPointerCapture?.(event.pointerId);
}

function moveHeld(event) {
  const held = state.held;
  if (!held || held.pointerId !== event.pointerId || held.how === "chosen") return;
  if (!held.moved && Math.hypot(event.clientX - held.x0, event.clientY - held.y0) < DRAG_PIXELS) return;
  if (!held.moved) {
    held.moved = true;
    held.how = "drag";
    markSlots();
    const geo = boardGeometry();
    const piece = heldPiece();
    const [rows, cols] = pieceSpan(piece);
    const floating = el("div", { id: "floating", "data-testid": "floating", class: `c${(piece.colour - 1) % 9 + 1}`, style: {
      gridTemplateColumns: `repeat(${cols}, ${geo.size}px)`, gridTemplateRows: `repeat(${rows}, ${geo.size}px)`,
      gap: `${geo.pitchY - geo.size}px ${geo.pitchX - geo.size}px`,
    } });
    for (const [r, c] of piece.cells) {
      floating.append(el("div", { class: "mcell", style: { gridRow: r + 1, gridColumn: c + 1 } }));
    }
    document.body.append(floating);
  }
  const [left, top] = floatingCorner(event.clientX, event.clientY, held.pointerType);
  const floating = $("floating");
  floating.style.left = `${left}px`;
  floating.style.top = `${top}px`;
  setAnchor(anchorAt(left, top));
}

async function releaseHeld(event) {
  const held = state.held;
  if (!held || held.pointerId !== event.pointerId || held.how === "chosen") return;
  if (held.moved) {
    // the preview of the last anchor decides; wait for it when it is on its way
    if (state.anchor && !state.preview) await waitForPreview();
    if (state.preview && state.preview.fits) await placeHeld();
    else dropHeld();
    return;
  }
  // a click or a tap: the piece is chosen (a second one on it drops it)
  if (held.wasChosen) dropHeld();
  else choose(held.slot);
}

function waitForPreview() {
  return new Promise((resolve) => {
    const start = performance.now();
    const check = () => {
      if (state.preview || !state.anchor || performance.now() - start > 5000) resolve();
      else requestAnimationFrame(check);
    };
    check();
  });
}

function boardPointerMove(event) {
  if (!state.held || state.held.how !== "chosen" || event.pointerType === "touch") return;
  const piece = heldPiece();
  const geo = boardGeometry();
  const [rows, cols] = pieceSpan(piece);
  const row = Math.floor((event.clientY - geo.top + (geo.pitchY - geo.size) / 2) / geo.pitchY);
  const col = Math.floor((event.clientX - geo.left + (geo.pitchX - geo.size) / 2) / geo.pitchX);
  setAnchor([row - Math.floor((rows - 1) / 2), col - Math.floor((cols - 1) / 2)]);
}

function cellAt(event) {
  const cell = event.target.closest?.("[data-testid=cell]");
  return cell ? [Number(cell.dataset.row), Number(cell.dataset.col)] : null;
}

async function boardClick(event) {
  if (state.pending && state.pending.target.includes("cell")) {
    const cell = cellAt(event);
    if (!cell) return;
    const args = state.pending.target === "cell+slot" ? [state.pending.slot, ...cell] : cell;
    if (state.pending.target === "cell+slot" && state.pending.slot === undefined) return;
    finishAction(args);
    return;
  }
  if (!state.held || state.held.how !== "chosen") return;
  boardPointerMove(event);
  if (state.anchor && !state.preview) await waitForPreview();
  await placeHeld();
}

// -- actions (swap, rotate, continue, a hammer's cell...) -----------------------

async function startAction(action) {
  if (state.busy) return;
  if (action.target === "none") return finishAction([], action.name);
  if (action.target === "slot" && state.held) return finishAction([state.held.slot], action.name);
  state.pending = { name: action.name, target: action.target, slot: state.held?.slot };
  for (const button of $("actions").children) {
    button.classList.toggle("chosen", button.dataset.action === action.name);
  }
}

async function finishAction(args, name = state.pending?.name) {
  state.pending = null;
  state.busy = true;
  const answer = await ask({ op: "act", name, args });
  state.busy = false;
  dropHeld();
  if (answer.ok) setGame(answer.game);
}

// -- keys: 1-9 choose a slot, arrows move the ghost, Enter/Space place, Esc drop ----

function fallingKey(event, down) {
  const key = event.key;
  if (key === "ArrowDown") {
    event.preventDefault();
    if (!event.repeat) fallingOp({ op: "soft_drop", on: down });
    return true;
  }
  if (!down) return false;
  if (key === "ArrowLeft" || key === "ArrowRight") {
    event.preventDefault();
    fallingOp({ op: "move", dx: key === "ArrowLeft" ? -1 : 1 });
    return true;
  }
  if (key === "Enter" || key === " ") {
    event.preventDefault();
    if (!event.repeat) fallingOp({ op: "hard_drop" });
    return true;
  }
  return false;
}

function keyDown(event) {
  if (!state.game || event.target.tagName === "SELECT") return;
  if (state.game.kind === "falling" && fallingKey(event, true)) return;
  const key = event.key;
  if (/^[1-9]$/.test(key) && state.game.kind !== "falling") {
    const slot = Number(key) - 1;
    if (slot < state.game.tray.length && choose(slot)) {
      const piece = heldPiece();
      const [rows, cols] = pieceSpan(piece);
      setAnchor([Math.max(0, Math.floor((state.game.rows - rows) / 2)),
                 Math.max(0, Math.floor((state.game.cols - cols) / 2))]);
    }
    event.preventDefault();
    return;
  }
  const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (key in moves && state.held && state.held.how === "chosen") {
    const piece = heldPiece();
    const [rows, cols] = pieceSpan(piece);
    const [row, col] = state.anchor || [0, 0];
    const [dr, dc] = moves[key];
    setAnchor([Math.min(Math.max(row + dr, 0), state.game.rows - rows),
               Math.min(Math.max(col + dc, 0), state.game.cols - cols)]);
    event.preventDefault();
  } else if ((key === "Enter" || key === " ") && state.held) {
    event.preventDefault();
    waitForPreview().then(placeHeld);
  } else if (key === "Escape") {
    state.pending = null;
    dropHeld();
    drawActions();
  } else if (!event.ctrlKey && !event.metaKey && !event.altKey) {
    // an action's key: one aimed at a slot takes the chosen piece's
    const action = state.game.actions.find((a) => a.key && a.key.toLowerCase() === key.toLowerCase());
    if (action) startAction(action);
  }
}

// -- start --------------------------------------------------------------------------

function settings() {
  document.body.dataset.theme = state.theme;
  $("theme").value = state.theme;
  $("language").value = state.language;
  document.documentElement.lang = state.language;
}

async function main() {
  settings();
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register(new URL("sw.js", document.baseURI)).catch(() => {});
  }
  $("status").textContent = "◌";
  $("theme").addEventListener("change", (event) => {
    state.theme = event.target.value;
    localStorage.setItem("blockyard.theme", state.theme);
    settings();
  });
  $("language").addEventListener("change", async (event) => {
    state.language = event.target.value;
    localStorage.setItem("blockyard.language", state.language);
    settings();
    if (state.game) {
      const answer = await ask({ op: "view" });
      if (answer.ok) setGame(answer.game);
    } else {
      await showLauncher();
    }
  });
  $("home").addEventListener("click", () => go("./"));
  setInterval(tickClock, 250);
  window.addEventListener("popstate", show);
  window.addEventListener("pointermove", moveHeld);
  window.addEventListener("pointerup", releaseHeld);
  window.addEventListener("pointercancel", (event) => {
    if (state.held && state.held.pointerId === event.pointerId) dropHeld();
  });
  window.addEventListener("keydown", keyDown);
  window.addEventListener("keyup", (event) => {
    if (state.game?.kind === "falling" && !state.game.over) fallingKey(event, false);
  });
  $("board").addEventListener("pointermove", boardPointerMove);
  $("board").addEventListener("click", boardClick);
  state.engine = new Engine("worker.mjs");
  try {
    await state.engine.ready;
  } catch (error) {
    showError(String(error.message || error));
    return;
  }
  await show();
}

main();
