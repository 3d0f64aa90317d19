// p5.brush 1.x: a custom brush of its own added with brush.add().
function setup() {
  createCanvas(320, 320, WEBGL);
  angleMode(DEGREES);
  background("#fafaf5");
  brush.add("chalky", {
    type: "custom",
    weight: 4,
    vibration: 0.2,
    definition: 0.6,
    quality: 6,
    opacity: 40,
    spacing: 1.2,
    blend: true,
    pressure: { type: "standard", curve: [0.2, 0.3], min_max: [1.2, 0.8] },
    tip: (m) => { m.rect(-1.5, -1.5, 3, 3); m.rect(1, 1, 1, 1); },
    rotate: "natural",
  });
  brush.set("chalky", "#2e6b5a", 1);
  for (let i = 0; i < 7; i++) brush.line(-130, -120 + i * 38, 130, -100 + i * 38);
  brush.gravity(0, 200);
}
