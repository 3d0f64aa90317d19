// expect: unknown_brush_method
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.watercolor("#f2a488", 0.6);
  brush.line(-60, -60, 60, 60);
}
