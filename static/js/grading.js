// The grading page, made fast. The page works without this file (plain forms,
// one render per page load); with it:
//
// - The browser holds a few renders ahead (claimed for this curator on the
//   server), each already downloaded and decoded in its own <img>. A grade
//   swaps the next <img> onto the stage at once; nothing waits for the network.
// - Every action (grade, skip, undo, a change from the history strip) goes into
//   the outbox (outbox.js, shared with the comparing page): saved in order in
//   the background, kept in localStorage until the server has it, retried.
// - Each answer tops up the queue of renders ahead. Saved actions fire a
//   `grading:saved` event, on which htmx refreshes the progress figures
//   (throttled), so the grade request itself stays lean.
(() => {
  "use strict";

  const paintrl = window.paintrl;

  const root = document.getElementById("grading");
  const dataEl = document.getElementById("grading-data");
  if (!root || !dataEl) return;
  const data = JSON.parse(dataEl.textContent);

  const $ = (id) => document.getElementById(id);
  const stage = $("stage");
  const promptEl = $("stage-prompt");
  const metaEl = $("stage-meta");
  const captionEl = $("stage-caption");
  const emptyEl = $("queue-empty");
  const actionsEl = $("grade-actions");
  const statusEl = $("save-status");
  const errorsEl = $("save-errors");
  const flashEl = $("grading-flash");
  const codeCard = $("code-card");
  const keysHelp = $("keys-help");
  const historyStrip = $("history-strip");
  const historyEmpty = $("history-empty");
  const tileTemplate = $("history-tile-template");
  const undoForm = $("undo-form");
  const undoHint = $("undo-hint");

  const KEY_GRADES = { 1: "love", l: "love", 2: "okay", o: "okay", 3: "nope", n: "nope" };
  const HISTORY_SIZE = 8;
  const LOADING = "Loading the next renders…";
  const MAX_HAVE = 150; // ids sent as "already in the browser"; the server caps the field
  // Ask again well before claims lapse, so a curator lingering on one render keeps the rest.
  const RENEW_MS = Math.max(10000, data.renew_ms || 120000);
  const queryString = new URLSearchParams(data.query).toString();
  const withQuery = (url) => (queryString ? `${url}?${queryString}` : url);

  // ---- the renders: one on stage, the next few preloaded ----------------------
  let current = null;
  let shownAt = 0;
  const upcoming = [];
  const gone = new Set(); // renders acted on in this page: never shown again unless undone
  let after = data.after || 0; // reviewing: the last grade id received
  let exhausted = data.exhausted; // the server's last word: nothing more is open

  function prepare(entry) {
    if (entry.img) return entry;
    // A broken image still shows (its alt text); grading it is the curator's call.
    Object.assign(entry, paintrl.preloadImage(entry.png, entry.prompt || `Render ${entry.id}`,
      "grading-render"));
    return entry;
  }

  function receive(entries) {
    for (const entry of entries || []) {
      if (entry.grade_id) after = Math.max(after, entry.grade_id);
      if (gone.has(entry.id) || entry.id === current?.id) continue;
      if (upcoming.some((e) => e.id === entry.id)) continue;
      upcoming.push(prepare(entry));
    }
    if (!current && upcoming.length) show(upcoming.shift());
  }

  function show(entry) {
    current = entry || null;
    stage.dataset.render = entry ? entry.id : "";
    if (!entry) {
      // Nothing on stage: no prompt, no buttons and no code panel left over from the last one.
      stage.replaceChildren();
      promptEl.replaceChildren();
      metaEl.replaceChildren();
      captionEl.hidden = true;
      actionsEl.hidden = true;
      codeCard.hidden = true;
      codeCard.replaceChildren();
      const empty = exhausted && !outbox.items.length;
      emptyEl.hidden = !empty;
      flash(empty ? "" : LOADING);
      setTimeout(topUp, 0);
      return;
    }
    emptyEl.hidden = true;
    captionEl.hidden = false;
    actionsEl.hidden = false;
    if (flashEl.textContent === LOADING) flash("");
    stage.replaceChildren(entry.img);
    promptEl.textContent = entry.prompt || "(no prompt)";
    metaEl.replaceChildren();
    const link = document.createElement("a");
    link.href = entry.detail;
    link.textContent = `render ${entry.id}`;
    metaEl.append([entry.origin, entry.subject].filter(Boolean).join(" · ") + " · ", link);
    if (entry.grade) metaEl.append(` · your grade: ${entry.grade}`);
    for (const button of root.querySelectorAll(".grade-btn")) {
      button.classList.toggle("is-current", button.value === entry.grade);
    }
    shownAt = performance.now();
    entry.ready.then(() => { if (current === entry) shownAt = performance.now(); });
    if (!codeCard.hidden) loadCode(entry);
    root.dispatchEvent(new CustomEvent("grading:shown", { detail: { render: entry.id } }));
    setTimeout(topUp, 0); // after the caller has queued its action, which tops up itself
  }

  function advance() {
    show(upcoming.shift());
  }

  function haveIds() {
    const ids = [current?.id, ...upcoming.map((e) => e.id), ...outbox.items.map((op) => op.render)];
    return [...new Set(ids.filter(Boolean))].slice(0, MAX_HAVE);
  }

  function queueRequest() {
    const params = { want: data.prefetch, have: haveIds().join(",") };
    if (data.reviewing && after) params.after = after;
    return params;
  }

  // Top up from rating:next (outbox.js): what the page holds, and the filter.
  const topUp = paintrl.createTopUp({
    url: data.urls.next,
    params: () => ({ ...data.query, ...queueRequest() }),
    wanted: () => !exhausted && upcoming.length + (current ? 1 : 0) < data.prefetch - 1,
    idle: () => !outbox.items.length,
    onAnswer: (body) => {
      exhausted = body.exhausted;
      receive(body.entries);
      if (!current) show(null);
    },
  });

  // ---- the outbox: actions saved in order, never dropped silently -------------
  const outbox = paintrl.createOutbox({
    key: `paintrl:grading-outbox:${data.user}`,
    url: withQuery(data.urls.act),
    fields: queueRequest,
    statusEl,
    errorsEl,
    loginUrl: data.urls.login,
    savedText: "All grades saved",
    describe: (op) => `Render ${op.render}: ${op.op}${op.value ? ` ${op.value}` : ""}`,
    onSaved: answered,
    onIdle: () => topUp(),
  });

  function answered(body) {
    exhausted = body.exhausted;
    receive(body.entries);
    if (!current) show(null);
    // htmx refreshes the progress figures on this (throttled); in a review
    // they count from the last grade received.
    const figures = $("progress-figures");
    if (figures && data.reviewing) figures.setAttribute("hx-vals", JSON.stringify({ after }));
    document.body.dispatchEvent(new CustomEvent("grading:saved", { detail: body.saved }));
  }

  // ---- actions ----------------------------------------------------------------
  const undoStack = (data.undo || []).map((step) => ({ ...step, op: "grade" }));

  function plain(entry) {
    const { img, ready, ...rest } = entry;
    return rest;
  }

  function gradeCurrent(value) {
    if (!current) return;
    const entry = current;
    const shownMs = Math.max(0, Math.round(performance.now() - shownAt));
    gone.add(entry.id);
    advance(); // the next render first: everything else can follow the paint
    outbox.push({ op: "grade", render: entry.id, value, shown_ms: shownMs });
    undoStack.push({ ...plain(entry), op: "grade", grade: value, restore: entry.grade || "" });
    historyPut(entry, value);
    flash("");
    showUndo();
  }

  function skipCurrent() {
    if (!current) return;
    const entry = current;
    advance();
    if (!data.reviewing) { // a review just moves on; a skip is saved
      gone.add(entry.id);
      outbox.push({ op: "skip", render: entry.id });
      undoStack.push({ ...plain(entry), op: "skip" });
    }
    showUndo();
  }

  function undo() {
    const step = undoStack.pop();
    if (!step) { flash("Nothing to undo."); return; }
    if (step.op === "skip") {
      outbox.push({ op: "unskip", render: step.id });
    } else {
      outbox.push({ op: "undo", render: step.id, restore: step.restore });
      historyPut(step, step.restore);
    }
    gone.delete(step.id);
    const back = upcoming.findIndex((e) => e.id === step.id);
    if (back >= 0) upcoming.splice(back, 1);
    if (current && current.id !== step.id) upcoming.unshift(current);
    flash(step.op === "skip" ? `Skip of render ${step.id} undone.`
      : step.restore ? `Render ${step.id} back to ${step.restore}.` : `Grade of render ${step.id} withdrawn.`);
    show(prepare({ ...step, grade: step.restore || "" }));
    showUndo();
  }

  function changeFromHistory(tile, value) {
    const entry = tileEntry(tile);
    if (entry.grade === value) return;
    outbox.push({ op: "grade", render: entry.id, value });
    undoStack.push({ ...entry, op: "grade", grade: value, restore: entry.grade });
    historyPut(entry, value);
    if (current?.id === entry.id) current.grade = value;
    flash(`Render ${entry.id} changed to ${value}.`);
    showUndo();
  }

  function showUndo() {
    const step = undoStack[undoStack.length - 1];
    undoForm.hidden = !step;
    if (!step) return;
    undoHint.textContent = `render ${step.id}: ${step.op === "skip" ? "unskip"
      : step.restore ? `back to ${step.restore}` : `withdraw ${step.grade}`}`;
  }

  function flash(text) {
    flashEl.textContent = text;
  }

  // ---- the history strip --------------------------------------------------------
  function tileEntry(tile) {
    const d = tile.dataset;
    return { id: Number(d.render), grade: d.grade, png: d.png, detail: d.detail, code: d.code,
      prompt: d.prompt || "", origin: "", subject: "" };
  }

  function historyPut(entry, value) {
    let tile = historyStrip.querySelector(`.history-tile[data-render="${entry.id}"]`);
    if (!value) { tile?.remove(); historyEmpty.hidden = historyStrip.children.length > 0; return; }
    if (!tile) {
      tile = tileTemplate.content.firstElementChild.cloneNode(true);
      Object.assign(tile.dataset, { render: entry.id, png: entry.png, detail: entry.detail,
        code: entry.code, prompt: entry.prompt || "" });
      const link = tile.querySelector("a");
      link.href = entry.detail;
      link.title = entry.prompt || "";
      const img = tile.querySelector("img");
      img.src = entry.png;
      img.alt = entry.prompt || "";
      tile.querySelector("[name=render]").value = entry.id;
    }
    tile.dataset.grade = value;
    for (const chip of tile.querySelectorAll(".chip")) {
      const on = chip.value === value;
      chip.classList.toggle("is-current", on);
      chip.setAttribute("aria-pressed", String(on));
    }
    historyStrip.prepend(tile);
    while (historyStrip.children.length > HISTORY_SIZE) historyStrip.lastElementChild.remove();
    historyEmpty.hidden = true;
  }

  // ---- code panel and keys help -------------------------------------------------
  function loadCode(entry) {
    if (window.htmx) {
      window.htmx.ajax("GET", entry.code, { target: codeCard, swap: "innerHTML" });
      return;
    }
    fetch(entry.code).then((r) => r.text()).then((html) => { codeCard.innerHTML = html; });
  }

  function toggleCode() {
    if (!current) return; // no render, no code to show
    codeCard.hidden = !codeCard.hidden;
    if (!codeCard.hidden) loadCode(current);
  }

  // ---- wiring: keys, buttons, forms -----------------------------------------------
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
    if (event.target.closest?.("input, textarea, select, [contenteditable]")) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    // Holding a grade key must not grade a row of renders.
    if (event.repeat && key !== "?") return;
    if (KEY_GRADES[key]) gradeCurrent(KEY_GRADES[key]);
    else if (key === "s") skipCurrent();
    else if (key === "u") undo();
    else if (key === "c") toggleCode();
    else if (key === "g" && $("guidelines")) $("guidelines").open = !$("guidelines").open;
    else if (key === "?") {
      keysHelp.open = !keysHelp.open;
      if (keysHelp.open) keysHelp.scrollIntoView({ block: "nearest" });
    }
    else if (key === "Escape") { codeCard.hidden = true; keysHelp.open = false; }
    else return;
    event.preventDefault();
  });

  root.addEventListener("submit", (event) => {
    const form = event.target;
    const submitter = event.submitter;
    if (form.id === "grade-form") gradeCurrent(submitter?.value);
    else if (form.id === "skip-form") skipCurrent();
    else if (form.id === "undo-form") undo();
    else if (form.classList.contains("history-form")) changeFromHistory(form.closest(".history-tile"), submitter?.value);
    else return; // the filter form and "bring back skipped" reload the page
    event.preventDefault();
  });

  root.addEventListener("click", (event) => {
    const link = event.target.closest("#code-toggle, #skip-button");
    if (!link) return;
    event.preventDefault();
    if (link.id === "code-toggle") toggleCode();
    else skipCurrent();
  });

  // Changing a filter reloads the page with it (the server releases claims outside it).
  $("grading-filters").addEventListener("change", (event) => {
    if (event.target.matches("select")) event.currentTarget.requestSubmit();
  });

  setInterval(() => { if (document.visibilityState === "visible") topUp(true); }, RENEW_MS);

  // ---- start ----------------------------------------------------------------------
  outbox.load();
  for (const op of outbox.items) if (op.op === "grade" || op.op === "skip") gone.add(op.render);
  const first = data.entries.filter((e) => !gone.has(e.id)).map(prepare);
  current = null;
  upcoming.push(...first.slice(1));
  if (first.length) {
    // The server already put the first render on the stage; adopt that element.
    const img = stage.querySelector("img");
    if (img && Number(stage.dataset.render) === first[0].id) {
      first[0].img = img;
      first[0].ready = img.decode().catch(() => {});
    }
    show(first[0]);
  } else {
    show(null);
  }
  root.classList.add("js");
  showUndo();
  outbox.showStatus();
  if (outbox.items.length) outbox.pump();
})();
