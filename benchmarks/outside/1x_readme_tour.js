// p5.brush 1.x, global mode, the README's order: pick, stroke, field, fill.
function setup() {
  createCanvas(400, 400, WEBGL);
  angleMode(DEGREES);
  background("#fffceb");
  brush.pick("2B");
  brush.stroke("#3a3a55");
  brush.strokeWeight(1.2);
  brush.line(-150, -150, 150, -120);
  brush.field("seabed");
  brush.flowLine(-160, -60, 300, 0);
  brush.noField();
  brush.noStroke();
  brush.fill("#d8553a", 80);
  brush.bleed(0.15);
  brush.rect(-120, 20, 140, 100);
}
