// expect: direct_pixels
// Pixels set one by one on an off-screen buffer, pasted with image().
function setup() {
  createCanvas(120, 120, WEBGL);
  background(255);
  brush.set("HB", "#222", 1);
  brush.line(-50, -50, 50, 50);
  const layer = createGraphics(60, 60);
  for (let x = 0; x < 60; x++) for (let y = 0; y < 60; y++) layer.set(x, y, color(x * 4, y * 4, 90));
  layer.updatePixels();
  image(layer, -60, -60, 120, 120);
}
