// Light: nested triangles drawn with the rotring pen via polygon().
function setup() {
  createCanvas(220, 220, WEBGL);
  background("#fffdf7");
  brush.set("rotring", "#111111", 1);
  for (let s = 90; s > 10; s -= 16) {
    const pts = [];
    for (let k = 0; k < 3; k++) {
      const a = -HALF_PI + (TWO_PI * k) / 3;
      pts.push([cos(a) * s, sin(a) * s]);
    }
    brush.polygon(pts);
  }
}
