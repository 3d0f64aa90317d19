// Light: rectangles bent by the "zigzag" field.
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#f7f3ec");
  brush.field("zigzag");
  brush.set("HB", "#6b2d2d", 1.2);
  for (let i = 0; i < 4; i++) {
    brush.rect(-100 + i * 50, -80 + i * 20, 40, 90);
  }
  brush.noField();
}
