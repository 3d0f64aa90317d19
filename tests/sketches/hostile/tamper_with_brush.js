// expect: tampering
// Replaces a brush method to fake painting calls.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.line = function () {};
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
