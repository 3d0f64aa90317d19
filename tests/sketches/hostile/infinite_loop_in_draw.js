// expect: timeout
// setup() finishes, then the first frame spins for ever.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
function draw() {
  for (;;) {}
}
