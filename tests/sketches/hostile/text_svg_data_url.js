// expect: text_on_canvas, embedded_image
// Text written as SVG markup in a data: URL, decoded as an image and drawn
// into a buffer that is pasted on the canvas once it has loaded.
let label;
let layer;
function setup() {
  createCanvas(160, 160, WEBGL);
  background("#f6f1e8");
  layer = createGraphics(160, 160);
  label = new Image();
  label.src = "data:image/svg+xml," + encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40">' +
    '<text x="10" y="30" font-size="24">Hibiscus</text></svg>');
}
function draw() {
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  if (label.complete && label.naturalWidth > 0) {
    layer.drawingContext.drawImage(label, 0, 0);
    image(layer, -80, -80);
    noLoop();
  }
}
