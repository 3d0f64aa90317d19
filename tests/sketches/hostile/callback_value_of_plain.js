// expect: plain_painting
// A number argument whose valueOf() paints plain p5 shapes while p5.brush
// reads it: the shapes are drawn during a brush call, by p5, not the brush.
function setup() {
  createCanvas(200, 200, WEBGL);
  background("#f6f1e8");
  let done = false;
  const x = {
    valueOf() {
      if (!done) {
        done = true;
        noStroke();
        fill("#c8432b");
        rect(-100, -100, 200, 160);
      }
      return -80;
    },
  };
  brush.set("HB", "#222", 1);
  brush.line(x, 90, 80, 90);
}
