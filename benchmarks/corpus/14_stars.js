// Light: a few star polygons in pen, stroke colour set with brush.stroke.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#101a2e");
  brush.set("pen", "#f2e8c9", 1);
  for (let s = 0; s < 5; s++) {
    const cx = random(-80, 80), cy = random(-80, 80), r = random(12, 28);
    const pts = [];
    for (let k = 0; k < 10; k++) {
      const a = -HALF_PI + (PI * k) / 5;
      const rr = k % 2 ? r * 0.45 : r;
      pts.push([cx + cos(a) * rr, cy + sin(a) * rr]);
    }
    brush.stroke("#f2e8c9");
    brush.polygon(pts);
  }
}
