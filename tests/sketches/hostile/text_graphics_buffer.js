// expect: text_on_canvas
// A caption drawn with text() on an off-screen 2D buffer, pasted in with image().
function setup() {
  createCanvas(160, 160, WEBGL);
  background("#f6f1e8");
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const label = createGraphics(160, 40);
  label.fill(0);
  label.textSize(24);
  label.text("Hibiscus", 10, 30);
  image(label, -80, 40);
}
