// Light: short spray-brush dabs scattered over the canvas.
function setup() {
  createCanvas(220, 220, WEBGL);
  background("#f0eee9");
  brush.set("spray", "#5a3e85", 1);
  for (let i = 0; i < 12; i++) {
    const x = random(-90, 90);
    const y = random(-90, 90);
    brush.line(x, y, x + random(-15, 15), y + random(10, 20));
  }
}
