// expect: embedded_image
// An image built from a string through a Blob and an object URL.
function setup() {
  createCanvas(120, 120, WEBGL);
  background(255);
  brush.set("HB", "#222", 1);
  brush.line(-50, -50, 50, 50);
  try {
    const blob = new Blob(['<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9">'
      + '<rect width="9" height="9" fill="red"/></svg>'], { type: "image/svg+xml" });
    const img = new Image();
    img.src = URL.createObjectURL(blob);
  } catch (e) { /* carry on painting */ }
}
