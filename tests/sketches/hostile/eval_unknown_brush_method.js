// expect: unknown_brush_method
// The method name is assembled at run time and called through eval, so the
// static check cannot read it; the brush proxy must.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const name = ["water", "co", "lor"].join("");
  eval("brush." + name + "('#f2a488', 0.6)");
}
