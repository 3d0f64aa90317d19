// p5.brush 2.x: hatching and a washed fill, seeded from Math.random().
function setup() {
  createCanvas(360, 360, WEBGL);
  randomSeed(Math.floor(Math.random() * 1000));
  background("#fbf7ef");
  brush.hatch(8, Math.PI / 4, { rand: 0.1 });
  brush.hatchStyle("HB", "#33415c", 1);
  brush.noStroke();
  brush.rect(-150, -150, 140, 300);
  brush.noHatch();
  brush.fill("#f4a261", 75);
  brush.fillBleed(0.2);
  brush.circle(70, 0, 80);
}
