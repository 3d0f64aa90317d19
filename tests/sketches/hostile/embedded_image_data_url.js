// expect: embedded_image
// A finished picture carried in the code as a data: URL PNG, decoded and
// drawn into a buffer that is pasted on the canvas.
let picture;
let layer;
function setup() {
  createCanvas(120, 120, WEBGL);
  background(255);
  layer = createGraphics(120, 120);
  picture = document.createElement("img");
  picture.src = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR42mP8z8Dwn4GBgYGJAQoAAB0GAgFXqaUAAAAASUVORK5CYII=";
}
function draw() {
  brush.set("HB", "#222", 1);
  brush.line(-50, -50, 50, 50);
  if (picture.complete && picture.naturalWidth > 0) {
    layer.drawingContext.drawImage(picture, 0, 0, 120, 120);
    image(layer, -60, -60);
    noLoop();
  }
}
