// expect: runtime_error
// Unbounded recursion: V8's stack limit ends it with a RangeError.
function depth(n) {
  return depth(n + 1) + 1;
}
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  depth(0);
}
