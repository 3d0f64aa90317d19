// Light: one small watercolour wash.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#f1ece2");
  brush.noStroke();
  brush.fill("#f4a259", 90);
  brush.fillBleed(0.3);
  brush.circle(9, -19, 52);
  brush.noFill();
}
