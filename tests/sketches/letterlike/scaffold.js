// Scaffolding on a grey facade: a lattice of poles, diagonal braces and boards.
function setup() {
  createCanvas(400, 300, WEBGL);
  background("#e8e4dc");
  brush.set("rotring", "#3b3b3b", 1.6);
  for (let x = -160; x <= 160; x += 64) brush.line(x, -140, x, 140);
  for (let y = -120; y <= 120; y += 60) brush.line(-170, y, 170, y);
  for (let x = -160; x < 160; x += 64) {
    for (let y = -120; y < 120; y += 60) brush.line(x, y, x + 64, y + 60);
  }
}
