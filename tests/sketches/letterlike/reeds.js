// Reeds at a pond's edge: tall stems with seed heads, and their reflections.
function setup() {
  createCanvas(400, 300, WEBGL);
  background("#f1ede2");
  brush.noStroke();
  brush.fill("#9bb7c9", 60);
  brush.rect(-200, 60, 400, 90);
  brush.noFill();
  brush.set("pen", "#5a4a2e", 1.6);
  for (let x = -170; x < 180; x += random(14, 30)) {
    const top = random(-130, -60);
    brush.spline([[x, 60], [x + 3, 0], [x + random(-8, 8), top]], 0.4);
    brush.set("marker", "#6b4a2a", 3);
    brush.line(x + 1, top + 4, x + 1, top + 18);
    brush.set("pen", "#5a4a2e", 1.6);
  }
  brush.set("2H", "#6f8796", 1);
  for (let x = -170; x < 180; x += 25) brush.line(x, 70, x + 4, 110);
}
