// expect: frame
// A same-origin about:blank iframe has its own, untrapped fetch; the name is
// built at run time and the failure is caught, so nothing but the sandbox
// itself can notice the attempt.
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  const frame = document.createElement("iframe");
  document.body.appendChild(frame);
  frame.contentWindow["fe" + "tch"]("http://10.0.0.1/palette.json").catch(() => {});
}
