// expect: raw_webgl
// WebGL 1 on an OffscreenCanvas, drawn through the instancing extension.
function setup() {
  createCanvas(160, 160, WEBGL);
  background(255);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const gl = new OffscreenCanvas(64, 64).getContext("webgl");
  const ext = gl.getExtension("ANGLE_instanced_arrays");
  ext.drawArraysInstancedANGLE(gl.TRIANGLES, 0, 3, 4);
}
