// expect: embedded_image
// Pixels built in code, turned into an ImageBitmap and drawn into a buffer.
function setup() {
  createCanvas(120, 120, WEBGL);
  background(255);
  brush.set("HB", "#222", 1);
  brush.line(-50, -50, 50, 50);
  const data = new ImageData(60, 60);
  data.data.fill(200);
  createImageBitmap(data).then((bitmap) => {
    const layer = createGraphics(120, 120);
    layer.drawingContext.drawImage(bitmap, 0, 0, 120, 120);
  });
}
