// expect: text_on_canvas
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  fill(0);
  text("Hibiscus, 2026", -60, 60);
}
