// expect: plain_painting
// Plain shapes painted first, then a light brush wash laid over them, hoping
// the last writer of each pixel is what counts.
function setup() {
  createCanvas(200, 200, WEBGL);
  background("#fdfaf4");
  noStroke();
  fill("#1d3557");
  rect(-90, -90, 180, 90);
  fill("#e63946");
  circle(0, 40, 100);
  brush.noStroke();
  brush.fill("#f1c27d", 20);
  brush.rect(-95, -95, 190, 190);
  brush.noFill();
}
