// expect: runtime_error
// Doubles a string until the engine refuses (Invalid string length).
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  let s = "paint";
  for (;;) s += s;
}
