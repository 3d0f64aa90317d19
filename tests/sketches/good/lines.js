// Pencil lines: the cheapest honest sketch, for tests that need a quick "ok".
function setup() {
  createCanvas(200, 160, WEBGL);
  background("#f6f1e8");
  brush.set("HB", "#2f2a26", 1.2);
  for (let i = 0; i < 6; i++) {
    brush.line(random(-90, 90), -70, random(-90, 90), 70);
  }
}
