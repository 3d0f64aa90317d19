// expect: text_on_canvas
// Glyphs drawn with the 2D context's fillText on a canvas element of its own,
// reached through a createGraphics buffer's drawingContext, then pasted.
function setup() {
  createCanvas(160, 160, WEBGL);
  background("#f6f1e8");
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const layer = createGraphics(160, 160);
  const own = document.createElement("canvas");
  own.width = 160;
  own.height = 40;
  const g = own.getContext("2d");
  g.font = "24px sans-serif";
  g["fill" + "Text"]("Hibiscus", 10, 30);
  layer.drawingContext.drawImage(own, 0, 120);
  image(layer, -80, -80);
}
