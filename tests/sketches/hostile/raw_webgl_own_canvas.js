// expect: raw_webgl
// WebGL on a canvas element of its own, cleared and drawn without p5 or the brush.
function setup() {
  createCanvas(160, 160, WEBGL);
  background(255);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const own = document.createElement("canvas");
  const gl = own.getContext("webgl2");
  gl.clearColor(0.8, 0.2, 0.2, 1);
  gl.clear(gl.COLOR_BUFFER_BIT);
  gl.drawArrays(gl.POINTS, 0, 1);
}
