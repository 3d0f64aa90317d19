// expect: embedded_image
// A brush whose tip is an image file, added as the script loads (before
// setup, where the library's own examples add theirs): it stamps the file.
brush.add("stamp", { type: "image", weight: 24, vibration: 0, spacing: 1, opacity: 255,
  blend: true, pressure: [1, 1], rotate: "natural", image: { src: "./tips/stamp.png" } });

function setup() {
  createCanvas(200, 200, WEBGL);
  background(250);
  brush.set("stamp", "#224", 1);
  brush.line(-60, 0, 60, 0);
}
