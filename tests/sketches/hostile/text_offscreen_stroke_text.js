// expect: text_on_canvas
// strokeText on an OffscreenCanvas, called through the prototype.
function setup() {
  createCanvas(160, 160, WEBGL);
  background("#f6f1e8");
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const off = new OffscreenCanvas(160, 40);
  const g = off.getContext("2d");
  g.font = "24px serif";
  OffscreenCanvasRenderingContext2D.prototype.strokeText.call(g, "Hibiscus", 10, 30);
  const layer = createGraphics(160, 160);
  layer.drawingContext.drawImage(off, 0, 0);
  image(layer, -80, -80);
}
