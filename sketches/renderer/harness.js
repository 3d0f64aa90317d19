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
  const appendChild = Node.prototype.appendChild;
  const createElement = Document.prototype.createElement;
  const addEventListener = EventTarget.prototype.addEventListener;
  const toDataURL = HTMLCanvasElement.prototype.toDataURL;
  const getImageData = CanvasRenderingContext2D.prototype.getImageData;
  const contextTranslate = CanvasRenderingContext2D.prototype.translate;
  const getContext = HTMLCanvasElement.prototype.getContext;
  const apply = Reflect.apply;
  const NativePromise = Promise;
  const promiseThen = Promise.prototype.then;
  const reportError = window.reportError;
  // A sketch may throw an error with a message of hundreds of megabytes; the
  // browser ships an uncaught one whole to the Python side, so errors leaving
  // setup()/draw() longer than this are replaced by a truncated copy.
  const MAX_ERROR_CHARS = 2000;
  // Distinct unknown brush names kept, and their length: a sketch calling a
  // million made-up names must not make the report (polled every 10 ms) huge.
  const MAX_UNKNOWN_NAMES = 20;
  const MAX_NAME_CHARS = 100;

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

  // The page's clock and crypto, derived from the seed, so that a sketch
  // taking its randomness from the time or from crypto paints the same
  // picture for the same code and seed (the public replication measured up to
  // 0.195 of preference score lost to unseeded randomness on identical code).
  // The clock is virtual: it starts at a seed-derived instant, advances by
  // CLOCK_TICK_MS on every read (so a busy-wait on the clock ends and elapsed
  // times are never zero), and jumps to the next frame's time, FRAME_MS after
  // the last one or later if the reads ran past it, when a frame of
  // requestAnimationFrame callbacks begins (frames are the harness's own,
  // below). requestAnimationFrame callbacks, Event.timeStamp and the document
  // timeline read it too, so an animation driven by millis() or deltaTime
  // advances frame by frame and ends at noLoop() or the frame cap as before.
  // Honest sketches paint as before: p5.brush never reads the clock, and p5
  // reads it only to pace frames. The harness's own drawMs uses `now`, the
  // browser's clock captured above.
  const FRAME_MS = 1000 / 60;
  const CLOCK_TICK_MS = 0.01;
  const EPOCH_BASE_MS = Date.UTC(2025, 0, 1);
  const EPOCH_SPAN_MS = 365 * 24 * 3600 * 1000;
  const mulberry = (s) => {
    let a = (s >>> 0) || 1;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), a | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  };
  let clockMs = 0;     // the virtual performance.now()
  let epochMs = 0;     // Date.now() when clockMs is 0
  let frameMs = 0;     // the current frame's timestamp
  let cryptoRandom = random;
  const seedClock = (s) => {
    const derive = mulberry((s ^ 0x9e3779b9) >>> 0);
    clockMs = 1000 + Math.floor(derive() * 1e6) / 1000;  // 1-2 s after "page load"
    frameMs = clockMs;
    epochMs = EPOCH_BASE_MS + Math.floor(derive() * EPOCH_SPAN_MS) - clockMs;
    cryptoRandom = mulberry((s ^ 0x85ebca6b) >>> 0);  // its own stream: Math.random's is unchanged
  };
  seedClock(cfg.bootSeed);
  const readClock = () => (clockMs += CLOCK_TICK_MS);
  const wallNow = () => Math.floor(epochMs + readClock());
  const startFrame = () => {
    frameMs = Math.max(frameMs + FRAME_MS, clockMs);
    clockMs = frameMs;
    return frameMs;
  };
  // Fixed on the browser's prototypes, where a sketch would reach past a
  // replacement to the native. On window itself a name stays the sketch's to
  // declare or assign (`function open()`, `let innerWidth`, as in a plain
  // page, where these names are configurable): the native lived only in that
  // property, so replacing or deleting ours reaches nothing.
  const lock = (target, name, value) => {
    const own = target === window;
    try {
      defineProperty(target, name, { value, writable: own, configurable: own });
    } catch (e) { /* absent or fixed in this browser */ }
  };
  const lockGetter = (target, name, get) => {
    try {
      defineProperty(target, name, { get, configurable: target === window });
    } catch (e) { /* absent or fixed in this browser */ }
  };
  const clockWork = () => {
    lock(Performance.prototype, "now", function now() { return readClock(); });
    lockGetter(Performance.prototype, "timeOrigin", () => epochMs);
    lockGetter(PerformanceEntry.prototype, "startTime", () => 0);
    lockGetter(PerformanceEntry.prototype, "duration", () => 0);
    lockGetter(Performance.prototype, "timing", () => undefined);
    lockGetter(Performance.prototype, "memory", () => undefined);
    lockGetter(Event.prototype, "timeStamp", () => clockMs);
    lockGetter(AnimationTimeline.prototype, "currentTime", () => frameMs);
    // An animation's own clock runs on the browser's: it reads the frame's time.
    lockGetter(Animation.prototype, "currentTime", () => frameMs);
    lockGetter(Animation.prototype, "startTime", () => 0);
    lockGetter(Document.prototype, "lastModified", () => new NativeDate(epochMs).toString());
    if (typeof IdleDeadline !== "undefined") lock(IdleDeadline.prototype, "timeRemaining", () => 0);
    if (typeof BaseAudioContext !== "undefined") {
      lockGetter(BaseAudioContext.prototype, "currentTime", () => clockMs / 1000);
    }
    // Frames are the harness's own: the callbacks asked for since the last
    // frame began run together in the next one, in the order asked, and a
    // callback asked for during a frame waits for the next. Chromium's own
    // frames could not be told apart by their timestamps (seen under load: a
    // callback asked for in one frame ran with that frame's timestamp, one
    // frame early in one recording and not in the other).
    const nativeFrame = window.requestAnimationFrame;
    // Asked-for callbacks by id, ids counting up: a null-prototype object, so
    // nothing the sketch puts on a prototype sits between it and the harness.
    const frameCallbacks = create(null);
    let lastFrameId = 0;
    let nextFrameFirst = 1;  // the first id the next frame runs
    const runFrame = () => {
      const first = nextFrameFirst;
      const last = lastFrameId;
      nextFrameFirst = last + 1;
      const stamp = startFrame();
      for (let id = first; id <= last; id += 1) {
        const callback = frameCallbacks[id];
        if (callback === undefined) continue;  // cancelled
        delete frameCallbacks[id];
        try {
          apply(callback, window, [stamp]);
        } catch (e) {
          apply(reportError, window, [e]);  // as the browser reports a callback's error
        }
      }
    };
    lock(window, "requestAnimationFrame", function requestAnimationFrame(callback) {
      if (typeof callback !== "function") return apply(nativeFrame, window, [callback]);
      // The first callback for the next frame asks the browser for it.
      if (lastFrameId < nextFrameFirst) apply(nativeFrame, window, [runFrame]);
      lastFrameId += 1;
      frameCallbacks[lastFrameId] = callback;
      return lastFrameId;
    });
    lock(window, "cancelAnimationFrame", function cancelAnimationFrame(id) {
      delete frameCallbacks[id];
    });
    // Date: the constructor and Date.now() read the virtual clock; dates
    // built from arguments are untouched. One prototype, so instanceof holds.
    const VirtualDate = function Date(...args) {
      if (!new.target) return new NativeDate(wallNow()).toString();
      return Reflect.construct(NativeDate, args.length ? args : [wallNow()], new.target);
    };
    defineProperty(VirtualDate, "prototype", { value: NativeDate.prototype, writable: false });
    VirtualDate.now = function now() { return wallNow(); };
    VirtualDate.parse = NativeDate.parse;
    VirtualDate.UTC = NativeDate.UTC;
    lock(NativeDate.prototype, "constructor", VirtualDate);
    lock(window, "Date", VirtualDate);
    // Formatting "now" without a date reads the clock too.
    const format = Object.getOwnPropertyDescriptor(Intl.DateTimeFormat.prototype, "format").get;
    lockGetter(Intl.DateTimeFormat.prototype, "format", function () {
      const bound = apply(format, this, []);
      return (date) => bound(date === undefined ? wallNow() : date);
    });
    const formatToParts = Intl.DateTimeFormat.prototype.formatToParts;
    lock(Intl.DateTimeFormat.prototype, "formatToParts", function formatToParts_(date) {
      return apply(formatToParts, this, [date === undefined ? wallNow() : date]);
    });
    if (typeof Temporal === "object" && Temporal.Now) {
      const Now = Temporal.Now;
      const zone = Now.timeZoneId();
      const instant = () => Temporal.Instant.fromEpochMilliseconds(wallNow());
      const zoned = (tz) => instant().toZonedDateTimeISO(tz === undefined ? zone : tz);
      lock(Now, "instant", instant);
      lock(Now, "zonedDateTimeISO", zoned);
      lock(Now, "plainDateTimeISO", (tz) => zoned(tz).toPlainDateTime());
      lock(Now, "plainDateISO", (tz) => zoned(tz).toPlainDate());
      lock(Now, "plainTimeISO", (tz) => zoned(tz).toPlainTime());
    }
    // crypto: getRandomValues and randomUUID from the seed's own stream;
    // crypto.subtle (keys, signatures and padding drawn from the browser's
    // own randomness, which cannot be seeded) throws.
    const typedArrayTag = Object.getOwnPropertyDescriptor(
      Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
    const integerArrays = create(null);
    for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
                        "Int32Array", "Uint32Array", "BigInt64Array", "BigUint64Array"]) {
      integerArrays[name] = true;
    }
    lock(Crypto.prototype, "getRandomValues", function getRandomValues(array) {
      const tag = apply(typedArrayTag, array, []);
      if (!(tag in integerArrays)) {
        throw new TypeError("Failed to execute 'getRandomValues' on 'Crypto': "
                            + "parameter 1 is not an integer typed array.");
      }
      if (array.byteLength > 65536) {
        throw new DOMException("The ArrayBufferView's byte length exceeds 65536.",
                               "QuotaExceededError");
      }
      const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      for (let i = 0; i < bytes.length; i += 1) bytes[i] = Math.floor(cryptoRandom() * 256);
      return array;
    });
    lock(Crypto.prototype, "randomUUID", function randomUUID() {
      const hex = [];
      for (let i = 0; i < 16; i += 1) {
        let byte = Math.floor(cryptoRandom() * 256);
        if (i === 6) byte = (byte & 0x0f) | 0x40;  // version 4
        if (i === 8) byte = (byte & 0x3f) | 0x80;  // RFC 4122 variant
        hex.push((byte + 256).toString(16).slice(1));
      }
      const h = hex.join("");
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    });
    lockGetter(Crypto.prototype, "subtle", () => {
      throw new Error("paintrl sandbox: crypto.subtle is not available (its randomness cannot be seeded)");
    });
  };
  const NativeDate = Date;
  clockWork();

  // The highest pixel density, at most `wanted`, at which a w x h canvas's
  // buffer fits the pixel budget (cfg.maxCanvasPixels in all, cfg.maxBufferSide
  // a side), rounded down to a thousandth; NaN for a size that is no number.
  const mathSqrt = Math.sqrt;
  const mathFloor = Math.floor;
  const mathAbs = Math.abs;
  const fitDensity = (w, h, wanted) => {
    const area = w * h;
    if (!(area >= 0 && area < Infinity)) return NaN;
    const side = w > h ? w : h;
    let d = wanted;
    if (area * d * d > cfg.maxCanvasPixels) d = mathSqrt(cfg.maxCanvasPixels / area);
    if (side * d > cfg.maxBufferSide) d = cfg.maxBufferSide / side;
    return d === wanted ? d : mathFloor(d * 1000) / 1000;
  };

  // The window a sketch sees is a square of cfg.maxCanvasSide (the largest
  // canvas allowed), whatever the page's real size: the renderer's viewport is kept
  // small (config.py, DEFAULT_VIEWPORT_SIDE) and the editor's preview is a frame of
  // the curator's layout, so a sketch sizing its canvas by windowWidth paints
  // the same picture in both. Media queries and CSS units still see the page.
  // What the machine would leak into a picture, pinned so that unlike workers
  // record alike: its cores and memory, a name an earlier document in this
  // tab left in window.name (it outlives navigation), and the metrics of its
  // fonts. Text is never painted (text() is a violation), but a sketch may
  // place strokes by textWidth(), and each machine's fonts measure apart: so
  // every character measures TEXT_EM of the font's size, ascent and descent
  // TEXT_ASCENT and TEXT_DESCENT of it, whatever the font.
  const TEXT_EM = 0.55;
  const TEXT_ASCENT = 0.8;
  const TEXT_DESCENT = 0.2;
  const FONT_UNITS = { px: 1, pt: 4 / 3, em: 16, rem: 16, "%": 0.16 };
  const fontSize = (font) => {
    const words = String(font).split(" ");
    for (const word of words) {
      for (const unit of ["px", "pt", "rem", "em", "%"]) {
        if (word.endsWith(unit)) {
          const size = parseFloat(word.split("/")[0]);
          if (size >= 0) return size * FONT_UNITS[unit];
        }
      }
    }
    return 10;  // the canvas's default font, 10px sans-serif
  };
  const pinnedMetrics = function measureText(text) {
    const size = fontSize(this.font);
    const width = String(text).length * TEXT_EM * size;
    const ascent = TEXT_ASCENT * size;
    const descent = TEXT_DESCENT * size;
    return Object.freeze({
      width, actualBoundingBoxLeft: 0, actualBoundingBoxRight: width,
      actualBoundingBoxAscent: ascent, actualBoundingBoxDescent: descent,
      fontBoundingBoxAscent: ascent, fontBoundingBoxDescent: descent,
      emHeightAscent: ascent, emHeightDescent: descent,
      hangingBaseline: ascent, alphabeticBaseline: 0, ideographicBaseline: -descent,
    });
  };
  const machineWork = () => {
    lockGetter(Navigator.prototype, "hardwareConcurrency", () => 4);
    lockGetter(Navigator.prototype, "deviceMemory", () => 8);
    window.name = "";
    lock(CanvasRenderingContext2D.prototype, "measureText", pinnedMetrics);
    if (typeof OffscreenCanvasRenderingContext2D !== "undefined") {
      lock(OffscreenCanvasRenderingContext2D.prototype, "measureText", pinnedMetrics);
    }
  };
  machineWork();

  const windowWork = () => {
    const side = cfg.maxCanvasSide;
    for (const name of ["innerWidth", "innerHeight", "outerWidth", "outerHeight"]) {
      lockGetter(window, name, () => side);
    }
    for (const name of ["width", "height", "availWidth", "availHeight"]) {
      lockGetter(Screen.prototype, name, () => side);
    }
    if (typeof VisualViewport !== "undefined") {
      lockGetter(VisualViewport.prototype, "width", () => side);
      lockGetter(VisualViewport.prototype, "height", () => side);
    }
    // The page's root and body measure as the window does: sketches size
    // their canvas by document.body.clientWidth as often as by windowWidth.
    const root = document.documentElement;
    const bodyOf = Object.getOwnPropertyDescriptor(Document.prototype, "body").get;
    const whole = (element) => element === root || element === apply(bodyOf, document, []);
    for (const [proto, names] of [[Element.prototype, ["clientWidth", "clientHeight"]],
                                  [HTMLElement.prototype, ["offsetWidth", "offsetHeight"]]]) {
      for (const name of names) {
        const native = Object.getOwnPropertyDescriptor(proto, name).get;
        lockGetter(proto, name, function () {
          return whole(this) ? side : apply(native, this, []);
        });
      }
    }
  };
  windowWork();

  const state = create(null);
  state.phase = "loaded";
  state.recorded = cfg.record;   // the picture is painted from the recorded calls        // loaded -> running -> setup_done -> done
  state.brushVersion = cfg.brushVersion;  // the p5.brush this page loaded
  state.frames = 0;
  state.looping = true;
  state.hasDraw = false;
  state.plainCover = null;  // recording: the share of its own canvas the sketch drew on
  state.webgl = null;
  state.width = 0;
  state.height = 0;
  state.pixelDensity = 0;  // of the main canvas, as p5 drew it
  state.drawMs = 0;
  state.errors = create(null);   // index -> message
  state.errorCount = 0;
  state.violations = create(null); // name -> first detail
  state.brushCalls = create(null); // method -> count
  state.unknownCalls = create(null);
  state.brushPaintCalls = 0;
  state.plainCalls = create(null);
  state.paint = create(null);  // the paint ledger's account (see closeLedger)
  state.leanBlends = 0;  // shader sources given the lean blend (see leanBlend)
  let startedAt = 0;
  // Recording (cfg.record): recorder.js stands where p5.brush would and
  // keeps the sketch's brush calls as data; replay.js paints them in a page
  // of its own. This page's canvas is then never read, so the sketch's
  // WEBGL canvas is made as a 2D one (no WebGL context to create, nothing
  // the sketch draws here reaches the picture) and what it asked for is kept.
  let recorder = null;
  let requestedWebGL = false;
  const mainWebGL = () => (cfg.record ? requestedWebGL : mainCanvas !== null && mainIsWebGL);
  let capture = null;  // PNG data URL of the canvas, taken as the sketch finishes
  // The libraries' end-of-frame hooks, copied in run() before the sketch runs:
  // p5.brush lays strokes on its own mask and blends them onto the canvas only
  // there, so a frame stopped half-way shows none of its strokes until they run.
  let frameEnds = [];
  let instance = null;
  let brushDepth = 0;
  // The canvas createCanvas() made and its context, as the browser's own
  // getContext saw them. Never read back through p5: a sketch redefined
  // p5.instance.drawingContext to hand the capture a 2D canvas it had filled
  // with colour (seen: an `ok` verdict for one off-canvas brush stroke).
  let creatingCanvas = 0;
  let mainCanvas = null;
  let mainContext = null;
  let mainIsWebGL = false;
  // Contexts and canvases p5 made for createCanvas() and createGraphics():
  // a WebGL draw on any other context is the sketch's own raw WebGL, and any
  // other canvas put into the document is an overlay.
  let makingGraphics = 0;
  const weakSetAdd = WeakSet.prototype.add;
  const weakSetHas = WeakSet.prototype.has;
  const p5Contexts = new WeakSet();
  const p5Canvases = new WeakSet();
  const weakMapGet = WeakMap.prototype.get;
  const weakMapSet = WeakMap.prototype.set;
  // What the traps below compute with, captured before a sketch can patch it.
  const mathMax = Math.max;
  const NativeUint8Array = Uint8Array;
  const NativeInt32Array = Int32Array;
  const NativeFloat32Array = Float32Array;
  const getPrototypeOf = Object.getPrototypeOf;
  const getOwnPropertyNames = Object.getOwnPropertyNames;
  defineProperty(HTMLCanvasElement.prototype, "getContext", {
    value: function (type, ...rest) {
      const kind = String(type);  // read once: the same string p5 asked for
      const ctx = apply(getContext, this, [kind, ...rest]);
      if (ctx && (creatingCanvas > 0 || makingGraphics > 0)) {
        apply(weakSetAdd, p5Contexts, [ctx]);
        apply(weakSetAdd, p5Canvases, [this]);
      }
      const gl = kind === "webgl" || kind === "webgl2" || kind === "experimental-webgl";
      // The first context createCanvas() makes, or a later WebGL one it makes
      // after a WebGL one (p5 1.x makes a WEBGL canvas's context twice and
      // keeps the second).
      if (creatingCanvas > 0 && ctx && (mainCanvas === null || (mainIsWebGL && gl && ctx !== mainContext))) {
        mainCanvas = this;
        mainContext = ctx;
        mainIsWebGL = gl;
        mainIsWebGL2 = kind === "webgl2";
      }
      return ctx;
    },
    writable: false,
    configurable: false,
  });

  // The fill masks on the CPU and the lean blend shader are paint_speed.js's,
  // loaded before this script; it counts the shaders it made lean.
  const speed = window.__paintrlSpeed;
  // Which programs are p5.brush's own, for the paint ledger: a shader whose
  // source is one of the library's GLSL literals (cfg.brushShaders, read from
  // its build by libraries.shader_sources) is the library's; a program is
  // the library's when, as linked, every shader attached to it is. Sources
  // are compared as the library wrote them (before the lean blend) and
  // without whitespace: p5 puts a line break before main().
  const charCodeAt = String.prototype.charCodeAt;
  const stringLength = (text) => text.length;  // a primitive's own length: not patchable
  const squeeze = (text) => {
    let out = "";
    for (let i = 0; i < stringLength(text); i += 1) {
      const code = apply(charCodeAt, text, [i]);
      if (code > 32) out += text[i];
    }
    return out;
  };
  const brushShaderTexts = create(null);
  for (const text of cfg.brushShaders) brushShaderTexts[squeeze(text)] = true;
  const brushShaders = new WeakSet();
  const brushPrograms = new WeakSet();
  const weakSetDelete = WeakSet.prototype.delete;
  for (const proto of [WebGLRenderingContext.prototype, WebGL2RenderingContext.prototype]) {
    const shaderSource = proto.shaderSource;
    const linkProgram = proto.linkProgram;
    const getAttachedShaders = proto.getAttachedShaders;
    lock(proto, "shaderSource", function shaderSource_(shader, source) {
      const text = typeof source === "string" ? source : String(source);
      const mine = squeeze(text) in brushShaderTexts;
      apply(shaderSource, this, [shader, text]);
      // Only once the browser took the source for this shader object.
      try { apply(mine ? weakSetAdd : weakSetDelete, brushShaders, [shader]); } catch (e) { /* not an object */ }
    });
    lock(proto, "linkProgram", function linkProgram_(program) {
      apply(linkProgram, this, [program]);
      let mine = false;
      try {
        const shaders = apply(getAttachedShaders, this, [program]);
        mine = !!shaders && shaders.length > 0;
        for (let i = 0; shaders && i < shaders.length; i += 1) {
          if (!apply(weakSetHas, brushShaders, [shaders[i]])) mine = false;
        }
        apply(mine ? weakSetAdd : weakSetDelete, brushPrograms, [program]);
      } catch (e) { /* not a program: the browser said so above */ }
    });
  }

  // print() opens the browser's print dialog. Replaced before p5 loads, so
  // p5's print() (which calls the window.print it finds at load time) gets
  // the trap too; configurable, because p5's global mode redefines `print`.
  defineProperty(window, "print", {
    value: function print() {
      violate("dialog", "print()");
      throw new Error("paintrl sandbox: print is not allowed");
    },
    writable: true,
    configurable: true,
  });

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
  // The canvas size so far, for a render stopped before setup() returns (the
  // lifecycle hooks record it again once setup and each frame end).
  const noteSize = (p) => {
    try {
      state.width = Number(p.width) || 0;
      state.height = Number(p.height) || 0;
      state.pixelDensity = Number(p.pixelDensity()) || 0;
    } catch (e) { /* tampered: the hooks' reading stands */ }
  };
  // A WEBGL canvas recorded as a 2D one: its origin moved to the centre,
  // where WEBGL has it, whenever the canvas or p5 resets the transform, so
  // the sketch's own drawing lands where it would (plainCover reads it).
  const centreStandIn = (p) => {
    if (!(cfg.record && requestedWebGL) || p !== instance || mainContext === null) return;
    try {
      apply(contextTranslate, mainContext, [Number(p.width) / 2, Number(p.height) / 2]);
    } catch (e) { /* tampered: only the sketch's own reading is off */ }
  };
  // Recording, the sketch's own canvas holds only what it drew itself (the
  // brush is a recorder): the share of it that differs from the paper is its
  // plain drawing's cover, which the gate weighs against the replayed
  // picture's paint as the paint ledger did. A sketch can make this read
  // less than it drew, but what it drew itself is never in the picture; null
  // where the paper is not one colour (the gate then counts calls).
  const PAPER_TOLERANCE = 6;  // summed over RGBA, levels: rounding of a flat fill
  const plainCover = () => {
    try {
      const paper = recorder.paper();
      if (paper === null || mainCanvas === null || mainIsWebGL) return null;
      const w = mainCanvas.width;
      const h = mainCanvas.height;
      if (!(w > 0 && h > 0)) return null;
      const data = apply(getImageData, mainContext, [0, 0, w, h]).data;
      let drawn = 0;
      for (let i = 0; i < data.length; i += 4) {
        const off = mathAbs(data[i] - paper[0]) + mathAbs(data[i + 1] - paper[1])
          + mathAbs(data[i + 2] - paper[2]) + mathAbs(data[i + 3] - paper[3]);
        if (off > PAPER_TOLERANCE) drawn += 1;
      }
      return drawn / (w * h);
    } catch (e) {
      return null;
    }
  };
  const finish = () => {
    if (state.phase === "done") return;
    if (instance) {
      try { instance._loop = false; } catch (e) { /* tampered */ }
      // WebGL queues work: reading one pixel waits for the GPU, so drawMs
      // counts the painting itself, not only the JavaScript that asked for it.
      try {
        const gl = mainContext;
        if (mainIsWebGL) gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
      } catch (e) { /* a lost context has nothing left to wait for */ }
      // Read the canvas now, inside the frame: a WebGL drawing buffer is
      // cleared once composited, and a screenshot of a background tab waits
      // for a throttled frame (measured: up to 1 s).
      try {
        capture = mainCanvas === null || cfg.record ? null : apply(toDataURL, mainCanvas, ["image/png"]);
      } catch (e) { capture = null; }
      if (cfg.record) state.plainCover = plainCover();
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
    // A refused javascript: URL is a navigation attempt; everything else the
    // policy refuses is a way out of the page (requests, frames, forms).
    const sample = String(e.sample || "");
    if (e.effectiveDirective.startsWith("script-src") && sample.startsWith("javascript:")) {
      violate("navigation", sample);
    } else {
      violate("network_access", e.blockedURI || e.violatedDirective);
    }
  });

  // How paint reaches the canvas. Each route is trapped on the browser's own
  // prototypes before the libraries load, so it is seen however it is
  // reached (p5's internals, a graphics buffer, a canvas of the sketch's own,
  // an OffscreenCanvas). The traps count once run() has started: the
  // libraries loading are trusted. p5.brush itself draws no text, decodes no
  // image (unless a sketch hands it one as a brush tip) and makes no WebGL
  // context of its own (checked against its source, p5.brush 2.2.2). On the
  // main canvas it draws only with its own programs (its blend pass).
  const running = () => state.phase !== "loaded";
  // Recording, p5.brush never draws in this page: whatever draws is the sketch.
  const outsideBrush = () => running() && (cfg.record || brushDepth === 0);
  const getterOf = (proto, prop) => Object.getOwnPropertyDescriptor(proto, prop).get;
  // Brand checks through the browser's own getters: instanceof consults
  // Symbol.hasInstance, which a sketch can redefine (see fake_webgl_check.js).
  const brand = (proto, prop) => {
    const get = getterOf(proto, prop);
    return (x) => { try { apply(get, x, []); return true; } catch (e) { return false; } };
  };
  const wrapMethod = (proto, name, before) => {
    const native = proto[name];
    if (typeof native !== "function") return;
    lock(proto, name, function (...args) {
      before(args, this);
      return apply(native, this, args);
    });
  };
  const nativeAtob = atob;
  const nativeDecode = decodeURIComponent;
  const regexTest = RegExp.prototype.test;
  const GLYPH_MARKUP = /<(\w+:)?(text|tspan|textPath|foreignObject)\b/i;

  // Text: glyphs drawn on any 2D context (p5's text() on a 2D graphics
  // buffer ends here too).
  const contexts2D = [CanvasRenderingContext2D.prototype, OffscreenCanvasRenderingContext2D.prototype];
  for (const proto of contexts2D) {
    for (const name of ["fillText", "strokeText"]) {
      wrapMethod(proto, name, () => { if (running()) violate("text_on_canvas", `${name}()`); });
    }
  }

  // Images decoded from a URL, a data: string or a Blob, drawn into any
  // canvas (2D drawImage/createPattern, WebGL textures): embedded_image. A
  // painting is made of strokes, and an image is how text, a photograph or a
  // finished picture would be smuggled in. SVG markup with text in it is
  // also text_on_canvas.
  const decodedKinds = ["image", "SVG image", "video", "image bitmap"];
  const decodedBrands = [brand(HTMLImageElement.prototype, "naturalWidth"),
                         brand(SVGImageElement.prototype, "width"),
                         brand(HTMLVideoElement.prototype, "videoWidth"),
                         brand(ImageBitmap.prototype, "width")];
  if (typeof VideoFrame !== "undefined") {
    decodedKinds[4] = "video frame";
    decodedBrands[4] = brand(VideoFrame.prototype, "codedWidth");
  }
  const imageSrc = getterOf(HTMLImageElement.prototype, "currentSrc");
  const imageSrcAttr = getterOf(HTMLImageElement.prototype, "src");
  const noteMarkup = (url) => {
    url = String(url);
    const comma = url.indexOf(",");
    if (!apply(regexTest, /^data:image\/svg\+xml/i, [url]) || comma < 0) return;
    let body = url.slice(comma + 1);
    try {
      body = apply(regexTest, /;base64$/i, [url.slice(0, comma)]) ? nativeAtob(body) : nativeDecode(body);
    } catch (e) { /* undecodable: the browser could not draw it either */ }
    if (apply(regexTest, GLYPH_MARKUP, [body])) violate("text_on_canvas", "text in an SVG image");
  };
  const noteSource = (source, route) => {
    if (!running() || source === null || typeof source !== "object") return;
    for (let k = 0; k < decodedKinds.length; k += 1) {
      const kind = decodedKinds[k];
      if (!decodedBrands[k](source)) continue;
      violate("embedded_image", `${kind} drawn by ${route}`);
      try {
        if (kind === "image") noteMarkup(apply(imageSrc, source, []) || apply(imageSrcAttr, source, []));
        if (kind === "SVG image") violate("text_on_canvas", "an SVG document drawn into a canvas");
      } catch (e) { /* tampered: the image is rejected all the same */ }
      return;
    }
  };
  for (const proto of contexts2D) {
    for (const name of ["drawImage", "createPattern"]) {
      wrapMethod(proto, name, (args) => noteSource(args[0], `${name}()`));
    }
  }
  const webgl = [WebGLRenderingContext.prototype, WebGL2RenderingContext.prototype];
  for (const proto of webgl) {
    for (const name of ["texImage2D", "texSubImage2D", "texImage3D", "texSubImage3D"]) {
      wrapMethod(proto, name, (args) => {
        for (let i = 0; i < args.length; i += 1) noteSource(args[i], `${name}()`);
      });
    }
  }
  const nativeBitmap = window.createImageBitmap;
  lock(window, "createImageBitmap", function createImageBitmap(...args) {
    if (running()) violate("embedded_image", "createImageBitmap()");
    return apply(nativeBitmap, window, args);
  });
  // A Blob URL is how a string becomes an image (and its name is random).
  const nativeObjectURL = URL.createObjectURL;
  lock(URL, "createObjectURL", function createObjectURL(...args) {
    if (!running()) return apply(nativeObjectURL, URL, args);
    violate("embedded_image", "URL.createObjectURL()");
    throw new Error("paintrl sandbox: URL.createObjectURL is not allowed");
  });

  // Raw WebGL: a draw on a WebGL context p5 did not make for createCanvas()
  // or createGraphics() (a canvas or OffscreenCanvas of the sketch's own).
  // On the main canvas, every draw is also told to the paint ledger below.
  const DRAW_FRAMEBUFFER_BINDING = 0x8CA6;
  const CURRENT_PROGRAM = 0x8B8D;
  const getParameter1 = WebGLRenderingContext.prototype.getParameter;
  const getParameter2 = WebGL2RenderingContext.prototype.getParameter;
  const DRAWS = ["drawArrays", "drawElements", "drawArraysInstanced", "drawElementsInstanced",
                 "drawRangeElements", "clear", "blitFramebuffer"];
  const noteDraw = (gl, name) => {
    if (!running()) return;
    if (!apply(weakSetHas, p5Contexts, [gl])) {
      violate("raw_webgl", `${name}() on a WebGL context of the sketch's own`);
      return;
    }
    if (gl !== mainContext) return;
    const getParameter = mainIsWebGL2 ? getParameter2 : getParameter1;
    if (apply(getParameter, gl, [DRAW_FRAMEBUFFER_BINDING]) !== null) return;
    // clear() and blitFramebuffer() run no program: never the brush's.
    const shaded = name !== "clear" && name !== "blitFramebuffer";
    ledgerDraw(shaded && apply(weakSetHas, brushPrograms, [apply(getParameter, gl, [CURRENT_PROGRAM])]));
  };
  for (const proto of webgl) {
    for (const name of DRAWS) {
      if (typeof proto[name] === "function") wrapMethod(proto, name, (args, gl) => noteDraw(gl, name));
    }
  }
  // Extensions draw too (instancing, multi-draw): their methods are wrapped
  // as each is handed out, and remember which context they belong to.
  const extensionContext = new WeakMap();
  const wrappedExtensions = new WeakSet();
  for (const proto of webgl) {
    const getExtension = proto.getExtension;
    lock(proto, "getExtension", function getExtension_(...args) {
      const ext = apply(getExtension, this, args);
      if (ext && typeof ext === "object") {
        apply(weakMapSet, extensionContext, [ext, this]);
        const extProto = getPrototypeOf(ext);
        if (extProto && !apply(weakSetHas, wrappedExtensions, [extProto])) {
          apply(weakSetAdd, wrappedExtensions, [extProto]);
          const names = getOwnPropertyNames(extProto);
          for (let n = 0; n < names.length; n += 1) {
            const name = names[n];
            if (!apply(regexTest, /^(multi)?[dD]raw/, [name]) || typeof extProto[name] !== "function") continue;
            wrapMethod(extProto, name, (a, self) => {
              const gl = apply(weakMapGet, extensionContext, [self]);
              if (gl) noteDraw(gl, name);
            });
          }
        }
      }
      return ext;
    });
  }

  // The paint ledger: who laid the paint on the main canvas. Every draw that
  // reaches the main canvas's own framebuffer is made by p5.brush (one of its
  // own programs, inside a brush call or the library's end-of-frame hooks;
  // see author()), by background()/clear(), or by anything else (plain p5
  // shapes, image() of a buffer or texture, pixel writes, raw WebGL on
  // drawingContext, whoever's code asked for it). Where the author changes,
  // the canvas is read and each pixel's change is credited to the author of
  // the draws since the last read; a background that is not one flat colour
  // counts as plain. A background that leaves the canvas one colour is the
  // paper (white before any): it wipes the credits. At the end, a painted
  // pixel (off the paper by more than PAINT_TOLERANCE, the tolerance of the
  // gate's paint fraction) is plain if plain draws changed it more than
  // brush ones. The paper is what background() laid, not the most common
  // colour: a flat plain fill over most of the canvas is paint. A painting reads
  // the canvas a few times (a background, then strokes); past MAX_READS the
  // draws between reads are merged and the whole stretch counts as plain
  // wherever its author changes, so a sketch alternating authors every call
  // cannot make the page read the canvas without end.
  const BRUSH = 1;
  const BACKGROUND = 2;
  const PLAIN = 3;
  const MAX_READS = 400;
  const PAINT_TOLERANCE = 8;  // sketches/renderer/paint.py
  let backgroundDepth = 0;
  let mainIsWebGL2 = false;
  const ledger = create(null);
  ledger.gl = null;
  ledger.author = 0;  // of the draws since the last read; 0: none
  ledger.reads = 0;
  // A draw is the brush's when p5.brush is at work (a brush call or its
  // end-of-frame hooks) and the program drawing is one of its own (or, for
  // p5.brush 1.x, the library's own p5 call made it: libraryHandle): plain p5
  // run from sketch code the library calls back meanwhile (an argument's
  // valueOf(), a colour's toString(), a getter, a field generator, a tip)
  // draws with p5's programs, and is plain.
  const author = (brushProgram) => (brushDepth > 0 && (brushProgram || libraryDepth > 0) ? BRUSH
    : backgroundDepth > 0 ? BACKGROUND : PLAIN);
  const ledgerDraw = (brushProgram) => {
    const now = author(brushProgram);
    if (ledger.author === now) return;
    if (ledger.author === 0) { ledger.author = now; return; }
    if (ledger.reads >= MAX_READS) {
      ledger.author = PLAIN;
      return;
    }
    readCanvas();
    ledger.author = now;
  };
  const READ_FRAMEBUFFER_BINDING = 0x8CAA;
  const PIXEL_PACK_BUFFER_BINDING = 0x88ED;
  const READ_FRAMEBUFFER = 0x8CA8;
  const PIXEL_PACK_BUFFER = 0x88EB;
  const readPixels = WebGL2RenderingContext.prototype.readPixels;
  const bindFramebuffer = WebGL2RenderingContext.prototype.bindFramebuffer;
  const bindBuffer = WebGL2RenderingContext.prototype.bindBuffer;
  const bufferWidth = getterOf(WebGL2RenderingContext.prototype, "drawingBufferWidth");
  const bufferHeight = getterOf(WebGL2RenderingContext.prototype, "drawingBufferHeight");
  // The main canvas as opaque colours on white (as the gate sees it), one
  // 0xRRGGBB number a pixel; null where it cannot be read.
  const canvasOnWhite = (gl) => {
    const w = apply(bufferWidth, gl, []);
    const h = apply(bufferHeight, gl, []);
    const rgba = new NativeUint8Array(w * h * 4);
    const readFb = apply(getParameter2, gl, [READ_FRAMEBUFFER_BINDING]);
    const pack = apply(getParameter2, gl, [PIXEL_PACK_BUFFER_BINDING]);
    try {
      apply(bindFramebuffer, gl, [READ_FRAMEBUFFER, null]);
      if (pack) apply(bindBuffer, gl, [PIXEL_PACK_BUFFER, null]);
      apply(readPixels, gl, [0, 0, w, h, 0x1908 /* RGBA */, 0x1401 /* UNSIGNED_BYTE */, rgba]);
    } catch (e) {
      return null;
    } finally {
      apply(bindFramebuffer, gl, [READ_FRAMEBUFFER, readFb]);
      if (pack) apply(bindBuffer, gl, [PIXEL_PACK_BUFFER, pack]);
    }
    const flat = new NativeInt32Array(w * h);
    for (let i = 0, j = 0; i < flat.length; i += 1, j += 4) {
      const paper = 255 - rgba[j + 3];  // premultiplied alpha: colour + white behind it
      flat[i] = ((rgba[j] + paper) << 16) | ((rgba[j + 1] + paper) << 8) | (rgba[j + 2] + paper);
    }
    return flat;
  };
  const gap = (x, y) => (x > y ? x - y : y - x);
  const channelDistance = (a, b) => mathMax(gap(a >> 16, b >> 16), gap((a >> 8) & 255, (b >> 8) & 255),
                                            gap(a & 255, b & 255));
  const readCanvas = () => {
    const gl = mainContext;
    if (!mainIsWebGL2 || gl === null) return;
    ledger.reads += 1;
    const flat = canvasOnWhite(gl);
    if (flat === null) return;
    if (ledger.gl !== gl || ledger.seen.length !== flat.length) {
      // A new or resized canvas starts blank (white, as seen on white).
      ledger.gl = gl;
      ledger.seen = new NativeInt32Array(flat.length);
      for (let i = 0; i < flat.length; i += 1) ledger.seen[i] = 0xffffff;
      ledger.paper = new NativeInt32Array(flat.length);
      for (let i = 0; i < flat.length; i += 1) ledger.paper[i] = 0xffffff;
      ledger.plain = new NativeFloat32Array(flat.length);
      ledger.brush = new NativeFloat32Array(flat.length);
    }
    const { seen, paper, plain, brush } = ledger;
    let who = ledger.author;
    if (who === BACKGROUND) {
      // A background leaves the whole canvas one colour: the new paper.
      for (let i = 1; i < flat.length; i += 1) {
        if (channelDistance(flat[i], flat[0]) > PAINT_TOLERANCE) { who = PLAIN; break; }
      }
    }
    if (who === BACKGROUND) {
      for (let i = 0; i < flat.length; i += 1) {
        paper[i] = flat[i];
        plain[i] = 0;
        brush[i] = 0;
      }
    } else {
      const credit = who === BRUSH ? brush : plain;
      for (let i = 0; i < flat.length; i += 1) {
        if (flat[i] !== seen[i]) credit[i] += channelDistance(flat[i], seen[i]);
      }
    }
    ledger.seen = flat;
  };
  // The last read, as the sketch finishes: the paint on the canvas and the
  // share of it the ledger credits to plain draws.
  const closeLedger = () => {
    if (ledger.author !== 0) readCanvas();
    ledger.author = 0;
    if (ledger.gl !== mainContext || !ledger.seen) return;
    const { seen, paper, plain, brush } = ledger;
    let painted = 0;
    let plainPainted = 0;
    for (let i = 0; i < seen.length; i += 1) {
      if (channelDistance(seen[i], paper[i]) <= PAINT_TOLERANCE) continue;
      painted += 1;
      if (plain[i] > brush[i]) plainPainted += 1;
    }
    state.paint.pixels = seen.length;
    state.paint.painted = painted;
    state.paint.plain = plainPainted;
    state.paint.reads = ledger.reads;
  };

  // Elements put into the document: a canvas p5 did not make, an image, an
  // SVG or a video, placed over or beside the sketch's canvas (the capture
  // reads the canvas itself, but the page a screenshot or a curator sees
  // would show them). Seen by a MutationObserver, whatever API added them.
  const OVERLAY_SELECTOR = "canvas, img, svg, video, picture, object, embed, image";
  const querySelectorAll = Element.prototype.querySelectorAll;
  const elementMatches = Element.prototype.matches;
  const isElement = brand(Element.prototype, "localName");
  const localName = getterOf(Element.prototype, "localName");
  const nodeCount = getterOf(NodeList.prototype, "length");
  const addedNodes = getterOf(MutationRecord.prototype, "addedNodes");
  const recordTarget = getterOf(MutationRecord.prototype, "target");
  const clientRects = Element.prototype.getClientRects;
  const rectCount = getterOf(DOMRectList.prototype, "length");
  const computedStyle = window.getComputedStyle;
  const overlay = (element) => {
    if (apply(weakSetHas, p5Canvases, [element])) return false;
    // Not rendered (display: none, as p5's text-measuring canvas) or hidden:
    // not an overlay until a style change shows it (watched below).
    if (apply(rectCount, apply(clientRects, element, []), []) === 0) return false;
    if (computedStyle(element).visibility === "hidden") return false;
    violate("overlay", `a <${apply(localName, element, [])}> added to the page`);
    return true;
  };
  const overlays = (node) => {
    if (!isElement(node)) return;
    if (apply(elementMatches, node, [OVERLAY_SELECTOR]) && overlay(node)) return;
    const inside = apply(querySelectorAll, node, [OVERLAY_SELECTOR]);
    for (let i = 0; i < apply(nodeCount, inside, []); i += 1) if (overlay(inside[i])) return;
  };
  new MutationObserver((records) => {
    if (!running()) return;
    for (let r = 0; r < records.length; r += 1) {
      const nodes = apply(addedNodes, records[r], []);
      for (let i = 0; i < apply(nodeCount, nodes, []); i += 1) overlays(nodes[i]);
      overlays(apply(recordTarget, records[r], []));
    }
  }).observe(document, { childList: true, subtree: true, attributes: true,
                         attributeFilter: ["style", "class", "hidden"] });

  // The p5 side of the same routes, armed in run() once p5 has loaded.
  const TEXT_GLYPHS = ["textToPaths", "textToPoints", "textToContours", "textToModel", "drawPaths"];
  const wrapP5Routes = (p5) => {
    const protos = (...names) => names.map((n) => p5[n] && p5[n].prototype).filter(Boolean);
    // text() on graphics buffers and renderers (WebGL text draws no fillText).
    for (const proto of protos("Graphics", "Renderer", "Renderer2D", "RendererGL")) {
      if (Object.prototype.hasOwnProperty.call(proto, "text")) {
        wrapMethod(proto, "text", () => { if (running()) violate("text_on_canvas", "text()"); });
      }
    }
    // Font outlines: points or paths of glyphs, to be drawn with anything.
    for (const proto of protos("Font")) {
      for (const name of TEXT_GLYPHS) {
        wrapMethod(proto, name, () => { if (running()) violate("text_on_canvas", `${name}()`); });
      }
    }
    for (const name of TEXT_GLYPHS) {
      wrapMethod(p5.prototype, name, () => { if (running()) violate("text_on_canvas", `${name}()`); });
    }
    // Pixels written one by one instead of painted.
    // (Not p5.Image: p5 sets a pixel of its own empty texture; an image the
    // sketch fills reaches the canvas through image(), which the ledger sees.)
    for (const proto of [p5.prototype, ...protos("Graphics", "Framebuffer")]) {
      for (const name of ["updatePixels", "set"]) {
        if (!Object.prototype.hasOwnProperty.call(proto, name)) continue;
        wrapMethod(proto, name, () => { if (outsideBrush()) violate("direct_pixels", `${name}()`); });
      }
    }
    // filter() on a 2D canvas or buffer makes its WebGL context lazily (p5
    // 2.2 FilterRenderer2D): p5's own.
    for (const proto of [p5.prototype, ...protos("Graphics", "Image")]) {
      const original = proto.filter;
      if (typeof original !== "function") continue;
      lock(proto, "filter", function (...args) {
        makingGraphics += 1;
        try { return apply(original, this, args); } finally { makingGraphics -= 1; }
      });
    }
    // setAttributes() replaces the canvas and its context (p5 2.2
    // _resetContext): the new ones are p5's, and the new main canvas is the
    // one to read.
    for (const proto of [p5.prototype, ...protos("Graphics")]) {
      const original = proto.setAttributes;
      if (typeof original !== "function") continue;
      lock(proto, "setAttributes", function (...args) {
        // p5 1.x copies p5.prototype's methods onto each p5.Graphics: only
        // the sketch's instance replaces the main canvas.
        const main = proto === p5.prototype && (this === instance || instance === null);
        // Recording, the main canvas is a 2D stand-in with no WebGL
        // attributes to set; the replay's canvas is made as p5.brush needs it.
        if (cfg.record && main) return undefined;
        const before = [mainCanvas, mainContext, mainIsWebGL, mainIsWebGL2];
        if (main) { creatingCanvas += 1; mainCanvas = null; } else makingGraphics += 1;
        try {
          return apply(original, this, args);
        } finally {
          if (main) {
            creatingCanvas -= 1;
            if (mainCanvas === null) {
              mainCanvas = before[0];
              mainContext = before[1];
              mainIsWebGL = before[2];
              mainIsWebGL2 = before[3];
            }
            state.webgl = mainWebGL();
          } else makingGraphics -= 1;
        }
      });
    }
    // background() and clear(): a flat colour over the whole canvas, the
    // one plain draw a painting needs (with an image it is an image).
    for (const name of ["background", "clear"]) {
      const original = p5.prototype[name];
      if (typeof original !== "function") continue;
      lock(p5.prototype, name, function (...args) {
        const flat = !args.some((a) => a !== null && typeof a === "object" && !Array.isArray(a)
                                       && !(a instanceof p5.Color));
        if (flat) backgroundDepth += 1;
        try {
          return apply(original, this, args);
        } finally {
          if (flat) backgroundDepth -= 1;
        }
      });
    }
  };

  // Recording, the sketch's WEBGL canvas is a 2D stand-in, and its
  // drawingContext this: raw WebGL on the main canvas is named as the sketch
  // calls it (with the images it hands over, and the sketch's later calls
  // named too), and paints nothing.
  const upperCase = /^[A-Z0-9_]+$/;
  const glStandIn = new Proxy(create(null), {
    get(target, key) {
      if (typeof key !== "string") return undefined;
      if (apply(regexTest, upperCase, [key])) return 0;  // a constant (gl.TRIANGLES)
      return (...args) => {
        for (let i = 0; i < args.length; i += 1) noteSource(args[i], `${key}()`);
        violate("raw_webgl", `drawingContext.${String(key).slice(0, 60)}() on the main canvas`);
        return create(null);  // a stand-in for whatever WebGL would hand back
      };
    },
  });

  // APIs a painting has no use for. Each records its violation and throws, so
  // the sketch fails loudly instead of silently depending on the outside.
  // Armed in run(), after the (trusted) libraries have loaded.
  // On window, assigning the name makes it the sketch's own variable
  // (`var open = ...`): only reading the native is a violation.
  const forbid = (target, name, violation) => {
    const trap = function () {
      violate(violation, name);
      throw new Error(`paintrl sandbox: ${name} is not allowed`);
    };
    const own = target === window;
    const shadow = function (value) {
      defineProperty(window, name, { value, writable: true, enumerable: true, configurable: true });
    };
    try {
      defineProperty(target, name, { get: trap, set: own ? shadow : trap, configurable: own });
    } catch (e) { /* already non-configurable: CSP and the Python side still see it */ }
  };
  const arm = () => {
    for (const name of ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "RTCPeerConnection",
                        "webkitRTCPeerConnection"]) forbid(window, name, "network_access");
    // On the prototype too: Navigator.prototype.sendBeacon.call(navigator)
    // reached past a trap on the navigator object alone.
    forbid(navigator, "sendBeacon", "network_access");
    forbid(Navigator.prototype, "sendBeacon", "network_access");
    forbid(Navigator.prototype, "serviceWorker", "worker");
    for (const name of ["alert", "confirm", "prompt"]) forbid(window, name, "dialog");
    forbid(window, "open", "popup");
    for (const name of ["Worker", "SharedWorker"]) forbid(window, name, "worker");
    for (const name of ["localStorage", "sessionStorage", "indexedDB", "caches"]) {
      forbid(window, name, "storage_access");
    }
    forbid(Document.prototype, "cookie", "storage_access");
    // A same-document URL update (URL-state sync in a sketch written for the
    // web) leaves the page where it is: kept a no-op here, since the browser
    // reports it as the main frame navigating, which the sandbox reads as
    // leaving the page and drops the picture.
    for (const name of ["pushState", "replaceState"]) {
      lock(History.prototype, name, function () { return undefined; });
    }
    if (cfg.silenceConsole) {
      const quiet = () => undefined;
      for (const key of Object.keys(console)) {
        if (typeof console[key] === "function") console[key] = quiet;
      }
    }
  };

  let realBrush = null;
  const wrapBrush = () => {
    const real = window.brush;
    realBrush = real;
    // Null-prototype lookups with `in`, not Sets: a sketch can patch
    // Set.prototype.has (seen: every name then looked known) but not these.
    const known = create(null);
    for (const key of Object.keys(real)) known[key] = true;
    const paint = create(null);
    for (const key of cfg.brushPaintMethods) paint[key] = true;
    const wrappers = create(null);
    let unknownNames = 0;
    const proxy = new Proxy(real, {
      get(target, key) {
        if (typeof key !== "string") return target[key];
        if (!(key in known)) {
          const name = key.slice(0, MAX_NAME_CHARS);
          return function () {
            if (name in state.unknownCalls) state.unknownCalls[name] += 1;
            else if (unknownNames < MAX_UNKNOWN_NAMES) {
              unknownNames += 1;
              state.unknownCalls[name] = 1;
            }
            return undefined;
          };
        }
        const value = target[key];
        if (typeof value !== "function") return value;
        if (!wrappers[key]) {
          wrappers[key] = function (...args) {
            state.brushCalls[key] = (state.brushCalls[key] || 0) + 1;
            if (key in paint) state.brushPaintCalls += 1;
            brushDepth += 1;
            try {
              return new.target ? Reflect.construct(value, args) : apply(value, this, args);
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
    wrapP5Routes(window.p5);
    const lock = (name, wrapper) => {
      defineProperty(proto, name, { value: wrapper, writable: false, configurable: false });
    };
    for (const name of cfg.plainPrimitives) {
      const original = proto[name];
      if (typeof original !== "function") continue;
      lock(name, function (...args) {
        if (cfg.record || brushDepth === 0) {
          state.plainCalls[name] = (state.plainCalls[name] || 0) + 1;
          if (name === "text") violate("text_on_canvas", "text()");
        }
        return apply(original, this, args);
      });
    }
    // The pixel budget bounds device pixels, not CSS size (a canvas sized for
    // a 1,360 px screen is an honest one): a canvas or buffer whose buffer
    // would be larger is drawn at the highest pixel density that fits
    // (fitDensity), and only one that would need a density below
    // cfg.minPixelDensity is refused. pixelDensity() asks are held to the same.
    const densityOf = (p) => {
      try { const d = Number(apply(nativePixelDensity, p, [])); return d > 0 ? d : 1; } catch (e) { return 1; }
    };
    const nativePixelDensity = proto.pixelDensity;
    const guardSize = (name) => {
      const original = proto[name];
      lock(name, function (w, h, ...rest) {
        // Read each size once, as a number: an object whose valueOf answered
        // small to this check and huge to p5 got a 20000 px canvas allocated.
        if (w != null) w = Number(w);
        if (h != null) h = Number(h);
        // p5 makes a canvas at the density it chooses (the display's, for
        // a main canvas) and the sketch's later pixelDensity() is held to the
        // budget, so the fit is applied once p5 has made it: never below
        // cfg.minPixelDensity, so the canvas made first is at most
        // 1 / minPixelDensity^2 times the budget.
        const wanted = name === "createGraphics" ? densityOf(this) : 1;
        const fit = typeof w === "number" ? fitDensity(w, typeof h === "number" ? h : w, wanted) : wanted;
        if (!(fit >= cfg.minPixelDensity)) {
          violate("canvas_too_large", `${w}x${h}: its buffer would not fit ${cfg.maxCanvasPixels} `
            + `device pixels (${cfg.maxBufferSide} a side) even at pixel density ${cfg.minPixelDensity}`);
          throw new Error(`paintrl sandbox: canvas ${w}x${h} is larger than allowed`);
        }
        if (name === "createGraphics") {
          makingGraphics += 1;
          let buffer;
          try { buffer = apply(original, this, [w, h, ...rest]); } finally { makingGraphics -= 1; }
          if (fit < wanted && buffer && typeof buffer.pixelDensity === "function") {
            makingGraphics += 1;
            try { buffer.pixelDensity(fit); } finally { makingGraphics -= 1; }
          }
          return buffer;
        }
        const fitted = (p) => {
          const d = densityOf(p);
          const fits = fitDensity(Number(p.width) || 1, Number(p.height) || 1, d);
          if (fits < d) apply(nativePixelDensity, p, [fits]);
        };
        if (name === "resizeCanvas") {
          try {
            const result = apply(original, this, [w, h, ...rest]);
            fitted(this);
            return result;
          } finally {
            noteSize(this);
            recordCanvas(this);
            centreStandIn(this);
          }
        }
        if (name !== "createCanvas") return apply(original, this, [w, h, ...rest]);
        if (cfg.record) {
          const mode = rest[0];
          requestedWebGL = mode === "webgl" || mode === "webgl2";
          if (requestedWebGL) rest[0] = "p2d";
        }
        // A new canvas replaces the last: look for its context afresh.
        creatingCanvas += 1;
        mainCanvas = null;
        try {
          const result = apply(original, this, [w, h, ...rest]);
          fitted(this);
          return result;
        } finally {
          creatingCanvas -= 1;
          // p5 1.x makes a 2D canvas by resizing its default one, with no new
          // context to trap: recording, that canvas is the sketch's own.
          if (cfg.record && mainCanvas === null && this === instance) {
            try {
              const element = this.canvas;
              if (element instanceof HTMLCanvasElement) {
                mainContext = apply(getContext, element, ["2d"]);
                mainCanvas = element;
                mainIsWebGL = false;
              }
            } catch (e) { /* tampered: plainCover reads nothing */ }
          }
          state.webgl = mainWebGL();
          noteSize(this);
          recordCanvas(this);
          centreStandIn(this);
          if (cfg.record && requestedWebGL) {
            try { defineProperty(this, "drawingContext", { get: () => glStandIn, configurable: true }); } catch (e) { /* tampered */ }
          }
        }
      });
    };
    for (const target of [proto, window.p5.Graphics && window.p5.Graphics.prototype]) {
      const native = target && target.pixelDensity;
      if (typeof native !== "function") continue;
      defineProperty(target, "pixelDensity", {
        value: function pixelDensity(value, ...rest) {
          if (value === undefined) return apply(native, this, [value, ...rest]);
          let d = Number(value);
          if (d > 0) d = fitDensity(Number(this.width) || 1, Number(this.height) || 1, d);
          const result = apply(native, this, [d, ...rest]);
          recordCanvas(this);
          centreStandIn(this);
          return result;
        },
        writable: false,
        configurable: false,
      });
    }
    guardSize("createCanvas");
    guardSize("resizeCanvas");
    guardSize("createGraphics");

    // The main canvas's size and density as the recording's replay must
    // make it (the sketch's own instance only, once the pixel budget is met).
    const recordCanvas = (p) => {
      if (recorder === null || p !== instance || instance === null) return;
      try { recorder.canvas(Number(p.width), Number(p.height), densityOf(p)); } catch (e) { /* tampered */ }
    };
    const presetup = (p) => {
      instance = p;
      p.randomSeed(cfg.seed);
      p.noiseSeed(cfg.seed);
      if (cfg.brushVersion === "1" && !cfg.record) apply(realBrush.instance, realBrush, [libraryHandle(p)]);
      if (recorder !== null) recorder.start(p, cfg.seed);
    };
    const postsetup = (p) => {
      if (recorder !== null) recorder.frameEnd();
      state.webgl = mainWebGL();
      noteSize(p);
      state.hasDraw = typeof window.draw === "function" || typeof p.draw === "function";
      state.phase = "setup_done";
      // With draw(), p5 runs it once even after noLoop() in setup(), so
      // postdraw captures; finishing here would capture an empty canvas.
      if (!state.hasDraw) {
        closeLedger();
        finish();
      }
    };
    const postdraw = (p) => {
      if (recorder !== null) recorder.frameEnd();
      state.frames += 1;
      noteSize(p);
      if (!p._loop || state.frames >= cfg.maxFrames) {
        closeLedger();
        finish();
      }
    };
    if (typeof window.p5.registerAddon === "function") {
      window.p5.registerAddon((p5, fn, lifecycles) => {
        lifecycles.presetup = function () { presetup(this); };
        lifecycles.postsetup = function () { postsetup(this); };
        lifecycles.postdraw = function () { postdraw(this); };
      });
    } else {
      // p5 1.x: registered methods, called on the instance in instance mode
      // and on window in global mode (where p5.instance is the instance).
      const P = window.p5;
      const self = (receiver) => (receiver instanceof P ? receiver : P.instance);
      P.prototype.registerMethod("beforeSetup", function () { presetup(self(this)); });
      P.prototype.registerMethod("afterSetup", function () { postsetup(self(this)); });
      P.prototype.registerMethod("post", function () { postdraw(self(this)); });
    }
  };

  // p5.brush 1.x lays its strokes on the canvas with p5's own calls (image()
  // of its mask) on the p5 instance it was given, where 2.x uses its own
  // programs. It is given this handle on the instance: a drawing call made
  // through it is the library's (libraryDepth, see author()), while sketch
  // code the library calls back draws through p5's globals, as plain paint.
  // Its hooks are on p5.prototype already, so it registers none again.
  let libraryDepth = 0;
  const reflectGet = Reflect.get;
  const reflectSet = Reflect.set;
  const libraryHandle = (target) => {
    const drawing = create(null);
    for (const name of cfg.plainPrimitives) drawing[name] = true;
    const wrapped = create(null);
    return new Proxy(target, {
      get(t, key) {
        const value = reflectGet(t, key, t);
        if (typeof value !== "function" || typeof key !== "string") return value;
        if (key === "registerMethod") return () => undefined;
        if (!(key in drawing)) return value;
        if (!(key in wrapped) || wrapped[key][0] !== value) {
          wrapped[key] = [value, function (...args) {
            libraryDepth += 1;
            try { return apply(value, t, args); } finally { libraryDepth -= 1; }
          }];
        }
        return wrapped[key][1];
      },
      set(t, key, value) { return reflectSet(t, key, value, t); },
    });
  };

  // What leaves setup()/draw(): the error itself when its message is short,
  // else a truncated copy (seen: a 64 MB message kept the page busy past the
  // deadline while the browser shipped it out).
  const shortError = (e) => {
    try {
      const message = e instanceof Error ? e.message : String(e);
      if (typeof message === "string" && message.length <= MAX_ERROR_CHARS) return e;
      const name = e instanceof Error ? String(e.name).slice(0, 50) : "Error";
      return new Error(`${name}: ${String(message).slice(0, MAX_ERROR_CHARS)} [truncated]`);
    } catch (x) {
      return new Error("paintrl sandbox: unprintable error");
    }
  };
  const guardEntry = (fn) => function (...args) {
    let result;
    try {
      result = apply(fn, this, args);
    } catch (e) {
      throw shortError(e);
    }
    if (result instanceof NativePromise) {
      return apply(promiseThen, result, [undefined, (e) => { throw shortError(e); }]);
    }
    return result;
  };

  const run = (code, seed) => {
    if (state.phase !== "loaded") throw new Error("paintrl sandbox: page already used");
    cfg.seed = seed;
    seedRandom(seed);
    seedClock(seed);
    if (cfg.record) {
      // Taken before any sketch code runs, and gone from the page.
      recorder = window.__paintrlRecorder;
      delete window.__paintrlRecorder;
      recorder.wrapP5(window.p5, () => centreStandIn(instance));
    }
    wrapBrush();
    // Before wrapP5() adds ours (whose postdraw may finish()); no sketch code
    // has run yet, so the list is the libraries' own.
    const v1 = typeof window.p5.registerAddon !== "function";
    const hooks = v1 ? window.p5.prototype._registeredMethods : window.p5.lifecycleHooks;
    const frameEnd = v1 ? "post" : "postdraw";
    frameEnds = hooks && Array.isArray(hooks[frameEnd]) ? hooks[frameEnd].slice() : [];
    // The libraries' own hooks paint as p5.brush (its end-of-frame blend lays
    // the frame's strokes on the canvas): the paint ledger credits them so.
    for (const name of hooks ? Object.keys(hooks) : []) {
      if (!Array.isArray(hooks[name])) continue;
      hooks[name] = hooks[name].map((hook) => function (...args) {
        brushDepth += 1;
        try { return apply(hook, this, args); } finally { brushDepth -= 1; }
      });
    }
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
    if (cfg.nonce) script.nonce = cfg.nonce;  // the page's CSP runs no untagged inline script
    script.textContent = code;
    // Instance mode (`new p5(sketch)`): the sketch starts p5 itself, and the
    // lifecycle hooks above see its instance as they see global mode's.
    const P = window.p5;
    let started = 0;
    window.p5 = new Proxy(P, {
      construct(target, args, newTarget) {
        started += 1;
        return Reflect.construct(target, args, newTarget);
      },
    });
    appendChild.call(document.head, script);  // runs synchronously
    if (typeof window.setup !== "function" && started > 0) return;
    if (typeof window.setup !== "function") {
      violate("no_setup", "no setup() function defined");
      finish();
      return;
    }
    for (const name of ["setup", "draw"]) {
      try {
        if (typeof window[name] === "function") window[name] = guardEntry(window[name]);
      } catch (e) { /* made read-only by the sketch: left as it is */ }
    }
    // p5 1.x runs setup() inside its constructor: an error there is the
    // sketch's, reported as the window's error event reports 2.x's.
    try {
      startP5();
    } catch (e) {
      const error = shortError(e);
      recordError(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    }
  };

  // p5's global mode defines each of its names on window (p5 2.2
  // createBindGlobal); a name the sketch declared itself (`function red()`,
  // a top-level `var`) is a non-configurable property there, and p5's
  // Object.defineProperty threw "Cannot redefine property" out of the
  // harness. While p5 starts, such a name is left to the sketch, as p5 1.x's
  // global mode and a plain page leave it: the sketch's code calls its own
  // red(), p5's code calls its own (p5 reads its instance, not window).
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const startP5 = () => {
    const before = Object.defineProperty;
    const tolerant = function defineProperty_(target, key, descriptor) {
      if (target === window) {
        const own = getOwnPropertyDescriptor(window, key);
        if (own && !own.configurable) return target;
      }
      return apply(before, Object, [target, key, descriptor]);
    };
    defineProperty(Object, "defineProperty", { value: tolerant, writable: true, configurable: true });
    try {
      new window.p5();
    } finally {
      if (Object.defineProperty === tolerant) {
        defineProperty(Object, "defineProperty", { value: before, writable: true, configurable: true });
      }
    }
  };

  const snapshot = () => {
    state.leanBlends = speed ? speed.leanBlends() : 0;
    if (instance) {
      try { state.looping = !!instance._loop; } catch (e) { /* tampered */ }
    }
    return stringify(state);
  };

  // The picture so far, for a render stopped at its deadline (the Python side
  // has terminated the sketch's script first): the unfinished frame is ended
  // as p5 would end it, so p5.brush blends the strokes still on its mask
  // (without this, a setup() stopped 2,400 lines into a one-colour pencil
  // drawing read as a blank canvas here), then the canvas is read. It leaves
  // the report alone: a sketch calling it early gains a flush it could have had from push(), and
  // `done` stays the harness's word. A hook the sketch has made to loop keeps
  // this from answering; the Python side then keeps the report alone.
  const captureNow = () => {
    if (state.phase === "done") return capture;
    if (mainCanvas === null || instance === null) return null;
    for (let i = 0; i < frameEnds.length; i += 1) {
      try { apply(frameEnds[i], instance, []); } catch (e) { /* stopped mid-stroke: keep what is there */ }
    }
    try { return apply(toDataURL, mainCanvas, ["image/png"]); } catch (e) { return null; }
  };

  defineProperty(window, "__paintrl", {
    value: Object.freeze({
      run, snapshot, capture: () => capture, captureNow,
      // The recording, once, as JSON (null where this page does not record).
      record: () => (recorder === null ? null : recorder.take()),
    }),
    writable: false,
    configurable: false,
  });
})();
