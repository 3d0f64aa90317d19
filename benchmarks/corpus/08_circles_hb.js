// Light: concentric pencil circles, stroke only.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#f5f1e9");
  brush.set("HB", "#3c2f2f", 1);
  for (let r = 15; r <= 95; r += 16) {
    brush.circle(0, 0, r, 0.4);
  }
}
