// expect: unknown_brush_method
// Patches Set.prototype.has so every name looks like a known brush method,
// then calls one that does not exist (guarded, so nothing throws).
function setup() {
  createCanvas(160, 160, WEBGL);
  Set.prototype.has = () => true;
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const fn = brush["water" + "color"];
  if (typeof fn === "function") fn("#f2a488", 0.6);
}
