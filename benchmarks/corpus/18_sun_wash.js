// Medium: one small watercolour sun over a pencil horizon.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#f7f1e3");
  brush.noStroke();
  brush.fill("#f4a259", 100);
  brush.fillBleed(0.2);
  brush.circle(0, -30, 32);
  brush.noFill();
  brush.set("HB", "#3d3d3d", 1);
  brush.line(-110, 40, 110, 42);
}
