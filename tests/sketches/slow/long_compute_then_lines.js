// About 2.5 s here (a computation, then a few pencil strokes): still running
// when a test kills its browser or page in the middle.
function setup() {
  createCanvas(160, 160, WEBGL);
  background(250);
  let x = 0;
  for (let i = 0; i < 4e8; i++) x = (x + i) % 1000003;
  brush.set("HB", "#223", 1);
  for (let i = 0; i < 8; i++) brush.line(random(-70, 70), -70, random(-70, 70), 70 + x % 2);
}
