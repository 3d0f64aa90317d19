// expect: canvas_too_large
function setup() {
  createCanvas(20000, 20000, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
