// The painting half of paint by construction: a trusted page that holds p5,
// p5.brush and this file, and paints a recorded call list (recorder.js) with
// the real library. No sketch code ever runs here: every call is a name
// from a fixed vocabulary (record.py checks the list before it comes) and
// plain data, so this page's canvas is the picture.
(() => {
  "use strict";
  const cfg = JSON.parse(document.currentScript.dataset.config);
  const V1 = cfg.version === "1";
  const stateCalls = new Set(cfg.stateCalls);
  const brushCalls = new Set(cfg.methods);
  const prefixed = new Set(cfg.prefixed);
  const painting = new Set(cfg.painting);
  const SEEDS = new Set(["seed", "randomSeed", "noiseSeed", "brush.noiseSeed"]);
  const polygonMethods = new Set(cfg.polygonMethods);
  const plotMethods = new Set(cfg.plotMethods);

  // {$color: [r, g, b, a]} -> a p5.Color (RGBA 0-255, this page's colorMode);
  // {$shapes: [...]} -> a custom tip that draws those shapes; {$curve: [...]}
  // -> a pressure curve through those samples; {$handle: n} -> the Polygon
  // or Plot the list made as n; lists and objects within.
  let objects = new Map();  // the list's Polygons and Plots by handle
  const decode = (p, v) => {
    if (v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((x) => decode(p, x));
    if ("$color" in v) return p.color(...v.$color);
    if ("$handle" in v) {
      if (!objects.has(v.$handle)) throw new Error(`replay: no object ${v.$handle}`);
      return objects.get(v.$handle);
    }
    if ("$shapes" in v) {
      const shapes = v.$shapes;
      return (g) => {
        for (const [name, ...args] of shapes) {
          if (V1 && (name === "fill" || name === "stroke" || name === "background")) {
            // A 1.x tip paints in the brush's colour, which the library has
            // set as the mask's fill, and never paints the whole mask.
            if (name === "stroke") g.stroke(g.drawingContext.fillStyle);
            continue;
          }
          g[name](...args.map((a) => decode(p, a)));
        }
      };
    }
    if ("$curve" in v) {
      const samples = v.$curve;
      const last = samples.length - 1;
      return (t) => {
        const at = Math.max(0, Math.min(last, t * last));
        const i = Math.min(last - 1, Math.floor(at));
        const f = at - i;
        return (samples[i] ?? 0) * (1 - f) + (samples[i + 1] ?? 0) * f;
      };
    }
    const out = {};
    for (const key of Object.keys(v)) out[key] = decode(p, v[key]);
    return out;
  };

  // The canvas is made (or resized) at the size the list last named before
  // a call paints on it, or at the frame's end: p5 makes a default canvas before setup() and the
  // sketch's createCanvas() replaces it, which the recording shows as two.
  const makeCanvas = (p, state) => {
    const [w, h, density] = state.pending;
    state.pending = null;
    if (!state.made) {
      p.createCanvas(w, h, p.WEBGL);
      state.made = true;
      // 1.x paints through the instance it is given; its end-of-frame hooks
      // are on p5.prototype already, so it must not register them again.
      if (V1) brush.instance(new Proxy(p, { get: (t, k) => (k === "registerMethod" ? () => undefined : Reflect.get(t, k, t)) }));
    } else if (w !== p.width || h !== p.height) {
      p.resizeCanvas(w, h);
    }
    if (density !== p.pixelDensity()) p.pixelDensity(density);
    // The library reads the canvas's size when it loads; paint_speed.js
    // names the buffers 1.x's load() makes (its blend mask on the CPU, its
    // blend passes limited to what they change).
    if (V1) window.__paintrlSpeed.buffers1x(() => brush.load());
    else brush.load();
    if (!state.baseline) {
      // The library's and p5's state as a fresh page has them, saved so that
      // a kept page returns to it before the next list (see paint()).
      p.push();
      state.baseline = true;
    }
  };

  // p5.brush 1.1 traces a filled shape along a plot (a rect or a shape
  // drawn with a flow field, a Plot's fill) with a vertex every 3 x bleed of
  // a segment; 1.0 floored the bleed there at 0.05. Sketches written for 1.0
  // bleed(0.001): 1.1 then lays thousands of vertices, each fill layer
  // doubles them, and one rect ran for minutes. The replay keeps 1.0's floor
  // for that spacing only (the fill's own bleed is as the sketch set it): a
  // sketch that bleeds 0.05 or more, or draws without a plot, is unchanged.
  const BLEED_FLOOR = 0.05;
  // The list's bleed now, [strength, direction], as 1.x holds it. Any
  // direction but "out" bleeds inwards, as the library does before one is
  // set: "in" stands for them all.
  let bleed = null;
  const strengthOf = (v) => Math.min(Math.max(Number(v) || 0, 0), 0.6);
  const directionOf = (args, at) => (args.length <= at || args[at] === "out" ? "out" : "in");
  const followBleed = (name, args) => {
    if (name === "bleed") bleed.now = [strengthOf(args[0]), directionOf(args, 1)];
    // polygon.fill(colour, opacity, bleed, texture, border, direction) sets them for good.
    if (name === "Polygon.fill" && args[1]) bleed.now = [strengthOf(args[3]), directionOf(args, 6)];
    // 1.x's push saves the strength, not the direction.
    if (name === "brush.push") bleed.saved.push(bleed.now[0]);
    if (name === "brush.pop" && bleed.saved.length) bleed.now = [bleed.saved.pop(), bleed.now[1]];
  };
  if (V1) {
    const genPol = brush.Plot.prototype.genPol;
    brush.Plot.prototype.genPol = function (x, y, scale, isHatch) {
      const [strength, direction] = bleed ? bleed.now : [BLEED_FLOOR, "in"];
      if (isHatch || strength >= BLEED_FLOOR) return genPol.call(this, x, y, scale, isHatch);
      brush.bleed(BLEED_FLOOR, direction);
      try {
        return genPol.call(this, x, y, scale, isHatch);
      } finally {
        brush.bleed(strength, direction);
      }
    };
  }

  // A transform that moves the canvas's plane off z = 0, whose depth 1.x's
  // blend passes left out would not have written (paint_speed.js).
  const movesPlane = (name, args) => (name === "translate" && args.length > 2 && Number(args[2]) !== 0)
    || (name === "rotate" && args.length > 1)
    || (name === "applyMatrix" && (args.length > 6 || (Array.isArray(args[0]) && args[0].length > 6)));

  const paintCall = (p, state, call) => {
    const { fields } = state;
    const [name, ...args] = call;
    if (V1) followBleed(name, args);
    if (name === "canvas") { state.pending = args; return; }
    if (state.pending) makeCanvas(p, state);
    // Nothing paints before the canvas is made; the seeds apply all the same
    // (1.x's list begins with the seed its library took as it loaded).
    if (!state.made && !SEEDS.has(name)) return;
    // A pop() past the list's own push() calls is p5's no-op, never ours.
    if (name === "push") state.depth += 1;
    if (name === "pop") { if (state.depth === 0) return; state.depth -= 1; }
    if (stateCalls.has(name)) {
      if (V1 && movesPlane(name, args)) window.__paintrlSpeed.notFlat();
      p[name](...args);
      return;
    }
    if (name === "background") { if (args[0]) p.background(decode(p, args[0])); return; }
    if (name === "clear") { p.clear(); return; }
    if (name === "Polygon") {
      const [id, pairs, raw] = args;
      objects.set(id, raw ? new brush.Polygon(pairs.map(([x, y]) => ({ x, y })), true)
                          : new brush.Polygon(pairs));
      return;
    }
    if (name === "Plot") { objects.set(args[0], new brush.Plot(args[1])); return; }
    if (name.startsWith("brush.") && prefixed.has(name.slice(6))) {
      brush[name.slice(6)](...args.map((a) => decode(p, a)));
      return;
    }
    const dot = name.indexOf(".");
    if (dot > 0) {
      const kind = name.slice(0, dot);
      const method = name.slice(dot + 1);
      const allowed = kind === "Polygon" ? polygonMethods : plotMethods;
      const target = objects.get(args[0]);
      if (!target || !allowed.has(method)) throw new Error(`replay: unknown call ${name}`);
      target[method](...args.slice(1).map((a) => decode(p, a)));
      return;
    }
    if (name === "addField") { fields.set(args[0], args[1]); return; }
    if (name === "fieldData") {
      const [field, grid] = args;
      const columns = grid.map((column) => Float32Array.from(column));
      brush.addField(field, () => columns, fields.get(field) || undefined);
      return;
    }
    if (!brushCalls.has(name) || prefixed.has(name)) throw new Error(`replay: unknown call ${name}`);
    brush[name](...args.map((a) => decode(p, a)));
  };

  // p5.brush's end-of-frame hooks (its blend): p5 2.x's lifecycle hooks, or
  // the methods 1.x registered on p5.prototype.
  const hooks = () => (V1 ? window.p5.prototype._registeredMethods : window.p5.lifecycleHooks);
  const PREDRAW = V1 ? "pre" : "predraw";
  const POSTDRAW = V1 ? "post" : "postdraw";
  const runHooks = (p, name) => { for (const hook of hooks()[name] || []) hook.call(p); };
  const paintList = (p, state, record, seed) => {
    objects = state.objects;
    bleed = { now: [0.07, "in"], saved: [] };  // 1.x's own start
    // What p5 keeps on the instance rather than in push()/pop(), as a fresh
    // instance has it: the angle mode and the seeds.
    p.angleMode(p.RADIANS);
    p.randomSeed(seed);
    p.noiseSeed(seed);
    record.frames.forEach((frame, k) => {
      // A frame that lays no paint (its paint covered by a later frame's
      // background, recorder.js) has nothing for the library's frame hooks
      // to blend: skipped, they cost 1.x a full-canvas pass each.
      const paints = frame.some((call) => painting.has(call[0]));
      if (k > 0 && paints) runHooks(p, PREDRAW);
      for (const call of frame) paintCall(p, state, call);
      if (state.pending) makeCanvas(p, state);
      if (paints) runHooks(p, POSTDRAW);
    });
    const png = state.made ? p.canvas.toDataURL("image/png") : null;
    // Back to the baseline: the list's own push() calls undone, then the
    // state saved when the canvas was made restored and saved again.
    for (; state.depth > 0; state.depth -= 1) p.pop();
    if (state.baseline) { p.pop(); p.push(); }
    return png;
  };

  // The instance kept for the next list: a list that leaves nothing in the
  // library's own state (no custom brush or field, no field made, no brush
  // scale: renderer/record.py's keeps_page) is painted on it, at the same
  // canvas size, instead of on a fresh page, so the WebGL context and the
  // library's compiled programs are kept warm. Only where
  // RendererConfig.keep_replay_page asks (off: a kept page painted some lists
  // otherwise than a fresh one, config.py says which).
  let kept = null;

  // Paints the list and answers the canvas as a PNG data URL (null when no
  // canvas was made). Frames end as p5 ends them: p5.brush's end-of-frame
  // hooks blend what the frame laid down. `reuse`: paint on the kept
  // instance (the caller knows the list and the last one allow it).
  const paint = (json, seed, reuse) => new Promise((resolve, reject) => {
    const record = JSON.parse(json);
    const fresh = () => ({ objects: new Map(), fields: new Map(), pending: null, made: false,
                           baseline: false, depth: 0 });
    if (reuse && kept) {
      try {
        const p = kept.p;
        p.clear();
        const state = { ...fresh(), made: true, baseline: true };
        resolve(paintList(p, state, record, seed));
      } catch (e) {
        reject(e);
      }
      return;
    }
    new window.p5((p) => {
      p.setup = () => {
        try {
          kept = { p };
          resolve(paintList(p, fresh(), record, seed));
        } catch (e) {
          reject(e);
        }
      };
    });
  });
  Object.defineProperty(window, "__replay", { value: Object.freeze({ paint }) });
})();
