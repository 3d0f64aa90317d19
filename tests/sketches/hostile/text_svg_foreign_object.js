// expect: text_on_canvas, embedded_image
// HTML text inside an SVG foreignObject, base64 in a data: URL, used as a WebGL texture.
let page;
function setup() {
  createCanvas(160, 160, WEBGL);
  background("#f6f1e8");
  page = new Image();
  page.src = "data:image/svg+xml;base64," + btoa(
    '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40"><foreignObject width="160" ' +
    'height="40"><div xmlns="http://www.w3.org/1999/xhtml">Hibiscus</div></foreignObject></svg>');
}
function draw() {
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  if (page.complete && page.naturalWidth > 0) {
    const gl = drawingContext;
    gl.bindTexture(gl.TEXTURE_2D, gl.createTexture());
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, page);
    noLoop();
  }
}
