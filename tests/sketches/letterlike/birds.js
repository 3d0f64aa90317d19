// Birds over a dusk sky: small V and M shapes, the marks children draw for gulls.
function setup() {
  createCanvas(400, 300, WEBGL);
  background("#f3dcc2");
  brush.noStroke();
  brush.fill("#e9a36b", 50);
  brush.circle(90, 60, 50);
  brush.noFill();
  brush.set("pen", "#2b2420", 1.6);
  for (let i = 0; i < 16; i++) {
    const x = random(-180, 180), y = random(-130, 20), s = random(6, 14);
    brush.spline([[x - s, y - s / 2], [x - s / 2, y - s / 1.5], [x, y]], 0.5);
    brush.spline([[x, y], [x + s / 2, y - s / 1.5], [x + s, y - s / 2]], 0.5);
  }
}
