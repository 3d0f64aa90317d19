// Heavy: three watercolour fills (two fruits and a bowl) with ink contours.
function setup() {
  createCanvas(260, 260, WEBGL);
  background("#f4efe4");
  brush.noStroke();
  brush.fill("#e07a5f", 90);
  brush.circle(-35, -10, 36);
  brush.fill("#f2cc8f", 90);
  brush.circle(35, -5, 34);
  brush.fill("#3d405b", 70);
  brush.fillBleed(0.25);
  brush.rect(-90, 30, 180, 45);
  brush.noFill();
  brush.set("pen", "#222222", 1);
  brush.circle(-35, -10, 36);
  brush.circle(35, -5, 34);
}
