// The common pattern: noLoop() in setup(), the painting in draw(). p5 still
// runs draw() once, and the capture must wait for it.
function setup() {
  createCanvas(160, 120, WEBGL);
  noLoop();
}

function draw() {
  background("#fbf7ef");
  brush.set("HB", "#2d4a6b", 1.5);
  for (let i = 0; i < 6; i++) {
    brush.line(-60, -40 + i * 16, 60, -40 + i * 16 + random(-8, 8));
  }
}
