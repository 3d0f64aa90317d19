// expect: not_webgl
// A 2D canvas dressed up as WebGL: every instanceof test on the WebGL
// context classes answers yes.
for (const name of ["WebGLRenderingContext", "WebGL2RenderingContext"]) {
  Object.defineProperty(window[name], Symbol.hasInstance, { value: () => true });
}
function setup() {
  createCanvas(160, 160);
  background(250);
  stroke(20);
  line(20, 20, 140, 140);
  try {
    brush.set("HB", "#222", 1);
    brush.line(20, 20, 140, 140);
  } catch (e) { /* p5.brush needs WebGL */ }
}
