// expect: plain_painting
// A colour whose toString() paints plain p5 shapes while p5.brush parses it.
function setup() {
  createCanvas(200, 200, WEBGL);
  background("#f6f1e8");
  let done = false;
  const colour = {
    toString() {
      if (!done) {
        done = true;
        noStroke();
        fill("#2b5fc8");
        ellipse(0, -10, 190, 170);
      }
      return "#222222";
    },
  };
  brush.set("HB", colour, 1);
  brush.line(-80, 90, 80, 90);
}
