// p5.brush 2.x, a small canvas drawn at a high pixel density.
function setup() {
  createCanvas(150, 150, WEBGL);
  pixelDensity(6);
  background("#fff8ee");
  brush.set("pen", "#202020", 0.8);
  for (let a = 0; a < 12; a++) {
    brush.line(0, 0, 60 * Math.cos(a * Math.PI / 6), 60 * Math.sin(a * Math.PI / 6));
  }
}
