// What the grading and comparing pages share: images preloaded ahead of the
// stage, and the outbox that saves a curator's actions in the background.
//
// The outbox sends actions in order, one request at a time. It lives in
// localStorage until the server confirms each action, so a failed request is
// retried (with backoff), a lost session waits for the curator to log in
// again, and a closed tab sends what was left on the next visit. Its status
// pill says which of these is happening; nothing is dropped silently (an
// action the server refuses is listed under the pill). Each action carries a
// key of its own, sent again with every retry: a grade whose answer was lost
// (a timeout after the server saved it) is recognised, not applied twice or
// after a newer one (rating.services.grade_submit).
(() => {
  "use strict";

  const paintrl = (window.paintrl = window.paintrl || {});

  // An <img> for the stage, downloading and decoding now; `ready` settles once
  // it can be painted without waiting (a broken image still shows its alt text).
  paintrl.preloadImage = (src, alt, timingName) => {
    const img = new Image();
    img.className = "stage-img";
    img.alt = alt;
    img.setAttribute("elementtiming", timingName);
    img.decoding = "async";
    img.src = src;
    return { img, ready: img.decode().catch(() => {}) };
  };

  // The queue ahead, topped up from `url` (GET with params()) while the outbox
  // is idle (its answers top up too) and wanted() says more would help;
  // topUp(true) asks even then, which keeps the server's claims alive. A
  // failed request is dropped: the outbox reports trouble, and the next
  // action or renewal asks again.
  paintrl.createTopUp = ({ url, params, wanted, idle, onAnswer }) => {
    let fetching = false;
    return async (renew = false) => {
      if (fetching || !idle() || (!renew && !wanted())) return;
      fetching = true;
      try {
        const target = new URL(url, location.href);
        for (const [k, v] of Object.entries(params())) target.searchParams.set(k, v);
        const response = await fetch(target, { headers: { Accept: "application/json" }, redirect: "manual" });
        if (response.ok) onAnswer(await response.json());
      } catch (err) {
        // offline: the next action or the renew timer tries again
      } finally {
        fetching = false;
      }
    };
  };

  // options: key (localStorage), url (where actions are posted), fields()
  // (what every request adds: the queue the browser holds), statusEl,
  // errorsEl, loginUrl, savedText ("All grades saved"), describe(op) (an
  // action in words, for refusals), onSaved(body) and onIdle() (the outbox
  // has emptied or given up for now).
  paintrl.createOutbox = (options) => {
    const outbox = {
      items: [],
      saved: 0,
      failures: 0,
      state: "ok", // ok | pending | retrying | blocked
      note: "",
      sending: false,
      wake: null,

      load() {
        try { this.items = JSON.parse(localStorage.getItem(options.key) || "[]"); } catch { this.items = []; }
      },
      persist() {
        try { localStorage.setItem(options.key, JSON.stringify(this.items)); } catch { /* private mode: memory only */ }
      },
      push(op) {
        this.items.push({ ...op, key: requestKey() });
        this.persist();
        this.showStatus();
        this.pump();
      },
      async pump() {
        if (this.sending) return;
        this.sending = true;
        try {
          while (this.items.length) {
            const op = this.items[0];
            const result = await send(op);
            if (result.kind === "saved" || result.kind === "refused") {
              this.items.shift();
              this.persist();
              this.failures = 0;
              if (result.kind === "saved") {
                this.saved += 1;
                options.onSaved(result.body);
              } else {
                reportRefused(op, result.message);
              }
            } else {
              this.failures += 1;
              this.state = result.kind === "auth" ? "blocked" : "retrying";
              this.note = result.message;
              this.showStatus();
              // 1, 2, 4 … 30 s; a lost login is checked every 10 s until it is back.
              const wait = result.kind === "auth" ? 10000 : Math.min(30000, 1000 * 2 ** (this.failures - 1));
              await new Promise((resolve) => { this.wake = resolve; setTimeout(resolve, wait); });
              this.wake = null;
            }
            this.showStatus();
          }
        } finally {
          this.sending = false;
          this.showStatus();
          options.onIdle();
        }
      },
      showStatus() {
        const n = this.items.length;
        if (!n) { this.state = "ok"; this.note = ""; }
        else if (this.state === "ok") this.state = "pending";
        const waiting = `${n} action${n === 1 ? "" : "s"} kept in this browser until saved`;
        const text = {
          ok: options.savedText,
          pending: `Saving… (${n})`,
          retrying: `Not saved yet: ${this.note}. Retrying; ${waiting}.`,
          blocked: `Not saved: ${this.note}. ${waiting}.`,
        }[this.state];
        const statusEl = options.statusEl;
        statusEl.className = `save-status is-${this.state}`;
        statusEl.dataset.pending = String(n);
        statusEl.dataset.saved = String(this.saved);
        statusEl.replaceChildren(text);
        if (this.state === "blocked") {
          const link = document.createElement("a");
          link.href = options.loginUrl;
          link.target = "_blank";
          link.textContent = " Log in again (new tab)";
          statusEl.append(link);
        }
      },
    };

    // 128 random bits as hex; crypto.getRandomValues works on plain http too,
    // where randomUUID does not.
    const requestKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)),
      (b) => b.toString(16).padStart(2, "0")).join("");

    const csrfToken = () => document.querySelector("[name=csrfmiddlewaretoken]").value;

    async function send(op) {
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries({ ...op, ...options.fields() })) {
        if (v !== undefined && v !== null) body.append(k, v);
      }
      let response;
      try {
        response = await fetch(options.url, {
          method: "POST",
          body,
          headers: { "X-CSRFToken": csrfToken(), Accept: "application/json" },
          credentials: "same-origin",
          redirect: "manual", // a lost session redirects to the login page: not a success
        });
      } catch (err) {
        return { kind: "retry", message: "the server cannot be reached" };
      }
      if (response.type === "opaqueredirect" || response.status === 401 || response.status === 403) {
        return { kind: "auth", message: "your session ended or your curator access changed" };
      }
      const isJson = (response.headers.get("Content-Type") || "").includes("application/json");
      const answer = isJson ? await response.json().catch(() => null) : null;
      if (response.ok && answer) return { kind: "saved", body: answer };
      if (response.status === 400 || response.status === 404) {
        const fields = answer?.fields ? Object.values(answer.fields).flat().join("; ") : "";
        return { kind: "refused", message: fields || answer?.error || `refused (${response.status})` };
      }
      return { kind: "retry", message: `the server answered ${response.status}` };
    }

    function reportRefused(op, message) {
      const li = document.createElement("li");
      li.textContent = `${options.describe(op)} was not saved: ${message}`;
      options.errorsEl.append(li);
      options.errorsEl.hidden = false;
    }

    window.addEventListener("online", () => outbox.wake?.());
    window.addEventListener("beforeunload", (event) => {
      if (outbox.items.length) event.preventDefault(); // they are kept, but say so
    });
    return outbox;
  };
})();
