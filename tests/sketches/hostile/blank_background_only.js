// expect: blank_canvas, no_brush_painting
// Sets a brush, never strokes: only background() reaches the canvas.
function setup() {
  createCanvas(160, 160, WEBGL);
  background("#fdfcf8");
  brush.set("HB", "#222", 1);
}
