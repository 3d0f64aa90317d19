// Light: the same line drawn with growing strokeWeight.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#fdfcf8");
  brush.set("2B", "#402218", 1);
  for (let i = 0; i < 8; i++) {
    brush.strokeWeight(0.5 + i * 0.4);
    brush.line(-100, -90 + i * 25, 100, -80 + i * 25);
  }
}
