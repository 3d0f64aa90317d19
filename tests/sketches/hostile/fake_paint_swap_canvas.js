// expect: blank_canvas
// Lays one brush stroke off the canvas (so the counters see painting), then
// points p5's drawing context at a 2D canvas full of colour, hoping the page
// captures that one instead.
function setup() {
  createCanvas(160, 160, WEBGL);
  background(255);
  brush.set("HB", "#222", 1);
  brush.line(4000, 4000, 4100, 4100);
  const fake = document.createElement("canvas");
  fake.width = 160;
  fake.height = 160;
  const g = fake.getContext("2d");
  for (let i = 0; i < 400; i++) {
    g.fillStyle = `hsl(${i * 37 % 360}, 80%, 50%)`;
    g.fillRect((i * 13) % 160, (i * 29) % 160, 12, 12);
  }
  // p5 itself needs the real context; hand the fake only to the capture.
  const inst = p5.instance;
  const real = inst.drawingContext;
  Object.defineProperty(inst, "drawingContext", {
    get: () => (new Error().stack.includes("finish") ? g : real),
    configurable: true,
  });
}
