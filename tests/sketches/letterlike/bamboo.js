// Bamboo: jointed stems with short ink nodes and leaves like strokes of a brush.
function setup() {
  createCanvas(400, 300, WEBGL);
  background("#f4f1e6");
  brush.set("pen", "#3f6b3a", 3);
  const stems = [-120, -60, 10, 80, 140];
  for (const x of stems) {
    for (let y = -140; y < 140; y += 45) {
      brush.line(x, y, x + 2, y + 40);
      brush.line(x - 6, y + 42, x + 8, y + 42);
    }
  }
  brush.set("marker", "#2f5a2e", 1.5);
  for (let i = 0; i < 14; i++) {
    const x = random(stems), y = random(-120, 120), s = random([-1, 1]);
    brush.spline([[x, y], [x + s * 20, y - 6], [x + s * 42, y + 4]], 0.6);
  }
}
