// A meadow: short curved blades of grass in two greens under a pale sky.
function setup() {
  createCanvas(400, 300, WEBGL);
  background("#eef3f6");
  brush.set("2B", "#4f7d3a", 1.4);
  for (let i = 0; i < 180; i++) {
    const x = random(-200, 200), y = random(20, 150), h = random(14, 40), lean = random(-10, 10);
    brush.spline([[x, y], [x + lean / 2, y - h / 2], [x + lean, y - h]], 0.5);
  }
  brush.set("HB", "#7aa35a", 1.1);
  for (let i = 0; i < 80; i++) {
    const x = random(-200, 200), y = random(40, 150);
    brush.line(x, y, x + random(-6, 6), y - random(10, 24));
  }
}
