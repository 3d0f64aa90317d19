// expect: no_brush_painting, blank_canvas
// Writes the numbers a report might read (a paint fraction, a done flag,
// call counters) instead of painting.
var paintFraction = 0.9;
var paint_fraction = 0.9;
window.done = true;
function setup() {
  createCanvas(160, 160, WEBGL);
  background("#fdfcf8");
  brush.set("HB", "#222", 1);
  Object.prototype.brushPaintCalls = 42;
  Object.prototype.paintFraction = 0.9;
  document.title = "done 0.9";
}
