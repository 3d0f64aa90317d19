// A peach-pink hibiscus, kept light for tests: one watercolour bloom, pencil
// stem, hatched leaf and ink outline (watercolour fills dominate render cost).
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#f6f1e8");

  brush.noStroke();
  brush.fill("#f2a488", 90);
  brush.fillBleed(0.2);
  brush.circle(0, -30, 45);
  brush.noFill();

  brush.set("HB", "#3d5a3a", 1.5);
  brush.spline([[0, -10], [10, 50], [-5, 110]], 0.5);

  brush.set("2B", "#5c7d4a", 1);
  brush.hatch(6, 40);
  brush.rect(20, 40, 50, 24);
  brush.noHatch();

  brush.set("pen", "#8c2f39", 1);
  for (let i = 0; i < 5; i++) {
    const a = (TWO_PI * i) / 5 + random(-0.2, 0.2);
    brush.line(0, -30, cos(a) * 40, sin(a) * 40 - 30);
  }
}
