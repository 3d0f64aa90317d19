// expect: runtime_error
// Throws before noLoop(): without a deadline this would loop for ever.
function setup() {
  createCanvas(160, 160, WEBGL);
  background(250);
}
function draw() {
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  undefinedHelper(frameCount);
  noLoop();
}
