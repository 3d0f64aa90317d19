// expect: blank_canvas
// Brush set and a stroke drawn, but far outside the canvas.
function setup() {
  createCanvas(160, 160, WEBGL);
  background("#ffffff");
  brush.set("HB", "#222", 1);
  brush.line(4000, 4000, 4100, 4100);
}
