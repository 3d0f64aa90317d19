// p5.brush 2.x: strokes laid over a few frames, then noLoop().
function setup() {
  createCanvas(300, 240, WEBGL);
  background("#eef2f3");
}
function draw() {
  brush.set("charcoal", "#2d3142", 1);
  brush.line(-130, -100 + frameCount * 30, 130, -90 + frameCount * 30);
  if (frameCount >= 6) noLoop();
}
