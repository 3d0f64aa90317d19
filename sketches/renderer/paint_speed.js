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
  // chosen by the page that paints (canvasesOnCpu below; replay.js).
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
  // Which of the page's canvases go on the CPU: canvasesOnCpu(plan, fn) runs
  // fn, and the n-th canvas to make a 2D context during it goes on the CPU
  // where plan[n] is true; every other canvas stays the browser's. Only one
  // of p5.brush 1.x's two 2D buffers is moved. Its blend mask (fills, bleeds,
  // textures, markers) is drawn in large translucent layers, whose cost
  // follows the canvas's pixels: on the CPU, fills drew 3-5 times faster,
  // their pictures within the fidelity bound of the GPU canvas's (what
  // differs is edge coverage again: docs/benchmarks.md has the figures,
  // benchmarks/paint_by_construction.py --against gpu-canvases-1x measures
  // them). Its other buffer (pencils, pens, sprays, charcoal,
  // hatches) is dabbed with circles under a pixel wide, which the GPU
  // canvas rasterises with 4x multisampling and flattens to a few segments:
  // a 0.4 px dot there covers 0 or 1 of 4 samples, about 0.6 of its area
  // on average, where the CPU's exact coverage lays all of it, so a pencil
  // line drawn there was darker and smooth instead of grainy (1.3 levels
  // mean, 5 % of pixels 10 levels off). That buffer is cheap on the GPU (a
  // few pixels a dab), so it stays there.
  let plan = null;  // [the plan, the next index] while canvasesOnCpu runs
  const seen = new WeakSet();  // canvases that have asked for a 2D context
  const planned = (canvas) => {
    if (apply(weakSetHas, seen, [canvas])) return false;
    apply(weakSetAdd, seen, [canvas]);
    if (plan === null) return false;
    const at = plan[1];
    plan[1] = at + 1;
    return plan[0][at] === true;
  };
  if (cfg.cpuFillMasks && cfg.cpuCanvases) {
    onCpu(HTMLCanvasElement.prototype, CanvasRenderingContext2D.prototype, true, planned);
  }
  const canvasesOnCpu = (steps, fn) => {
    const copy = [];
    for (let i = 0; i < steps.length; i += 1) copy[i] = steps[i] === true;
    plan = [copy, 0];
    try {
      return fn();
    } finally {
      plan = null;
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
  const shaderSource = WebGL2RenderingContext.prototype.shaderSource;
  if (cfg.leanBlend) defineProperty(WebGL2RenderingContext.prototype, "shaderSource", {
    value: function shaderSource_(shader, source) {
      return apply(shaderSource, this, [shader, leanBlend(source)]);
    },
    writable: false,
    // The sandbox's harness wraps it again (its paint ledger) and locks it.
    configurable: true,
  });
  defineProperty(window, "__paintrlSpeed", {
    value: Object.freeze({ leanBlends: () => leanBlends, canvasesOnCpu }),
    writable: false,
    configurable: false,
  });
})();
