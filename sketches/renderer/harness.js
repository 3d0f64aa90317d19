// The in-page half of the sandbox. It runs before p5 and p5.brush load, and
// answers one question for the Python side: what did this sketch do?
//
// Hostile code runs after us in the same realm, so everything we rely on is
// captured here first, state lives in this closure, and the only handle left
// on `window` (`__paintrl`) is frozen and non-configurable. Counts travel as
// null-prototype objects so a patched Object.prototype.toJSON cannot forge them.
(() => {
  "use strict";
  const cfg = JSON.parse(document.currentScript.dataset.config);
  const stringify = JSON.stringify;
  const now = performance.now.bind(performance);
  const defineProperty = Object.defineProperty;
  const create = Object.create;
  const GL1 = window.WebGLRenderingContext;
  const GL2 = window.WebGL2RenderingContext;
  const appendChild = Node.prototype.appendChild;
  const createElement = Document.prototype.createElement;
  const addEventListener = EventTarget.prototype.addEventListener;
  const toDataURL = HTMLCanvasElement.prototype.toDataURL;

  // Mulberry32: seeded before the libraries load so their load-time
  // randomness is fixed; re-seeded with the render seed in run().
  let rngState = 0;
  const seedRandom = (s) => { rngState = (s >>> 0) || 1; };
  const random = () => {
    rngState = (rngState + 0x6d2b79f5) | 0;
    let t = Math.imul(rngState ^ (rngState >>> 15), rngState | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  seedRandom(cfg.bootSeed);
  defineProperty(Math, "random", { value: random, writable: false, configurable: false });

  const state = create(null);
  state.phase = "loaded";        // loaded -> running -> setup_done -> done
  state.frames = 0;
  state.looping = true;
  state.hasDraw = false;
  state.webgl = null;
  state.width = 0;
  state.height = 0;
  state.drawMs = 0;
  state.errors = create(null);   // index -> message
  state.errorCount = 0;
  state.violations = create(null); // name -> first detail
  state.brushCalls = create(null); // method -> count
  state.unknownCalls = create(null);
  state.brushPaintCalls = 0;
  state.plainCalls = create(null);
  let startedAt = 0;
  let capture = null;  // PNG data URL of the canvas, taken as the sketch finishes
  let instance = null;
  let brushDepth = 0;

  const violate = (name, detail) => {
    if (!(name in state.violations)) state.violations[name] = String(detail).slice(0, 300);
  };
  const recordError = (message) => {
    if (state.errorCount < 20) state.errors[state.errorCount] = String(message).slice(0, 500);
    state.errorCount += 1;
    // A sketch that throws in setup() never finishes it, and one that throws
    // in draw() never reaches noLoop(): either way the picture is final now.
    if (state.phase !== "loaded") finish();
  };
  const finish = () => {
    if (state.phase === "done") return;
    if (instance) {
      try { instance._loop = false; } catch (e) { /* tampered */ }
      // WebGL queues work: reading one pixel waits for the GPU, so drawMs
      // counts the painting itself, not only the JavaScript that asked for it.
      try {
        const gl = instance.drawingContext;
        if ((GL1 && gl instanceof GL1) || (GL2 && gl instanceof GL2)) {
          gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
        }
      } catch (e) { /* a lost context has nothing left to wait for */ }
      // Read the canvas now, inside the frame: a WebGL drawing buffer is
      // cleared once composited, and a screenshot of a background tab waits
      // for a throttled frame (measured: up to 1 s).
      try {
        capture = toDataURL.call(instance.drawingContext.canvas, "image/png");
      } catch (e) { capture = null; }
    }
    state.drawMs = now() - startedAt;
    state.phase = "done";
  };

  addEventListener.call(window, "error", (e) => recordError(e.message || e.error || "error"));
  addEventListener.call(window, "unhandledrejection", (e) => {
    const r = e.reason;
    recordError((r && (r.message || r.toString())) || "unhandled rejection");
  });
  addEventListener.call(document, "securitypolicyviolation", (e) => {
    violate("network_access", e.blockedURI || e.violatedDirective);
  });

  // APIs a painting has no use for. Each records its violation and throws, so
  // the sketch fails loudly instead of silently depending on the outside.
  // Armed in run(), after the (trusted) libraries have loaded.
  const forbid = (target, name, violation) => {
    const trap = function () {
      violate(violation, name);
      throw new Error(`paintrl sandbox: ${name} is not allowed`);
    };
    try {
      defineProperty(target, name, { get: trap, set: trap, configurable: false });
    } catch (e) { /* already non-configurable: CSP and the Python side still see it */ }
  };
  const arm = () => {
    for (const name of ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "RTCPeerConnection",
                        "webkitRTCPeerConnection"]) forbid(window, name, "network_access");
    forbid(navigator, "sendBeacon", "network_access");
    for (const name of ["alert", "confirm", "prompt"]) forbid(window, name, "dialog");
    forbid(window, "open", "popup");
    for (const name of ["Worker", "SharedWorker"]) forbid(window, name, "worker");
    for (const name of ["localStorage", "sessionStorage", "indexedDB", "caches"]) {
      forbid(window, name, "storage_access");
    }
    forbid(Document.prototype, "cookie", "storage_access");
  };

  const wrapBrush = () => {
    const real = window.brush;
    const known = new Set(Object.keys(real));
    const paint = new Set(cfg.brushPaintMethods);
    const wrappers = create(null);
    const proxy = new Proxy(real, {
      get(target, key) {
        if (typeof key !== "string") return target[key];
        if (!known.has(key)) {
          return function () {
            state.unknownCalls[key] = (state.unknownCalls[key] || 0) + 1;
            return undefined;
          };
        }
        const value = target[key];
        if (typeof value !== "function") return value;
        if (!wrappers[key]) {
          wrappers[key] = function (...args) {
            state.brushCalls[key] = (state.brushCalls[key] || 0) + 1;
            if (paint.has(key)) state.brushPaintCalls += 1;
            brushDepth += 1;
            try {
              return new.target ? Reflect.construct(value, args) : value.apply(this, args);
            } finally {
              brushDepth -= 1;
            }
          };
        }
        return wrappers[key];
      },
      set() { violate("tampering", "assignment to brush"); return true; },
      defineProperty() { violate("tampering", "defineProperty on brush"); return true; },
      deleteProperty() { violate("tampering", "delete on brush"); return true; },
    });
    defineProperty(window, "brush", { value: proxy, writable: false, configurable: false });
  };

  // Plain p5 primitives, counted only when the sketch calls them directly
  // (not from inside p5.brush); text() is its own violation.
  const wrapP5 = () => {
    const proto = window.p5.prototype;
    const lock = (name, wrapper) => {
      defineProperty(proto, name, { value: wrapper, writable: false, configurable: false });
    };
    for (const name of cfg.plainPrimitives) {
      const original = proto[name];
      if (typeof original !== "function") continue;
      lock(name, function (...args) {
        if (brushDepth === 0) {
          state.plainCalls[name] = (state.plainCalls[name] || 0) + 1;
          if (name === "text") violate("text_on_canvas", "text()");
        }
        return original.apply(this, args);
      });
    }
    const guardSize = (name) => {
      const original = proto[name];
      lock(name, function (w, h, ...rest) {
        if (typeof w === "number" && !(w * h <= cfg.maxCanvasPixels) || w > cfg.maxCanvasSide || h > cfg.maxCanvasSide) {
          violate("canvas_too_large", `${w}x${h}`);
          throw new Error(`paintrl sandbox: canvas ${w}x${h} is larger than allowed`);
        }
        const result = original.call(this, w, h, ...rest);
        if (name === "createCanvas") {
          const ctx = this.drawingContext;
          state.webgl = !!((GL1 && ctx instanceof GL1) || (GL2 && ctx instanceof GL2));
        }
        return result;
      });
    };
    guardSize("createCanvas");
    guardSize("resizeCanvas");
    guardSize("createGraphics");

    window.p5.registerAddon((p5, fn, lifecycles) => {
      lifecycles.presetup = function () {
        instance = this;
        this.randomSeed(cfg.seed);
        this.noiseSeed(cfg.seed);
      };
      lifecycles.postsetup = function () {
        const ctx = this.drawingContext;
        state.webgl = !!((GL1 && ctx instanceof GL1) || (GL2 && ctx instanceof GL2));
        state.width = this.width;
        state.height = this.height;
        state.hasDraw = typeof window.draw === "function";
        state.phase = "setup_done";
        // With draw(), p5 runs it once even after noLoop() in setup(), so
        // postdraw captures; finishing here would capture an empty canvas.
        if (!state.hasDraw) finish();
      };
      lifecycles.postdraw = function () {
        state.frames += 1;
        state.width = this.width;
        state.height = this.height;
        if (!this._loop || state.frames >= cfg.maxFrames) finish();
      };
    });
  };

  const run = (code, seed) => {
    if (state.phase !== "loaded") throw new Error("paintrl sandbox: page already used");
    cfg.seed = seed;
    seedRandom(seed);
    wrapBrush();
    wrapP5();
    arm();
    state.phase = "running";
    startedAt = now();
    try {
      new Function(code);  // parse only: name a syntax error before running anything
    } catch (e) {
      recordError(`SyntaxError: ${e.message}`);
      return;
    }
    const script = createElement.call(document, "script");
    script.textContent = code;
    appendChild.call(document.head, script);  // runs synchronously
    if (typeof window.setup !== "function") {
      violate("no_setup", "no setup() function defined");
      finish();
      return;
    }
    new window.p5();
  };

  const snapshot = () => {
    if (instance) {
      try { state.looping = !!instance._loop; } catch (e) { /* tampered */ }
    }
    return stringify(state);
  };

  defineProperty(window, "__paintrl", {
    value: Object.freeze({ run, snapshot, capture: () => capture }),
    writable: false,
    configurable: false,
  });
})();
