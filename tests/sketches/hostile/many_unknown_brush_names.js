// expect: unknown_brush_method
// Calls 200,000 distinct made-up brush methods, some with huge names: the
// page's account (and the stored report) must stay small.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  for (let i = 0; i < 200000; i++) brush["m" + i]();
  brush["n".repeat(1 << 20)]();
}
