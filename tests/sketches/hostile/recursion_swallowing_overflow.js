// expect: timeout
// Catches its own stack overflow and recurses again from the catch: the call
// tree doubles at every level, so only the hard deadline stops it.
function grow() {
  try { grow(); } catch (e) { grow(); }
}
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  grow();
}
