// Light: one small watercolour wash and a few pencil lines.
function setup() {
  createCanvas(400, 400, WEBGL);
  background("#faf6ee");
  brush.noStroke();
  brush.fill("#bc4b51", 66);
  brush.fillBleed(0.3);
  brush.circle(12, -5, 26);
  brush.noFill();
  brush.set("charcoal", "#5a3e2b", 1);
  brush.line(131, 72, 80, 131);
  brush.line(-5, 111, 84, -106);
}
