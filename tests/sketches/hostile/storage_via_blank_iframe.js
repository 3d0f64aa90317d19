// expect: frame
// Reaches localStorage and cookies through an about:blank iframe, whose
// window the in-page traps never armed.
function setup() {
  createCanvas(160, 160, WEBGL);
  const frame = document.createElement("iframe");
  document.body.appendChild(frame);
  const w = frame.contentWindow;
  w.localStorage.setItem("visits", String(Number(w.localStorage.getItem("visits") || 0) + 1));
  w.document.cookie = "visits=1";
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
}
