// Light: a loose pencil grid, straight HB lines only.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#f4efe6");
  brush.set("HB", "#2e3a4a", 1);
  for (let i = -100; i <= 100; i += 25) {
    brush.line(i, -100, i + random(-4, 4), 100);
    brush.line(-100, i, 100, i + random(-4, 4));
  }
}
