// expect: blank_canvas
// Paints in setup() (so the brush counters are satisfied), then wipes the
// canvas in the one draw() frame that is captured.
function setup() {
  createCanvas(160, 160, WEBGL);
  background("#fdfcf8");
  brush.set("HB", "#222", 1);
  for (let i = -60; i <= 60; i += 10) brush.line(-60, i, 60, i);
  noLoop();
}
function draw() {
  clear();
  background("#fdfcf8");
}
