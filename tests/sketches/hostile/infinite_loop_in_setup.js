// expect: timeout
// Never returns from setup(): only the hard deadline stops it.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  let n = 0;
  while (true) { n += 1; }
}
