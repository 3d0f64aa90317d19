// Light: one small watercolour wash.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#f4efe6");
  brush.noStroke();
  brush.fill("#d98f6b", 84);
  brush.fillBleed(0.3);
  brush.circle(-10, 16, 37);
  brush.noFill();
}
