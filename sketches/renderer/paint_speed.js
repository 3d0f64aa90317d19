// How p5.brush 2.x paints fast on a software GPU, without changing its
// picture: watercolour fill masks on CPU canvases at the GPU's blend
// precision, and the library's blend shader with the same maths in fewer
// instructions. Loaded before anything else in every page that runs the
// library: the sandbox's page, the editor's preview and the replay page
// (paint by construction), so all three paint the same picture.
(() => {
  "use strict";
  const cfg = JSON.parse(document.currentScript.dataset.config);
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  let leanBlends = 0;  // shader sources given the lean blend

  // Fill masks on the CPU, at the GPU's precision. p5.brush lays every
  // watercolour fill on an OffscreenCanvas 2D mask: hundreds of translucent
  // polygons and erasing circles. Accelerated, that canvas rasterises through
  // SwiftShader: a hibiscus with seven fills drew in 24.8 s, against 1.7 s on
  // a CPU canvas (2 cores, 2026-12-01). But a solid colour on a CPU canvas
  // goes through Skia's legacy blitter, which quantises the colour to 8 bits
  // and truncates each blend: a layer at alpha 0.0145 (3.7/255) adds 4 and
  // then 3 per layer on the GPU and 4 for ever on the CPU, 0.002 adds 1 per
  // layer on the GPU and nothing after the first on the CPU, so washes came
  // out pale (0.96 levels off per channel). Painted with a one-colour
  // gradient, the same fill takes Skia's float pipeline, which blends as the
  // GPU does: measured here, identical alpha, layer after layer, for alphas
  // from 0.002 to 0.3, source-over and destination-out. What stays different
  // is edge coverage (the GPU canvas uses 4x MSAA, the CPU exact area).
  // Doing this in the page (not a browser flag) gives the editor's preview in
  // a curator's own Chrome, GPU or not, the picture the renderer makes.
  // p5.brush 1.x lays its fills on p5.Graphics buffers, ordinary 2D canvases
  // (cfg.cpuCanvases): the same treatment for the one that holds its fills,
  // in the page that paints (buffers1x below; replay.js).
  const weakGet = WeakMap.prototype.get;
  const weakSet = WeakMap.prototype.set;
  const weakSetHas = WeakSet.prototype.has;
  const weakSetAdd = WeakSet.prototype.add;
  const addColorStop = CanvasGradient.prototype.addColorStop;
  const cpuContexts = new WeakSet();  // the contexts given a CPU canvas here
  // `chosen(canvas)`: whether a canvas asking for its first 2D context is
  // put on the CPU; the gradient below is given to those contexts only, so
  // a canvas left on the GPU paints as the browser's own.
  const onCpu = (canvasProto, context2D, configurable, chosen) => {
    const getContext = canvasProto.getContext;
    defineProperty(canvasProto, "getContext", {
      value: function (type, options, ...rest) {
        const kind = String(type);
        if (kind !== "2d" || !chosen(this)) return apply(getContext, this, [kind, options, ...rest]);
        const context = apply(getContext, this, [kind, { ...options, willReadFrequently: true }, ...rest]);
        if (context) apply(weakSetAdd, cpuContexts, [context]);
        return context;
      },
      writable: false,
      // The sandbox's harness wraps HTMLCanvasElement's again and locks it.
      configurable,
    });
    const createLinearGradient = context2D.createLinearGradient;
    for (const prop of ["fillStyle", "strokeStyle"]) {
      const native = Object.getOwnPropertyDescriptor(context2D, prop);
      const shown = new WeakMap();  // context -> [the gradient set, the colour it stands for]
      defineProperty(context2D, prop, {
        get() {
          const value = apply(native.get, this, []);
          const entry = apply(weakGet, shown, [this]);
          return entry && entry[0] === value ? entry[1] : value;
        },
        set(value) {
          apply(native.set, this, [value]);
          if (typeof value !== "string" || !apply(weakSetHas, cpuContexts, [this])) return;
          const parsed = apply(native.get, this, []);
          if (typeof parsed !== "string") return;  // not a colour: ignored, as natively
          // The stops take the colour as written: the serialised form rounds
          // alpha to 8 bits, which is the error this avoids.
          const gradient = apply(createLinearGradient, this, [0, 0, 1, 0]);
          try {
            apply(addColorStop, gradient, [0, value]);
            apply(addColorStop, gradient, [1, value]);
          } catch (e) { return; }
          apply(native.set, this, [gradient]);
          apply(weakSet, shown, [this, [gradient, parsed]]);
        },
        configurable: false,
      });
    }
  };
  if (cfg.cpuFillMasks) {
    onCpu(OffscreenCanvas.prototype, OffscreenCanvasRenderingContext2D.prototype, false, () => true);
  }
  // p5.brush 1.x's buffers, as its load() makes them (buffers1x(load) runs
  // it): its blend mask (fills, bleeds, textures, markers: 2D), a WebGL
  // buffer for image tips, and the buffer for brushes that do not blend
  // (pencils, pens, sprays, charcoal, hatches: 2D). Only the blend mask goes
  // on the CPU (cfg.cpuCanvases). It is drawn in large translucent layers,
  // whose cost follows the canvas's pixels: on the CPU, fills drew 3-5 times
  // faster, their pictures within the fidelity bound of the GPU canvas's
  // (what differs is edge coverage again: docs/benchmarks.md has the
  // figures, benchmarks/paint_by_construction.py --against gpu-canvases-1x
  // measures them). The other 2D buffer is dabbed with circles under a pixel
  // wide, which the GPU canvas rasterises with 4x multisampling and flattens
  // to a few segments: a 0.4 px dot there covers 0 or 1 of 4 samples, about
  // 0.6 of its area on average, where the CPU's exact coverage lays all of
  // it, so a pencil line drawn there was darker and smooth instead of grainy
  // (1.3 levels mean, 5 % of pixels 10 levels off). That buffer is cheap on
  // the GPU (a few pixels a dab), so it stays there. Both 2D buffers are
  // named for the blend passes below (cfg.blendBounds).
  const buffers = new WeakSet();  // 1.x's two 2D buffers, where cfg.blendBounds
  let made = null;  // how many 2D canvases were made so far while buffers1x runs
  const seen = new WeakSet();  // canvases that have asked for a 2D context
  const cpuCanvases = cfg.cpuFillMasks === true && cfg.cpuCanvases === true;
  const planned = (canvas) => {
    if (apply(weakSetHas, seen, [canvas])) return false;
    apply(weakSetAdd, seen, [canvas]);
    if (made === null) return false;
    made += 1;
    if (cfg.blendBounds === true) apply(weakSetAdd, buffers, [canvas]);
    return made === 1 && cpuCanvases;
  };
  if (cpuCanvases || cfg.blendBounds === true) {
    onCpu(HTMLCanvasElement.prototype, CanvasRenderingContext2D.prototype, true, planned);
  }
  const buffers1x = (load) => {
    made = 0;
    try {
      return load();
    } finally {
      made = null;
    }
  };

  // p5.brush's blend pass, the same maths in fewer instructions. Every stroke
  // and fill ends in a pass of its spectral-mixing fragment shader over the
  // dirty rectangle, and on SwiftShader that pass was most of the GPU time
  // (a good painting at 400 px: about 470 ms of its 660). The shader squares
  // with pow(x, 2.0), a general power function, up to 266 times a pixel, and
  // recomputes two loop-invariant concentrations in each of its 38
  // wavelength steps. Here x * x, and the two computed once: measured
  // (2026-12-01, 6 good painter sketches, each draw timed) the pass took a
  // third less time, and the pictures differed by at most 0.001 levels a
  // channel, the rasteriser's own noise between two renders. pow() of the
  // negative 1 - R (R reaches 1.0012 on white) is undefined in GLSL, where
  // x * x is not, so a curator's GPU can only agree more. Only a source
  // holding all three texts is changed, all or nothing, with natives
  // captured here and no iterator a sketch could replace.
  const BLEND_REWRITES = [
    ["float KS(float R){return pow(1.0-R,2.0)/(2.0*R);}",
     "float KS(float R){float q=1.0-R;return q*q/(2.0*R);}"],
    ["float KM(float KS){return 1.0+KS-sqrt(pow(KS,2.0)+2.0*KS);}",
     "float KM(float KS){return 1.0+KS-sqrt(KS*KS+2.0*KS);}"],
    ["for(int i=0;i<SPECTRAL_SIZE;i++){float concentration1=pow(factor1,2.)*pow(tintingStrength1,2.)*luminance1;" +
       "float concentration2=pow(factor2,2.)*pow(tintingStrength2,2.)*luminance2;" +
       "float totalConcentration=concentration1+concentration2;",
     "float concentration1=factor1*factor1*tintingStrength1*tintingStrength1*luminance1;" +
       "float concentration2=factor2*factor2*tintingStrength2*tintingStrength2*luminance2;" +
       "float totalConcentration=concentration1+concentration2;for(int i=0;i<SPECTRAL_SIZE;i++){"],
  ];
  // p5.brush 1.x's blend shader (minified, its own names) squares with pow()
  // three times in each of its 38 wavelength steps and twice more: the same
  // x * x there (benchmarks/paint_by_construction.py --against brush-blend).
  const BLEND_REWRITES_1 = [
    ["float d(float y,float m,float v){float z=m*pow(v,2.);return z/(y*pow(1.-v,2.)+z);}",
     "float d(float y,float m,float v){float z=m*v*v;float q=1.-v;return z/(y*q*q+z);}"],
    ["float p=(1.-z)*(pow(1.-i[u],2.)/(2.*i[u]))+z*(pow(1.-a[u],2.)/(2.*a[u]));s[u]=1.+p-sqrt(pow(p,2.)+2.*p);",
     "float qi=1.-i[u],qa=1.-a[u];float p=(1.-z)*(qi*qi/(2.*i[u]))+z*(qa*qa/(2.*a[u]));s[u]=1.+p-sqrt(p*p+2.*p);"],
  ];
  const stringIndexOf = String.prototype.indexOf;
  const stringSlice = String.prototype.slice;
  const rewritten = (source, rewrites) => {
    let out = source;
    for (let i = 0; i < rewrites.length; i += 1) {
      const from = rewrites[i][0];
      const at = apply(stringIndexOf, out, [from]);
      if (at < 0) return null;
      out = apply(stringSlice, out, [0, at]) + rewrites[i][1]
        + apply(stringSlice, out, [at + from.length]);
    }
    return out;
  };
  const leanBlend = (source) => {
    if (typeof source !== "string") return source;
    const out = rewritten(source, BLEND_REWRITES) ?? rewritten(source, BLEND_REWRITES_1);
    if (out === null) return source;
    leanBlends += 1;
    return out;
  };
  // p5.brush 1.x's blend passes, limited to what they change
  // (cfg.blendBounds: the replay page only, where no sketch code runs). At
  // each colour change, and at the end of setup() and of every frame, 1.x
  // paints two passes over the whole canvas: its buffer for brushes that do
  // not blend, drawn on it as an image, and its blend shader on a rect the
  // size of the canvas, reading the blend mask. On SwiftShader each cost
  // 0.3-0.6 s at 1,200 px however little the buffers held (docs/
  // benchmarks.md). Here each pass is drawn only over the tiles of a 32 px
  // grid that was drawn on in its buffer since the buffer was last cleared
  // whole (as 1.x clears both after each pass), 2 px more for linear
  // sampling, and not at all for an empty buffer. Elsewhere the buffer is
  // transparent, and a pass changes no pixel there: the blend shader writes
  // no colour where the mask's red is 0 (BLEND_1_MAIN), and the image's
  // transparent pixels leave the canvas's as they were under the blend
  // equation (transparentKeeps). Passes cut so also write no depth: that
  // changes nothing while every pass is at the canvas's plane, as under 2D
  // transforms, where the depth test (LEQUAL) passes them all; replay.js
  // calls notFlat() for a list that moves the plane (a 3D translate, rotate
  // or matrix), and every pass is then drawn whole. What was drawn is read
  // from the paths filled and stroked (the stroke's width, joins and caps
  // included) as they are built, since the canvas transforms a path's
  // points as they are added; anything else drawn (an image, text, a
  // Path2D, a shadow) counts as the whole buffer.
  const BLEND_1_MAIN = "void main(){vec4 v=texture2D(mask,vVertTexCoord);if(v.x>0.){";
  const blendShaders = new WeakSet();
  const blendPrograms = new WeakSet();
  const shaderSource = WebGL2RenderingContext.prototype.shaderSource;
  if (cfg.leanBlend || cfg.blendBounds === true) defineProperty(WebGL2RenderingContext.prototype, "shaderSource", {
    value: function shaderSource_(shader, source) {
      if (cfg.blendBounds === true && typeof source === "string"
          && apply(stringIndexOf, source, [BLEND_1_MAIN]) >= 0) apply(weakSetAdd, blendShaders, [shader]);
      return apply(shaderSource, this, [shader, cfg.leanBlend ? leanBlend(source) : source]);
    },
    writable: false,
    // The sandbox's harness wraps it again (its paint ledger) and locks it.
    configurable: true,
  });
  let flat = true;  // false once a list moved the canvas's plane
  const passes = { cut: 0, whole: 0 };  // 1.x's passes over a buffer, for the tests
  if (cfg.blendBounds === true) {
    // What was drawn on each buffer since it was last cleared whole: absent
    // (not known clean yet, as a buffer is before its first clear), null
    // (nothing), WHOLE, or the tiles it touched (inked below).
    const WHOLE = "whole";
    const ink = new WeakMap();
    const context2D = CanvasRenderingContext2D.prototype;
    const canvasOf = Object.getOwnPropertyDescriptor(context2D, "canvas").get;
    const getTransform = context2D.getTransform;
    const lineWidthOf = Object.getOwnPropertyDescriptor(context2D, "lineWidth").get;
    const miterLimitOf = Object.getOwnPropertyDescriptor(context2D, "miterLimit").get;
    const union = (a, b) => (a === null ? b : b === null ? a : a === WHOLE || b === WHOLE ? WHOLE
      : [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])]);
    const grown = (bounds, by) => (bounds === null || bounds === WHOLE ? bounds
      : [bounds[0] - by, bounds[1] - by, bounds[2] + by, bounds[3] + by]);
    // Per context of a buffer: its current path's bounds in the canvas's
    // pixels, and the box of the points added to it since the transform
    // last changed, in user space (mapped when the transform changes or the
    // path is painted: one getTransform() a shape, not one a point).
    const tracks = new WeakMap();  // context -> its track, or null for another canvas's
    let lastContext = null;
    let lastTrack = null;
    const trackOf = (context) => {
      if (context === lastContext) return lastTrack;
      let track = apply(weakGet, tracks, [context]);
      if (track === undefined) {
        const canvas = apply(canvasOf, context, []);
        track = apply(weakSetHas, buffers, [canvas])
          ? { canvas, path: null, x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity, m: null }
          : null;
        apply(weakSet, tracks, [context, track]);
      }
      lastContext = context;
      lastTrack = track;
      return track;
    };
    const add = (track, x0, y0, x1, y1) => {
      if (x0 < track.x0) track.x0 = x0;
      if (y0 < track.y0) track.y0 = y0;
      if (x1 > track.x1) track.x1 = x1;
      if (y1 > track.y1) track.y1 = y1;
    };
    // The box around user-space box (x0, y0)-(x1, y1), `reach` user units
    // wider, in the canvas's pixels.
    const transformOf = (context, track) => {
      if (track.m === null) track.m = apply(getTransform, context, []);
      return track.m;
    };
    const mapped = (context, track, x0, y0, x1, y1, reach) => {
      const m = transformOf(context, track);
      const r = reach * Math.max(Math.hypot(m.a, m.b), Math.hypot(m.c, m.d));
      const xs = [m.a * x0 + m.c * y0, m.a * x1 + m.c * y0, m.a * x0 + m.c * y1, m.a * x1 + m.c * y1];
      const ys = [m.b * x0 + m.d * y0, m.b * x1 + m.d * y0, m.b * x0 + m.d * y1, m.b * x1 + m.d * y1];
      const box = [Math.min(...xs) + m.e - r, Math.min(...ys) + m.f - r,
        Math.max(...xs) + m.e + r, Math.max(...ys) + m.f + r];
      return box.every(Number.isFinite) ? box : WHOLE;
    };
    const forgetPoints = (track) => {
      track.x0 = Infinity;
      track.y0 = Infinity;
      track.x1 = -Infinity;
      track.y1 = -Infinity;
    };
    const flush = (context, track) => {
      if (track.x0 > track.x1 || track.y0 > track.y1) return;
      if (track.path !== WHOLE) {
        track.path = union(track.path, mapped(context, track, track.x0, track.y0, track.x1, track.y1, 0));
      }
      forgetPoints(track);
    };
    // What a buffer holds is kept as the tiles of a grid its paint touched
    // (a pen line wandering across a flow field has a box as large as the
    // canvas, but touches few of its tiles), each box of paint marked with
    // PAD pixels more for the passes' linear sampling.
    const TILE = 32;
    const PAD = 2;
    const inked = (track, bounds) => {
      const canvas = track.canvas;
      let held = apply(weakGet, ink, [canvas]);
      if (held === WHOLE || bounds === null) return;
      const cols = Math.ceil(canvas.width / TILE);
      const rows = Math.ceil(canvas.height / TILE);
      if (held === undefined || bounds === WHOLE
        || (held !== null && (held.cols !== cols || held.rows !== rows))) {
        apply(weakSet, ink, [canvas, WHOLE]);
        return;
      }
      const c0 = Math.max(0, Math.floor((bounds[0] - PAD) / TILE));
      const c1 = Math.min(cols, Math.floor((bounds[2] + PAD) / TILE) + 1);
      const r0 = Math.max(0, Math.floor((bounds[1] - PAD) / TILE));
      const r1 = Math.min(rows, Math.floor((bounds[3] + PAD) / TILE) + 1);
      if (c1 <= c0 || r1 <= r0) return;
      if (held === null) {
        held = { cols, rows, tiles: new Uint8Array(cols * rows) };
        apply(weakSet, ink, [canvas, held]);
      }
      for (let r = r0; r < r1; r += 1) held.tiles.fill(1, r * cols + c0, r * cols + c1);
    };
    let shadows = false;  // a shadow was ever asked for: everything painted counts whole
    for (const name of ["shadowBlur", "shadowOffsetX", "shadowOffsetY"]) {
      const native = Object.getOwnPropertyDescriptor(context2D, name);
      defineProperty(context2D, name, {
        get: native.get,
        set(value) {
          apply(native.set, this, [value]);
          if (apply(native.get, this, []) !== 0) shadows = true;
        },
        configurable: false,
      });
    }
    // `hook(context, track, ...args)` runs before the native method on a buffer's context.
    const before = (name, hook) => {
      const native = context2D[name];
      defineProperty(context2D, name, {
        value: function (a, b, c, d, e, f) {
          const track = trackOf(this);
          if (track !== null) hook(this, track, a, b, c, d, e, f);
          return apply(native, this, arguments);
        },
        writable: false,
        configurable: false,
      });
    };
    const point = (context, track, x, y) => add(track, +x, +y, +x, +y);
    before("moveTo", point);
    before("lineTo", point);
    before("quadraticCurveTo", (context, track, cx, cy, x, y) => {
      point(context, track, cx, cy);
      point(context, track, x, y);
    });
    before("bezierCurveTo", (context, track, c1x, c1y, c2x, c2y, x, y) => {
      point(context, track, c1x, c1y);
      point(context, track, c2x, c2y);
      point(context, track, x, y);
    });
    const round = (context, track, x, y, r) => add(track, +x - r, +y - r, +x + r, +y + r);
    before("arc", (context, track, x, y, r) => round(context, track, x, y, Math.abs(r)));
    before("ellipse", (context, track, x, y, rx, ry) => round(context, track, x, y,
      Math.max(Math.abs(rx), Math.abs(ry))));
    // A rect's box, [x0, y0, x1, y1] in user space (its width or height may be negative).
    const rectBox = (x, y, w, h) => [Math.min(+x, +x + +w), Math.min(+y, +y + +h),
      Math.max(+x, +x + +w), Math.max(+y, +y + +h)];
    const rect = (context, track, x, y, w, h) => add(track, ...rectBox(x, y, w, h));
    before("rect", rect);
    before("roundRect", rect);
    // arcTo's tangent points can lie anywhere along its two lines.
    before("arcTo", (context, track) => { track.path = WHOLE; });
    before("beginPath", (context, track) => {
      track.path = null;
      forgetPoints(track);
    });
    // The canvas maps a path's points as they are added.
    for (const name of ["translate", "rotate", "scale", "transform", "setTransform",
      "resetTransform", "restore", "reset"]) {
      before(name, (context, track) => {
        flush(context, track);
        track.m = null;
      });
    }
    // Half the stroke's width, a miter join reaching miterLimit times that,
    // a square cap about 1.42 times.
    const strokeReach = (context) => (apply(lineWidthOf, context, []) / 2)
      * Math.max(apply(miterLimitOf, context, []), 1.5);
    const scaleOf = (context, track) => {
      const m = transformOf(context, track);
      return Math.max(Math.hypot(m.a, m.b), Math.hypot(m.c, m.d));
    };
    // A pixel more for antialiasing; a Path2D is not followed.
    const painted = (context, track, path, reach) => {
      flush(context, track);
      const whole = shadows || (path !== undefined && typeof path === "object");
      inked(track, whole ? WHOLE : grown(track.path, reach === 0 ? 1 : reach * scaleOf(context, track) + 1));
    };
    before("fill", (context, track, path) => painted(context, track, path, 0));
    before("stroke", (context, track, path) => painted(context, track, path, strokeReach(context)));
    const rectInk = (context, track, x, y, w, h, reach) => (shadows ? WHOLE
      : grown(mapped(context, track, ...rectBox(x, y, w, h), reach), 1));
    before("fillRect", (context, track, x, y, w, h) => inked(track, rectInk(context, track, x, y, w, h, 0)));
    before("strokeRect", (context, track, x, y, w, h) => inked(track,
      rectInk(context, track, x, y, w, h, strokeReach(context))));
    for (const name of ["fillText", "strokeText", "drawImage", "putImageData", "drawFocusIfNeeded"]) {
      before(name, (context, track) => inked(track, WHOLE));
    }
    before("clearRect", (context, track, x, y, w, h) => {
      const m = transformOf(context, track);
      const whole = m.b === 0 && m.c === 0 && m.a > 0 && m.d > 0 && w > 0 && h > 0
        && m.e + m.a * x <= 0 && m.f + m.d * y <= 0
        && m.e + m.a * (x + w) >= track.canvas.width && m.f + m.d * (y + h) >= track.canvas.height;
      if (whole) apply(weakSet, ink, [track.canvas, null]);
    });

    const gl2 = WebGL2RenderingContext.prototype;
    const native = {};
    for (const name of ["attachShader", "useProgram", "texImage2D", "drawArrays", "drawElements",
      "enable", "disable", "blendFunc", "blendFuncSeparate", "blendEquation",
      "blendEquationSeparate", "bindFramebuffer"]) {
      native[name] = gl2[name];
    }
    const GL = WebGL2RenderingContext;
    // Per context, the state a pass is cut by, followed as it is set rather
    // than asked (a getParameter() such as these is answered by the GPU
    // process once it has done all it was sent, so the page waits): the
    // program, blending, scissoring and the framebuffer, as a new context
    // has them; and what was uploaded since its last draw: one buffer
    // (`source`) and what it held (`drawn`: [its ink, its width, its
    // height]), or `other` for any other canvas or a second buffer.
    const states = new WeakMap();
    const stateOf = (gl) => {
      let state = apply(weakGet, states, [gl]);
      if (!state) {
        state = { program: null, blend: false, equations: [GL.FUNC_ADD, GL.FUNC_ADD],
          destinations: [GL.ZERO, GL.ZERO], scissor: false, framebuffer: false,
          source: null, drawn: null, other: false };
        apply(weakSet, states, [gl, state]);
      }
      return state;
    };
    // Whether a transparent pixel drawn now leaves the canvas's pixel as it
    // was: blending on, each equation adding to (or subtracting from) the
    // destination weighted by a factor that is 1 for a transparent source.
    const ADDS = [GL.FUNC_ADD, GL.FUNC_REVERSE_SUBTRACT];
    const KEEPS = [GL.ONE, GL.ONE_MINUS_SRC_ALPHA, GL.ONE_MINUS_SRC_COLOR];
    const transparentKeeps = (state) => state.blend
      && ADDS.includes(state.equations[0]) && ADDS.includes(state.equations[1])
      && KEEPS.includes(state.destinations[0]) && KEEPS.includes(state.destinations[1]);
    // The boxes a pass over a buffer that held `drawn` is cut to, in the
    // canvas's pixels ([x0, y0, x1, y1], rows down), none overlapping (a
    // pencil buffer's image drawn twice would lay its paint twice): the runs
    // of touched tiles along each row of the grid, a run carried down while
    // the next row has the same. Undefined where the pass must be whole.
    const boxesOf = ([held, width, height]) => {
      if (held === WHOLE) return undefined;
      const boxes = [];
      if (held === null) return boxes;
      const { cols, rows, tiles } = held;
      let open = new Map();  // "c0,c1" -> the box carried down to this row
      for (let r = 0; r < rows; r += 1) {
        const next = new Map();
        for (let c = 0; c < cols; c += 1) {
          if (tiles[r * cols + c] === 0) continue;
          const c0 = c;
          while (c < cols && tiles[r * cols + c] === 1) c += 1;
          const key = `${c0},${c}`;
          const y1 = Math.min(height, (r + 1) * TILE);
          const box = open.get(key) ?? [c0 * TILE, r * TILE, Math.min(width, c * TILE), y1];
          box[3] = y1;
          if (!open.has(key)) boxes.push(box);
          next.set(key, box);
        }
        open = next;
      }
      return boxes;
    };
    // Whether the pass about to be drawn may be cut (p5 and p5.brush never
    // scissor, so the test is otherwise off).
    const cuttable = (gl, state) => flat && !state.other && state.drawn !== null
      && !state.framebuffer && !state.scissor
      && state.drawn[1] === gl.drawingBufferWidth && state.drawn[2] === gl.drawingBufferHeight
      && (apply(weakSetHas, blendPrograms, [state.program]) || transparentKeeps(state));
    const pass = (draw) => function (...args) {
      const state = stateOf(this);
      const boxes = cuttable(this, state) ? boxesOf(state.drawn) : undefined;
      const { drawn } = state;
      state.source = null;
      state.drawn = null;
      state.other = false;
      if (boxes === undefined) {
        if (drawn !== null) passes.whole += 1;
        return apply(draw, this, args);
      }
      passes.cut += 1;
      if (boxes.length === 0) return undefined;
      apply(native.enable, this, [GL.SCISSOR_TEST]);
      try {
        for (const [x0, y0, x1, y1] of boxes) {
          // The canvas's rows run down, the framebuffer's up.
          this.scissor(x0, drawn[2] - y1, x1 - x0, y1 - y0);
          apply(draw, this, args);
        }
      } finally {
        apply(native.disable, this, [GL.SCISSOR_TEST]);
      }
      return undefined;
    };
    const capability = (on) => function (cap) {
      const state = stateOf(this);
      if (cap === GL.BLEND) state.blend = on;
      if (cap === GL.SCISSOR_TEST) state.scissor = on;
      return apply(on ? native.enable : native.disable, this, [cap]);
    };
    const methods = {
      attachShader(program, shader) {
        if (apply(weakSetHas, blendShaders, [shader])) apply(weakSetAdd, blendPrograms, [program]);
        return apply(native.attachShader, this, [program, shader]);
      },
      useProgram(program) {
        stateOf(this).program = program;
        return apply(native.useProgram, this, [program]);
      },
      enable: capability(true),
      disable: capability(false),
      blendFunc(source, destination) {
        stateOf(this).destinations = [destination, destination];
        return apply(native.blendFunc, this, [source, destination]);
      },
      blendFuncSeparate(sourceRgb, destinationRgb, sourceAlpha, destinationAlpha) {
        stateOf(this).destinations = [destinationRgb, destinationAlpha];
        return apply(native.blendFuncSeparate, this, [sourceRgb, destinationRgb, sourceAlpha,
          destinationAlpha]);
      },
      blendEquation(mode) {
        stateOf(this).equations = [mode, mode];
        return apply(native.blendEquation, this, [mode]);
      },
      blendEquationSeparate(rgb, alpha) {
        stateOf(this).equations = [rgb, alpha];
        return apply(native.blendEquationSeparate, this, [rgb, alpha]);
      },
      bindFramebuffer(target, framebuffer) {
        if (target === GL.FRAMEBUFFER || target === GL.DRAW_FRAMEBUFFER) {
          stateOf(this).framebuffer = framebuffer !== null;
        }
        return apply(native.bindFramebuffer, this, [target, framebuffer]);
      },
      texImage2D(...args) {
        const source = args[args.length - 1];
        if (source instanceof HTMLCanvasElement && source !== this.canvas) {
          const state = stateOf(this);
          const held = apply(weakGet, ink, [source]);
          // (p5 uploads a buffer twice before its first draw.)
          if (apply(weakSetHas, buffers, [source]) && (state.source === null || state.source === source)) {
            state.source = source;
            state.drawn = [held === undefined ? WHOLE : held, source.width, source.height];
          } else {
            state.other = true;
          }
        }
        return apply(native.texImage2D, this, args);
      },
      drawArrays: pass(native.drawArrays),
      drawElements: pass(native.drawElements),
    };
    for (const name of Object.keys(methods)) {
      defineProperty(gl2, name, { value: methods[name], writable: false, configurable: true });
    }
  }

  defineProperty(window, "__paintrlSpeed", {
    value: Object.freeze({
      leanBlends: () => leanBlends,
      buffers1x,
      notFlat: () => { flat = false; },
      blendPasses: () => ({ ...passes }),
    }),
    writable: false,
    configurable: false,
  });
})();
