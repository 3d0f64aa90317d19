// Medium: one plum-coloured polygon fill with a charcoal stem.
function setup() {
  createCanvas(220, 220, WEBGL);
  background("#f5f0e8");
  brush.noStroke();
  brush.fill("#7b3f61", 90);
  brush.fillBleed(0.15, "out");
  const pts = [];
  for (let k = 0; k < 8; k++) {
    const a = (TWO_PI * k) / 8;
    pts.push([cos(a) * 38, sin(a) * 34 + 10]);
  }
  brush.polygon(pts);
  brush.noFill();
  brush.set("charcoal", "#3b2a1a", 1);
  brush.spline([[0, -24], [5, -50], [15, -70]], 0.5);
}
