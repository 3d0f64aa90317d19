// The recording half of paint by construction. In the page that runs a
// sketch, this stands where p5.brush would (2.x, or 1.x: cfg.version): `brush` is a recorder, and
// every call becomes plain data the moment it is made (numbers, strings,
// arrays, colours as RGBA), frame by frame, together with the p5 state
// p5.brush reads (the transform, the angle mode, background(), the seeds).
// Sketch code that p5.brush would run (a field generator, a custom tip, a
// pressure curve) runs here and only its output is kept. Nothing this page
// draws is ever captured: the replay page (replay.js) paints the list with
// the real library and runs no sketch code.
//
// Hostile code runs after us in this realm, so what we rely on is captured
// here first and state lives in this closure. A sketch can only make the
// list say something else, which is the same as calling brush differently.
(() => {
  "use strict";
  const cfg = JSON.parse(document.currentScript.dataset.config);
  const apply = Reflect.apply;
  const stringify = JSON.stringify;  // the list leaves through this: a sketch's own is not it
  const defineProperty = Object.defineProperty;
  const create = Object.create;
  const isArray = Array.isArray;
  const NativeNumber = Number;
  const numberIsFinite = Number.isFinite;
  const ownKeys = Object.keys;
  const mathMin = Math.min;
  const mathRound = Math.round;
  const mathCos = Math.cos;
  const mathSin = Math.sin;
  const PI = Math.PI;
  const stringSlice = String.prototype.slice;
  const arrayPush = Array.prototype.push;
  const objectValueOf = Object.prototype.valueOf;
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const V1 = cfg.version === "1";
  // p5.brush 1.x seeds its own generator from Math.random() as it loads, here
  // (the page seeds Math.random first): the replay seeds it with this value.
  const librarySeed = V1 ? Math.random() : null;

  // Bounds on what one value may hold: a list is data to store and replay,
  // and a sketch must not make it huge by passing a huge argument.
  const MAX_STRING = 200;
  const MAX_ARRAY = 20000;
  const MAX_KEYS = 40;
  const MAX_DEPTH = 5;
  // Samples of a pressure curve given as a function, t from 0 to 1.
  const CURVE_SAMPLES = 101;

  const record = create(null);
  record.frames = [[]];
  record.calls = 0;
  record.paintCalls = 0;  // of them, calls that lay paint
  record.values = 0;      // numbers and strings stored, a bound on the list's size
  record.overflow = "";   // why recording stopped, once a bound was hit
  let recording = false;
  let instance = null;
  // The paper the sketch's own canvas was last cleared to, RGBA 0-255
  // (transparent until a background(); null when it is not one colour).
  let paper = [0, 0, 0, 0];

  const stop = (why) => {
    if (!record.overflow) record.overflow = why;
  };
  const push = (list, value) => apply(arrayPush, list, [value]);
  // What an earlier frame painted is covered when a frame opens with an
  // opaque background() or a clear() before it paints: the frames before
  // keep their state calls (colours, brushes, fields, transforms, the
  // objects made) and lose their paint, so an animation that repaints its
  // paper each frame is painted once, not once a frame (its library's
  // random numbers are not drawn for the covered strokes, so its last frame
  // differs from a full painting's, as another seed's would).
  const painting = create(null);
  for (const name of cfg.painting) painting[name] = true;
  let framePainted = false;
  const coverEarlierFrames = () => {
    const frames = record.frames;
    let kept = 0;
    for (let k = 0; k < frames.length - 1; k += 1) {
      const calls = [];
      for (const call of frames[k]) if (!(call[0] in painting)) push(calls, call);
      frames[k] = calls;
      kept += calls.length;
    }
    record.calls = kept + frames[frames.length - 1].length;
    record.paintCalls = 0;  // the frame now open has laid none (framePainted)
  };
  // Calls made while the sketch's script loads, before p5 has made its
  // instance (a brush or a field added at the top level, as the library's
  // own examples do): kept in order and listed after the canvas (handle.
  // canvas), so the replay's library holds what the sketch's held.
  const early = [];
  const emit = (call) => {
    if (!recording && instance === null && !record.overflow) {
      if (early.length >= cfg.maxCalls) stop(`more than ${cfg.maxCalls} calls`);
      else push(early, call);
      return;
    }
    if (!recording || record.overflow) return;
    const covers = !framePainted && record.frames.length > 1
      && (call[0] === "clear" || (call[0] === "background" && call[1] !== null
                                  && call[1].$color[3] >= 255));
    if (covers) coverEarlierFrames();
    const paints = call[0] in painting;
    if (record.calls >= cfg.maxCalls) { stop(`more than ${cfg.maxCalls} calls`); return; }
    if (paints && record.paintCalls >= cfg.maxPaintCalls) {
      stop(`more than ${cfg.maxPaintCalls} painting calls`);
      return;
    }
    if (record.values > cfg.maxValues) { stop(`more than ${cfg.maxValues} values`); return; }
    record.calls += 1;
    if (paints) {
      record.paintCalls += 1;
      framePainted = true;
    }
    push(record.frames[record.frames.length - 1], call);
  };

  // A value as plain data, read once, now. Getters and valueOf() run here
  // (sketch code may run in them); what they answer is what is kept.
  const isColor = (v) => {
    const P = window.p5;
    try { return !!P && v instanceof P.Color; } catch (e) { return false; }
  };
  const colorData = (args) => {
    // p5 reads the arguments in the sketch's colorMode; RGBA 0-255 floats out.
    if (instance === null) throw new Error("p5.brush was called before setup()");
    const c = apply(instance.color, instance, args);
    const rgba = c._array;
    const out = [];
    for (let i = 0; i < 4; i += 1) push(out, plainNumber(rgba[i]) * 255);
    record.values += 4;
    return { $color: out };
  };
  const plainNumber = (v) => {
    const n = NativeNumber(v);
    return numberIsFinite(n) ? n : null;
  };
  const plain = (v, level = 0) => {
    if (v === null || v === undefined) return null;
    const type = typeof v;
    if (type === "number") { record.values += 1; return numberIsFinite(v) ? v : null; }
    if (type === "boolean") return v;
    if (type === "string") { record.values += 1; return apply(stringSlice, v, [0, MAX_STRING]); }
    if (type === "function" || type === "symbol" || type === "bigint") return null;
    if (level >= MAX_DEPTH) return null;
    if (isColor(v)) return colorData([v]);
    // A Polygon or Plot the list made: named by its handle, so the replay
    // hands the library its own object (hatchArray, plot).
    const id = apply(weakGet, handleOf, [v]);
    if (id !== undefined) return { $handle: id };
    // An object standing for a number or a string (its own valueOf), as the
    // library's arithmetic would read it: read once, here.
    const valueOf = v.valueOf;
    if (typeof valueOf === "function" && valueOf !== objectValueOf) {
      const primitive = apply(valueOf, v, []);
      const kind = typeof primitive;
      if (kind === "number" || kind === "string" || kind === "boolean") return plain(primitive, level);
    }
    if (isArray(v) || ArrayBuffer.isView(v)) {
      const n = mathMin(NativeNumber(v.length) || 0, MAX_ARRAY);
      const out = [];
      for (let i = 0; i < n; i += 1) push(out, plain(v[i], level + 1));
      return out;
    }
    const out = create(null);
    const keys = ownKeys(v);
    for (let i = 0; i < keys.length && i < MAX_KEYS; i += 1) {
      const key = apply(stringSlice, String(keys[i]), [0, MAX_STRING]);
      if (key[0] === "$") continue;  // ours: {$color}, {$handle}
      out[key] = plain(v[keys[i]], level + 1);
    }
    return out;
  };
  const color = (v) => (v === undefined ? null : colorData([v]));
  // The arguments given, each by its position's coercion (plain past the
  // list): 1.x's defaults apply to an argument left out, never to a null.
  const byPosition = (args, coercions) => {
    const out = [];
    for (let i = 0; i < args.length; i += 1) push(out, (coercions[i] || plain)(args[i]));
    return out;
  };

  // Each method's arguments as data. Colours are coerced where p5.brush would
  // make them (createColor) so the sketch's colorMode is applied here and the
  // replay needs none; fill() and wash() keep their opacity where the library
  // reads it (its second argument below four arguments, else the fourth).
  const fillArgs = (args) => {
    if (args.length >= 3) return [colorData([args[0], args[1], args[2]]), plain(args.length < 4 ? args[1] : args[3])];
    return [args.length ? colorData([args[0]]) : null, plain(args[1])];
  };
  // p5.brush 1.x: fill(r, g, b) has opacity 1, and stroke() with no
  // arguments only turns the stroke on.
  const fillArgs1 = (args) => {
    if (args.length >= 3) return [colorData([args[0], args[1], args[2]]), args.length < 4 ? 1 : plain(args[3])];
    return byPosition(args, [color]);
  };
  const COERCE = create(null);
  const POLYGON_COERCE = create(null);
  COERCE.add = (args) => [plain(args[0]), brushParams(args[1])];
  if (V1) {
    COERCE.stroke = (args) => (args.length ? [colorData(args)] : []);
    COERCE.fill = fillArgs1;
    COERCE.set = (args) => byPosition(args, [plain, color]);
    COERCE.setHatch = (args) => byPosition(args, [plain, color]);
    COERCE.erase = (args) => byPosition(args, [color]);
    POLYGON_COERCE.draw = (args) => byPosition(args, [plain, color]);
    POLYGON_COERCE.fill = (args) => byPosition(args, [color]);
    POLYGON_COERCE.erase = (args) => byPosition(args, [color]);
  } else {
    COERCE.stroke = (args) => [colorData(args)];
    COERCE.fill = fillArgs;
    COERCE.wash = fillArgs;
    COERCE.set = (args) => [plain(args[0]), color(args[1]), plain(args[2])];
    COERCE.hatchStyle = (args) => [plain(args[0]), color(args[1]), plain(args[2])];
    COERCE.mass = (args) => [plain(args[0]), color(args[1]), plain(args[2])];
    POLYGON_COERCE.draw = (args) => [plain(args[0]), color(args[1]), plain(args[2])];
    POLYGON_COERCE.fill = (args) => [color(args[0]), ...argsOf(args, 1)];
    POLYGON_COERCE.wash = (args) => [color(args[0]), ...argsOf(args, 1)];
  }
  const argsOf = (args, from = 0) => {
    const out = [];
    for (let i = from; i < args.length; i += 1) push(out, plain(args[i]));
    return out;
  };

  // A custom brush's parameters: its tip drawn here on a surface that records
  // what the tip draws (a bounded list of shapes the replay draws again on
  // the library's tip surface), its pressure curve sampled.
  const TIP_METHODS = ["background", "fill", "noFill", "stroke", "noStroke", "strokeWeight",
    "push", "pop", "translate", "rotate", "scale", "rect", "square", "circle", "ellipse",
    "arc", "line", "point", "triangle", "quad", "beginShape", "vertex", "endShape",
    "noSmooth", "angleMode", "rectMode", "ellipseMode"];
  const brushParams = (params) => {
    if (params === null || typeof params !== "object") return plain(params);
    const tip = params.tip;
    const pressure = params.pressure;
    const out = plain(params);
    // Only a custom brush draws its tip (both versions; 1.x gives an image
    // brush a tip of its own): a tip left on a brush of another type, as the
    // library's own 1.x examples do, is never called there, so not here.
    if (typeof tip === "function" && out.type === "custom") out.tip = tipShapes(tip);
    if (typeof pressure === "function") out.pressure = curveSamples(pressure);
    // 1.x: {type: "custom", curve: (x) => ..., min_max: [...]}.
    if (pressure !== null && typeof pressure === "object" && typeof pressure.curve === "function") {
      out.pressure.curve = curveSamples(pressure.curve);
    }
    return out;
  };
  const curveSamples = (curve) => {
    const samples = [];
    for (let i = 0; i < CURVE_SAMPLES; i += 1) push(samples, plainNumber(curve(i / (CURVE_SAMPLES - 1))));
    record.values += CURVE_SAMPLES;
    return { $curve: samples };
  };
  const tipShapes = (tip) => {
    const shapes = [];
    const surface = create(null);
    for (const name of TIP_METHODS) {
      surface[name] = (...args) => {
        if (shapes.length >= cfg.maxTipShapes) { stop(`a custom tip of more than ${cfg.maxTipShapes} shapes`); return; }
        const colourArg = name === "fill" || name === "stroke" || name === "background";
        // 1.x draws a tip on a canvas-sized mask, in full colour where the
        // brush has blend: false: a tip paints in the brush's colour, and
        // never the whole mask (replay.js holds the same rule).
        if (V1 && colourArg) {
          if (name !== "background") push(shapes, [name]);
          return;
        }
        push(shapes, [name, ...(colourArg && args.length ? [colorData(args)] : argsOf(args))]);
      };
    }
    surface.pixelDensity = () => 1;
    surface.width = 500;
    surface.height = 500;
    tip(surface);
    return { $shapes: shapes };
  };

  // Handles for the library's objects: a Polygon, a Plot or a Position made by
  // the sketch is a number in the list; what it is asked to paint is recorded
  // against that number, and what it computes without painting is computed here.
  let handles = 0;
  const handleOf = new WeakMap();
  const newHandle = (object) => {
    handles += 1;
    apply(weakSet, handleOf, [object, handles]);
    return handles;
  };
  const toAngle = (a) => {
    const radians = instance && instance._angleMode === "radians";
    return radians ? a : (a * PI) / 180;
  };
  // A polygon's points as [x, y] pairs, read once, whichever form was given.
  const pointPairs = (points, raw) => {
    const out = [];
    const n = mathMin(NativeNumber(points && points.length) || 0, MAX_ARRAY);
    for (let i = 0; i < n; i += 1) {
      const p = points[i];
      push(out, raw ? [plainNumber(p && p.x), plainNumber(p && p.y)]
                    : [plainNumber(p && p[0]), plainNumber(p && p[1])]);
    }
    record.values += 2 * n;
    return out;
  };
  const crossing = (p1, p2, p3, p4) => {
    const d = (p4.y - p3.y) * (p2.x - p1.x) - (p4.x - p3.x) * (p2.y - p1.y);
    if (d === 0) return null;
    const ua = ((p4.x - p3.x) * (p1.y - p3.y) - (p4.y - p3.y) * (p1.x - p3.x)) / d;
    const ub = ((p2.x - p1.x) * (p1.y - p3.y) - (p2.y - p1.y) * (p1.x - p3.x)) / d;
    if (ua < 0 || ua > 1 || ub < 0 || ub > 1) return null;
    return { x: p1.x + ua * (p2.x - p1.x), y: p1.y + ua * (p2.y - p1.y) };
  };
  const objectMethods = (kind, id, target, names, coerce) => {
    for (const name of names) {
      target[name] = function (...args) {
        const made = coerce && coerce[name] ? coerce[name](args) : argsOf(args);
        emit([`${kind}.${name}`, id, ...made]);
        return target;
      };
    }
  };
  function Polygon(points, raw = false) {
    if (!new.target) throw new TypeError("Class constructor Polygon cannot be invoked without 'new'");
    const id = newHandle(this);
    const pairs = pointPairs(points, !!raw);
    emit(["Polygon", id, pairs, !!raw]);
    const vertices = pairs.map(([x, y]) => ({ x, y }));
    this.a = points;
    this.vertices = vertices;
    this.sides = vertices.map((v, i) => [v, vertices[(i + 1) % vertices.length]]);
    this.intersect = (line) => {
      const found = [];
      for (const [a, b] of this.sides) {
        const hit = crossing(line.point1, line.point2, a, b);
        if (hit) push(found, hit);
      }
      return found;
    };
    objectMethods("Polygon", id, this, cfg.polygonMethods,
                  POLYGON_COERCE);
  }
  function Plot(type) {
    if (!new.target) throw new TypeError("Class constructor Plot cannot be invoked without 'new'");
    const id = newHandle(this);
    emit(["Plot", id, plain(type)]);
    objectMethods("Plot", id, this, cfg.plotMethods);
    this.pressure = () => 1;
    this.angle = () => 0;
  }
  // A point that follows a flow field. The field is the library's and lives
  // in the replay page, so here a Position moves straight in the direction
  // asked (docs/renderer.md, "Paint by construction", says so). 1.x's
  // moveTo(length, direction in degrees, step) against 2.x's
  // moveTo(direction in the angle mode, length, step).
  function Position(x, y) {
    if (!new.target) throw new TypeError("Class constructor Position cannot be invoked without 'new'");
    this.x = plainNumber(x);
    this.y = plainNumber(y);
    this.plotted = 0;
    this.update = (nx, ny) => { this.x = plainNumber(nx); this.y = plainNumber(ny); };
    this.reset = () => { this.plotted = 0; };
    this.isIn = () => this.isInCanvas();
    this.isInCanvas = () => {
      const w = instance ? NativeNumber(instance.width) : 0;
      const h = instance ? NativeNumber(instance.height) : 0;
      return this.x >= -w && this.x <= w && this.y >= -h && this.y <= h;
    };
    this.angle = () => 0;
    const move = (a, len) => {
      this.x += mathCos(a) * len;
      this.y += mathSin(a) * len;
    };
    this.moveTo = V1
      ? (length, dir) => {
        const len = plainNumber(length) || 0;
        move((-(plainNumber(dir) || 0) * PI) / 180, len);
        this.plotted += len;
      }
      : (dir, length, step = 1) => {
        const len = plainNumber(length) || 0;
        move(toAngle(plainNumber(dir) || 0), len);
        this.plotted += plainNumber(step) > 0 ? len : 0;
      };
    this.plotTo = (plot, length) => (V1 ? this.moveTo(length, 0) : this.moveTo(0, length));
  }

  // Fields: built-in ones are the library's; a field the sketch adds runs its
  // generator here, on a grid of the library's shape (200 columns across twice
  // the canvas, p5.brush 2.2 createField), and the grid is recorded.
  const fields = create(null);  // name -> {gen, made}
  let activeField = null;
  const fieldGrid = (name, t) => {
    const w = instance ? NativeNumber(instance.width) || 1 : 1;
    const h = instance ? NativeNumber(instance.height) || 1 : 1;
    const resolution = w * 0.01;
    const columns = mathRound((2 * w) / resolution);
    const rows = mathRound((2 * h) / resolution);
    const grid = [];
    const Column = V1 ? Float64Array : Float32Array;  // as each version lays its grid
    for (let c = 0; c < columns; c += 1) push(grid, new Column(rows));
    const made = fields[name].gen(t, grid);
    const out = [];
    const n = mathMin(NativeNumber(made && made.length) || 0, columns);
    for (let c = 0; c < n; c += 1) {
      const column = made[c];
      const values = [];
      for (let r = 0; r < rows; r += 1) push(values, plainNumber(column && column[r]) || 0);
      push(out, values);
    }
    record.values += columns * rows;
    return out;
  };
  let weightedState = 1;  // seeded with the render's seed in start()
  const wrand = () => {
    weightedState = (weightedState + 0x6d2b79f5) | 0;
    let t = Math.imul(weightedState ^ (weightedState >>> 15), weightedState | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  const brush = create(null);
  const added = [];
  const prefixed = create(null);
  for (const name of cfg.prefixed) prefixed[name] = true;
  for (const name of cfg.methods) {
    const recorded = name in prefixed ? `brush.${name}` : name;
    brush[name] = function (...args) {
      emit([recorded, ...(COERCE[name] ? COERCE[name](args) : argsOf(args))]);
    };
  }
  brush.add = function (name, params) {
    emit(["add", ...COERCE.add([name, params])]);
    push(added, apply(stringSlice, String(name), [0, MAX_STRING]));
  };
  brush.box = () => [...cfg.brushNames, ...added];
  brush.listFields = () => [...cfg.fieldNames, ...ownKeys(fields)];
  const wRand = (weights) => {
    const keys = ownKeys(weights || {});
    let total = 0;
    for (const k of keys) total += NativeNumber(weights[k]) || 0;
    let roll = wrand() * total;
    for (const k of keys) {
      roll -= NativeNumber(weights[k]) || 0;
      if (roll <= 0) return k;
    }
    return keys[keys.length - 1];
  };
  brush.addField = function (name, gen, options) {
    const key = apply(stringSlice, String(name), [0, MAX_STRING]);
    if (typeof gen !== "function") throw new TypeError("brush.addField needs a generator function");
    fields[key] = { gen };
    emit(["addField", key, plain(options)]);
    if (V1) {
      // 1.x makes the field current and generates it when it is added.
      fields[key].made = true;
      activeField = key;
      emit(["fieldData", key, fieldGrid(key, 0)]);
    }
  };
  brush.field = function (name) {
    const key = apply(stringSlice, String(name), [0, MAX_STRING]);
    if (key in fields && !fields[key].made) {
      fields[key].made = true;
      emit(["fieldData", key, fieldGrid(key, 0)]);
    }
    activeField = key;
    emit(["field", key]);
  };
  brush.refreshField = function (t = 0) {
    if (activeField !== null && activeField in fields) {
      emit(["fieldData", activeField, fieldGrid(activeField, plainNumber(t) || 0)]);
    }
    emit(["refreshField", plain(t)]);
  };
  if (!V1) {
    brush.wRand = wRand;
    brush.wiggle = function (a) { activeField = "hand"; emit(["wiggle", plain(a)]); };
  }
  brush.noField = function () { emit(["noField"]); };
  brush.load = () => undefined;      // the replay page loads its own canvas
  brush.instance = () => undefined;
  if (V1) brush.preload = () => undefined;  // image tips, which a list never paints
  brush.Polygon = Polygon;
  brush.Plot = Plot;
  brush.Position = Position;
  defineProperty(window, "brush", { value: brush, writable: true, configurable: true });

  // The p5 state p5.brush reads, recorded as the sketch sets it: the
  // transform (translate, rotate, ... as calls, so the replay's p5 builds the
  // same matrix), the angle mode, the seeds (p5's randomSeed and noiseSeed
  // seed the library), and background() or clear(), the paper.
  // `afterReset`: the page's own follow-up to p5's resetMatrix() (the
  // harness moves a WEBGL sketch's 2D stand-in origin back to the centre).
  const wrapState = (proto, afterReset) => {
    for (const name of cfg.stateCalls) {
      const native = proto[name];
      if (typeof native !== "function") continue;
      defineProperty(proto, name, {
        value: function (...args) {
          if (this === instance) emit([name, ...argsOf(args)]);
          const result = apply(native, this, args);
          if (name === "resetMatrix" && this === instance && afterReset) afterReset();
          return result;
        },
        writable: false, configurable: false,
      });
    }
    for (const name of ["background", "clear"]) {
      const native = proto[name];
      if (typeof native !== "function") continue;
      defineProperty(proto, name, {
        value: function (...args) {
          if (this === instance) {
            const flat = args.length && !args.some((a) => a !== null && typeof a === "object"
                                                         && !isArray(a) && !isColor(a));
            const call = name === "clear" ? ["clear"] : flat ? ["background", colorData(args)] : ["background", null];
            paper = name === "clear" ? [0, 0, 0, 0] : flat ? call[1].$color : null;
            emit(call);
          }
          return apply(native, this, args);
        },
        writable: false, configurable: false,
      });
    }
  };

  const handle = create(null);
  // Called by the harness once p5 has made the sketch's instance and seeded
  // it, so the seeding itself is not recorded (the replay seeds as it does).
  handle.start = (p, seed) => {
    instance = p;
    weightedState = (seed >>> 0) || 1;
    recording = true;
    if (V1) emit(["seed", librarySeed]);
  };
  handle.frameEnd = () => {
    if (!recording) return;
    push(record.frames, []);
    framePainted = false;
  };
  handle.canvas = (w, h, density) => {
    emit(["canvas", plainNumber(w), plainNumber(h), plainNumber(density)]);
    // The replay sets its library up afresh at the canvas, so what the
    // script did as it loaded follows it.
    for (const call of early) emit(call);
    early.length = 0;
  };
  handle.wrapP5 = (P, afterReset) => wrapState(P.prototype, afterReset);
  handle.paper = () => (paper === null ? null : [...paper]);
  // The list once, as JSON: its frames (the last, empty one dropped) and
  // why it stopped early, if it did.
  handle.take = () => {
    recording = false;
    const frames = record.frames;
    if (frames.length > 1 && frames[frames.length - 1].length === 0) frames.length -= 1;
    return stringify({ frames, overflow: record.overflow, calls: record.calls });
  };
  // Configurable: the harness takes it and deletes it before the sketch runs.
  defineProperty(window, "__paintrlRecorder", { value: Object.freeze(handle), writable: false, configurable: true });
})();
