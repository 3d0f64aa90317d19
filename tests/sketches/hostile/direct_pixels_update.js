// expect: direct_pixels
// A gradient written straight into the canvas's pixels next to a brush line.
function setup() {
  createCanvas(120, 120, WEBGL);
  background(255);
  brush.set("HB", "#222", 1);
  brush.line(-50, -50, 50, 50);
  loadPixels();
  for (let i = 0; i < pixels.length; i += 4) {
    pixels[i] = (i / 4) % 120 * 2;
    pixels[i + 1] = 80;
    pixels[i + 2] = 160;
    pixels[i + 3] = 255;
  }
  updatePixels();
}
