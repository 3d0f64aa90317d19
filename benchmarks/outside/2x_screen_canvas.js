// p5.brush 2.x on a canvas sized for a laptop screen, portrait.
function setup() {
  createCanvas(1360, 1800, WEBGL);
  background("#f4efe4");
  brush.set("HB", "#1f2a44", 3);
  for (let i = 0; i < 12; i++) brush.line(-600, -800 + i * 140, 600, -760 + i * 140);
  brush.noStroke();
  brush.fill("#3f7fbf", 70);
  brush.rect(-400, -300, 500, 400);
}
