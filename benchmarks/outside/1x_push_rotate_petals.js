// p5.brush 1.x: transforms on the brush's own stack, petals round a centre.
function setup() {
  createCanvas(420, 420, WEBGL);
  angleMode(DEGREES);
  background("#f3eee2");
  brush.noStroke();
  for (let k = 0; k < 6; k++) {
    brush.push();
    brush.rotate(k * 60);
    brush.fill(k % 2 ? "#e07a8a" : "#c94f6d", 70);
    brush.bleed(0.1);
    brush.polygon([[0, 0], [40, -90], [0, -150], [-40, -90]]);
    brush.pop();
  }
  brush.noFill();
  brush.set("charcoal", "#3b2a20", 1);
  brush.circle(0, 0, 22);
  brush.reBlend();
}
