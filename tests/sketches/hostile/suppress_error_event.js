// expect: runtime_error
// Hides its own error from the page: a capturing listener swallows the
// error event, console is silenced, onerror is replaced.
window.addEventListener("error", (e) => { e.stopImmediatePropagation(); e.preventDefault(); },
                        true);
window.addEventListener("unhandledrejection", (e) => e.stopImmediatePropagation(), true);
window.onerror = () => true;
console.error = console.log = console.warn = () => {};
function setup() {
  createCanvas(160, 160, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-60, -60, 60, 60);
  missingHelper();
}
