// Heavy: two watercolour fills (sky and hill) with flow-line grass.
function setup() {
  createCanvas(280, 220, WEBGL);
  background("#f7f3ea");
  brush.noStroke();
  brush.fill("#9ec1cf", 70);
  brush.rect(-130, -100, 260, 80);
  brush.fill("#7fa65a", 85);
  brush.fillTexture(0.5, 0.4);
  brush.beginShape(0.6);
  brush.vertex(-130, 10);
  brush.vertex(-40, -25);
  brush.vertex(60, 0);
  brush.vertex(130, -15);
  brush.vertex(130, 100);
  brush.vertex(-130, 100);
  brush.endShape(true);
  brush.noFill();
  brush.field("hand");
  brush.set("HB", "#2f4a1f", 1);
  for (let i = 0; i < 10; i++) brush.flowLine(random(-120, 120), random(30, 95), 18, -HALF_PI);
  brush.noField();
}
