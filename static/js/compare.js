// The comparing page, made fast as the grading page is (grading.js). The page
// works without this file (plain forms, one pair per page load); with it:
//
// - The browser holds a few pairs ahead (claimed for this curator on the
//   server, each on the sides the server drew), both images of each already
//   downloaded and decoded. A choice swaps the next pair onto the stage at
//   once; nothing waits for the network.
// - Every action (a choice, a skip, an undo) goes into the outbox (outbox.js):
//   saved in order in the background, kept in localStorage until the server
//   has it, retried after a failure. Each answer tops up the pairs ahead.
(() => {
  "use strict";

  const paintrl = window.paintrl;
  const root = document.getElementById("comparing");
  const dataEl = document.getElementById("compare-data");
  if (!root || !dataEl) return;
  const data = JSON.parse(dataEl.textContent);

  const $ = (id) => document.getElementById(id);
  const pairStage = $("pair-stage");
  const sides = { left: $("stage-left"), right: $("stage-right") };
  const promptEl = $("pair-prompt");
  const emptyEl = $("queue-empty");
  const actionsEl = $("compare-actions");
  const flashEl = $("grading-flash");
  const keysHelp = $("keys-help");
  const undoForm = $("undo-form");
  const undoHint = $("undo-hint");
  // A choice in words, as the buttons say it (the page's undo line read "renders 10 | 139").
  const CHOICE_WORDS = { left: "left is better", right: "right is better", tie: "tie", skip: "skipped" };
  const mineEl = root.querySelector('[data-progress="mine"]');

  // Arrows for the hand on the arrow keys, digits for the hand on the number row.
  const KEY_CHOICES = { ArrowLeft: "left", 1: "left", ArrowRight: "right", 2: "right",
    t: "tie", 0: "tie", s: "skip" };
  const LOADING = "Loading the next pairs…";
  const MAX_HAVE = 150;
  const RENEW_MS = Math.max(10000, data.renew_ms || 120000);

  // ---- the pairs: one on stage, the next few preloaded --------------------------
  let current = null;
  let shownAt = 0;
  const upcoming = [];
  const gone = new Set(); // pair keys acted on in this page: never shown again unless undone
  let exhausted = data.exhausted;

  const pairKey = (entry) => [entry.left.id, entry.right.id].sort((a, b) => a - b).join("-");

  function prepare(entry) {
    for (const side of ["left", "right"]) {
      const render = entry[side];
      if (render.img) continue;
      const label = `${side === "left" ? "Left" : "Right"}: ${entry.prompt || `render ${render.id}`}`;
      Object.assign(render, paintrl.preloadImage(render.png, label, "compare-render"));
    }
    entry.ready = Promise.all([entry.left.ready, entry.right.ready]);
    return entry;
  }

  function receive(entries) {
    for (const entry of entries || []) {
      const key = pairKey(entry);
      if (gone.has(key) || (current && pairKey(current) === key)) continue;
      if (upcoming.some((e) => pairKey(e) === key)) continue;
      upcoming.push(prepare(entry));
    }
    if (!current && upcoming.length) show(upcoming.shift());
  }

  function show(entry) {
    current = entry || null;
    pairStage.dataset.pair = entry ? entry.key : "";
    if (!entry) {
      for (const figure of Object.values(sides)) { figure.replaceChildren(); figure.dataset.render = ""; }
      promptEl.replaceChildren();
      pairStage.hidden = true;
      actionsEl.hidden = true;
      const empty = exhausted && !outbox.items.length;
      emptyEl.hidden = !empty;
      flash(empty ? "" : LOADING);
      setTimeout(topUp, 0);
      return;
    }
    emptyEl.hidden = true;
    pairStage.hidden = false;
    actionsEl.hidden = false;
    if (flashEl.textContent === LOADING) flash("");
    for (const side of ["left", "right"]) {
      sides[side].replaceChildren(entry[side].img);
      sides[side].dataset.render = entry[side].id;
    }
    promptEl.textContent = entry.prompt || "(no prompt)";
    shownAt = performance.now();
    entry.ready.then(() => { if (current === entry) shownAt = performance.now(); });
    root.dispatchEvent(new CustomEvent("compare:shown", { detail: { pair: entry.key } }));
    setTimeout(topUp, 0); // after the caller has queued its action, which tops up itself
  }

  function haveKeys() {
    const keys = [current, ...upcoming].filter(Boolean).map(pairKey);
    for (const op of outbox.items) keys.push(pairKey({ left: { id: op.left }, right: { id: op.right } }));
    return [...new Set(keys)].slice(0, MAX_HAVE);
  }

  const queueRequest = () => ({ want: data.prefetch, have: haveKeys().join(",") });

  const topUp = paintrl.createTopUp({
    url: data.urls.next,
    params: queueRequest,
    wanted: () => !exhausted && upcoming.length + (current ? 1 : 0) < data.prefetch - 1,
    idle: () => !outbox.items.length,
    onAnswer: (body) => {
      exhausted = body.exhausted;
      receive(body.entries);
      if (!current) show(null);
    },
  });

  // ---- the outbox ------------------------------------------------------------------
  const outbox = paintrl.createOutbox({
    key: `paintrl:compare-outbox:${data.user}`,
    url: data.urls.act,
    fields: queueRequest,
    statusEl: $("save-status"),
    errorsEl: $("save-errors"),
    loginUrl: data.urls.login,
    savedText: "All comparisons saved",
    describe: (op) => `Renders ${op.left} and ${op.right}: ${op.op}${op.choice ? ` (${CHOICE_WORDS[op.choice] || op.choice})` : ""}`,
    onSaved: (body) => {
      exhausted = body.exhausted;
      receive(body.entries);
      if (!current) show(null);
      if (mineEl && body.saved.op === "compare" && body.saved.choice !== "skip") {
        mineEl.textContent = String(Number(mineEl.textContent) + 1);
      }
      document.body.dispatchEvent(new CustomEvent("compare:saved", { detail: body.saved }));
    },
    onIdle: () => topUp(),
  });

  // ---- actions -----------------------------------------------------------------------
  const undoStack = (data.undo || []).map((step) => ({ ...step }));

  function plain(entry) {
    const strip = ({ img, ready, ...rest }) => rest;
    return { key: entry.key, prompt: entry.prompt, left: strip(entry.left), right: strip(entry.right) };
  }

  function choose(choice) {
    if (!current) return;
    const entry = current;
    const shownMs = Math.max(0, Math.round(performance.now() - shownAt));
    gone.add(pairKey(entry));
    show(upcoming.shift()); // the next pair first: everything else can follow the paint
    outbox.push({ op: "compare", left: entry.left.id, right: entry.right.id, choice, shown_ms: shownMs });
    undoStack.push({ ...plain(entry), choice });
    flash("");
    showUndo();
  }

  function undo() {
    const step = undoStack.pop();
    if (!step) { flash("Nothing to undo."); return; }
    outbox.push({ op: "undo", left: step.left.id, right: step.right.id });
    const key = pairKey(step);
    gone.delete(key);
    const back = upcoming.findIndex((e) => pairKey(e) === key);
    if (back >= 0) upcoming.splice(back, 1);
    if (current && pairKey(current) !== key) upcoming.unshift(current);
    if (mineEl && step.choice !== "skip") mineEl.textContent = String(Math.max(0, Number(mineEl.textContent) - 1));
    flash(`Comparison of renders ${step.left.id} and ${step.right.id} withdrawn.`);
    show(prepare({ key: step.key, prompt: step.prompt, left: { ...step.left }, right: { ...step.right } }));
    showUndo();
  }

  function showUndo() {
    const step = undoStack[undoStack.length - 1];
    undoForm.hidden = !step;
    if (!step) return;
    undoHint.textContent = `withdraw your choice (${CHOICE_WORDS[step.choice] || step.choice}) on renders ${step.left.id} and ${step.right.id}`;
  }

  function flash(text) {
    flashEl.textContent = text;
  }

  // ---- wiring: keys, buttons, forms ------------------------------------------------
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
    if (event.target.closest?.("input, textarea, select, [contenteditable]")) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (event.repeat && key !== "?") return; // holding a key must not judge a row of pairs
    if (KEY_CHOICES[key]) choose(KEY_CHOICES[key]);
    else if (key === "u" || key === "Backspace") undo();
    else if (key === "?") {
      keysHelp.open = !keysHelp.open;
      if (keysHelp.open) keysHelp.scrollIntoView({ block: "nearest" });
    }
    else if (key === "Escape") keysHelp.open = false;
    else return;
    event.preventDefault();
  });

  root.addEventListener("submit", (event) => {
    const form = event.target;
    if (form.id === "compare-form") choose(event.submitter?.value);
    else if (form.id === "undo-form") undo();
    else return;
    event.preventDefault();
  });

  setInterval(() => { if (document.visibilityState === "visible") topUp(true); }, RENEW_MS);

  // ---- start ---------------------------------------------------------------------------
  outbox.load();
  for (const op of outbox.items) if (op.op === "compare") gone.add(pairKey({ left: { id: op.left }, right: { id: op.right } }));
  const first = data.entries.filter((e) => !gone.has(pairKey(e)));
  if (first.length && pairStage.dataset.pair === first[0].key) {
    // The server already put the first pair on the stage; adopt those elements.
    for (const side of ["left", "right"]) {
      const img = sides[side].querySelector("img");
      if (img) first[0][side] = { ...first[0][side], img, ready: img.decode().catch(() => {}) };
    }
  }
  upcoming.push(...first.slice(1).map(prepare));
  show(first.length ? prepare(first[0]) : null);
  root.classList.add("js");
  showUndo();
  outbox.showStatus();
  if (outbox.items.length) outbox.pump();
})();
