// expect: canvas_too_large
// A small canvas, then an offscreen buffer of 400 megapixels.
function setup() {
  createCanvas(160, 160, WEBGL);
  const layer = createGraphics(20000, 20000, WEBGL);
  layer.background(0);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
