// The sketch editor: CodeMirror 5 over the form's textarea (line numbers,
// JavaScript highlighting, the server's syntax error marked at its line;
// without CodeMirror the textarea itself handles Tab), and a live preview that runs
// the code in a sandboxed iframe (sandbox="allow-scripts", no same-origin: an
// opaque origin with no access to this page, its cookies or its CSRF token).
// The iframe loads the server renderer's harness, p5 and p5.brush, so a sketch
// paints here as it will on the server, seed included. The page works without
// this script: the form still saves.
(() => {
  "use strict";
  const cfg = JSON.parse(document.getElementById("preview-config").textContent);
  const form = document.getElementById("editor-form");
  const code = document.getElementById("id_code");
  const seed = document.getElementById("id_seed");
  const holder = document.getElementById("preview-holder");
  const status = document.getElementById("preview-status");
  const errorList = document.getElementById("preview-errors");
  const codeErrors = document.getElementById("code-errors");
  const sizeNote = document.getElementById("code-size");

  // Long enough that a preview does not restart on every keystroke, short
  // enough to feel live; a light sketch paints in well under a second.
  const DEBOUNCE_MS = 600;
  const POLL_MS = 100;
  // sketches/renderer/sandbox.py: the server's browser contexts use
  // device_scale_factor=1.
  const SERVER_PIXEL_RATIO = 1;
  const INDENT = "  ";
  const encoder = new TextEncoder();
  const libraries = {
    p5: new URL(cfg.p5, location.href).href,
    brush: new URL(cfg.brush, location.href).href,
  };

  // CodeMirror keeps the textarea in step (save() on every change), so the
  // form posts what is on screen and code.value is always the current text.
  const editor = window.CodeMirror ? window.CodeMirror.fromTextArea(code, {
    mode: "javascript", lineNumbers: true, indentUnit: INDENT.length, tabSize: INDENT.length,
    gutters: ["CodeMirror-linenumbers", "syntax-error-gutter"],
    extraKeys: {
      Tab: (cm) => {
        if (cm.somethingSelected() && cm.getSelection().includes("\n")) cm.execCommand("indentMore");
        else cm.replaceSelection(INDENT);
      },
      "Shift-Tab": "indentLess",
    },
  }) : null;

  let run = 0;
  let iframe = null;
  let debounce = null;
  let watchdog = null;
  // Code sent back with a form error is not saved yet.
  let dirty = form.querySelector(".errorlist") !== null;

  const setStatus = (state, text, errors = 0) => {
    status.dataset.state = state;
    status.dataset.errors = String(errors);
    status.textContent = text;
  };
  const listItems = (list, items) => {
    list.replaceChildren(...items.map((text) => {
      const li = document.createElement("li");
      li.textContent = text;  // never innerHTML: messages come from the sketch
      return li;
    }));
  };

  // A value embedded in an inline script: JSON, with "<" escaped so the code
  // cannot close the <script> element it travels in.
  const scriptLiteral = (value) => JSON.stringify(value).replace(/</g, "\\u003c");

  const previewDocument = (source, seedValue, runId) => {
    const csp = [
      "default-src 'none'",
      `script-src ${new URL(libraries.p5).origin} 'unsafe-inline' 'unsafe-eval'`,
      "style-src 'unsafe-inline'", "img-src data: blob:", "font-src data:",
      "connect-src 'none'", "worker-src 'none'", "frame-src 'none'", "object-src 'none'",
      "media-src 'none'", "base-uri 'none'", "form-action 'none'",
    ].join("; ");
    // Captured before the sketch runs, so a sketch that patches them cannot
    // silence the report (it can only lie about itself, shown as text).
    const runner = `(() => {
  const parentWindow = window.parent;
  const post = parentWindow.postMessage.bind(parentWindow);
  const later = window.setTimeout.bind(window);
  const parse = JSON.parse;
  const api = window.__paintrl;
  const send = (message) => post(Object.assign({ source: "paintrl-preview", run: ${runId} }, message),
                                 ${scriptLiteral(location.origin)});
  if (!api || !window.p5 || !window.brush) {
    send({ phase: "failed", errors: ["p5 or p5.brush did not load"] });
    return;
  }
  try { api.run(${scriptLiteral(source)}, ${seedValue}); } catch (e) {
    send({ phase: "failed", errors: [String((e && e.message) || e)] });
    return;
  }
  const poll = () => {
    let snapshot;
    try { snapshot = parse(api.snapshot()); } catch (e) {
      send({ phase: "failed", errors: [String(e)] });
      return;
    }
    if (snapshot.phase === "done") send({ phase: "done", snapshot });
    else later(poll, ${POLL_MS});
  };
  poll();
})();`;
    // The server's pages have a device pixel ratio of 1. On a high-density
    // screen p5 would paint at 2x (it follows devicePixelRatio) and p5.brush
    // at that density: a different picture (measured: 1.75 levels off on
    // average, as far as the next seed's). Set before the harness and the
    // libraries run; assignable, as the browser's own is.
    const pixelRatio = `Object.defineProperty(window, "devicePixelRatio",
  { value: ${SERVER_PIXEL_RATIO}, writable: true, configurable: true, enumerable: true });`;
    return `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<style>html,body{margin:0;padding:0;background:#fff}
canvas{display:block;width:100%!important;height:auto!important}</style>
<script>${pixelRatio}</script>
${cfg.harness}
<script src="${libraries.p5}"></script>
<script src="${libraries.brush}"></script>
</head><body><script>${runner}</script></body></html>`;
  };

  const stopPreview = () => {
    clearTimeout(watchdog);
    if (iframe) iframe.remove();
    iframe = null;
  };

  const startPreview = () => {
    clearTimeout(debounce);
    clearTimeout(watchdog);
    run += 1;
    const seedValue = Number.parseInt(seed.value, 10);
    const fresh = document.createElement("iframe");
    fresh.setAttribute("sandbox", "allow-scripts");
    fresh.setAttribute("referrerpolicy", "no-referrer");
    fresh.title = "Live preview";
    fresh.className = "preview-frame";
    fresh.srcdoc = previewDocument(code.value, Number.isFinite(seedValue) ? seedValue : 0, run);
    // A new iframe, not a new srcdoc: the old document goes away with its
    // element, even when its code is stuck in a loop.
    if (iframe) iframe.replaceWith(fresh); else holder.append(fresh);
    iframe = fresh;
    listItems(errorList, []);
    setStatus("running", "Painting…");
    const runId = run;
    watchdog = setTimeout(() => {
      if (runId !== run) return;
      stopPreview();
      setStatus("failed", `Preview stopped: no finished frame after ${cfg.deadlineS} s ` +
                          "(the server gives up at the same point).", 1);
    }, cfg.deadlineS * 1000);
  };

  const schedulePreview = () => {
    clearTimeout(debounce);
    debounce = setTimeout(startPreview, DEBOUNCE_MS);
  };

  window.addEventListener("message", (event) => {
    if (!iframe || event.source !== iframe.contentWindow) return;
    const data = event.data;
    if (!data || data.source !== "paintrl-preview" || data.run !== run) return;
    clearTimeout(watchdog);
    if (data.phase === "failed") {
      const errors = Array.isArray(data.errors) ? data.errors.map(String) : [];
      listItems(errorList, errors);
      setStatus("failed", "The preview could not run.", errors.length || 1);
      return;
    }
    const snap = data.snapshot || {};
    const errors = Object.values(snap.errors || {}).map(String);
    const violations = Object.entries(snap.violations || {}).map(
      ([name, detail]) => `The server gate will reject this: ${name} (${detail})`);
    const unknown = Object.keys(snap.unknownCalls || {}).map(
      (name) => `brush.${name} is not a p5.brush method: it draws nothing`);
    const calls = Object.values(snap.brushCalls || {}).reduce((a, b) => a + Number(b), 0);
    const problems = [...errors, ...violations, ...unknown];
    listItems(errorList, problems);
    const size = snap.width ? `${snap.width}×${snap.height}` : "no canvas";
    const ms = Math.round(Number(snap.drawMs) || 0);
    const count = (n, word) => `${n} ${word}${Number(n) === 1 ? "" : "s"}`;
    const parts = [size, count(calls, "brush call")];
    if (snap.frames) parts.push(count(snap.frames, "frame"));
    parts.push(`${ms} ms`);
    if (problems.length) parts.push(count(problems.length, "problem"));
    setStatus("done", `Painted: ${parts.join(", ")}.`, problems.length);
  });

  // --- the code editor ----------------------------------------------------
  const showSize = () => {
    const bytes = encoder.encode(code.value).length;
    sizeNote.textContent = `${(bytes / 1000).toFixed(1)} kB of ${cfg.maxBytes / 1e6} MB`;
    sizeNote.classList.toggle("error", bytes > cfg.maxBytes);
    return bytes;
  };

  // Replace the selection keeping the browser's undo history where it can.
  const replaceSelection = (text, start, end) => {
    code.setSelectionRange(start, end);
    if (!document.execCommand("insertText", false, text)) {
      code.setRangeText(text, start, end, "end");
      code.dispatchEvent(new Event("input", { bubbles: true }));
    }
  };

  const indentLines = (outdent) => {
    const { value, selectionStart, selectionEnd } = code;
    const lineStart = value.lastIndexOf("\n", selectionStart - 1) + 1;
    const block = value.slice(lineStart, selectionEnd);
    const lines = block.split("\n");
    const changed = lines.map((line) => {
      if (!outdent) return INDENT + line;
      return line.startsWith(INDENT) ? line.slice(INDENT.length) : line.replace(/^[ \t]/, "");
    }).join("\n");
    replaceSelection(changed, lineStart, selectionEnd);
    code.setSelectionRange(lineStart, lineStart + changed.length);
  };

  let tabLeaves = false;  // after Esc, Tab moves focus as usual (no keyboard trap)
  // The editor's shortcuts; true when the key was one of them.
  const shortcut = (event) => {
    const mod = event.ctrlKey || event.metaKey;
    if (event.key === "Escape") { tabLeaves = true; return false; }
    if (event.key === "Enter" && mod) { event.preventDefault(); startPreview(); return true; }
    if (event.key === "s" && mod) { event.preventDefault(); form.requestSubmit(); return true; }
    if (event.key !== "Tab") tabLeaves = false;
    return false;
  };

  // The server's syntax error in the code it sent back: the line tinted and a
  // gutter marker. CodeMirror moves both with the line as the code is edited.
  const markSyntaxError = (problem) => {
    const line = Math.min(Math.max(problem.line - 1, 0), editor.lineCount() - 1);
    const marker = document.createElement("span");
    marker.className = "syntax-error-marker";
    marker.textContent = "\u25CF";
    marker.title = `Syntax error: ${problem.message}`;
    editor.addLineClass(line, "background", "syntax-error-line");
    editor.setGutterMarker(line, "syntax-error-gutter", marker);
    editor.setCursor({ line, ch: Math.max(problem.column - 1, 0) });
    editor.scrollIntoView(null, 80);
  };

  const onInput = () => { dirty = true; showSize(); schedulePreview(); };
  if (editor) {
    editor.on("keydown", (cm, event) => {
      if (shortcut(event)) return;
      if (event.key === "Tab" && (tabLeaves || event.ctrlKey || event.metaKey || event.altKey)) {
        event.codemirrorIgnore = true;  // the browser's own Tab: focus moves on
      }
    });
    editor.on("changes", () => { editor.save(); onInput(); });
    if (cfg.syntaxError) markSyntaxError(cfg.syntaxError);
  } else {
    code.addEventListener("keydown", (event) => {
      if (shortcut(event) || event.key !== "Tab") return;
      if (tabLeaves || event.ctrlKey || event.metaKey || event.altKey) return;
      event.preventDefault();
      const multiline = code.value.slice(code.selectionStart, code.selectionEnd).includes("\n");
      if (event.shiftKey || multiline) indentLines(event.shiftKey);
      else replaceSelection(INDENT, code.selectionStart, code.selectionEnd);
    });
    code.addEventListener("input", onInput);
  }
  seed.addEventListener("input", schedulePreview);

  form.addEventListener("submit", (event) => {
    if (showSize() > cfg.maxBytes) {
      // Refuse here: a body this large never reaches the form's own error.
      event.preventDefault();
      const list = document.createElement("ul");
      list.className = "errorlist";
      listItems(list, [`The sketch is larger than ${cfg.maxBytes / 1e6} MB; shorten it before ` +
                       "saving."]);
      codeErrors.replaceChildren(list);
      return;
    }
    dirty = false;
  });
  window.addEventListener("beforeunload", (event) => {
    if (dirty) event.preventDefault();  // unsaved code: let the browser ask
  });

  showSize();
  startPreview();
})();
