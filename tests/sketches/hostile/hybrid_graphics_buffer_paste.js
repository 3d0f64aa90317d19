// expect: plain_painting
// The picture is painted with plain shapes on an off-screen buffer (whose
// calls the primitive counter never sees) and pasted in whole with image().
function setup() {
  createCanvas(200, 200, WEBGL);
  background(250);
  const layer = createGraphics(200, 200);
  layer.noStroke();
  for (let i = 0; i < 30; i++) {
    layer.fill(40 + i * 6, 90, 160 - i * 3);
    layer.circle(20 + (i * 37) % 160, 20 + (i * 53) % 160, 50);
  }
  image(layer, -100, -100);
  brush.set("2B", "#333", 1);
  brush.line(-80, 80, 80, 80);
}
