// expect: raw_webgl
// Raw WebGL on the main canvas's own context: a shader fills most of the
// canvas with colour, next to one brush stroke.
function setup() {
  createCanvas(200, 200, WEBGL);
  background(250);
  brush.set("HB", "#222", 1);
  brush.line(-80, 80, 80, 80);
  const gl = drawingContext;
  const shader = (type, text) => {
    const s = gl.createShader(type);
    gl.shaderSource(s, text);
    gl.compileShader(s);
    return s;
  };
  const program = gl.createProgram();
  gl.attachShader(program, shader(gl.VERTEX_SHADER,
    "attribute vec2 p; void main() { gl_Position = vec4(p * 0.8, 0.0, 1.0); }"));
  gl.attachShader(program, shader(gl.FRAGMENT_SHADER,
    "precision mediump float; void main() { gl_FragColor = vec4(0.8, 0.3, 0.2, 1.0); }"));
  gl.bindAttribLocation(program, 0, "p");
  gl.linkProgram(program);
  gl.useProgram(program);
  const buffer = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
  gl.enableVertexAttribArray(0);
  gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
  gl.disable(gl.DEPTH_TEST);
  gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
}
