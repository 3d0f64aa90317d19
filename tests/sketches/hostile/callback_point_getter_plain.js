// expect: plain_painting
// A polygon point whose getter paints plain p5 shapes while p5.brush reads
// the polygon's vertices.
function setup() {
  createCanvas(200, 200, WEBGL);
  background("#f6f1e8");
  let done = false;
  const corner = [0, 70];
  Object.defineProperty(corner, 0, {
    get() {
      if (!done) {
        done = true;
        noStroke();
        fill("#3f8a3a");
        quad(-100, -100, 100, -100, 100, 60, -100, 60);
      }
      return -80;
    },
  });
  brush.fill("#223344", 60);
  brush.polygon([corner, [80, 70], [80, 95], [-80, 95]]);
}
