// expect: plain_painting
// A custom brush tip that paints plain p5 shapes on the main canvas instead
// of the tip buffer it is handed.
function setup() {
  createCanvas(200, 200, WEBGL);
  background("#f6f1e8");
  let done = false;
  brush.add("cover", {
    type: "custom",
    weight: 2,
    vibration: 0,
    opacity: 200,
    spacing: 1,
    pressure: [1, 1],
    tip: (surface) => {
      if (!done) {
        done = true;
        noStroke();
        fill("#c89a2b");
        rect(-100, -100, 200, 170);
      }
      surface.rect(-1, -1, 2, 2);
    },
  });
  brush.set("cover", "#222", 1);
  brush.line(-80, 90, 80, 90);
}
