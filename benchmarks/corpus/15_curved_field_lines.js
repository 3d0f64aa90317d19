// Light: flow lines in the "curved" field from several start points.
function setup() {
  createCanvas(260, 260, WEBGL);
  background("#f2efe8");
  brush.field("curved");
  brush.set("HB", "#223344", 1);
  for (let i = 0; i < 14; i++) {
    brush.flowLine(random(-120, 0), random(-120, 120), random(80, 180), random(-0.5, 0.5));
  }
  brush.noField();
}
