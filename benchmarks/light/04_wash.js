// Light: one small watercolour wash and a few pencil lines.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#fbf8f1");
  brush.noStroke();
  brush.fill("#d98f6b", 104);
  brush.fillBleed(0.3);
  brush.circle(-25, -61, 32);
  brush.noFill();
  brush.set("marker", "#1f4e5f", 1);
  brush.line(165, -120, 70, -138);
  brush.line(-113, -67, 118, -168);
}
