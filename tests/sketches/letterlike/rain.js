// Rain over a grey sea: slanted short strokes, hundreds of them.
function setup() {
  createCanvas(400, 300, WEBGL);
  background("#dfe3e6");
  brush.noStroke();
  brush.fill("#6f8796", 60);
  brush.rect(-200, 60, 400, 90);
  brush.noFill();
  brush.set("2H", "#4c5a66", 1.2);
  for (let i = 0; i < 260; i++) {
    const x = random(-210, 200), y = random(-150, 140);
    brush.line(x, y, x + 6, y + 16);
  }
}
