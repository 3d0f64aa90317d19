// expect: timeout
// Lays brush strokes without end.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  for (let i = 0; ; i++) brush.line(-60, (i % 120) - 60, 60, 60 - (i % 120));
}
