// Light: one long ink spline winding out from the centre.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#fbf8f1");
  const pts = [];
  for (let i = 0; i < 40; i++) {
    const a = i * 0.45;
    const r = 4 + i * 2.4;
    pts.push([cos(a) * r, sin(a) * r]);
  }
  brush.set("pen", "#1d1d3b", 1.2);
  brush.spline(pts, 0.6);
}
